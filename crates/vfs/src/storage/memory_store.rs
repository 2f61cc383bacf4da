//! A store in memory: for native tests and tools. It can be told to fail a commit or to
//! corrupt a record, to test what a browser's storage may do.

use super::store::{Batch, Store, StoreFuture, StoredState};
use crate::error::VfsError;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

#[derive(Debug, Default, Clone)]
struct Records {
    superblock: Option<Vec<u8>>,
    snapshot_index: Option<Vec<u8>>,
    inodes: BTreeMap<u64, Vec<u8>>,
    chunks: BTreeMap<(u64, u32), Vec<u8>>,
    snapshots: BTreeMap<u64, Vec<u8>>,
}

/// Records in memory, committed atomically.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<Records>,
    fail_next_commit: Mutex<Option<VfsError>>,
    commits: Mutex<u64>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn records(&self) -> MutexGuard<'_, Records> {
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next commit fails with `error` and changes nothing (as a browser's
    /// QuotaExceededError, or a tab closed mid-transaction, would).
    pub fn fail_next_commit(&self, error: VfsError) {
        *self
            .fail_next_commit
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(error);
    }

    /// Commits that succeeded.
    pub fn commit_count(&self) -> u64 {
        *self.commits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes the stored superblock (to test version and checksum handling).
    pub fn set_superblock(&self, record: Vec<u8>) {
        self.records().superblock = Some(record);
    }

    /// Changes one stored inode record, as bit rot or a bad write would.
    pub fn tamper_inode(&self, ino: u64, edit: impl FnOnce(&mut Vec<u8>)) -> bool {
        self.records().inodes.get_mut(&ino).map(edit).is_some()
    }

    /// Changes one stored chunk.
    pub fn tamper_chunk(&self, blob: u64, index: u32, edit: impl FnOnce(&mut Vec<u8>)) -> bool {
        self.records()
            .chunks
            .get_mut(&(blob, index))
            .map(edit)
            .is_some()
    }

    /// Loses one stored chunk, as a partial write outside a transaction would.
    pub fn remove_chunk(&self, blob: u64, index: u32) -> bool {
        self.records().chunks.remove(&(blob, index)).is_some()
    }

    /// How many chunk records are stored (to check that old contents are collected).
    pub fn chunk_count(&self) -> usize {
        self.records().chunks.len()
    }
}

impl Store for MemoryStore {
    fn load(&self) -> StoreFuture<'_, StoredState> {
        let records = self.records();
        let state = StoredState {
            superblock: records.superblock.clone(),
            snapshot_index: records.snapshot_index.clone(),
            inodes: records
                .inodes
                .iter()
                .map(|(&ino, record)| (ino, record.clone()))
                .collect(),
        };
        Box::pin(async move { Ok(state) })
    }

    fn read_blob(&self, blob: u64) -> StoreFuture<'_, Vec<(u32, Vec<u8>)>> {
        let chunks = self
            .records()
            .chunks
            .range((blob, 0)..=(blob, u32::MAX))
            .map(|(&(_, index), record)| (index, record.clone()))
            .collect();
        Box::pin(async move { Ok(chunks) })
    }

    fn blob_ids(&self) -> StoreFuture<'_, Vec<u64>> {
        let mut ids: Vec<u64> = self
            .records()
            .chunks
            .keys()
            .map(|&(blob, _)| blob)
            .collect();
        ids.dedup();
        Box::pin(async move { Ok(ids) })
    }

    fn read_snapshot(&self, id: u64) -> StoreFuture<'_, Option<Vec<u8>>> {
        let body = self.records().snapshots.get(&id).cloned();
        Box::pin(async move { Ok(body) })
    }

    fn commit(&self, batch: Batch) -> StoreFuture<'_, ()> {
        let failure = self
            .fail_next_commit
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(error) = failure {
            return Box::pin(async move { Err(error) });
        }
        let mut records = self.records();
        if let Some(superblock) = batch.superblock {
            records.superblock = Some(superblock);
        }
        if let Some(index) = batch.snapshot_index {
            records.snapshot_index = Some(index);
        }
        if batch.clear_inodes {
            records.inodes.clear();
        }
        for ino in batch.delete_inodes {
            records.inodes.remove(&ino);
        }
        records.inodes.extend(batch.put_inodes);
        for blob in batch.delete_blobs {
            let doomed: Vec<_> = records
                .chunks
                .range((blob, 0)..=(blob, u32::MAX))
                .map(|(key, _)| *key)
                .collect();
            for key in doomed {
                records.chunks.remove(&key);
            }
        }
        for (blob, index, record) in batch.put_chunks {
            records.chunks.insert((blob, index), record.to_sealed());
        }
        for id in batch.delete_snapshots {
            records.snapshots.remove(&id);
        }
        records.snapshots.extend(batch.put_snapshots);
        drop(records);
        *self.commits.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        Box::pin(async move { Ok(()) })
    }

    fn describe(&self) -> String {
        "memory store".to_owned()
    }
}
