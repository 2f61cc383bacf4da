//! Registers the host functions with wasmi and turns their outcomes into what the
//! guest sees: an errno, a trap the runner resumes, an exit, or a limit.

use super::memory::Mem;
use super::{Blocked, Fail, Pending, Res, Trap, WasiCtx, fs, misc, on_memory, path, poll};
use crate::run::GuestState;
use wasmi::{Caller, Extern, Linker};

const WASI: &str = "wasi_snapshot_preview1";
const SANDTAB: &str = "sandtab";

/// Runs one host operation on the caller's memory and WASI state.
fn dispatch(
    caller: &mut Caller<'_, GuestState>,
    name: &'static str,
    mut operation: impl FnMut(&mut Mem<'_>, &mut WasiCtx) -> Res + Send + 'static,
) -> Result<i32, wasmi::Error> {
    let memory = match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => Some(memory),
        _ => None,
    };
    let outcome = match memory {
        Some(memory) => {
            let (data, state) = memory.data_and_store_mut(&mut *caller);
            on_memory(data, state.non_lending, |memory| {
                operation(memory, &mut state.wasi)
            })
        }
        None => {
            let state = caller.data_mut();
            on_memory(&mut [], state.non_lending, |memory| {
                operation(memory, &mut state.wasi)
            })
        }
    };
    match outcome {
        Ok(()) => Ok(0),
        // An address outside memory traps (the WASI ABI says so, and wasmtime does).
        Err(Fail::Errno(errno)) if errno == wasi::ERRNO_FAULT => Err(wasmi::Error::host(Trap(
            format!("{WASI}::{name}: a pointer outside the guest's memory"),
        ))),
        Err(Fail::Errno(errno)) => Ok(i32::from(errno.raw())),
        Err(Fail::Trap(message)) => Err(wasmi::Error::host(Trap(format!(
            "{WASI}::{name}: {message}"
        )))),
        Err(Fail::Block(block)) => {
            caller.data_mut().pending = Some(Pending {
                block,
                operation: Box::new(operation),
            });
            Err(wasmi::Error::host(Blocked))
        }
        Err(Fail::Stop(stop)) => Err(wasmi::Error::host(stop)),
    }
}

/// Whether `module.name` is a function this runtime provides.
pub(crate) fn is_provided(module: &str, name: &str) -> bool {
    match module {
        WASI => WASI_NAMES.contains(&name),
        SANDTAB => name == "tool_call",
        _ => false,
    }
}

const WASI_NAMES: [&str; 46] = [
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "clock_res_get",
    "clock_time_get",
    "fd_advise",
    "fd_allocate",
    "fd_close",
    "fd_datasync",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_fdstat_set_rights",
    "fd_filestat_get",
    "fd_filestat_set_size",
    "fd_filestat_set_times",
    "fd_pread",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "fd_pwrite",
    "fd_read",
    "fd_readdir",
    "fd_renumber",
    "fd_seek",
    "fd_sync",
    "fd_tell",
    "fd_write",
    "path_create_directory",
    "path_filestat_get",
    "path_filestat_set_times",
    "path_link",
    "path_open",
    "path_readlink",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
    "poll_oneoff",
    "proc_exit",
    "proc_raise",
    "random_get",
    "sched_yield",
    "sock_accept",
    "sock_recv",
    "sock_send",
    "sock_shutdown",
];

