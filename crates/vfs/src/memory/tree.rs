//! The inode table behind `MemFs`: resolution of paths (with symlinks), insertion and
//! removal. Callers hold the filesystem's lock.

use crate::clock::Timestamp;
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::metadata::{FileKind, Metadata, Usage};
use crate::path::VfsPath;
use crate::quota::Quota;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Symlinks followed while resolving one path before giving up with ELOOP (Linux's value).
const MAX_SYMLINK_HOPS: usize = 40;
pub(super) const ROOT_INO: u64 = 1;

#[derive(Debug)]
pub(super) enum Content {
    /// Shared with a flush in progress (so it writes the contents without copying
    /// them); a write while shared copies first.
    File(Arc<Vec<u8>>),
    /// A file whose contents are still only in storage (loaded on first use).
    Stored {
        size: u64,
    },
    Directory(BTreeMap<String, u64>),
    Symlink(String),
}

/// A mounted filesystem within the tree: its root directory and how it behaves.
#[derive(Debug, Clone, Copy)]
pub(super) struct Volume {
    pub(super) root: u64,
    /// Changes are journaled for a flush to storage.
    pub(super) persistent: bool,
    pub(super) read_only: bool,
}

/// Which persistent inodes changed since the last flush.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Inodes whose metadata (or directory entries, or symlink target) changed.
    pub(crate) meta: BTreeSet<u64>,
    /// Files whose contents changed.
    pub(crate) content: BTreeSet<u64>,
    /// Inodes freed, with the stored contents (blob) they held.
    pub(crate) freed: BTreeMap<u64, u64>,
}

impl Journal {
    pub(crate) fn is_empty(&self) -> bool {
        self.meta.is_empty() && self.content.is_empty() && self.freed.is_empty()
    }

    /// Puts back changes a failed flush took, keeping anything newer.
    pub(crate) fn merge(&mut self, older: Journal) {
        for ino in older.meta {
            if !self.freed.contains_key(&ino) {
                self.meta.insert(ino);
            }
        }
        for ino in older.content {
            if !self.freed.contains_key(&ino) {
                self.content.insert(ino);
            }
        }
        for (ino, blob) in older.freed {
            self.freed.entry(ino).or_insert(blob);
        }
    }
}

#[derive(Debug)]
pub(super) struct Inode {
    pub(super) content: Content,
    /// Index into the tree's volumes.
    pub(super) volume: usize,
    /// Where storage holds this file's contents as of the last flush (0: nowhere), and
    /// at which offset of that blob (non-zero only in a pack of small files).
    pub(super) blob: u64,
    pub(super) offset: u64,
    /// Open handles; an unlinked inode lives on until the last is closed.
    pub(super) open: u32,
    pub(super) mode: u32,
    /// Names that refer to this inode (hard links); it is freed when the last goes.
    pub(super) links: u32,
    pub(super) modified: Timestamp,
    pub(super) accessed: Timestamp,
    pub(super) changed: Timestamp,
    pub(super) created: Timestamp,
}

impl Inode {
    /// Records a change of the contents (or, for a directory, of its entries).
    pub(super) fn touch_contents(&mut self, now: Timestamp) {
        self.modified = now;
        self.changed = now;
    }

    pub(super) fn kind(&self) -> FileKind {
        match self.content {
            Content::File(_) | Content::Stored { .. } => FileKind::File,
            Content::Directory(_) => FileKind::Directory,
            Content::Symlink(_) => FileKind::Symlink,
        }
    }

    pub(super) fn metadata(&self, ino: u64) -> Metadata {
        let size = match &self.content {
            Content::File(data) => data.len() as u64,
            Content::Stored { size } => *size,
            Content::Directory(_) => 0,
            Content::Symlink(target) => target.len() as u64,
        };
        Metadata {
            kind: self.kind(),
            size,
            mode: self.mode,
            ino,
            links: self.links,
            modified: self.modified,
            accessed: self.accessed,
            changed: self.changed,
            created: self.created,
        }
    }
}

