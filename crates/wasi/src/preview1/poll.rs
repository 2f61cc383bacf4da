//! `poll_oneoff`: clock subscriptions and descriptor readiness.

use super::fd::{Fd, WasiCtx};
use super::memory::Mem;
use super::{Block, Fail, Res};

const SUBSCRIPTION_SIZE: u32 = 48;
const EVENT_SIZE: u32 = 32;

enum Wait {
    Clock { until_ns: u64 },
    Read { fd: u32 },
    Write { fd: u32 },
}

pub(super) fn poll_oneoff(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    subs: u32,
    events: u32,
    count: u32,
    out: u32,
) -> Res {
    if count == 0 {
        return Err(wasi::ERRNO_INVAL.into());
    }
    mem.check(
        subs,
        count
            .checked_mul(SUBSCRIPTION_SIZE)
            .ok_or(wasi::ERRNO_FAULT)?,
    )?;
    mem.check(
        events,
        count.checked_mul(EVENT_SIZE).ok_or(wasi::ERRNO_FAULT)?,
    )?;
    // Relative timeouts count from the first attempt, not from each retry.
    let now = ctx.monotonic_ns();
    let started = *ctx.poll_started.get_or_insert(now);
    let mut waits = Vec::new();
    for i in 0..count {
        let sub = subs + i * SUBSCRIPTION_SIZE;
        let userdata = mem.u64(sub)?;
        let wait = match mem.u8(sub + 8)? {
            0 => {
                let clock = mem.u32(sub + 16)?;
                let timeout = mem.u64(sub + 24)?;
                let flags = mem.u16(sub + 40)?;
                let absolute = flags & wasi::SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME != 0;
                let until_ns = match (clock, absolute) {
                    _ if flags > 1 => {
                        ctx.poll_started = None;
                        return Err(wasi::ERRNO_INVAL.into());
                    }
                    (0 | 1, false) => started.saturating_add(timeout),
                    // An absolute monotonic time is already on our clock.
                    (1, true) => timeout,
                    // An absolute wall-clock time: wait as long as it is from now.
                    (0, true) => now.saturating_add(timeout.saturating_sub(ctx.realtime_ns())),
                    _ => {
                        ctx.poll_started = None;
                        return Err(wasi::ERRNO_INVAL.into());
                    }
                };
                Wait::Clock { until_ns }
            }
            1 => Wait::Read {
                fd: mem.u32(sub + 16)?,
            },
            2 => Wait::Write {
                fd: mem.u32(sub + 16)?,
            },
            _ => {
                ctx.poll_started = None;
                return Err(wasi::ERRNO_INVAL.into());
            }
        };
        waits.push((userdata, wait));
    }
    // Each ready subscription: (userdata, error, type, bytes available, flags).
    let mut ready = Vec::new();
    let mut wants_stdin = false;
    let mut earliest: Option<u64> = None;
    for (userdata, wait) in &waits {
        match *wait {
            Wait::Clock { until_ns } => {
                if now >= until_ns {
                    ready.push((*userdata, 0u16, 0u8, 0u64, 0u16));
                } else {
                    earliest = Some(earliest.map_or(until_ns, |e: u64| e.min(until_ns)));
                }
            }
            // As wasmtime: a descriptor that cannot be polled fails the whole call with
            // EBADF; a ready one reports one byte (and a file at its end, hang-up).
            Wait::Read { fd } => match ctx.fd(fd) {
                Ok(Fd::Stdin) => {
                    if !ctx.stdin.is_empty() || ctx.stdin_ended || ctx.stdin_interrupted {
                        ready.push((*userdata, 0, 1, 1, 0));
                    } else {
                        wants_stdin = true;
                    }
                }
                Ok(Fd::Device(device)) => {
                    if device.readable() {
                        ready.push((*userdata, 0, 1, 1, 0));
                    } else {
                        ctx.poll_started = None;
                        return Err(Fail::Block(Block::Device { fd }));
                    }
                }
                Ok(Fd::File(file)) => {
                    let size = ctx.fs.mem().handle_metadata(&file.handle).size;
                    let hangup = if file.pos >= size {
                        wasi::EVENTRWFLAGS_FD_READWRITE_HANGUP
                    } else {
                        0
                    };
                    ready.push((*userdata, 0, 1, 1, hangup));
                }
                _ => {
                    ctx.poll_started = None;
                    return Err(wasi::ERRNO_BADF.into());
                }
            },
            Wait::Write { fd } => match ctx.fd(fd) {
                Ok(Fd::Stdout | Fd::Stderr | Fd::File(_) | Fd::Device(_)) => {
                    ready.push((*userdata, 0, 2, 1, 0))
                }
                _ => {
                    ctx.poll_started = None;
                    return Err(wasi::ERRNO_BADF.into());
                }
            },
        }
    }
    if ready.is_empty() {
        if wants_stdin {
            // Waiting for input; a timeout beside it is not honoured while stdin is
            // open (the shell's stdin is a pipe or a file, which always ends).
            return Err(Fail::Block(Block::Stdin));
        }
        if let Some(until_ns) = earliest {
            if ctx.virtual_clock() {
                ctx.advance_virtual(until_ns.saturating_sub(now));
            }
            return Err(Fail::Block(Block::Sleep { until_ns }));
        }
    }
    ctx.poll_started = None;
    for (i, (userdata, error, kind, bytes, flags)) in ready.iter().enumerate() {
        let event = events + i as u32 * EVENT_SIZE;
        let mut bytes_out = [0u8; 32];
        bytes_out[0..8].copy_from_slice(&userdata.to_le_bytes());
        bytes_out[8..10].copy_from_slice(&error.to_le_bytes());
        bytes_out[10] = *kind;
        bytes_out[16..24].copy_from_slice(&bytes.to_le_bytes());
        bytes_out[24..26].copy_from_slice(&flags.to_le_bytes());
        mem.write(event, &bytes_out)?;
    }
    Ok(mem.set_u32(out, ready.len() as u32)?)
}
