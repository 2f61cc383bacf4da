//! Descriptors: fdstat, standard streams, prestat, rights, preopens, directory descriptors.

use super::{DIR, FILE_RW, close, dir_rights, fdstat_line, filestat, make_file, open, stat_text};
use crate::sys::{self, filetype_name};
use crate::{code, res};
use wasi::*;

pub(super) fn fdstat() {
    fdstat_line("preopen", DIR);
    for fd in [4, 99, u32::MAX] {
        fdstat_line("unopened", fd);
    }
    let file = open("file rw", DIR, 0, "f", OFLAGS_CREAT, FILE_RW, 0);
    if let Some(fd) = file {
        fdstat_line("file rw", fd);
    }
    let ro = open("file r", DIR, 0, "f", 0, RIGHTS_FD_READ, 0);
    if let Some(fd) = ro {
        fdstat_line("file r", fd);
    }
    let wo = open("file w", DIR, 0, "f", 0, RIGHTS_FD_WRITE, 0);
    if let Some(fd) = wo {
        fdstat_line("file w", fd);
    }
    let app = res(
        "file append: path_open(\"f\", fdflags=APPEND)",
        sys::path_open(DIR, 0, "f", 0, FILE_RW, 0, FDFLAGS_APPEND),
        |fd| format!("fd={fd}"),
    );
    if let Some(fd) = app {
        fdstat_line("file append", fd);
    }
    for flags in [FDFLAGS_DSYNC, FDFLAGS_NONBLOCK, FDFLAGS_RSYNC, FDFLAGS_SYNC] {
        let fd = res(
            &format!("path_open(\"f\", fdflags={flags:#x})"),
            sys::path_open(DIR, 0, "f", 0, FILE_RW, 0, flags),
            |fd| format!("fd={fd}"),
        );
        if let Some(fd) = fd {
            fdstat_line("with fdflags", fd);
            sys::fd_close(fd);
        }
    }
    let dir = open(
        "dir",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    );
    if let Some(fd) = dir {
        fdstat_line("dir", fd);
    }
    for fd in [file, ro, wo, app, dir] {
        close(fd);
    }
}

pub(super) fn stdio() {
    for fd in 0..3 {
        fdstat_line("stdio", fd);
        res(
            &format!("fd_filestat_get({fd})"),
            sys::fd_filestat_get(fd),
            |s| filetype_name(s.filetype).to_owned(),
        );
        res(
            &format!("fd_seek({fd}, 0, CUR)"),
            sys::fd_seek(fd, 0, 1),
            |p| p.to_string(),
        );
        res(&format!("fd_tell({fd})"), sys::fd_tell(fd), |p| {
            p.to_string()
        });
        res(&format!("prestat_get({fd})"), sys::prestat_get(fd), |p| {
            format!("{p:?}")
        });
    }
    res(
        "fd_read(0) at end of empty stdin",
        sys::fd_read(0, 16),
        |d| format!("{} bytes", d.len()),
    );
    res("fd_write(0)", sys::fd_write(0, &[b"x"]), |n| n.to_string());
    res("fd_read(1)", sys::fd_read(1, 4), |d| {
        format!("{} bytes", d.len())
    });
    res("fd_write(1, no iovecs)", sys::fd_write(1, &[]), |n| {
        n.to_string()
    });
    res("fd_write(1, empty iovec)", sys::fd_write(1, &[b""]), |n| {
        n.to_string()
    });
    res(
        "fd_write(1, two iovecs)",
        sys::fd_write(1, &[b"ab", b"c\n"]),
        |n| n.to_string(),
    );
    code(
        "fd_fdstat_set_rights(1)",
        sys::fd_fdstat_set_rights(1, RIGHTS_FD_WRITE, 0),
    );
    code("fd_renumber(1, 77)", sys::fd_renumber(1, 77));
    code("fd_sync(1)", sys::fd_sync(1));
    code("fd_datasync(1)", sys::fd_datasync(1));
    code("fd_advise(1)", sys::fd_advise(1, 0, 0, 0));
    code("fd_allocate(1)", sys::fd_allocate(1, 0, 1));
    code("fd_filestat_set_size(1)", sys::fd_filestat_set_size(1, 0));
    code(
        "fd_fdstat_set_flags(1, APPEND)",
        sys::fd_fdstat_set_flags(1, FDFLAGS_APPEND),
    );
    code(
        "fd_fdstat_set_flags(1, NONBLOCK)",
        sys::fd_fdstat_set_flags(1, FDFLAGS_NONBLOCK),
    );
    code("fd_fdstat_set_flags(1, 0)", sys::fd_fdstat_set_flags(1, 0));
    res("fd_readdir(1)", sys::fd_readdir(1, 64, 0), |d| {
        format!("{} bytes", d.len())
    });
    res("fd_pread(0)", sys::fd_pread(0, 4, 0), |d| {
        format!("{} bytes", d.len())
    });
    res("fd_pwrite(1)", sys::fd_pwrite(1, b"x", 0), |n| {
        n.to_string()
    });
}

