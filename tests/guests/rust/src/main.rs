//! A WASI preview1 test guest that reaches WASI only through Rust's std (see README.md).
//!
//! Everything it prints is deterministic: no inode numbers, host paths, times or OS error
//! messages (errors are printed as `io::ErrorKind` names). A failed check prints
//! `FAIL NAME DETAIL` and exits 1.
//!
//! `std::os::wasi::fs` is still unstable (feature `wasi_ext`, rust-lang/rust#71213), so the
//! wasm32-wasip1 build needs `RUSTC_BOOTSTRAP=1` (scripts/setup.sh sets it); native builds,
//! which use `std::os::unix::fs::symlink`, need nothing.
#![cfg_attr(target_os = "wasi", feature(wasi_ext))]

use std::env;
use std::fmt::Debug;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const USAGE: &str = "usage: rust_guest fs DIR | env [ARG...] | stdin | time | panic";

fn main() {
    let args: Vec<String> = env::args().collect();
    match (args.get(1).map(String::as_str), args.len()) {
        (Some("fs"), 3) => fs_mode(Path::new(&args[2])),
        (Some("env"), _) => env_mode(&args),
        (Some("stdin"), 2) => stdin_mode(),
        (Some("time"), 2) => time_mode(),
        (Some("panic"), 2) => panic!("boom"),
        _ => {
            eprintln!("{USAGE}");
            process::exit(2);
        }
    }
}

/// A check went wrong: says which, and ends the run with status 1.
fn fail(name: &str, detail: impl Debug) -> ! {
    println!("FAIL {name} {detail:?}");
    let _ = io::stdout().flush();
    process::exit(1);
}

/// A step that must succeed: prints `ok NAME` and returns its value.
fn ok<T>(name: &str, result: io::Result<T>) -> T {
    match result {
        Ok(value) => {
            println!("ok {name}");
            value
        }
        Err(e) => fail(name, e.kind()),
    }
}

/// A step whose value is checked next: returns it, printing nothing.
fn get<T>(name: &str, result: io::Result<T>) -> T {
    result.unwrap_or_else(|e| fail(name, e.kind()))
}

/// A step that must fail: prints `kind NAME KIND`.
fn kind<T>(name: &str, result: io::Result<T>) {
    match result {
        Ok(_) => fail(name, "succeeded"),
        Err(e) => println!("kind {name} {}", kind_name(&e)),
    }
}

/// The `io::ErrorKind` of an error, by name. Rust's std on WASI (1.96) maps every errno as on
/// unix except ENOTEMPTY, which it leaves Uncategorized: name that one as unix does.
fn kind_name(e: &io::Error) -> String {
    #[cfg(target_os = "wasi")]
    if e.raw_os_error() == Some(55) {
        // wasi-libc's ENOTEMPTY (__WASI_ERRNO_NOTEMPTY).
        return "DirectoryNotEmpty".to_string();
    }
    format!("{:?}", e.kind())
}

/// A value that must be as expected: prints `ok NAME`.
fn check<T: PartialEq + Debug>(name: &str, got: T, want: T) {
    if got == want {
        println!("ok {name}");
    } else {
        fail(name, format_args!("got {got:?}, want {want:?}"));
    }
}

fn read_string(name: &str, path: &Path) -> String {
    match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => fail(name, e.kind()),
    }
}

/// Sorted `NAME:TYPE` entries of a directory (`.` and `..` are never listed).
fn listing(name: &str, dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in get(name, fs::read_dir(dir)) {
        let entry = entry.unwrap_or_else(|e| fail(name, e.kind()));
        let ty = entry.file_type().unwrap_or_else(|e| fail(name, e.kind()));
        let ty = if ty.is_symlink() {
            "symlink"
        } else if ty.is_dir() {
            "dir"
        } else if ty.is_file() {
            "file"
        } else {
            "other"
        };
        names.push(format!("{}:{ty}", entry.file_name().to_string_lossy()));
    }
    names.sort();
    names
}

