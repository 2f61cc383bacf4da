//! The `fd_*` and `path_*` functions: files, directories and the standard streams.

use super::fd::{FLUSH_AT, Fd, OpenDir, OpenFile, WasiCtx};
use super::memory::Mem;
use super::{Block, Fail, Res, Stop};
use crate::Limit;
use crate::io::OutStream;
use sandtab_vfs::{FileKind, Metadata, Timestamp, VfsPath};
use wasi::Errno;

/// Rights a read-write file or directory descriptor reports. sandtab enforces access
/// with the read/write flags of each descriptor, and read-only mounts in the VFS.
const RIGHTS_ALL: u64 = (1 << 30) - 1;

/// The most descriptors a guest may hold open at once.
const MAX_OPEN_FDS: usize = 4096;
const RIGHTS_WRITE: u64 = wasi::RIGHTS_FD_WRITE
    | wasi::RIGHTS_FD_DATASYNC
    | wasi::RIGHTS_FD_ALLOCATE
    | wasi::RIGHTS_FD_FILESTAT_SET_SIZE
    | wasi::RIGHTS_PATH_CREATE_DIRECTORY
    | wasi::RIGHTS_PATH_CREATE_FILE
    | wasi::RIGHTS_PATH_LINK_SOURCE
    | wasi::RIGHTS_PATH_LINK_TARGET
    | wasi::RIGHTS_PATH_RENAME_SOURCE
    | wasi::RIGHTS_PATH_RENAME_TARGET
    | wasi::RIGHTS_PATH_SYMLINK
    | wasi::RIGHTS_PATH_REMOVE_DIRECTORY
    | wasi::RIGHTS_PATH_UNLINK_FILE
    | wasi::RIGHTS_PATH_FILESTAT_SET_SIZE
    | wasi::RIGHTS_PATH_FILESTAT_SET_TIMES
    | wasi::RIGHTS_FD_FILESTAT_SET_TIMES;

fn path_arg(mem: &Mem, ctx: &WasiCtx, fd: u32, ptr: u32, len: u32) -> Result<VfsPath, Fail> {
    Ok(ctx.resolve(fd, mem.str(ptr, len)?)?)
}