pub(super) fn prestat() {
    res("fd_prestat_get(3)", sys::prestat_get(DIR), |(tag, len)| {
        format!("tag={tag} len={len}")
    });
    let len = sys::prestat_get(DIR).map(|p| p.1 as usize).unwrap_or(0);
    res(
        "fd_prestat_dir_name(3, exact)",
        sys::prestat_dir_name(DIR, len),
        |n| String::from_utf8_lossy(n).into_owned(),
    );
    res(
        "fd_prestat_dir_name(3, len+4)",
        sys::prestat_dir_name(DIR, len + 4),
        |n| String::from_utf8_lossy(n).into_owned(),
    );
    res(
        "fd_prestat_dir_name(3, len-1)",
        sys::prestat_dir_name(DIR, len.saturating_sub(1)),
        |n| String::from_utf8_lossy(n).into_owned(),
    );
    res(
        "fd_prestat_dir_name(3, 0)",
        sys::prestat_dir_name(DIR, 0),
        |n| String::from_utf8_lossy(n).into_owned(),
    );
    for fd in [0, 1, 2, 4, 99] {
        res(
            &format!("fd_prestat_get({fd})"),
            sys::prestat_get(fd),
            |p| format!("{p:?}"),
        );
        res(
            &format!("fd_prestat_dir_name({fd})"),
            sys::prestat_dir_name(fd, 8),
            |_| String::new(),
        );
    }
    let dir = open(
        "sub",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    );
    if let Some(fd) = dir {
        res("fd_prestat_get(opened dir)", sys::prestat_get(fd), |p| {
            format!("{p:?}")
        });
    }
    make_file("f", b"");
    let file = open("file", DIR, 0, "f", 0, FILE_RW, 0);
    if let Some(fd) = file {
        res("fd_prestat_get(file)", sys::prestat_get(fd), |p| {
            format!("{p:?}")
        });
    }
    close(dir);
    close(file);
}

