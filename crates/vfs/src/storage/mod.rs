//! Persistence: the [`Store`] a backend implements (IndexedDB and OPFS live in the web
//! crate), the stored record format, and [`SandboxFs`], which keeps a [`crate::MemFs`]
//! in step with a store (journal, flush, lazy loading, snapshots, fsck, tar).

mod archive;
mod fsck;
mod memory_store;
pub mod records;
mod sandbox_fs;
mod store;

pub use archive::ImportStats;
pub use fsck::{FsckReport, fsck};
pub use memory_store::MemoryStore;
pub use records::{CHUNK_SIZE, FORMAT_VERSION, SnapshotInfo};
pub use sandbox_fs::{ContentSink, FlushStats, Mount, MountSource, SandboxFs, StoredLocation};
pub use store::{Batch, BlobChunks, ChunkVisitor, Store, StoreFuture, StoredState};
