//! Export to and import from tar archives (the `tar` crate), so a sandbox's files can be
//! downloaded, uploaded, or moved to a real machine.

use super::sandbox_fs::SandboxFs;
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::memory::MemFs;
use crate::metadata::FileKind;
use crate::path::VfsPath;
use crate::{DirEntry, Timestamp};
use std::collections::HashMap;
use std::io::Read;

fn archive_error(err: std::io::Error) -> VfsError {
    VfsError::new(ErrorKind::InvalidInput, "archive").with_detail(err.to_string())
}

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportStats {
    pub files: u64,
    pub directories: u64,
    pub symlinks: u64,
    /// Entries of kinds a sandbox has no use for (devices, FIFOs), left out.
    pub skipped: u64,
}

impl SandboxFs {
    /// A tar archive of everything below `root` (mounts excluded), with modes and
    /// modification times. Paths in it are relative to `root`.
    pub async fn export_tar(&self, root: &VfsPath) -> VfsResult<Vec<u8>> {
        let mut builder = tar::Builder::new(Vec::new());
        let mut pending: Vec<(VfsPath, String)> = Vec::new();
        let top = self.mem().stat(root)?;
        if top.kind != FileKind::Directory {
            return Err(VfsError::new(ErrorKind::NotADirectory, root.to_string()));
        }
        let mut queue = vec![(root.clone(), String::new())];
        while let Some((dir, prefix)) = queue.pop() {
            let entries: Vec<DirEntry> = self.mem().read_dir(&dir)?;
            for entry in entries.into_iter().rev() {
                let path = dir.child(&entry.name);
                if self.is_mount_point(&path) {
                    continue;
                }
                let name = format!("{prefix}{}", entry.name);
                pending.push((path.clone(), name.clone()));
                if entry.metadata.kind == FileKind::Directory {
                    queue.push((path, format!("{name}/")));
                }
            }
        }
        pending.sort_by(|a, b| a.1.cmp(&b.1));
        // Read the stored files below `root` in a few batched reads, not one per file.
        let paths: Vec<VfsPath> = pending.iter().map(|(path, _)| path.clone()).collect();
        self.load_paths(&paths).await?;
        for (path, name) in pending {
            let meta = self.mem().lstat(&path)?;
            let mut header = tar::Header::new_gnu();
            header.set_mode(meta.mode);
            header.set_mtime(meta.modified.as_secs());
            match meta.kind {
                FileKind::Directory => {
                    header.set_entry_type(tar::EntryType::Directory);
                    header.set_size(0);
                    builder
                        .append_data(&mut header, format!("{name}/"), std::io::empty())
                        .map_err(archive_error)?;
                }
                FileKind::File => {
                    self.load_for_read(&path).await?;
                    let data = self.mem().read(&path)?;
                    header.set_entry_type(tar::EntryType::Regular);
                    header.set_size(data.len() as u64);
                    builder
                        .append_data(&mut header, &name, data.as_slice())
                        .map_err(archive_error)?;
                }
                FileKind::Symlink => {
                    let target = self.mem().read_link(&path)?;
                    header.set_entry_type(tar::EntryType::Symlink);
                    header.set_size(0);
                    builder
                        .append_link(&mut header, &name, &target)
                        .map_err(archive_error)?;
                }
            }
        }
        builder.into_inner().map_err(archive_error)
    }

    fn is_mount_point(&self, path: &VfsPath) -> bool {
        self.mount_paths().any(|mount| mount == path)
    }

