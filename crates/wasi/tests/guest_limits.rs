//! Hard limits and bad modules: every one ends with a defined status and a message.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_wasi::{GuestError, Limit};
use support::{Run, TestIo, wasm};

const WRITE_AND_EXIT: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hi there\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 9))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $proc_exit (i32.const 3))))"#;

#[test]
fn a_guest_writes_and_its_exit_status_is_the_commands() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["prog"]).run(&wasm(WRITE_AND_EXIT), &mut io);
    assert_eq!(outcome.exit_code, 3, "{outcome:?}");
    assert_eq!(outcome.error, None);
    assert_eq!(io.stdout, b"hi there\n");
    assert!(io.stderr.is_empty());
}

const SPIN: &str = r#"(module
  (memory (export "memory") 1)
  (func (export "_start") (loop $l (br $l))))"#;

#[test]
fn an_infinite_loop_runs_out_of_fuel_with_137_and_yields_meanwhile() {
    let mut io = TestIo::default();
    let mut run = Run::new(&["spin"]);
    run.limits.fuel = 50_000_000;
    let outcome = run.run(&wasm(SPIN), &mut io);
    assert_eq!(outcome.exit_code, 137);
    assert_eq!(
        outcome.error,
        Some(GuestError::Limit(Limit::Fuel(50_000_000)))
    );
    let stderr = String::from_utf8_lossy(&io.stderr);
    assert!(
        stderr.contains("fuel limit of 50000000 instructions reached [fuel]"),
        "{stderr}"
    );
    assert!(
        io.yields >= 2,
        "the engine must yield between slices, yielded {}",
        io.yields
    );
    // It stops when the next step needs more fuel than is left.
    assert!(
        (49_999_990..=50_000_000).contains(&outcome.fuel_used),
        "{}",
        outcome.fuel_used
    );
}

#[test]
fn an_infinite_loop_hits_the_deadline() {
    let mut io = TestIo::default();
    let mut run = Run::new(&["spin"]);
    run.limits.deadline_ms = 300;
    let outcome = run.run(&wasm(SPIN), &mut io);
    assert_eq!(outcome.error, Some(GuestError::Limit(Limit::Deadline(300))));
    assert_eq!(outcome.exit_code, 137);
    assert!(String::from_utf8_lossy(&io.stderr).contains("[deadline_ms]"));
}

#[test]
fn a_cancel_stops_the_guest_with_130() {
    let mut io = TestIo {
        cancel_after_yields: Some(3),
        ..TestIo::default()
    };
    let outcome = Run::new(&["spin"]).run(&wasm(SPIN), &mut io);
    assert_eq!(outcome.exit_code, 130);
    assert_eq!(outcome.error, Some(GuestError::Cancelled));
}

const MEMORY_BOMB: &str = r#"(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $l
      (br_if $l (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
    unreachable))"#;

#[test]
fn a_memory_bomb_is_stopped_at_the_memory_limit() {
    let mut io = TestIo::default();
    let mut run = Run::new(&["bomb"]);
    run.limits.memory_bytes = 8 << 20;
    let outcome = run.run(&wasm(MEMORY_BOMB), &mut io);
    assert_eq!(outcome.exit_code, 137);
    assert_eq!(
        outcome.error,
        Some(GuestError::Limit(Limit::Memory(8 << 20)))
    );
    assert!(
        String::from_utf8_lossy(&io.stderr)
            .contains("memory limit of 8 MiB reached [memory_bytes]")
    );
}

const RECURSE: &str = r#"(module
  (memory (export "memory") 1)
  (func $f (param i32) (result i32) (call $f (i32.add (local.get 0) (i32.const 1))))
  (func (export "_start") (drop (call $f (i32.const 0)))))"#;

#[test]
fn unbounded_recursion_is_stopped_at_the_call_depth() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["deep"]).run(&wasm(RECURSE), &mut io);
    assert_eq!(outcome.exit_code, 137, "{outcome:?}");
    assert!(
        matches!(outcome.error, Some(GuestError::Limit(Limit::CallDepth(_)))),
        "{outcome:?}"
    );
}

const FLOOD: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const 65536))
    (loop $l
      (br_if $l (i32.eqz (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))))"#;

#[test]
fn a_flood_of_output_stops_at_the_output_limit_and_streams_meanwhile() {
    let mut io = TestIo::default();
    let mut run = Run::new(&["flood"]);
    run.limits.output_bytes = 4 << 20;
    let outcome = run.run(&wasm(FLOOD), &mut io);
    assert_eq!(outcome.exit_code, 137);
    assert_eq!(
        outcome.error,
        Some(GuestError::Limit(Limit::Output(4 << 20)))
    );
    assert_eq!(
        io.stdout.len(),
        4 << 20,
        "everything up to the limit is delivered"
    );
    assert!(
        io.writes > 10,
        "output reaches the host in pieces, not at the end: {}",
        io.writes
    );
}

