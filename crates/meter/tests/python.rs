//! The real guest: CPython, if the web build is there.
#![allow(clippy::unwrap_used, clippy::disallowed_methods)] // Test code; native clock.

use sandtab_meter::{MeterOptions, instrument};
use std::time::Instant;

#[test]
#[ignore = "slow: run with --ignored (needs www/dist/guests/python.wasm)"]
fn instruments_python() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/dist/guests/python.wasm"
    );
    let Ok(bytes) = std::fs::read(path) else {
        println!("{path} is missing: skipped");
        return;
    };
    let options = MeterOptions {
        max_memory_pages: 16_384,
        max_table_elements: 1 << 20,
    };
    let start = Instant::now();
    let metered = instrument(&bytes, &options).unwrap();
    let elapsed = start.elapsed();
    let (code_in, code_out) = (code_size(&bytes), code_size(&metered.bytes));
    println!(
        "python.wasm: {} bytes in, {} out (custom sections but `name` dropped); \
         code section {code_in} -> {code_out} bytes ({:+.1}%); metered in {elapsed:.2?}",
        bytes.len(),
        metered.bytes.len(),
        (code_out as f64 / code_in as f64 - 1.0) * 100.0
    );
    // wasmi accepts it too.
    wasmi::Module::new(&wasmi::Engine::default(), &metered.bytes[..]).unwrap();
}

/// The size of the code section.
fn code_size(bytes: &[u8]) -> u64 {
    wasmparser::Parser::new(0)
        .parse_all(bytes)
        .find_map(|payload| match payload.unwrap() {
            wasmparser::Payload::CodeSectionStart { range, .. } => {
                Some((range.end - range.start) as u64)
            }
            _ => None,
        })
        .unwrap_or(0)
}
