//! sandtab's virtual filesystem.
//!
//! Platform-free: it knows nothing of browsers or of the host's files. Paths are
//! normalised so that nothing can name a place outside `/` ([`VfsPath`]), every failure is
//! a [`VfsError`] with an errno-like [`ErrorKind`], and time comes from an injected
//! [`Clock`]. [`MemFs`] keeps everything in memory; persistent backends build on it.

mod clock;
mod error;
mod memory;
mod path;

pub use clock::{Clock, ManualClock, Timestamp};
pub use error::{ErrorKind, VfsError, VfsResult};
pub use memory::{DirEntry, FileKind, MAX_FILE_SIZE, MemFs, Metadata, Quota, Usage};
pub use path::{MAX_NAME_LEN, MAX_PATH_LEN, VfsPath};
