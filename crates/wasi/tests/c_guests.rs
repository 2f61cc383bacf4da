//! The C test guests (tests/guests/c, built by `./dev setup` with clang and wasi-libc)
//! against their expected output: every WASI family through an ordinary libc.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_vfs::VfsPath;
use support::{Run, TestIo, built_guest};

fn repo(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}

fn expected(label: &str, stream: &str) -> Vec<u8> {
    std::fs::read(repo(&format!("tests/guests/c/expected/{label}.{stream}"))).unwrap_or_default()
}

#[test]
fn every_c_guest_case_prints_what_native_linux_prints() {
    check_every_c_case();
}

/// The same cases with host calls given a memory that cannot lend its bytes (every
/// access copies, as with a browser engine's `WebAssembly.Memory`).
#[test]
fn every_c_guest_case_prints_the_same_through_a_memory_that_cannot_lend() {
    let ((), copies) = sandtab_wasi::testing::with_non_lending_memory(check_every_c_case);
    assert!(copies.reads > 0 && copies.writes > 0, "{copies:?}");
}

fn check_every_c_case() {
    let cases: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo("tests/guests/c/expected/cases.json")).expect("cases.json"),
    )
    .expect("cases.json is JSON");
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases["cases"].as_array().expect("cases") {
        let label = case["label"].as_str().unwrap();
        let program = case["program"].as_str().unwrap();
        let args: Vec<String> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().replace("{DIR}", "/sandbox"))
            .collect();
        let mut run = Run::new(&[]);
        run.args = args;
        run.env = case["env"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
            .collect();
        run.fs
            .mem()
            .create_dir(&VfsPath::parse("/sandbox").unwrap())
            .unwrap();
        // stdin arrives in small pieces, as from a pipe; poll_stdin's expected output
        // assumes it is all there at once.
        let mut io = TestIo {
            chunk: if program == "poll_stdin" { 0 } else { 7 },
            ..TestIo::default()
        };
        if let Some(input) = case["stdin"].as_str() {
            io.stdin = std::fs::read(repo(&format!("tests/guests/c/inputs/{input}"))).unwrap();
        }
        let outcome = run.run(&built_guest(&format!("c/{program}.wasm")), &mut io);
        let status = match &case["status"] {
            serde_json::Value::String(s) if s == "trap" => 134,
            value => value.as_i64().unwrap() as i32,
        };
        count += 1;
        let mut problems = Vec::new();
        if outcome.exit_code != status {
            problems.push(format!(
                "status {} (expected {status}): {:?}",
                outcome.exit_code, outcome.error
            ));
        }
        if io.stdout != expected(label, "stdout") {
            problems.push(format!(
                "stdout:\n{}\nexpected:\n{}",
                String::from_utf8_lossy(&io.stdout),
                String::from_utf8_lossy(&expected(label, "stdout"))
            ));
        }
        // A trap's own message follows whatever the guest wrote to stderr.
        let want_stderr = expected(label, "stderr");
        if status == 134 && io.stderr.starts_with(&want_stderr) {
        } else if io.stderr != want_stderr {
            problems.push(format!(
                "stderr:\n{}\nexpected:\n{}",
                String::from_utf8_lossy(&io.stderr),
                String::from_utf8_lossy(&want_stderr)
            ));
        }
        if !problems.is_empty() {
            failures.push(format!("== {label}\n{}", problems.join("\n")));
        }
    }
    assert!(count >= 15, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
