//! A sandbox's filesystem: the in-memory tree, the mounts on it, and the store that keeps
//! `/`. Changes are journaled in memory and written by [`SandboxFs::flush`] in one atomic
//! commit; file contents are read from the store when first needed.

use super::records::{
    ChunkRecord, ChunkStream, SnapshotBody, SnapshotInfo, decode_inode, decode_snapshot_body,
    decode_snapshot_index, decode_superblock, encode_snapshot_body, encode_snapshot_index,
    encode_superblock,
};
use super::store::{Batch, Store};
use crate::clock::Clock;
use crate::error::{ErrorKind, VfsError, VfsResult};
use crate::memory::persist::{StoredContents, StoredTree, load_failed};
use crate::memory::{MemFs, MountKind};
use crate::path::VfsPath;
use crate::quota::Quota;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// A subtree mounted on the sandbox's filesystem.
#[derive(Debug, Clone)]
pub struct Mount {
    pub path: VfsPath,
    pub source: MountSource,
}

/// What a mount holds.
#[derive(Debug, Clone)]
pub enum MountSource {
    /// An empty directory kept in memory only (`/tmp`).
    Memory,
    /// Files given by the host (paths relative to the mount point), read-only.
    ReadOnly(Vec<(String, Vec<u8>)>),
    /// Files given by the host, kept in memory only and writable: a fresh copy at
    /// every open (sandtab's Python support, whose compiled caches go beside it).
    /// Those past the quota are left out.
    Scratch(Vec<(String, Vec<u8>)>),
}

/// Where a file's contents lie in storage while not loaded: bytes
/// `offset..offset + size` of blob `blob`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredLocation {
    pub blob: u64,
    pub offset: u64,
    pub size: u64,
}

/// Where [`SandboxFs::read_into`] puts a file's contents.
pub trait ContentSink: Send {
    /// The file's size, before any piece; an error stops the read.
    fn size(&mut self, size: u64) -> VfsResult<()>;
    /// The next bytes, in order.
    fn piece(&mut self, data: &[u8]);
}

/// What a flush wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushStats {
    pub records: usize,
    pub bytes: usize,
}

/// A sandbox's filesystem, in memory or kept in a [`Store`].
pub struct SandboxFs {
    mem: Arc<MemFs>,
    store: Option<Arc<dyn Store>>,
    mounts: Vec<Mount>,
    clock: Arc<dyn Clock>,
    snapshots: Mutex<Vec<SnapshotInfo>>,
}

impl std::fmt::Debug for SandboxFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxFs")
            .field("store", &self.store.as_ref().map(|store| store.describe()))
            .field("mounts", &self.mounts.len())
            .finish_non_exhaustive()
    }
}

fn apply_mounts(mem: &MemFs, mounts: &[Mount]) -> VfsResult<()> {
    for mount in mounts {
        if let Some(parent) = mount.path.parent() {
            mem.create_dir_all(&parent)?;
        }
        match &mount.source {
            MountSource::Memory => mem.mount(&mount.path, MountKind::Memory)?,
            MountSource::Scratch(files) => {
                mem.mount(&mount.path, MountKind::Memory)?;
                for (relative, data) in files {
                    let file = mount.path.join(relative.trim_start_matches('/'))?;
                    if !file.starts_with(&mount.path) || file == mount.path {
                        return Err(VfsError::new(ErrorKind::InvalidInput, relative.clone()));
                    }
                    if let Some(parent) = file.parent() {
                        mem.create_dir_all(&parent)?;
                    }
                    // They count against the quota: a sandbox too small for them
                    // opens without them rather than not at all.
                    match mem.write(&file, data) {
                        Err(err)
                            if matches!(
                                err.kind(),
                                ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge
                            ) =>
                        {
                            break;
                        }
                        other => other?,
                    }
                }
            }
            MountSource::ReadOnly(files) => mem.mount_read_only(
                &mount.path,
                files
                    .iter()
                    .map(|(path, data)| (path.as_str(), data.as_slice())),
            )?,
        }
    }
    Ok(())
}

