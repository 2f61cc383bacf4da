//! The bridge between the in-memory tree and stored records: what a flush writes, how a
//! stored tree is rebuilt (contents left in storage until first read), and rollback when
//! storage refuses a flush.

use super::MemFs;
use super::tree::{Content, Inode, Journal, ROOT_INO, Tree, Volume};
use crate::clock::{Clock, Timestamp};
use crate::error::{VfsError, VfsResult};
use crate::metadata::Usage;
use crate::path::{MAX_NAME_LEN, VfsPath};
use crate::quota::Quota;
use crate::storage::records::{
    CHUNK_SIZE, ChunkRecord, InodeRecord, KindRecord, PACK_MAX_FILE, Superblock, corrupt,
    encode_chunks, encode_inode,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// The changes a flush writes, taken from the journal.
#[derive(Debug, Default)]
pub(crate) struct PreparedFlush {
    pub(crate) superblock: Superblock,
    pub(crate) inodes: Vec<(u64, Vec<u8>)>,
    pub(crate) removed: Vec<u64>,
    /// New contents: blob id and its chunks (sharing the files' buffers).
    pub(crate) contents: Vec<(u64, Vec<ChunkRecord>)>,
    /// Contents no inode refers to any more.
    pub(crate) obsolete_blobs: Vec<u64>,
    /// What to undo if storage refuses: (inode, old place, new place).
    assignments: Vec<(u64, Place, Place)>,
    /// Reference counts this flush changed: +1 or -1 per blob, to undo on refusal.
    ref_changes: Vec<(u64, i8)>,
    journal: Journal,
}

/// Where a file's contents are stored: (blob, offset in the blob).
type Place = (u64, u64);

/// Small files waiting to be written as one pack blob.
#[derive(Debug, Default)]
struct Pack {
    data: Vec<u8>,
    members: Vec<u64>,
}

impl PreparedFlush {
    pub(crate) fn is_empty(&self) -> bool {
        self.inodes.is_empty() && self.removed.is_empty()
    }
}

/// Gives a pack of small files its blob id and queues its one chunk.
fn seal_pack(tree: &mut Tree, prepared: &mut PreparedFlush, pack: Pack) {
    let blob = tree.next_blob;
    tree.next_blob += 1;
    prepared
        .contents
        .push((blob, encode_chunks(&Arc::new(pack.data))));
    for ino in pack.members {
        if let Some(inode) = tree.inodes.get_mut(&ino) {
            inode.blob = blob;
        }
    }
}

impl StoredContents {
    /// Where inode `ino`'s contents are, if they are still only in storage.
    fn of(ino: u64, inode: &Inode) -> Option<Self> {
        match inode.content {
            Content::Stored { size } => Some(Self {
                ino,
                blob: inode.blob,
                offset: inode.offset,
                size,
            }),
            _ => None,
        }
    }
}

/// The whole stored part of a tree, as records.
#[derive(Debug)]
pub(crate) struct StoredTree {
    pub(crate) superblock: Superblock,
    pub(crate) records: Vec<(u64, Vec<u8>)>,
    pub(crate) blobs: BTreeSet<u64>,
}

/// A file whose contents are still in storage.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoredContents {
    pub(crate) ino: u64,
    pub(crate) blob: u64,
    pub(crate) offset: u64,
    pub(crate) size: u64,
}

fn record_of(tree: &Tree, inode: &Inode) -> InodeRecord {
    let kind = match &inode.content {
        Content::File(data) => KindRecord::File {
            size: data.len() as u64,
            blob: inode.blob,
            offset: inode.offset,
        },
        Content::Stored { size } => KindRecord::File {
            size: *size,
            blob: inode.blob,
            offset: inode.offset,
        },
        Content::Directory(entries) => KindRecord::Directory {
            // Mounts below a stored directory are not stored.
            entries: entries
                .iter()
                .filter(|(_, child)| tree.volumes[tree.inode(**child).volume].persistent)
                .map(|(name, child)| (name.clone(), *child))
                .collect(),
        },
        Content::Symlink(target) => KindRecord::Symlink {
            target: target.clone(),
        },
    };
    InodeRecord {
        kind,
        mode: inode.mode,
        links: inode.links,
        modified: inode.modified.0,
        accessed: inode.accessed.0,
        changed: inode.changed.0,
        created: inode.created.0,
    }
}