/// Calls `$then!` with the host functions every guest may import, as
/// `module: "name" => implementation, (parameters);` lines: the one list both tiers
/// link from.
macro_rules! host_functions {
    ($then:ident!($($pass:tt)*)) => {
        $then!($($pass)*
            WASI:
            "args_get" => misc::args_get, (argv: i32, buf: i32);
            "args_sizes_get" => misc::args_sizes_get, (count: i32, size: i32);
            "environ_get" => misc::environ_get, (environ: i32, buf: i32);
            "environ_sizes_get" => misc::environ_sizes_get, (count: i32, size: i32);
            "clock_res_get" => misc::clock_res_get, (id: i32, out: i32);
            "clock_time_get" => misc::clock_time_get, (id: i32, precision: i64, out: i32);
            "fd_advise" => fs::fd_advise, (fd: i32, offset: i64, len: i64, advice: i32);
            "fd_allocate" => fs::fd_allocate, (fd: i32, offset: i64, len: i64);
            "fd_close" => fs::fd_close, (fd: i32);
            "fd_datasync" => fs::fd_sync, (fd: i32);
            "fd_fdstat_get" => fs::fd_fdstat_get, (fd: i32, out: i32);
            "fd_fdstat_set_flags" => fs::fd_fdstat_set_flags, (fd: i32, flags: i32);
            "fd_fdstat_set_rights" => fs::fd_fdstat_set_rights, (fd: i32, base: i64, inheriting: i64);
            "fd_filestat_get" => fs::fd_filestat_get, (fd: i32, out: i32);
            "fd_filestat_set_size" => fs::fd_filestat_set_size, (fd: i32, size: i64);
            "fd_filestat_set_times" => fs::fd_filestat_set_times, (fd: i32, atim: i64, mtim: i64, flags: i32);
            "fd_pread" => fs::fd_pread, (fd: i32, iovs: i32, count: i32, offset: i64, out: i32);
            "fd_prestat_get" => fs::fd_prestat_get, (fd: i32, out: i32);
            "fd_prestat_dir_name" => fs::fd_prestat_dir_name, (fd: i32, buf: i32, len: i32);
            "fd_pwrite" => fs::fd_pwrite, (fd: i32, iovs: i32, count: i32, offset: i64, out: i32);
            "fd_read" => fs::fd_read, (fd: i32, iovs: i32, count: i32, out: i32);
            "fd_readdir" => fs::fd_readdir, (fd: i32, buf: i32, len: i32, cookie: i64, out: i32);
            "fd_renumber" => fs::fd_renumber, (from: i32, to: i32);
            "fd_seek" => fs::fd_seek, (fd: i32, offset: i64, whence: i32, out: i32);
            "fd_sync" => fs::fd_sync, (fd: i32);
            "fd_tell" => fs::fd_tell, (fd: i32, out: i32);
            "fd_write" => fs::fd_write, (fd: i32, iovs: i32, count: i32, out: i32);
            "path_create_directory" => path::path_create_directory, (fd: i32, path: i32, len: i32);
            "path_filestat_get" => path::path_filestat_get, (fd: i32, flags: i32, path: i32, len: i32, out: i32);
            "path_filestat_set_times" => path::path_filestat_set_times, (fd: i32, flags: i32, path: i32, len: i32, atim: i64, mtim: i64, fst: i32);
            "path_link" => path::path_link, (old_fd: i32, old_flags: i32, old_path: i32, old_len: i32, new_fd: i32, new_path: i32, new_len: i32);
            "path_open" => path::path_open, (fd: i32, dirflags: i32, path: i32, len: i32, oflags: i32, base: i64, inheriting: i64, fdflags: i32, out: i32);
            "path_readlink" => path::path_readlink, (fd: i32, path: i32, len: i32, buf: i32, buf_len: i32, out: i32);
            "path_remove_directory" => path::path_remove_directory, (fd: i32, path: i32, len: i32);
            "path_rename" => path::path_rename, (fd: i32, old_path: i32, old_len: i32, new_fd: i32, new_path: i32, new_len: i32);
            "path_symlink" => path::path_symlink, (old_path: i32, old_len: i32, fd: i32, new_path: i32, new_len: i32);
            "path_unlink_file" => path::path_unlink_file, (fd: i32, path: i32, len: i32);
            "poll_oneoff" => poll::poll_oneoff, (subs: i32, events: i32, count: i32, out: i32);
            "proc_raise" => misc::proc_raise, (signal: i32);
            "random_get" => misc::random_get, (buf: i32, len: i32);
            "sched_yield" => misc::sched_yield, ();
            "sock_accept" => misc::sock_accept, (fd: i32, flags: i32, out: i32);
            "sock_recv" => misc::sock_recv, (fd: i32, iovs: i32, count: i32, flags: i32, out_len: i32, out_flags: i32);
            "sock_send" => misc::sock_send, (fd: i32, iovs: i32, count: i32, flags: i32, out: i32);
            "sock_shutdown" => misc::sock_shutdown, (fd: i32, how: i32);
            SANDTAB:
            "tool_call" => misc::tool_call, (name: i32, name_len: i32, args: i32, args_len: i32, out: i32, out_cap: i32, out_len: i32);
        )
    };
}

