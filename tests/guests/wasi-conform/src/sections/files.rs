//! Files and directories: reading, writing, sizes, times, creating, removing, listing.

use super::{
    DIR, FILE_RW, close, dir_rights, fdstat_line, filestat, make_file, open, setup, stat_text,
};
use crate::sys::{self, filetype_name};
use crate::{code, res};
use wasi::*;

pub(super) fn files() {
    let fd = open(
        "create",
        DIR,
        0,
        "f",
        OFLAGS_CREAT | OFLAGS_EXCL,
        FILE_RW,
        0,
    )
    .expect("create");
    let again = open(
        "create excl again",
        DIR,
        0,
        "f",
        OFLAGS_CREAT | OFLAGS_EXCL,
        FILE_RW,
        0,
    );
    close(again);
    res(
        "fd_write two iovecs",
        sys::fd_write(fd, &[b"hello ", b"world"]),
        |n| n.to_string(),
    );
    res("fd_tell", sys::fd_tell(fd), |p| p.to_string());
    res("fd_seek(-5, END)", sys::fd_seek(fd, -5, 2), |p| {
        p.to_string()
    });
    res("fd_read(3)", sys::fd_read(fd, 3), |d| {
        String::from_utf8_lossy(d).into_owned()
    });
    res("fd_seek(1, CUR)", sys::fd_seek(fd, 1, 1), |p| p.to_string());
    res("fd_read to end", sys::fd_read(fd, 100), |d| {
        String::from_utf8_lossy(d).into_owned()
    });
    res("fd_read at end", sys::fd_read(fd, 100), |d| {
        format!("{} bytes", d.len())
    });
    res("fd_pread(5, 0)", sys::fd_pread(fd, 5, 0), |d| {
        String::from_utf8_lossy(d).into_owned()
    });
    res("fd_pread past end", sys::fd_pread(fd, 5, 100), |d| {
        format!("{} bytes", d.len())
    });
    res("fd_tell after pread", sys::fd_tell(fd), |p| p.to_string());
    res("fd_pwrite at 20", sys::fd_pwrite(fd, b"XY", 20), |n| {
        n.to_string()
    });
    res("fd_tell after pwrite", sys::fd_tell(fd), |p| p.to_string());
    res("fd_pread hole", sys::fd_pread(fd, 12, 10), |d| {
        format!("{d:?}")
    });
    res("fd_filestat_get", sys::fd_filestat_get(fd), stat_text);
    code("fd_filestat_set_size(4)", sys::fd_filestat_set_size(fd, 4));
    res("fd_pread after shrink", sys::fd_pread(fd, 100, 0), |d| {
        String::from_utf8_lossy(d).into_owned()
    });
    code("fd_filestat_set_size(8)", sys::fd_filestat_set_size(fd, 8));
    res("fd_pread after grow", sys::fd_pread(fd, 100, 0), |d| {
        format!("{d:?}")
    });
    code("fd_allocate(0, 100)", sys::fd_allocate(fd, 0, 100));
    res("size after allocate", sys::fd_filestat_get(fd), stat_text);
    code("fd_allocate(0, 0)", sys::fd_allocate(fd, 0, 0));
    code(
        "fd_allocate(u64::MAX, 1)",
        sys::fd_allocate(fd, u64::MAX, 1),
    );
    for advice in 0..6 {
        code(
            &format!("fd_advise({advice})"),
            sys::fd_advise(fd, 0, 10, advice),
        );
    }
    code(
        "fd_advise(offset+len overflow)",
        sys::fd_advise(fd, u64::MAX, 10, 0),
    );
    res("fd_seek(-1, SET)", sys::fd_seek(fd, -1, 0), |p| {
        p.to_string()
    });
    res("fd_seek(-100, CUR)", sys::fd_seek(fd, -100, 1), |p| {
        p.to_string()
    });
    res("fd_seek(1000, SET)", sys::fd_seek(fd, 1000, 0), |p| {
        p.to_string()
    });
    res("fd_read past end", sys::fd_read(fd, 10), |d| {
        format!("{} bytes", d.len())
    });
    res(
        "fd_seek(i64::MAX, SET)",
        sys::fd_seek(fd, i64::MAX, 0),
        |p| p.to_string(),
    );
    res("fd_seek(1, CUR) overflow", sys::fd_seek(fd, 1, 1), |p| {
        p.to_string()
    });
    sys::fd_seek(fd, 0, 0).ok();
    code(
        "fd_filestat_set_times fixed",
        sys::fd_filestat_set_times(
            fd,
            1_000_000_000,
            2_000_000_000,
            FSTFLAGS_ATIM | FSTFLAGS_MTIM,
        ),
    );
    res("times", sys::fd_filestat_get(fd), |s| {
        format!("atim={} mtim={}", s.atim, s.mtim)
    });
    code(
        "fd_filestat_set_times ATIM only",
        sys::fd_filestat_set_times(fd, 5_000_000_000, 0, FSTFLAGS_ATIM),
    );
    res("times", sys::fd_filestat_get(fd), |s| {
        format!("atim={} mtim={}", s.atim, s.mtim)
    });
    code(
        "fd_filestat_set_times MTIM_NOW",
        sys::fd_filestat_set_times(fd, 0, 0, FSTFLAGS_MTIM_NOW),
    );
    res("mtim now", sys::fd_filestat_get(fd), |s| {
        format!("recent={}", s.mtim > 1_577_836_800_000_000_000)
    });
    code(
        "fd_filestat_set_times ATIM|ATIM_NOW",
        sys::fd_filestat_set_times(fd, 1, 1, FSTFLAGS_ATIM | FSTFLAGS_ATIM_NOW),
    );
    code("fd_sync", sys::fd_sync(fd));
    code("fd_datasync", sys::fd_datasync(fd));
    code(
        "fd_fdstat_set_flags(APPEND)",
        sys::fd_fdstat_set_flags(fd, FDFLAGS_APPEND),
    );
    fdstat_line("append", fd);
    res("fd_write appends", sys::fd_write(fd, &[b"END"]), |n| {
        n.to_string()
    });
    res("fd_tell after append", sys::fd_tell(fd), |p| p.to_string());
    res(
        "fd_pwrite in append mode",
        sys::fd_pwrite(fd, b"P", 0),
        |n| n.to_string(),
    );
    res("contents", sys::fd_pread(fd, 200, 0), |d| {
        format!(
            "{} bytes, ends {:?}",
            d.len(),
            String::from_utf8_lossy(&d[d.len().saturating_sub(4)..])
        )
    });
    code("fd_fdstat_set_flags(0)", sys::fd_fdstat_set_flags(fd, 0));
    code(
        "fd_fdstat_set_flags(NONBLOCK)",
        sys::fd_fdstat_set_flags(fd, FDFLAGS_NONBLOCK),
    );
    code(
        "fd_fdstat_set_flags(SYNC)",
        sys::fd_fdstat_set_flags(fd, FDFLAGS_SYNC),
    );
    fdstat_line("flags after", fd);
    code("fd_close", sys::fd_close(fd));
    code("fd_close again", sys::fd_close(fd));
    res("fd_read closed", sys::fd_read(fd, 1), |d| {
        format!("{} bytes", d.len())
    });
    // O_TRUNC, O_EXCL, O_DIRECTORY on a file, and opening while unlinked.
    let fd = open("trunc", DIR, 0, "f", OFLAGS_TRUNC, FILE_RW, 0).expect("trunc");
    res("size after trunc", sys::fd_filestat_get(fd), stat_text);
    sys::fd_write(fd, &[b"kept"]).ok();
    code(
        "path_unlink_file while open",
        sys::path_unlink_file(DIR, "f"),
    );
    res("read unlinked", sys::fd_pread(fd, 10, 0), |d| {
        String::from_utf8_lossy(d).into_owned()
    });
    res("stat unlinked", sys::fd_filestat_get(fd), stat_text);
    sys::fd_close(fd);
    filestat("gone", 0, "f");
    let fd = open("excl without creat", DIR, 0, "g", OFLAGS_EXCL, FILE_RW, 0);
    close(fd);
    let fd = open(
        "creat|directory",
        DIR,
        0,
        "g",
        OFLAGS_CREAT | OFLAGS_DIRECTORY,
        FILE_RW,
        0,
    );
    close(fd);
    let fd = open(
        "creat|excl|trunc",
        DIR,
        0,
        "g",
        OFLAGS_CREAT | OFLAGS_EXCL | OFLAGS_TRUNC,
        FILE_RW,
        0,
    );
    close(fd);
    let fd = open(
        "directory on file",
        DIR,
        0,
        "g",
        OFLAGS_DIRECTORY,
        RIGHTS_FD_READ,
        0,
    );
    close(fd);
    sys::path_unlink_file(DIR, "g");
}

