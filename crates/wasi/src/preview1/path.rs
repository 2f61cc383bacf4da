//! The `path_*` functions: opening, creating, removing, renaming and linking by path,
//! each resolved beneath a directory descriptor (`resolve.rs`), as wasmtime 50 answers.

use super::device::OpenDevice;
use super::fd::{Fd, OpenDir, OpenFile, WasiCtx};
use super::fs::{
    FDFLAGS_ALL, FDFLAGS_SYNCS, MAX_OPEN_FDS, RIGHTS_ALL, ensure_loaded, guest_meta,
    requested_times, write_filestat,
};
use super::memory::Mem;
use super::resolve::Resolved;
use super::{Fail, Res, check_bits};
use sandtab_vfs::FileKind;

/// The guest's path string, resolved beneath directory `fd`.
fn path_arg(
    mem: &Mem,
    ctx: &WasiCtx,
    fd: u32,
    ptr: u32,
    len: u32,
    follow_last: bool,
) -> Result<Resolved, Fail> {
    ctx.dir(fd)?;
    let path = mem.str(ptr, len)?;
    Ok(ctx.resolve(fd, &path, follow_last)?)
}

fn follows(flags: u32) -> Result<bool, Fail> {
    check_bits("lookupflags", u64::from(flags), 1)?;
    Ok(flags & wasi::LOOKUPFLAGS_SYMLINK_FOLLOW != 0)
}

pub(super) fn path_open(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    dirflags: u32,
    path: u32,
    len: u32,
    oflags: u16,
    base: u64,
    inheriting: u64,
    fdflags: u16,
    out: u32,
) -> Res {
    let follow = follows(dirflags)?;
    check_bits("oflags", u64::from(oflags), 0xf)?;
    check_bits("rights", base, RIGHTS_ALL)?;
    check_bits("rights", inheriting, RIGHTS_ALL)?;
    check_bits("fdflags", u64::from(fdflags), u64::from(FDFLAGS_ALL))?;
    let path_text = mem.str(path, len)?.into_owned();
    match ctx.fd(fd)? {
        Fd::Dir(_) => {}
        Fd::File(_) => return Err(wasi::ERRNO_NOTDIR.into()),
        _ => return Err(wasi::ERRNO_BADF.into()),
    }
    if fdflags & FDFLAGS_SYNCS != 0 {
        return Err(wasi::ERRNO_NOTSUP.into());
    }
    let want_dir = oflags & wasi::OFLAGS_DIRECTORY != 0;
    let create = oflags & wasi::OFLAGS_CREAT != 0;
    let exclusive = oflags & wasi::OFLAGS_EXCL != 0;
    let truncate = oflags & wasi::OFLAGS_TRUNC != 0;
    if create && want_dir {
        return Err(wasi::ERRNO_INVAL.into());
    }
    let read = base & wasi::RIGHTS_FD_READ != 0;
    let write = base & wasi::RIGHTS_FD_WRITE != 0;
    // `/dev/sandtab/NAME` is a device, whatever the files hold (see `device`).
    let named = ctx.dir(fd)?.path.join(&path_text).ok();
    if let Some(device) = named.as_ref().and_then(OpenDevice::named) {
        if want_dir || (create && exclusive) {
            return Err(wasi::ERRNO_INVAL.into());
        }
        if ctx.fds.len() >= MAX_OPEN_FDS {
            return Err(wasi::ERRNO_NFILE.into());
        }
        let new = ctx.insert(Fd::Device(device))?;
        return Ok(mem.set_u32(out, new)?);
    }
    let target = ctx.resolve(fd, &path_text, follow)?;
    let fs = ctx.fs.mem().clone();
    let meta = match fs.lstat(&target.path) {
        Ok(meta) => {
            if create && exclusive {
                return Err(wasi::ERRNO_EXIST.into());
            }
            Some(meta)
        }
        Err(err) if err.kind() == sandtab_vfs::ErrorKind::NotFound && create => {
            if target.must_be_dir {
                return Err(wasi::ERRNO_ISDIR.into());
            }
            None
        }
        Err(err) => return Err(err.into()),
    };
    if ctx.fds.len() >= MAX_OPEN_FDS {
        return Err(wasi::ERRNO_NFILE.into());
    }
    match meta.as_ref().map(|meta| meta.kind) {
        Some(FileKind::Symlink) => return Err(wasi::ERRNO_LOOP.into()),
        Some(FileKind::Directory) => {
            if write {
                return Err(wasi::ERRNO_ISDIR.into());
            }
            let new = ctx.insert(Fd::Dir(OpenDir {
                path: target.path,
                listing: None,
                preopen: None,
            }))?;
            return Ok(mem.set_u32(out, new)?);
        }
        Some(FileKind::File) if want_dir => return Err(wasi::ERRNO_NOTDIR.into()),
        Some(FileKind::File) => {
            if write || truncate {
                fs.check_writable(&target.path)?;
            }
            ensure_loaded(ctx, &target.path, write || truncate)?;
        }
        None => {}
    }
    if meta.is_none() {
        // Creating: `write` makes the file (mode 0644), checking the quota first.
        fs.write(&target.path, &[])?;
    }
    let handle = fs.open(&target.path)?;
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
        nonblock: fdflags & wasi::FDFLAGS_NONBLOCK != 0,
        // Neither right asked: the file is still opened for reading, as `open(2)`'s
        // O_RDONLY is zero.
        read: read || !write,
        write,
    }))?;
    Ok(mem.set_u32(out, new)?)
}