#[cfg(target_os = "wasi")]
fn symlink(target: &str, link: &Path) -> io::Result<()> {
    std::os::wasi::fs::symlink_path(target, link)
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// `std::fs::hard_link` on wasm32-wasip1 calls wasi-libc's `linkat(AT_FDCWD, ..)`, which before
/// WebAssembly/wasi-libc#690 (December 2025; Debian's wasi-libc is from 2022) relativizes both
/// paths into one buffer whenever the working-directory emulation is linked in (std always links
/// it), so the call links the new name to itself and fails with NotFound. Ask for `path_link`
/// directly instead, on the directory itself.
#[cfg(target_os = "wasi")]
fn hard_link(dir: &Path, old: &str, new: &str) -> io::Result<()> {
    let handle = File::open(dir)?;
    std::os::wasi::fs::link(&handle, 0, old, &handle, new)
}

#[cfg(unix)]
fn hard_link(dir: &Path, old: &str, new: &str) -> io::Result<()> {
    fs::hard_link(dir.join(old), dir.join(new))
}

fn fs_mode(dir: &Path) {
    let at = |rel: &str| -> PathBuf { dir.join(rel) };

    // Directories.
    ok("create_dir_all", fs::create_dir_all(at("a/b/c")));
    ok("create_dir_all_again", fs::create_dir_all(at("a/b/c")));
    kind("create_dir_exists", fs::create_dir(at("a")));
    ok("create_dir", fs::create_dir(at("a/empty")));

    // Whole-file write and read.
    let file = at("a/b/c/file.txt");
    ok("write", fs::write(&file, "hello\n"));
    check(
        "read_to_string",
        read_string("read_to_string", &file),
        "hello\n".into(),
    );
    check(
        "read",
        get("read_bytes", fs::read(&file)),
        b"hello\n".to_vec(),
    );

    // OpenOptions: append, create_new, truncate.
    {
        let mut f = ok("open_append", OpenOptions::new().append(true).open(&file));
        ok("write_append", f.write_all(b"world\n"));
    }
    check(
        "append",
        read_string("append", &file),
        "hello\nworld\n".into(),
    );
    kind(
        "create_new_exists",
        OpenOptions::new().write(true).create_new(true).open(&file),
    );
    let new = at("new.txt");
    {
        let mut f = ok(
            "create_new",
            OpenOptions::new().write(true).create_new(true).open(&new),
        );
        ok("write_new", f.write_all(b"0123456789"));
        ok("sync_all", f.sync_all());
        ok("sync_data", f.sync_data());
    }
    {
        let mut f = ok(
            "open_truncate",
            OpenOptions::new().write(true).truncate(true).open(&file),
        );
        ok("write_truncated", f.write_all(b"abc"));
    }
    check("truncate", read_string("truncate", &file), "abc".into());
    {
        let f = ok(
            "open_create",
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&file),
        );
        check(
            "create_keeps",
            get("metadata_create", f.metadata()).len(),
            3,
        );
    }

    // Seek, read_exact, positioned writes, set_len.
    {
        let mut f = ok(
            "open_rw",
            OpenOptions::new().read(true).write(true).open(&new),
        );
        check("seek_end", get("seek_end", f.seek(SeekFrom::End(-3))), 7);
        let mut three = [0u8; 3];
        ok("read_exact", f.read_exact(&mut three));
        check("read_exact_data", &three, b"789");
        check(
            "seek_start",
            get("seek_start", f.seek(SeekFrom::Start(2))),
            2,
        );
        let mut two = [0u8; 2];
        ok("read_exact_2", f.read_exact(&mut two));
        check("read_exact_2_data", &two, b"23");
        check(
            "seek_current",
            get("seek_current", f.seek(SeekFrom::Current(1))),
            5,
        );
        check(
            "stream_position",
            get("stream_position", f.stream_position()),
            5,
        );
        kind("seek_negative", f.seek(SeekFrom::Current(-100)));
        f.seek(SeekFrom::End(-1))
            .unwrap_or_else(|e| fail("seek_end_1", e.kind()));
        let mut four = [0u8; 4];
        kind("read_exact_eof", f.read_exact(&mut four));
        ok("rewind", f.rewind());
        ok("write_at_start", f.write_all(b"AB"));
        check(
            "after_write",
            read_string("after_write", &new),
            "AB23456789".into(),
        );
        ok("set_len_shrink", f.set_len(4));
        check("len_shrunk", get("metadata_shrunk", f.metadata()).len(), 4);
        ok("set_len_grow", f.set_len(8));
        check(
            "grown_zeroes",
            get("read_grown", fs::read(&new)),
            b"AB23\0\0\0\0".to_vec(),
        );
        // set_len leaves the position (2) alone: this write overwrites, it does not append.
        ok("write_at_position", f.write_all(b"cd"));
        check(
            "position_write",
            get("read_position", fs::read(&new)),
            b"ABcd\0\0\0\0".to_vec(),
        );
    }

    // A file larger than one read or write buffer.
    let big = at("big.bin");
    let data: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    ok("write_big", fs::write(&big, &data));
    check("read_big", get("read_big", fs::read(&big)), data);
    check(
        "copy",
        get("copy", fs::copy(&big, at("a/copy.bin"))),
        200_000,
    );
    check(
        "copy_len",
        get("metadata_copy", fs::metadata(at("a/copy.bin"))).len(),
        200_000,
    );
    ok("remove_big", fs::remove_file(&big));

    // Metadata.
    let meta = ok("metadata_file", fs::metadata(&new));
    check("file_len", meta.len(), 8);
    check("file_is_file", meta.is_file(), true);
    check("file_is_dir", meta.is_dir(), false);
    let meta = ok("metadata_dir", fs::metadata(at("a")));
    check("dir_is_dir", meta.is_dir(), true);
    check("dir_is_file", meta.is_file(), false);
    check("exists", get("exists", fs::exists(&new)), true);
    check(
        "not_exists",
        get("not_exists", fs::exists(at("nothing"))),
        false,
    );

    // Missing files.
    kind("open_missing", File::open(at("missing.txt")));
    kind("read_missing", fs::read_to_string(at("missing.txt")));
    kind("metadata_missing", fs::metadata(at("missing/deeper")));

    // read_dir, sorted.
    check(
        "read_dir",
        listing("read_dir", dir),
        vec!["a:dir".to_string(), "new.txt:file".to_string()],
    );
    check(
        "read_dir_nested",
        listing("read_dir_nested", &at("a")),
        vec![
            "b:dir".to_string(),
            "copy.bin:file".to_string(),
            "empty:dir".to_string(),
        ],
    );

    // rename: a file, over an existing file, a directory.
    ok("rename", fs::rename(&new, at("a/moved.txt")));
    kind("rename_old_gone", fs::metadata(&new));
    ok("write_x", fs::write(at("x.txt"), "x"));
    ok("rename_over", fs::rename(at("a/moved.txt"), at("x.txt")));
    check(
        "rename_over_data",
        get("read_x", fs::read(at("x.txt"))),
        b"ABcd\0\0\0\0".to_vec(),
    );
    ok("rename_dir", fs::rename(at("a/b"), at("a/b2")));
    check(
        "rename_dir_data",
        read_string("rename_dir_data", &at("a/b2/c/file.txt")),
        "abc".into(),
    );
    kind(
        "rename_missing",
        fs::rename(at("missing.txt"), at("other.txt")),
    );

    // Symbolic links (relative targets: the link lives inside the sandbox).
    ok("symlink", symlink("x.txt", &at("link")));
    check(
        "read_link",
        get("read_link", fs::read_link(at("link"))),
        PathBuf::from("x.txt"),
    );
    check(
        "symlink_metadata",
        get("symlink_metadata", fs::symlink_metadata(at("link")))
            .file_type()
            .is_symlink(),
        true,
    );
    let meta = ok("metadata_through_link", fs::metadata(at("link")));
    check(
        "link_target_is_file",
        (meta.is_file(), meta.len()),
        (true, 8),
    );
    check(
        "read_through_link",
        get("read_through_link", fs::read(at("link"))),
        b"ABcd\0\0\0\0".to_vec(),
    );
    ok("symlink_dangling", symlink("nowhere", &at("dangling")));
    kind("metadata_dangling", fs::metadata(at("dangling")));
    kind("symlink_exists", symlink("x.txt", &at("link")));
    kind("read_link_not_link", fs::read_link(at("x.txt")));

    // Hard links.
    ok("hard_link", hard_link(dir, "x.txt", "hard.txt"));
    {
        let mut f = ok(
            "open_hard_append",
            OpenOptions::new().append(true).open(at("hard.txt")),
        );
        ok("write_hard", f.write_all(b"!"));
    }
    check(
        "hard_link_shared",
        get("read_x_again", fs::read(at("x.txt"))),
        b"ABcd\0\0\0\0!".to_vec(),
    );
    kind("hard_link_exists", hard_link(dir, "x.txt", "hard.txt"));
    check(
        "read_dir_links",
        listing("read_dir_links", dir),
        vec![
            "a:dir".to_string(),
            "dangling:symlink".to_string(),
            "hard.txt:file".to_string(),
            "link:symlink".to_string(),
            "x.txt:file".to_string(),
        ],
    );

    // Removing.
    ok("remove_file", fs::remove_file(at("hard.txt")));
    kind("remove_file_again", fs::remove_file(at("hard.txt")));
    check(
        "hard_link_survivor",
        get("read_x_after", fs::read(at("x.txt"))).len(),
        9,
    );
    kind("remove_file_dir", fs::remove_file(at("a")));
    kind("remove_dir_not_empty", fs::remove_dir(at("a")));
    kind("remove_dir_file", fs::remove_dir(at("x.txt")));
    ok("remove_dir", fs::remove_dir(at("a/empty")));
    ok("remove_link", fs::remove_file(at("link")));
    check(
        "link_removed_target_kept",
        get("metadata_x", fs::metadata(at("x.txt"))).len(),
        9,
    );
    ok("remove_dangling", fs::remove_file(at("dangling")));
    // remove_dir_all removes a symlink inside the tree, not what it points to.
    ok("symlink_in_tree", symlink("../../x.txt", &at("a/b2/link")));
    ok("remove_dir_all", fs::remove_dir_all(at("a")));
    kind("remove_dir_all_gone", fs::metadata(at("a")));
    check(
        "remove_dir_all_kept_target",
        get("metadata_x_kept", fs::metadata(at("x.txt"))).len(),
        9,
    );
    ok("remove_x", fs::remove_file(at("x.txt")));

    // Relative paths after set_current_dir (wasi-libc keeps the working directory itself).
    ok("set_current_dir", env::set_current_dir(dir));
    check(
        "current_dir",
        get("current_dir", env::current_dir()),
        dir.to_path_buf(),
    );
    ok("write_relative", fs::write("rel.txt", "rel"));
    check(
        "read_relative",
        read_string("read_relative", &at("rel.txt")),
        "rel".into(),
    );
    ok("remove_relative", fs::remove_file("rel.txt"));

    check("empty", listing("empty", dir), Vec::<String>::new());
    println!("done");
}