impl MemFs {
    /// Starts journaling changes to `/` (not to mounts) for flushes.
    pub(crate) fn set_persistent(&self) {
        self.lock().volumes[0].persistent = true;
    }

    /// Journals the root so the first flush of a new sandbox writes it.
    pub(crate) fn journal_root(&self) {
        self.lock().journal.meta.insert(ROOT_INO);
    }

    /// Whether anything changed since the last flush.
    pub fn has_unflushed_changes(&self) -> bool {
        !self.lock().journal.is_empty()
    }

    /// Takes the journal and turns it into records. New contents get new blob ids now
    /// (small files share packs); call [`MemFs::rollback_flush`] if storage refuses them.
    pub(crate) fn prepare_flush(&self) -> PreparedFlush {
        let mut tree = self.lock();
        let journal = std::mem::take(&mut tree.journal);
        let mut prepared = PreparedFlush {
            ..PreparedFlush::default()
        };
        let mut released = Vec::new();
        let mut pack = Pack::default();
        for &ino in &journal.content {
            let (old, len) = match tree.inodes.get(&ino) {
                Some(inode) => match &inode.content {
                    Content::File(data) => ((inode.blob, inode.offset), data.len()),
                    _ => continue,
                },
                None => continue,
            };
            released.push(old.0);
            if len > 0 && len <= PACK_MAX_FILE && pack.data.len() + len > CHUNK_SIZE {
                seal_pack(&mut tree, &mut prepared, std::mem::take(&mut pack));
            }
            let tree = &mut *tree;
            let Some(Inode {
                content: Content::File(data),
                ..
            }) = tree.inodes.get(&ino)
            else {
                continue;
            };
            let new = if len == 0 {
                (0, 0)
            } else if len <= PACK_MAX_FILE {
                pack.members.push(ino);
                let offset = pack.data.len() as u64;
                pack.data.extend_from_slice(data);
                // The blob id comes when the pack is sealed; the offset is final now.
                (u64::MAX, offset)
            } else {
                let blob = tree.next_blob;
                tree.next_blob += 1;
                prepared.contents.push((blob, encode_chunks(data)));
                (blob, 0)
            };
            let inode = tree.inode_mut_unjournaled(ino);
            (inode.blob, inode.offset) = new;
            prepared.assignments.push((ino, old, new));
        }
        if !pack.members.is_empty() {
            seal_pack(&mut tree, &mut prepared, pack);
        }
        for assignment in &mut prepared.assignments {
            let ino = assignment.0;
            if let Some(inode) = tree.inodes.get(&ino) {
                assignment.2 = (inode.blob, inode.offset);
            }
            if assignment.2.0 != 0 {
                *tree.blob_refs.entry(assignment.2.0).or_insert(0) += 1;
                prepared.ref_changes.push((assignment.2.0, 1));
            }
        }
        for &ino in &journal.meta {
            if let Some(inode) = tree.inodes.get(&ino) {
                prepared
                    .inodes
                    .push((ino, encode_inode(&record_of(&tree, inode))));
            }
        }
        for (&ino, &blob) in &journal.freed {
            prepared.removed.push(ino);
            released.push(blob);
        }
        for blob in released {
            if blob == 0 {
                continue;
            }
            if let Some(count) = tree.blob_refs.get_mut(&blob) {
                *count = count.saturating_sub(1);
                prepared.ref_changes.push((blob, -1));
                if *count == 0 {
                    tree.blob_refs.remove(&blob);
                    prepared.obsolete_blobs.push(blob);
                }
            }
        }
        prepared.superblock = Superblock {
            next_ino: tree.next_ino,
            next_blob: tree.next_blob,
        };
        prepared.journal = journal;
        prepared
    }