    /// Unpacks a tar archive below `root` (created if missing). Paths in the archive are
    /// confined to `root` (`..` cannot climb out). Existing files are replaced: a
    /// file, hard link or symlink an entry lands on is unlinked first (as GNU tar
    /// does), never written through.
    ///
    /// As GNU tar does by default, nothing is extracted through a symlink: an entry (or
    /// a hard link's target) whose path below `root` passes through a symlink, whether
    /// an earlier entry made it or it was already there, is refused with ENOTDIR naming
    /// the entry and the symlink. That is checked for the whole archive first, so such
    /// an archive changes nothing. Otherwise it stops at the first entry that fails (a
    /// quota, say) with that entry's error; entries before it stay imported.
    pub async fn import_tar(&self, root: &VfsPath, archive: &[u8]) -> VfsResult<ImportStats> {
        let mem = self.mem();
        check_no_path_through_symlink(mem, root, archive)?;
        mem.create_dir_all(root)?;
        let mut stats = ImportStats::default();
        let mut reader = tar::Archive::new(archive);
        for entry in reader.entries().map_err(archive_error)? {
            let mut entry = entry.map_err(archive_error)?;
            let name = entry_name(&entry)?;
            let relative = below_root(&name)?;
            let path = root_child(root, &relative);
            let header = entry.header();
            let mode = header.mode().unwrap_or(0o644) & 0o7777;
            let mtime = header.mtime().ok();
            let kind = header.entry_type();
            if path == *root {
                continue;
            }
            if !handled(kind) {
                stats.skipped += 1;
                continue;
            }
            // Checked up front already; checked again against the tree as it is now,
            // so nothing below is ever written through a symlink.
            refuse_symlink_on_the_way(mem, root, &relative, &|symlink| {
                through_symlink(&path, &name, None, symlink)
            })?;
            if let Some(parent) = path.parent() {
                mem.create_dir_all(&parent)?;
            }
            let existing = mem.lstat(&path).ok().map(|meta| meta.kind);
            match kind {
                tar::EntryType::Directory => {
                    if existing == Some(FileKind::Symlink) {
                        // GNU tar's default: the directory replaces the symlink.
                        mem.remove_file(&path)?;
                    }
                    mem.create_dir_all(&path)?;
                    mem.set_mode(&path, mode)?;
                    stats.directories += 1;
                }
                tar::EntryType::Regular | tar::EntryType::Continuous => {
                    let mut data = Vec::new();
                    entry.read_to_end(&mut data).map_err(archive_error)?;
                    // As GNU tar does, whatever file or symlink stands there is
                    // unlinked first: a hard link's other names keep their contents
                    // and mode. A directory stays (the write fails on it).
                    if existing.is_some_and(|kind| kind != FileKind::Directory) {
                        mem.remove_file(&path)?;
                    }
                    mem.write(&path, &data)?;
                    mem.set_mode(&path, mode)?;
                    if let Some(secs) = mtime {
                        mem.set_modified(&path, Timestamp(secs.saturating_mul(1_000_000_000)))?;
                    }
                    stats.files += 1;
                }
                tar::EntryType::Symlink => {
                    let target = link_name(&entry);
                    if existing.is_some() {
                        mem.remove_file(&path)?;
                    }
                    mem.symlink(&target, &path)?;
                    stats.symlinks += 1;
                }
                _ => {
                    // A hard link (`handled` lets nothing else through).
                    let target = link_name(&entry);
                    let target_relative = below_root(&target)?;
                    refuse_symlink_on_the_way(mem, root, &target_relative, &|symlink| {
                        through_symlink(&path, &name, Some(&target), symlink)
                    })?;
                    let existing_path = root_child(root, &target_relative);
                    if existing.is_some() {
                        mem.remove_file(&path)?;
                    }
                    mem.hard_link(&existing_path, &path)?;
                    stats.files += 1;
                }
            }
        }
        Ok(stats)
    }
}

/// The entry kinds an import writes; others (devices, FIFOs) are skipped.
fn handled(kind: tar::EntryType) -> bool {
    matches!(
        kind,
        tar::EntryType::Directory
            | tar::EntryType::Regular
            | tar::EntryType::Continuous
            | tar::EntryType::Symlink
            | tar::EntryType::Link
    )
}

fn entry_name<R: Read>(entry: &tar::Entry<'_, R>) -> VfsResult<String> {
    String::from_utf8(entry.path_bytes().into_owned()).map_err(|_| {
        VfsError::new(ErrorKind::InvalidInput, "archive")
            .with_detail("an entry's name is not UTF-8")
    })
}

