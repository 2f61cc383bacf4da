//! The `sandtab` binary as a user runs it: exit statuses, the process's own streams,
//! host directories copied in and changes written back, limits, bad arguments.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn guest(relative: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/guests")
        .join(relative);
    assert!(
        path.exists(),
        "{} is missing: test guests are built by `./dev setup`",
        path.display()
    );
    path
}

fn sandtab(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandtab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn run_gives_the_program_its_arguments_environment_and_exit_status() {
    let hello = guest("c/hello.wasm");
    let out = sandtab(
        &[
            "run",
            "--env",
            "GREETING=hi",
            hello.to_str().unwrap(),
            "5",
            "x y",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("argv[1]=5\nargv[2]=x y\nGREETING=hi\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn run_reads_the_process_stdin_and_writes_its_stdout() {
    let upper = guest("c/stdin_upper.wasm");
    let out = sandtab(&["run", upper.to_str().unwrap()], b"abc\ndef\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "ABC\nDEF\n");
}

#[test]
fn a_dir_is_copied_in_and_the_changes_are_written_back() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep"), "kept\n").unwrap();
    std::fs::write(dir.path().join("old"), "old\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a"), "a\n").unwrap();
    let map = format!("{}::/data", dir.path().display());
    let out = sandtab(
        &[
            "sh",
            "--dir",
            &map,
            "-c",
            "cat /data/keep; echo new > /data/new; rm /data/old; rm -r /data/sub; mkdir -p /data/made/deep; echo d > /data/made/deep/f",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "kept\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new")).unwrap(),
        "new\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("keep")).unwrap(),
        "kept\n"
    );
    assert!(!dir.path().join("old").exists());
    assert!(!dir.path().join("sub").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("made/deep/f")).unwrap(),
        "d\n"
    );
}

#[test]
fn python_runs_a_script_from_a_mapped_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("main.py"),
        "import sys\nopen('/w/out.txt', 'w').write(sys.argv[1] * 2)\nprint('ran')\n",
    )
    .unwrap();
    let map = format!("{}::/w", dir.path().display());
    let python = guest("python.wasm");
    let out = sandtab(
        &[
            "run",
            "--dir",
            &map,
            python.to_str().unwrap(),
            "/w/main.py",
            "ab",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "ran\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "abab"
    );
}

#[test]
fn sh_runs_guests_and_reads_stdin() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(guest("c/hello.wasm"), dir.path().join("hello.wasm")).unwrap();
    let map = format!("{}::/w", dir.path().display());
    let out = sandtab(
        &[
            "sh",
            "--dir",
            &map,
            "-c",
            "cd /w && ./hello.wasm $1 > /dev/null; echo status=$?; tr a-z A-Z",
            "6",
        ],
        b"piped\n",
    );
    assert_eq!(
        text(&out.stdout),
        "status=6\nPIPED\n",
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_limit_stops_the_guest_with_137() {
    let program = guest("c/exit_trap.wasm");
    let out = sandtab(
        &[
            "run",
            "--fuel",
            "1000000",
            program.to_str().unwrap(),
            "loop",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(137));
    assert!(
        text(&out.stderr).contains("fuel limit of 1000000 instructions reached [fuel]"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_arguments_and_bad_modules_say_what_is_wrong() {
    let out = sandtab(&["run", "--fuel", "lots", "x.wasm"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("invalid value 'lots' for '--fuel <N>': needs a positive whole number")
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.wasm");
    std::fs::write(&bad, b"not wasm").unwrap();
    let out = sandtab(&["run", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(126));
    assert!(
        text(&out.stderr).contains("not a valid WebAssembly module"),
        "{}",
        text(&out.stderr)
    );
    let out = sandtab(&["run", "/nonexistent.wasm"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("/nonexistent.wasm"));
    let out = sandtab(&["--help"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: sandtab"));
}

#[test]
fn sh_runs_a_script_file_with_its_arguments_and_status() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.sh");
    std::fs::write(&script, "echo \"$1-$2\"\nexit 4\n").unwrap();
    let out = sandtab(&["sh", script.to_str().unwrap(), "a", "b"], b"");
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a-b\n");
}

/// A stdin left open and idle (a terminal nobody types into, `sleep | sandtab sh`) does
/// not keep `sh` waiting once the script has ended, whether it ran to its end or called
/// `exit`; what the script printed and its status are kept.
#[test]
fn sh_ends_with_its_script_while_stdin_stays_open() {
    #![allow(clippy::disallowed_methods)] // The test holds the child's stdin open.
    for (script, stdout, code) in [
        ("read line; echo \"got $line\"", "got first\n", 0),
        ("read line; echo \"$line\"; exit 3", "first\n", 3),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sandtab"))
            .args(["sh", "-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"first\n").unwrap();
        // The script must end while stdin is still open.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "`{script}` still runs with stdin open and idle"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), stdout, "{script}");
        assert_eq!(status.code(), Some(code), "{script}");
    }
}