#[test]
fn a_malformed_module_is_refused_with_126() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["bad"]).run(b"\0asm\x01\0\0\0\x05garbage", &mut io);
    assert_eq!(outcome.exit_code, 126);
    assert!(
        matches!(outcome.error, Some(GuestError::Malformed(_))),
        "{outcome:?}"
    );
}

#[test]
fn unknown_imports_are_listed() {
    let module = wasm(
        r#"(module
      (import "rb-js-abi-host" "eval" (func (param i32)))
      (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "no_such_call" (func))
      (memory (export "memory") 1)
      (func (export "_start")))"#,
    );
    let mut io = TestIo::default();
    let outcome = Run::new(&["ruby"]).run(&module, &mut io);
    assert_eq!(outcome.exit_code, 126);
    assert_eq!(
        outcome.error,
        Some(GuestError::UnknownImports(vec![
            "rb-js-abi-host.eval".into(),
            "wasi_snapshot_preview1.no_such_call".into()
        ]))
    );
    assert!(String::from_utf8_lossy(&io.stderr).contains("rb-js-abi-host.eval"));
}

#[test]
fn a_reactor_is_not_a_command() {
    let module = wasm(r#"(module (memory (export "memory") 1) (func (export "_initialize")))"#);
    let mut io = TestIo::default();
    let outcome = Run::new(&["lib"]).run(&module, &mut io);
    assert_eq!(outcome.exit_code, 126);
    let message = outcome.error.unwrap().to_string();
    assert!(message.contains("reactor"), "{message}");
}

#[test]
fn a_trapping_start_is_a_crash_with_134() {
    let module =
        wasm(r#"(module (memory (export "memory") 1) (func (export "_start") unreachable))"#);
    let mut io = TestIo::default();
    let outcome = Run::new(&["crash"]).run(&module, &mut io);
    assert_eq!(outcome.exit_code, 134);
    assert!(matches!(outcome.error, Some(GuestError::Trap(_))));
    assert!(String::from_utf8_lossy(&io.stderr).contains("crashed"));
}

#[test]
fn a_pinned_hash_that_differs_refuses_to_run() {
    let engine = sandtab_wasi::GuestEngine::default();
    let bytes = wasm(WRITE_AND_EXIT);
    let err = engine.compile(&bytes, Some(&"0".repeat(64))).unwrap_err();
    assert!(matches!(err, GuestError::HashMismatch { .. }));
    let right = sandtab_wasi::ModuleHash::of(&bytes).to_string();
    let module = engine
        .compile(&bytes, Some(&right))
        .expect("the right hash runs");
    assert_eq!(module.hash().to_string(), right);
    assert!(
        engine.cached(&module.hash()).is_some(),
        "compiled modules are cached"
    );
}

#[test]
fn the_runtime_stays_usable_after_a_failed_guest() {
    let mut io = TestIo::default();
    let mut run = Run::new(&["bomb"]);
    run.limits.memory_bytes = 4 << 20;
    assert_eq!(run.run(&wasm(MEMORY_BOMB), &mut io).exit_code, 137);
    let mut io = TestIo::default();
    assert_eq!(
        Run::new(&["prog"])
            .run(&wasm(WRITE_AND_EXIT), &mut io)
            .exit_code,
        3
    );
    assert_eq!(io.stdout, b"hi there\n");
}

const TOOL_CALL: &str = r#"(module
  (import "sandtab" "tool_call" (func $call (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "echo")
  (data (i32.const 200) "{\"x\":1}")
  (func (export "_start") (local $errno i32)
    ;; first with a buffer too small: ERANGE (68), the length is reported
    (local.set $errno (call $call (i32.const 100) (i32.const 4) (i32.const 200) (i32.const 7)
                                  (i32.const 1000) (i32.const 4) (i32.const 16)))
    (if (i32.ne (local.get $errno) (i32.const 68)) (then (call $exit (i32.const 10))))
    ;; again with room: the same answer, without calling the tool again
    (local.set $errno (call $call (i32.const 100) (i32.const 4) (i32.const 200) (i32.const 7)
                                  (i32.const 1000) (i32.const 500) (i32.const 16)))
    (if (local.get $errno) (then (call $exit (i32.const 11))))
    (i32.store (i32.const 0) (i32.const 1000))
    (i32.store (i32.const 4) (i32.load (i32.const 16)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#;

#[test]
fn a_host_call_awaits_the_host_and_resumes_the_guest() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["tool"]).run(&wasm(TOOL_CALL), &mut io);
    assert_eq!(
        outcome.exit_code,
        0,
        "{outcome:?} {}",
        String::from_utf8_lossy(&io.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&io.stdout), r#"{"echo":{"x":1}}"#);
    assert_eq!(io.calls.lock().unwrap().len(), 1, "the tool ran once");
}

/// Opens `/dev/sandtab/NAME` (NAME from the data at 300), writes "hello " then
/// "device", reads the answer in two reads and prints it; a failed read exits 5, a
/// write after the read must be EBADF (8) or it exits 6.
const DEVICE: &str = r#"(module
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "hello device")
  (data (i32.const 300) "dev/sandtab/upper")
  (func $write (param $fd i32) (param $at i32) (param $len i32) (result i32)
    (i32.store (i32.const 0) (local.get $at))
    (i32.store (i32.const 4) (local.get $len))
    (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8)))
  (func $read (param $fd i32) (param $at i32) (param $len i32) (result i32)
    (i32.store (i32.const 0) (local.get $at))
    (i32.store (i32.const 4) (local.get $len))
    (if (call $fd_read (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8))
      (then (call $exit (i32.const 5))))
    (i32.load (i32.const 8)))
  (func (export "_start") (local $fd i32) (local $got i32)
    (if (call $open (i32.const 3) (i32.const 0) (i32.const 300) (i32.const 17) (i32.const 0)
                    (i64.const 0x42) (i64.const 0x42) (i32.const 0) (i32.const 16))
      (then (call $exit (i32.const 4))))
    (local.set $fd (i32.load (i32.const 16)))
    (drop (call $write (local.get $fd) (i32.const 100) (i32.const 6)))
    (drop (call $write (local.get $fd) (i32.const 106) (i32.const 6)))
    (local.set $got (call $read (local.get $fd) (i32.const 1000) (i32.const 5)))
    (local.set $got (i32.add (local.get $got)
      (call $read (local.get $fd) (i32.add (i32.const 1000) (local.get $got)) (i32.const 100))))
    (if (i32.ne (call $write (local.get $fd) (i32.const 100) (i32.const 1)) (i32.const 8))
      (then (call $exit (i32.const 6))))
    (drop (call $fd_close (local.get $fd)))
    (drop (call $write (i32.const 1) (i32.const 1000) (local.get $got)))))"#;

#[test]
fn a_device_file_sends_what_was_written_and_reads_the_answer() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["dev"]).run(&wasm(DEVICE), &mut io);
    assert_eq!(outcome.exit_code, 0, "{outcome:?}");
    assert_eq!(String::from_utf8_lossy(&io.stdout), "HELLO DEVICE");
    let calls = io.calls.lock().unwrap().clone();
    assert_eq!(
        calls,
        vec![("device upper".to_string(), "hello device".to_string())],
        "one request, sent whole at the first read"
    );
}

#[test]
fn a_device_the_host_does_not_answer_fails_the_read_with_eio() {
    let mut io = TestIo::default();
    let unknown = DEVICE.replace("dev/sandtab/upper", "dev/sandtab/nope!");
    let outcome = Run::new(&["dev"]).run(&wasm(&unknown), &mut io);
    assert_eq!(outcome.exit_code, 5, "{outcome:?}");
}

/// Opens two devices and writes 33 MiB to each, 1 MiB at a time; exits with the
/// errno of the first write refused (0 if all were taken, 98 if one to the first).
const TWO_BIG_REQUESTS: &str = r#"(module
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 17)
  (data (i32.const 300) "dev/sandtab/upper")
  (func $device (result i32)
    (if (call $open (i32.const 3) (i32.const 0) (i32.const 300) (i32.const 17) (i32.const 0)
                    (i64.const 0x42) (i64.const 0x42) (i32.const 0) (i32.const 16))
      (then (call $exit (i32.const 99))))
    (i32.load (i32.const 16)))
  ;; 33 writes of 1 MiB: the first errno, or 0.
  (func $write_33_mib (param $fd i32) (result i32) (local $n i32) (local $err i32)
    (block $done
      (loop $again
        (i32.store (i32.const 0) (i32.const 0))
        (i32.store (i32.const 4) (i32.const 0x100000))
        (local.set $err (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8)))
        (br_if $done (local.get $err))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br_if $again (i32.lt_u (local.get $n) (i32.const 33)))))
    (local.get $err))
  (func (export "_start") (local $first i32) (local $second i32)
    (local.set $first (call $device))
    (local.set $second (call $device))
    (if (call $write_33_mib (local.get $first)) (then (call $exit (i32.const 98))))
    (call $exit (call $write_33_mib (local.get $second)))))"#;

