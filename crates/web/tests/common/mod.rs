#![allow(dead_code)] // Each test binary uses a different part of this module.
//! Shared by the browser and the dedicated-worker test binaries.

use js_sys::{Function, Promise, Reflect, Uint8Array};
use sandtab_web::Sandbox;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

fn field(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap()
}

fn text(bytes: JsValue) -> String {
    String::from_utf8(Uint8Array::new(&bytes).to_vec()).unwrap()
}

pub async fn exec(sandbox: &Sandbox, script: &str, on_output: Option<Function>) -> Outcome {
    let result = JsFuture::from(sandbox.exec(script.to_owned(), on_output, None))
        .await
        .unwrap();
    Outcome {
        stdout: text(field(&result, "stdout")),
        stderr: text(field(&result, "stderr")),
        exit_code: field(&result, "exitCode").as_f64().unwrap() as i32,
    }
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

pub fn limits(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

/// The checks both environments run.
pub async fn echo_then_cat() {
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    let out = exec(&sandbox, "echo hello > /tmp/a; cat /tmp/a", None).await;
    assert_eq!(out.stdout, "hello\n");
    assert_eq!(out.exit_code, 0);
    let bytes = sandbox.read_file("/tmp/a".into()).await.unwrap().to_vec();
    assert_eq!(bytes, b"hello\n");
}

pub async fn cancel_stops_a_busy_loop() {
    // With the default limit of 1,000,000 iterations the loop would run for seconds and
    // end with 126; ending with 130 proves the cancel got through while it ran.
    let sandbox = Sandbox::new(JsValue::UNDEFINED).unwrap();
    exec(&sandbox, "echo kept > /tmp/k", None).await;
    let running = JsFuture::from(sandbox.exec("while true; do :; done".into(), None, None));
    let cancel = async {
        sleep(50).await;
        sandbox.cancel();
    };
    let (result, ()) = join(running, cancel).await;
    let result = result.unwrap();
    let code = field(&result, "exitCode").as_f64().unwrap() as i32;
    assert_eq!(code, 130, "stderr: {}", text(field(&result, "stderr")));
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
