//! The in-memory filesystem: an inode table and directories that map names to inodes.
//!
//! Every operation takes the one lock, checks everything it needs, and only then changes
//! the tree, so a failed operation changes nothing.

use crate::clock::{Clock, Timestamp};
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::path::VfsPath;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

/// Symlinks followed while resolving one path before giving up with ELOOP (Linux's value).
const MAX_SYMLINK_HOPS: usize = 40;
const ROOT_INO: u64 = 1;
/// The largest file memory can hold, whatever the quota says: a wasm32 module has 4 GiB
/// of memory at most, and a file is copied when read. Larger is EFBIG, never an abort.
pub const MAX_FILE_SIZE: u64 = 1 << 30;

/// What an inode is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
}

/// What `stat` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// File, directory or symlink.
    pub kind: FileKind,
    /// Bytes in a file, bytes of the target in a symlink, 0 for a directory.
    pub size: u64,
    /// Permission bits (for example `0o644`).
    pub mode: u32,
    /// Inode number: stable for the life of the entry.
    pub ino: u64,
    /// Last change of the contents (mtime).
    pub modified: Timestamp,
    /// Last read of the contents (atime).
    pub accessed: Timestamp,
    /// Last change of the contents or of the metadata (ctime).
    pub changed: Timestamp,
    /// Creation time.
    pub created: Timestamp,
}

/// One name in a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The name within its directory.
    pub name: String,
    /// The entry's metadata (not following a symlink).
    pub metadata: Metadata,
}

/// How much the tree holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Bytes in regular files.
    pub bytes: u64,
    /// Regular files and symlinks.
    pub files: u64,
    /// Directories, the root included.
    pub dirs: u64,
}

/// Limits on what a filesystem may hold. A write that would pass one fails with
/// [`ErrorKind::QuotaExceeded`] (or [`ErrorKind::FileTooLarge`]) and changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Bytes in all regular files together.
    pub max_bytes: u64,
    /// Entries (files, directories and symlinks), the root included.
    pub max_entries: u64,
    /// Bytes in one file.
    pub max_file_size: u64,
}

impl Quota {
    /// No limits at all.
    pub const UNLIMITED: Quota = Quota {
        max_bytes: u64::MAX,
        max_entries: u64::MAX,
        max_file_size: u64::MAX,
    };
}

impl Default for Quota {
    fn default() -> Self {
        Self::UNLIMITED
    }
}

