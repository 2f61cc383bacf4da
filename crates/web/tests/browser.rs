//! The binding in a browser page (`wasm-pack test --headless --chrome` / `--firefox`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{exec, limits};
use js_sys::{Array, Function, Reflect};
use sandtab_web::Sandbox;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn echo_then_cat_reads_back_the_file() {
    common::echo_then_cat().await;
}

#[wasm_bindgen_test]
async fn output_is_streamed_to_the_callback() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
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
async fn a_syntax_error_is_exit_2() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    let out = exec(&sandbox, "if then fi (", None).await;
    assert_eq!(out.exit_code, 2);
    assert!(out.stderr.contains("syntax error"), "{}", out.stderr);
}

#[wasm_bindgen_test]
async fn an_endless_loop_stops_at_the_configured_limit() {
    let sandbox = Sandbox::new(limits(r#"{"limits":{"maxLoopIterations":2000}}"#)).unwrap();
    let out = exec(&sandbox, "while true; do :; done", None).await;
    assert_eq!(out.exit_code, 126);
    assert!(out.stderr.contains("max_loop_iterations"), "{}", out.stderr);
}

#[wasm_bindgen_test]
async fn cancel_stops_a_busy_loop_and_keeps_files() {
    common::cancel_stops_a_busy_loop().await;
}

#[wasm_bindgen_test]
fn bad_options_are_a_clear_error() {
    for (options, expected) in [
        (
            r#"{"limits":{"maxCommands":"lots"}}"#,
            "limits.maxCommands must be a positive whole number",
        ),
        (
            r#"{"limits":{"maxCommands":0}}"#,
            "limits.maxCommands must be a positive whole number",
        ),
        (
            r#"{"limits":{"maxComands":5}}"#,
            "unknown limits field `maxComands`",
        ),
        (r#"{"limit":{}}"#, "unknown option `limit`"),
        (
            r#"{"quota":{"maxBytes":-1}}"#,
            "quota.maxBytes must be a positive whole number",
        ),
        (r#"{"quota":7}"#, "options.quota must be an object"),
        (
            r#"{"limits":{"maxFunctionDepth":99}}"#,
            "max_function_depth",
        ),
        (r#""fast""#, "sandbox options must be an object"),
        (
            r#"{"storage":"disk"}"#,
            "options.storage must be \"indexeddb\", \"opfs\" or \"memory\"",
        ),
        (r#"{"name":""}"#, "options.name must be 1 to 100 characters"),
        (
            r#"{"mounts":[{"path":"rel","files":{}}]}"#,
            "mounts[0].path must be absolute",
        ),
        (
            r#"{"mounts":[{"path":"/p","files":{"a":5}}]}"#,
            "mounts[0].files[\"a\"] must be a string or a Uint8Array",
        ),
        (r#"{"storage":"indexeddb"}"#, "use Sandbox.open()"),
    ] {
        let err = Sandbox::new(limits(options)).unwrap_err();
        let message = Reflect::get(&JsValue::from(err), &"message".into())
            .unwrap()
            .as_string()
            .unwrap();
        assert!(message.contains(expected), "{options}: {message}");
    }
}

#[wasm_bindgen_test]
async fn the_quota_refuses_a_write_with_a_clear_message() {
    let sandbox = Sandbox::new(limits(r#"{"quota":{"maxBytes":100}}"#)).unwrap();
    let out = exec(&sandbox, "seq 1 100 > /tmp/f", None).await;
    assert_ne!(out.exit_code, 0);
    assert!(out.stderr.contains("Disk quota exceeded"), "{}", out.stderr);
    assert!(sandbox.read_file("/tmp/f".into()).await.unwrap().length() <= 100);
}

#[wasm_bindgen_test]
async fn files_are_listed_for_the_files_panel() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    exec(&sandbox, "mkdir -p /w/sub; echo abc > /w/f.txt", None).await;
    let listing = sandbox.list_dir("/w").unwrap();
    let described: Vec<String> = listing
        .iter()
        .map(|entry| {
            let get = |k: &str| Reflect::get(&entry, &k.into()).unwrap();
            format!(
                "{} {} {}",
                get("name").as_string().unwrap(),
                get("kind").as_string().unwrap(),
                get("size").as_f64().unwrap()
            )
        })
        .collect();
    assert_eq!(described, ["f.txt file 4", "sub dir 0"]);
    // `modified` (ms since the epoch) moves when the contents change: the agent's page
    // tells the files a step changed by it.
    let modified = |listing: &Array| {
        Reflect::get(&listing.get(0), &"modified".into())
            .unwrap()
            .as_f64()
            .unwrap()
    };
    let before = modified(&listing);
    assert!(before > 1.6e12, "{before}");
    exec(&sandbox, "sleep 0.01; echo more >> /w/f.txt", None).await;
    assert!(modified(&sandbox.list_dir("/w").unwrap()) > before);
    assert!(sandbox.list_dir("/nope").is_err());
}

/// Runs `script` with exec `options` (JSON); the whole result object.
async fn exec_with(sandbox: &Sandbox, script: &str, options: &str) -> Result<JsValue, JsValue> {
    wasm_bindgen_futures::JsFuture::from(sandbox.exec(
        script.to_owned(),
        None,
        Some(limits(options).unchecked_into()),
    ))
    .await
}

fn stdout_of(result: &JsValue) -> String {
    let bytes = Reflect::get(result, &"stdout".into()).unwrap();
    String::from_utf8(js_sys::Uint8Array::new(&bytes).to_vec()).unwrap()
}

#[wasm_bindgen_test]
async fn sessions_keep_their_own_state_and_share_the_files() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    exec_with(
        &sandbox,
        "cd /tmp; X=a; set -o pipefail; echo f > /tmp/f",
        r#"{"session":"one"}"#,
    )
    .await
    .unwrap();
    exec_with(&sandbox, "X=b", r#"{"session":"two"}"#)
        .await
        .unwrap();
    let one = exec_with(
        &sandbox,
        "pwd; echo $X; false | true; echo $?",
        r#"{"session":"one"}"#,
    )
    .await
    .unwrap();
    assert_eq!(stdout_of(&one), "/tmp\na\n1\n");
    let two = exec_with(&sandbox, "pwd; echo $X; cat /tmp/f", r#"{"session":"two"}"#)
        .await
        .unwrap();
    assert_eq!(stdout_of(&two), "/home/agent\nb\nf\n");
    // The default session is "main"; a fresh one sees nothing of the others.
    let fresh = exec_with(&sandbox, "echo \"[$X]\"; pwd", r#"{"fresh":true}"#)
        .await
        .unwrap();
    assert_eq!(stdout_of(&fresh), "[]\n/home/agent\n");
    let names: Vec<String> = sandbox.session_names().unwrap();
    assert_eq!(names, ["main", "one", "two"]);
    assert!(sandbox.close_session("one").unwrap());
    let again = exec_with(&sandbox, "pwd", r#"{"session":"one"}"#)
        .await
        .unwrap();
    assert_eq!(stdout_of(&again), "/home/agent\n");
}

#[wasm_bindgen_test]
async fn bad_exec_options_are_clear_errors() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    for (options, wanted) in [
        (r#"{"session":"a b"}"#, "invalid session name"),
        (r#"{"session":"x","fresh":true}"#, "either session or fresh"),
        (
            r#"{"maxOutputBytes":0}"#,
            "maxOutputBytes must be a positive whole number",
        ),
        (r#"{"sesion":"x"}"#, "sesion"),
    ] {
        let err = exec_with(&sandbox, "echo hi", options).await.unwrap_err();
        let message = js_sys::Error::from(err).message().as_string().unwrap();
        assert!(message.contains(wanted), "{options}: {message}");
    }
    // The sandbox is still usable.
    let out = exec(&sandbox, "echo ok", None).await;
    assert_eq!(out.stdout, "ok\n");
}

#[wasm_bindgen_test]
async fn a_cut_result_says_how_much_was_written() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    let result = exec_with(&sandbox, "seq 1 100000", r#"{"maxOutputBytes":1000}"#)
        .await
        .unwrap();
    assert_eq!(stdout_of(&result).len(), 1000);
    let field = |name: &str| Reflect::get(&result, &name.into()).unwrap();
    assert_eq!(field("stdoutTruncated").as_bool(), Some(true));
    assert_eq!(field("stdoutTotal").as_f64(), Some(588_895.0));
    assert_eq!(
        field("stdoutNote").as_string().unwrap(),
        "\n[sandtab: stdout truncated: the first 1000 of 588895 bytes are shown]\n"
    );
    assert!(field("stderrNote").is_null());
}