#[test]
fn requests_on_many_devices_are_bounded_together() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["dev"]).run(&wasm(TWO_BIG_REQUESTS), &mut io);
    assert_eq!(outcome.exit_code, 22, "EFBIG: {outcome:?}");
}

/// The calls no libc program reaches: each answers with its defined errno.
const RARE_CALLS: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_raise" (func $proc_raise (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_recv" (func $sock_recv (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_send" (func $sock_send (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_shutdown" (func $sock_shutdown (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_renumber" (func $fd_renumber (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_set_rights" (func $set_rights (param i32 i64 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $put (param $at i32) (param $value i32) (i32.store8 (local.get $at) (local.get $value)))
  (func (export "_start")
    (call $put (i32.const 200) (call $proc_raise (i32.const 2)))
    (call $put (i32.const 201) (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 100)))
    (call $put (i32.const 202) (call $sock_recv (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 100) (i32.const 104)))
    (call $put (i32.const 203) (call $sock_send (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 100)))
    (call $put (i32.const 204) (call $sock_shutdown (i32.const 3) (i32.const 0)))
    (call $put (i32.const 205) (call $fd_renumber (i32.const 1) (i32.const 77)))
    (call $put (i32.const 206) (call $set_rights (i32.const 1) (i64.const 0) (i64.const 0)))
    (call $put (i32.const 207) (call $prestat_get (i32.const 1) (i32.const 100)))
    (call $put (i32.const 208) (call $fd_seek (i32.const 1) (i64.const 0) (i32.const 0) (i32.const 100)))
    ;; Renumber stderr onto stdout: writes to fd 1 now go to stderr, fd 2 is closed.
    (call $put (i32.const 209) (call $fd_renumber (i32.const 2) (i32.const 1)))
    (i32.store (i32.const 0) (i32.const 200))
    (i32.store (i32.const 4) (i32.const 10))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $put (i32.const 210) (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 0) (i32.const 210))
    (i32.store (i32.const 4) (i32.const 1))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#;

#[test]
fn calls_no_libc_program_reaches_answer_with_their_errno() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["rare"]).run(&wasm(RARE_CALLS), &mut io);
    assert_eq!(outcome.exit_code, 0, "{outcome:?}");
    assert!(io.stdout.is_empty(), "stdout was renumbered away");
    // As wasmtime answers (tests/guests/wasi-conform records the same for every call).
    let (notsup, notsock, badf, spipe) = (58, 57, 8, 70);
    assert_eq!(
        io.stderr,
        vec![
            notsup, notsock, notsock, notsock, notsock, badf, badf, badf, spipe, 0, badf
        ]
    );
}

/// Overlapping iovecs that add up to far more than memory, thousands of iovecs, and a
/// huge symlink target: short writes and an errno, never an allocation the host cannot
/// survive.
const HOSTILE_IO: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 17)
  (func $put (param $at i32) (param $value i32) (i32.store8 (local.get $at) (local.get $value)))
  (func (export "_start") (local $i i32)
    ;; 1000 iovecs, each the first 1 MiB of memory: 1000 MiB from 1 MiB.
    (loop $fill
      (i32.store (i32.add (i32.const 4096) (i32.mul (local.get $i) (i32.const 8))) (i32.const 0))
      (i32.store (i32.add (i32.const 4100) (i32.mul (local.get $i) (i32.const 8))) (i32.const 1048576))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (i32.const 1000))))
    (call $put (i32.const 100) (call $fd_write (i32.const 1) (i32.const 4096) (i32.const 1000) (i32.const 200)))
    (call $put (i32.const 101) (call $fd_write (i32.const 1) (i32.const 4096) (i32.const 5000) (i32.const 200)))
    (call $put (i32.const 102) (call $symlink (i32.const 0) (i32.const 1000000) (i32.const 3) (i32.const 100) (i32.const 1)))
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 3))
    (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))))"#;

