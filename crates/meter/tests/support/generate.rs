//! wasm-smith modules seeded deterministically, in the features sandtab's interpreter
//! supports.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

/// Deterministic bytes for module `seed` (an xorshift stream: no clock, no OS).
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// What the modules may import: functions, a global and a table, never a memory
/// (imported memories are refused; most modules should be metered).
pub const IMPORTS: &str = r#"(module
  (import "env" "f0" (func))
  (import "env" "f1" (func (param i32) (result i32)))
  (import "env" "f2" (func (param i64 i32)))
  (import "env" "g" (global (mut i32)))
  (import "env" "t" (table 1 10 funcref)))"#;

pub fn smith(seed: u64) -> Option<Vec<u8>> {
    let data = bytes(seed, 2048 + (seed as usize % 8) * 1024);
    let mut u = arbitrary::Unstructured::new(&data);
    let config = wasm_smith::Config {
        max_memories: 3,
        max_tables: 3,
        max_funcs: 20,
        max_instructions: 300,
        max_memory32_bytes: 1 << 20,
        max_table_elements: 1_000,
        // One in ten may import a memory, to be refused.
        available_imports: (seed % 10 != 5).then(|| wat::parse_str(IMPORTS).unwrap()),
        simd_enabled: false,
        relaxed_simd_enabled: false,
        gc_enabled: false,
        exceptions_enabled: false,
        memory64_enabled: seed.is_multiple_of(10),
        threads_enabled: false,
        wide_arithmetic_enabled: false,
        custom_page_sizes_enabled: false,
        compact_imports_enabled: false,
        ..wasm_smith::Config::default()
    };
    wasm_smith::Module::new(config, &mut u)
        .ok()
        .map(|module| module.to_bytes())
}
