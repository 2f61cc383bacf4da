//! The hostile corpus (tests/guests/hostile/cases.json): every module ends with its
//! listed status and message, and the host's memory stays within the run's memory
//! limit plus a fixed overhead.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use cap::Cap;
use sandtab_wasi::GuestLimits;
use serde_json::Value;
use std::alloc::System;
use std::path::{Path, PathBuf};
use support::{Run, TestIo};

/// Counts the heap (safely: the workspace forbids `unsafe`), for the memory check.
#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// What a run may hold beyond its memory: the engine, the module, buffers.
const OVERHEAD: usize = 32 << 20;

/// The most heap a run under `memory_bytes` may take: a memory's buffer is a `Vec`
/// whose capacity may be up to twice its length, plus the overhead.
fn bound(memory_bytes: u64) -> usize {
    2 * usize::try_from(memory_bytes).unwrap() + OVERHEAD
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guests/hostile")
}

/// The module's bytes. A `.wasm` made from a `.wat` must match it (set
/// SANDTAB_WRITE_HOSTILE=1 to write it again after changing the `.wat`).
fn module(file: &str) -> Vec<u8> {
    let path = corpus().join(file);
    let wat = path.with_extension("wat");
    if wat.exists() {
        let built = wat::parse_file(&wat).unwrap();
        if std::env::var_os("SANDTAB_WRITE_HOSTILE").is_some() {
            std::fs::write(&path, &built).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == built,
            "{file} differs from {}; run with SANDTAB_WRITE_HOSTILE=1",
            wat.display()
        );
    }
    std::fs::read(&path).unwrap()
}

fn limits(overrides: Option<&Value>) -> GuestLimits {
    let mut limits = GuestLimits::default();
    let Some(Value::Object(fields)) = overrides else {
        return limits;
    };
    for (field, value) in fields {
        let value = value.as_u64().unwrap();
        match field.as_str() {
            "fuel" => limits.fuel = value,
            "memory_bytes" => limits.memory_bytes = value,
            "table_elements" => limits.table_elements = value,
            "instances" => limits.instances = value,
            "deadline_ms" => limits.deadline_ms = value,
            "output_bytes" => limits.output_bytes = value,
            other => panic!("cases.json: unknown limit {other}"),
        }
    }
    limits
}

// One test: the allocator's counts are for the whole process. Its peak is never reset,
// so a case fails if the process's peak passes the case's start plus its bound; the
// cases that allocate most have the smallest limits, so earlier ones do not mask it.
#[test]
fn every_hostile_module_ends_as_listed_within_its_memory() {
    let cases: Value =
        serde_json::from_slice(&std::fs::read(corpus().join("cases.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
    for case in cases["cases"].as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let bytes = module(file);
        let mut run = Run::new(&["hostile"]);
        run.limits = limits(case.get("limits"));
        let bound = bound(run.limits.memory_bytes);
        let mut io = TestIo::default();
        let before = ALLOCATOR.allocated();
        let outcome = run.run(&bytes, &mut io);
        let peak = ALLOCATOR.max_allocated().saturating_sub(before);
        // A module refused when compiled has no stderr: its error is the message.
        let stderr = match &outcome.error {
            Some(error) if io.stderr.is_empty() => error.to_string(),
            _ => String::from_utf8_lossy(&io.stderr).into_owned(),
        };
        let status = case["status"].as_i64().unwrap();
        let message = case["message"].as_str().unwrap();
        if i64::from(outcome.exit_code) != status || !stderr.contains(message) {
            failures.push(format!(
                "{file} {}: status {} (want {status}), stderr {stderr:?} (want {message:?})",
                case.get("limits").map(Value::to_string).unwrap_or_default(),
                outcome.exit_code
            ));
        }
        if let Some(stdout) = case.get("stdout").and_then(Value::as_str)
            && io.stdout != stdout.as_bytes()
        {
            failures.push(format!(
                "{file}: stdout {:?} (want {stdout:?})",
                String::from_utf8_lossy(&io.stdout)
            ));
        }
        if peak > bound {
            failures.push(format!(
                "{file}: the host held {} MiB, more than {} MiB",
                peak >> 20,
                bound >> 20
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The browser run of the corpus (crates/web/tests/hostile.rs) embeds each module by
/// name; a case added here without it would only fail there, minutes later.
#[test]
fn the_browser_test_embeds_every_module_of_the_corpus() {
    let cases: Value =
        serde_json::from_slice(&std::fs::read(corpus().join("cases.json")).unwrap()).unwrap();
    let browser_test = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests/hostile.rs"),
    )
    .unwrap();
    for case in cases["cases"].as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        assert!(
            browser_test.contains(&format!("tests/guests/hostile/{file}\")")),
            "crates/web/tests/hostile.rs does not embed {file}: add it to MODULES"
        );
    }
}
