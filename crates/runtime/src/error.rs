//! The runtime's one error type: a stable code and a message, as every host shows it
//! (a JS `Error` with `code`, a CLI message, a Node rejection).

use sandtab_caps::Denial;
use sandtab_shell::ShellError;
use sandtab_vfs::VfsError;
use serde::{Deserialize, Serialize};

/// A stable reason code and a message naming what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[error("{message}")]
pub struct RuntimeError {
    /// `CAP_...` for a refusal at the gate, the errno name (`ENOENT`, `EDQUOT`, ...) for
    /// a filesystem error, or one of [`RuntimeError`]'s own: `EINVAL` (bad input),
    /// `EBUSY` (another operation holds the sandbox), `ENOTSUP`, `EPROTO` (a message of
    /// another protocol version).
    pub code: String,
    /// What went wrong, for a person.
    pub message: String,
}

impl RuntimeError {
    /// An error with `code`.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// Bad input: an option, an argument, a path.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new("EINVAL", message)
    }

    /// Another command or recorded operation is running.
    pub fn busy() -> Self {
        Self::new("EBUSY", "sandbox is busy: another command is still running")
    }

    /// Something this sandbox or host cannot do.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new("ENOTSUP", message)
    }
}

impl From<VfsError> for RuntimeError {
    fn from(err: VfsError) -> Self {
        Self::new(err.kind().errno_name(), err.to_string())
    }
}

impl From<Denial> for RuntimeError {
    fn from(denial: Denial) -> Self {
        Self::new(denial.code.as_str(), denial.to_string())
    }
}

impl From<ShellError> for RuntimeError {
    fn from(err: ShellError) -> Self {
        match err {
            ShellError::Filesystem(vfs) => vfs.into(),
            other => Self::invalid(other.to_string()),
        }
    }
}

/// The runtime's results.
pub type RuntimeResult<T> = Result<T, RuntimeError>;