macro_rules! link_wasmi {
    ($linker:ident; $( $module:ident: $( $name:literal => $imp:path, ($($arg:ident: $ty:ty),*); )* )*) => {
        $( $(
            $linker.func_wrap(
                $module,
                $name,
                |mut caller: Caller<'_, GuestState>, $($arg: $ty),*| -> Result<i32, wasmi::Error> {
                    dispatch(&mut caller, $name, move |memory, ctx| {
                        $imp(memory, ctx, $($arg as _),*)
                    })
                },
            )?;
        )* )*
    };
}

/// Adds every `wasi_snapshot_preview1` function and the `sandtab` module to `linker`.
pub(crate) fn add_to_linker(linker: &mut Linker<GuestState>) -> Result<(), wasmi::Error> {
    host_functions!(link_wasmi!(linker;));
    linker.func_wrap(
        WASI,
        "proc_exit",
        |_caller: Caller<'_, GuestState>, code: i32| -> Result<(), wasmi::Error> {
            Err(wasmi::Error::i32_exit(code))
        },
    )?;
    Ok(())
}

/// A host function as an engine other than wasmi calls it: its parameters in order,
/// each widened to `i64` (an `i32` by sign extension, as JavaScript hands it over).
pub(crate) type HostFn = fn(&mut Mem<'_>, &mut WasiCtx, &[i64]) -> Res;

macro_rules! host_fn_table {
    ($module:ident, $wanted:ident; $( $m:ident: $( $name:literal => $imp:path, ($($arg:ident: $ty:ty),*); )* )*) => {{
        $( $(
            if $module == $m && $wanted == $name {
                let call: HostFn = |memory, ctx, args| {
                    #[allow(unused_mut, unused_variables)] // `sched_yield` takes none
                    let mut args = args.iter().copied();
                    // A missing parameter reads as 0: the engine checked the types.
                    $imp(memory, ctx, $({
                        let $arg = args.next().unwrap_or(0) as $ty;
                        $arg as _
                    }),*)
                };
                return Some((call, $name));
            }
        )* )*
        None
    }};
}

/// The host function `module.name` (not `proc_exit`, which ends the run instead), and
/// its name as the list spells it.
pub(crate) fn host_fn(module: &str, name: &str) -> Option<(HostFn, &'static str)> {
    host_functions!(host_fn_table!(module, name;))
}

/// The host functions that can wait (`Fail::Block`): for storage (`path_open` of
/// contents not yet loaded), for the reader of a full stdout (`fd_write`, `fd_pwrite`),
/// for stdin (`fd_read`, `poll_oneoff`), a sleep (`poll_oneoff`), the event loop
/// (`sched_yield`) or the page (`tool_call`). The others answer at once, so the engine
/// tier links them without a way to suspend the guest, which costs instantiation time.
const MAY_WAIT: [(&str, &str); 7] = [
    (WASI, "fd_read"),
    (WASI, "fd_write"),
    (WASI, "fd_pwrite"),
    (WASI, "path_open"),
    (WASI, "poll_oneoff"),
    (WASI, "sched_yield"),
    (SANDTAB, "tool_call"),
];

/// Whether host function `module.name` can wait (see [`MAY_WAIT`]).
pub(crate) fn may_wait(module: &str, name: &str) -> bool {
    MAY_WAIT.contains(&(module, name))
}
