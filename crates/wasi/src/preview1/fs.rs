//! The `fd_*` and `path_*` functions: files, directories and the standard streams.
//!
//! Each answers as wasmtime 50 does (the conformance guest's recorded output is the
//! reference): rights are an access mode (read, write) taken from `FD_READ`/`FD_WRITE`
//! when a file is opened, not capabilities checked per call; reads and writes move the
//! first non-empty iovec only; a call given the wrong kind of descriptor is EBADF.

use super::fd::{FLUSH_AT, Fd, OpenDir, WasiCtx};
use super::memory::Mem;
use super::{Block, Fail, Res, Stop, check_bits};
use crate::Limit;
use crate::io::OutStream;
use sandtab_vfs::{FileKind, Metadata, Timestamp, VfsPath};
use wasi::Errno;

/// Every right preview1 defines (bits 0..=29).
pub(super) const RIGHTS_ALL: u64 = (1 << 30) - 1;

/// The most descriptors a guest may hold open at once (host memory stays bounded).
pub(super) const MAX_OPEN_FDS: usize = 4096;

/// A preopen's rights, as wasmtime announces them ("expected by many userlands").
const PREOPEN_BASE: u64 = wasi::RIGHTS_PATH_CREATE_DIRECTORY
    | wasi::RIGHTS_PATH_CREATE_FILE
    | wasi::RIGHTS_PATH_LINK_SOURCE
    | wasi::RIGHTS_PATH_LINK_TARGET
    | wasi::RIGHTS_PATH_OPEN
    | wasi::RIGHTS_FD_READDIR
    | wasi::RIGHTS_PATH_READLINK
    | wasi::RIGHTS_PATH_RENAME_SOURCE
    | wasi::RIGHTS_PATH_RENAME_TARGET
    | wasi::RIGHTS_PATH_SYMLINK
    | wasi::RIGHTS_PATH_REMOVE_DIRECTORY
    | wasi::RIGHTS_PATH_UNLINK_FILE
    | wasi::RIGHTS_PATH_FILESTAT_GET
    | wasi::RIGHTS_PATH_FILESTAT_SET_TIMES
    | wasi::RIGHTS_FD_FILESTAT_GET
    | wasi::RIGHTS_FD_FILESTAT_SET_TIMES;
const PREOPEN_INHERITING: u64 = PREOPEN_BASE
    | wasi::RIGHTS_FD_DATASYNC
    | wasi::RIGHTS_FD_READ
    | wasi::RIGHTS_FD_SEEK
    | wasi::RIGHTS_FD_FDSTAT_SET_FLAGS
    | wasi::RIGHTS_FD_SYNC
    | wasi::RIGHTS_FD_TELL
    | wasi::RIGHTS_FD_WRITE
    | wasi::RIGHTS_FD_ADVISE
    | wasi::RIGHTS_FD_ALLOCATE
    | wasi::RIGHTS_FD_FILESTAT_GET
    | wasi::RIGHTS_FD_FILESTAT_SET_SIZE
    | wasi::RIGHTS_FD_FILESTAT_SET_TIMES
    | wasi::RIGHTS_POLL_FD_READWRITE;
/// An opened directory: all but seeking, sizes and writing.
const DIR_RIGHTS: u64 = RIGHTS_ALL
    & !(wasi::RIGHTS_FD_SEEK
        | wasi::RIGHTS_FD_FILESTAT_SET_SIZE
        | wasi::RIGHTS_PATH_FILESTAT_SET_SIZE
        | wasi::RIGHTS_FD_WRITE);

/// What a directory's size reads as (a Linux host's, which guests' output shows).
const DIR_SIZE: u64 = 4096;

pub(super) const FDFLAGS_ALL: u16 = (1 << 5) - 1;
pub(super) const FDFLAGS_SYNCS: u16 =
    wasi::FDFLAGS_DSYNC | wasi::FDFLAGS_RSYNC | wasi::FDFLAGS_SYNC;

/// Contents still in storage must be loaded before an operation that reads them.
pub(super) fn ensure_loaded(ctx: &WasiCtx, path: &VfsPath, for_write: bool) -> Res {
    if ctx.fs.stored_location(path).is_some() {
        return Err(Fail::Block(Block::Load {
            path: path.clone(),
            for_write,
        }));
    }
    Ok(())
}

