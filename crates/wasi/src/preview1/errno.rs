//! The one mapping from filesystem errors to WASI errno values.

use sandtab_vfs::{ErrorKind, VfsError};
use wasi::Errno;

/// The errno a guest sees for a filesystem error.
pub(super) fn errno_of(err: &VfsError) -> Errno {
    errno_of_kind(err.kind())
}

fn errno_of_kind(kind: ErrorKind) -> Errno {
    match kind {
        ErrorKind::NotFound => wasi::ERRNO_NOENT,
        ErrorKind::AlreadyExists => wasi::ERRNO_EXIST,
        ErrorKind::NotADirectory => wasi::ERRNO_NOTDIR,
        ErrorKind::IsADirectory => wasi::ERRNO_ISDIR,
        ErrorKind::DirectoryNotEmpty => wasi::ERRNO_NOTEMPTY,
        ErrorKind::TooManyLinks => wasi::ERRNO_LOOP,
        ErrorKind::NameTooLong => wasi::ERRNO_NAMETOOLONG,
        ErrorKind::InvalidInput => wasi::ERRNO_INVAL,
        ErrorKind::Busy => wasi::ERRNO_BUSY,
        ErrorKind::QuotaExceeded => wasi::ERRNO_DQUOT,
        ErrorKind::FileTooLarge => wasi::ERRNO_FBIG,
        ErrorKind::OutOfMemory => wasi::ERRNO_NOMEM,
        ErrorKind::NotPermitted => wasi::ERRNO_PERM,
        ErrorKind::ReadOnly => wasi::ERRNO_ROFS,
        ErrorKind::CrossDevice => wasi::ERRNO_XDEV,
        ErrorKind::Io | ErrorKind::Corrupt => wasi::ERRNO_IO,
        ErrorKind::Unsupported => wasi::ERRNO_NOTSUP,
        // ErrorKind is non-exhaustive: a kind added later is at least an I/O error.
        _ => wasi::ERRNO_IO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_errno() {
        let kinds = [
            ErrorKind::NotFound,
            ErrorKind::AlreadyExists,
            ErrorKind::NotADirectory,
            ErrorKind::IsADirectory,
            ErrorKind::DirectoryNotEmpty,
            ErrorKind::TooManyLinks,
            ErrorKind::NameTooLong,
            ErrorKind::InvalidInput,
            ErrorKind::Busy,
            ErrorKind::QuotaExceeded,
            ErrorKind::FileTooLarge,
            ErrorKind::OutOfMemory,
            ErrorKind::NotPermitted,
            ErrorKind::ReadOnly,
            ErrorKind::CrossDevice,
            ErrorKind::Io,
            ErrorKind::Unsupported,
        ];
        let mut seen = std::collections::HashSet::new();
        for kind in kinds {
            let errno = errno_of_kind(kind);
            // The VFS names its kinds by POSIX errno; WASI's names drop the leading E.
            assert_eq!(errno.name(), &kind.errno_name()[1..], "{kind:?}");
            assert!(seen.insert(errno.raw()), "{kind:?} shares an errno");
        }
        assert_eq!(errno_of_kind(ErrorKind::Corrupt), wasi::ERRNO_IO);
    }
}