impl SandboxFs {
    /// A sandbox kept in memory only.
    pub fn in_memory(clock: Arc<dyn Clock>, quota: Quota, mounts: Vec<Mount>) -> VfsResult<Self> {
        let mem = Arc::new(MemFs::with_quota(clock.clone(), quota));
        apply_mounts(&mem, &mounts)?;
        Ok(Self {
            mem,
            store: None,
            mounts,
            clock,
            snapshots: Mutex::new(Vec::new()),
        })
    }

    /// Opens the sandbox kept in `store`, or starts an empty one there. Reads records
    /// only: file contents load on first use. Data of an unknown format version, or
    /// records that fail their checksum, are an error and the store is left untouched.
    pub async fn open(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        quota: Quota,
        mounts: Vec<Mount>,
    ) -> VfsResult<Self> {
        let state = store.load().await?;
        let (mem, snapshots) = match &state.superblock {
            None if state.inodes.is_empty() => {
                let mem = MemFs::with_quota(clock.clone(), quota);
                mem.set_persistent();
                mem.journal_root();
                (mem, Vec::new())
            }
            None => {
                return Err(VfsError::new(ErrorKind::Corrupt, "/").with_detail(format!(
                    "{}: inodes stored without a superblock",
                    store.describe()
                )));
            }
            Some(superblock) => {
                let superblock = decode_superblock(superblock)?;
                let mut records = Vec::with_capacity(state.inodes.len());
                for (ino, sealed) in &state.inodes {
                    records.push((*ino, decode_inode(*ino, sealed)?));
                }
                let snapshots = match &state.snapshot_index {
                    Some(index) => decode_snapshot_index(index)?,
                    None => Vec::new(),
                };
                (
                    MemFs::from_records(clock.clone(), quota, superblock, records)?,
                    snapshots,
                )
            }
        };
        apply_mounts(&mem, &mounts)?;
        Ok(Self {
            mem: Arc::new(mem),
            store: Some(store),
            mounts,
            clock,
            snapshots: Mutex::new(snapshots),
        })
    }

    /// The filesystem itself. Before a call that reads a file's contents, await
    /// [`SandboxFs::load_for_read`] (or `load_for_write`) for its path.
    pub fn mem(&self) -> &Arc<MemFs> {
        &self.mem
    }

    /// Where the configured mounts are.
    pub fn mount_paths(&self) -> impl Iterator<Item = &VfsPath> {
        self.mounts.iter().map(|mount| &mount.path)
    }

    /// Whether `/` is kept in a store.
    pub fn is_persistent(&self) -> bool {
        self.store.is_some()
    }

    /// The store, if any.
    pub fn store(&self) -> Option<&Arc<dyn Store>> {
        self.store.as_ref()
    }

    fn snapshot_list(&self) -> MutexGuard<'_, Vec<SnapshotInfo>> {
        self.snapshots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn require_store(&self) -> VfsResult<&Arc<dyn Store>> {
        self.store.as_ref().ok_or_else(|| {
            VfsError::new(ErrorKind::Unsupported, "/")
                .with_detail("this sandbox is kept in memory only; snapshots need storage")
        })
    }

    /// Makes sure the contents of the file `path` names are in memory.
    pub async fn load_for_read(&self, path: &VfsPath) -> VfsResult<()> {
        match self.mem.stored_contents(path, false) {
            Some(stored) => self.load(path, stored).await,
            None => Ok(()),
        }
    }

    /// Like [`SandboxFs::load_for_read`], for a write that keeps part of the old contents
    /// (append, write at an offset, truncate).
    pub async fn load_for_write(&self, path: &VfsPath) -> VfsResult<()> {
        match self.mem.stored_contents(path, true) {
            Some(stored) => self.load(path, stored).await,
            None => Ok(()),
        }
    }

    async fn load(&self, path: &VfsPath, stored: StoredContents) -> VfsResult<()> {
        // The size is stored data: reserve up front only up to a bound, and fallibly, so a
        // damaged size cannot abort the runtime (past the bound the buffer grows with
        // the chunks actually read).
        const RESERVE_AT_MOST: u64 = 64 << 20;
        let mut data = Vec::new();
        let reserve = usize::try_from(stored.size.min(RESERVE_AT_MOST)).unwrap_or(0);
        data.try_reserve_exact(reserve).map_err(|_| {
            VfsError::new(ErrorKind::OutOfMemory, path.to_string())
                .with_detail(format!("{} bytes do not fit in memory", stored.size))
        })?;
        self.visit_stored(&stored, &mut |piece| data.extend_from_slice(piece))
            .await
            .map_err(|err| load_failed(path, &err))?;
        self.mem.install_contents(stored, data);
        Ok(())
    }

