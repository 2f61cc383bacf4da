//! The in-memory filesystem: an inode table and directories that map names to inodes.
//!
//! Every operation takes the one lock, checks everything it needs, and only then changes
//! the tree, so a failed operation changes nothing.

mod handles;
mod mounts;
pub(crate) mod persist;
mod tree;
mod write_op;

use crate::clock::{Clock, Timestamp};
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::metadata::{DirEntry, FileKind, Metadata, Usage};
use crate::path::VfsPath;
use crate::quota::Quota;
use crate::write_budget::WriteBudget;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use tree::{Content, Inode, Journal, ROOT_INO, Tree, Volume};
use write_op::WriteOp;

pub use handles::FileHandle;
pub use mounts::MountKind;

/// The largest file memory can hold, whatever the quota says: a wasm32 module has 4 GiB
/// of memory at most, and a file is copied when read. Larger is EFBIG, never an abort.
pub const MAX_FILE_SIZE: u64 = 1 << 30;

/// An in-memory filesystem. Cheap to share: clone the `Arc` it lives in.
pub struct MemFs {
    tree: Mutex<Tree>,
    clock: Arc<dyn Clock>,
    quota: Quota,
    writes: WriteBudget,
}

impl std::fmt::Debug for MemFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemFs")
            .field("usage", &self.usage())
            .finish_non_exhaustive()
    }
}

