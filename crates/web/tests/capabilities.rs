//! The capability document in the browser: tools granted by it are callable from the
//! shell, guests and the page's API, all through one check; nothing else is; every call
//! is in the audit log; a bad document is a clear error.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{code, exec, field, memory, memory_with_doors, message, query, try_open, try_run};
use js_sys::{Function, Object, Reflect};
use sandtab_web::Sandbox;
use serde_json::{Value, json};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn doc() -> Value {
    json!({"capabilities": {
      "tools": [{"name": "weather", "description": "Forecast",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                 "constraints": {"arg": "city", "in": ["Oslo"]}, "max_calls": 3}],
      "limits": {"shell": {"maxCommands": 1000}}
    }})
}

/// A sandbox whose handler answers every tool (the gate decides which are reached) and
/// counts its calls in `globalThis.handled`.
async fn sandbox() -> Sandbox {
    let handler = Function::new_with_args(
        "name, args",
        "globalThis.handled = (globalThis.handled || 0) + 1; \
         return Promise.resolve(JSON.stringify({ tool: name, temp: -2, args: JSON.parse(args) }));",
    );
    let doors = Object::new();
    Reflect::set(&doors, &"hostCall".into(), &handler).unwrap();
    memory_with_doors(doc(), doors.into()).await
}

fn handled() -> f64 {
    Reflect::get(&js_sys::global(), &"handled".into())
        .unwrap()
        .as_f64()
        .unwrap_or(0.0)
}

async fn call(sandbox: &Sandbox, name: &str, args: &str) -> Result<String, (String, String)> {
    match try_run(
        sandbox,
        json!({"op": "callTool", "name": name, "args": args}),
    )
    .await
    {
        Ok(reply) => {
            assert_eq!(field(&reply, "reply").as_string().unwrap(), "text");
            Ok(field(&reply, "text").as_string().unwrap())
        }
        Err(err) => Err((code(&err), message(&err))),
    }
}