    /// Undoes [`MemFs::prepare_flush`] after storage refused the records: the changes stay
    /// journaled for the next flush.
    pub(crate) fn rollback_flush(&self, prepared: PreparedFlush) {
        let mut tree = self.lock();
        for (ino, old, new) in prepared.assignments {
            if let Some(inode) = tree.inodes.get_mut(&ino)
                && (inode.blob, inode.offset) == new
            {
                (inode.blob, inode.offset) = old;
            }
        }
        for (blob, change) in prepared.ref_changes.into_iter().rev() {
            let count = tree.blob_refs.entry(blob).or_insert(0);
            *count = if change > 0 {
                count.saturating_sub(1)
            } else {
                count.saturating_add(1)
            };
            if *count == 0 {
                tree.blob_refs.remove(&blob);
            }
        }
        tree.journal.merge(prepared.journal);
    }

    /// Every stored inode as a sealed record, and the blobs they use: a snapshot's body.
    /// Flush first, so every file's contents have a blob.
    pub(crate) fn stored_records(&self) -> StoredTree {
        let tree = self.lock();
        let mut records = Vec::new();
        let mut blobs = BTreeSet::new();
        let mut inos: Vec<u64> = tree
            .inodes
            .iter()
            .filter(|(_, inode)| tree.volumes[inode.volume].persistent && inode.links > 0)
            .map(|(&ino, _)| ino)
            .collect();
        inos.sort_unstable();
        for ino in inos {
            let inode = tree.inode(ino);
            if inode.blob != 0 {
                blobs.insert(inode.blob);
            }
            records.push((ino, encode_inode(&record_of(&tree, inode))));
        }
        let superblock = Superblock {
            next_ino: tree.next_ino,
            next_blob: tree.next_blob,
        };
        StoredTree {
            superblock,
            records,
            blobs,
        }
    }

    /// The file `path` names (following symlinks), if its contents are still in storage.
    /// With `for_write`, a missing final component is fine (the write creates it).
    pub(crate) fn stored_contents(
        &self,
        path: &VfsPath,
        for_write: bool,
    ) -> Option<StoredContents> {
        let tree = self.lock();
        let ino = if for_write {
            tree.resolve_for_write(path).ok()?.ok()?
        } else {
            tree.resolve(path, true).ok()?
        };
        StoredContents::of(ino, tree.inode(ino))
    }

    /// Every file whose contents are still in storage.
    pub(crate) fn all_stored_contents(&self) -> Vec<StoredContents> {
        let tree = self.lock();
        tree.inodes
            .iter()
            .filter_map(|(&ino, inode)| StoredContents::of(ino, inode))
            .collect()
    }

    /// Puts loaded contents in place, unless the file changed meanwhile.
    pub(crate) fn install_contents(&self, stored: StoredContents, data: Vec<u8>) {
        let mut tree = self.lock();
        if let Some(inode) = tree.inodes.get_mut(&stored.ino)
            && inode.blob == stored.blob
            && inode.offset == stored.offset
            && matches!(inode.content, Content::Stored { size } if size == data.len() as u64)
        {
            inode.content = Content::File(Arc::new(data));
        }
    }

