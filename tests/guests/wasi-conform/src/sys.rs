//! Thin wrappers over the raw `wasi_snapshot_preview1` imports: every call returns the errno
//! the host gave (0 for success) so a test can print it, and takes its arguments unchecked,
//! so invalid ones reach the host exactly as written.

use wasi::wasi_snapshot_preview1 as raw;

pub type Fd = u32;

/// A guest address as the ABI passes it.
fn addr<T: ?Sized>(ptr: *const T) -> i32 {
    ptr as *const u8 as usize as i32
}

/// An address past the end of any memory the guest has: every access through it faults.
pub const BAD_PTR: i32 = -16; // 0xFFFF_FFF0

/// The errno's WASI name (`NOTCAPABLE`), or its number if it has none.
pub fn errname(code: i32) -> String {
    match u16::try_from(code) {
        // Errno is repr(transparent) over u16, and names() covers 0..=76.
        Ok(code) if code <= 76 => {
            let errno: wasi::Errno = unsafe { core::mem::transmute::<u16, wasi::Errno>(code) };
            errno.name().to_owned()
        }
        _ => format!("errno {code}"),
    }
}

#[derive(Default, Clone, Copy)]
pub struct Fdstat {
    pub filetype: u8,
    pub flags: u16,
    pub base: u64,
    pub inheriting: u64,
}

#[derive(Default, Clone, Copy)]
pub struct Filestat {
    pub filetype: u8,
    pub nlink: u64,
    pub size: u64,
    pub atim: u64,
    pub mtim: u64,
}

pub fn filetype_name(filetype: u8) -> &'static str {
    match filetype {
        0 => "unknown",
        1 => "block_device",
        2 => "character_device",
        3 => "directory",
        4 => "regular_file",
        5 => "socket_dgram",
        6 => "socket_stream",
        7 => "symbolic_link",
        _ => "invalid",
    }
}

pub fn fdstat(fd: Fd) -> Result<Fdstat, i32> {
    let mut buf = [0u8; 24];
    let code = unsafe { raw::fd_fdstat_get(fd as i32, addr(buf.as_mut_ptr())) };
    if code != 0 {
        return Err(code);
    }
    Ok(Fdstat {
        filetype: buf[0],
        flags: u16::from_le_bytes([buf[2], buf[3]]),
        base: u64::from_le_bytes(buf[8..16].try_into().unwrap()),
        inheriting: u64::from_le_bytes(buf[16..24].try_into().unwrap()),
    })
}

fn parse_filestat(buf: &[u8; 64]) -> Filestat {
    let u64_at = |at: usize| u64::from_le_bytes(buf[at..at + 8].try_into().unwrap());
    Filestat {
        filetype: buf[16],
        nlink: u64_at(24),
        size: u64_at(32),
        atim: u64_at(40),
        mtim: u64_at(48),
    }
}

pub fn fd_filestat_get(fd: Fd) -> Result<Filestat, i32> {
    let mut buf = [0u8; 64];
    match unsafe { raw::fd_filestat_get(fd as i32, addr(buf.as_mut_ptr())) } {
        0 => Ok(parse_filestat(&buf)),
        code => Err(code),
    }
}

pub fn path_filestat_get(fd: Fd, flags: u32, path: &str) -> Result<Filestat, i32> {
    let mut buf = [0u8; 64];
    let code = unsafe {
        raw::path_filestat_get(
            fd as i32,
            flags as i32,
            addr(path.as_ptr()),
            path.len() as i32,
            addr(buf.as_mut_ptr()),
        )
    };
    match code {
        0 => Ok(parse_filestat(&buf)),
        code => Err(code),
    }
}

