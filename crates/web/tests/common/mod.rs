#![allow(dead_code)] // Each test binary uses a different part of this module.
//! Shared by the browser and the dedicated-worker test binaries: the typed protocol
//! (`Sandbox.open(options, doors)`, `run(op)`, `query(op)`) spoken as the page speaks it,
//! ops and options written as JSON and handed over as plain JS objects.

use js_sys::{Function, Promise, Reflect, Uint8Array};
use sandtab_web::Sandbox;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// A JSON value as the plain JS object the page would pass.
pub fn js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap()
}

/// `value[key]`.
pub fn field(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

/// Sets `object[key]` (a `Uint8Array` or a function, which JSON cannot carry).
pub fn set(object: &JsValue, key: &str, value: &JsValue) {
    Reflect::set(object, &JsValue::from_str(key), value).unwrap();
}

/// A `Uint8Array`'s bytes as text.
pub fn text(bytes: &JsValue) -> String {
    String::from_utf8(Uint8Array::new(bytes).to_vec()).unwrap()
}

/// A thrown error's `code`.
pub fn code(err: &JsValue) -> String {
    field(err, "code").as_string().unwrap_or_default()
}

/// A thrown error's `message`.
pub fn message(err: &JsValue) -> String {
    field(err, "message").as_string().unwrap_or_default()
}

/// Opens a sandbox with `options` (given as is) and the page's `doors`.
pub async fn try_open_with(options: &Value, doors: JsValue) -> Result<Sandbox, JsValue> {
    Sandbox::open(js(options), doors).await
}

/// Opens a sandbox with `options` and no doors.
pub async fn try_open(options: &Value) -> Result<Sandbox, JsValue> {
    try_open_with(options, JsValue::UNDEFINED).await
}

/// `options` with `"storage": "memory"` unless they name a storage.
pub fn in_memory(options: &Value) -> Value {
    let mut options = options.clone();
    if let Value::Object(map) = &mut options {
        map.entry("storage").or_insert_with(|| "memory".into());
    }
    options
}

/// A new sandbox in memory with `options` (`json!({})` for the defaults).
pub async fn memory(options: Value) -> Sandbox {
    try_open(&in_memory(&options)).await.unwrap()
}

/// A new sandbox in memory with `options` and the page's `doors`.
pub async fn memory_with_doors(options: Value, doors: JsValue) -> Sandbox {
    try_open_with(&in_memory(&options), doors).await.unwrap()
}

/// Runs `op` (a JS object); its reply or the error it rejects with.
pub async fn try_run_js(
    sandbox: &Sandbox,
    op: &JsValue,
    on_output: Option<Function>,
) -> Result<JsValue, JsValue> {
    answer(sandbox.run(op.clone(), on_output)).await
}

/// `run`'s answer, whether it came at once or as a `Promise`.
pub fn answer(value: JsValue) -> JsFuture {
    JsFuture::from(js_sys::Promise::resolve(&value))
}

/// Runs `op`; its reply or the error it rejects with.
pub async fn try_run(sandbox: &Sandbox, op: Value) -> Result<JsValue, JsValue> {
    try_run_js(sandbox, &js(&op), None).await
}

/// Runs `op`, which must succeed, and checks its reply's kind.
pub async fn run(sandbox: &Sandbox, op: Value, reply: &str) -> JsValue {
    let summary = op.to_string();
    let answer = match try_run(sandbox, op).await {
        Ok(answer) => answer,
        Err(err) => panic!("{summary}: {} {}", code(&err), message(&err)),
    };
    assert_eq!(
        field(&answer, "reply").as_string().as_deref(),
        Some(reply),
        "{summary}"
    );
    answer
}

/// Answers the query `op` at once, checking its reply's kind.
pub fn query(sandbox: &Sandbox, op: Value, reply: &str) -> JsValue {
    let summary = op.to_string();
    let answer = sandbox.query(js(&op)).unwrap();
    assert_eq!(
        field(&answer, "reply").as_string().as_deref(),
        Some(reply),
        "{summary}"
    );
    answer
}

fn outcome(result: &JsValue) -> Outcome {
    Outcome {
        stdout: text(&field(result, "stdout")),
        stderr: text(&field(result, "stderr")),
        exit_code: field(result, "exitCode").as_f64().unwrap() as i32,
    }
}

/// Runs `script` in the main session.
pub async fn exec(sandbox: &Sandbox, script: &str, on_output: Option<Function>) -> Outcome {
    let op = js(&serde_json::json!({ "op": "exec", "script": script }));
    let result = try_run_js(sandbox, &op, on_output).await.unwrap();
    assert_eq!(field(&result, "reply").as_string().unwrap(), "exec");
    outcome(&result)
}

/// Runs an exec op: `script` with `options` (`session`, `fresh`, `maxOutputBytes`,
/// `guestLimits`); the whole reply.
pub async fn exec_with(
    sandbox: &Sandbox,
    script: &str,
    options: Value,
) -> Result<JsValue, JsValue> {
    let mut op = options;
    op["op"] = "exec".into();
    op["script"] = script.into();
    try_run(sandbox, op).await
}

/// An exec reply's outcome.
pub fn outcome_of(result: &JsValue) -> Outcome {
    outcome(result)
}

/// A file's bytes (`readFile`).
pub async fn read_file(sandbox: &Sandbox, path: &str) -> Result<Vec<u8>, JsValue> {
    let reply = try_run(
        sandbox,
        serde_json::json!({ "op": "readFile", "path": path }),
    )
    .await?;
    assert_eq!(field(&reply, "reply").as_string().unwrap(), "bytes");
    let data = field(&reply, "data");
    assert!(
        data.is_instance_of::<Uint8Array>(),
        "readFile gives a Uint8Array"
    );
    Ok(Uint8Array::new(&data).to_vec())
}

/// Replaces a file (`writeFile`, its bytes as a `Uint8Array`).
pub async fn write_file(sandbox: &Sandbox, path: &str, data: &[u8]) -> Result<(), JsValue> {
    let op = js(&serde_json::json!({ "op": "writeFile", "path": path }));
    set(&op, "data", &Uint8Array::from(data).into());
    let reply = try_run_js(sandbox, &op, None).await?;
    assert_eq!(field(&reply, "reply").as_string().unwrap(), "done");
    Ok(())
}

/// Resolves after `ms` through `setTimeout` (works on a page and in a worker).
pub async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .unwrap()
            .unchecked_into();
        set_timeout
            .call2(&JsValue::NULL, &resolve, &JsValue::from(ms))
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// The checks both environments run.
pub async fn echo_then_cat() {
    let sandbox = memory(serde_json::json!({})).await;
    let out = exec(&sandbox, "echo hello > /tmp/a; cat /tmp/a", None).await;
    assert_eq!(out.stdout, "hello\n");
    assert_eq!(out.exit_code, 0);
    let bytes = read_file(&sandbox, "/tmp/a").await.unwrap();
    assert_eq!(bytes, b"hello\n");
}

pub async fn cancel_stops_a_busy_loop() {
    // With the default limit of 1,000,000 iterations the loop would run for seconds and
    // end with 126; ending with 130 proves the cancel got through while it ran.
    let sandbox = memory(serde_json::json!({})).await;
    exec(&sandbox, "echo kept > /tmp/k", None).await;
    let running = answer(sandbox.run(
        js(&serde_json::json!({ "op": "exec", "script": "while true; do :; done" })),
        None,
    ));
    let cancel = async {
        sleep(50).await;
        sandbox.cancel();
    };
    let (result, ()) = join(running, cancel).await;
    let result = result.unwrap();
    let code = field(&result, "exitCode").as_f64().unwrap() as i32;
    assert_eq!(code, 130, "stderr: {}", text(&field(&result, "stderr")));
    let after = exec(&sandbox, "cat /tmp/k", None).await;
    assert_eq!(after.stdout, "kept\n");
}

/// Polls two futures together (no extra dependency for one join).
pub async fn join<A: std::future::Future, B: std::future::Future>(
    a: A,
    b: B,
) -> (A::Output, B::Output) {
    let mut a = Box::pin(a);
    let mut b = Box::pin(b);
    let mut out_a = None;
    let mut out_b = None;
    std::future::poll_fn(|cx| {
        if out_a.is_none()
            && let std::task::Poll::Ready(v) = a.as_mut().poll(cx)
        {
            out_a = Some(v);
        }
        if out_b.is_none()
            && let std::task::Poll::Ready(v) = b.as_mut().poll(cx)
        {
            out_b = Some(v);
        }
        if out_a.is_some() && out_b.is_some() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    (out_a.unwrap(), out_b.unwrap())
}