    /// Streams stored contents chunk by chunk, each checked, to `out`.
    async fn visit_stored(
        &self,
        stored: &StoredContents,
        out: &mut (dyn FnMut(&[u8]) + Send),
    ) -> VfsResult<()> {
        let store = self.require_store()?;
        let count = super::records::chunks_to_read(stored.offset, stored.size);
        let mut stream = ChunkStream::new(stored.blob, stored.offset, stored.size);
        store
            .visit_blob(stored.blob, count, &mut |index, sealed| {
                stream.push(index, sealed, out)
            })
            .await?;
        stream.finish()
    }

    /// Where the contents of the file `path` names (following symlinks) lie in storage,
    /// if they are not loaded: for a backend's own fast path to read them.
    pub fn stored_location(&self, path: &VfsPath) -> Option<StoredLocation> {
        self.mem
            .stored_contents(path, false)
            .map(|stored| StoredLocation {
                blob: stored.blob,
                offset: stored.offset,
                size: stored.size,
            })
    }

    /// The error for a failed read of `path`'s stored contents: the file's path, with
    /// what failed (the record and why) as detail.
    pub fn read_failed(path: &VfsPath, err: &VfsError) -> VfsError {
        load_failed(path, err)
    }

    /// Passes a file's contents (following symlinks) to `sink`. A file still in storage
    /// is read straight from it, chunk by chunk, each checked, and not kept in memory:
    /// the way to hand a large file to the page.
    pub async fn read_into(&self, path: &VfsPath, sink: &mut dyn ContentSink) -> VfsResult<()> {
        match self.mem.stored_contents(path, false) {
            Some(stored) => {
                sink.size(stored.size)?;
                self.visit_stored(&stored, &mut |piece| sink.piece(piece))
                    .await
                    .map_err(|err| load_failed(path, &err))
            }
            None => self.mem.read_contents_with(path, |data| {
                sink.size(data.len() as u64)?;
                sink.piece(data);
                Ok(())
            })?,
        }
    }

    /// Loads every file's contents still in storage (before an export, or to check them
    /// all), many files per read so a backend can batch them.
    pub async fn load_everything(&self) -> VfsResult<()> {
        self.load_batched(self.mem.all_stored_contents()).await
    }

    /// Loads the contents of the files `paths` name (following symlinks) that are still
    /// in storage, many per read.
    pub async fn load_paths(&self, paths: &[VfsPath]) -> VfsResult<()> {
        let mut pending: Vec<StoredContents> = paths
            .iter()
            .filter_map(|path| self.mem.stored_contents(path, false))
            .collect();
        pending.sort_by_key(|stored| stored.ino);
        pending.dedup_by_key(|stored| stored.ino);
        self.load_batched(pending).await
    }

    async fn load_batched(&self, mut pending: Vec<StoredContents>) -> VfsResult<()> {
        /// Bytes loaded per batched read: bounds the memory one read holds twice.
        const BATCH_BYTES: u64 = 32 << 20;
        let store = match &self.store {
            Some(store) => store.clone(),
            None => return Ok(()),
        };
        // Files of one pack next to each other, so the pack is read once.
        pending.sort_by_key(|stored| (stored.blob, stored.offset));
        let mut start = 0;
        while start < pending.len() {
            let mut end = start;
            let mut bytes = 0;
            while end < pending.len() && (end == start || bytes + pending[end].size <= BATCH_BYTES)
            {
                bytes += pending[end].size;
                end += 1;
            }
            let group = &pending[start..end];
            let mut blobs: Vec<(u64, u32)> = Vec::new();
            for stored in group {
                let count = super::records::chunks_to_read(stored.offset, stored.size);
                match blobs.last_mut() {
                    Some((blob, wanted)) if *blob == stored.blob => *wanted = (*wanted).max(count),
                    _ => blobs.push((stored.blob, count)),
                }
            }
            let chunks = store.read_blobs(&blobs).await?;
            let by_blob: std::collections::HashMap<u64, &super::store::BlobChunks> = blobs
                .iter()
                .map(|(blob, _)| *blob)
                .zip(chunks.iter())
                .collect();
            for stored in group {
                let empty = Vec::new();
                let chunks = by_blob.get(&stored.blob).copied().unwrap_or(&empty);
                let data =
                    super::records::decode_chunks(stored.blob, stored.offset, stored.size, chunks)
                        .map_err(|err| {
                            load_failed(
                                &VfsPath::root().child(&format!("inode-{}", stored.ino)),
                                &err,
                            )
                        })?;
                self.mem.install_contents(*stored, data);
            }
            start = end;
        }
        Ok(())
    }