fn env_mode(args: &[String]) {
    for (i, arg) in args.iter().enumerate() {
        println!("argv[{i}]={arg}");
    }
    match env::var("GREETING") {
        Ok(value) => println!("GREETING={value}"),
        Err(_) => println!("GREETING unset"),
    }
    let _ = io::stdout().flush();
    process::exit(3);
}

fn stdin_mode() {
    let mut count = 0u64;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = line.unwrap_or_else(|e| fail("stdin", e.kind()));
        let reversed: String = line.chars().rev().collect();
        writeln!(out, "{reversed}").unwrap_or_else(|e| fail("stdout", e.kind()));
        count += 1;
    }
    out.flush().unwrap_or_else(|e| fail("stdout", e.kind()));
    eprintln!("lines {count}");
}

// The root clippy.toml forbids these clocks for the runtime (wasm32-unknown-unknown); this guest
// runs on wasm32-wasip1, where they are WASI's clock_time_get, the very thing under test.
#[allow(clippy::disallowed_methods)]
fn time_mode() {
    // 2020-01-01T00:00:00Z.
    const Y2020: Duration = Duration::from_secs(1_577_836_800);
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) if since > Y2020 => println!("time ok"),
        Ok(_) => fail("time", "before 2020"),
        Err(_) => fail("time", "before 1970"),
    }
    let start = Instant::now();
    thread::sleep(Duration::from_millis(10));
    let end = Instant::now();
    if end < start {
        fail("sleep", "monotonic clock went back");
    }
    if end.duration_since(start) < Duration::from_millis(10) {
        fail("sleep", "slept less than 10 ms");
    }
    println!("sleep ok");
}