pub(super) fn dirs() {
    code(
        "path_create_directory(\"d\")",
        sys::path_create_directory(DIR, "d"),
    );
    code(
        "path_create_directory(\"d\") again",
        sys::path_create_directory(DIR, "d"),
    );
    code(
        "path_create_directory(\"x/y\")",
        sys::path_create_directory(DIR, "x/y"),
    );
    code(
        "path_create_directory(\"d/e\")",
        sys::path_create_directory(DIR, "d/e"),
    );
    make_file("d/f", b"1");
    make_file("g", b"2");
    code(
        "path_remove_directory(\"d\") not empty",
        sys::path_remove_directory(DIR, "d"),
    );
    code(
        "path_remove_directory(\"g\") file",
        sys::path_remove_directory(DIR, "g"),
    );
    code(
        "path_remove_directory(\"missing\")",
        sys::path_remove_directory(DIR, "missing"),
    );
    code(
        "path_unlink_file(\"d\") dir",
        sys::path_unlink_file(DIR, "d"),
    );
    code(
        "path_unlink_file(\"missing\")",
        sys::path_unlink_file(DIR, "missing"),
    );
    code(
        "path_rename(\"g\", \"d\") file over dir",
        sys::path_rename(DIR, "g", DIR, "d"),
    );
    code(
        "path_rename(\"d/e\", \"g\") dir over file",
        sys::path_rename(DIR, "d/e", DIR, "g"),
    );
    code(
        "path_create_directory(\"h\")",
        sys::path_create_directory(DIR, "h"),
    );
    code(
        "path_rename(\"h\", \"d\") over non-empty",
        sys::path_rename(DIR, "h", DIR, "d"),
    );
    code(
        "path_rename(\"d\", \"d/e/inside\")",
        sys::path_rename(DIR, "d", DIR, "d/e/inside"),
    );
    code(
        "path_rename(\"d/e\", \"h\") over empty dir",
        sys::path_rename(DIR, "d/e", DIR, "h"),
    );
    code(
        "path_rename(\"g\", \"g\")",
        sys::path_rename(DIR, "g", DIR, "g"),
    );
    code(
        "path_rename(\"missing\", \"m2\")",
        sys::path_rename(DIR, "missing", DIR, "m2"),
    );
    code(
        "path_rename(\"g\", \"nodir/g\")",
        sys::path_rename(DIR, "g", DIR, "nodir/g"),
    );
    make_file("k", b"3");
    code(
        "path_rename(\"g\", \"k\") file over file",
        sys::path_rename(DIR, "g", DIR, "k"),
    );
    res(
        "k now holds g",
        sys::path_filestat_get(DIR, 0, "k"),
        stat_text,
    );
    let sub = open(
        "open d",
        DIR,
        0,
        "d",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    )
    .expect("open d");
    code(
        "path_rename across fds",
        sys::path_rename(DIR, "k", sub, "k2"),
    );
    filestat("d/k2", 0, "d/k2");
    code(
        "path_rename(sub, \"k2\", 3, \"top\")",
        sys::path_rename(sub, "k2", DIR, "top"),
    );
    code(
        "path_unlink_file(sub, \"f\")",
        sys::path_unlink_file(sub, "f"),
    );
    code(
        "path_remove_directory(\"d\") while open",
        sys::path_remove_directory(DIR, "d"),
    );
    res(
        "fd_filestat_get(removed dir)",
        sys::fd_filestat_get(sub),
        |s| format!("{} nlink={}", filetype_name(s.filetype), s.nlink),
    );
    code(
        "path_create_directory in removed dir",
        sys::path_create_directory(sub, "zombie"),
    );
    res(
        "fd_readdir(removed dir)",
        sys::fd_readdir(sub, 256, 0),
        |d| format!("{} bytes", d.len()),
    );
    sys::fd_close(sub);
    for path in ["top", "h/inside"] {
        sys::path_unlink_file(DIR, path);
    }
    for path in ["h", "x/y", "x"] {
        sys::path_remove_directory(DIR, path);
    }
}

