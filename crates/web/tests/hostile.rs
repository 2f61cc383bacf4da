//! The hostile corpus (tests/guests/hostile) run where guests run in production: by the
//! shell in a dedicated worker, in Chromium and Firefox. Each module must end with its
//! listed status and message (the same as natively, crates/wasi/tests/hostile.rs), and
//! the worker must stay alive: after every case the same sandbox still runs a command.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{exec_with, field, memory, write_file};
use js_sys::Uint8Array;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

const CASES: &str = include_str!("../../../tests/guests/hostile/cases.json");

/// Every module cases.json names (include_bytes! needs each path spelled out).
const MODULES: &[(&str, &[u8])] = &[
    (
        "code-body-count-lies.wasm",
        include_bytes!("../../../tests/guests/hostile/code-body-count-lies.wasm"),
    ),
    (
        "code-body-length-huge.wasm",
        include_bytes!("../../../tests/guests/hostile/code-body-length-huge.wasm"),
    ),
    (
        "custom-section-length-ffffffff.wasm",
        include_bytes!("../../../tests/guests/hostile/custom-section-length-ffffffff.wasm"),
    ),
    (
        "data-count-ffffffff.wasm",
        include_bytes!("../../../tests/guests/hostile/data-count-ffffffff.wasm"),
    ),
    (
        "data-section-length-ffffffff.wasm",
        include_bytes!("../../../tests/guests/hostile/data-section-length-ffffffff.wasm"),
    ),
    (
        "data-segment-active-huge.wasm",
        include_bytes!("../../../tests/guests/hostile/data-segment-active-huge.wasm"),
    ),
    (
        "data-segment-length-ffffffff.wasm",
        include_bytes!("../../../tests/guests/hostile/data-segment-length-ffffffff.wasm"),
    ),
    (
        "four-memories-declared.wasm",
        include_bytes!("../../../tests/guests/hostile/four-memories-declared.wasm"),
    ),
    (
        "four-memories.wasm",
        include_bytes!("../../../tests/guests/hostile/four-memories.wasm"),
    ),
    (
        "grow-block-4200.wasm",
        include_bytes!("../../../tests/guests/hostile/grow-block-4200.wasm"),
    ),
    (
        "grow-loop-memory-max.wasm",
        include_bytes!("../../../tests/guests/hostile/grow-loop-memory-max.wasm"),
    ),
    (
        "grow-loop-memory-zero.wasm",
        include_bytes!("../../../tests/guests/hostile/grow-loop-memory-zero.wasm"),
    ),
    (
        "grow-loop-memory.wasm",
        include_bytes!("../../../tests/guests/hostile/grow-loop-memory.wasm"),
    ),
    (
        "grow-loop-table.wasm",
        include_bytes!("../../../tests/guests/hostile/grow-loop-table.wasm"),
    ),
    (
        "grow-on-return.wasm",
        include_bytes!("../../../tests/guests/hostile/grow-on-return.wasm"),
    ),
    (
        "locals-30000.wasm",
        include_bytes!("../../../tests/guests/hostile/locals-30000.wasm"),
    ),
    (
        "many-locals-30001.wasm",
        include_bytes!("../../../tests/guests/hostile/many-locals-30001.wasm"),
    ),
    (
        "many-locals-50000.wasm",
        include_bytes!("../../../tests/guests/hostile/many-locals-50000.wasm"),
    ),
    (
        "memories-17.wasm",
        include_bytes!("../../../tests/guests/hostile/memories-17.wasm"),
    ),
    (
        "memory-4gib.wasm",
        include_bytes!("../../../tests/guests/hostile/memory-4gib.wasm"),
    ),
    (
        "section-length-ffffffff.wasm",
        include_bytes!("../../../tests/guests/hostile/section-length-ffffffff.wasm"),
    ),
    (
        "start-spin.wasm",
        include_bytes!("../../../tests/guests/hostile/start-spin.wasm"),
    ),
    (
        "start-works-then-exits.wasm",
        include_bytes!("../../../tests/guests/hostile/start-works-then-exits.wasm"),
    ),
    (
        "table-huge.wasm",
        include_bytes!("../../../tests/guests/hostile/table-huge.wasm"),
    ),
    (
        "type-count-ffffffff.wasm",
        include_bytes!("../../../tests/guests/hostile/type-count-ffffffff.wasm"),
    ),
];

/// cases.json's limit fields (GuestLimits' names) as the package's options spell them.
fn option_name(field: &str) -> &'static str {
    match field {
        "fuel" => "fuel",
        "memory_bytes" => "memoryBytes",
        "table_elements" => "tableElements",
        "instances" => "instances",
        "call_depth" => "callDepth",
        "deadline_ms" => "deadlineMs",
        other => panic!("cases.json: unknown limit {other}"),
    }
}

fn text(result: &wasm_bindgen::JsValue, key: &str) -> String {
    String::from_utf8_lossy(&Uint8Array::new(&field(result, key)).to_vec()).into_owned()
}

#[wasm_bindgen_test]
async fn every_hostile_module_ends_with_its_status_and_the_worker_lives_on() {
    // On both guest tiers: wasmi, and the browser's engine with the metered module.
    for tier in ["interpreter", "engine"] {
        every_hostile_module_on(tier).await;
    }
}

async fn every_hostile_module_on(tier: &str) {
    let cases: serde_json::Value = serde_json::from_str(CASES).unwrap();
    let sandbox = memory(serde_json::json!({ "guestTier": tier })).await;
    let mut failures = Vec::new();
    let cases = cases["cases"].as_array().unwrap();
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let bytes = MODULES
            .iter()
            .find(|(name, _)| *name == file)
            .unwrap_or_else(|| panic!("{file} is not in MODULES"))
            .1;
        write_file(&sandbox, "/home/agent/hostile.wasm", bytes)
            .await
            .unwrap();
        let mut guest_limits = serde_json::Map::new();
        if let Some(serde_json::Value::Object(fields)) = case.get("limits") {
            for (field, value) in fields {
                guest_limits.insert(option_name(field).to_owned(), value.clone());
            }
        }
        let options = serde_json::json!({ "guestLimits": guest_limits });
        let result = exec_with(&sandbox, "./hostile.wasm", options)
            .await
            .unwrap();
        let status = field(&result, "exitCode").as_f64().unwrap() as i64;
        let (stdout, stderr) = (text(&result, "stdout"), text(&result, "stderr"));
        let want_status = case["status"].as_i64().unwrap();
        let want_message = case["message"].as_str().unwrap();
        let stdout_ok = case
            .get("stdout")
            .and_then(|s| s.as_str())
            .is_none_or(|want| want == stdout);
        if status != want_status || !stderr.contains(want_message) || !stdout_ok {
            failures.push(format!(
                "{tier}: {file} {:?}: status {status} (want {want_status}), stdout {stdout:?}, stderr {stderr:?} (want it to contain {want_message:?})",
                case.get("limits")
            ));
        }
        // The worker is alive and the sandbox usable.
        let after = common::exec(&sandbox, "echo alive", None).await;
        assert_eq!(
            after.stdout, "alive\n",
            "{tier}: after {file}: {}",
            after.stderr
        );
    }
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
