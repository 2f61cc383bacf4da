//! Real C programs (built by `./dev setup`) under limits, and the deterministic modes.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_vfs::VfsPath;
use sandtab_wasi::{ClockMode, GuestError, Limit, RandomMode};
use support::{Run, TestIo, built_guest};

fn exit_trap(
    mode: &[&str],
    configure: impl FnOnce(&mut Run),
) -> (sandtab_wasi::RunOutcome, TestIo) {
    let mut args = vec!["exit_trap"];
    args.extend_from_slice(mode);
    let mut run = Run::new(&args);
    configure(&mut run);
    let mut io = TestIo::default();
    let outcome = run.run(&built_guest("c/exit_trap.wasm"), &mut io);
    (outcome, io)
}

#[test]
fn a_c_infinite_loop_is_stopped_by_fuel() {
    let (outcome, io) = exit_trap(&["loop"], |run| run.limits.fuel = 100_000_000);
    assert_eq!(outcome.exit_code, 137);
    assert_eq!(
        outcome.error,
        Some(GuestError::Limit(Limit::Fuel(100_000_000)))
    );
    assert!(String::from_utf8_lossy(&io.stderr).contains("[fuel]"));
}

#[test]
fn a_c_memory_bomb_is_stopped_by_the_memory_limit() {
    let (outcome, io) = exit_trap(&["alloc"], |run| run.limits.memory_bytes = 200 << 20);
    assert_eq!(outcome.exit_code, 137, "{outcome:?}");
    assert_eq!(
        outcome.error,
        Some(GuestError::Limit(Limit::Memory(200 << 20)))
    );
    let stdout = String::from_utf8_lossy(&io.stdout);
    assert!(
        stdout.contains("block 2\n") && stdout.contains("alloc failed"),
        "{stdout}"
    );
}

#[test]
fn c_recursion_without_end_is_stopped_by_the_call_depth() {
    let (outcome, _io) = exit_trap(&["recurse"], |_| {});
    assert_eq!(outcome.exit_code, 137, "{outcome:?}");
    assert!(matches!(
        outcome.error,
        Some(GuestError::Limit(Limit::CallDepth(_)))
    ));
}

#[test]
fn a_c_output_flood_is_stopped_by_the_output_limit() {
    let (outcome, io) = exit_trap(&["flood"], |run| run.limits.output_bytes = 8 << 20);
    assert_eq!(outcome.exit_code, 137);
    assert_eq!(io.stdout.len(), 8 << 20);
}

#[test]
fn a_guest_cannot_name_anything_outside_the_sandbox() {
    let (outcome, io) = exit_trap(&["escape", "/tmp"], |run| {
        run.fs
            .mem()
            .create_dir(&VfsPath::parse("/tmp").unwrap())
            .unwrap();
    });
    assert_eq!(outcome.exit_code, 0, "{outcome:?}");
    let stdout = String::from_utf8_lossy(&io.stdout);
    assert!(!stdout.contains("OPENED"), "{stdout}");
    // `..` above a preopen is EPERM, as in wasmtime (the preopen here is `/`).
    assert_eq!(
        stdout,
        "escape ../../etc/passwd errno EPERM\n\
         escape /etc/passwd errno ENOENT\n\
         escape /tmp/../../../etc/passwd errno EPERM\n"
    );
}

#[test]
fn seeded_randomness_repeats_and_real_randomness_does_not() {
    let random_line = |random: RandomMode| {
        let mut run = Run::new(&["clock_random", "--print-random"]);
        run.random = random;
        let mut io = TestIo::default();
        let outcome = run.run(&built_guest("c/clock_random.wasm"), &mut io);
        assert_eq!(
            outcome.exit_code,
            0,
            "{}",
            String::from_utf8_lossy(&io.stderr)
        );
        String::from_utf8_lossy(&io.stdout).into_owned()
    };
    assert_eq!(
        random_line(RandomMode::Seeded(7)),
        random_line(RandomMode::Seeded(7))
    );
    assert_ne!(
        random_line(RandomMode::Seeded(7)),
        random_line(RandomMode::Seeded(8))
    );
    assert_ne!(random_line(RandomMode::Real), random_line(RandomMode::Real));
}