/// Contents still in storage must be loaded before an operation that reads them.
fn ensure_loaded(ctx: &WasiCtx, path: &VfsPath, for_write: bool) -> Res {
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

fn write_filestat(mem: &mut Mem, out: u32, meta: &Metadata) -> Res {
    let mut stat = [0u8; 64];
    stat[8..16].copy_from_slice(&meta.ino.to_le_bytes());
    stat[16] = filetype(meta.kind);
    stat[24..32].copy_from_slice(&u64::from(meta.links).to_le_bytes());
    stat[32..40].copy_from_slice(&meta.size.to_le_bytes());
    stat[40..48].copy_from_slice(&meta.accessed.0.to_le_bytes());
    stat[48..56].copy_from_slice(&meta.modified.0.to_le_bytes());
    stat[56..64].copy_from_slice(&meta.changed.0.to_le_bytes());
    Ok(mem.write(out, &stat)?)
}

fn stream_filestat(mem: &mut Mem, out: u32) -> Res {
    let mut stat = [0u8; 64];
    stat[16] = wasi::FILETYPE_CHARACTER_DEVICE.raw();
    stat[24] = 1;
    Ok(mem.write(out, &stat)?)
}

/// The times a `*_set_times` call asks for: (atime, mtime), `None` to leave one alone.
fn requested_times(
    ctx: &mut WasiCtx,
    atim: u64,
    mtim: u64,
    flags: u16,
) -> Result<(Option<Timestamp>, Option<Timestamp>), Errno> {
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

/// The most bytes one read or write moves: more is a short count, as a pipe gives.
/// Iovecs may overlap, so their sum can exceed the guest's memory many times.
const IO_CHUNK_MAX: usize = 16 << 20;

/// The bytes of the iovecs, up to IO_CHUNK_MAX (a short write, which callers loop on).
fn gather(mem: &Mem, iovs: u32, count: u32) -> Result<Vec<u8>, Errno> {
    let vecs = mem.iovecs(iovs, count)?;
    check_total(&vecs)?;
    let mut data = Vec::new();
    for (ptr, len) in vecs {
        let room = IO_CHUNK_MAX - data.len();
        if room == 0 {
            break;
        }
        let bytes = mem.bytes(ptr, len)?;
        data.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
    Ok(data)
}

/// EINVAL if the iovec lengths add up past `ssize_t` (as POSIX `readv`/`writev`).
fn check_total(vecs: &[(u32, u32)]) -> Result<u64, Errno> {
    let total = vecs.iter().map(|&(_, len)| u64::from(len)).sum::<u64>();
    if total > i32::MAX as u64 {
        return Err(wasi::ERRNO_INVAL);
    }
    Ok(total)
}

/// Spreads `data` over the iovecs; returns how many bytes fit.
fn scatter(mem: &mut Mem, iovs: u32, count: u32, data: &[u8]) -> Result<usize, Errno> {
    let mut done = 0;
    for (ptr, len) in mem.iovecs(iovs, count)? {
        if done == data.len() {
            break;
        }
        let take = (len as usize).min(data.len() - done);
        mem.write(ptr, &data[done..done + take])?;
        done += take;
    }
    Ok(done)
}

/// How many bytes a read may fill: the iovecs' total, up to IO_CHUNK_MAX. Every
/// buffer is checked first, so a bad one fails before any input is consumed.
fn iovecs_len(mem: &Mem, iovs: u32, count: u32) -> Result<usize, Errno> {
    let vecs = mem.iovecs(iovs, count)?;
    for &(ptr, len) in &vecs {
        mem.bytes(ptr, len)?;
    }
    Ok(usize::try_from(check_total(&vecs)?)
        .unwrap_or(usize::MAX)
        .min(IO_CHUNK_MAX))
}

pub(super) fn fd_write(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    out: u32,
) -> Res {
    let data = gather(mem, iovs, count)?;
    let written = data.len() as u32;
    let fs = ctx.fs.mem().clone();
    let stream = match ctx.fds.get_mut(&fd).ok_or(wasi::ERRNO_BADF)? {
        Fd::Stdout => Some(OutStream::Stdout),
        Fd::Stderr => Some(OutStream::Stderr),
        Fd::Stdin => return Err(wasi::ERRNO_BADF.into()),
        Fd::Dir(_) => return Err(wasi::ERRNO_ISDIR.into()),
        Fd::File(file) => {
            if !file.write {
                return Err(wasi::ERRNO_BADF.into());
            }
            if file.append {
                file.pos = fs.append_handle(&file.handle, &data)?;
            } else {
                fs.write_handle(&file.handle, file.pos, &data)?;
                file.pos += data.len() as u64;
            }
            None
        }
    };
    if let Some(stream) = stream {
        write_stream(ctx, stream, data)?;
    }
    Ok(mem.set_u32(out, written)?)
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
    let data = gather(mem, iovs, count)?;
    let fs = ctx.fs.mem().clone();
    let file = ctx.file(fd)?;
    if !file.write {
        return Err(wasi::ERRNO_BADF.into());
    }
    fs.write_handle(&file.handle, offset, &data)?;
    Ok(mem.set_u32(out, data.len() as u32)?)
}

pub(super) fn fd_read(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    iovs: u32,
    count: u32,
    out: u32,
) -> Res {
    let want = iovecs_len(mem, iovs, count)?;
    let fs = ctx.fs.mem().clone();
    let data = match ctx.fds.get_mut(&fd).ok_or(wasi::ERRNO_BADF)? {
        Fd::Stdin => {
            if ctx.stdin.is_empty() && !ctx.stdin_ended && want > 0 {
                // A guest that reads its input usually prompted first: show the prompt.
                if !ctx.output.is_empty() {
                    return Err(Fail::Block(Block::Flush));
                }
                return Err(Fail::Block(Block::Stdin));
            }
            let take = want.min(ctx.stdin.len());
            ctx.stdin.drain(..take).collect()
        }
        Fd::Stdout | Fd::Stderr => return Err(wasi::ERRNO_BADF.into()),
        Fd::Dir(_) => return Err(wasi::ERRNO_ISDIR.into()),
        Fd::File(file) => {
            if !file.read {
                return Err(wasi::ERRNO_BADF.into());
            }
            let data = fs.read_handle(&file.handle, file.pos, want)?;
            file.pos += data.len() as u64;
            data
        }
    };
    let done = scatter(mem, iovs, count, &data)?;
    Ok(mem.set_u32(out, done as u32)?)
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
    let want = iovecs_len(mem, iovs, count)?;
    let fs = ctx.fs.mem().clone();
    let file = ctx.file(fd)?;
    if !file.read {
        return Err(wasi::ERRNO_BADF.into());
    }
    let data = fs.read_handle(&file.handle, offset, want)?;
    let done = scatter(mem, iovs, count, &data)?;
    Ok(mem.set_u32(out, done as u32)?)
}

pub(super) fn fd_seek(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    offset: i64,
    whence: u8,
    out: u32,
) -> Res {
    let fs = ctx.fs.mem().clone();
    let file = ctx.file(fd)?;
    let base = match whence {
        0 => 0,
        1 => file.pos,
        2 => fs.handle_metadata(&file.handle).size,
        _ => return Err(wasi::ERRNO_INVAL.into()),
    };
    let pos = i128::from(base) + i128::from(offset);
    if pos < 0 || pos > i128::from(i64::MAX) {
        return Err(wasi::ERRNO_INVAL.into());
    }
    file.pos = pos as u64;
    Ok(mem.set_u64(out, file.pos)?)
}

pub(super) fn fd_tell(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    let pos = ctx.file(fd)?.pos;
    Ok(mem.set_u64(out, pos)?)
}

// ---- descriptors ----

pub(super) fn fd_close(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32) -> Res {
    Ok(ctx.close(fd)?)
}

pub(super) fn fd_renumber(_mem: &mut Mem, ctx: &mut WasiCtx, from: u32, to: u32) -> Res {
    ctx.fd(from)?;
    ctx.fd(to)?;
    if from != to {
        ctx.close(to)?;
        let entry = ctx.fds.remove(&from).ok_or(wasi::ERRNO_BADF)?;
        ctx.fds.insert(to, entry);
    }
    Ok(())
}

pub(super) fn fd_sync(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32) -> Res {
    // Changes reach storage when the command ends (the shell's flush); the descriptor
    // only has to exist.
    ctx.fd(fd)?;
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
    ctx.file(fd)?;
    if advice > 5 {
        return Err(wasi::ERRNO_INVAL.into());
    }
    Ok(())
}

pub(super) fn fd_allocate(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    offset: u64,
    len: u64,
) -> Res {
    let fs = ctx.fs.mem().clone();
    let file = ctx.file(fd)?;
    if !file.write {
        return Err(wasi::ERRNO_BADF.into());
    }
    let end = offset.checked_add(len).ok_or(wasi::ERRNO_FBIG)?;
    if end > fs.handle_metadata(&file.handle).size {
        fs.truncate_handle(&file.handle, end)?;
    }
    Ok(())
}

pub(super) fn fd_fdstat_get(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    let (kind, flags, rights) = match ctx.fd(fd)? {
        Fd::Stdin => (
            wasi::FILETYPE_CHARACTER_DEVICE.raw(),
            0,
            wasi::RIGHTS_FD_READ | wasi::RIGHTS_POLL_FD_READWRITE,
        ),
        Fd::Stdout | Fd::Stderr => (
            wasi::FILETYPE_CHARACTER_DEVICE.raw(),
            0,
            wasi::RIGHTS_FD_WRITE | wasi::RIGHTS_POLL_FD_READWRITE,
        ),
        Fd::File(file) => {
            // wasi-libc derives O_RDONLY/O_WRONLY/O_RDWR from FD_READ, FD_READDIR and
            // FD_WRITE, so a file never reports READDIR.
            let mut rights = RIGHTS_ALL & !wasi::RIGHTS_FD_READDIR;
            if !file.write {
                rights &= !RIGHTS_WRITE;
            }
            if !file.read {
                rights &= !wasi::RIGHTS_FD_READ;
            }
            let flags = if file.append { wasi::FDFLAGS_APPEND } else { 0 };
            (wasi::FILETYPE_REGULAR_FILE.raw(), flags, rights)
        }
        Fd::Dir(dir) => {
            let rights = if dir.writable {
                RIGHTS_ALL
            } else {
                RIGHTS_ALL & !RIGHTS_WRITE
            };
            (wasi::FILETYPE_DIRECTORY.raw(), 0, rights)
        }
    };
    let mut stat = [0u8; 24];
    stat[0] = kind;
    stat[2..4].copy_from_slice(&flags.to_le_bytes());
    stat[8..16].copy_from_slice(&rights.to_le_bytes());
    stat[16..24].copy_from_slice(&rights.to_le_bytes());
    Ok(mem.write(out, &stat)?)
}

pub(super) fn fd_fdstat_set_flags(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, flags: u16) -> Res {
    match ctx.fd_mut(fd)? {
        Fd::File(file) => {
            file.append = flags & wasi::FDFLAGS_APPEND != 0;
            Ok(())
        }
        // Streams and directories have no flags to change; NONBLOCK is accepted.
        _ if flags & !wasi::FDFLAGS_NONBLOCK == 0 => Ok(()),
        _ => Err(wasi::ERRNO_INVAL.into()),
    }
}

pub(super) fn fd_fdstat_set_rights(
    _mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    base: u64,
    _inheriting: u64,
) -> Res {
    // Rights only shrink: dropping read or write takes it from the descriptor.
    if let Fd::File(file) = ctx.fd_mut(fd)? {
        file.read &= base & wasi::RIGHTS_FD_READ != 0;
        file.write &= base & wasi::RIGHTS_FD_WRITE != 0;
    }
    Ok(())
}

pub(super) fn fd_filestat_get(mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, out: u32) -> Res {
    let meta = match ctx.fd(fd)? {
        Fd::File(file) => ctx.fs.mem().handle_metadata(&file.handle),
        Fd::Dir(dir) => ctx.fs.mem().stat(&dir.path)?,
        _ => return stream_filestat(mem, out),
    };
    write_filestat(mem, out, &meta)
}

pub(super) fn fd_filestat_set_size(_mem: &mut Mem, ctx: &mut WasiCtx, fd: u32, size: u64) -> Res {
    let fs = ctx.fs.mem().clone();
    let file = ctx.file(fd)?;
    if !file.write {
        return Err(wasi::ERRNO_BADF.into());
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
        _ => return Err(wasi::ERRNO_BADF.into()),
    };
    let take = name.len().min(len as usize);
    Ok(mem.write(buf, &name.as_bytes()[..take])?)
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
        _ => return Err(wasi::ERRNO_NOTDIR.into()),
    };
    if cookie == 0 || dir.listing.is_none() {
        let fs = fs.mem();
        let here = fs.stat(&dir.path)?;
        let parent = dir
            .path
            .parent()
            .and_then(|parent| fs.stat(&parent).ok())
            .unwrap_or_else(|| here.clone());
        let mut listing = vec![
            (".".to_owned(), here.ino, FileKind::Directory),
            ("..".to_owned(), parent.ino, FileKind::Directory),
        ];
        listing.extend(
            fs.read_dir(&dir.path)?
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

// ---- paths ----

pub(super) fn path_open(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    dirflags: u32,
    path: u32,
    len: u32,
    oflags: u16,
    base: u64,
    _inheriting: u64,
    fdflags: u16,
    out: u32,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    let fs = ctx.fs.mem().clone();
    let follow = dirflags & wasi::LOOKUPFLAGS_SYMLINK_FOLLOW != 0;
    let existing = if follow {
        fs.stat(&path)
    } else {
        fs.lstat(&path)
    };
    let want_dir = oflags & wasi::OFLAGS_DIRECTORY != 0;
    let create = oflags & wasi::OFLAGS_CREAT != 0;
    let truncate = oflags & wasi::OFLAGS_TRUNC != 0;
    let write = base
        & (wasi::RIGHTS_FD_WRITE | wasi::RIGHTS_FD_ALLOCATE | wasi::RIGHTS_FD_FILESTAT_SET_SIZE)
        != 0
        || truncate;
    let read = base & (wasi::RIGHTS_FD_READ | wasi::RIGHTS_FD_READDIR) != 0;
    let meta = match existing {
        Ok(meta) => {
            if create && oflags & wasi::OFLAGS_EXCL != 0 {
                return Err(wasi::ERRNO_EXIST.into());
            }
            Some(meta)
        }
        Err(err) if err.kind() == sandtab_vfs::ErrorKind::NotFound && create && !want_dir => None,
        Err(err) => return Err(err.into()),
    };
    match meta.as_ref().map(|meta| meta.kind) {
        Some(FileKind::Directory) => {
            if write || truncate {
                return Err(wasi::ERRNO_ISDIR.into());
            }
            let writable = fs.check_writable(&path).is_ok();
            let new = ctx.insert(Fd::Dir(OpenDir {
                path,
                listing: None,
                preopen: None,
                writable,
            }))?;
            return Ok(mem.set_u32(out, new)?);
        }
        Some(FileKind::Symlink) => return Err(wasi::ERRNO_LOOP.into()),
        Some(FileKind::File) if want_dir => return Err(wasi::ERRNO_NOTDIR.into()),
        Some(FileKind::File) => {
            if write {
                fs.check_writable(&path)?;
            }
            ensure_loaded(ctx, &path, write)?;
        }
        None => {}
    }
    if ctx.fds.len() >= MAX_OPEN_FDS {
        return Err(wasi::ERRNO_NFILE.into());
    }
    if meta.is_none() {
        // Creating: `write` makes the file (mode 0644), checking the quota first.
        fs.write(&path, &[])?;
    }
    let handle = fs.open(&path)?;
    if truncate && meta.is_some() {
        // Through the handle: the file opened is the one truncated, whatever links led to it.
        if let Err(err) = fs.truncate_handle(&handle, 0) {
            fs.close(handle);
            return Err(err.into());
        }
    }
    let new = ctx.insert(Fd::File(OpenFile {
        handle,
        pos: 0,
        append: fdflags & wasi::FDFLAGS_APPEND != 0,
        read: read || !write,
        write,
    }));
    match new {
        Ok(new) => Ok(mem.set_u32(out, new)?),
        Err(errno) => Err(errno.into()),
    }
}

pub(super) fn path_create_directory(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    Ok(ctx.fs.mem().create_dir(&path)?)
}

pub(super) fn path_remove_directory(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    Ok(ctx.fs.mem().remove_dir(&path)?)
}

pub(super) fn path_unlink_file(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    let fs = ctx.fs.mem();
    if fs.lstat(&path)?.kind == FileKind::Directory {
        return Err(wasi::ERRNO_ISDIR.into());
    }
    Ok(fs.remove_file(&path)?)
}

pub(super) fn path_filestat_get(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    flags: u32,
    path: u32,
    len: u32,
    out: u32,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    let fs = ctx.fs.mem();
    let meta = if flags & wasi::LOOKUPFLAGS_SYMLINK_FOLLOW != 0 {
        fs.stat(&path)?
    } else {
        fs.lstat(&path)?
    };
    write_filestat(mem, out, &meta)
}

pub(super) fn path_filestat_set_times(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    _flags: u32,
    path: u32,
    len: u32,
    atim: u64,
    mtim: u64,
    fst: u16,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    let (accessed, modified) = requested_times(ctx, atim, mtim, fst)?;
    Ok(ctx.fs.mem().set_times(&path, accessed, modified)?)
}

pub(super) fn path_link(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    old_fd: u32,
    _old_flags: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> Res {
    let from = path_arg(mem, ctx, old_fd, old_path, old_len)?;
    let to = path_arg(mem, ctx, new_fd, new_path, new_len)?;
    Ok(ctx.fs.mem().hard_link(&from, &to)?)
}

pub(super) fn path_readlink(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
    buf: u32,
    buf_len: u32,
    out: u32,
) -> Res {
    let path = path_arg(mem, ctx, fd, path, len)?;
    let target = ctx.fs.mem().read_link(&path)?;
    let take = target.len().min(buf_len as usize);
    mem.write(buf, &target.as_bytes()[..take])?;
    Ok(mem.set_u32(out, take as u32)?)
}

pub(super) fn path_rename(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> Res {
    let from = path_arg(mem, ctx, fd, old_path, old_len)?;
    let to = path_arg(mem, ctx, new_fd, new_path, new_len)?;
    Ok(ctx.fs.mem().rename(&from, &to)?)
}

pub(super) fn path_symlink(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    old_path: u32,
    old_len: u32,
    fd: u32,
    new_path: u32,
    new_len: u32,
) -> Res {
    if old_len as usize > sandtab_vfs::MAX_PATH_LEN {
        return Err(wasi::ERRNO_NAMETOOLONG.into());
    }
    let target = mem.str(old_path, old_len)?.to_owned();
    let link = path_arg(mem, ctx, fd, new_path, new_len)?;
    Ok(ctx.fs.mem().symlink(&target, &link)?)
}