#[derive(Debug)]
pub(super) struct Tree {
    pub(super) inodes: HashMap<u64, Inode>,
    pub(super) next_ino: u64,
    /// The next id for a file's stored contents.
    pub(super) next_blob: u64,
    /// How many stored inodes refer to each blob: a blob is deleted when none does
    /// (and no snapshot keeps it).
    pub(super) blob_refs: HashMap<u64, u32>,
    pub(super) usage: Usage,
    /// Volume 0 is `/`; others are mounted on directories below it.
    pub(super) volumes: Vec<Volume>,
    pub(super) journal: Journal,
    /// Counts changes to names, metadata and contents (persistent or not): equal counts
    /// mean nothing changed in between.
    pub(super) revision: u64,
}

impl Tree {
    pub(super) fn check_entry_quota(&self, quota: &Quota, path: &VfsPath) -> VfsResult<()> {
        if self.usage.files + self.usage.dirs >= quota.max_entries {
            return Err(VfsError::new(ErrorKind::QuotaExceeded, path.to_string()));
        }
        Ok(())
    }

    pub(super) fn inode(&self, ino: u64) -> &Inode {
        // Directory entries only ever name live inodes (detach removes both together).
        &self.inodes[&ino]
    }

    /// The inode, to change it: the change is journaled if its volume is persistent.
    pub(super) fn inode_mut(&mut self, ino: u64) -> &mut Inode {
        let inode = self
            .inodes
            .get_mut(&ino)
            .expect("directory entries name live inodes");
        self.revision += 1;
        // A nameless (unlinked but open) inode is never stored.
        if self.volumes[inode.volume].persistent && inode.links > 0 {
            self.journal.meta.insert(ino);
        }
        inode
    }

    /// The inode, for a change that is not worth a flush on its own (the access time).
    pub(super) fn inode_mut_unjournaled(&mut self, ino: u64) -> &mut Inode {
        self.inodes
            .get_mut(&ino)
            .expect("directory entries name live inodes")
    }

    /// Records that a file's contents changed.
    pub(super) fn journal_content(&mut self, ino: u64) {
        self.revision += 1;
        let inode = self.inode(ino);
        if self.volumes[inode.volume].persistent && inode.links > 0 {
            self.journal.content.insert(ino);
            self.journal.meta.insert(ino);
        }
    }

    /// EROFS if `ino` lives on a read-only mount.
    pub(super) fn check_writable(&self, ino: u64, path: &VfsPath) -> VfsResult<()> {
        if self.volumes[self.inode(ino).volume].read_only {
            return Err(VfsError::new(ErrorKind::ReadOnly, path.to_string()));
        }
        Ok(())
    }

    /// Whether `ino` is the root of a mount other than `/` (it cannot be removed or moved).
    pub(super) fn is_mount_root(&self, ino: u64) -> bool {
        ino != ROOT_INO && self.volumes.iter().any(|volume| volume.root == ino)
    }

    pub(super) fn same_volume(&self, a: u64, b: u64) -> bool {
        self.inode(a).volume == self.inode(b).volume
    }

    pub(super) fn lookup(&self, dir: u64, name: &str) -> Option<u64> {
        match &self.inode(dir).content {
            Content::Directory(entries) => entries.get(name).copied(),
            _ => None,
        }
    }

    pub(super) fn dir_entries_mut(&mut self, dir: u64) -> &mut BTreeMap<String, u64> {
        match &mut self.inode_mut(dir).content {
            Content::Directory(entries) => entries,
            _ => panic!("resolve_entry and resolve_for_create only return directories"),
        }
    }