#[test]
fn a_virtual_clock_sleeps_without_waiting_and_repeats_exactly() {
    let run_once = || {
        let mut run = Run::new(&["clock_random"]);
        run.clock = ClockMode::Virtual {
            start_ns: 1_700_000_000_000_000_000,
        };
        run.random = RandomMode::Seeded(1);
        let mut io = TestIo::default();
        let outcome = run.run(&built_guest("c/clock_random.wasm"), &mut io);
        assert_eq!(outcome.exit_code, 0);
        assert_eq!(io.slept_ns, 0, "a virtual sleep takes no time");
        io.stdout
    };
    let first = run_once();
    assert!(String::from_utf8_lossy(&first).contains("sleep ok"));
    assert_eq!(first, run_once());
}

#[test]
fn a_real_sleep_waits_through_the_host() {
    let mut io = TestIo::default();
    let outcome = Run::new(&["clock_random"]).run(&built_guest("c/clock_random.wasm"), &mut io);
    assert_eq!(outcome.exit_code, 0);
    assert!(io.slept_ns >= 5_000_000, "slept {} ns", io.slept_ns);
}

#[test]
fn stdin_streams_in_pieces_and_the_guest_sees_all_of_it() {
    let mut run = Run::new(&["stdin_upper"]);
    run.limits.fuel = 1_000_000_000;
    let input: Vec<u8> = (0..200_000).map(|i| b"abcdefghij\n"[i % 11]).collect();
    let mut io = TestIo {
        stdin: input.clone(),
        chunk: 4096,
        ..TestIo::default()
    };
    let outcome = run.run(&built_guest("c/stdin_upper.wasm"), &mut io);
    assert_eq!(outcome.exit_code, 0);
    assert_eq!(io.stdout, input.to_ascii_uppercase());
    assert!(io.writes > 2, "output went out while input came in");
}

#[test]
fn cpython_runs_a_one_liner_and_a_script_that_uses_sandbox_files() {
    let python = built_guest("python.wasm");
    let mut io = TestIo::default();
    let outcome = Run::new(&[
        "python3",
        "-c",
        r#"import json; print(json.dumps({"a": [1, 2]}))"#,
    ])
    .run(&python, &mut io);
    assert_eq!(
        outcome.exit_code,
        0,
        "{}",
        String::from_utf8_lossy(&io.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&io.stdout), "{\"a\": [1, 2]}\n");

    let run = Run::new(&["python3", "/work/main.py"]);
    let fs = run.fs.mem().clone();
    let path = |p: &str| VfsPath::parse(p).unwrap();
    fs.create_dir_all(&path("/work/lib")).unwrap();
    fs.write(
        &path("/work/lib/helper.py"),
        b"def double(x):\n    return 2 * x\n",
    )
    .unwrap();
    fs.write(&path("/work/data.txt"), b"21\n").unwrap();
    fs.write(
        &path("/work/main.py"),
        b"import sys, os\nsys.path.insert(0, '/work/lib')\nfrom helper import double\n\
n = int(open('/work/data.txt').read())\nopen('/work/out.txt', 'w').write(str(double(n)))\n\
print(sorted(os.listdir('/work')), os.getcwd())\n",
    )
    .unwrap();
    let mut io = TestIo::default();
    let outcome = run.run(&python, &mut io);
    assert_eq!(
        outcome.exit_code,
        0,
        "{}",
        String::from_utf8_lossy(&io.stderr)
    );
    assert_eq!(fs.read(&path("/work/out.txt")).unwrap(), b"42");
    assert_eq!(
        String::from_utf8_lossy(&io.stdout),
        "['data.txt', 'lib', 'main.py', 'out.txt'] /\n"
    );
}

