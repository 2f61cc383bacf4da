//! How far a path may reach from a preopen. With only one directory preopened, `..`
//! above it and absolute symlinks are EPERM, as in wasmtime (the conformance guest covers
//! that). A shell run preopens the sandbox's root too, so from the working directory
//! `../in.txt` and a symlink to `/work/in.txt` reach what the root preopen grants anyway:
//! both work, and only `..` above the root is refused.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_vfs::VfsPath;
use sandtab_wasi::{ClockMode, GuestEngine, GuestLimits, GuestRun, NativeHost, RandomMode};
use std::sync::Arc;
use support::{TestIo, memory_fs, wasm};

/// Opens four paths and writes each errno as one byte to stdout: `../in.txt` and `abs`
/// (a symlink to `/work/in.txt`) from fd 4 (`.`, /work/pkg), `../x` from fd 3 (`/`), and
/// `abs` from fd 5 (`/work/pkg` preopened on its own, in the second run only).
const OPENER: &str = r#"(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "../in.txt")
  (data (i32.const 120) "abs")
  (data (i32.const 140) "../x")
  (func $try (param $fd i32) (param $path i32) (param $len i32) (param $at i32)
    (i32.store8 (local.get $at)
      (call $open (local.get $fd) (i32.const 1) (local.get $path) (local.get $len)
        (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 200))))
  (func (export "_start")
    (call $try (i32.const 4) (i32.const 100) (i32.const 9) (i32.const 0))
    (call $try (i32.const 4) (i32.const 120) (i32.const 3) (i32.const 1))
    (call $try (i32.const 3) (i32.const 140) (i32.const 4) (i32.const 2))
    (call $try (i32.const 5) (i32.const 120) (i32.const 3) (i32.const 3))
    (i32.store (i32.const 300) (i32.const 0))
    (i32.store (i32.const 304) (i32.const 4))
    (drop (call $write (i32.const 1) (i32.const 300) (i32.const 1) (i32.const 308)))))"#;

fn run(preopens: &[(&str, &str)]) -> Vec<u8> {
    let fs = memory_fs();
    let mem = fs.mem();
    mem.create_dir_all(&VfsPath::parse("/work/pkg").unwrap())
        .unwrap();
    mem.write(&VfsPath::parse("/work/in.txt").unwrap(), b"data")
        .unwrap();
    mem.symlink("/work/in.txt", &VfsPath::parse("/work/pkg/abs").unwrap())
        .unwrap();
    let engine = GuestEngine::new(GuestLimits::default().call_depth);
    let module = engine.compile(&wasm(OPENER), None).unwrap();
    let run = GuestRun {
        args: vec!["opener".into()],
        env: Vec::new(),
        preopens: preopens
            .iter()
            .map(|(name, path)| (name.to_string(), VfsPath::parse(path).unwrap()))
            .collect(),
        fs,
        limits: GuestLimits::default(),
        clock: ClockMode::Real,
        random: RandomMode::Real,
        platform: Arc::new(NativeHost::default()),
        observed: None,
        stdin_terminal: false,
    };
    let mut io = TestIo::default();
    let outcome = futures::executor::block_on(sandtab_wasi::run(&engine, &module, run, &mut io));
    assert_eq!(outcome.exit_code, 0, "{outcome:?}");
    io.stdout
}

#[test]
fn under_the_root_preopen_dotdot_and_absolute_symlinks_reach_sandbox_files() {
    let (ok, perm, notdir) = (0, 63, 54);
    // `/` and `.` as a shell run preopens them; fd 5 is the file the first call opened.
    assert_eq!(
        run(&[("/", "/"), (".", "/work/pkg")]),
        [ok, ok, perm, notdir]
    );
}

#[test]
fn a_preopen_on_its_own_is_a_boundary_as_in_wasmtime() {
    let (ok, perm) = (0, 63);
    // fd 3 is /work, fd 4 is /work/pkg (inside fd 3's preopen: `..` reaches /work),
    // fd 5 is /work/pkg again: the absolute symlink leads out of every preopen.
    assert_eq!(
        run(&[
            ("/work", "/work"),
            (".", "/work/pkg"),
            ("/pkg", "/work/pkg")
        ]),
        [ok, perm, perm, perm]
    );
}
