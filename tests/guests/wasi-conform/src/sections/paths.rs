//! Paths: trailing slashes, symlinks and links, odd spellings and `..`.

use super::{DIR, FILE_RW, FOLLOW, close, filestat, make_file, open, setup, stat_text};
use crate::sys::{self, filetype_name};
use crate::{code, res};
use wasi::*;

pub(super) fn trailing() {
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

pub(super) fn links() {
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

pub(super) fn paths() {
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