impl MemFs {
    /// The time now on the filesystem's clock (the one files' times come from).
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// An empty filesystem holding only `/`, with no quota.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self::with_quota(clock, Quota::UNLIMITED)
    }

    /// An empty filesystem holding only `/`, whose contents must stay within `quota`.
    pub fn with_quota(clock: Arc<dyn Clock>, quota: Quota) -> Self {
        let now = clock.now();
        let root = Inode {
            content: Content::Directory(BTreeMap::new()),
            volume: 0,
            blob: 0,
            offset: 0,
            open: 0,
            mode: 0o755,
            links: 1,
            modified: now,
            accessed: now,
            changed: now,
            created: now,
        };
        Self {
            tree: Mutex::new(Tree {
                inodes: HashMap::from([(ROOT_INO, root)]),
                next_ino: ROOT_INO + 1,
                next_blob: 1,
                blob_refs: HashMap::new(),
                usage: Usage {
                    dirs: 1,
                    ..Usage::default()
                },
                volumes: vec![Volume {
                    root: ROOT_INO,
                    persistent: false,
                    read_only: false,
                }],
                journal: Journal::default(),
                revision: 0,
            }),
            clock,
            quota,
            writes: WriteBudget::default(),
        }
    }

    /// The limits this filesystem enforces.
    pub fn quota(&self) -> Quota {
        self.quota
    }

    /// The bound on what the running command writes to files (none outside commands).
    pub fn write_budget(&self) -> &WriteBudget {
        &self.writes
    }

    fn lock(&self) -> MutexGuard<'_, Tree> {
        // A panic while holding the lock cannot leave the tree half-changed (every
        // operation checks before it mutates), so a poisoned lock is still usable.
        self.tree
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Metadata of `path`, following a final symlink.
    pub fn stat(&self, path: &VfsPath) -> VfsResult<Metadata> {
        let tree = self.lock();
        let ino = tree.resolve(path, true)?;
        Ok(tree.inode(ino).metadata(ino))
    }

    /// Metadata of `path` itself, not following a final symlink.
    pub fn lstat(&self, path: &VfsPath) -> VfsResult<Metadata> {
        let tree = self.lock();
        let ino = tree.resolve(path, false)?;
        Ok(tree.inode(ino).metadata(ino))
    }

    /// Whether anything exists at `path` (a dangling symlink counts).
    pub fn exists(&self, path: &VfsPath) -> bool {
        self.lstat(path).is_ok()
    }

    /// The whole contents of a file.
    pub fn read(&self, path: &VfsPath) -> VfsResult<Vec<u8>> {
        self.read_with(path, <[u8]>::to_vec)
    }

    /// Replaces the contents of a file, creating it (mode 0644) if needed.
    pub fn write(&self, path: &VfsPath, data: &[u8]) -> VfsResult<()> {
        self.write_with(path, WriteOp::Replace(data))
    }

    /// Like [`MemFs::write`], taking the buffer over instead of copying it.
    pub fn write_owned(&self, path: &VfsPath, data: Vec<u8>) -> VfsResult<()> {
        self.write_with(path, WriteOp::ReplaceOwned(data))
    }

    /// Appends to a file, creating it (mode 0644) if needed.
    pub fn append(&self, path: &VfsPath, data: &[u8]) -> VfsResult<()> {
        self.write_with(path, WriteOp::Append(data))
    }

    /// Writes `data` at `offset` (as `pwrite`), creating the file if needed; a gap
    /// before `offset` reads as zeros.
    pub fn write_at(&self, path: &VfsPath, offset: u64, data: &[u8]) -> VfsResult<()> {
        self.write_with(path, WriteOp::At(offset, data))
    }

    /// Cuts or extends (with zeros) a file to `len` bytes. The file must exist.
    pub fn truncate(&self, path: &VfsPath, len: u64) -> VfsResult<()> {
        if self.stat(path)?.kind == FileKind::Directory {
            return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string()));
        }
        self.write_with(path, WriteOp::Truncate(len))
    }

    /// Up to `len` bytes from `offset` (as `pread`); fewer at the end of the file.
    pub fn read_at(&self, path: &VfsPath, offset: u64, len: usize) -> VfsResult<Vec<u8>> {
        self.read_with(path, |data| {
            let start = usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .min(data.len());
            let end = start.saturating_add(len).min(data.len());
            data[start..end].to_vec()
        })
    }

    /// Runs `read` on a file's whole contents without copying them, for a reader
    /// outside the sandbox (the page): the access is not recorded, so the file's times
    /// and the clock's readings are the sandbox's own.
    pub fn read_contents_with<T>(
        &self,
        path: &VfsPath,
        read: impl FnOnce(&[u8]) -> T,
    ) -> VfsResult<T> {
        self.read_inner(path, read, false)
    }

    /// Runs `read` on a file's contents and records the access (atime).
    fn read_with<T>(&self, path: &VfsPath, read: impl FnOnce(&[u8]) -> T) -> VfsResult<T> {
        self.read_inner(path, read, true)
    }

    fn read_inner<T>(
        &self,
        path: &VfsPath,
        read: impl FnOnce(&[u8]) -> T,
        record_access: bool,
    ) -> VfsResult<T> {
        let now = record_access.then(|| self.clock.now());
        let mut tree = self.lock();
        let ino = tree.resolve(path, true)?;
        let read_only = tree.check_writable(ino, path).is_err();
        let inode = tree.inode_mut_unjournaled(ino);
        let result = match &inode.content {
            Content::File(data) => read(data),
            Content::Stored { .. } => return not_loaded(path),
            Content::Directory(_) => {
                return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string()));
            }
            Content::Symlink(_) => return unreachable_symlink(path),
        };
        // The access time alone never causes a flush; it is stored with the next change.
        if let Some(now) = now
            && !read_only
        {
            inode.accessed = now;
        }
        Ok(result)
    }

    fn write_with(&self, path: &VfsPath, op: WriteOp<'_>) -> VfsResult<()> {
        // Before anything changes: a refused write creates no file.
        self.writes.charge(op.written(), &path.to_string())?;
        let now = self.clock.now();
        let mut tree = self.lock();
        let ino = match tree.resolve_for_write(path)? {
            Ok(existing) => existing,
            Err((dir, name)) => {
                // Check every quota before creating, so a refused write leaves no file.
                tree.check_writable(dir, path)?;
                check_write_size(&tree, &self.quota, 0, op.new_len(0), path)?;
                tree.check_entry_quota(&self.quota, path)?;
                tree.insert(dir, &name, Content::File(Arc::default()), 0o644, now)
            }
        };
        write_inode(&mut tree, &self.quota, ino, op, path, now)
    }

    /// Creates one directory (mode 0755); its parent must exist.
    pub fn create_dir(&self, path: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        if path.is_root() || tree.resolve(path, false).is_ok() {
            return Err(VfsError::new(ErrorKind::AlreadyExists, path.to_string()));
        }
        let (dir, name) = tree.resolve_for_create(path)?;
        tree.check_writable(dir, path)?;
        tree.check_entry_quota(&self.quota, path)?;
        tree.insert(dir, &name, Content::Directory(BTreeMap::new()), 0o755, now);
        Ok(())
    }

    /// Creates a directory and any missing parents; an existing directory is fine.
    pub fn create_dir_all(&self, path: &VfsPath) -> VfsResult<()> {
        let mut prefix = VfsPath::root();
        for name in path.components() {
            prefix = prefix.child(name);
            match self.stat(&prefix) {
                Ok(meta) if meta.kind == FileKind::Directory => continue,
                Ok(_) => return Err(VfsError::new(ErrorKind::NotADirectory, prefix.to_string())),
                Err(err) if err.kind() == ErrorKind::NotFound => match self.create_dir(&prefix) {
                    Ok(()) => {}
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
                    Err(err) => return Err(err),
                },
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }

    /// Names in a directory with their metadata, sorted by name.
    pub fn read_dir(&self, path: &VfsPath) -> VfsResult<Vec<DirEntry>> {
        let tree = self.lock();
        let ino = tree.resolve(path, true)?;
        let Content::Directory(entries) = &tree.inode(ino).content else {
            return Err(VfsError::new(ErrorKind::NotADirectory, path.to_string()));
        };
        Ok(entries
            .iter()
            .map(|(name, &child)| DirEntry {
                name: name.clone(),
                metadata: tree.inode(child).metadata(child),
            })
            .collect())
    }

    /// Removes a file or symlink (`unlink`).
    pub fn remove_file(&self, path: &VfsPath) -> VfsResult<()> {
        self.remove_entry(path, |content| match content {
            Content::Directory(_) => Err(ErrorKind::IsADirectory),
            _ => Ok(()),
        })
    }

    /// Removes an empty directory (`rmdir`).
    pub fn remove_dir(&self, path: &VfsPath) -> VfsResult<()> {
        self.remove_entry(path, |content| match content {
            Content::Directory(entries) if entries.is_empty() => Ok(()),
            Content::Directory(_) => Err(ErrorKind::DirectoryNotEmpty),
            _ => Err(ErrorKind::NotADirectory),
        })
    }

    /// Removes a file, symlink or whole directory tree (`rm -r`).
    pub fn remove_all(&self, path: &VfsPath) -> VfsResult<()> {
        self.remove_entry(path, |_| Ok(()))
    }

    /// Unlinks the entry at `path` (not following a final symlink) if `allowed` accepts
    /// what it is.
    fn remove_entry(
        &self,
        path: &VfsPath,
        allowed: impl FnOnce(&Content) -> Result<(), ErrorKind>,
    ) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let (dir, name, ino) = tree.resolve_entry(path)?;
        tree.check_writable(dir, path)?;
        if tree.is_mount_root(ino) {
            return Err(VfsError::new(ErrorKind::Busy, path.to_string()));
        }
        allowed(&tree.inode(ino).content).map_err(|kind| VfsError::new(kind, path.to_string()))?;
        tree.detach(dir, &name, now);
        Ok(())
    }

    /// Moves `from` to `to` in one step. A file may replace a file; a directory may replace
    /// an empty directory; a directory cannot move below itself.
    pub fn rename(&self, from: &VfsPath, to: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let (from_dir, from_name, ino) = tree.resolve_entry(from)?;
        if to.is_root() {
            return Err(VfsError::new(ErrorKind::Busy, to.to_string()));
        }
        let (to_dir, to_name) = tree.resolve_for_create(to)?;
        tree.check_writable(from_dir, from)?;
        tree.check_writable(to_dir, to)?;
        if tree.is_mount_root(ino) {
            return Err(VfsError::new(ErrorKind::Busy, from.to_string()));
        }
        if !tree.same_volume(from_dir, to_dir) {
            return Err(VfsError::new(ErrorKind::CrossDevice, to.to_string()));
        }
        let moving_dir = tree.inode(ino).kind() == FileKind::Directory;
        if moving_dir && tree.is_ancestor(ino, to_dir) {
            return Err(VfsError::new(ErrorKind::InvalidInput, to.to_string()));
        }
        if let Some(existing) = tree.lookup(to_dir, &to_name) {
            if existing == ino {
                return Ok(());
            }
            if tree.is_mount_root(existing) {
                return Err(VfsError::new(ErrorKind::Busy, to.to_string()));
            }
            match (&tree.inode(existing).content, moving_dir) {
                (Content::Directory(entries), true) if !entries.is_empty() => {
                    return Err(VfsError::new(ErrorKind::DirectoryNotEmpty, to.to_string()));
                }
                (Content::Directory(_), true) => {}
                (Content::Directory(_), false) => {
                    return Err(VfsError::new(ErrorKind::IsADirectory, to.to_string()));
                }
                (_, true) => {
                    return Err(VfsError::new(ErrorKind::NotADirectory, to.to_string()));
                }
                (_, false) => {}
            }
            tree.detach(to_dir, &to_name, now);
        }
        tree.dir_entries_mut(from_dir).remove(&from_name);
        tree.dir_entries_mut(to_dir).insert(to_name, ino);
        tree.inode_mut(from_dir).touch_contents(now);
        tree.inode_mut(to_dir).touch_contents(now);
        tree.inode_mut(ino).changed = now;
        Ok(())
    }

    /// Copies a file's contents and mode to `to`, replacing a file there.
    pub fn copy(&self, from: &VfsPath, to: &VfsPath) -> VfsResult<()> {
        let data = self.read(from)?;
        let mode = self.stat(from)?.mode;
        self.write(to, &data)?;
        self.set_mode(to, mode)
    }

    /// Creates a symlink at `link` whose target is `target` (stored as given). The
    /// target's bytes count against the byte quota, as a file's contents do.
    pub fn symlink(&self, target: &str, link: &VfsPath) -> VfsResult<()> {
        // A target is a path: no longer than one.
        if target.len() > crate::path::MAX_PATH_LEN {
            return Err(VfsError::new(ErrorKind::NameTooLong, link.to_string()));
        }
        let now = self.clock.now();
        let mut tree = self.lock();
        if link.is_root() || tree.resolve(link, false).is_ok() {
            return Err(VfsError::new(ErrorKind::AlreadyExists, link.to_string()));
        }
        let (dir, name) = tree.resolve_for_create(link)?;
        tree.check_writable(dir, link)?;
        tree.check_entry_quota(&self.quota, link)?;
        let after = tree.usage.bytes.saturating_add(target.len() as u64);
        if after > self.quota.max_bytes {
            return Err(VfsError::new(ErrorKind::QuotaExceeded, link.to_string()));
        }
        tree.insert(dir, &name, Content::Symlink(target.to_owned()), 0o777, now);
        Ok(())
    }

    /// Gives the file (or symlink) at `existing` another name, `new` (as `link`): both
    /// names then refer to one inode, and it lives until the last name is removed.
    /// Directories cannot be hard-linked (EPERM). A new name uses no entry quota.
    pub fn hard_link(&self, existing: &VfsPath, new: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let (_, _, ino) = tree.resolve_entry(existing)?;
        if tree.inode(ino).kind() == FileKind::Directory {
            return Err(VfsError::new(ErrorKind::NotPermitted, existing.to_string()));
        }
        if new.is_root() || tree.resolve(new, false).is_ok() {
            return Err(VfsError::new(ErrorKind::AlreadyExists, new.to_string()));
        }
        let (dir, name) = tree.resolve_for_create(new)?;
        tree.check_writable(dir, new)?;
        if !tree.same_volume(dir, ino) {
            return Err(VfsError::new(ErrorKind::CrossDevice, new.to_string()));
        }
        tree.dir_entries_mut(dir).insert(name, ino);
        tree.inode_mut(dir).touch_contents(now);
        let inode = tree.inode_mut(ino);
        inode.links += 1;
        inode.changed = now;
        Ok(())
    }

    /// The target a symlink stores.
    pub fn read_link(&self, path: &VfsPath) -> VfsResult<String> {
        let tree = self.lock();
        let ino = tree.resolve(path, false)?;
        match &tree.inode(ino).content {
            Content::Symlink(target) => Ok(target.clone()),
            _ => Err(VfsError::new(ErrorKind::InvalidInput, path.to_string())),
        }
    }

    /// Sets the permission bits (only the low 12 bits are kept).
    pub fn set_mode(&self, path: &VfsPath, mode: u32) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let ino = tree.resolve(path, true)?;
        tree.check_writable(ino, path)?;
        let inode = tree.inode_mut(ino);
        inode.mode = mode & 0o7777;
        inode.changed = now;
        Ok(())
    }

    /// Sets the modification time.
    pub fn set_modified(&self, path: &VfsPath, time: Timestamp) -> VfsResult<()> {
        self.set_times(path, None, Some(time))
    }

    /// Sets the access and/or modification time (as `utimensat`); the change time
    /// becomes now.
    pub fn set_times(
        &self,
        path: &VfsPath,
        accessed: Option<Timestamp>,
        modified: Option<Timestamp>,
    ) -> VfsResult<()> {
        self.set_times_at(path, true, accessed, modified)
    }

    /// Sets the times of `path` itself, a symlink's own rather than its target's (as
    /// `utimensat` with `AT_SYMLINK_NOFOLLOW`).
    pub fn set_times_nofollow(
        &self,
        path: &VfsPath,
        accessed: Option<Timestamp>,
        modified: Option<Timestamp>,
    ) -> VfsResult<()> {
        self.set_times_at(path, false, accessed, modified)
    }

    fn set_times_at(
        &self,
        path: &VfsPath,
        follow: bool,
        accessed: Option<Timestamp>,
        modified: Option<Timestamp>,
    ) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let ino = tree.resolve(path, follow)?;
        set_inode_times(&mut tree, ino, path, accessed, modified, now)
    }

    /// How many bytes, files and directories the tree holds.
    pub fn usage(&self) -> Usage {
        self.lock().usage
    }

    /// A count that grows with every change to the files (names, metadata, contents):
    /// two equal readings mean nothing changed in between. Reading a file leaves it.
    pub fn revision(&self) -> u64 {
        self.lock().revision
    }
}