fn filetype(kind: FileKind) -> u8 {
    match kind {
        FileKind::File => wasi::FILETYPE_REGULAR_FILE.raw(),
        FileKind::Directory => wasi::FILETYPE_DIRECTORY.raw(),
        FileKind::Symlink => wasi::FILETYPE_SYMBOLIC_LINK.raw(),
    }
}

/// A directory's link count as a POSIX host counts it: its entry in the parent, its
/// own `.`, and each subdirectory's `..`.
fn dir_links(fs: &sandtab_vfs::MemFs, path: &VfsPath) -> u32 {
    let subdirs = fs
        .read_dir(path)
        .map(|entries| {
            entries
                .iter()
                .filter(|entry| entry.metadata.kind == FileKind::Directory)
                .count()
        })
        .unwrap_or(0);
    2 + u32::try_from(subdirs).unwrap_or(u32::MAX - 2)
}

/// `meta` of `path` as a guest sees it (a directory's links counted as POSIX does).
pub(super) fn guest_meta(fs: &sandtab_vfs::MemFs, path: &VfsPath, meta: Metadata) -> Metadata {
    match meta.kind {
        FileKind::Directory if meta.links > 0 => Metadata {
            links: dir_links(fs, path),
            ..meta
        },
        _ => meta,
    }
}

pub(super) fn write_filestat(mem: &mut Mem, out: u32, meta: &Metadata) -> Res {
    let size = match meta.kind {
        FileKind::Directory => DIR_SIZE,
        _ => meta.size,
    };
    let mut stat = [0u8; 64];
    stat[0..8].copy_from_slice(&1u64.to_le_bytes());
    stat[8..16].copy_from_slice(&meta.ino.to_le_bytes());
    stat[16] = filetype(meta.kind);
    stat[24..32].copy_from_slice(&u64::from(meta.links).to_le_bytes());
    stat[32..40].copy_from_slice(&size.to_le_bytes());
    stat[40..48].copy_from_slice(&meta.accessed.0.to_le_bytes());
    stat[48..56].copy_from_slice(&meta.modified.0.to_le_bytes());
    stat[56..64].copy_from_slice(&meta.changed.0.to_le_bytes());
    Ok(mem.write(out, &stat)?)
}

/// The times a `*_set_times` call asks for: (atime, mtime), `None` to leave one alone.
pub(super) fn requested_times(
    ctx: &mut WasiCtx,
    atim: u64,
    mtim: u64,
    flags: u16,
) -> Result<(Option<Timestamp>, Option<Timestamp>), Fail> {
    check_bits("fstflags", u64::from(flags), 0xf)?;
    let pick =
        |set: u16, now_flag: u16, value: u64, now: u64| -> Result<Option<Timestamp>, Errno> {
            match (flags & set != 0, flags & now_flag != 0) {
                (true, true) => Err(wasi::ERRNO_INVAL),
                (true, false) => Ok(Some(Timestamp(value))),
                (false, true) => Ok(Some(Timestamp(now))),
                (false, false) => Ok(None),
            }
        };
    let now = ctx.realtime_ns();
    Ok((
        pick(wasi::FSTFLAGS_ATIM, wasi::FSTFLAGS_ATIM_NOW, atim, now)?,
        pick(wasi::FSTFLAGS_MTIM, wasi::FSTFLAGS_MTIM_NOW, mtim, now)?,
    ))
}

// ---- reading and writing ----

/// Buffers guest output, within the output limit; full buffers wait for the host.
fn write_stream(ctx: &mut WasiCtx, stream: OutStream, data: Vec<u8>) -> Res {
    if ctx.output_buffered >= FLUSH_AT {
        return Err(Fail::Block(Block::Flush));
    }
    let total = ctx.output_total.saturating_add(data.len() as u64);
    if total > ctx.output_limit {
        return Err(Fail::Stop(Stop::Limit(Limit::Output(ctx.output_limit))));
    }
    ctx.output_total = total;
    ctx.output_buffered += data.len();
    match ctx.output.last_mut() {
        Some((last, buffer)) if *last == stream => buffer.extend_from_slice(&data),
        _ => ctx.output.push((stream, data)),
    }
    Ok(())
}

