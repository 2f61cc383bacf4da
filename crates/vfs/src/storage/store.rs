//! What a storage backend provides: a handful of keyed record sets and one atomic commit.

use crate::error::VfsResult;
use crate::storage::records::ChunkRecord;
use std::future::Future;
use std::pin::Pin;

/// A backend's answer. `Send` so the shell's filesystem (which bashkit requires to be
/// `Send`) can await it; browser backends, single-threaded, wrap theirs.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = VfsResult<T>> + Send + 'a>>;

/// A blob's sealed chunks as (index, record), in index order.
pub type BlobChunks = Vec<(u32, Vec<u8>)>;

/// Receives a blob's sealed chunks one at a time: (index, record).
pub type ChunkVisitor<'a> = dyn FnMut(u32, &[u8]) -> VfsResult<()> + Send + 'a;

/// Everything read when a sandbox opens: records only, never file contents.
#[derive(Debug, Default, Clone)]
pub struct StoredState {
    /// The sealed superblock; `None` for a sandbox never written.
    pub superblock: Option<Vec<u8>>,
    pub snapshot_index: Option<Vec<u8>>,
    /// Sealed inode records by inode number.
    pub inodes: Vec<(u64, Vec<u8>)>,
}

/// One atomic change to a store: all of it lands, or none of it.
#[derive(Debug, Default, Clone)]
pub struct Batch {
    pub superblock: Option<Vec<u8>>,
    pub snapshot_index: Option<Vec<u8>>,
    /// Delete every inode record before the puts (restoring a snapshot).
    pub clear_inodes: bool,
    pub put_inodes: Vec<(u64, Vec<u8>)>,
    pub delete_inodes: Vec<u64>,
    /// Chunks: (blob, index, record). Blobs are written once, never changed.
    pub put_chunks: Vec<(u64, u32, ChunkRecord)>,
    /// Blobs whose chunks all go.
    pub delete_blobs: Vec<u64>,
    pub put_snapshots: Vec<(u64, Vec<u8>)>,
    pub delete_snapshots: Vec<u64>,
}

impl Batch {
    /// How many records it writes or deletes.
    pub fn record_count(&self) -> usize {
        usize::from(self.superblock.is_some())
            + usize::from(self.snapshot_index.is_some())
            + self.put_inodes.len()
            + self.delete_inodes.len()
            + self.put_chunks.len()
            + self.delete_blobs.len()
            + self.put_snapshots.len()
            + self.delete_snapshots.len()
    }

    /// Bytes of records it writes.
    pub fn byte_count(&self) -> usize {
        self.put_inodes.iter().map(|(_, r)| r.len()).sum::<usize>()
            + self
                .put_chunks
                .iter()
                .map(|(_, _, r)| r.len())
                .sum::<usize>()
            + self
                .put_snapshots
                .iter()
                .map(|(_, r)| r.len())
                .sum::<usize>()
    }
}

/// A place a sandbox's records live. Implementations must make [`Store::commit`] atomic:
/// a crash during it leaves the store as the previous commit left it.
pub trait Store: Send + Sync {
    /// The superblock, the snapshot index and every inode record.
    fn load(&self) -> StoreFuture<'_, StoredState>;
    /// A blob's sealed chunks as (index, record), in index order.
    fn read_blob(&self, blob: u64) -> StoreFuture<'_, Vec<(u32, Vec<u8>)>>;
    /// Several blobs' chunks at once, given how many chunks each should have (from the
    /// file sizes): a backend may read them in one transaction, one direct read per
    /// chunk. A missing chunk is simply absent from the answer (the caller reports it).
    fn read_blobs<'a>(&'a self, blobs: &'a [(u64, u32)]) -> StoreFuture<'a, Vec<BlobChunks>> {
        Box::pin(async move {
            let mut all = Vec::with_capacity(blobs.len());
            for &(blob, _) in blobs {
                all.push(self.read_blob(blob).await?);
            }
            Ok(all)
        })
    }
    /// Passes a blob's first `count` sealed chunks to `visit` in index order, each lent
    /// for the call only, so a large file can be read without holding all its chunks at
    /// once. A missing chunk is simply skipped (the caller reports it).
    fn visit_blob<'a>(
        &'a self,
        blob: u64,
        count: u32,
        visit: &'a mut ChunkVisitor<'_>,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let wanted = [(blob, count)];
            for chunks in self.read_blobs(&wanted).await? {
                for (index, sealed) in chunks {
                    visit(index, &sealed)?;
                }
            }
            Ok(())
        })
    }
    /// Every blob that has at least one chunk (for `fsck`).
    fn blob_ids(&self) -> StoreFuture<'_, Vec<u64>>;
    /// A snapshot's sealed body.
    fn read_snapshot(&self, id: u64) -> StoreFuture<'_, Option<Vec<u8>>>;
    /// Applies `batch` atomically.
    fn commit(&self, batch: Batch) -> StoreFuture<'_, ()>;
    /// What it is, for messages ("IndexedDB database sandtab:demo").
    fn describe(&self) -> String;
}