fn rust_expected(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/guests/rust/expected")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The Rust test guest (tests/guests/rust, std for wasm32-wasip1) in each of its modes.
#[test]
fn a_rust_std_guest_matches_its_expected_output() {
    check_rust_guest();
}

/// The same modes with host calls given a memory that cannot lend its bytes (every
/// access copies, as with a browser engine's `WebAssembly.Memory`).
#[test]
fn a_rust_std_guest_matches_its_expected_output_through_a_memory_that_cannot_lend() {
    let ((), copies) = sandtab_wasi::testing::with_non_lending_memory(check_rust_guest);
    assert!(copies.reads > 0 && copies.writes > 0, "{copies:?}");
}

/// Seeded randomness (`random_get` fills guest memory) and the virtual clock read the
/// same whether the memory lends its bytes or only copies them.
#[test]
fn seeded_random_and_a_virtual_clock_are_the_same_through_a_memory_that_cannot_lend() {
    let run_once = |args: &[&str]| {
        let mut run = Run::new(args);
        run.clock = ClockMode::Virtual {
            start_ns: 1_700_000_000_000_000_000,
        };
        run.random = RandomMode::Seeded(3);
        let mut io = TestIo::default();
        let outcome = run.run(&built_guest("c/clock_random.wasm"), &mut io);
        (outcome, io.stdout, io.stderr)
    };
    for args in [&["clock_random"][..], &["clock_random", "--print-random"]] {
        let direct = run_once(args);
        assert_eq!(
            direct.0.exit_code,
            0,
            "{}",
            String::from_utf8_lossy(&direct.2)
        );
        let (copied, copies) = sandtab_wasi::testing::with_non_lending_memory(|| run_once(args));
        assert!(copies.writes > 0, "{copies:?}");
        assert_eq!(direct, copied, "{args:?}");
    }
}

fn check_rust_guest() {
    let guest = built_guest("rust/rust_guest.wasm");
    let run_mode = |args: &[&str], env: Vec<(String, String)>, stdin: Vec<u8>| {
        let mut run = Run::new(args);
        run.env = env;
        run.fs
            .mem()
            .create_dir(&VfsPath::parse("/sandbox").unwrap())
            .unwrap();
        let mut io = TestIo {
            stdin,
            chunk: 5,
            ..TestIo::default()
        };
        let outcome = run.run(&guest, &mut io);
        (outcome, io)
    };
    let (outcome, io) = run_mode(&["rust_guest", "fs", "/sandbox"], Vec::new(), Vec::new());
    assert_eq!(
        outcome.exit_code,
        0,
        "{}",
        String::from_utf8_lossy(&io.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&io.stdout),
        String::from_utf8_lossy(&rust_expected("fs.stdout"))
    );

    let (outcome, io) = run_mode(
        &["rust_guest", "env", "a", "b c"],
        vec![("GREETING".into(), "hi".into())],
        Vec::new(),
    );
    assert_eq!(outcome.exit_code, 3);
    assert_eq!(io.stdout, rust_expected("env.stdout"));

    let (outcome, io) = run_mode(
        &["rust_guest", "stdin"],
        Vec::new(),
        rust_expected("inputs/stdin.txt"),
    );
    assert_eq!(outcome.exit_code, 0);
    assert_eq!(io.stdout, rust_expected("stdin.stdout"));
    assert_eq!(io.stderr, rust_expected("stdin.stderr"));

    let (outcome, io) = run_mode(&["rust_guest", "time"], Vec::new(), Vec::new());
    assert_eq!(outcome.exit_code, 0);
    assert_eq!(io.stdout, rust_expected("time.stdout"));

    let (outcome, io) = run_mode(&["rust_guest", "panic"], Vec::new(), Vec::new());
    assert_eq!(outcome.exit_code, 134);
    assert!(io.stdout.is_empty());
    assert!(String::from_utf8_lossy(&io.stderr).contains("boom"));
}
