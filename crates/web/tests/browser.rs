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
    assert!(sandbox.list_dir("/nope").is_err());
}