/// Sets an inode's access and/or modification time; its change time becomes `now`.
fn set_inode_times(
    tree: &mut Tree,
    ino: u64,
    path: &VfsPath,
    accessed: Option<Timestamp>,
    modified: Option<Timestamp>,
    now: Timestamp,
) -> VfsResult<()> {
    tree.check_writable(ino, path)?;
    let inode = tree.inode_mut(ino);
    if let Some(time) = accessed {
        inode.accessed = time;
    }
    if let Some(time) = modified {
        inode.modified = time;
    }
    inode.changed = now;
    Ok(())
}

/// EFBIG or EDQUOT if a file growing from `before` to `after` bytes breaks a limit.
fn check_write_size(
    tree: &Tree,
    quota: &Quota,
    before: u64,
    after: u64,
    path: &VfsPath,
) -> VfsResult<()> {
    if after > quota.max_file_size || after > MAX_FILE_SIZE {
        return Err(VfsError::new(ErrorKind::FileTooLarge, path.to_string()));
    }
    if after > before && tree.usage.bytes - before + after > quota.max_bytes {
        return Err(VfsError::new(ErrorKind::QuotaExceeded, path.to_string()));
    }
    Ok(())
}

/// Applies `op` to the file `ino` once every check passes (so a refused write changes
/// nothing). `path` names the file in errors.
fn write_inode(
    tree: &mut Tree,
    quota: &Quota,
    ino: u64,
    op: WriteOp<'_>,
    path: &VfsPath,
    now: Timestamp,
) -> VfsResult<()> {
    tree.check_writable(ino, path)?;
    let before = match &tree.inode(ino).content {
        Content::File(data) => data.len() as u64,
        // Replacing needs none of the old contents.
        Content::Stored { size } if op.replaces() => *size,
        Content::Stored { .. } => return not_loaded(path),
        _ => return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string())),
    };
    let after = op.new_len(before);
    check_write_size(tree, quota, before, after, path)?;
    let inode = tree.inode_mut(ino);
    if matches!(inode.content, Content::Stored { .. }) {
        inode.content = Content::File(Arc::default());
    }
    if let Content::File(contents) = &mut inode.content {
        op.apply(contents);
    }
    inode.touch_contents(now);
    tree.journal_content(ino);
    tree.usage.bytes = tree.usage.bytes - before + after;
    Ok(())
}

/// A file whose contents are still in storage: the async layer (`SandboxFs`) loads them
/// before it calls in, so reaching this is a bug reported as EIO, not a panic.
fn not_loaded<T>(path: &VfsPath) -> VfsResult<T> {
    Err(VfsError::new(ErrorKind::Io, path.to_string())
        .with_detail("contents not loaded from storage"))
}

fn unreachable_symlink<T>(path: &VfsPath) -> VfsResult<T> {
    // `resolve(.., true)` never ends on a symlink; answer ELOOP rather than panic.
    Err(VfsError::new(ErrorKind::TooManyLinks, path.to_string()))
}

#[cfg(test)]
mod tests;