pub(super) fn rights() {
    let own = sys::fdstat(DIR).expect("fdstat of the preopen");
    println!(
        "preopen base={:#x} inheriting={:#x}",
        own.base, own.inheriting
    );
    // The idiom most Rust programs use: reopen the directory with the preopen's own rights.
    let same = open(
        "reopen with own rights",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        own.base,
        own.inheriting,
    );
    if let Some(fd) = same {
        fdstat_line("reopened", fd);
        code(
            "path_create_directory through it",
            sys::path_create_directory(fd, "made"),
        );
    }
    let all = open(
        "dir all rights",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    );
    if let Some(fd) = all {
        fdstat_line("dir all rights", fd);
    }
    let plain = open(
        "dir write rights",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        RIGHTS_FD_WRITE,
        0,
    );
    if let Some(fd) = plain {
        fdstat_line("dir write rights", fd);
    }
    let none = open("dir no rights", DIR, 0, ".", OFLAGS_DIRECTORY, 0, 0);
    if let Some(fd) = none {
        fdstat_line("dir no rights", fd);
        res(
            "path_open through a dir without PATH_OPEN",
            sys::path_open(fd, 0, "made", OFLAGS_DIRECTORY, 0, 0, 0),
            |fd| format!("fd={fd}"),
        );
        code(
            "path_create_directory without the right",
            sys::path_create_directory(fd, "made2"),
        );
        res(
            "fd_readdir without FD_READDIR",
            sys::fd_readdir(fd, 64, 0),
            |d| format!("{} bytes", d.len()),
        );
        res(
            "path_filestat_get without the right",
            sys::path_filestat_get(fd, 0, "made"),
            stat_text,
        );
    }
    // Files: rights as an access mode.
    make_file("f", b"hello");
    let r = open("file read only", DIR, 0, "f", 0, RIGHTS_FD_READ, 0);
    if let Some(fd) = r {
        fdstat_line("file read only", fd);
        res("fd_read", sys::fd_read(fd, 5), |d| {
            String::from_utf8_lossy(d).into_owned()
        });
        res(
            "fd_write without FD_WRITE",
            sys::fd_write(fd, &[b"x"]),
            |n| n.to_string(),
        );
        res("fd_seek without FD_SEEK", sys::fd_seek(fd, 0, 0), |p| {
            p.to_string()
        });
        res("fd_tell without FD_TELL", sys::fd_tell(fd), |p| {
            p.to_string()
        });
        code(
            "fd_filestat_set_size without the right",
            sys::fd_filestat_set_size(fd, 1),
        );
        code("fd_allocate without the right", sys::fd_allocate(fd, 0, 10));
        res(
            "fd_filestat_get without the right",
            sys::fd_filestat_get(fd),
            stat_text,
        );
        code(
            "fd_filestat_set_times without the right",
            sys::fd_filestat_set_times(fd, 1, 1, FSTFLAGS_ATIM | FSTFLAGS_MTIM),
        );
        code(
            "fd_fdstat_set_flags without the right",
            sys::fd_fdstat_set_flags(fd, FDFLAGS_APPEND),
        );
        code("fd_sync without the right", sys::fd_sync(fd));
        code("fd_advise without the right", sys::fd_advise(fd, 0, 0, 0));
        code(
            "fd_fdstat_set_rights add FD_WRITE",
            sys::fd_fdstat_set_rights(fd, RIGHTS_FD_READ | RIGHTS_FD_WRITE, 0),
        );
        fdstat_line("after adding", fd);
        res(
            "fd_write after asking to add",
            sys::fd_write(fd, &[b"x"]),
            |n| n.to_string(),
        );
    }
    let w = open("file write only", DIR, 0, "f", 0, RIGHTS_FD_WRITE, 0);
    if let Some(fd) = w {
        fdstat_line("file write only", fd);
        res("fd_read without FD_READ", sys::fd_read(fd, 5), |d| {
            format!("{} bytes", d.len())
        });
        res("fd_pread without FD_READ", sys::fd_pread(fd, 5, 0), |d| {
            format!("{} bytes", d.len())
        });
        res("fd_write", sys::fd_write(fd, &[b"J"]), |n| n.to_string());
    }
    let rw = open("file rw", DIR, 0, "f", 0, FILE_RW, 0);
    if let Some(fd) = rw {
        code(
            "fd_fdstat_set_rights drop FD_WRITE",
            sys::fd_fdstat_set_rights(fd, FILE_RW & !RIGHTS_FD_WRITE, 0),
        );
        fdstat_line("after dropping", fd);
        res("fd_write after dropping", sys::fd_write(fd, &[b"x"]), |n| {
            n.to_string()
        });
        res(
            "fd_read after dropping FD_WRITE",
            sys::fd_read(fd, 5),
            |d| String::from_utf8_lossy(d).into_owned(),
        );
        code(
            "fd_fdstat_set_rights drop everything",
            sys::fd_fdstat_set_rights(fd, 0, 0),
        );
        fdstat_line("after dropping everything", fd);
        res("fd_read with no rights", sys::fd_read(fd, 5), |d| {
            format!("{} bytes", d.len())
        });
        code("fd_close with no rights", sys::fd_close(fd));
    }
    code(
        "fd_fdstat_set_rights on the preopen, same",
        sys::fd_fdstat_set_rights(DIR, own.base, own.inheriting),
    );
    code(
        "fd_fdstat_set_rights(99)",
        sys::fd_fdstat_set_rights(99, 0, 0),
    );
    // Inheriting rights bound what path_open hands out.
    let narrow = open(
        "dir inheriting FD_READ",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        own.base,
        RIGHTS_FD_READ,
    );
    if let Some(fd) = narrow {
        fdstat_line("narrow dir", fd);
        let f = open(
            "open for write through it",
            fd,
            0,
            "f",
            0,
            RIGHTS_FD_WRITE,
            0,
        );
        if let Some(f) = f {
            fdstat_line("opened through narrow", f);
            res("fd_write through narrow", sys::fd_write(f, &[b"y"]), |n| {
                n.to_string()
            });
        }
        close(f);
        let f = open("open for read through it", fd, 0, "f", 0, RIGHTS_FD_READ, 0);
        close(f);
    }
    // Truncation.
    let t = open(
        "O_TRUNC with FD_WRITE",
        DIR,
        0,
        "f",
        OFLAGS_TRUNC,
        RIGHTS_FD_WRITE,
        0,
    );
    close(t);
    filestat("after trunc", 0, "f");
    make_file("f", b"hello");
    let t = open(
        "O_TRUNC with FD_READ",
        DIR,
        0,
        "f",
        OFLAGS_TRUNC,
        RIGHTS_FD_READ,
        0,
    );
    close(t);
    filestat("after trunc r", 0, "f");
    make_file("f", b"hello");
    let t = open("O_TRUNC with no rights", DIR, 0, "f", OFLAGS_TRUNC, 0, 0);
    close(t);
    filestat("after trunc none", 0, "f");
    let c = open("O_CREAT with no rights", DIR, 0, "g", OFLAGS_CREAT, 0, 0);
    close(c);
    filestat("created with no rights", 0, "g");
    for fd in [same, all, plain, none, r, w, narrow] {
        close(fd);
    }
}

