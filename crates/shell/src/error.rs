//! The shell crate's one error type. A script's own failures are not errors here: they
//! come back as an exit status and stderr, as in a terminal.

/// A shell session could not be set up as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShellError {
    /// A limit has a value the shell cannot run with.
    #[error("invalid shell limit `{name}`: {reason}")]
    InvalidLimit {
        /// The limit's field name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A session name that is empty, too long or not printable.
    #[error("invalid session name {0:?}: use 1 to 64 letters, digits, '-', '_' or '.'")]
    InvalidSessionName(String),
    /// A new session past the most a sandbox holds.
    #[error("too many shell sessions: a sandbox holds at most {0}; close one first")]
    TooManySessions(usize),
    /// A file tool (`read_file`, `write_file`, `edit_file`) could not do what it was
    /// asked; nothing was changed.
    #[error("{0}")]
    FileTool(String),
    /// A session's carried state that does not read back.
    #[error("a session's state does not read back: {0}")]
    InvalidSessionState(String),
    /// An exec's option (`env`, `cwd`) that cannot be used; nothing ran.
    #[error("exec options: {0}")]
    InvalidExecOption(String),
    /// The starting file tree could not be made.
    #[error("{0}")]
    Filesystem(#[from] sandtab_vfs::VfsError),
}
