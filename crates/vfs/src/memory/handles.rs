//! Open files. A handle names an inode, not a path, so the file can be renamed or
//! unlinked while open: unlinked, it keeps its data until the last handle closes (as
//! POSIX does), and storage never sees it again.

use super::tree::Content;
use super::write_op::WriteOp;
use super::{MemFs, not_loaded, set_inode_times, write_inode};
use crate::clock::Timestamp;
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::metadata::Metadata;
use crate::path::VfsPath;

/// An open file. Close it with [`MemFs::close`]; a handle dropped without closing keeps
/// its file alive (and counted in the quota) until the filesystem goes.
#[derive(Debug)]
pub struct FileHandle {
    ino: u64,
    /// The path it was opened by, for error messages.
    path: VfsPath,
}

impl FileHandle {
    /// The inode number of the open file.
    pub fn ino(&self) -> u64 {
        self.ino
    }
}

impl MemFs {
    /// Opens the file at `path` (following symlinks). Directories are refused (EISDIR).
    pub fn open(&self, path: &VfsPath) -> VfsResult<FileHandle> {
        let mut tree = self.lock();
        let ino = tree.resolve(path, true)?;
        match tree.inode(ino).content {
            Content::File(_) => {}
            Content::Stored { .. } => return not_loaded(path),
            _ => return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string())),
        }
        tree.inode_mut_unjournaled(ino).open += 1;
        Ok(FileHandle {
            ino,
            path: path.clone(),
        })
    }

    /// Closes a handle; an unlinked file is freed when its last handle closes.
    pub fn close(&self, handle: FileHandle) {
        let mut tree = self.lock();
        let Some(inode) = tree.inodes.get_mut(&handle.ino) else {
            return;
        };
        inode.open = inode.open.saturating_sub(1);
        if inode.open == 0 && inode.links == 0 {
            tree.free(handle.ino, &mut Vec::new());
        }
    }

    /// Up to `len` bytes from `offset` of the open file.
    pub fn read_handle(&self, handle: &FileHandle, offset: u64, len: usize) -> VfsResult<Vec<u8>> {
        let tree = self.lock();
        match &tree.inode(handle.ino).content {
            Content::File(data) => {
                let start = usize::try_from(offset)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                let end = start.saturating_add(len).min(data.len());
                Ok(data[start..end].to_vec())
            }
            _ => not_loaded(&handle.path),
        }
    }

    /// Writes `data` at `offset` of the open file, within the quota.
    pub fn write_handle(&self, handle: &FileHandle, offset: u64, data: &[u8]) -> VfsResult<()> {
        self.change_handle(handle, WriteOp::At(offset, data))
            .map(|_| ())
    }

    /// Appends `data` to the open file (`O_APPEND`), within the quota; returns the new size.
    pub fn append_handle(&self, handle: &FileHandle, data: &[u8]) -> VfsResult<u64> {
        self.change_handle(handle, WriteOp::Append(data))
    }

    /// Cuts or extends (with zeros) the open file to `len` bytes, within the quota.
    pub fn truncate_handle(&self, handle: &FileHandle, len: u64) -> VfsResult<()> {
        self.change_handle(handle, WriteOp::Truncate(len))
            .map(|_| ())
    }

    /// Applies `op` to the open file; returns its new size.
    fn change_handle(&self, handle: &FileHandle, op: WriteOp<'_>) -> VfsResult<u64> {
        self.writes.charge(op.written(), &handle.path.to_string())?;
        let now = self.clock.now();
        let mut tree = self.lock();
        write_inode(&mut tree, &self.quota, handle.ino, op, &handle.path, now)?;
        Ok(tree.inode(handle.ino).metadata(handle.ino).size)
    }

    /// Sets the open file's access and/or modification time (as `futimens`).
    pub fn set_handle_times(
        &self,
        handle: &FileHandle,
        accessed: Option<Timestamp>,
        modified: Option<Timestamp>,
    ) -> VfsResult<()> {
        let now = self.clock.now();
        set_inode_times(
            &mut self.lock(),
            handle.ino,
            &handle.path,
            accessed,
            modified,
            now,
        )
    }

    /// EROFS if `path` (which must exist) lies on a read-only mount: what `open` for
    /// writing checks before it succeeds.
    pub fn check_writable(&self, path: &VfsPath) -> VfsResult<()> {
        let tree = self.lock();
        let ino = tree.resolve(path, true)?;
        tree.check_writable(ino, path)
    }

    /// Metadata of the open file (its link count is 0 once unlinked).
    pub fn handle_metadata(&self, handle: &FileHandle) -> Metadata {
        self.lock().inode(handle.ino).metadata(handle.ino)
    }
}
