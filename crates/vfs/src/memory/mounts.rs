//! Mounts: directories whose subtree behaves differently from the rest, for example
//! `/tmp` in memory under a persistent `/`, or a read-only project from the host page.
//! All mounts share one inode table, so symlinks resolve across them like any path.

use super::MemFs;
use super::tree::{Content, Inode, Volume};
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::path::VfsPath;
use std::collections::BTreeMap;

/// How a mounted subtree behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MountKind {
    /// Kept in memory only: gone when the sandbox closes (`/tmp`).
    Memory,
    /// Nothing below it can be changed: every write is EROFS.
    ReadOnly,
}

impl MemFs {
    /// Mounts an empty subtree at `path`, which must be a missing or empty directory whose
    /// parent exists. Fill a read-only mount with [`MemFs::mount_read_only`].
    pub fn mount(&self, path: &VfsPath, kind: MountKind) -> VfsResult<()> {
        self.mount_volume(path, false)?;
        if kind == MountKind::ReadOnly {
            self.seal_mount(path);
        }
        Ok(())
    }

    /// Mounts `files` (paths relative to the mount point, with their contents) read-only
    /// at `path`. Their bytes count against the quota like any others.
    pub fn mount_read_only<'a>(
        &self,
        path: &VfsPath,
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> VfsResult<()> {
        self.mount_volume(path, false)?;
        for (relative, data) in files {
            let file = path.join(relative.trim_start_matches('/'))?;
            if !file.starts_with(path) || file == *path {
                return Err(VfsError::new(ErrorKind::InvalidInput, relative.to_owned()));
            }
            if let Some(parent) = file.parent() {
                self.create_dir_all(&parent)?;
            }
            self.write(&file, data)?;
        }
        self.seal_mount(path);
        Ok(())
    }

    fn mount_volume(&self, path: &VfsPath, persistent: bool) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        if path.is_root() {
            return Err(VfsError::new(ErrorKind::Busy, "/"));
        }
        let (dir, name) = tree.resolve_for_create(path)?;
        if let Some(existing) = tree.lookup(dir, &name) {
            match &tree.inode(existing).content {
                Content::Directory(entries) if entries.is_empty() => {}
                Content::Directory(_) => {
                    return Err(VfsError::new(
                        ErrorKind::DirectoryNotEmpty,
                        path.to_string(),
                    ));
                }
                _ => return Err(VfsError::new(ErrorKind::NotADirectory, path.to_string())),
            }
            if tree.is_mount_root(existing) {
                return Err(VfsError::new(ErrorKind::Busy, path.to_string()));
            }
            tree.detach(dir, &name, now);
        }
        let ino = tree.next_ino;
        tree.next_ino += 1;
        let volume = tree.volumes.len();
        tree.volumes.push(Volume {
            root: ino,
            persistent,
            read_only: false,
        });
        tree.inodes.insert(
            ino,
            Inode {
                content: Content::Directory(BTreeMap::new()),
                volume,
                blob: 0,
                offset: 0,
                open: 0,
                mode: 0o1777,
                links: 1,
                modified: now,
                accessed: now,
                changed: now,
                created: now,
            },
        );
        tree.usage.dirs += 1;
        // The entry exists only in memory (stored directories leave mounts out), so the
        // parent is neither journaled nor touched: opening a sandbox writes nothing.
        match &mut tree.inode_mut_unjournaled(dir).content {
            Content::Directory(entries) => {
                entries.insert(name, ino);
            }
            _ => return Err(VfsError::new(ErrorKind::NotADirectory, path.to_string())),
        }
        Ok(())
    }

    fn seal_mount(&self, path: &VfsPath) {
        let mut tree = self.lock();
        if let Ok(ino) = tree.resolve(path, false) {
            let volume = tree.inode(ino).volume;
            tree.volumes[volume].read_only = true;
            tree.inode_mut_unjournaled(ino).mode = 0o555;
        }
    }
}
