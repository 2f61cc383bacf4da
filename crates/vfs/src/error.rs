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
    /// ENOMEM: the runtime could not get the memory the operation needs.
    OutOfMemory,
    /// EPERM: the operation is never allowed on this entry (a hard link to a directory).
    NotPermitted,
    /// EROFS: the path is on a read-only mount.
    ReadOnly,
    /// EXDEV: a rename or hard link would cross from one mount to another.
    CrossDevice,
    /// EIO: the storage below the filesystem failed (the browser refused a transaction,
    /// a file's stored contents are missing).
    Io,
    /// EUCLEAN: stored data failed its checksum or does not fit together; `fsck` says where.
    Corrupt,
    /// ENOTSUP: the stored data is in a format this build does not read.
    Unsupported,
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
            Self::OutOfMemory => "ENOMEM",
            Self::NotPermitted => "EPERM",
            Self::ReadOnly => "EROFS",
            Self::CrossDevice => "EXDEV",
            Self::Io => "EIO",
            Self::Corrupt => "EUCLEAN",
            Self::Unsupported => "ENOTSUP",
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
            Self::OutOfMemory => "Cannot allocate memory",
            Self::NotPermitted => "Operation not permitted",
            Self::ReadOnly => "Read-only file system",
            Self::CrossDevice => "Invalid cross-device link",
            Self::Io => "Input/output error",
            Self::Corrupt => "Structure needs cleaning",
            Self::Unsupported => "Operation not supported",
        }
    }
}

/// A failed filesystem operation: its kind, the path it concerned and, for storage
/// failures, what the storage said.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct VfsError {
    kind: ErrorKind,
    path: String,
    detail: Option<String>,
}

impl VfsError {
    /// An error about `path`. Storage backends outside this crate build theirs with it.
    pub fn new(kind: ErrorKind, path: impl Into<String>) -> Self {
        Self {
            kind,
            path: path.into(),
            detail: None,
        }
    }

    /// Adds an explanation shown after the errno text (which record, what the browser said).
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The explanation, if any.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
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
        write!(f, "{}: {}", self.path, self.kind.description())?;
        if let Some(detail) = &self.detail {
            write!(f, " ({detail})")?;
        }
        Ok(())
    }
}

/// Result of a filesystem operation.
pub type VfsResult<T> = Result<T, VfsError>;