    /// Walks `path` from the root, following symlinks in every component and, if
    /// `follow_last`, in the last one.
    pub(super) fn resolve(&self, path: &VfsPath, follow_last: bool) -> VfsResult<u64> {
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
    pub(super) fn resolve_for_create(&self, path: &VfsPath) -> VfsResult<(u64, String)> {
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
    pub(super) fn resolve_for_write(
        &self,
        path: &VfsPath,
    ) -> VfsResult<Result<u64, (u64, String)>> {
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
    pub(super) fn resolve_entry(&self, path: &VfsPath) -> VfsResult<(u64, String, u64)> {
        if path.is_root() {
            return Err(VfsError::new(ErrorKind::Busy, "/"));
        }
        let (dir, name) = self.resolve_for_create(path)?;
        let ino = self
            .lookup(dir, &name)
            .ok_or_else(|| VfsError::new(ErrorKind::NotFound, path.to_string()))?;
        Ok((dir, name, ino))
    }

    pub(super) fn insert(
        &mut self,
        dir: u64,
        name: &str,
        content: Content,
        mode: u32,
        now: Timestamp,
    ) -> u64 {
        let ino = self.next_ino;
        self.next_ino += 1;
        match &content {
            Content::Directory(_) => self.usage.dirs += 1,
            Content::File(_) | Content::Stored { .. } => self.usage.files += 1,
            // A symlink's target is bytes it holds, charged like a file's contents.
            Content::Symlink(target) => {
                self.usage.files += 1;
                self.usage.bytes += target.len() as u64;
            }
        }
        let volume = self.inode(dir).volume;
        let is_file = matches!(content, Content::File(_));
        self.inodes.insert(
            ino,
            Inode {
                content,
                volume,
                blob: 0,
                offset: 0,
                open: 0,
                mode,
                links: 1,
                modified: now,
                accessed: now,
                changed: now,
                created: now,
            },
        );
        self.dir_entries_mut(dir).insert(name.to_owned(), ino);
        self.inode_mut(dir).touch_contents(now);
        if is_file {
            self.journal_content(ino);
        } else if self.volumes[volume].persistent {
            self.journal.meta.insert(ino);
        }
        ino
    }

    /// Unlinks `name` from `dir` and frees its inode and everything below it.
    pub(super) fn detach(&mut self, dir: u64, name: &str, now: Timestamp) {
        let Some(ino) = self.dir_entries_mut(dir).remove(name) else {
            return;
        };
        self.inode_mut(dir).touch_contents(now);
        let mut doomed = vec![ino];
        while let Some(ino) = doomed.pop() {
            let Some(inode) = self.inodes.get(&ino) else {
                continue;
            };
            // A file with another name elsewhere survives, with one link fewer; one still
            // open lives on, nameless, until its last handle closes.
            if inode.links > 1 || inode.open > 0 {
                let inode = self.inode_mut(ino);
                inode.links -= 1;
                inode.changed = now;
                if inode.links == 0 {
                    self.forget(ino);
                }
                continue;
            }
            self.free(ino, &mut doomed);
        }
    }

    /// Takes a nameless inode out of the journal: storage must not keep it.
    pub(super) fn forget(&mut self, ino: u64) {
        let inode = self.inode(ino);
        if self.volumes[inode.volume].persistent {
            let blob = inode.blob;
            self.journal.meta.remove(&ino);
            self.journal.content.remove(&ino);
            self.journal.freed.insert(ino, blob);
        }
    }

    /// Drops an inode and its accounting; a directory's children go on `doomed`.
    pub(super) fn free(&mut self, ino: u64, doomed: &mut Vec<u64>) {
        if self.inodes.get(&ino).is_some_and(|inode| inode.links > 0) {
            self.forget(ino);
        }
        let Some(inode) = self.inodes.remove(&ino) else {
            return;
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
            Content::Stored { size } => {
                self.usage.files -= 1;
                self.usage.bytes -= size;
            }
            Content::Symlink(target) => {
                self.usage.files -= 1;
                self.usage.bytes -= target.len() as u64;
            }
        }
    }

    /// Whether `ancestor` is `ino` or contains it.
    pub(super) fn is_ancestor(&self, ancestor: u64, ino: u64) -> bool {
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
