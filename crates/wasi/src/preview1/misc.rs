//! Arguments, environment, clocks, randomness, scheduling, signals, sockets, and the
//! `sandtab` host-call module.

use super::check_bits;
use super::fd::WasiCtx;
use super::memory::Mem;
use super::{Block, Fail, Res};

/// Writes a list of strings as C strings: pointers into `argv`, bytes into `buf`.
fn write_strings(mem: &mut Mem, list: &[String], pointers: u32, buf: u32) -> Res {
    let fault = || Fail::Errno(wasi::ERRNO_FAULT);
    let mut at = buf;
    for (i, item) in list.iter().enumerate() {
        let slot = u32::try_from(i)
            .ok()
            .and_then(|i| i.checked_mul(4))
            .and_then(|offset| pointers.checked_add(offset))
            .ok_or_else(fault)?;
        mem.set_u32(slot, at)?;
        mem.write(at, item.as_bytes())?;
        let end = u32::try_from(item.len())
            .ok()
            .and_then(|len| at.checked_add(len))
            .ok_or_else(fault)?;
        mem.set_u8(end, 0)?;
        at = end.checked_add(1).ok_or_else(fault)?;
    }
    Ok(())
}

fn write_sizes(mem: &mut Mem, list: &[String], count: u32, size: u32) -> Res {
    mem.set_u32(count, list.len() as u32)?;
    let bytes: usize = list.iter().map(|item| item.len() + 1).sum();
    Ok(mem.set_u32(size, bytes as u32)?)
}

pub(super) fn args_get(mem: &mut Mem, ctx: &mut WasiCtx, argv: u32, buf: u32) -> Res {
    write_strings(mem, &ctx.args, argv, buf)
}

pub(super) fn args_sizes_get(mem: &mut Mem, ctx: &mut WasiCtx, count: u32, size: u32) -> Res {
    write_sizes(mem, &ctx.args, count, size)
}

pub(super) fn environ_get(mem: &mut Mem, ctx: &mut WasiCtx, environ: u32, buf: u32) -> Res {
    write_strings(mem, &ctx.env, environ, buf)
}

pub(super) fn environ_sizes_get(mem: &mut Mem, ctx: &mut WasiCtx, count: u32, size: u32) -> Res {
    write_sizes(mem, &ctx.env, count, size)
}

/// Traps for a clock id outside the enum; the CPU-time clocks are EBADF, as in wasmtime.
fn check_clock(id: u32) -> Res {
    match id {
        0 | 1 => Ok(()),
        2 | 3 => Err(wasi::ERRNO_BADF.into()),
        _ => Err(Fail::Trap(format!("invalid clock id {id}"))),
    }
}

pub(super) fn clock_res_get(mem: &mut Mem, _ctx: &mut WasiCtx, id: u32, out: u32) -> Res {
    check_clock(id)?;
    // Browsers coarsen their clocks; a microsecond is what the guest can count on.
    Ok(mem.set_u64(out, 1_000)?)
}

pub(super) fn clock_time_get(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    id: u32,
    _precision: u64,
    out: u32,
) -> Res {
    check_clock(id)?;
    let now = match id {
        0 => ctx.realtime_ns(),
        _ => ctx.monotonic_ns(),
    };
    Ok(mem.set_u64(out, now)?)
}

pub(super) fn random_get(mem: &mut Mem, ctx: &mut WasiCtx, buf: u32, len: u32) -> Res {
    Ok(mem.with_bytes_mut(buf, len, |bytes| ctx.fill_random(bytes))??)
}

pub(super) fn sched_yield(_mem: &mut Mem, ctx: &mut WasiCtx) -> Res {
    if std::mem::take(&mut ctx.yielded) {
        return Ok(());
    }
    Err(Fail::Block(Block::Yield))
}

pub(super) fn proc_raise(_mem: &mut Mem, _ctx: &mut WasiCtx, signal: u32) -> Res {
    if signal > 30 {
        return Err(Fail::Trap(format!("invalid signal {signal}")));
    }
    Err(wasi::ERRNO_NOTSUP.into())
}

// No descriptor is ever a socket (none is handed over): each socket call checks the
// descriptor exists, then answers ENOTSOCK, as wasmtime does.

pub(super) fn sock_accept(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    flags: u32,
    _out: u32,
) -> Res {
    check_bits("fdflags", u64::from(flags), 0x1f)?;
    ctx.fd(fd)?;
    Err(wasi::ERRNO_NOTSOCK.into())
}

pub(super) fn sock_recv(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    _iovs: u32,
    _count: u32,
    flags: u32,
    _len: u32,
    _out: u32,
) -> Res {
    check_bits("riflags", u64::from(flags), 0x3)?;
    ctx.fd(fd)?;
    Err(wasi::ERRNO_NOTSOCK.into())
}

pub(super) fn sock_send(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    _iovs: u32,
    _count: u32,
    _flags: u32,
    _out: u32,
) -> Res {
    ctx.fd(fd)?;
    Err(wasi::ERRNO_NOTSOCK.into())
}

pub(super) fn sock_shutdown(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, how: u32) -> Res {
    check_bits("sdflags", u64::from(how), 0x3)?;
    ctx.fd(fd)?;
    Err(wasi::ERRNO_NOTSOCK.into())
}

/// `sandtab.tool_call(name, args_json, out, out_cap, out_len) -> errno`: asks the host
/// (its page) to run a granted tool. The answer (JSON, or an error message) goes to
/// `out`; `out_len` gets its full length. If it does not fit, the errno is `ERANGE`
/// and the answer is kept: calling again with the same name and arguments and a
/// larger buffer takes it without running the tool twice. A refused or failed call
/// returns `EPERM` with the message in `out`.
pub(super) fn tool_call(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    name: u32,
    name_len: u32,
    args: u32,
    args_len: u32,
    out: u32,
    out_cap: u32,
    out_len: u32,
) -> Res {
    let name = mem.str(name, name_len)?.into_owned();
    let args = mem.str(args, args_len)?.into_owned();
    // The answer's places must be good before the tool runs: it runs once.
    mem.check(out_len, 4)?;
    mem.check(out, out_cap)?;
    let answer = match ctx.host_answer.take() {
        Some((asked, with, answer)) if asked == name && with == args => answer,
        _ => return Err(Fail::Block(Block::HostCall { name, args })),
    };
    let (text, errno) = match &answer {
        Ok(json) => (json.as_bytes(), wasi::ERRNO_SUCCESS),
        Err(message) => (message.as_bytes(), wasi::ERRNO_PERM),
    };
    mem.set_u32(out_len, text.len() as u32)?;
    if text.len() > out_cap as usize {
        ctx.host_answer = Some((name, args, answer.clone()));
        return Err(wasi::ERRNO_RANGE.into());
    }
    mem.write(out, text)?;
    if errno == wasi::ERRNO_SUCCESS {
        Ok(())
    } else {
        Err(errno.into())
    }
}