pub(super) fn preopens() {
    make_file("f", b"data");
    code("fd_renumber(3, 3)", sys::fd_renumber(DIR, DIR));
    code(
        "fd_renumber(3, 10) (10 not open)",
        sys::fd_renumber(DIR, 10),
    );
    let file = open("file", DIR, 0, "f", 0, FILE_RW, 0);
    if let Some(fd) = file {
        code(&format!("fd_renumber(3, {fd})"), sys::fd_renumber(DIR, fd));
        res(
            &format!("fd_prestat_get({fd}) after renumber"),
            sys::prestat_get(fd),
            |p| format!("{p:?}"),
        );
        res(
            "fd_prestat_get(3) after renumber",
            sys::prestat_get(DIR),
            |p| format!("{p:?}"),
        );
        fdstat_line("renumbered", fd);
        let again = open(
            "path_open through renumbered preopen",
            fd,
            0,
            "f",
            0,
            RIGHTS_FD_READ,
            0,
        );
        close(again);
        res(
            "path_open through 3 after renumber",
            sys::path_open(DIR, 0, "f", 0, RIGHTS_FD_READ, 0, 0),
            |fd| format!("fd={fd}"),
        );
        code(
            &format!("fd_renumber({fd}, 3) back"),
            sys::fd_renumber(fd, DIR),
        );
        res("fd_prestat_get(3) back", sys::prestat_get(DIR), |p| {
            format!("{p:?}")
        });
    }
    // A directory renumbered over the preopen replaces it.
    let sub = open(
        "sub dir",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    );
    let spare = open("spare file", DIR, 0, "f", 0, FILE_RW, 0);
    if let (Some(sub), Some(spare)) = (sub, spare) {
        code("fd_renumber(file, dir)", sys::fd_renumber(spare, sub));
        fdstat_line("file over dir", sub);
        res("fd_read through it", sys::fd_read(sub, 4), |d| {
            String::from_utf8_lossy(d).into_owned()
        });
        res("fd_fdstat_get(old number)", sys::fdstat(spare), |_| {
            String::new()
        });
        close(Some(sub));
    }
    code("fd_renumber(99, 3)", sys::fd_renumber(99, DIR));
    code("fd_close(3)", sys::fd_close(DIR));
    code("fd_close(3) again", sys::fd_close(DIR));
    res(
        "path_open(3) after close",
        sys::path_open(DIR, 0, "f", 0, RIGHTS_FD_READ, 0, 0),
        |fd| format!("fd={fd}"),
    );
    res(
        "fd_prestat_get(3) after close",
        sys::prestat_get(DIR),
        |p| format!("{p:?}"),
    );
    let reused = res("new fd after closing the preopen", sys::fd_tell(DIR), |p| {
        p.to_string()
    });
    let _ = reused;
}