pub fn path_open(
    fd: Fd,
    dirflags: u32,
    path: &str,
    oflags: u16,
    base: u64,
    inheriting: u64,
    fdflags: u16,
) -> Result<Fd, i32> {
    let mut out = 0u32;
    let code = unsafe {
        raw::path_open(
            fd as i32,
            dirflags as i32,
            addr(path.as_ptr()),
            path.len() as i32,
            i32::from(oflags),
            base as i64,
            inheriting as i64,
            i32::from(fdflags),
            addr(&mut out),
        )
    };
    match code {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn fd_write(fd: Fd, chunks: &[&[u8]]) -> Result<u32, i32> {
    let iovs: Vec<[u32; 2]> = chunks
        .iter()
        .map(|c| [addr(c.as_ptr()) as u32, c.len() as u32])
        .collect();
    let mut out = 0u32;
    let code = unsafe {
        raw::fd_write(
            fd as i32,
            addr(iovs.as_ptr()),
            iovs.len() as i32,
            addr(&mut out),
        )
    };
    match code {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn fd_pwrite(fd: Fd, data: &[u8], offset: u64) -> Result<u32, i32> {
    let iov = [addr(data.as_ptr()) as u32, data.len() as u32];
    let mut out = 0u32;
    let code = unsafe { raw::fd_pwrite(fd as i32, addr(&iov), 1, offset as i64, addr(&mut out)) };
    match code {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn fd_read(fd: Fd, len: usize) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; len];
    let iov = [addr(buf.as_mut_ptr()) as u32, len as u32];
    let mut out = 0u32;
    let code = unsafe { raw::fd_read(fd as i32, addr(&iov), 1, addr(&mut out)) };
    if code != 0 {
        return Err(code);
    }
    buf.truncate(out as usize);
    Ok(buf)
}

pub fn fd_pread(fd: Fd, len: usize, offset: u64) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; len];
    let iov = [addr(buf.as_mut_ptr()) as u32, len as u32];
    let mut out = 0u32;
    let code = unsafe { raw::fd_pread(fd as i32, addr(&iov), 1, offset as i64, addr(&mut out)) };
    if code != 0 {
        return Err(code);
    }
    buf.truncate(out as usize);
    Ok(buf)
}

pub fn fd_seek(fd: Fd, offset: i64, whence: u8) -> Result<u64, i32> {
    let mut out = 0u64;
    match unsafe { raw::fd_seek(fd as i32, offset, i32::from(whence), addr(&mut out)) } {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn fd_tell(fd: Fd) -> Result<u64, i32> {
    let mut out = 0u64;
    match unsafe { raw::fd_tell(fd as i32, addr(&mut out)) } {
        0 => Ok(out),
        code => Err(code),
    }
}

/// The raw bytes `fd_readdir` returned for a buffer of `len` bytes from `cookie`.
pub fn fd_readdir(fd: Fd, len: usize, cookie: u64) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; len];
    let mut out = 0u32;
    let code = unsafe {
        raw::fd_readdir(
            fd as i32,
            addr(buf.as_mut_ptr()),
            len as i32,
            cookie as i64,
            addr(&mut out),
        )
    };
    if code != 0 {
        return Err(code);
    }
    buf.truncate(out as usize);
    Ok(buf)
}

pub fn path_readlink(fd: Fd, path: &str, len: usize) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; len];
    let mut out = 0u32;
    let code = unsafe {
        raw::path_readlink(
            fd as i32,
            addr(path.as_ptr()),
            path.len() as i32,
            addr(buf.as_mut_ptr()),
            len as i32,
            addr(&mut out),
        )
    };
    if code != 0 {
        return Err(code);
    }
    buf.truncate(out as usize);
    Ok(buf)
}

pub fn prestat_get(fd: Fd) -> Result<(u8, u32), i32> {
    let mut buf = [0u32; 2];
    match unsafe { raw::fd_prestat_get(fd as i32, addr(buf.as_mut_ptr())) } {
        0 => Ok(((buf[0] & 0xff) as u8, buf[1])),
        code => Err(code),
    }
}

pub fn prestat_dir_name(fd: Fd, len: usize) -> Result<Vec<u8>, i32> {
    let mut buf = vec![b'#'; len];
    match unsafe { raw::fd_prestat_dir_name(fd as i32, addr(buf.as_mut_ptr()), len as i32) } {
        0 => Ok(buf),
        code => Err(code),
    }
}