/// A change to a file's contents, known before it is made so quotas can be checked first.
#[derive(Debug, Clone, Copy)]
enum WriteOp<'a> {
    Replace(&'a [u8]),
    Append(&'a [u8]),
    At(u64, &'a [u8]),
    Truncate(u64),
}

impl WriteOp<'_> {
    fn new_len(self, old: u64) -> u64 {
        match self {
            WriteOp::Replace(data) => data.len() as u64,
            WriteOp::Append(data) => old.saturating_add(data.len() as u64),
            WriteOp::At(offset, data) => old.max(offset.saturating_add(data.len() as u64)),
            WriteOp::Truncate(len) => len,
        }
    }

    fn apply(self, contents: &mut Vec<u8>) {
        match self {
            WriteOp::Replace(data) => {
                contents.clear();
                contents.extend_from_slice(data);
            }
            WriteOp::Append(data) => contents.extend_from_slice(data),
            WriteOp::At(offset, data) => {
                // `new_len` was checked against MAX_FILE_SIZE, so these fit in usize.
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                let end = start.saturating_add(data.len());
                if contents.len() < end {
                    contents.resize(end, 0);
                }
                contents[start..end].copy_from_slice(data);
            }
            WriteOp::Truncate(len) => {
                contents.resize(usize::try_from(len).unwrap_or(usize::MAX), 0)
            }
        }
    }
}

#[derive(Debug)]
enum Content {
    File(Vec<u8>),
    Directory(BTreeMap<String, u64>),
    Symlink(String),
}

#[derive(Debug)]
struct Inode {
    content: Content,
    mode: u32,
    modified: Timestamp,
    accessed: Timestamp,
    changed: Timestamp,
    created: Timestamp,
}

impl Inode {
    /// Records a change of the contents (or, for a directory, of its entries).
    fn touch_contents(&mut self, now: Timestamp) {
        self.modified = now;
        self.changed = now;
    }

    fn kind(&self) -> FileKind {
        match self.content {
            Content::File(_) => FileKind::File,
            Content::Directory(_) => FileKind::Directory,
            Content::Symlink(_) => FileKind::Symlink,
        }
    }

    fn metadata(&self, ino: u64) -> Metadata {
        let size = match &self.content {
            Content::File(data) => data.len() as u64,
            Content::Directory(_) => 0,
            Content::Symlink(target) => target.len() as u64,
        };
        Metadata {
            kind: self.kind(),
            size,
            mode: self.mode,
            ino,
            modified: self.modified,
            accessed: self.accessed,
            changed: self.changed,
            created: self.created,
        }
    }
}

#[derive(Debug)]
struct Tree {
    inodes: HashMap<u64, Inode>,
    next_ino: u64,
    usage: Usage,
}

/// An in-memory filesystem. Cheap to share: clone the `Arc` it lives in.
pub struct MemFs {
    tree: Mutex<Tree>,
    clock: Arc<dyn Clock>,
    quota: Quota,
}

impl std::fmt::Debug for MemFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemFs")
            .field("usage", &self.usage())
            .finish_non_exhaustive()
    }
}