    /// Rebuilds a filesystem from stored records, checking that they form one tree.
    /// Contents stay in storage. Records no directory reaches are left out (and reported
    /// by `fsck`).
    pub(crate) fn from_records(
        clock: Arc<dyn Clock>,
        quota: Quota,
        superblock: Superblock,
        records: Vec<(u64, InodeRecord)>,
    ) -> VfsResult<MemFs> {
        let mut records: HashMap<u64, InodeRecord> = records.into_iter().collect();
        let mut inodes = HashMap::new();
        let mut usage = Usage::default();
        let mut references: HashMap<u64, u32> = HashMap::from([(ROOT_INO, 1)]);
        let mut pending = vec![ROOT_INO];
        let mut max_ino = ROOT_INO;
        let mut max_blob = 0;
        let mut blob_refs: HashMap<u64, u32> = HashMap::new();
        while let Some(ino) = pending.pop() {
            let Some(record) = records.remove(&ino) else {
                continue; // A hard-linked file seen before.
            };
            max_ino = max_ino.max(ino);
            let (blob, offset) = record.kind_blob().unwrap_or((0, 0));
            let content = match record.kind {
                KindRecord::Directory { entries } => {
                    let mut map = BTreeMap::new();
                    for (name, child) in entries {
                        if name.is_empty()
                            || name.len() > MAX_NAME_LEN
                            || name.contains(['/', '\0'])
                            || name == "."
                            || name == ".."
                        {
                            return Err(corrupt(&format!("inode {ino}"), "invalid entry name"));
                        }
                        let count = references.entry(child).or_insert(0);
                        *count += 1;
                        if *count == 1 {
                            pending.push(child);
                        }
                        map.insert(name, child);
                    }
                    usage.dirs += 1;
                    Content::Directory(map)
                }
                KindRecord::File { size, blob, .. } => {
                    if size > crate::memory::MAX_FILE_SIZE {
                        return Err(corrupt(
                            &format!("inode {ino}"),
                            &format!("a file of {size} bytes, over the largest possible"),
                        ));
                    }
                    usage.files += 1;
                    usage.bytes = usage.bytes.saturating_add(size);
                    max_blob = max_blob.max(blob);
                    if blob != 0 {
                        *blob_refs.entry(blob).or_insert(0) += 1;
                    }
                    if size == 0 {
                        Content::File(Arc::default())
                    } else {
                        Content::Stored { size }
                    }
                }
                KindRecord::Symlink { target } => {
                    usage.files += 1;
                    usage.bytes = usage.bytes.saturating_add(target.len() as u64);
                    Content::Symlink(target)
                }
            };
            inodes.insert(
                ino,
                Inode {
                    content,
                    volume: 0,
                    blob,
                    offset,
                    open: 0,
                    mode: record.mode & 0o7777,
                    links: record.links,
                    modified: Timestamp(record.modified),
                    accessed: Timestamp(record.accessed),
                    changed: Timestamp(record.changed),
                    created: Timestamp(record.created),
                },
            );
        }
        check_references(&inodes, &references)?;
        let mut tree = Tree {
            inodes,
            next_ino: superblock.next_ino.max(max_ino + 1),
            next_blob: superblock.next_blob.max(max_blob + 1),
            blob_refs,
            usage,
            volumes: vec![Volume {
                root: ROOT_INO,
                persistent: true,
                read_only: false,
            }],
            journal: Journal::default(),
            revision: 0,
        };
        // Records nothing reaches are freed by the next flush.
        for ino in records.into_keys() {
            tree.journal.freed.insert(ino, 0);
        }
        Ok(MemFs {
            tree: Mutex::new(tree),
            clock,
            quota,
            writes: crate::write_budget::WriteBudget::default(),
        })
    }

    /// Replaces this filesystem's whole tree with `other`'s (a restored snapshot), so
    /// every holder of this `MemFs` sees the new files.
    pub(crate) fn replace_with(&self, other: MemFs) {
        let mut other = other
            .tree
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut tree = self.lock();
        other.revision = tree.revision + 1;
        *tree = other;
    }
}

impl InodeRecord {
    fn kind_blob(&self) -> Option<(u64, u64)> {
        match self.kind {
            KindRecord::File { blob, offset, .. } => Some((blob, offset)),
            _ => None,
        }
    }
}

/// Every entry must name a stored inode; directories have exactly one name; link counts
/// match the names found.
fn check_references(inodes: &HashMap<u64, Inode>, references: &HashMap<u64, u32>) -> VfsResult<()> {
    let Some(root) = inodes.get(&ROOT_INO) else {
        return Err(corrupt("inode 1", "the root directory is missing"));
    };
    if !matches!(root.content, Content::Directory(_)) {
        return Err(corrupt("inode 1", "the root is not a directory"));
    }
    for (&ino, &count) in references {
        let Some(inode) = inodes.get(&ino) else {
            return Err(corrupt(
                &format!("inode {ino}"),
                "a directory names it but it is not stored",
            ));
        };
        let is_dir = matches!(inode.content, Content::Directory(_));
        if is_dir && count > 1 {
            return Err(corrupt(
                &format!("inode {ino}"),
                "directory has several names",
            ));
        }
        if !is_dir && inode.links != count {
            return Err(corrupt(
                &format!("inode {ino}"),
                &format!("link count {} but {count} names", inode.links),
            ));
        }
    }
    Ok(())
}

/// An error for a path whose contents storage could not give.
pub(crate) fn load_failed(path: &VfsPath, err: &VfsError) -> VfsError {
    VfsError::new(err.kind(), path.to_string()).with_detail(
        err.detail()
            .map_or_else(|| err.path().to_owned(), |d| format!("{}: {d}", err.path())),
    )
}