/// The most bytes one read or write moves: more is a short count, which callers loop on.
const IO_CHUNK_MAX: u32 = 16 << 20;

/// The first non-empty buffer of an iovec array, as wasmtime reads and writes only that
/// one: (address, length), length capped at IO_CHUNK_MAX. The whole buffer must lie in
/// memory (a buffer outside it traps).
#[inline]
fn first_buffer(mem: &Mem, iovs: u32, count: u32) -> Result<(u32, u32), Fail> {
    for i in 0..count {
        // Each iovec read as it is reached: those after the first non-empty one are
        // never looked at, however many the guest claims.
        let at = i
            .checked_mul(8)
            .and_then(|offset| iovs.checked_add(offset))
            .ok_or(wasi::ERRNO_FAULT)?;
        let (ptr, len) = (
            mem.u32(at)?,
            mem.u32(at.checked_add(4).ok_or(wasi::ERRNO_FAULT)?)?,
        );
        if len == 0 {
            continue;
        }
        mem.check(ptr, len)?;
        return Ok((ptr, len.min(IO_CHUNK_MAX)));
    }
    Ok((0, 0))
}

pub(super) fn fd_write(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    out: u32,
) -> Res {
    write_at(mem, ctx, fd, iovs, count, None, out)
}

pub(super) fn fd_pwrite(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    offset: u64,
    out: u32,
) -> Res {
    write_at(mem, ctx, fd, iovs, count, Some(offset), out)
}

/// `fd_write` (at the offset, `None`) and `fd_pwrite` (at `Some(offset)`, which append
/// mode ignores, as Linux's `pwrite` does).
fn write_at(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    at: Option<u64>,
    out: u32,
) -> Res {
    let stream = match ctx.fd(fd)? {
        Fd::Stdout => OutStream::Stdout,
        Fd::Stderr => OutStream::Stderr,
        Fd::File(_) => {
            let (ptr, len) = first_buffer(mem, iovs, count)?;
            // Borrowed where the memory lends it: the file copies what it keeps.
            let data = mem.bytes(ptr, len)?;
            let fs = ctx.fs.mem().clone();
            let Ok(file) = ctx.file(fd) else {
                return Err(wasi::ERRNO_BADF.into());
            };
            if !file.write {
                return Err(wasi::ERRNO_BADF.into());
            }
            match (file.append, at) {
                (true, _) => {
                    let end = fs.append_handle(&file.handle, &data)?;
                    if at.is_none() {
                        file.pos = end;
                    }
                }
                (false, Some(offset)) => fs.write_handle(&file.handle, offset, &data)?,
                (false, None) => {
                    fs.write_handle(&file.handle, file.pos, &data)?;
                    file.pos += data.len() as u64;
                }
            }
            return Ok(mem.set_u32(out, len)?);
        }
        Fd::Device(_) => {
            if at.is_some() {
                return Err(wasi::ERRNO_SPIPE.into());
            }
            let (ptr, len) = first_buffer(mem, iovs, count)?;
            // The bound is on all requests being written at once: a guest opening many
            // devices holds no more of the host's memory than one.
            let held: usize = ctx
                .fds
                .values()
                .map(|open| match open {
                    Fd::Device(device) => device.request.len(),
                    _ => 0,
                })
                .sum();
            if held.saturating_add(len as usize) > super::device::MAX_REQUEST_BYTES {
                return Err(wasi::ERRNO_FBIG.into());
            }
            let data = mem.bytes(ptr, len)?.into_owned();
            if let Some(Fd::Device(device)) = ctx.fds.get_mut(&fd) {
                device.write(&data)?;
            }
            return Ok(mem.set_u32(out, len)?);
        }
        _ => return Err(wasi::ERRNO_BADF.into()),
    };
    if at.is_some() {
        return Err(wasi::ERRNO_SPIPE.into());
    }
    let (ptr, len) = first_buffer(mem, iovs, count)?;
    let data = mem.bytes(ptr, len)?.into_owned();
    write_stream(ctx, stream, data)?;
    Ok(mem.set_u32(out, len)?)
}

