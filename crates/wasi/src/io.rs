//! What a guest run needs from its host: standard streams, time, randomness, a way to
//! let the event loop run, and host calls (which the shell sends through its gate).
//! The browser worker and the CLI implement it.

use std::future::Future;
use std::pin::Pin;

/// A boxed future, `Send` so that runs can live inside the shell's futures.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutStream {
    /// Standard output (fd 1).
    Stdout,
    /// Standard error (fd 2).
    Stderr,
}

/// The host side of one guest run.
pub trait GuestIo: Send {
    /// The next piece of standard input; `Ok(None)` at end of input. Awaiting it is
    /// how a guest in a pipeline waits for the command before it.
    fn read_stdin(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>>;
    /// Whether the `read_stdin` that just gave `Ok(None)` was an interrupt (Ctrl-C
    /// typed while the guest waited for the terminal) rather than the end of input:
    /// the guest's read then fails with ECANCELED, and its stdin goes on. Only a guest
    /// that asked for interrupts gets them (sandtab's CPython raises
    /// `KeyboardInterrupt`); to others Ctrl-C stops the command.
    fn take_interrupt(&mut self) -> bool {
        false
    }
    /// Delivers output. Awaiting it is backpressure: a slow reader slows the guest.
    fn write(&mut self, stream: OutStream, bytes: Vec<u8>) -> BoxFuture<'_, Result<(), String>>;
    /// Lets the host's event loop run (in the browser: one macrotask).
    fn yield_now(&mut self) -> BoxFuture<'_, ()>;
    /// Waits `nanos` nanoseconds (or until cancelled).
    fn sleep(&mut self, nanos: u64) -> BoxFuture<'_, ()>;
    /// Whether the page asked the run to stop.
    fn cancelled(&self) -> bool;
    /// A host call from the guest (`sandtab.tool_call`): `args` is JSON, the answer is
    /// JSON, an error is a message the guest sees.
    fn host_call(&mut self, name: String, args: String) -> BoxFuture<'_, Result<String, String>> {
        let _ = args;
        Box::pin(async move { Err(format!("no host function `{name}` is granted")) })
    }
    /// A guest's request on the device file `/dev/sandtab/NAME`: the bytes it wrote;
    /// the answer is the bytes it reads back. An error makes its read fail with EIO.
    fn device(&mut self, name: String, request: Vec<u8>) -> BoxFuture<'_, Result<Vec<u8>, String>> {
        let _ = request;
        Box::pin(async move { Err(format!("no device `{name}`")) })
    }
}

/// Time and randomness from the platform, read synchronously by the guest's calls.
pub trait Platform: Send + Sync {
    /// Nanoseconds since the Unix epoch.
    fn realtime_ns(&self) -> u64;
    /// Nanoseconds on a clock that never goes back.
    fn monotonic_ns(&self) -> u64;
    /// Fills `buf` with random bytes from the platform's secure source.
    fn random(&self, buf: &mut [u8]) -> Result<(), String>;
}

/// What every guest of a sandbox gets from the platform: time, randomness, a way to
/// let the event loop run, and sleeping.
pub trait GuestHost: Platform {
    /// Lets the event loop run once (in the browser: one `MessageChannel` macrotask).
    fn yield_now(&self) -> BoxFuture<'static, ()>;
    /// Waits `nanos` nanoseconds.
    fn sleep(&self, nanos: u64) -> BoxFuture<'static, ()>;
    /// The engine tier guests run on, if this platform has one and the sandbox chose it
    /// (see [`crate::foreign`]); `None`: the interpreter.
    fn engine_tier(&self) -> Option<&dyn crate::foreign::EngineTier> {
        None
    }
}

/// The native platform: the system clocks and random source, sleeping the thread.
#[cfg(not(target_family = "wasm"))]
#[derive(Debug)]
pub struct NativeHost {
    start: std::time::Instant,
}

#[cfg(not(target_family = "wasm"))]
impl Default for NativeHost {
    fn default() -> Self {
        #[allow(clippy::disallowed_methods)] // native only: this type is not built for wasm
        let start = std::time::Instant::now();
        Self { start }
    }
}

#[cfg(not(target_family = "wasm"))]
impl Platform for NativeHost {
    fn realtime_ns(&self) -> u64 {
        #[allow(clippy::disallowed_methods)] // native only
        let now = std::time::SystemTime::now();
        now.duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
    fn monotonic_ns(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
    fn random(&self, buf: &mut [u8]) -> Result<(), String> {
        getrandom::fill(buf).map_err(|err| err.to_string())
    }
}

#[cfg(not(target_family = "wasm"))]
impl GuestHost for NativeHost {
    fn yield_now(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
    fn sleep(&self, nanos: u64) -> BoxFuture<'static, ()> {
        // The native runner drives one guest at a time on its thread.
        std::thread::sleep(std::time::Duration::from_nanos(nanos));
        Box::pin(async {})
    }
}
