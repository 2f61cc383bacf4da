//! Issue 19's attacks on the CLI, each performed for real: files grown without writing
//! a byte must meet the quota (and the process's memory stay small), and an endless
//! stdin must be streamed, not read whole before the script runs.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.
#![allow(clippy::disallowed_methods)] // Native tests: threads feed and read the process.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// `guests/NAME.wat` compiled to a module in `dir`.
fn guest(dir: &Path, name: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/guests/{name}.wat"));
    let wasm = dir.join(format!("{name}.wasm"));
    std::fs::write(&wasm, wat::parse_file(&source).unwrap()).unwrap();
    wasm
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sandtab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The child's peak resident memory so far, in bytes (Linux's VmHWM).
fn peak_rss(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kib * 1024
}

/// Runs the grow_files guest with `options`; the errno of each file's growth (set_size
/// for f1 and f2, fd_allocate for f3 and f4) and the process's peak memory meanwhile.
fn grow_four_files(options: &[&str]) -> (Vec<String>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let wasm = guest(dir.path(), "grow_files");
    let mut args = vec!["run"];
    args.extend_from_slice(options);
    args.push(wasm.to_str().unwrap());
    let mut child = spawn(&args);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut results = Vec::new();
    for _ in 0..4 {
        match lines.next() {
            Some(line) => results.push(line.unwrap()),
            None => break,
        }
    }
    // The guest now waits for stdin's end: it is alive, and its peak is final.
    let peak = peak_rss(&child);
    drop(child.stdin.take());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{results:?} {stderr}");
    (results, peak)
}

/// WASI's EDQUOT, as the guest prints it.
const EDQUOT: &str = "19";
/// WASI's ENOTSUP: `fd_allocate` may refuse to allocate at all (wasmtime does).
const ENOTSUP: &str = "58";

/// The fd_allocate lines (f3, f4): refused, by the quota or altogether.
fn assert_refused(lines: &[String]) {
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, n) in lines.iter().zip(3..) {
        let ok = [EDQUOT, ENOTSUP].map(|errno| format!("f{n}:{errno}"));
        assert!(
            ok.contains(line),
            "{line}: fd_allocate grew the file past the quota"
        );
    }
}

#[test]
fn growing_files_past_the_default_quota_is_edquot_and_memory_stays_small() {
    // 1 GiB, the default, holds the first file; the three others are refused. Before
    // the quota the four succeeded and the process held 4 GiB.
    let (results, peak) = grow_four_files(&[]);
    assert_eq!(results[..2], ["f1:00", &format!("f2:{EDQUOT}")]);
    assert_refused(&results[2..]);
    assert!(peak < 1536 << 20, "peak RSS {} MiB", peak >> 20);
}

#[test]
fn a_smaller_quota_refuses_every_growth_and_the_process_stays_small() {
    let (results, peak) = grow_four_files(&["--quota", "64M"]);
    assert_eq!(
        results[..2],
        [format!("f1:{EDQUOT}"), format!("f2:{EDQUOT}")]
    );
    assert_refused(&results[2..]);
    assert!(peak < 256 << 20, "peak RSS {} MiB", peak >> 20);
}

#[test]
fn a_dir_larger_than_the_quota_is_refused_and_says_how_to_raise_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big"), vec![7u8; 8192]).unwrap();
    let map = format!("{}::/data", dir.path().display());
    let out = spawn(&["sh", "--quota", "4K", "--dir", &map, "-c", "true"])
        .wait_with_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Disk quota exceeded"), "{stderr}");
    assert!(stderr.contains("--quota"), "{stderr}");
}

/// Runs `args` with an endless stream of `y\n` on stdin (fed from a thread until the
/// pipe breaks); its stdout, or a failure if it has not ended within a minute.
fn with_endless_stdin(args: &[&str]) -> String {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let chunk = b"y\n".repeat(32 * 1024);
        while stdin.write_all(&chunk).is_ok() {}
    });
    let (done, ended) = mpsc::channel();
    let mut stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = done.send(text);
    });
    // Generous: a debug build under load; the old CLI never ended (it read stdin whole).
    match ended.recv_timeout(Duration::from_secs(60)) {
        Ok(text) => {
            let status = child.wait().unwrap();
            assert!(status.success(), "{status:?}");
            text
        }
        Err(_) => {
            let peak = peak_rss(&child);
            child.kill().unwrap();
            panic!(
                "still running after 60 s with an endless stdin (peak RSS {} MiB)",
                peak >> 20
            );
        }
    }
}

#[test]
fn sh_streams_an_endless_stdin() {
    assert_eq!(with_endless_stdin(&["sh", "-c", "head -n1"]), "y\n");
}

#[test]
fn sh_streams_stdin_to_a_pipeline_and_a_loop() {
    assert_eq!(
        with_endless_stdin(&["sh", "-c", "read a; read b; echo \"$a$b\"; cat | head -n2"]),
        "yy\ny\ny\n"
    );
}

#[test]
fn run_streams_an_endless_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let wasm = guest(dir.path(), "read_once");
    assert_eq!(with_endless_stdin(&["run", wasm.to_str().unwrap()]), "y\n");
}
