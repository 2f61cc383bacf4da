//! sandtab's guest engine: WASI preview1 programs, interpreted by `wasmi`, on a
//! sandbox's files, under hard limits.
//!
//! - [`GuestEngine`] compiles modules once and caches them by the SHA-256 of their bytes.
//! - [`run`] runs a command module's `_start` in fuel slices; between slices, and
//!   whenever the guest waits (stdin, a full stdout, a sleep, a host call), it awaits
//!   the [`GuestIo`] the caller provides, so the page's event loop keeps running.
//! - `preview1` implements every `wasi_snapshot_preview1` function over
//!   [`sandtab_vfs::SandboxFs`]; the `sandtab` import module gives guests host calls.
//!
//! - [`GuestMemory`] is the guest's linear memory as the WASI host reaches it: lent as
//!   a slice (wasmi's) or only copied in and out (a browser engine's
//!   `WebAssembly.Memory`); every preview1 operation works on either.
//!
//! Platform-free: the browser worker and the native CLI provide the [`GuestIo`].

mod engine;
mod error;
pub mod foreign;
#[cfg(not(target_family = "wasm"))]
mod grow_calls;
mod guest_memory;
mod io;
mod limiter;
mod limits;
mod prescan;
mod preview1;
mod run;
mod start_export;

pub use engine::{CompiledModule, GuestEngine, ModuleHash};
pub use error::{GuestError, Limit};
pub use guest_memory::GuestMemory;
#[doc(hidden)]
pub use guest_memory::{NonLending, testing};
#[cfg(not(target_family = "wasm"))]
pub use io::NativeHost;
pub use io::{BoxFuture, GuestHost, GuestIo, OutStream, Platform};
pub use limits::GuestLimits;
pub use run::{ClockMode, GuestRun, RandomMode, RunOutcome, run};

/// Exit status of a guest stopped by a limit (128 + SIGKILL, as a killed process).
pub const EXIT_LIMIT: i32 = 137;
/// Exit status of a guest cancelled from the page (128 + SIGINT).
pub const EXIT_CANCELLED: i32 = 130;