#[wasm_bindgen_test]
async fn the_api_the_shell_and_the_limits_share_one_check() {
    let sandbox = sandbox().await;
    let before = handled();
    let answer = call(&sandbox, "weather", r#"{"city":"Oslo"}"#)
        .await
        .unwrap();
    assert_eq!(
        answer,
        r#"{"tool":"weather","temp":-2,"args":{"city":"Oslo"}}"#
    );
    assert_eq!(
        call(&sandbox, "mail", "{}").await.unwrap_err().0,
        "CAP_DENIED"
    );
    let (code, message) = call(&sandbox, "weather", r#"{"city":"Rome"}"#)
        .await
        .unwrap_err();
    assert_eq!(code, "CAP_CONSTRAINT");
    assert_eq!(
        message,
        "CAP_CONSTRAINT: `weather`: `city` must be one of [\"Oslo\"]"
    );
    assert_eq!(
        call(&sandbox, "weather", "{}").await.unwrap_err().0,
        "CAP_BAD_ARGS"
    );
    let out = exec(&sandbox, "weather --city Oslo | jq .temp; tool weather --city Oslo >/dev/null; weather --city Oslo; echo $?", None).await;
    assert_eq!(out.stdout, "-2\n126\n", "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "weather: CAP_MAX_CALLS: `weather` may be called 3 times, and all of them are used\n"
    );
    // The API's call counts towards the same max_calls as the shell's.
    assert_eq!(handled() - before, 3.0);
    assert_eq!(
        call(&sandbox, "weather", r#"{"city":"Oslo"}"#)
            .await
            .unwrap_err()
            .0,
        "CAP_MAX_CALLS"
    );
}

#[wasm_bindgen_test]
async fn a_granted_tool_without_a_page_handler_fails_and_a_bad_door_is_refused() {
    // The gate lets the call through; no `hostCall` door answers it.
    let sandbox = memory(json!({"capabilities": {"tools": [{"name": "weather"}]}})).await;
    let (code, message) = call(&sandbox, "weather", "{}").await.unwrap_err();
    assert!(code.starts_with("CAP_"), "{code}: {message}");
    assert!(message.contains("no handler"), "{code}: {message}");
    // A door that is not a function is a clear error at open.
    let doors = Object::new();
    Reflect::set(&doors, &"hostCall".into(), &"nope".into()).unwrap();
    let err = Sandbox::open(common::js(&json!({"storage": "memory"})), doors.into())
        .await
        .unwrap_err();
    assert_eq!(common::code(&err), "EINVAL");
    assert!(
        common::message(&err).contains("doors.hostCall must be a function"),
        "{}",
        common::message(&err)
    );
}

#[wasm_bindgen_test]
async fn the_audit_log_records_execs_calls_and_denials() {
    let sandbox = sandbox().await;
    exec(&sandbox, "weather --city Oslo >/dev/null; tool nope", None).await;
    call(&sandbox, "weather", r#"{"city":"Rome"}"#)
        .await
        .unwrap_err();
    let log = field(&query(&sandbox, json!({"op": "auditLog"}), "text"), "text")
        .as_string()
        .unwrap();
    let entries: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary: Vec<String> = entries
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                e["kind"].as_str().unwrap(),
                e["via"].as_str().unwrap_or("-"),
                e["code"].as_str().unwrap_or("-")
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "tool shell -",
            "denial shell CAP_DENIED",
            "exec - -",
            "denial api CAP_CONSTRAINT"
        ]
    );
    assert!(
        entries[0]["time_ms"].as_f64().unwrap() > 1.7e12,
        "a real clock"
    );
    assert_eq!(
        entries[2]["script"],
        "weather --city Oslo >/dev/null; tool nope"
    );
    assert_eq!(entries[2]["exit_code"], 126);
}

#[wasm_bindgen_test]
async fn a_bad_document_is_a_clear_error() {
    for (doc, expected) in [
        (
            json!({"capabilities": {"tools": [{"name": "a", "constraints": {"arg": "x", "like": 1}}]}}),
            "capability document: tools[0].constraints: unknown test `like`",
        ),
        (
            json!({"capabilities": {"network": {"allow": [{"origin": "example.com"}]}}}),
            "capability document: network.allow[0].origin: `example.com` is not an origin",
        ),
        (
            json!({"capabilities": {"limits": {"shell": {"maxCommands": 5}}}, "limits": {"maxCommands": 9}}),
            "`limits` is given both in options and as capabilities.limits.shell",
        ),
        (
            json!({"capabilities": {"limits": {"maxCommands": 5}}}),
            "unknown capabilities.limits field `maxCommands` (known: shell, guest)",
        ),
        (
            json!({"capabilities": {"filesystem": {"quota": {"maxBytes": "x"}}}}),
            "capabilities.filesystem.quota.maxBytes: must be a positive whole number",
        ),
        (
            json!({"capabilities": 7}),
            "options.capabilities must be an object",
        ),
    ] {
        let err = try_open(&common::in_memory(&doc)).await.unwrap_err();
        let text = message(&err);
        assert_eq!(code(&err), "EINVAL", "{doc}: {text}");
        assert!(text.starts_with(expected), "{doc}: {text}");
    }
}

#[wasm_bindgen_test]
async fn limits_from_the_document_apply() {
    let sandbox = memory(json!({"capabilities": {"limits": {"shell": {"maxLoopIterations": 10}}, "filesystem": {"quota": {"maxFileSize": 4}}}})).await;
    let out = exec(&sandbox, "for i in $(seq 20); do :; done; echo done", None).await;
    assert_eq!(out.exit_code, 126, "{}", out.stderr);
    let out = exec(&sandbox, "echo 12345 > f", None).await;
    assert_ne!(out.exit_code, 0, "the quota's single-file size applies");
}

#[wasm_bindgen_test]
async fn tool_definitions_list_the_granted_tools() {
    let sandbox = sandbox().await;
    let text = field(
        &query(
            &sandbox,
            json!({"op": "toolDefinitions", "format": "openai"}),
            "text",
        ),
        "text",
    )
    .as_string()
    .unwrap();
    assert!(text.contains("weather"), "{text}");
    let _: Value = serde_json::from_str(&text).unwrap();
}
