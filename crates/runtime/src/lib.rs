//! sandtab's sandbox as a whole, on no platform in particular: a [`Sandbox`] opened from
//! [`SandboxOptions`] over a [`Platform`] (the browser's, Node's, the CLI's, or a test's
//! fakes) answers [`Op`]s with [`Reply`]s. The browser worker speaks the same [`Op`]s,
//! and a recording is a list of them.

pub mod bytes;
pub mod config;
pub mod error;
pub mod protocol;

pub use bytes::Bytes;
pub use config::{GuestTier, SandboxOptions, SandboxSetup, StorageKind};
pub use error::{RuntimeError, RuntimeResult};
pub use protocol::{ExecRequest, ExecResult, FileStat, FileToWrite, Op, PROTOCOL_VERSION, Reply};

mod exec;
mod file_ops;
pub mod handoff;
pub mod platform;
mod recorder;
pub mod recording;
mod sandbox;
mod stdin;
mod tools;

pub use platform::Platform;
pub use sandbox::{OutputSink, Sandbox};
