//! Export to and import from tar archives (the `tar` crate), so a sandbox's files can be
//! downloaded, uploaded, or moved to a real machine.

use super::sandbox_fs::SandboxFs;
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::metadata::FileKind;
use crate::path::VfsPath;
use crate::{DirEntry, Timestamp};
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
    /// confined to `root` (`..` cannot climb out). Existing files are replaced. It stops
    /// at the first entry that fails (a quota, say) with that entry's error; entries
    /// before it stay imported.
    pub async fn import_tar(&self, root: &VfsPath, archive: &[u8]) -> VfsResult<ImportStats> {
        let mem = self.mem();
        mem.create_dir_all(root)?;
        let mut stats = ImportStats::default();
        let mut reader = tar::Archive::new(archive);
        for entry in reader.entries().map_err(archive_error)? {
            let mut entry = entry.map_err(archive_error)?;
            let raw = entry.path_bytes().into_owned();
            let name = String::from_utf8(raw).map_err(|_| {
                VfsError::new(ErrorKind::InvalidInput, "archive")
                    .with_detail("an entry's name is not UTF-8")
            })?;
            // Clamp the entry below `root`, whatever `..` or `/` it starts with.
            let relative = VfsPath::parse(&name)?;
            let mut path = root.clone();
            for component in relative.components() {
                path = path.child(component);
            }
            let header = entry.header();
            let mode = header.mode().unwrap_or(0o644) & 0o7777;
            let mtime = header.mtime().ok();
            let kind = header.entry_type();
            if path == *root {
                continue;
            }
            if let Some(parent) = path.parent() {
                mem.create_dir_all(&parent)?;
            }
            match kind {
                tar::EntryType::Directory => {
                    mem.create_dir_all(&path)?;
                    mem.set_mode(&path, mode)?;
                    stats.directories += 1;
                }
                tar::EntryType::Regular | tar::EntryType::Continuous => {
                    let mut data = Vec::new();
                    entry.read_to_end(&mut data).map_err(archive_error)?;
                    if mem
                        .lstat(&path)
                        .is_ok_and(|meta| meta.kind == FileKind::Symlink)
                    {
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
                    let target = entry
                        .link_name_bytes()
                        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                        .unwrap_or_default();
                    if mem.lstat(&path).is_ok() {
                        mem.remove_file(&path)?;
                    }
                    mem.symlink(&target, &path)?;
                    stats.symlinks += 1;
                }
                tar::EntryType::Link => {
                    let target = entry
                        .link_name_bytes()
                        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                        .unwrap_or_default();
                    let relative = VfsPath::parse(&target)?;
                    let mut existing = root.clone();
                    for component in relative.components() {
                        existing = existing.child(component);
                    }
                    if mem.lstat(&path).is_ok() {
                        mem.remove_file(&path)?;
                    }
                    mem.hard_link(&existing, &path)?;
                    stats.files += 1;
                }
                _ => stats.skipped += 1,
            }
        }
        Ok(stats)
    }
}
