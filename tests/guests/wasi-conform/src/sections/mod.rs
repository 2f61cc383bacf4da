//! The sections: each a sequence of calls on the preopen at fd 3, printed as it goes.

mod descriptors;
mod files;
mod misc;
mod paths;

use crate::res;
use crate::sys::{self, Fd, filetype_name};
use descriptors::{dirops, fdstat, preopens, prestat, rights, stdio};
use files::{dirs, files, readdir};
use misc::{args_env, bad, clock, fault, misc, poll, random, sock};
use paths::{links, paths, trailing};
use wasi::*;

/// The preopened directory every section works in.
pub(crate) const DIR: Fd = 3;
pub(crate) const FOLLOW: u32 = LOOKUPFLAGS_SYMLINK_FOLLOW;
pub(crate) const FILE_RW: u64 = RIGHTS_FD_READ
    | RIGHTS_FD_WRITE
    | RIGHTS_FD_SEEK
    | RIGHTS_FD_TELL
    | RIGHTS_FD_FILESTAT_GET
    | RIGHTS_FD_FILESTAT_SET_SIZE
    | RIGHTS_FD_FILESTAT_SET_TIMES
    | RIGHTS_FD_ALLOCATE
    | RIGHTS_FD_ADVISE
    | RIGHTS_FD_SYNC
    | RIGHTS_FD_DATASYNC
    | RIGHTS_FD_FDSTAT_SET_FLAGS
    | RIGHTS_POLL_FD_READWRITE;

pub fn run(section: &str, args: &[String]) -> bool {
    match section {
        "args" => args_env(),
        "clock" => clock(),
        "random" => random(),
        "fdstat" => fdstat(),
        "stdio" => stdio(),
        "prestat" => prestat(),
        "rights" => rights(),
        "preopens" => preopens(),
        "trailing" => trailing(),
        "links" => links(),
        "dirops" => dirops(),
        "sock" => sock(),
        "paths" => paths(),
        "files" => files(),
        "dirs" => dirs(),
        "readdir" => readdir(),
        "poll" => poll(),
        "misc" => misc(),
        "fault" => return fault(args.first().map(String::as_str).unwrap_or("")),
        "bad" => return bad(args.first().map(String::as_str).unwrap_or("")),
        "exit" => sys::proc_exit(args.first().and_then(|code| code.parse().ok()).unwrap_or(1)),
        _ => return false,
    }
    true
}

pub(crate) fn rights_text(stat: &sys::Fdstat) -> String {
    format!(
        "{} flags={:#x} base={:#x} inheriting={:#x}",
        filetype_name(stat.filetype),
        stat.flags,
        stat.base,
        stat.inheriting
    )
}

pub(crate) fn fdstat_line(label: &str, fd: Fd) -> Option<sys::Fdstat> {
    res(
        &format!("{label}: fd_fdstat_get({fd})"),
        sys::fdstat(fd),
        rights_text,
    )
}

pub(crate) fn stat_text(stat: &sys::Filestat) -> String {
    format!(
        "{} nlink={} size={}",
        filetype_name(stat.filetype),
        stat.nlink,
        stat.size
    )
}

pub(crate) fn open(
    label: &str,
    fd: Fd,
    flags: u32,
    path: &str,
    oflags: u16,
    base: u64,
    inh: u64,
) -> Option<Fd> {
    res(
        &format!(
            "{label}: path_open({fd}, {flags}, {path:?}, oflags={oflags:#x}, base={base:#x}, inh={inh:#x})"
        ),
        sys::path_open(fd, flags, path, oflags, base, inh, 0),
        |fd| format!("fd={fd}"),
    )
}

/// Creates `path` under fd 3 with `contents` (setup: must succeed).
pub(crate) fn make_file(path: &str, contents: &[u8]) {
    let fd = sys::path_open(DIR, 0, path, OFLAGS_CREAT | OFLAGS_TRUNC, FILE_RW, 0, 0)
        .unwrap_or_else(|e| panic!("setup: create {path}: {}", sys::errname(e)));
    sys::fd_write(fd, &[contents]).expect("setup: write");
    sys::fd_close(fd);
}

pub(crate) fn setup(code: i32, what: &str) {
    assert!(code == 0, "setup: {what}: {}", sys::errname(code));
}

pub(crate) fn filestat(label: &str, flags: u32, path: &str) -> Option<sys::Filestat> {
    res(
        &format!("{label}: path_filestat_get({flags}, {path:?})"),
        sys::path_filestat_get(DIR, flags, path),
        stat_text,
    )
}

/// The preopen's rights, which a directory is reopened with.
pub(crate) fn dir_rights() -> (u64, u64) {
    sys::fdstat(DIR)
        .map(|s| (s.base, s.inheriting))
        .unwrap_or((0, 0))
}

pub(crate) fn close(fd: Option<Fd>) {
    if let Some(fd) = fd {
        sys::fd_close(fd);
    }
}

// ---- sections ----
