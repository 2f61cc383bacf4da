//! Export to and import from tar archives (`tar_format`, as the shell's `tar` reads and
//! writes them), so a sandbox's files can be downloaded, uploaded, or moved to a real
//! machine.

use super::sandbox_fs::SandboxFs;
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::memory::MemFs;
use crate::metadata::FileKind;
use crate::path::VfsPath;
use crate::tar_format::{self, Entry, Kind, Writer};
use crate::{DirEntry, Timestamp};
use std::collections::HashMap;

fn archive_error(detail: &str) -> VfsError {
    VfsError::new(ErrorKind::InvalidInput, "archive").with_detail(detail.to_owned())
}

/// The entries of `archive`, or why it cannot be imported: unlike `tar -x`, an import
/// takes nothing from a damaged archive. An empty input is an empty archive.
fn entries(archive: &[u8]) -> VfsResult<Vec<(Entry, Vec<u8>)>> {
    if archive.is_empty() {
        return Ok(Vec::new());
    }
    let contents = tar_format::read(archive);
    if contents.not_an_archive {
        return Err(archive_error("this does not look like a tar archive"));
    }
    if contents.skipped > 0 {
        return Err(archive_error("a damaged header"));
    }
    if contents.truncated {
        return Err(archive_error("the archive ends inside an entry"));
    }
    Ok(contents.entries)
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
        let mut writer = Writer::new(Vec::new());
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
            let mut entry = Entry {
                name,
                kind: Kind::File,
                link: String::new(),
                mode: meta.mode,
                mtime: i64::try_from(meta.modified.as_secs()).unwrap_or(i64::MAX),
                uid: 0,
                gid: 0,
                user: String::new(),
                group: String::new(),
                size: 0,
            };
            match meta.kind {
                FileKind::Directory => {
                    entry.kind = Kind::Directory;
                    entry.name.push('/');
                    writer.append(&entry, &[]);
                }
                FileKind::File => {
                    self.load_for_read(&path).await?;
                    let data = self.mem().read(&path)?;
                    entry.size = data.len() as u64;
                    writer.append(&entry, &data);
                }
                FileKind::Symlink => {
                    entry.kind = Kind::Symlink;
                    entry.link = self.mem().read_link(&path)?;
                    writer.append(&entry, &[]);
                }
            }
        }
        Ok(writer.finish())
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
        let entries = entries(archive)?;
        check_no_path_through_symlink(mem, root, &entries)?;
        mem.create_dir_all(root)?;
        let mut stats = ImportStats::default();
        for (entry, data) in entries {
            let name = entry.name.as_str();
            let relative = below_root(name)?;
            let path = root_child(root, &relative);
            if path == *root {
                continue;
            }
            if matches!(entry.kind, Kind::Other(_)) {
                stats.skipped += 1;
                continue;
            }
            // Checked up front already; checked again against the tree as it is now,
            // so nothing below is ever written through a symlink.
            refuse_symlink_on_the_way(mem, root, &relative, &|symlink| {
                through_symlink(&path, name, None, symlink)
            })?;
            if let Some(parent) = path.parent() {
                mem.create_dir_all(&parent)?;
            }
            let existing = mem.lstat(&path).ok().map(|meta| meta.kind);
            match entry.kind {
                Kind::Directory => {
                    if existing == Some(FileKind::Symlink) {
                        // GNU tar's default: the directory replaces the symlink.
                        mem.remove_file(&path)?;
                    }
                    mem.create_dir_all(&path)?;
                    mem.set_mode(&path, entry.mode)?;
                    stats.directories += 1;
                }
                Kind::File => {
                    // As GNU tar does, whatever file or symlink stands there is
                    // unlinked first: a hard link's other names keep their contents
                    // and mode. A directory stays (the write fails on it).
                    if existing.is_some_and(|kind| kind != FileKind::Directory) {
                        mem.remove_file(&path)?;
                    }
                    mem.write(&path, &data)?;
                    mem.set_mode(&path, entry.mode)?;
                    let secs = u64::try_from(entry.mtime).unwrap_or(0);
                    mem.set_modified(&path, Timestamp(secs.saturating_mul(1_000_000_000)))?;
                    stats.files += 1;
                }
                Kind::Symlink => {
                    if existing.is_some() {
                        mem.remove_file(&path)?;
                    }
                    mem.symlink(&entry.link, &path)?;
                    stats.symlinks += 1;
                }
                Kind::HardLink | Kind::Other(_) => {
                    let target = entry.link.as_str();
                    let target_relative = below_root(target)?;
                    refuse_symlink_on_the_way(mem, root, &target_relative, &|symlink| {
                        through_symlink(&path, name, Some(target), symlink)
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

/// Goes through the whole archive, changing nothing, and refuses it if an entry would be
/// extracted through a symlink: one an earlier entry makes, or one in the tree below
/// `root`. Follows what each entry does to the tree the way `import_tar` does it.
fn check_no_path_through_symlink(
    mem: &MemFs,
    root: &VfsPath,
    entries: &[(Entry, Vec<u8>)],
) -> VfsResult<()> {
    let mut made: HashMap<Vec<String>, Made> = HashMap::new();
    for (entry, _) in entries {
        let name = entry.name.as_str();
        let relative = below_root(name)?;
        if relative.is_empty() || matches!(entry.kind, Kind::Other(_)) {
            continue;
        }
        let path = root_child(root, &relative);
        let fresh_below = check_prefixes(mem, root, &relative, &made, &|symlink| {
            through_symlink(&path, name, None, symlink)
        })?;
        if entry.kind == Kind::HardLink {
            let target = entry.link.as_str();
            let target_relative = below_root(target)?;
            check_prefixes(mem, root, &target_relative, &made, &|symlink| {
                through_symlink(&path, name, Some(target), symlink)
            })?;
        }
        // The missing directories on the way are made.
        for end in 1..relative.len() {
            made.entry(relative[..end].to_vec())
                .or_insert(Made::Directory { fresh: true });
        }
        let now = match entry.kind {
            Kind::Symlink => Made::Symlink,
            Kind::Directory => {
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
