//! The binding inside a dedicated worker, where the runtime lives in production.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
async fn echo_then_cat_in_a_worker() {
    common::echo_then_cat().await;
}

#[wasm_bindgen_test]
async fn cancel_reaches_a_busy_loop_in_a_worker() {
    common::cancel_stops_a_busy_loop().await;
}