pub(super) fn dirops() {
    let sub = open(
        "dir",
        DIR,
        0,
        ".",
        OFLAGS_DIRECTORY,
        dir_rights().0,
        dir_rights().1,
    )
    .expect("open dir");
    for (name, fd) in [("preopen", DIR), ("opened dir", sub)] {
        res(
            &format!("{name}: fd_seek(0, SET)"),
            sys::fd_seek(fd, 0, 0),
            |p| p.to_string(),
        );
        res(
            &format!("{name}: fd_seek(0, END)"),
            sys::fd_seek(fd, 0, 2),
            |p| p.to_string(),
        );
        res(&format!("{name}: fd_tell"), sys::fd_tell(fd), |p| {
            p.to_string()
        });
        res(&format!("{name}: fd_read"), sys::fd_read(fd, 4), |d| {
            format!("{} bytes", d.len())
        });
        res(
            &format!("{name}: fd_write"),
            sys::fd_write(fd, &[b"x"]),
            |n| n.to_string(),
        );
        res(&format!("{name}: fd_pread"), sys::fd_pread(fd, 4, 0), |d| {
            format!("{} bytes", d.len())
        });
        res(
            &format!("{name}: fd_pwrite"),
            sys::fd_pwrite(fd, b"x", 0),
            |n| n.to_string(),
        );
        code(&format!("{name}: fd_allocate"), sys::fd_allocate(fd, 0, 1));
        code(
            &format!("{name}: fd_filestat_set_size"),
            sys::fd_filestat_set_size(fd, 0),
        );
        code(&format!("{name}: fd_advise"), sys::fd_advise(fd, 0, 0, 0));
        code(&format!("{name}: fd_sync"), sys::fd_sync(fd));
        code(&format!("{name}: fd_datasync"), sys::fd_datasync(fd));
        code(
            &format!("{name}: fd_fdstat_set_flags(APPEND)"),
            sys::fd_fdstat_set_flags(fd, FDFLAGS_APPEND),
        );
        code(
            &format!("{name}: fd_fdstat_set_flags(0)"),
            sys::fd_fdstat_set_flags(fd, 0),
        );
        res(
            &format!("{name}: fd_filestat_get"),
            sys::fd_filestat_get(fd),
            |s| filetype_name(s.filetype).to_owned(),
        );
        code(
            &format!("{name}: fd_filestat_set_times"),
            sys::fd_filestat_set_times(fd, 7, 8, FSTFLAGS_ATIM | FSTFLAGS_MTIM),
        );
        res(&format!("{name}: times"), sys::fd_filestat_get(fd), |s| {
            format!("atim={} mtim={}", s.atim, s.mtim)
        });
    }
    make_file("f", b"abc");
    let file = open("file", DIR, 0, "f", 0, FILE_RW, 0).expect("open file");
    res("file: fd_readdir", sys::fd_readdir(file, 64, 0), |d| {
        format!("{} bytes", d.len())
    });
    res(
        "file as dir: path_open",
        sys::path_open(file, 0, "x", 0, 0, 0, 0),
        |fd| format!("fd={fd}"),
    );
    code(
        "file as dir: path_create_directory",
        sys::path_create_directory(file, "x"),
    );
    res(
        "file as dir: path_filestat_get",
        sys::path_filestat_get(file, 0, "x"),
        stat_text,
    );
    code(
        "file as dir: path_unlink_file",
        sys::path_unlink_file(file, "x"),
    );
    code(
        "file as dir: path_symlink",
        sys::path_symlink("f", file, "x"),
    );
    code(
        "file as dir: path_rename",
        sys::path_rename(file, "x", DIR, "y"),
    );
    code(
        "file as dir: path_link",
        sys::path_link(DIR, 0, "f", file, "y"),
    );
    res(
        "fd 99: path_open",
        sys::path_open(99, 0, "x", 0, 0, 0, 0),
        |fd| format!("fd={fd}"),
    );
    code("fd 99: path_rename", sys::path_rename(DIR, "f", 99, "y"));
    code(
        "stdin as dir: path_create_directory",
        sys::path_create_directory(0, "x"),
    );
    sys::fd_close(file);
    sys::fd_close(sub);
    code("path_unlink_file(\"f\")", sys::path_unlink_file(DIR, "f"));
}
