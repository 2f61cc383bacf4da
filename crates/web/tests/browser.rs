//! The binding in a browser page (`wasm-pack test --headless --chrome` / `--firefox`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{
    exec, exec_with, field, memory, message, query, read_file, run, text, try_open, try_run,
};
use js_sys::{Array, Function};
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn echo_then_cat_reads_back_the_file() {
    common::echo_then_cat().await;
}

#[wasm_bindgen_test]
async fn output_is_streamed_to_the_callback() {
    let sandbox = memory(json!({})).await;
    let chunks = Array::new();
    let sink = chunks.clone();
    let callback = Closure::<dyn FnMut(JsValue, JsValue)>::new(move |stream: JsValue, bytes| {
        let text = String::from_utf8(js_sys::Uint8Array::new(&bytes).to_vec()).unwrap();
        sink.push(&JsValue::from_str(&format!(
            "{}:{}",
            stream.as_string().unwrap(),
            text
        )));
    });
    let function: Function = callback.as_ref().clone().unchecked_into();
    let out = exec(&sandbox, "echo one; echo two >&2", Some(function)).await;
    assert_eq!(out.stdout, "one\n");
    let seen: Vec<String> = chunks.iter().map(|c| c.as_string().unwrap()).collect();
    assert!(seen.contains(&"stdout:one\n".to_owned()), "{seen:?}");
    assert!(seen.contains(&"stderr:two\n".to_owned()), "{seen:?}");
}

#[wasm_bindgen_test]
async fn a_command_that_never_waits_is_answered_at_once() {
    let sandbox = memory(json!({})).await;
    let op = |script: &str| common::js(&json!({"op": "exec", "script": script}));
    let now = sandbox.run(op("cd /tmp; echo x > f; cat f"), None);
    assert!(
        !now.is_instance_of::<js_sys::Promise>(),
        "a Promise for a command in memory"
    );
    assert_eq!(stdout_of(&now), "x\n");
    // A command that sleeps waits for a timer: it comes as a Promise, and still right.
    let later = sandbox.run(op("sleep 0.01; echo y"), None);
    assert!(later.is_instance_of::<js_sys::Promise>());
    let later = common::answer(later).await.unwrap();
    assert_eq!(stdout_of(&later), "y\n");
    // An error found at once is a rejected Promise, as it always was.
    let bad = sandbox.run(common::js(&json!({"op": "exec"})), None);
    let err = common::answer(bad).await.unwrap_err();
    assert!(message(&err).contains("script"), "{}", message(&err));
}

#[wasm_bindgen_test]
async fn a_syntax_error_is_exit_2() {
    let sandbox = memory(json!({})).await;
    let out = exec(&sandbox, "if then fi (", None).await;
    assert_eq!(out.exit_code, 2);
    assert!(out.stderr.contains("syntax error"), "{}", out.stderr);
}

#[wasm_bindgen_test]
async fn an_endless_loop_stops_at_the_configured_limit() {
    let sandbox = memory(json!({"limits": {"maxLoopIterations": 2000}})).await;
    let out = exec(&sandbox, "while true; do :; done", None).await;
    assert_eq!(out.exit_code, 126);
    assert!(out.stderr.contains("max_loop_iterations"), "{}", out.stderr);
}

#[wasm_bindgen_test]
async fn cancel_stops_a_busy_loop_and_keeps_files() {
    common::cancel_stops_a_busy_loop().await;
}