/// Parses dirents: (next cookie, filetype, name); a cut-off last entry is left out.
pub(super) fn dirents(bytes: &[u8]) -> Vec<(u64, u8, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 24 <= bytes.len() {
        let next = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let len = u32::from_le_bytes(bytes[at + 16..at + 20].try_into().unwrap()) as usize;
        let kind = bytes[at + 20];
        if at + 24 + len > bytes.len() {
            break;
        }
        out.push((
            next,
            kind,
            String::from_utf8_lossy(&bytes[at + 24..at + 24 + len]).into_owned(),
        ));
        at += 24 + len;
    }
    out
}

pub(super) fn readdir() {
    setup(sys::path_create_directory(DIR, "sub"), "mkdir sub");
    make_file("file", b"x");
    setup(sys::path_symlink("file", DIR, "link"), "symlink");
    for i in 0..40 {
        make_file(&format!("many-{i:02}"), b"");
    }
    let fd = open(
        "dir",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    )
    .expect("open");
    // Everything, in one big buffer, sorted by name (the order is the host's).
    let all = sys::fd_readdir(fd, 1 << 16, 0).expect("readdir");
    let mut entries = dirents(&all);
    println!("one read: {} entries", entries.len());
    entries.sort_by(|a, b| a.2.cmp(&b.2));
    for (_, kind, name) in entries.iter().filter(|e| !e.2.starts_with("many-")) {
        println!("  {name} {}", filetype_name(*kind));
    }
    // In small buffers, following cookies: the same names, each once.
    let mut names = Vec::new();
    let mut cookie = 0;
    let mut reads = 0;
    loop {
        let chunk = sys::fd_readdir(fd, 100, cookie).expect("readdir chunk");
        reads += 1;
        let got = dirents(&chunk);
        if got.is_empty() {
            println!("small buffers: last read gave {} bytes", chunk.len());
            break;
        }
        cookie = got.last().unwrap().0;
        names.extend(got.into_iter().map(|e| e.2));
        if chunk.len() < 100 || reads > 200 {
            break;
        }
    }
    names.sort();
    let before = names.len();
    names.dedup();
    println!(
        "small buffers: {} names, {} repeated, same as one read: {}",
        names.len(),
        before - names.len(),
        names.len() == entries.len()
    );
    res("fd_readdir(buffer 0)", sys::fd_readdir(fd, 0, 0), |d| {
        format!("{} bytes", d.len())
    });
    res("fd_readdir(buffer 10)", sys::fd_readdir(fd, 10, 0), |d| {
        format!("{} bytes", d.len())
    });
    res(
        "fd_readdir(cookie past end)",
        sys::fd_readdir(fd, 256, 1_000_000),
        |d| format!("{} bytes", d.len()),
    );
    let last = entries.len() as u64;
    let _ = last;
    // The preopen itself is readable too.
    res("fd_readdir(3)", sys::fd_readdir(DIR, 1 << 16, 0), |d| {
        format!("{} entries", dirents(d).len())
    });
    let empty = open(
        "empty dir",
        DIR,
        0,
        "sub",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    )
    .expect("open sub");
    let list = sys::fd_readdir(empty, 1024, 0).expect("readdir sub");
    let mut names: Vec<String> = dirents(&list)
        .into_iter()
        .map(|e| format!("{} {}", e.2, filetype_name(e.1)))
        .collect();
    names.sort();
    println!("empty dir: {names:?}");
    sys::fd_close(empty);
    sys::fd_close(fd);
    for i in 0..40 {
        sys::path_unlink_file(DIR, &format!("many-{i:02}"));
    }
}
