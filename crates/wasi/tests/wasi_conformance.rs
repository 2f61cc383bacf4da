//! The WASI conformance guest (tests/guests/wasi-conform) against what wasmtime printed for
//! it: every `wasi_snapshot_preview1` function, its error paths, rights, preopens, trailing
//! slashes, symlinks, odd path spellings, faults and malformed arguments. The expected
//! output is recorded from wasmtime by `check.py record`, never written by hand; sandtab
//! must print the same stdout and stderr, end with the same status and leave the same
//! tree. crates/web/tests/conformance.rs runs the same cases in browser workers.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod conformance;
mod support;

use sandtab_wasi::{GuestEngine, GuestLimits, NativeHost};
use std::sync::Arc;
use support::{built_guest, memory_fs};

#[test]
fn every_preview1_function_answers_as_wasmtime_does() {
    check_every_case();
}

/// The same cases with host calls given a memory that cannot lend its bytes (every
/// access copies, as with a browser engine's `WebAssembly.Memory`).
#[test]
fn every_preview1_function_answers_the_same_through_a_memory_that_cannot_lend() {
    let ((), copies) = sandtab_wasi::testing::with_non_lending_memory(check_every_case);
    assert!(copies.reads > 0 && copies.writes > 0, "{copies:?}");
}

fn check_every_case() {
    let engine = GuestEngine::new(GuestLimits::default().call_depth);
    let module = conformance::compile(&engine, &built_guest("rust/wasi_conform.wasm"));
    let cases = conformance::cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let got = futures::executor::block_on(conformance::run_case(
                &engine,
                &module,
                memory_fs(),
                Arc::new(NativeHost::default()),
                case,
            ));
            conformance::compare(&case.label, &got)
        })
        .collect();
    assert!(cases.len() >= 50, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from wasmtime (- wasmtime, + sandtab):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