#[wasm_bindgen_test]
async fn bad_options_are_a_clear_error() {
    let mut failures = Vec::new();
    for (options, expected) in [
        (
            json!({"limits": {"maxCommands": "lots"}}),
            "options.limits.maxCommands: must be a positive whole number",
        ),
        (
            json!({"limits": {"maxCommands": 0}}),
            "options.limits.maxCommands: must be a positive whole number, got 0",
        ),
        (
            json!({"limits": {"maxComands": 5}}),
            "options.limits.maxComands: unknown field `maxComands`",
        ),
        (
            json!({"limit": {}}),
            "options.limit: unknown field `limit`, expected one of",
        ),
        (
            json!({"quota": {"maxBytes": -1}}),
            "options.quota.maxBytes: must be a positive whole number",
        ),
        (json!({"quota": 7}), "options.quota: invalid type"),
        (
            json!({"limits": {"maxFunctionDepth": 99}}),
            "max_function_depth",
        ),
        (json!("fast"), "options: invalid type"),
        (
            json!({"storage": "disk"}),
            "options.storage: unknown variant `disk`, expected one of `indexeddb`, `opfs`, `memory`",
        ),
        (
            json!({"name": ""}),
            "options.name must be 1 to 100 characters",
        ),
        (
            json!({"mounts": [{"path": "rel", "files": {}}]}),
            "mounts[0].path must be absolute",
        ),
        (
            json!({"mounts": [{"path": "/p", "files": {"a": 5}}]}),
            "a string or a Uint8Array",
        ),
    ] {
        match try_open(&common::in_memory(&options)).await {
            Ok(_) => failures.push(format!("{options}: opened")),
            Err(err) if common::code(&err) != "EINVAL" || !message(&err).contains(expected) => {
                failures.push(format!(
                    "{options}: {} {} (want EINVAL {expected})",
                    common::code(&err),
                    message(&err)
                ));
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
async fn the_quota_refuses_a_write_with_a_clear_message() {
    let sandbox = memory(json!({"quota": {"maxBytes": 100}})).await;
    let out = exec(&sandbox, "seq 1 100 > /tmp/f", None).await;
    assert_ne!(out.exit_code, 0);
    assert!(out.stderr.contains("Disk quota exceeded"), "{}", out.stderr);
    assert!(read_file(&sandbox, "/tmp/f").await.unwrap().len() <= 100);
}

#[wasm_bindgen_test]
async fn files_are_listed_for_the_files_panel() {
    let sandbox = memory(json!({})).await;
    exec(&sandbox, "mkdir -p /w/sub; echo abc > /w/f.txt", None).await;
    let list = |sandbox: &sandtab_web::Sandbox| -> Array {
        field(
            &query(sandbox, json!({"op": "listDir", "path": "/w"}), "entries"),
            "entries",
        )
        .unchecked_into()
    };
    let listing = list(&sandbox);
    let described: Vec<String> = listing
        .iter()
        .map(|entry| {
            format!(
                "{} {} {}",
                field(&entry, "name").as_string().unwrap(),
                field(&entry, "kind").as_string().unwrap(),
                field(&entry, "size").as_f64().unwrap()
            )
        })
        .collect();
    assert_eq!(described, ["f.txt file 4", "sub dir 0"]);
    // `modified` (ms since the epoch) moves when the contents change: the agent's page
    // tells the files a step changed by it.
    let modified = |listing: &Array| field(&listing.get(0), "modified").as_f64().unwrap();
    let before = modified(&listing);
    assert!(before > 1.6e12, "{before}");
    exec(&sandbox, "sleep 0.01; echo more >> /w/f.txt", None).await;
    assert!(modified(&list(&sandbox)) > before);
    let err = sandbox
        .query(common::js(&json!({"op": "listDir", "path": "/nope"})))
        .unwrap_err();
    assert_eq!(common::code(&err), "ENOENT", "{}", message(&err));
    // Through run as well, and an op that is not a query is refused by query.
    let entries = run(&sandbox, json!({"op": "listDir", "path": "/w"}), "entries").await;
    assert_eq!(Array::from(&field(&entries, "entries")).length(), 2);
    let err = sandbox
        .query(common::js(&json!({"op": "exec", "script": "ls"})))
        .unwrap_err();
    assert_eq!(common::code(&err), "EINVAL", "{}", message(&err));
}

fn stdout_of(result: &JsValue) -> String {
    text(&field(result, "stdout"))
}

#[wasm_bindgen_test]
async fn sessions_keep_their_own_state_and_share_the_files() {
    let sandbox = memory(json!({})).await;
    exec_with(
        &sandbox,
        "cd /tmp; X=a; set -o pipefail; echo f > /tmp/f",
        json!({"session": "one"}),
    )
    .await
    .unwrap();
    exec_with(&sandbox, "X=b", json!({"session": "two"}))
        .await
        .unwrap();
    let one = exec_with(
        &sandbox,
        "pwd; echo $X; false | true; echo $?",
        json!({"session": "one"}),
    )
    .await
    .unwrap();
    assert_eq!(stdout_of(&one), "/tmp\na\n1\n");
    let two = exec_with(
        &sandbox,
        "pwd; echo $X; cat /tmp/f",
        json!({"session": "two"}),
    )
    .await
    .unwrap();
    assert_eq!(stdout_of(&two), "/home/agent\nb\nf\n");
    // The default session is "main"; a fresh one sees nothing of the others.
    let fresh = exec_with(&sandbox, "echo \"[$X]\"; pwd", json!({"fresh": true}))
        .await
        .unwrap();
    assert_eq!(stdout_of(&fresh), "[]\n/home/agent\n");
    let names = run(&sandbox, json!({"op": "sessionNames"}), "names").await;
    let names: Vec<String> = Array::from(&field(&names, "names"))
        .iter()
        .map(|n| n.as_string().unwrap())
        .collect();
    assert_eq!(names, ["main", "one", "two"]);
    let closed = run(
        &sandbox,
        json!({"op": "closeSession", "name": "one"}),
        "flag",
    )
    .await;
    assert_eq!(field(&closed, "value").as_bool(), Some(true));
    let again = exec_with(&sandbox, "pwd", json!({"session": "one"}))
        .await
        .unwrap();
    assert_eq!(stdout_of(&again), "/home/agent\n");
}

#[wasm_bindgen_test]
async fn bad_exec_options_are_clear_errors() {
    let sandbox = memory(json!({})).await;
    for (options, wanted) in [
        (json!({"session": "a b"}), "invalid session name"),
        (
            json!({"session": "x", "fresh": true}),
            "either session or fresh",
        ),
        (
            json!({"maxOutputBytes": 0}),
            "must be a positive whole number, got 0",
        ),
        (json!({"sesion": "x"}), "unknown field `sesion`"),
    ] {
        let err = exec_with(&sandbox, "echo hi", options.clone())
            .await
            .unwrap_err();
        let text = js_sys::Error::from(err.clone())
            .message()
            .as_string()
            .unwrap();
        assert_eq!(common::code(&err), "EINVAL", "{options}: {text}");
        assert!(text.contains(wanted), "{options}: {text}");
    }
    // An op that is not one, or is missing a field, is refused the same way.
    for (op, wanted) in [
        (
            json!({"op": "exac", "script": "ls"}),
            "unknown variant `exac`",
        ),
        (json!({"op": "readFile"}), "missing field `path`"),
    ] {
        let err = try_run(&sandbox, op.clone()).await.unwrap_err();
        assert_eq!(common::code(&err), "EINVAL", "{op}: {}", message(&err));
        assert!(message(&err).contains(wanted), "{op}: {}", message(&err));
    }
    // The sandbox is still usable.
    let out = exec(&sandbox, "echo ok", None).await;
    assert_eq!(out.stdout, "ok\n");
}

#[wasm_bindgen_test]
async fn a_cut_result_says_how_much_was_written() {
    let sandbox = memory(json!({})).await;
    let result = exec_with(&sandbox, "seq 1 100000", json!({"maxOutputBytes": 1000}))
        .await
        .unwrap();
    assert_eq!(stdout_of(&result).len(), 1000);
    let field = |name: &str| field(&result, name);
    assert_eq!(field("stdoutTruncated").as_bool(), Some(true));
    assert_eq!(field("stdoutTotal").as_f64(), Some(588_895.0));
    assert_eq!(
        field("stdoutNote").as_string().unwrap(),
        "\n[sandtab: stdout truncated: the first 1000 of 588895 bytes are shown]\n"
    );
    assert!(field("stderrNote").is_null());
    assert!(field("saveError").is_null());
}