pub(super) fn fd_read(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    out: u32,
) -> Res {
    let (ptr, want) = first_buffer(mem, iovs, count)?;
    mem.check(out, 4)?;
    let fs = ctx.fs.mem().clone();
    let data = match ctx.fds.get_mut(&fd).ok_or(wasi::ERRNO_BADF)? {
        Fd::Stdin => {
            if ctx.stdin.is_empty() && ctx.stdin_interrupted {
                ctx.stdin_interrupted = false;
                return Err(wasi::ERRNO_CANCELED.into());
            }
            if ctx.stdin.is_empty() && !ctx.stdin_ended && want > 0 {
                // A guest that reads its input usually prompted first: show the prompt.
                if !ctx.output.is_empty() {
                    return Err(Fail::Block(Block::Flush));
                }
                return Err(Fail::Block(Block::Stdin));
            }
            let take = (want as usize).min(ctx.stdin.len());
            ctx.stdin.drain(..take).collect()
        }
        Fd::File(file) => {
            if !file.read {
                return Err(wasi::ERRNO_BADF.into());
            }
            let data = fs.read_handle(&file.handle, file.pos, want as usize)?;
            file.pos += data.len() as u64;
            data
        }
        Fd::Device(device) => {
            if device.readable() || ctx.output.is_empty() {
                device.read(fd, want as usize)?
            } else {
                // What the guest printed before asking is shown before it waits.
                return Err(Fail::Block(Block::Flush));
            }
        }
        _ => return Err(wasi::ERRNO_BADF.into()),
    };
    mem.write(ptr, &data)?;
    Ok(mem.set_u32(out, data.len() as u32)?)
}

pub(super) fn fd_pread(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    offset: u64,
    out: u32,
) -> Res {
    let fs = ctx.fs.mem().clone();
    match ctx.fd(fd)? {
        Fd::File(_) => {}
        Fd::Stdin => return Err(wasi::ERRNO_SPIPE.into()),
        _ => return Err(wasi::ERRNO_BADF.into()),
    }
    let (ptr, want) = first_buffer(mem, iovs, count)?;
    let file = ctx.file(fd)?;
    if !file.read {
        return Err(wasi::ERRNO_BADF.into());
    }
    let data = fs.read_handle(&file.handle, offset, want as usize)?;
    mem.write(ptr, &data)?;
    Ok(mem.set_u32(out, data.len() as u32)?)
}

pub(super) fn fd_seek(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    offset: i64,
    whence: u8,
    out: u32,
) -> Res {
    if whence > 2 {
        return Err(Fail::Trap(format!("invalid whence {whence}")));
    }
    let fs = ctx.fs.mem().clone();
    let file = ctx.seekable(fd)?;
    let pos = match whence {
        0 => u64::try_from(offset).map_err(|_| wasi::ERRNO_INVAL)?,
        1 => file
            .pos
            .checked_add_signed(offset)
            .ok_or(wasi::ERRNO_INVAL)?,
        _ => fs
            .handle_metadata(&file.handle)
            .size
            .checked_add_signed(offset)
            .ok_or(wasi::ERRNO_INVAL)?,
    };
    file.pos = pos;
    Ok(mem.set_u64(out, pos)?)
}

pub(super) fn fd_tell(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    let pos = ctx.seekable(fd)?.pos;
    Ok(mem.set_u64(out, pos)?)
}

// ---- descriptors ----

pub(super) fn fd_close(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32) -> Res {
    Ok(ctx.close(fd)?)
}

pub(super) fn fd_renumber(_mem: &mut Mem, ctx: &mut WasiCtx, from: u32, to: u32) -> Res {
    Ok(ctx.renumber(from, to)?)
}

pub(super) fn fd_sync(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32) -> Res {
    // Changes reach storage when the command ends (the shell's flush); the descriptor
    // only has to be a file.
    ctx.file(fd)?;
    Ok(())
}

pub(super) fn fd_advise(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    _offset: u64,
    _len: u64,
    advice: u8,
) -> Res {
    if advice > 5 {
        return Err(Fail::Trap(format!("invalid advice {advice}")));
    }
    ctx.file(fd)?;
    Ok(())
}

pub(super) fn fd_allocate(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    _offset: u64,
    _len: u64,
) -> Res {
    // wasmtime has no `fallocate` to offer and says so; so does sandtab (a file grows
    // by writing or `fd_filestat_set_size`, both charged to the quota).
    ctx.file(fd)?;
    Err(wasi::ERRNO_NOTSUP.into())
}

