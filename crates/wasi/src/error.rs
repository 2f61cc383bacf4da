//! The guest engine's one error type.

use std::fmt;

/// A limit a guest ran into. Each names the [`crate::GuestLimits`] field that sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Instructions executed (`fuel`).
    Fuel(u64),
    /// Linear memory, in bytes (`memory_bytes`).
    Memory(u64),
    /// Table elements (`table_elements`).
    Table(u64),
    /// Instances, memories or tables created (`instances`).
    Instances(u64),
    /// Nested calls (`call_depth`).
    CallDepth(u64),
    /// Wall-clock time, in milliseconds (`deadline_ms`).
    Deadline(u64),
    /// Bytes written to stdout and stderr together (`output_bytes`).
    Output(u64),
    /// The browser engine's stack, on the engine tier: recursion deeper than it holds
    /// (set by the engine, not by a field; `call_depth` is the interpreter's).
    EngineStack,
}

impl Limit {
    /// The [`crate::GuestLimits`] field that sets this limit.
    pub fn field(self) -> &'static str {
        match self {
            Self::Fuel(_) => "fuel",
            Self::Memory(_) => "memory_bytes",
            Self::Table(_) => "table_elements",
            Self::Instances(_) => "instances",
            Self::CallDepth(_) => "call_depth",
            Self::Deadline(_) => "deadline_ms",
            Self::Output(_) => "output_bytes",
            Self::EngineStack => "call_depth",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Fuel(n) => write!(f, "fuel limit of {n} instructions reached"),
            Self::Memory(n) => write!(f, "memory limit of {} MiB reached", n >> 20),
            Self::Table(n) => write!(f, "table limit of {n} elements reached"),
            Self::Instances(n) => write!(f, "instance limit of {n} reached"),
            Self::CallDepth(n) => write!(f, "call depth limit of {n} nested calls reached"),
            Self::Deadline(n) => write!(f, "time limit of {n} ms reached"),
            Self::Output(n) => write!(f, "output limit of {n} bytes reached"),
            Self::EngineStack => {
                f.write_str("the engine's stack ran out: recursion too deep for the engine tier")
            }
        }?;
        write!(f, " [{}]", self.field())
    }
}

/// Why a guest could not run, or how it ended other than by exiting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuestError {
    /// The bytes are not a valid WebAssembly module.
    #[error("not a valid WebAssembly module: {0}")]
    Malformed(String),
    /// The module is valid WebAssembly but exceeds what a guest tier supports (the
    /// interpreter's translation, the meter's rewrite, the engine's compiler).
    #[error("the module cannot run in sandtab: {0}")]
    Unsupported(String),
    /// The module imports functions this runtime does not provide.
    #[error("the module imports what sandtab does not provide: {}", .0.join(", "))]
    UnknownImports(Vec<String>),
    /// The module is not a WASI command (no `_start` export, or it is not a function).
    #[error("the module is not a WASI command: it exports no `_start` function{0}")]
    NotACommand(String),
    /// The module's SHA-256 is not the one the caller demanded.
    #[error("module hash mismatch: expected {expected}, got {actual}")]
    HashMismatch {
        /// The hash the caller pinned.
        expected: String,
        /// The module's actual hash.
        actual: String,
    },
    /// The guest trapped (a bug in the program, or an `unreachable`).
    #[error("the program crashed: {0}")]
    Trap(String),
    /// The guest ran into a limit.
    #[error("{0}")]
    Limit(Limit),
    /// The page cancelled the run.
    #[error("cancelled")]
    Cancelled,
    /// The host's I/O failed (for example stdout's reader went away).
    #[error("host I/O failed: {0}")]
    Io(String),
    /// Limits or options that make no sense.
    #[error("invalid guest option: {0}")]
    InvalidOption(String),
}

impl GuestError {
    /// The exit status a shell reports for a run that ended with this error.
    pub fn exit_status(&self) -> i32 {
        match self {
            Self::Limit(_) => crate::EXIT_LIMIT,
            Self::Cancelled => crate::EXIT_CANCELLED,
            // As a shell reports a program that cannot be executed.
            Self::Malformed(_)
            | Self::Unsupported(_)
            | Self::UnknownImports(_)
            | Self::NotACommand(_)
            | Self::HashMismatch { .. }
            | Self::InvalidOption(_) => 126,
            // As a process killed by SIGABRT/SIGILL would be seen.
            Self::Trap(_) => 134,
            Self::Io(_) => 1,
        }
    }
}
