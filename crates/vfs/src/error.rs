//! The one error type of the filesystem. Every failure maps to exactly one errno, so the
//! shell and WASI guests report the same thing bash or a POSIX program would.

use std::fmt;

/// What went wrong, as the POSIX errno a program would see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// ENOENT: no such file or directory.
    NotFound,
    /// EEXIST: the path already exists.
    AlreadyExists,
    /// ENOTDIR: a path component is not a directory.
    NotADirectory,
    /// EISDIR: the operation needs a file, the path is a directory.
    IsADirectory,
    /// ENOTEMPTY: the directory is not empty.
    DirectoryNotEmpty,
    /// ELOOP: too many symbolic links while resolving the path.
    TooManyLinks,
    /// ENAMETOOLONG: a component or the whole path is too long.
    NameTooLong,
    /// EINVAL: the path or argument is malformed (for example a NUL byte, or moving a
    /// directory into itself).
    InvalidInput,
    /// EBUSY: the root cannot be removed or renamed.
    Busy,
    /// EDQUOT: the filesystem's byte or entry quota would be exceeded.
    QuotaExceeded,
    /// EFBIG: the file would exceed the largest file size allowed.
    FileTooLarge,
    /// EPERM: the operation is never allowed on this entry (a hard link to a directory).
    NotPermitted,
}

impl ErrorKind {
    /// The POSIX name, for messages and for the guest errno mapping.
    pub fn errno_name(self) -> &'static str {
        match self {
            Self::NotFound => "ENOENT",
            Self::AlreadyExists => "EEXIST",
            Self::NotADirectory => "ENOTDIR",
            Self::IsADirectory => "EISDIR",
            Self::DirectoryNotEmpty => "ENOTEMPTY",
            Self::TooManyLinks => "ELOOP",
            Self::NameTooLong => "ENAMETOOLONG",
            Self::InvalidInput => "EINVAL",
            Self::Busy => "EBUSY",
            Self::QuotaExceeded => "EDQUOT",
            Self::FileTooLarge => "EFBIG",
            Self::NotPermitted => "EPERM",
        }
    }

    /// The text `strerror` gives, so shell messages read like bash's.
    pub fn description(self) -> &'static str {
        match self {
            Self::NotFound => "No such file or directory",
            Self::AlreadyExists => "File exists",
            Self::NotADirectory => "Not a directory",
            Self::IsADirectory => "Is a directory",
            Self::DirectoryNotEmpty => "Directory not empty",
            Self::TooManyLinks => "Too many levels of symbolic links",
            Self::NameTooLong => "File name too long",
            Self::InvalidInput => "Invalid argument",
            Self::Busy => "Device or resource busy",
            Self::QuotaExceeded => "Disk quota exceeded",
            Self::FileTooLarge => "File too large",
            Self::NotPermitted => "Operation not permitted",
        }
    }
}

/// A failed filesystem operation: its kind and the path it concerned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct VfsError {
    kind: ErrorKind,
    path: String,
}

impl VfsError {
    pub(crate) fn new(kind: ErrorKind, path: impl Into<String>) -> Self {
        Self {
            kind,
            path: path.into(),
        }
    }

    /// The errno-like kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The path the operation failed on, as the caller gave it or as resolved.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for VfsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.kind.description())
    }
}

/// Result of a filesystem operation.
pub type VfsResult<T> = Result<T, VfsError>;