macro_rules! path1 {
    ($name:ident) => {
        pub fn $name(fd: Fd, path: &str) -> i32 {
            unsafe { raw::$name(fd as i32, addr(path.as_ptr()), path.len() as i32) }
        }
    };
}
path1!(path_create_directory);
path1!(path_remove_directory);
path1!(path_unlink_file);

pub fn path_rename(fd: Fd, from: &str, new_fd: Fd, to: &str) -> i32 {
    unsafe {
        raw::path_rename(
            fd as i32,
            addr(from.as_ptr()),
            from.len() as i32,
            new_fd as i32,
            addr(to.as_ptr()),
            to.len() as i32,
        )
    }
}

pub fn path_link(fd: Fd, flags: u32, from: &str, new_fd: Fd, to: &str) -> i32 {
    unsafe {
        raw::path_link(
            fd as i32,
            flags as i32,
            addr(from.as_ptr()),
            from.len() as i32,
            new_fd as i32,
            addr(to.as_ptr()),
            to.len() as i32,
        )
    }
}

pub fn path_symlink(target: &str, fd: Fd, link: &str) -> i32 {
    unsafe {
        raw::path_symlink(
            addr(target.as_ptr()),
            target.len() as i32,
            fd as i32,
            addr(link.as_ptr()),
            link.len() as i32,
        )
    }
}

pub fn path_filestat_set_times(
    fd: Fd,
    flags: u32,
    path: &str,
    atim: u64,
    mtim: u64,
    fst: u16,
) -> i32 {
    unsafe {
        raw::path_filestat_set_times(
            fd as i32,
            flags as i32,
            addr(path.as_ptr()),
            path.len() as i32,
            atim as i64,
            mtim as i64,
            i32::from(fst),
        )
    }
}

pub fn fd_filestat_set_times(fd: Fd, atim: u64, mtim: u64, fst: u16) -> i32 {
    unsafe { raw::fd_filestat_set_times(fd as i32, atim as i64, mtim as i64, i32::from(fst)) }
}

pub fn fd_filestat_set_size(fd: Fd, size: u64) -> i32 {
    unsafe { raw::fd_filestat_set_size(fd as i32, size as i64) }
}

pub fn fd_allocate(fd: Fd, offset: u64, len: u64) -> i32 {
    unsafe { raw::fd_allocate(fd as i32, offset as i64, len as i64) }
}

pub fn fd_advise(fd: Fd, offset: u64, len: u64, advice: u8) -> i32 {
    unsafe { raw::fd_advise(fd as i32, offset as i64, len as i64, i32::from(advice)) }
}

pub fn fd_fdstat_set_flags(fd: Fd, flags: u16) -> i32 {
    unsafe { raw::fd_fdstat_set_flags(fd as i32, i32::from(flags)) }
}

pub fn fd_fdstat_set_rights(fd: Fd, base: u64, inheriting: u64) -> i32 {
    unsafe { raw::fd_fdstat_set_rights(fd as i32, base as i64, inheriting as i64) }
}

pub fn fd_close(fd: Fd) -> i32 {
    unsafe { raw::fd_close(fd as i32) }
}

pub fn fd_sync(fd: Fd) -> i32 {
    unsafe { raw::fd_sync(fd as i32) }
}

pub fn fd_datasync(fd: Fd) -> i32 {
    unsafe { raw::fd_datasync(fd as i32) }
}

pub fn fd_renumber(from: Fd, to: Fd) -> i32 {
    unsafe { raw::fd_renumber(from as i32, to as i32) }
}