    /// Writes every change since the last flush in one atomic commit. If the store
    /// refuses (quota, a closed database), nothing is written, the changes stay in memory
    /// for the next flush, and the error says why.
    pub async fn flush(&self) -> VfsResult<FlushStats> {
        let Some(store) = &self.store else {
            return Ok(FlushStats::default());
        };
        let mut prepared = self.mem.prepare_flush();
        if prepared.is_empty() {
            // Still take back anything the journal held (nothing, or only frees).
            self.mem.rollback_flush(prepared);
            return Ok(FlushStats::default());
        }
        let pinned = self.pinned_blobs();
        let mut batch = Batch {
            superblock: Some(encode_superblock(&prepared.superblock)),
            put_inodes: prepared.inodes.clone(),
            delete_inodes: prepared.removed.clone(),
            delete_blobs: prepared
                .obsolete_blobs
                .iter()
                .copied()
                .filter(|blob| !pinned.contains(blob))
                .collect(),
            ..Batch::default()
        };
        // The contents move into the batch: a rollback needs only the journal.
        for (blob, chunks) in std::mem::take(&mut prepared.contents) {
            for (index, chunk) in chunks.into_iter().enumerate() {
                let index = u32::try_from(index).unwrap_or(u32::MAX);
                batch.put_chunks.push((blob, index, chunk));
            }
        }
        let stats = FlushStats {
            records: batch.record_count(),
            bytes: batch.byte_count(),
        };
        match store.commit(batch).await {
            Ok(()) => Ok(stats),
            Err(err) => {
                self.mem.rollback_flush(prepared);
                Err(err)
            }
        }
    }

    fn pinned_blobs(&self) -> BTreeSet<u64> {
        self.snapshot_list()
            .iter()
            .flat_map(|snapshot| snapshot.blobs.iter().copied())
            .collect()
    }

    /// The snapshots kept, oldest first.
    pub fn snapshots(&self) -> Vec<SnapshotInfo> {
        self.snapshot_list().clone()
    }

    /// Flushes, then records the current tree as a snapshot. File contents are shared
    /// with the live tree (blobs are never changed, only replaced), so a snapshot costs
    /// one record per inode, not a copy of the data.
    pub async fn snapshot(&self, label: &str) -> VfsResult<SnapshotInfo> {
        let store = self.require_store()?.clone();
        self.flush().await?;
        let StoredTree {
            superblock,
            records: inodes,
            blobs,
        } = self.mem.stored_records();
        let usage = self.mem.usage();
        let id = self
            .snapshot_list()
            .iter()
            .map(|snapshot| snapshot.id)
            .max()
            .unwrap_or(0)
            + 1;
        let info = SnapshotInfo {
            id,
            created: self.clock.now().0,
            label: label.to_owned(),
            files: usage.files,
            bytes: usage.bytes,
            blobs: blobs.into_iter().collect(),
        };
        let mut index = self.snapshots();
        index.push(info.clone());
        let batch = Batch {
            snapshot_index: Some(encode_snapshot_index(&index)),
            put_snapshots: vec![(
                id,
                encode_snapshot_body(&SnapshotBody { superblock, inodes }),
            )],
            ..Batch::default()
        };
        store.commit(batch).await?;
        *self.snapshot_list() = index;
        Ok(info)
    }

    async fn read_snapshot_body(&self, id: u64) -> VfsResult<SnapshotBody> {
        let store = self.require_store()?;
        if !self
            .snapshot_list()
            .iter()
            .any(|snapshot| snapshot.id == id)
        {
            return Err(VfsError::new(ErrorKind::NotFound, format!("snapshot {id}")));
        }
        let sealed = store.read_snapshot(id).await?.ok_or_else(|| {
            VfsError::new(ErrorKind::Corrupt, format!("snapshot {id}"))
                .with_detail("listed in the index but not stored")
        })?;
        decode_snapshot_body(id, &sealed)
    }