impl MemFs {
    /// An empty filesystem holding only `/`, with no quota.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self::with_quota(clock, Quota::UNLIMITED)
    }

    /// An empty filesystem holding only `/`, whose contents must stay within `quota`.
    pub fn with_quota(clock: Arc<dyn Clock>, quota: Quota) -> Self {
        let now = clock.now();
        let root = Inode {
            content: Content::Directory(BTreeMap::new()),
            mode: 0o755,
            modified: now,
            accessed: now,
            changed: now,
            created: now,
        };
        Self {
            tree: Mutex::new(Tree {
                inodes: HashMap::from([(ROOT_INO, root)]),
                next_ino: ROOT_INO + 1,
                usage: Usage {
                    dirs: 1,
                    ..Usage::default()
                },
            }),
            clock,
            quota,
        }
    }

    /// The limits this filesystem enforces.
    pub fn quota(&self) -> Quota {
        self.quota
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

    /// Runs `read` on a file's contents and records the access (atime).
    fn read_with<T>(&self, path: &VfsPath, read: impl FnOnce(&[u8]) -> T) -> VfsResult<T> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let ino = tree.resolve(path, true)?;
        let inode = tree.inode_mut(ino);
        let result = match &inode.content {
            Content::File(data) => read(data),
            Content::Directory(_) => {
                return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string()));
            }
            Content::Symlink(_) => return unreachable_symlink(path),
        };
        inode.accessed = now;
        Ok(result)
    }

    fn write_with(&self, path: &VfsPath, op: WriteOp<'_>) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let target = tree.resolve_for_write(path)?;
        let before = match target {
            Ok(ino) => match &tree.inode(ino).content {
                Content::File(data) => data.len() as u64,
                _ => return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string())),
            },
            Err(_) => 0,
        };
        // Check every quota before changing anything, so a refused write changes nothing.
        let after = op.new_len(before);
        let quota = &self.quota;
        if after > quota.max_file_size || after > MAX_FILE_SIZE {
            return Err(VfsError::new(ErrorKind::FileTooLarge, path.to_string()));
        }
        if after > before && tree.usage.bytes - before + after > quota.max_bytes {
            return Err(VfsError::new(ErrorKind::QuotaExceeded, path.to_string()));
        }
        let ino = match target {
            Ok(existing) => existing,
            Err((dir, name)) => {
                tree.check_entry_quota(quota, path)?;
                tree.insert(dir, &name, Content::File(Vec::new()), 0o644, now)
            }
        };
        let inode = tree.inode_mut(ino);
        let Content::File(contents) = &mut inode.content else {
            return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string()));
        };
        op.apply(contents);
        inode.touch_contents(now);
        tree.usage.bytes = tree.usage.bytes - before + after;
        Ok(())
    }

    /// Creates one directory (mode 0755); its parent must exist.
    pub fn create_dir(&self, path: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        if path.is_root() || tree.resolve(path, false).is_ok() {
            return Err(VfsError::new(ErrorKind::AlreadyExists, path.to_string()));
        }
        let (dir, name) = tree.resolve_for_create(path)?;
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
        let now = self.clock.now();
        let mut tree = self.lock();
        let (dir, name, ino) = tree.resolve_entry(path)?;
        if tree.inode(ino).kind() == FileKind::Directory {
            return Err(VfsError::new(ErrorKind::IsADirectory, path.to_string()));
        }
        tree.detach(dir, &name, now);
        Ok(())
    }

    /// Removes an empty directory (`rmdir`).
    pub fn remove_dir(&self, path: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let (dir, name, ino) = tree.resolve_entry(path)?;
        match &tree.inode(ino).content {
            Content::Directory(entries) if entries.is_empty() => {}
            Content::Directory(_) => {
                return Err(VfsError::new(
                    ErrorKind::DirectoryNotEmpty,
                    path.to_string(),
                ));
            }
            _ => return Err(VfsError::new(ErrorKind::NotADirectory, path.to_string())),
        }
        tree.detach(dir, &name, now);
        Ok(())
    }

    /// Removes a file, symlink or whole directory tree (`rm -r`).
    pub fn remove_all(&self, path: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        let (dir, name, _) = tree.resolve_entry(path)?;
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
        let moving_dir = tree.inode(ino).kind() == FileKind::Directory;
        if moving_dir && tree.is_ancestor(ino, to_dir) {
            return Err(VfsError::new(ErrorKind::InvalidInput, to.to_string()));
        }
        if let Some(existing) = tree.lookup(to_dir, &to_name) {
            if existing == ino {
                return Ok(());
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

    /// Creates a symlink at `link` whose target is `target` (stored as given).
    pub fn symlink(&self, target: &str, link: &VfsPath) -> VfsResult<()> {
        let now = self.clock.now();
        let mut tree = self.lock();
        if link.is_root() || tree.resolve(link, false).is_ok() {
            return Err(VfsError::new(ErrorKind::AlreadyExists, link.to_string()));
        }
        let (dir, name) = tree.resolve_for_create(link)?;
        tree.check_entry_quota(&self.quota, link)?;
        tree.insert(dir, &name, Content::Symlink(target.to_owned()), 0o777, now);
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
        let now = self.clock.now();
        let mut tree = self.lock();
        let ino = tree.resolve(path, true)?;
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

    /// How many bytes, files and directories the tree holds.
    pub fn usage(&self) -> Usage {
        self.lock().usage
    }
}

fn unreachable_symlink<T>(path: &VfsPath) -> VfsResult<T> {
    // `resolve(.., true)` never ends on a symlink; answer ELOOP rather than panic.
    Err(VfsError::new(ErrorKind::TooManyLinks, path.to_string()))
}

impl Tree {
    fn check_entry_quota(&self, quota: &Quota, path: &VfsPath) -> VfsResult<()> {
        if self.usage.files + self.usage.dirs >= quota.max_entries {
            return Err(VfsError::new(ErrorKind::QuotaExceeded, path.to_string()));
        }
        Ok(())
    }

    fn inode(&self, ino: u64) -> &Inode {
        // Directory entries only ever name live inodes (detach removes both together).
        &self.inodes[&ino]
    }

    fn inode_mut(&mut self, ino: u64) -> &mut Inode {
        self.inodes
            .get_mut(&ino)
            .expect("directory entries name live inodes")
    }

    fn lookup(&self, dir: u64, name: &str) -> Option<u64> {
        match &self.inode(dir).content {
            Content::Directory(entries) => entries.get(name).copied(),
            _ => None,
        }
    }

    fn dir_entries_mut(&mut self, dir: u64) -> &mut BTreeMap<String, u64> {
        match &mut self.inode_mut(dir).content {
            Content::Directory(entries) => entries,
            _ => panic!("resolve_entry and resolve_for_create only return directories"),
        }
    }

    /// Walks `path` from the root, following symlinks in every component and, if
    /// `follow_last`, in the last one.
    fn resolve(&self, path: &VfsPath, follow_last: bool) -> VfsResult<u64> {
        let mut pending: Vec<String> = path.components().iter().rev().cloned().collect();
        let mut current = ROOT_INO;
        let mut current_path = VfsPath::root();
        let mut hops = 0;
        while let Some(name) = pending.pop() {
            let Content::Directory(entries) = &self.inode(current).content else {
                return Err(VfsError::new(
                    ErrorKind::NotADirectory,
                    current_path.to_string(),
                ));
            };
            let Some(&child) = entries.get(&name) else {
                return Err(VfsError::new(ErrorKind::NotFound, path.to_string()));
            };
            if let Content::Symlink(target) = &self.inode(child).content
                && (follow_last || !pending.is_empty())
            {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(VfsError::new(ErrorKind::TooManyLinks, path.to_string()));
                }
                // Restart from the root with the target spliced in; `..` in the target
                // is clamped at `/` like any other path.
                let target = current_path.join(target)?;
                pending.extend(target.components().iter().rev().cloned());
                current = ROOT_INO;
                current_path = VfsPath::root();
                continue;
            }
            current = child;
            current_path = current_path.child(&name);
        }
        Ok(current)
    }

    /// The directory that will hold a new entry at `path`, and the entry's name.
    fn resolve_for_create(&self, path: &VfsPath) -> VfsResult<(u64, String)> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(VfsError::new(ErrorKind::AlreadyExists, "/"));
        };
        let dir = self.resolve(&parent, true)?;
        if self.inode(dir).kind() != FileKind::Directory {
            return Err(VfsError::new(ErrorKind::NotADirectory, parent.to_string()));
        }
        Ok((dir, name.to_owned()))
    }

    /// What a write to `path` lands on: the existing inode, or the directory and name of
    /// a file to create. A symlink (even a dangling one) leads to its target, as
    /// `open(O_CREAT)` does.
    fn resolve_for_write(&self, path: &VfsPath) -> VfsResult<Result<u64, (u64, String)>> {
        let mut current = path.clone();
        for _ in 0..=MAX_SYMLINK_HOPS {
            let (dir, name) = self.resolve_for_create(&current)?;
            let Some(ino) = self.lookup(dir, &name) else {
                return Ok(Err((dir, name)));
            };
            let Content::Symlink(target) = &self.inode(ino).content else {
                return Ok(Ok(ino));
            };
            current = current.parent().unwrap_or_default().join(target)?;
        }
        Err(VfsError::new(ErrorKind::TooManyLinks, path.to_string()))
    }

    /// An existing entry: its directory, its name and its inode (a symlink is not followed).
    fn resolve_entry(&self, path: &VfsPath) -> VfsResult<(u64, String, u64)> {
        if path.is_root() {
            return Err(VfsError::new(ErrorKind::Busy, "/"));
        }
        let (dir, name) = self.resolve_for_create(path)?;
        let ino = self
            .lookup(dir, &name)
            .ok_or_else(|| VfsError::new(ErrorKind::NotFound, path.to_string()))?;
        Ok((dir, name, ino))
    }

    fn insert(&mut self, dir: u64, name: &str, content: Content, mode: u32, now: Timestamp) -> u64 {
        let ino = self.next_ino;
        self.next_ino += 1;
        match &content {
            Content::Directory(_) => self.usage.dirs += 1,
            Content::File(_) | Content::Symlink(_) => self.usage.files += 1,
        }
        self.inodes.insert(
            ino,
            Inode {
                content,
                mode,
                modified: now,
                accessed: now,
                changed: now,
                created: now,
            },
        );
        self.dir_entries_mut(dir).insert(name.to_owned(), ino);
        self.inode_mut(dir).touch_contents(now);
        ino
    }

    /// Unlinks `name` from `dir` and frees its inode and everything below it.
    fn detach(&mut self, dir: u64, name: &str, now: Timestamp) {
        let Some(ino) = self.dir_entries_mut(dir).remove(name) else {
            return;
        };
        self.inode_mut(dir).touch_contents(now);
        let mut doomed = vec![ino];
        while let Some(ino) = doomed.pop() {
            let Some(inode) = self.inodes.remove(&ino) else {
                continue;
            };
            match inode.content {
                Content::Directory(entries) => {
                    self.usage.dirs -= 1;
                    doomed.extend(entries.into_values());
                }
                Content::File(data) => {
                    self.usage.files -= 1;
                    self.usage.bytes -= data.len() as u64;
                }
                Content::Symlink(_) => self.usage.files -= 1,
            }
        }
    }

    /// Whether `ancestor` is `ino` or contains it.
    fn is_ancestor(&self, ancestor: u64, ino: u64) -> bool {
        if ancestor == ino {
            return true;
        }
        let mut stack = vec![ancestor];
        while let Some(dir) = stack.pop() {
            if let Content::Directory(entries) = &self.inode(dir).content {
                for &child in entries.values() {
                    if child == ino {
                        return true;
                    }
                    stack.push(child);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    fn fs() -> (MemFs, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(Timestamp(1_000_000_000)));
        (MemFs::new(clock.clone()), clock)
    }

    fn p(path: &str) -> VfsPath {
        VfsPath::parse(path).unwrap()
    }

    fn kind<T: std::fmt::Debug>(result: VfsResult<T>) -> ErrorKind {
        result.unwrap_err().kind()
    }

    #[test]
    fn write_then_read_round_trips_bytes() {
        let (fs, _) = fs();
        fs.write(&p("/a.bin"), &[0, 159, 146, 150, 255]).unwrap();
        assert_eq!(fs.read(&p("/a.bin")).unwrap(), vec![0, 159, 146, 150, 255]);
        fs.append(&p("/a.bin"), b"!").unwrap();
        assert_eq!(fs.stat(&p("/a.bin")).unwrap().size, 6);
    }

    #[test]
    fn writing_needs_an_existing_parent_directory() {
        let (fs, _) = fs();
        assert_eq!(
            kind(fs.write(&p("/no/such/file"), b"x")),
            ErrorKind::NotFound
        );
        fs.write(&p("/file"), b"x").unwrap();
        assert_eq!(
            kind(fs.write(&p("/file/child"), b"x")),
            ErrorKind::NotADirectory
        );
        fs.create_dir(&p("/dir")).unwrap();
        assert_eq!(kind(fs.write(&p("/dir"), b"x")), ErrorKind::IsADirectory);
        assert_eq!(kind(fs.read(&p("/dir"))), ErrorKind::IsADirectory);
    }

    #[test]
    fn directories_list_in_name_order_with_metadata() {
        let (fs, _) = fs();
        fs.create_dir_all(&p("/w/sub")).unwrap();
        fs.write(&p("/w/b.txt"), b"bb").unwrap();
        fs.write(&p("/w/a.txt"), b"a").unwrap();
        let listing = fs.read_dir(&p("/w")).unwrap();
        let names: Vec<_> = listing.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "b.txt", "sub"]);
        assert_eq!(listing[1].metadata.size, 2);
        assert_eq!(listing[2].metadata.kind, FileKind::Directory);
        assert_eq!(kind(fs.read_dir(&p("/w/a.txt"))), ErrorKind::NotADirectory);
    }

    #[test]
    fn create_dir_reports_existing_and_missing_parents() {
        let (fs, _) = fs();
        fs.create_dir(&p("/d")).unwrap();
        assert_eq!(kind(fs.create_dir(&p("/d"))), ErrorKind::AlreadyExists);
        assert_eq!(kind(fs.create_dir(&p("/x/y"))), ErrorKind::NotFound);
        fs.create_dir_all(&p("/d/e/f")).unwrap();
        fs.create_dir_all(&p("/d/e/f")).unwrap();
        fs.write(&p("/d/file"), b"").unwrap();
        assert_eq!(
            kind(fs.create_dir_all(&p("/d/file/g"))),
            ErrorKind::NotADirectory
        );
    }

    #[test]
    fn removal_distinguishes_files_empty_and_full_directories() {
        let (fs, _) = fs();
        fs.create_dir_all(&p("/d/e")).unwrap();
        fs.write(&p("/d/e/f"), b"123").unwrap();
        assert_eq!(kind(fs.remove_dir(&p("/d"))), ErrorKind::DirectoryNotEmpty);
        assert_eq!(kind(fs.remove_file(&p("/d"))), ErrorKind::IsADirectory);
        assert_eq!(kind(fs.remove_dir(&p("/d/e/f"))), ErrorKind::NotADirectory);
        assert_eq!(kind(fs.remove_all(&p("/"))), ErrorKind::Busy);
        fs.remove_all(&p("/d")).unwrap();
        assert!(!fs.exists(&p("/d/e/f")));
        assert_eq!(
            fs.usage(),
            Usage {
                bytes: 0,
                files: 0,
                dirs: 1
            }
        );
    }

    #[test]
    fn rename_replaces_files_atomically_and_refuses_cycles() {
        let (fs, _) = fs();
        fs.write(&p("/old"), b"new contents").unwrap();
        fs.write(&p("/target"), b"stale").unwrap();
        let ino = fs.stat(&p("/old")).unwrap().ino;
        fs.rename(&p("/old"), &p("/target")).unwrap();
        assert!(!fs.exists(&p("/old")));
        assert_eq!(fs.read(&p("/target")).unwrap(), b"new contents");
        assert_eq!(
            fs.stat(&p("/target")).unwrap().ino,
            ino,
            "inode numbers are stable"
        );
        assert_eq!(fs.usage().bytes, 12);

        fs.create_dir_all(&p("/a/b")).unwrap();
        assert_eq!(
            kind(fs.rename(&p("/a"), &p("/a/b/c"))),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(fs.rename(&p("/target"), &p("/a"))),
            ErrorKind::IsADirectory
        );
        assert_eq!(
            kind(fs.rename(&p("/a/b"), &p("/target"))),
            ErrorKind::NotADirectory
        );
        fs.write(&p("/a/b/f"), b"").unwrap();
        fs.create_dir(&p("/empty")).unwrap();
        fs.rename(&p("/a/b"), &p("/empty")).unwrap();
        assert!(fs.exists(&p("/empty/f")));
        assert_eq!(
            kind(fs.rename(&p("/missing"), &p("/x"))),
            ErrorKind::NotFound
        );
        // A failed rename changed nothing.
        assert_eq!(fs.read(&p("/target")).unwrap(), b"new contents");
    }

    #[test]
    fn symlinks_resolve_inside_the_sandbox_and_loops_are_eloop() {
        let (fs, _) = fs();
        fs.create_dir_all(&p("/data/real")).unwrap();
        fs.write(&p("/data/real/f"), b"hi").unwrap();
        fs.symlink("real", &p("/data/link")).unwrap();
        assert_eq!(fs.read(&p("/data/link/f")).unwrap(), b"hi");
        assert_eq!(fs.lstat(&p("/data/link")).unwrap().kind, FileKind::Symlink);
        assert_eq!(fs.stat(&p("/data/link")).unwrap().kind, FileKind::Directory);
        assert_eq!(fs.read_link(&p("/data/link")).unwrap(), "real");

        // `..` in a target cannot climb above `/`.
        fs.symlink("../../../../data/real/f", &p("/data/escape"))
            .unwrap();
        assert_eq!(fs.read(&p("/data/escape")).unwrap(), b"hi");

        fs.symlink("/loop2", &p("/loop1")).unwrap();
        fs.symlink("/loop1", &p("/loop2")).unwrap();
        assert_eq!(kind(fs.read(&p("/loop1"))), ErrorKind::TooManyLinks);
        // Removing a symlink removes the link, not its target.
        fs.remove_file(&p("/data/link")).unwrap();
        assert!(fs.exists(&p("/data/real/f")));
    }

    #[test]
    fn writing_through_a_dangling_symlink_creates_its_target() {
        let (fs, _) = fs();
        fs.symlink("/made", &p("/link")).unwrap();
        fs.write(&p("/link"), b"x").unwrap();
        assert_eq!(fs.read(&p("/made")).unwrap(), b"x");
    }

    #[test]
    fn times_come_from_the_injected_clock() {
        let (fs, clock) = fs();
        fs.write(&p("/f"), b"1").unwrap();
        let created = fs.stat(&p("/f")).unwrap().created;
        clock.advance(5_000_000_000);
        fs.append(&p("/f"), b"2").unwrap();
        let meta = fs.stat(&p("/f")).unwrap();
        assert_eq!(meta.created, created);
        assert_eq!(meta.modified.as_secs(), created.as_secs() + 5);
        assert_eq!(meta.changed, meta.modified);
        assert_eq!(meta.accessed, created, "writing is not reading");

        clock.advance(1_000_000_000);
        fs.read(&p("/f")).unwrap();
        let read = fs.stat(&p("/f")).unwrap();
        assert_eq!(read.accessed.as_secs(), created.as_secs() + 6);
        assert_eq!(read.modified, meta.modified, "reading changes no mtime");

        clock.advance(1_000_000_000);
        fs.set_mode(&p("/f"), 0o600).unwrap();
        let chmodded = fs.stat(&p("/f")).unwrap();
        assert_eq!(chmodded.changed.as_secs(), created.as_secs() + 7);
        assert_eq!(
            chmodded.modified, meta.modified,
            "chmod changes ctime, not mtime"
        );

        fs.set_times(&p("/f"), Some(Timestamp(7)), Some(Timestamp(9)))
            .unwrap();
        let set = fs.stat(&p("/f")).unwrap();
        assert_eq!((set.accessed, set.modified), (Timestamp(7), Timestamp(9)));

        // Removing an entry changes its directory.
        clock.advance(1_000_000_000);
        let dir_before = fs.stat(&p("/")).unwrap().modified;
        fs.remove_file(&p("/f")).unwrap();
        assert!(fs.stat(&p("/")).unwrap().modified > dir_before);
    }

    #[test]
    fn copy_keeps_mode_and_set_mode_masks() {
        let (fs, _) = fs();
        fs.write(&p("/run.sh"), b"echo").unwrap();
        fs.set_mode(&p("/run.sh"), 0o100755).unwrap();
        fs.copy(&p("/run.sh"), &p("/copy.sh")).unwrap();
        assert_eq!(fs.stat(&p("/copy.sh")).unwrap().mode, 0o755);
        assert_eq!(fs.read(&p("/copy.sh")).unwrap(), b"echo");
    }

    fn quota_fs(quota: Quota) -> MemFs {
        MemFs::with_quota(Arc::new(ManualClock::default()), quota)
    }

    #[test]
    fn offset_writes_fill_gaps_with_zeros_and_reads_stop_at_the_end() {
        let (fs, _) = fs();
        fs.write_at(&p("/f"), 3, b"abc").unwrap();
        assert_eq!(fs.read(&p("/f")).unwrap(), b"\0\0\0abc");
        fs.write_at(&p("/f"), 1, b"XY").unwrap();
        assert_eq!(fs.read(&p("/f")).unwrap(), b"\0XYabc");
        assert_eq!(fs.read_at(&p("/f"), 4, 100).unwrap(), b"bc");
        assert_eq!(fs.read_at(&p("/f"), 99, 4).unwrap(), b"");
        fs.truncate(&p("/f"), 2).unwrap();
        assert_eq!(fs.read(&p("/f")).unwrap(), b"\0X");
        fs.truncate(&p("/f"), 4).unwrap();
        assert_eq!(fs.read(&p("/f")).unwrap(), b"\0X\0\0");
        assert_eq!(fs.usage().bytes, 4);
        assert_eq!(kind(fs.truncate(&p("/missing"), 1)), ErrorKind::NotFound);
        assert_eq!(kind(fs.truncate(&p("/"), 1)), ErrorKind::IsADirectory);
    }

    #[test]
    fn absurd_sizes_are_efbig_not_an_abort() {
        let (fs, _) = fs();
        assert_eq!(
            kind(fs.write_at(&p("/f"), u64::MAX - 1, b"xy")),
            ErrorKind::FileTooLarge
        );
        assert!(!fs.exists(&p("/f")), "the refused write created nothing");
        fs.write(&p("/g"), b"").unwrap();
        assert_eq!(
            kind(fs.truncate(&p("/g"), MAX_FILE_SIZE + 1)),
            ErrorKind::FileTooLarge
        );
    }

    #[test]
    fn byte_quota_refuses_the_write_and_changes_nothing() {
        let fs = quota_fs(Quota {
            max_bytes: 10,
            ..Quota::UNLIMITED
        });
        fs.write(&p("/a"), b"123456").unwrap();
        assert_eq!(kind(fs.write(&p("/b"), b"12345")), ErrorKind::QuotaExceeded);
        assert!(
            !fs.exists(&p("/b")),
            "a refused new file is not left behind empty"
        );
        assert_eq!(
            kind(fs.append(&p("/a"), b"12345")),
            ErrorKind::QuotaExceeded
        );
        assert_eq!(fs.read(&p("/a")).unwrap(), b"123456");
        // Replacing with something smaller is always allowed, and frees room.
        fs.write(&p("/a"), b"1").unwrap();
        fs.write(&p("/b"), b"123456789").unwrap();
        assert_eq!(fs.usage().bytes, 10);
    }

    #[test]
    fn file_size_and_entry_quotas() {
        let fs = quota_fs(Quota {
            max_file_size: 4,
            max_entries: 3,
            ..Quota::UNLIMITED
        });
        assert_eq!(
            kind(fs.write(&p("/big"), b"12345")),
            ErrorKind::FileTooLarge
        );
        fs.write(&p("/a"), b"1234").unwrap();
        fs.create_dir(&p("/d")).unwrap(); // root + a + d = 3 entries
        assert_eq!(kind(fs.write(&p("/b"), b"")), ErrorKind::QuotaExceeded);
        assert_eq!(kind(fs.create_dir(&p("/e"))), ErrorKind::QuotaExceeded);
        assert_eq!(kind(fs.symlink("a", &p("/l"))), ErrorKind::QuotaExceeded);
        // Overwriting an existing file needs no new entry.
        fs.write(&p("/a"), b"4321").unwrap();
        fs.remove_file(&p("/a")).unwrap();
        fs.write(&p("/b"), b"").unwrap();
    }
}