pub fn clock_res_get(id: u32) -> Result<u64, i32> {
    let mut out = 0u64;
    match unsafe { raw::clock_res_get(id as i32, addr(&mut out)) } {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn clock_time_get(id: u32, precision: u64) -> Result<u64, i32> {
    let mut out = 0u64;
    match unsafe { raw::clock_time_get(id as i32, precision as i64, addr(&mut out)) } {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn random_get(buf: &mut [u8]) -> i32 {
    unsafe { raw::random_get(addr(buf.as_mut_ptr()), buf.len() as i32) }
}

pub fn sched_yield() -> i32 {
    unsafe { raw::sched_yield() }
}

pub fn proc_raise(signal: u8) -> i32 {
    unsafe { raw::proc_raise(i32::from(signal)) }
}

pub fn proc_exit(code: u32) -> ! {
    unsafe { raw::proc_exit(code as i32) }
}

pub fn sock_shutdown(fd: Fd, how: u8) -> i32 {
    unsafe { raw::sock_shutdown(fd as i32, i32::from(how)) }
}

pub fn sock_accept(fd: Fd, flags: u16) -> Result<Fd, i32> {
    let mut out = 0u32;
    match unsafe { raw::sock_accept(fd as i32, i32::from(flags), addr(&mut out)) } {
        0 => Ok(out),
        code => Err(code),
    }
}

pub fn sock_recv(fd: Fd, len: usize, flags: u16) -> Result<(u32, u16), i32> {
    let mut buf = vec![0u8; len];
    let iov = [addr(buf.as_mut_ptr()) as u32, len as u32];
    let mut nread = 0u32;
    let mut oflags = 0u16;
    let code = unsafe {
        raw::sock_recv(
            fd as i32,
            addr(&iov),
            1,
            i32::from(flags),
            addr(&mut nread),
            addr(&mut oflags),
        )
    };
    match code {
        0 => Ok((nread, oflags)),
        code => Err(code),
    }
}

pub fn sock_send(fd: Fd, data: &[u8]) -> Result<u32, i32> {
    let iov = [addr(data.as_ptr()) as u32, data.len() as u32];
    let mut out = 0u32;
    match unsafe { raw::sock_send(fd as i32, addr(&iov), 1, 0, addr(&mut out)) } {
        0 => Ok(out),
        code => Err(code),
    }
}

/// One subscription of `poll_oneoff`, laid out as the ABI wants (48 bytes).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Subscription {
    pub userdata: u64,
    pub tag: u8,
    _pad: [u8; 7],
    /// clock: id (u32 + pad), timeout u64, precision u64, flags u16; fd: fd u32.
    pub body: [u8; 32],
}

impl Subscription {
    pub fn clock(userdata: u64, id: u32, timeout: u64, precision: u64, flags: u16) -> Self {
        let mut body = [0u8; 32];
        body[0..4].copy_from_slice(&id.to_le_bytes());
        body[8..16].copy_from_slice(&timeout.to_le_bytes());
        body[16..24].copy_from_slice(&precision.to_le_bytes());
        body[24..26].copy_from_slice(&flags.to_le_bytes());
        Self {
            userdata,
            tag: 0,
            _pad: [0; 7],
            body,
        }
    }
    pub fn fd(userdata: u64, tag: u8, fd: Fd) -> Self {
        let mut body = [0u8; 32];
        body[0..4].copy_from_slice(&fd.to_le_bytes());
        Self {
            userdata,
            tag,
            _pad: [0; 7],
            body,
        }
    }
}

/// One event `poll_oneoff` gave: (userdata, errno, type, nbytes, flags).
pub type Event = (u64, u16, u8, u64, u16);

pub fn poll_oneoff(subs: &[Subscription]) -> Result<Vec<Event>, i32> {
    let mut events = vec![[0u8; 32]; subs.len().max(1)];
    let mut count = 0u32;
    let code = unsafe {
        raw::poll_oneoff(
            addr(subs.as_ptr()),
            addr(events.as_mut_ptr()),
            subs.len() as i32,
            addr(&mut count),
        )
    };
    if code != 0 {
        return Err(code);
    }
    Ok(events[..count as usize]
        .iter()
        .map(|e| {
            (
                u64::from_le_bytes(e[0..8].try_into().unwrap()),
                u16::from_le_bytes([e[8], e[9]]),
                e[10],
                u64::from_le_bytes(e[16..24].try_into().unwrap()),
                u16::from_le_bytes([e[24], e[25]]),
            )
        })
        .collect())
}

/// Raw access for the fault cases, which pass addresses outside memory on purpose.
pub mod unchecked {
    pub use wasi::wasi_snapshot_preview1::*;
}

pub fn addr_of<T: ?Sized>(ptr: *const T) -> i32 {
    addr(ptr)
}