fn link_name<R: Read>(entry: &tar::Entry<'_, R>) -> String {
    entry
        .link_name_bytes()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// A name from the archive as components below the import's root, whatever `..` or
/// `/` it starts with (they are clamped there).
fn below_root(name: &str) -> VfsResult<Vec<String>> {
    Ok(VfsPath::parse(name)?.components().to_vec())
}

fn root_child(root: &VfsPath, components: &[String]) -> VfsPath {
    components
        .iter()
        .fold(root.clone(), |path, component| path.child(component))
}

/// The refusal of an entry at `path` (named `name` in the archive; a hard link's
/// `target` if the target is what passes) that goes through `symlink`.
fn through_symlink(
    path: &VfsPath,
    name: &str,
    target: Option<&str>,
    symlink: &VfsPath,
) -> VfsError {
    let what = match target {
        Some(target) => format!("archive entry `{name}` links to `{target}`, which"),
        None => format!("archive entry `{name}`"),
    };
    VfsError::new(ErrorKind::NotADirectory, path.to_string()).with_detail(format!(
        "{what} passes through the symlink {symlink}: nothing is extracted through a symlink"
    ))
}

/// Fails with `refuse(symlink)` if a directory on the way to `relative` below `root`
/// (not `relative` itself) is a symlink in the tree as it is now.
fn refuse_symlink_on_the_way(
    mem: &MemFs,
    root: &VfsPath,
    relative: &[String],
    refuse: &dyn Fn(&VfsPath) -> VfsError,
) -> VfsResult<()> {
    let mut path = root.clone();
    for component in relative.iter().take(relative.len().saturating_sub(1)) {
        path = path.child(component);
        match mem.lstat(&path) {
            Ok(meta) if meta.kind == FileKind::Symlink => return Err(refuse(&path)),
            Ok(meta) if meta.kind == FileKind::Directory => {}
            // Missing (made as a directory) or a file (ENOTDIR when extracted).
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// What the entries read so far leave at a path below the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Made {
    Symlink,
    /// A file or hard link.
    File,
    /// A directory; `fresh` if it is new (nothing of the tree's shows below it).
    Directory {
        fresh: bool,
    },
}

/// Reads the whole archive, changing nothing, and refuses it if an entry would be
/// extracted through a symlink: one an earlier entry makes, or one in the tree below
/// `root`. Follows what each entry does to the tree the way `import_tar` does it.
fn check_no_path_through_symlink(mem: &MemFs, root: &VfsPath, archive: &[u8]) -> VfsResult<()> {
    let mut made: HashMap<Vec<String>, Made> = HashMap::new();
    let mut reader = tar::Archive::new(archive);
    for entry in reader.entries().map_err(archive_error)? {
        let entry = entry.map_err(archive_error)?;
        let name = entry_name(&entry)?;
        let relative = below_root(&name)?;
        let kind = entry.header().entry_type();
        if relative.is_empty() || !handled(kind) {
            continue;
        }
        let path = root_child(root, &relative);
        let fresh_below = check_prefixes(mem, root, &relative, &made, &|symlink| {
            through_symlink(&path, &name, None, symlink)
        })?;
        if kind == tar::EntryType::Link {
            let target = link_name(&entry);
            let target_relative = below_root(&target)?;
            check_prefixes(mem, root, &target_relative, &made, &|symlink| {
                through_symlink(&path, &name, Some(&target), symlink)
            })?;
        }
        // The missing directories on the way are made.
        for end in 1..relative.len() {
            made.entry(relative[..end].to_vec())
                .or_insert(Made::Directory { fresh: true });
        }
        let now = match kind {
            tar::EntryType::Symlink => Made::Symlink,
            tar::EntryType::Directory => {
                let merged = match made.get(&relative) {
                    Some(Made::Directory { .. }) => true,
                    Some(_) => false,
                    None => {
                        !fresh_below
                            && mem
                                .lstat(&path)
                                .is_ok_and(|meta| meta.kind == FileKind::Directory)
                    }
                };
                Made::Directory { fresh: !merged }
            }
            _ => Made::File,
        };
        made.insert(relative, now);
    }
    Ok(())
}

/// Checks the directories on the way to `relative` (not `relative` itself), as the
/// entries so far (`made`) leave them over the tree. Whether the tree's contents are
/// hidden at `relative` (below a directory made new).
fn check_prefixes(
    mem: &MemFs,
    root: &VfsPath,
    relative: &[String],
    made: &HashMap<Vec<String>, Made>,
    refuse: &dyn Fn(&VfsPath) -> VfsError,
) -> VfsResult<bool> {
    let mut fresh = false;
    for end in 1..relative.len() {
        let prefix = &relative[..end];
        let path = root_child(root, prefix);
        match made.get(prefix) {
            Some(Made::Symlink) => return Err(refuse(&path)),
            // The import fails there with ENOTDIR: nothing goes through.
            Some(Made::File) => return Ok(true),
            Some(Made::Directory { fresh: new }) => fresh |= *new,
            None if fresh => {}
            None => match mem.lstat(&path).map(|meta| meta.kind) {
                Ok(FileKind::Symlink) => return Err(refuse(&path)),
                Ok(FileKind::Directory) => {}
                Ok(FileKind::File) => return Ok(true),
                Err(_) => fresh = true,
            },
        }
    }
    Ok(fresh)
}