pub(super) fn fd_fdstat_get(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    // Standard streams are pipes here: filetype unknown, as wasmtime reports a stream
    // that is not a terminal. A terminal's stdin is a character device without seek
    // or tell, which is what wasi-libc's `isatty` asks.
    let stdin_kind = if ctx.stdin_terminal {
        wasi::FILETYPE_CHARACTER_DEVICE.raw()
    } else {
        0
    };
    let (kind, flags, base, inheriting) = match ctx.fd(fd)? {
        Fd::Stdin => (stdin_kind, 0, wasi::RIGHTS_FD_READ, wasi::RIGHTS_FD_READ),
        Fd::Stdout | Fd::Stderr => (0, 0, wasi::RIGHTS_FD_WRITE, wasi::RIGHTS_FD_WRITE),
        Fd::Device(_) => {
            let rights =
                wasi::RIGHTS_FD_READ | wasi::RIGHTS_FD_WRITE | wasi::RIGHTS_POLL_FD_READWRITE;
            (wasi::FILETYPE_CHARACTER_DEVICE.raw(), 0, rights, rights)
        }
        Fd::Dir(OpenDir {
            preopen: Some(_), ..
        }) => (
            wasi::FILETYPE_DIRECTORY.raw(),
            0,
            PREOPEN_BASE,
            PREOPEN_INHERITING,
        ),
        Fd::Dir(_) => (wasi::FILETYPE_DIRECTORY.raw(), 0, DIR_RIGHTS, DIR_RIGHTS),
        Fd::File(file) => {
            let mut rights = RIGHTS_ALL;
            if !file.read {
                rights &= !(wasi::RIGHTS_FD_READ | wasi::RIGHTS_FD_READDIR);
            }
            if !file.write {
                rights &= !wasi::RIGHTS_FD_WRITE;
            }
            let mut flags = 0;
            if file.append {
                flags |= wasi::FDFLAGS_APPEND;
            }
            if file.nonblock {
                flags |= wasi::FDFLAGS_NONBLOCK;
            }
            (wasi::FILETYPE_REGULAR_FILE.raw(), flags, rights, rights)
        }
    };
    let mut stat = [0u8; 24];
    stat[0] = kind;
    stat[2..4].copy_from_slice(&flags.to_le_bytes());
    stat[8..16].copy_from_slice(&base.to_le_bytes());
    stat[16..24].copy_from_slice(&inheriting.to_le_bytes());
    Ok(mem.write(out, &stat)?)
}

pub(super) fn fd_fdstat_set_flags(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, flags: u16) -> Res {
    check_bits("fdflags", u64::from(flags), u64::from(FDFLAGS_ALL))?;
    let file = ctx.file(fd)?;
    if flags & FDFLAGS_SYNCS != 0 {
        return Err(wasi::ERRNO_INVAL.into());
    }
    file.append = flags & wasi::FDFLAGS_APPEND != 0;
    file.nonblock = flags & wasi::FDFLAGS_NONBLOCK != 0;
    Ok(())
}

pub(super) fn fd_fdstat_set_rights(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    base: u64,
    inheriting: u64,
) -> Res {
    check_bits("rights", base, RIGHTS_ALL)?;
    check_bits("rights", inheriting, RIGHTS_ALL)?;
    // Rights are an access mode fixed at open (wasmtime 50 answers ENOTSUP too).
    match ctx.fd(fd)? {
        Fd::File(_) | Fd::Dir(_) => Err(wasi::ERRNO_NOTSUP.into()),
        _ => Err(wasi::ERRNO_BADF.into()),
    }
}

pub(super) fn fd_filestat_get(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    let meta = match ctx.fd(fd)? {
        Fd::File(file) => ctx.fs.mem().handle_metadata(&file.handle),
        Fd::Dir(dir) => match ctx.fs.mem().stat(&dir.path) {
            Ok(meta) => guest_meta(ctx.fs.mem(), &dir.path, meta),
            // A directory removed while open: empty, no links.
            Err(_) => Metadata {
                links: 0,
                ..ctx.fs.mem().stat(&VfsPath::root())?
            },
        },
        // A device: all zeros but its type.
        Fd::Device(_) => {
            let mut stat = [0u8; 64];
            stat[16] = wasi::FILETYPE_CHARACTER_DEVICE.raw();
            return Ok(mem.write(out, &stat)?);
        }
        // A stream: all zeros, filetype unknown.
        _ => return Ok(mem.write(out, &[0u8; 64])?),
    };
    write_filestat(mem, out, &meta)
}

