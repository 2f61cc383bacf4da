//! sandtab's virtual filesystem.
//!
//! Platform-free: it knows nothing of browsers or of the host's files. Paths are
//! normalised so that nothing can name a place outside `/` ([`VfsPath`]), every failure is
//! a [`VfsError`] with an errno-like [`ErrorKind`], and time comes from an injected
//! [`Clock`]. [`MemFs`] keeps everything in memory, within a [`Quota`]; persistent
//! backends build on it.

mod clock;
mod error;
mod memory;
mod metadata;
mod path;
mod quota;
pub mod storage;
pub mod tar_format;
mod write_budget;

pub use clock::{Clock, ManualClock, Timestamp};
pub use error::{ErrorKind, VfsError, VfsResult};
pub use memory::{FileHandle, MAX_FILE_SIZE, MemFs, MountKind};
pub use metadata::{DirEntry, FileKind, Metadata, Usage};
pub use path::{MAX_NAME_LEN, MAX_PATH_LEN, VfsPath};
pub use quota::Quota;
pub use storage::{FsckReport, Mount, MountSource, SandboxFs, Store};
pub use write_budget::WriteBudget;
