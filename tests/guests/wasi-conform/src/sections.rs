//! The sections: each a sequence of calls on the preopen at fd 3, printed as it goes.

use crate::sys::{self, Fd, Subscription, filetype_name};
use crate::{code, res};
use wasi::*;

const DIR: Fd = 3;
const FOLLOW: u32 = LOOKUPFLAGS_SYMLINK_FOLLOW;
const FILE_RW: u64 = RIGHTS_FD_READ
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

fn rights_text(stat: &sys::Fdstat) -> String {
    format!(
        "{} flags={:#x} base={:#x} inheriting={:#x}",
        filetype_name(stat.filetype),
        stat.flags,
        stat.base,
        stat.inheriting
    )
}

fn fdstat_line(label: &str, fd: Fd) -> Option<sys::Fdstat> {
    res(
        &format!("{label}: fd_fdstat_get({fd})"),
        sys::fdstat(fd),
        rights_text,
    )
}

fn stat_text(stat: &sys::Filestat) -> String {
    format!(
        "{} nlink={} size={}",
        filetype_name(stat.filetype),
        stat.nlink,
        stat.size
    )
}

fn open(
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
fn make_file(path: &str, contents: &[u8]) {
    let fd = sys::path_open(DIR, 0, path, OFLAGS_CREAT | OFLAGS_TRUNC, FILE_RW, 0, 0)
        .unwrap_or_else(|e| panic!("setup: create {path}: {}", sys::errname(e)));
    sys::fd_write(fd, &[contents]).expect("setup: write");
    sys::fd_close(fd);
}

fn setup(code: i32, what: &str) {
    assert!(code == 0, "setup: {what}: {}", sys::errname(code));
}

fn filestat(label: &str, flags: u32, path: &str) -> Option<sys::Filestat> {
    res(
        &format!("{label}: path_filestat_get({flags}, {path:?})"),
        sys::path_filestat_get(DIR, flags, path),
        stat_text,
    )
}

/// The preopen's rights, which a directory is reopened with.
fn dir_rights() -> (u64, u64) {
    sys::fdstat(DIR)
        .map(|s| (s.base, s.inheriting))
        .unwrap_or((0, 0))
}

fn close(fd: Option<Fd>) {
    if let Some(fd) = fd {
        sys::fd_close(fd);
    }
}

// ---- sections ----

fn args_env() {
    let args: Vec<String> = std::env::args().collect();
    println!("argc={}", args.len());
    for (i, arg) in args.iter().enumerate() {
        println!("argv[{i}]={arg:?}");
    }
    let mut sizes = [0u32; 2];
    let c = unsafe {
        sys::unchecked::args_sizes_get(sys::addr_of(&mut sizes[0]), sys::addr_of(&mut sizes[1]))
    };
    code(&format!("args_sizes_get = ({}, {})", sizes[0], sizes[1]), c);
    let c = unsafe {
        sys::unchecked::environ_sizes_get(sys::addr_of(&mut sizes[0]), sys::addr_of(&mut sizes[1]))
    };
    code(
        &format!("environ_sizes_get = ({}, {})", sizes[0], sizes[1]),
        c,
    );
    for (key, value) in std::env::vars() {
        println!("env {key}={value:?}");
    }
}

fn clock() {
    for id in 0..4u32 {
        res(
            &format!("clock_res_get({id})"),
            sys::clock_res_get(id),
            |r| {
                if *r > 0 {
                    "positive".into()
                } else {
                    "zero".into()
                }
            },
        );
        res(
            &format!("clock_time_get({id}, 0)"),
            sys::clock_time_get(id, 0),
            |_| String::new(),
        );
    }
    let a = sys::clock_time_get(1, 0).unwrap_or(0);
    let b = sys::clock_time_get(1, 1).unwrap_or(0);
    println!("monotonic does not go back: {}", b >= a);
    let now = sys::clock_time_get(0, 1_000_000).unwrap_or(0);
    println!("realtime after 2020: {}", now > 1_577_836_800_000_000_000);
}

fn random() {
    let mut empty = [0u8; 0];
    code("random_get(0 bytes)", sys::random_get(&mut empty));
    let mut a = [0u8; 64];
    let mut b = [0u8; 64];
    code("random_get(64 bytes)", sys::random_get(&mut a));
    sys::random_get(&mut b);
    println!("two draws differ: {}", a != b);
    let mut big = vec![0u8; 1 << 20];
    code("random_get(1 MiB)", sys::random_get(&mut big));
    println!("1 MiB not all zero: {}", big.iter().any(|&x| x != 0));
}

fn fdstat() {
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

fn stdio() {
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

fn prestat() {
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

fn rights() {
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

fn preopens() {
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

fn trailing() {
    make_file("f", b"hello");
    setup(sys::path_create_directory(DIR, "d"), "mkdir d");
    setup(sys::path_symlink("f", DIR, "l"), "symlink l");
    setup(sys::path_symlink("d", DIR, "ld"), "symlink ld");
    for path in ["f/", "d/", "l/", "ld/", "f//", "d//", "missing/"] {
        for oflags in [0, OFLAGS_DIRECTORY] {
            let fd = open("trailing", DIR, FOLLOW, path, oflags, RIGHTS_FD_READ, 0);
            close(fd);
            let fd = open("trailing nofollow", DIR, 0, path, oflags, RIGHTS_FD_READ, 0);
            close(fd);
        }
        filestat("trailing", FOLLOW, path);
        filestat("trailing", 0, path);
        code(
            &format!("path_filestat_set_times({path:?})"),
            sys::path_filestat_set_times(DIR, FOLLOW, path, 5, 6, FSTFLAGS_ATIM | FSTFLAGS_MTIM),
        );
        res(
            &format!("path_readlink({path:?})"),
            sys::path_readlink(DIR, path, 64),
            |t| String::from_utf8_lossy(t).into_owned(),
        );
    }
    let fd = open("creat trailing", DIR, 0, "new/", OFLAGS_CREAT, FILE_RW, 0);
    close(fd);
    let fd = open(
        "creat dir trailing",
        DIR,
        0,
        "new2/",
        OFLAGS_CREAT | OFLAGS_DIRECTORY,
        FILE_RW,
        0,
    );
    close(fd);
    code(
        "path_create_directory(\"n/\")",
        sys::path_create_directory(DIR, "n/"),
    );
    code(
        "path_create_directory(\"f/\")",
        sys::path_create_directory(DIR, "f/"),
    );
    code(
        "path_create_directory(\"d/\")",
        sys::path_create_directory(DIR, "d/"),
    );
    code(
        "path_remove_directory(\"n/\")",
        sys::path_remove_directory(DIR, "n/"),
    );
    code(
        "path_remove_directory(\"f/\")",
        sys::path_remove_directory(DIR, "f/"),
    );
    code(
        "path_remove_directory(\"ld/\")",
        sys::path_remove_directory(DIR, "ld/"),
    );
    code("path_unlink_file(\"f/\")", sys::path_unlink_file(DIR, "f/"));
    code("path_unlink_file(\"l/\")", sys::path_unlink_file(DIR, "l/"));
    code("path_unlink_file(\"d/\")", sys::path_unlink_file(DIR, "d/"));
    code(
        "path_unlink_file(\"ld/\")",
        sys::path_unlink_file(DIR, "ld/"),
    );
    code(
        "path_rename(\"f/\", \"g\")",
        sys::path_rename(DIR, "f/", DIR, "g"),
    );
    code(
        "path_rename(\"f\", \"g/\")",
        sys::path_rename(DIR, "f", DIR, "g/"),
    );
    code(
        "path_rename(\"d/\", \"e/\")",
        sys::path_rename(DIR, "d/", DIR, "e/"),
    );
    code(
        "path_rename(\"e\", \"d/\")",
        sys::path_rename(DIR, "e", DIR, "d/"),
    );
    code(
        "path_rename(\"l/\", \"m\")",
        sys::path_rename(DIR, "l/", DIR, "m"),
    );
    code(
        "path_symlink(\"f\", \"s/\")",
        sys::path_symlink("f", DIR, "s/"),
    );
    code(
        "path_symlink(\"f/\", \"s2\")",
        sys::path_symlink("f/", DIR, "s2"),
    );
    code(
        "path_symlink(\"x\", \"f/\")",
        sys::path_symlink("x", DIR, "f/"),
    );
    code(
        "path_link(\"f/\", \"h\")",
        sys::path_link(DIR, 0, "f/", DIR, "h"),
    );
    code(
        "path_link(\"f\", \"h/\")",
        sys::path_link(DIR, 0, "f", DIR, "h/"),
    );
    code(
        "path_link(\"f\", \"f/\")",
        sys::path_link(DIR, 0, "f", DIR, "f/"),
    );
    code(
        "path_link(\"d/\", \"h2\")",
        sys::path_link(DIR, 0, "d/", DIR, "h2"),
    );
    filestat("s2 follow", FOLLOW, "s2");
}

fn links() {
    make_file("f", b"hello");
    setup(sys::path_create_directory(DIR, "d"), "mkdir d");
    setup(sys::path_symlink("f", DIR, "l"), "symlink l");
    setup(sys::path_symlink("missing", DIR, "dl"), "symlink dl");
    setup(sys::path_symlink("d", DIR, "ld"), "symlink ld");
    setup(sys::path_symlink("a", DIR, "b"), "symlink b");
    setup(sys::path_symlink("b", DIR, "a"), "symlink a");
    code(
        "path_link(\"f\", \"h\")",
        sys::path_link(DIR, 0, "f", DIR, "h"),
    );
    filestat("f after link", 0, "f");
    code(
        "path_link(\"l\", \"hl\") nofollow",
        sys::path_link(DIR, 0, "l", DIR, "hl"),
    );
    filestat("hl", 0, "hl");
    code(
        "path_link(\"l\", \"hf\") follow",
        sys::path_link(DIR, FOLLOW, "l", DIR, "hf"),
    );
    filestat("hf", 0, "hf");
    filestat("f after links", 0, "f");
    code(
        "path_link(\"dl\", \"hd\") follow",
        sys::path_link(DIR, FOLLOW, "dl", DIR, "hd"),
    );
    code(
        "path_link(\"dl\", \"hd2\") nofollow",
        sys::path_link(DIR, 0, "dl", DIR, "hd2"),
    );
    code(
        "path_link(\"d\", \"hdir\")",
        sys::path_link(DIR, 0, "d", DIR, "hdir"),
    );
    code(
        "path_link(\"f\", \"h\") exists",
        sys::path_link(DIR, 0, "f", DIR, "h"),
    );
    code(
        "path_link(\"missing\", \"x\")",
        sys::path_link(DIR, 0, "missing", DIR, "x"),
    );
    code(
        "path_link(\"f\", \"nodir/x\")",
        sys::path_link(DIR, 0, "f", DIR, "nodir/x"),
    );
    code(
        "path_link(\"f\", \"d/f\")",
        sys::path_link(DIR, 0, "f", DIR, "d/f"),
    );
    code(
        "path_link(\"f\", \"l\") over symlink",
        sys::path_link(DIR, 0, "f", DIR, "l"),
    );
    for path in ["l", "dl", "ld", "a", "f", "d"] {
        filestat("stat", FOLLOW, path);
        filestat("lstat", 0, path);
    }
    // Times through a symlink, with and without following it.
    code(
        "set_times(l, nofollow)",
        sys::path_filestat_set_times(
            DIR,
            0,
            "l",
            1_000_000_000,
            2_000_000_000,
            FSTFLAGS_ATIM | FSTFLAGS_MTIM,
        ),
    );
    code(
        "set_times(l, follow)",
        sys::path_filestat_set_times(
            DIR,
            FOLLOW,
            "l",
            3_000_000_000,
            4_000_000_000,
            FSTFLAGS_ATIM | FSTFLAGS_MTIM,
        ),
    );
    res("f times", sys::path_filestat_get(DIR, 0, "f"), |s| {
        format!("atim={} mtim={}", s.atim, s.mtim)
    });
    res("l times", sys::path_filestat_get(DIR, 0, "l"), |s| {
        format!("mtim is 2e9: {}", s.mtim == 2_000_000_000)
    });
    code(
        "set_times(dl, follow)",
        sys::path_filestat_set_times(DIR, FOLLOW, "dl", 1, 1, FSTFLAGS_ATIM | FSTFLAGS_MTIM),
    );
    code(
        "set_times(dl, nofollow)",
        sys::path_filestat_set_times(DIR, 0, "dl", 1, 1, FSTFLAGS_ATIM | FSTFLAGS_MTIM),
    );
    code(
        "set_times(f, ATIM|ATIM_NOW)",
        sys::path_filestat_set_times(DIR, 0, "f", 1, 1, FSTFLAGS_ATIM | FSTFLAGS_ATIM_NOW),
    );
    code(
        "set_times(f, MTIM|MTIM_NOW)",
        sys::path_filestat_set_times(DIR, 0, "f", 1, 1, FSTFLAGS_MTIM | FSTFLAGS_MTIM_NOW),
    );
    code(
        "set_times(f, none)",
        sys::path_filestat_set_times(DIR, 0, "f", 1, 1, 0),
    );
    code(
        "set_times(missing)",
        sys::path_filestat_set_times(DIR, 0, "missing", 1, 1, FSTFLAGS_ATIM),
    );
    // readlink
    for (path, len) in [
        ("l", 64),
        ("l", 1),
        ("l", 0),
        ("dl", 64),
        ("f", 64),
        ("d", 64),
        ("missing", 64),
    ] {
        res(
            &format!("path_readlink({path:?}, {len})"),
            sys::path_readlink(DIR, path, len),
            |t| format!("{:?}", String::from_utf8_lossy(t)),
        );
    }
    // open through symlinks
    for (path, flags, oflags) in [
        ("l", FOLLOW, 0),
        ("l", 0, 0),
        ("ld", FOLLOW, OFLAGS_DIRECTORY),
        ("ld", 0, OFLAGS_DIRECTORY),
        ("ld/", 0, OFLAGS_DIRECTORY),
        ("dl", FOLLOW, 0),
        ("dl", FOLLOW, OFLAGS_CREAT),
        ("dl", 0, OFLAGS_CREAT),
        ("a", FOLLOW, 0),
        ("a", 0, 0),
        ("a/x", FOLLOW, 0),
        ("ld/../f", 0, 0),
    ] {
        let fd = open("via symlink", DIR, flags, path, oflags, FILE_RW, 0);
        close(fd);
    }
    filestat("created through dangling link", 0, "missing");
    // symlink creation
    code(
        "path_symlink(\"f\", \"l\") exists",
        sys::path_symlink("f", DIR, "l"),
    );
    code(
        "path_symlink(\"\", \"empty\")",
        sys::path_symlink("", DIR, "empty"),
    );
    code(
        "path_symlink(\"/abs\", \"abs\")",
        sys::path_symlink("/abs", DIR, "abs"),
    );
    code(
        "path_symlink(\"../up\", \"up\")",
        sys::path_symlink("../up", DIR, "up"),
    );
    code(
        "path_symlink(\"f\", \"nodir/s\")",
        sys::path_symlink("f", DIR, "nodir/s"),
    );
    code(
        "path_symlink(\"f\", \"d\")",
        sys::path_symlink("f", DIR, "d"),
    );
    code("path_unlink_file(\"ld\")", sys::path_unlink_file(DIR, "ld"));
    filestat("d still there", 0, "d");
    code(
        "path_remove_directory(\"l\")",
        sys::path_remove_directory(DIR, "l"),
    );
    code(
        "path_rename(\"l\", \"l2\")",
        sys::path_rename(DIR, "l", DIR, "l2"),
    );
    filestat("l2 is the link", 0, "l2");
    for path in [
        "h", "hl", "hf", "hd", "hd2", "l2", "dl", "a", "b", "empty", "abs", "up", "missing", "f",
        "d/f",
    ] {
        sys::path_unlink_file(DIR, path);
    }
}

fn dirops() {
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

fn sock() {
    make_file("f", b"abc");
    let file = open("file", DIR, 0, "f", 0, FILE_RW, 0).expect("open file");
    for fd in [99, DIR, 0, 1, file] {
        for how in [SDFLAGS_RD, SDFLAGS_WR, SDFLAGS_RD | SDFLAGS_WR, 0] {
            code(
                &format!("sock_shutdown({fd}, {how})"),
                sys::sock_shutdown(fd, how),
            );
        }
        res(
            &format!("sock_accept({fd})"),
            sys::sock_accept(fd, 0),
            |fd| format!("fd={fd}"),
        );
        res(&format!("sock_recv({fd})"), sys::sock_recv(fd, 4, 0), |r| {
            format!("{r:?}")
        });
        res(&format!("sock_send({fd})"), sys::sock_send(fd, b"x"), |n| {
            n.to_string()
        });
    }
    sys::fd_close(file);
    sys::path_unlink_file(DIR, "f");
}

fn paths() {
    setup(sys::path_create_directory(DIR, "a"), "mkdir a");
    make_file("a/b", b"bee");
    for (target, link) in [
        ("/etc/passwd", "abs"),
        ("../outside", "up"),
        ("a/../a/b", "upok"),
        ("a/../../x", "deep"),
        ("..", "dotdot"),
        (".", "dot"),
    ] {
        code(
            &format!("path_symlink({target:?}, {link:?})"),
            sys::path_symlink(target, DIR, link),
        );
    }
    let long = "n".repeat(300);
    let deep = "a/".repeat(20) + "x";
    for path in [
        "a/./b",
        "a//b",
        "a/../a/b",
        "./a/b",
        "a/b/.",
        "a/b/..",
        "a/.",
        "a/..",
        ".",
        "..",
        "../",
        "../sandbox/a/b",
        "a/../../sandbox/a/b",
        "a/../..",
        "/a/b",
        "/",
        "",
        "abs",
        "up",
        "upok",
        "deep",
        "dotdot",
        "dot",
        "dot/a/b",
        "dotdot/x",
        "up/x",
        "a/b/c",
        long.as_str(),
        deep.as_str(),
        "a\0b",
    ] {
        let shown = if path.len() > 40 {
            format!("<{} bytes>", path.len())
        } else {
            format!("{path:?}")
        };
        res(
            &format!("open {shown} follow"),
            sys::path_open(DIR, FOLLOW, path, 0, RIGHTS_FD_READ, 0, 0),
            |fd| {
                let kind = sys::fdstat(*fd)
                    .map(|s| filetype_name(s.filetype))
                    .unwrap_or("?");
                sys::fd_close(*fd);
                format!("{kind}")
            },
        );
        res(
            &format!("open {shown} nofollow"),
            sys::path_open(DIR, 0, path, 0, RIGHTS_FD_READ, 0, 0),
            |fd| {
                sys::fd_close(*fd);
                String::new()
            },
        );
        res(
            &format!("stat {shown}"),
            sys::path_filestat_get(DIR, FOLLOW, path),
            stat_text,
        );
        res(
            &format!("lstat {shown}"),
            sys::path_filestat_get(DIR, 0, path),
            stat_text,
        );
    }
    code(
        "path_create_directory(\"../x\")",
        sys::path_create_directory(DIR, "../x"),
    );
    code(
        "path_create_directory(\"a/../../x\")",
        sys::path_create_directory(DIR, "a/../../x"),
    );
    code(
        "path_create_directory(\"/x\")",
        sys::path_create_directory(DIR, "/x"),
    );
    code(
        "path_create_directory(\"\")",
        sys::path_create_directory(DIR, ""),
    );
    code(
        "path_create_directory(\".\")",
        sys::path_create_directory(DIR, "."),
    );
    code(
        "path_create_directory(\"a/c/..\")",
        sys::path_create_directory(DIR, "a/c/.."),
    );
    code(
        "path_create_directory(\"up/x\")",
        sys::path_create_directory(DIR, "up/x"),
    );
    code(
        "path_rename(\"a/b\", \"../x\")",
        sys::path_rename(DIR, "a/b", DIR, "../x"),
    );
    code(
        "path_rename(\"../x\", \"a/c\")",
        sys::path_rename(DIR, "../x", DIR, "a/c"),
    );
    code(
        "path_rename(\"a/b\", \"a/./c\")",
        sys::path_rename(DIR, "a/b", DIR, "a/./c"),
    );
    code(
        "path_rename(\"a/c\", \"a//b\")",
        sys::path_rename(DIR, "a/c", DIR, "a//b"),
    );
    code("path_unlink_file(\"..\")", sys::path_unlink_file(DIR, ".."));
    code(
        "path_unlink_file(\"a/../up\")",
        sys::path_unlink_file(DIR, "a/../up"),
    );
    code(
        "path_remove_directory(\".\")",
        sys::path_remove_directory(DIR, "."),
    );
    code(
        "path_remove_directory(\"a/..\")",
        sys::path_remove_directory(DIR, "a/.."),
    );
    code(
        "path_link(\"a/b\", \"../x\")",
        sys::path_link(DIR, 0, "a/b", DIR, "../x"),
    );
    code(
        "path_symlink(\"a\", \"../x\")",
        sys::path_symlink("a", DIR, "../x"),
    );
    res(
        "path_readlink(\"../x\")",
        sys::path_readlink(DIR, "../x", 16),
        |_| String::new(),
    );
    code(
        "path_filestat_set_times(\"..\")",
        sys::path_filestat_set_times(DIR, FOLLOW, "..", 1, 1, FSTFLAGS_ATIM),
    );
    let fd = open(
        "create through dot",
        DIR,
        0,
        "./a/../new",
        OFLAGS_CREAT,
        FILE_RW,
        0,
    );
    close(fd);
    let fd = open("create above", DIR, 0, "../new", OFLAGS_CREAT, FILE_RW, 0);
    close(fd);
    let fd = open(
        "create via up link",
        DIR,
        FOLLOW,
        "up",
        OFLAGS_CREAT,
        FILE_RW,
        0,
    );
    close(fd);
}

fn files() {
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

fn dirs() {
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
fn dirents(bytes: &[u8]) -> Vec<(u64, u8, String)> {
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

fn readdir() {
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

fn poll() {
    res(
        "poll_oneoff(no subscriptions)",
        sys::poll_oneoff(&[]),
        |e| format!("{e:?}"),
    );
    let ev = |e: &Vec<sys::Event>| {
        e.iter()
            .map(|(u, err, ty, n, f)| {
                format!(
                    "[user={u} {} type={ty} nbytes={n} flags={f}]",
                    sys::errname(i32::from(*err))
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    res(
        "poll clock 1 ms",
        sys::poll_oneoff(&[Subscription::clock(7, 1, 1_000_000, 0, 0)]),
        ev,
    );
    res(
        "poll clock abstime 0",
        sys::poll_oneoff(&[Subscription::clock(
            8,
            1,
            0,
            0,
            SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME,
        )]),
        ev,
    );
    res(
        "poll realtime abstime 0",
        sys::poll_oneoff(&[Subscription::clock(
            9,
            0,
            0,
            0,
            SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME,
        )]),
        ev,
    );
    res(
        "poll clock id 9",
        sys::poll_oneoff(&[Subscription::clock(10, 9, 0, 0, 0)]),
        ev,
    );
    res(
        "poll cputime clock",
        sys::poll_oneoff(&[Subscription::clock(11, 2, 1000, 0, 0)]),
        ev,
    );
    make_file("f", b"0123456789");
    let fd = open("file", DIR, 0, "f", 0, FILE_RW, 0).expect("open");
    res(
        "poll fd_read file",
        sys::poll_oneoff(&[Subscription::fd(1, 1, fd)]),
        ev,
    );
    sys::fd_seek(fd, 4, 0).ok();
    res(
        "poll fd_read file at 4",
        sys::poll_oneoff(&[Subscription::fd(1, 1, fd)]),
        ev,
    );
    res(
        "poll fd_write file",
        sys::poll_oneoff(&[Subscription::fd(2, 2, fd)]),
        ev,
    );
    res(
        "poll fd_write stdout",
        sys::poll_oneoff(&[Subscription::fd(3, 2, 1)]),
        ev,
    );
    res(
        "poll fd_read bad fd",
        sys::poll_oneoff(&[Subscription::fd(4, 1, 99)]),
        ev,
    );
    res(
        "poll fd_read dir",
        sys::poll_oneoff(&[Subscription::fd(5, 1, DIR)]),
        ev,
    );
    res(
        "poll fd_read stdin (empty)",
        sys::poll_oneoff(&[Subscription::fd(6, 1, 0)]),
        ev,
    );
    res(
        "poll bad tag",
        sys::poll_oneoff(&[Subscription::fd(12, 3, fd)]),
        ev,
    );
    res(
        "poll file and clock",
        sys::poll_oneoff(&[
            Subscription::fd(13, 1, fd),
            Subscription::clock(14, 1, 10_000_000_000, 0, 0),
        ]),
        ev,
    );
    sys::fd_close(fd);
    sys::path_unlink_file(DIR, "f");
}

fn misc() {
    code("sched_yield", sys::sched_yield());
    for signal in [0, 15, 9] {
        code(&format!("proc_raise({signal})"), sys::proc_raise(signal));
    }
    println!("exiting with 7");
    sys::proc_exit(7);
}

/// Calls with addresses outside memory. Each case is its own run: a host may trap.
fn fault(case: &str) -> bool {
    use sys::unchecked as raw;
    let bad = sys::BAD_PTR;
    let mut out = [0u64; 2];
    let out_ptr = sys::addr_of(out.as_mut_ptr());
    let name = "f";
    let result = unsafe {
        match case {
            "args" => raw::args_sizes_get(bad, out_ptr),
            "random" => raw::random_get(bad, 16),
            "random_span" => raw::random_get(out_ptr, i32::MAX),
            "clock_out" => raw::clock_time_get(0, 0, bad),
            "fdstat_out" => raw::fd_fdstat_get(1, bad),
            "write_iovs" => raw::fd_write(1, bad, 1, out_ptr),
            "write_buf" => {
                let iov = [bad as u32, 4];
                raw::fd_write(1, sys::addr_of(iov.as_ptr()), 1, out_ptr)
            }
            "write_partial" => {
                // The first iovec is good, the second points outside memory.
                let text = b"first\n";
                let iovs = [
                    sys::addr_of(text.as_ptr()) as u32,
                    text.len() as u32,
                    bad as u32,
                    4,
                ];
                raw::fd_write(1, sys::addr_of(iovs.as_ptr()), 2, out_ptr)
            }
            "write_nwritten" => {
                let text = b"text\n";
                let iov = [sys::addr_of(text.as_ptr()) as u32, text.len() as u32];
                raw::fd_write(1, sys::addr_of(iov.as_ptr()), 1, bad)
            }
            "path" => raw::path_create_directory(3, bad, 4),
            "path_len" => raw::path_create_directory(3, sys::addr_of(name.as_ptr()), i32::MAX),
            "path_utf8" => {
                let invalid = [0xffu8, 0xfe];
                raw::path_create_directory(3, sys::addr_of(invalid.as_ptr()), 2)
            }
            "open_out" => raw::path_open(3, 0, sys::addr_of(name.as_ptr()), 1, 1, 0, 0, 0, bad),
            "readdir_buf" => raw::fd_readdir(3, bad, 64, 0, out_ptr),
            "poll_in" => raw::poll_oneoff(bad, out_ptr, 1, out_ptr),
            "prestat_name" => raw::fd_prestat_dir_name(3, bad, 8),
            _ => return false,
        }
    };
    println!(
        "fault {case} -> {}",
        if result == 0 {
            "ok".into()
        } else {
            sys::errname(result)
        }
    );
    true
}

fn as_result(code: i32) -> Result<(), i32> {
    if code == 0 { Ok(()) } else { Err(code) }
}

/// Calls with a value outside an enum or flags type. Each case is its own run: a host may trap.
fn bad(case: &str) -> bool {
    let result = match case {
        "clock_id" => sys::clock_time_get(4, 0).map(|_| ()),
        "clock_res_id" => sys::clock_res_get(99).map(|_| ()),
        "rights" => sys::path_open(DIR, 0, ".", OFLAGS_DIRECTORY, 1 << 30, 0, 0).map(|_| ()),
        "inheriting" => sys::path_open(DIR, 0, ".", OFLAGS_DIRECTORY, 0, 1 << 40, 0).map(|_| ()),
        "fstflags" => as_result(sys::path_filestat_set_times(DIR, 0, ".", 1, 1, 1 << 4)),
        "sdflags" => as_result(sys::sock_shutdown(1, 4)),
        "advice" => as_result(sys::fd_advise(DIR, 0, 0, 6)),
        "whence" => sys::fd_seek(1, 0, 3).map(|_| ()),
        "fdflags" => as_result(sys::fd_fdstat_set_flags(1, 1 << 5)),
        "oflags" => sys::path_open(DIR, 0, "g", 1 << 4, RIGHTS_FD_READ, 0, 0).map(|_| ()),
        "lookupflags" => sys::path_open(DIR, 2, ".", OFLAGS_DIRECTORY, 0, 0, 0).map(|_| ()),
        "signal" => as_result(sys::proc_raise(200)),
        "subscription_tag" => sys::poll_oneoff(&[Subscription::fd(1, 3, 1)]).map(|_| ()),
        "poll_clock_id" => sys::poll_oneoff(&[Subscription::clock(1, 9, 0, 0, 0)]).map(|_| ()),
        "subclockflags" => sys::poll_oneoff(&[Subscription::clock(1, 1, 0, 0, 2)]).map(|_| ()),
        _ => return false,
    };
    res(&format!("bad {case}"), result, |_| String::new());
    true
}