    /// Makes the files exactly what they were when snapshot `id` was taken. Changes since
    /// are discarded (snapshot first to keep them). Mounts are put back as configured.
    pub async fn restore(&self, id: u64) -> VfsResult<()> {
        let store = self.require_store()?.clone();
        self.flush().await?;
        let body = self.read_snapshot_body(id).await?;
        let mut records = Vec::with_capacity(body.inodes.len());
        for (ino, sealed) in &body.inodes {
            records.push((*ino, decode_inode(*ino, sealed)?));
        }
        let StoredTree {
            superblock: current,
            blobs: current_blobs,
            ..
        } = self.mem.stored_records();
        let superblock = super::records::Superblock {
            next_ino: current.next_ino.max(body.superblock.next_ino),
            next_blob: current.next_blob.max(body.superblock.next_blob),
        };
        let restored =
            MemFs::from_records(self.clock.clone(), self.mem.quota(), superblock, records)?;
        apply_mounts(&restored, &self.mounts)?;
        let pinned = self.pinned_blobs();
        let batch = Batch {
            superblock: Some(encode_superblock(&superblock)),
            clear_inodes: true,
            put_inodes: body.inodes,
            delete_blobs: current_blobs.difference(&pinned).copied().collect(),
            ..Batch::default()
        };
        store.commit(batch).await?;
        self.mem.replace_with(restored);
        Ok(())
    }

    /// Deletes snapshot `id` and the contents only it kept.
    pub async fn delete_snapshot(&self, id: u64) -> VfsResult<()> {
        let store = self.require_store()?.clone();
        self.flush().await?;
        let mut index = self.snapshots();
        let Some(position) = index.iter().position(|snapshot| snapshot.id == id) else {
            return Err(VfsError::new(ErrorKind::NotFound, format!("snapshot {id}")));
        };
        let removed = index.remove(position);
        let live = self.mem.stored_records().blobs;
        let still_used: BTreeSet<u64> = index
            .iter()
            .flat_map(|snapshot| snapshot.blobs.iter().copied())
            .chain(live)
            .collect();
        let batch = Batch {
            snapshot_index: Some(encode_snapshot_index(&index)),
            delete_snapshots: vec![id],
            delete_blobs: removed
                .blobs
                .iter()
                .copied()
                .filter(|blob| !still_used.contains(blob))
                .collect(),
            ..Batch::default()
        };
        store.commit(batch).await?;
        *self.snapshot_list() = index;
        Ok(())
    }

    /// Copies the current files (or snapshot `id`'s) into `target`, which must be empty:
    /// a new sandbox that shares nothing with this one afterwards.
    pub async fn fork_into(&self, snapshot: Option<u64>, target: &dyn Store) -> VfsResult<()> {
        let store = self.require_store()?.clone();
        let existing = target.load().await?;
        if existing.superblock.is_some() || !existing.inodes.is_empty() {
            return Err(VfsError::new(ErrorKind::AlreadyExists, target.describe())
                .with_detail("a fork needs an empty sandbox"));
        }
        self.flush().await?;
        let (superblock, inodes, blobs) = match snapshot {
            Some(id) => {
                let body = self.read_snapshot_body(id).await?;
                let info = self
                    .snapshot_list()
                    .iter()
                    .find(|snapshot| snapshot.id == id)
                    .map(|snapshot| snapshot.blobs.clone())
                    .unwrap_or_default();
                (body.superblock, body.inodes, info)
            }
            None => {
                let tree = self.mem.stored_records();
                (
                    tree.superblock,
                    tree.records,
                    tree.blobs.into_iter().collect(),
                )
            }
        };
        let mut batch = Batch {
            superblock: Some(encode_superblock(&superblock)),
            put_inodes: inodes,
            ..Batch::default()
        };
        for blob in blobs {
            for (index, chunk) in store.read_blob(blob).await? {
                batch
                    .put_chunks
                    .push((blob, index, ChunkRecord::from_sealed(chunk)));
            }
        }
        target.commit(batch).await
    }
}
