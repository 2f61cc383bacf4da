//! WASI preview1 (`wasi_snapshot_preview1`) over sandtab's VFS, plus the `sandtab`
//! import module.
//!
//! Every host function is a synchronous operation on the guest's memory and the
//! [`WasiCtx`]. One that must wait (contents still in storage, stdin not yet written,
//! stdout full, a sleep, a host call) returns [`Block`] *before it changes anything*;
//! the call then traps with [`Blocked`], the runner awaits what the block names, and
//! runs the same operation again, which now completes. So every wait is an ordinary
//! `await` in the runner, and the guest never knows.

mod device;
mod errno;
mod fd;
// The host functions take the WASI ABI's parameters one to one.
#[allow(clippy::too_many_arguments)]
mod fs;
mod link;
mod memory;
// The host functions take the WASI ABI's parameters one to one.
#[allow(clippy::too_many_arguments)]
mod misc;
#[allow(clippy::too_many_arguments)]
mod path;
mod poll;
mod resolve;

pub(crate) use device::DEVICE_PARENT;
pub(crate) use fd::{Fd, WasiCtx};
pub(crate) use link::{HostFn, add_to_linker, host_fn, is_provided, may_wait};
pub(crate) use memory::Mem;

use crate::{Limit, NonLending};
use sandtab_vfs::VfsPath;
use wasi::Errno;

/// What a host function waits for before it can complete.
#[derive(Debug)]
pub(crate) enum Block {
    /// The file's contents are still in storage.
    Load { path: VfsPath, for_write: bool },
    /// stdin has no buffered bytes and has not ended.
    Stdin,
    /// Buffered output must reach the host first (backpressure).
    Flush,
    /// Nothing is ready until the monotonic clock reaches this time.
    Sleep { until_ns: u64 },
    /// `sched_yield`: let the event loop run once.
    Yield,
    /// A host call whose answer the guest waits for.
    HostCall { name: String, args: String },
    /// The device open as `fd` has a request for the host (see `device`).
    Device { fd: u32 },
}

/// How a host function failed to complete.
pub(crate) enum Fail {
    /// The guest sees this errno.
    Errno(Errno),
    /// Wait, then run the operation again.
    Block(Block),
    /// Stop the guest: it exited, or broke a limit.
    Stop(Stop),
    /// The call was malformed (a value outside its enum or flags type): the guest
    /// traps, as WASI requires and wasmtime does.
    Trap(String),
}

/// Traps unless `value` has only bits of `allowed`.
pub(crate) fn check_bits(what: &str, value: u64, allowed: u64) -> Result<(), Fail> {
    if value & !allowed != 0 {
        return Err(Fail::Trap(format!("invalid {what} value {value:#x}")));
    }
    Ok(())
}

/// The host error a malformed call traps with, naming the function and the cause.
#[derive(Debug)]
pub(crate) struct Trap(pub(crate) String);

impl std::fmt::Display for Trap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl wasmi::errors::HostError for Trap {}

/// Why a guest stops from inside a host function (`proc_exit` is wasmi's own exit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Limit(Limit),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Limit(limit) => write!(f, "{limit}"),
        }
    }
}

impl wasmi::errors::HostError for Stop {}

impl From<Errno> for Fail {
    fn from(errno: Errno) -> Self {
        Self::Errno(errno)
    }
}

impl From<sandtab_vfs::VfsError> for Fail {
    fn from(err: sandtab_vfs::VfsError) -> Self {
        Self::Errno(errno::errno_of(&err))
    }
}

type Res = Result<(), Fail>;

/// The host error a blocked call traps with; the runner resumes the call.
#[derive(Debug)]
pub(crate) struct Blocked;

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("host call waiting")
    }
}

impl wasmi::errors::HostError for Blocked {}

/// A host operation, kept to be run again once its block is resolved. It sees the
/// guest's memory as a [`Mem`]: any [`GuestMemory`] ([`Mem::new`]), or wasmi's slice
/// directly ([`Mem::lent`], the same without a virtual call per access).
pub(crate) type Operation = Box<dyn FnMut(&mut Mem<'_>, &mut WasiCtx) -> Res + Send>;

/// Runs `operation` on wasmi's memory `data`: lent as it is, or, when the run asked for
/// it (`testing::with_non_lending_memory`), through a memory that only copies, as a
/// JS memory would be.
#[inline]
pub(crate) fn on_memory<R>(
    data: &mut [u8],
    non_lending: bool,
    operation: impl FnOnce(&mut Mem<'_>) -> R,
) -> R {
    if non_lending {
        return through_copies(data, operation);
    }
    operation(&mut Mem::lent(data))
}

/// `on_memory`'s test path, kept out of line: the wasmi path is the straight one.
#[cold]
#[inline(never)]
fn through_copies<R>(data: &mut [u8], operation: impl FnOnce(&mut Mem<'_>) -> R) -> R {
    operation(&mut Mem::new(&mut NonLending::new(data)))
}

/// A blocked call: what it waits for, and the operation to run again.
pub(crate) struct Pending {
    pub(crate) block: Block,
    pub(crate) operation: Operation,
}

/// What running an operation again gave.
pub(crate) enum Retried {
    /// It completed: resume the guest with this errno.
    Done(Errno),
    /// It must wait again.
    Blocked(Block, Operation),
    /// The guest stops.
    Stop(Stop),
    /// The guest traps.
    Trap(String),
}

/// Runs `operation` again after its block was resolved.
pub(crate) fn retry(memory: &mut Mem<'_>, ctx: &mut WasiCtx, mut operation: Operation) -> Retried {
    match operation(memory, ctx) {
        Ok(()) => Retried::Done(wasi::ERRNO_SUCCESS),
        Err(Fail::Errno(errno)) if errno == wasi::ERRNO_FAULT => {
            Retried::Trap("a pointer outside the guest's memory".to_owned())
        }
        Err(Fail::Errno(errno)) => Retried::Done(errno),
        Err(Fail::Block(block)) => Retried::Blocked(block, operation),
        Err(Fail::Stop(stop)) => Retried::Stop(stop),
        Err(Fail::Trap(message)) => Retried::Trap(message),
    }
}
