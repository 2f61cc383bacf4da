//! The WASI conformance guest's cases in a dedicated worker, where guests run in
//! production: sandtab's WASI host compiled to wasm32 must print what wasmtime printed
//! (tests/guests/wasi-conform/expected.json), in Chromium and in Firefox. The native run
//! of the same cases is crates/wasi/tests/wasi_conformance.rs.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

#[path = "../../wasi/tests/conformance/mod.rs"]
mod conformance;

use js_sys::{Function, Reflect, Uint8Array};
use sandtab_vfs::{ManualClock, Quota, SandboxFs, Timestamp};
use sandtab_wasi::{GuestEngine, GuestLimits, Platform};
use std::sync::Arc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

const GUEST: &[u8] = include_bytes!("../../../target/guests/rust/wasi_conform.wasm");

/// The worker's own clocks and randomness, read straight from its globals.
struct WorkerPlatform;

fn global(name: &str) -> JsValue {
    Reflect::get(&js_sys::global(), &name.into()).unwrap()
}

fn call(object: &JsValue, method: &str, args: &js_sys::Array) -> JsValue {
    let function: Function = Reflect::get(object, &method.into())
        .unwrap()
        .unchecked_into();
    function.apply(object, args).unwrap()
}

impl Platform for WorkerPlatform {
    fn realtime_ns(&self) -> u64 {
        (js_sys::Date::now() as u64).saturating_mul(1_000_000)
    }
    fn monotonic_ns(&self) -> u64 {
        let millis = call(&global("performance"), "now", &js_sys::Array::new());
        (millis.as_f64().unwrap() * 1e6) as u64
    }
    fn random(&self, buf: &mut [u8]) -> Result<(), String> {
        for chunk in buf.chunks_mut(65536) {
            let array = Uint8Array::new_with_length(chunk.len() as u32);
            call(
                &global("crypto"),
                "getRandomValues",
                &js_sys::Array::of1(&array),
            );
            array.copy_to(chunk);
        }
        Ok(())
    }
}

fn memory_fs() -> Arc<SandboxFs> {
    let clock = Arc::new(ManualClock::new(Timestamp(1_700_000_000_000_000_000)));
    Arc::new(SandboxFs::in_memory(clock, Quota::UNLIMITED, Vec::new()).unwrap())
}

#[wasm_bindgen_test]
async fn every_preview1_function_answers_as_wasmtime_does_in_a_worker() {
    every_preview1_function_on(None).await;
}

/// The same cases on the engine tier: the browser's engine runs the metered guest, the
/// same WASI host answers through a memory it can only copy.
#[wasm_bindgen_test]
async fn every_preview1_function_answers_as_wasmtime_does_on_the_engine_tier() {
    let tier = sandtab_web::engine_tier::WebEngineTier;
    every_preview1_function_on(Some(&tier)).await;
}

async fn every_preview1_function_on(tier: Option<&dyn sandtab_wasi::foreign::EngineTier>) {
    let engine = GuestEngine::new(GuestLimits::default().call_depth);
    let module = conformance::compile(&engine, GUEST);
    let cases = conformance::cases();
    let mut failures = Vec::new();
    for case in &cases {
        let got = conformance::run_case_on(
            &engine,
            &module,
            memory_fs(),
            Arc::new(WorkerPlatform),
            case,
            tier.map(|tier| (tier, GUEST)),
        )
        .await;
        failures.extend(conformance::compare(&case.label, &got));
    }
    assert!(cases.len() >= 50, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from wasmtime (- wasmtime, + sandtab):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
