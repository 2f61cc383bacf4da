//! Limits on what a filesystem may hold.

/// Limits on what a filesystem may hold. A write that would pass one fails with
/// [`ErrorKind::QuotaExceeded`] (or [`ErrorKind::FileTooLarge`]) and changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Bytes in all regular files and symlink targets together.
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