pub(super) fn path_create_directory(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
) -> Res {
    // `mkdir("d/")` makes `d`; what is already there, even a file, is EEXIST.
    let text = mem.str(path, len)?;
    let trimmed = text.trim_end_matches('/');
    let text = if trimmed.is_empty() { &text } else { trimmed }.to_owned();
    ctx.dir(fd)?;
    let target = ctx.resolve(fd, &text, false)?;
    let fs = ctx.fs.mem();
    match fs.lstat(&target.path) {
        Ok(_) => Err(wasi::ERRNO_EXIST.into()),
        Err(_) if target.is_base => Err(wasi::ERRNO_NOENT.into()),
        Err(_) => Ok(fs.create_dir(&target.path)?),
    }
}

pub(super) fn path_remove_directory(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
) -> Res {
    let target = path_arg(mem, ctx, fd, path, len, false)?;
    let fs = ctx.fs.mem();
    if target.is_base || target.must_be_dir {
        // `rmdir("d/")`, `rmdir(".")`: Linux refuses the spelling, whatever is there.
        fs.lstat(&target.path)?;
        return Err(match fs.lstat(&target.path)?.kind {
            FileKind::File => wasi::ERRNO_NOTDIR,
            _ => wasi::ERRNO_INVAL,
        }
        .into());
    }
    if fs.lstat(&target.path)?.kind != FileKind::Directory {
        return Err(wasi::ERRNO_NOTDIR.into());
    }
    Ok(fs.remove_dir(&target.path)?)
}

pub(super) fn path_unlink_file(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    path: u32,
    len: u32,
) -> Res {
    let target = path_arg(mem, ctx, fd, path, len, false)?;
    let fs = ctx.fs.mem();
    let kind = fs.lstat(&target.path)?.kind;
    if kind == FileKind::Directory || target.is_base {
        return Err(wasi::ERRNO_ISDIR.into());
    }
    if target.must_be_dir {
        return Err(wasi::ERRNO_NOTDIR.into());
    }
    Ok(fs.remove_file(&target.path)?)
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
    let follow = follows(flags)?;
    let target = path_arg(mem, ctx, fd, path, len, follow)?;
    let fs = ctx.fs.mem();
    let meta = guest_meta(fs, &target.path, fs.lstat(&target.path)?);
    write_filestat(mem, out, &meta)
}

pub(super) fn path_filestat_set_times(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    fd: u32,
    flags: u32,
    path: u32,
    len: u32,
    atim: u64,
    mtim: u64,
    fst: u16,
) -> Res {
    let follow = follows(flags)?;
    let (accessed, modified) = requested_times(ctx, atim, mtim, fst)?;
    let target = path_arg(mem, ctx, fd, path, len, follow)?;
    Ok(ctx
        .fs
        .mem()
        .set_times_nofollow(&target.path, accessed, modified)?)
}

pub(super) fn path_link(
    mem: &mut Mem,
    ctx: &mut WasiCtx,
    old_fd: u32,
    old_flags: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> Res {
    let follow = follows(old_flags)?;
    ctx.dir(old_fd)?;
    ctx.dir(new_fd)?;
    if follow {
        // wasmtime cannot link through a symlink, and says so.
        return Err(wasi::ERRNO_INVAL.into());
    }
    let from = path_arg(mem, ctx, old_fd, old_path, old_len, false)?;
    let to = path_arg(mem, ctx, new_fd, new_path, new_len, false)?;
    let fs = ctx.fs.mem();
    let kind = fs.lstat(&from.path)?.kind;
    if kind == FileKind::Directory {
        return Err(wasi::ERRNO_PERM.into());
    }
    if from.must_be_dir {
        return Err(wasi::ERRNO_NOTDIR.into());
    }
    if fs.lstat(&to.path).is_ok() {
        return Err(wasi::ERRNO_EXIST.into());
    }
    if to.must_be_dir {
        return Err(wasi::ERRNO_NOENT.into());
    }
    Ok(fs.hard_link(&from.path, &to.path)?)
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
    let target = path_arg(mem, ctx, fd, path, len, false)?;
    let fs = ctx.fs.mem();
    if fs.lstat(&target.path)?.kind != FileKind::Symlink {
        return Err(wasi::ERRNO_INVAL.into());
    }
    let link = fs.read_link(&target.path)?;
    let take = link.len().min(buf_len as usize);
    mem.write(buf, &link.as_bytes()[..take])?;
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
    ctx.dir(fd)?;
    ctx.dir(new_fd)?;
    let from = path_arg(mem, ctx, fd, old_path, old_len, false)?;
    let to = path_arg(mem, ctx, new_fd, new_path, new_len, false)?;
    let fs = ctx.fs.mem();
    let kind = fs.lstat(&from.path)?.kind;
    if from.is_base || to.is_base {
        return Err(wasi::ERRNO_BUSY.into());
    }
    if kind != FileKind::Directory && (from.must_be_dir || to.must_be_dir) {
        return Err(wasi::ERRNO_NOTDIR.into());
    }
    Ok(fs.rename(&from.path, &to.path)?)
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
    let target = mem.str(old_path, old_len)?.into_owned();
    // The target is taken first, as `symlinkat(2)` copies it before it looks at the link.
    if target.len() > sandtab_vfs::MAX_PATH_LEN {
        return Err(wasi::ERRNO_NAMETOOLONG.into());
    }
    let link = path_arg(mem, ctx, fd, new_path, new_len, false)?;
    if target.starts_with('/') && !ctx.reaches_root(fd)? {
        // A link that would lead out of its preopen is refused when made (wasmtime).
        return Err(wasi::ERRNO_PERM.into());
    }
    let fs = ctx.fs.mem();
    if fs.lstat(&link.path).is_ok() || link.is_base {
        return Err(wasi::ERRNO_EXIST.into());
    }
    if target.is_empty() || link.must_be_dir {
        return Err(wasi::ERRNO_NOENT.into());
    }
    Ok(fs.symlink(&target, &link.path)?)
}