#[test]
fn hostile_io_arguments_get_errnos_and_a_short_write() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["hostile"]).run(&wasm(HOSTILE_IO), &mut io);
    assert_eq!(outcome.exit_code, 0, "{outcome:?}");
    // Each write moves the first buffer only (1 MiB), as wasmtime's does, and never
    // reads the iovecs after it; then ENAMETOOLONG.
    assert_eq!(io.stdout.len(), 2 << 20);
    let nametoolong = 37;
    assert_eq!(io.stderr, vec![0, 0, nametoolong]);
}

/// poll_oneoff with a clock that does not exist is EINVAL, relative or absolute.
const POLL_BAD_CLOCK: &str = r#"(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    ;; subscription at 0: userdata 0, tag 0 (clock), clock id 9, timeout 1000 ns, relative
    (i32.store8 (i32.const 8) (i32.const 0))
    (i32.store (i32.const 16) (i32.const 9))
    (i64.store (i32.const 24) (i64.const 1000))
    (call $exit (call $poll (i32.const 0) (i32.const 100) (i32.const 1) (i32.const 200)))))"#;

#[test]
fn polling_an_unknown_clock_is_einval() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["poll"]).run(&wasm(POLL_BAD_CLOCK), &mut io);
    assert_eq!(outcome.exit_code, 28, "{outcome:?}");
}