pub(super) fn fd_filestat_set_size(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, size: u64) -> Res {
    let fs = ctx.fs.mem().clone();
    let file = ctx.file(fd)?;
    if !file.write {
        return Err(wasi::ERRNO_INVAL.into());
    }
    Ok(fs.truncate_handle(&file.handle, size)?)
}

pub(super) fn fd_filestat_set_times(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    atim: u64,
    mtim: u64,
    flags: u16,
) -> Res {
    let (accessed, modified) = requested_times(ctx, atim, mtim, flags)?;
    let fs = ctx.fs.mem().clone();
    match ctx.fd(fd)? {
        Fd::File(file) => Ok(fs.set_handle_times(&file.handle, accessed, modified)?),
        Fd::Dir(dir) => Ok(fs.set_times(&dir.path, accessed, modified)?),
        _ => Err(wasi::ERRNO_BADF.into()),
    }
}

pub(super) fn fd_prestat_get(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    let name = match ctx.fd(fd)? {
        Fd::Dir(OpenDir {
            preopen: Some(name),
            ..
        }) => name,
        _ => return Err(wasi::ERRNO_BADF.into()),
    };
    let mut prestat = [0u8; 8];
    prestat[0] = wasi::PREOPENTYPE_DIR.raw();
    prestat[4..8].copy_from_slice(&(name.len() as u32).to_le_bytes());
    Ok(mem.write(out, &prestat)?)
}

pub(super) fn fd_prestat_dir_name(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    buf: u32,
    len: u32,
) -> Res {
    let name = match ctx.fd(fd)? {
        Fd::Dir(OpenDir {
            preopen: Some(name),
            ..
        }) => name.clone(),
        _ => return Err(wasi::ERRNO_NOTDIR.into()),
    };
    if name.len() > len as usize {
        return Err(wasi::ERRNO_NAMETOOLONG.into());
    }
    Ok(mem.write(buf, name.as_bytes())?)
}

pub(super) fn fd_readdir(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    buf: u32,
    len: u32,
    cookie: u64,
    out: u32,
) -> Res {
    let fs = ctx.fs.clone();
    let dir = match ctx.fds.get_mut(&fd).ok_or(wasi::ERRNO_BADF)? {
        Fd::Dir(dir) => dir,
        _ => return Err(wasi::ERRNO_BADF.into()),
    };
    if cookie == 0 || dir.listing.is_none() {
        let fs = fs.mem();
        let here = fs.stat(&dir.path).map(|meta| meta.ino).unwrap_or(0);
        let mut listing = vec![
            (".".to_owned(), here, FileKind::Directory),
            ("..".to_owned(), here, FileKind::Directory),
        ];
        // A directory removed while open lists only `.` and `..`.
        listing.extend(
            fs.read_dir(&dir.path)
                .unwrap_or_default()
                .into_iter()
                .map(|entry| (entry.name, entry.metadata.ino, entry.metadata.kind)),
        );
        dir.listing = Some(listing);
    }
    let entries = dir.listing.as_deref().unwrap_or_default();
    // Dirents one after the other; the last may be cut off, which tells the guest
    // that the buffer was full (it then asks again from that entry's cookie).
    let mut bytes = Vec::new();
    for (index, (name, ino, kind)) in entries
        .iter()
        .enumerate()
        .skip(cookie.min(usize::MAX as u64) as usize)
    {
        if bytes.len() >= len as usize {
            break;
        }
        let mut dirent = [0u8; 24];
        dirent[0..8].copy_from_slice(&(index as u64 + 1).to_le_bytes());
        dirent[8..16].copy_from_slice(&ino.to_le_bytes());
        dirent[16..20].copy_from_slice(&(name.len() as u32).to_le_bytes());
        dirent[20] = filetype(*kind);
        bytes.extend_from_slice(&dirent);
        bytes.extend_from_slice(name.as_bytes());
    }
    bytes.truncate(len as usize);
    mem.write(buf, &bytes)?;
    Ok(mem.set_u32(out, bytes.len() as u32)?)
}
