//! Rewrites a guest module so the browser's own engine can run it under sandtab's
//! fuel and memory limits: step 1 of the metered JIT tier.
//!
//! sandtab interprets guests with wasmi, which counts fuel and bounds memory itself.
//! A browser's engine does neither, so the module is made to do it:
//!
//! - **Fuel.** A new mutable `i64` global holds the fuel left in the current slice
//!   (initially 0); the host reads it with the exported function [`FUEL_EXPORT`] and
//!   sets it with [`FUEL_SET_EXPORT`]. Each fuel frame, as wasmi has them
//!   (a function body, a loop body, an `if` arm; nested `block`s belong to the frame
//!   around them), is charged its whole cost where it opens (`global.get; i64.const
//!   COST; i64.sub; global.set`), as wasmi's `ConsumeFuel` does: one charge per loop
//!   iteration, not one per branch or call.
//! - **Checks.** At every function entry and every loop header, after the charge,
//!   the fuel is compared with 0, and when negative the module calls the host's
//!   [`OUT_OF_FUEL`] (imported from [`METER_MODULE`], type `[] -> []`), which
//!   refills the global or traps. Between two checks a guest runs at most one loop
//!   body or function body (calls check on entry), so it overdraws a slice by at most
//!   one frame's charge. Note the global starts at 0: a start function's first check
//!   calls the host.
//! - **Refused growths.** A second new global, an `i32` exported as
//!   [`GROW_REFUSED_EXPORT`], is set when a `memory.grow` or `table.grow` returns -1.
//! - **Memory and tables.** Each defined memory's maximum becomes at most
//!   [`MeterOptions::max_memory_pages`], each defined table's at most
//!   [`MeterOptions::max_table_elements`]; the engine itself then makes a growth past
//!   it return -1. A minimum past the limit is refused, as is an imported memory
//!   (WASI guests define their own) and a 64-bit memory. Imported tables are left as
//!   the host provides them.
//!
//! The import is added after the module's own function imports, so every defined
//! function's index moves up by one and every reference to one is rewritten (calls,
//! `ref.func`, element segments, exports, start, constant expressions, the `name`
//! section). Of the custom sections only `name` is kept (without label names, which
//! the checks' `if` blocks renumber); the others (DWARF, producers, source maps)
//! describe byte offsets the rewrite moves and are dropped.
//!
//! # Fuel units
//!
//! The units are wasmi 2.0's, as sandtab configures it (`crates/wasi/src/engine.rs`:
//! its operator table, `memory.grow`/`table.grow` raised to 255, 64 bytes per fuel):
//!
//! | what | fuel |
//! |---|---|
//! | `nop`, `drop`, `block`, `loop`, `unreachable`, `return`, `else`, `end` | 0 |
//! | entering a function body, a loop body, or either arm of an `if` | 1 (wasmi's `ConsumeFuel` base) |
//! | `memory.grow`, `table.grow` | [`GROW_COST`] (sandtab's `GROW_FUEL`) |
//! | a growth that succeeds, in addition | its new bytes / [`BYTES_PER_FUEL`] (a page: 1,024; an element: 4 bytes) |
//! | `memory.copy`, `memory.fill`, `memory.init` | 1 + length / [`BYTES_PER_FUEL`] |
//! | `table.copy`, `table.fill`, `table.init` | 1 + 4 × length / [`BYTES_PER_FUEL`] |
//! | every other operator | 1 |
//!
//! The run-time parts (lengths, deltas) are read from the operand through two
//! scratch `i32` locals, added only to functions that need them.
//!
//! Matched exactly: all of the above, and where the charge falls (`frames.rs`): wasmi
//! charges a frame's operators when the frame is entered, code a branch skips and dead
//! code after a `br` or `return` included, and so does the meter. Two differences: where
//! wasmi folds a constant condition (`i32.const 1; if`), its `if` opens no frame and a
//! skipped arm is charged to the frame around it, so the meter charges less; and a bulk
//! operation that traps out of bounds costs the meter its bytes (charged before the
//! operation) and wasmi nothing (it charges after its bounds check). The meter only
//! stops a guest at function entries and loop headers; a call's parameters are not
//! charged (nor are they by wasmi 2.0's executor).
//!
//! Measured (`tests/fuel.rs`: metered spend ÷ wasmi's for the original): a counting
//! loop with arithmetic, recursive `fib(20)`, memory loads and stores,
//! `call_indirect`, `memory.fill`/`memory.copy`, memory and table growth: all equal to
//! the unit. On wasm-smith's random code (`tests/differential.rs`, full of dead code
//! and constant conditions) the meter charges 0.996 of what wasmi does in total, never
//! more on any call, with the same results on every call compared.
//!
//! # Features
//!
//! Input and output are validated with the features sandtab's wasmi build enables
//! ([`features`]): the MVP, mutable globals, multi-value, multi-memory, saturating
//! conversions, sign extension, bulk memory, reference types, tail calls and
//! extended constants. No SIMD, memory64, threads, exceptions or GC.

mod body;
mod cost;
mod error;
mod frames;
mod limits;
mod names;
mod rewrite;
mod shape;

pub use cost::{BYTES_PER_FUEL, GROW_COST};
pub use error::MeterError;
use wasmparser::{Validator, WasmFeatures};

/// The rewrite's revision: hosts that keep metered modules (the browser's Cache Storage)
/// key them by it. Bump it whenever the output for a given input changes; the test
/// `tests/rewrite.rs::the_revision_names_the_output` pins a module's output to it.
pub const REVISION: u32 = 2;

/// The import module of the host's functions.
pub const METER_MODULE: &str = "sandtab:meter";

/// The host function called when the fuel runs out: type `[] -> []`. It refills the
/// fuel through [`FUEL_SET_EXPORT`] (the guest goes on) or traps (the guest stops).
pub const OUT_OF_FUEL: &str = "out_of_fuel";

/// The exported function (`[] -> [i64]`) that reads the fuel left in the current slice.
/// The fuel lives in a global the module does not export: engines reach an exported
/// mutable global through an indirection on every access (the meter's charges were
/// 20% slower in Chromium, 9% in Firefox, on a loop of them).
pub const FUEL_EXPORT: &str = "sandtab:fuel";

/// The exported function (`[i64] -> []`) that sets the fuel for the next slice.
pub const FUEL_SET_EXPORT: &str = "sandtab:set_fuel";

/// The exported mutable `i32` global that tells the host a growth was refused: 0 until
/// a `memory.grow` returns -1 (then [`REFUSED_MEMORY`]) or a `table.grow` does
/// ([`REFUSED_TABLE`]); the last refusal wins. The engine refuses silently, so this is
/// how a host tells a guest that failed for want of memory from one that failed.
pub const GROW_REFUSED_EXPORT: &str = "sandtab:grow_refused";

/// [`GROW_REFUSED_EXPORT`]'s value after a refused `memory.grow`.
pub const REFUSED_MEMORY: i32 = 1;

/// [`GROW_REFUSED_EXPORT`]'s value after a refused `table.grow`.
pub const REFUSED_TABLE: i32 = 2;

/// The limits the metered module enforces on itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeterOptions {
    /// The most 64 KiB pages any defined memory may grow to.
    pub max_memory_pages: u64,
    /// The most elements any defined table may grow to.
    pub max_table_elements: u64,
}

/// A metered module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metered {
    /// The module's bytes, valid under [`features`].
    pub bytes: Vec<u8>,
}

/// The features sandtab's wasmi (2.0, built without `simd` and `memory64`) enables.
pub fn features() -> WasmFeatures {
    WasmFeatures::FLOATS
        | WasmFeatures::GC_TYPES
        | WasmFeatures::MUTABLE_GLOBAL
        | WasmFeatures::MULTI_VALUE
        | WasmFeatures::MULTI_MEMORY
        | WasmFeatures::SATURATING_FLOAT_TO_INT
        | WasmFeatures::SIGN_EXTENSION
        | WasmFeatures::BULK_MEMORY
        | WasmFeatures::REFERENCE_TYPES
        | WasmFeatures::TAIL_CALL
        | WasmFeatures::EXTENDED_CONST
}

/// Meters `module` (see the crate docs). The input is validated first, so the
/// rewrite only ever sees a valid module; the output is validated too, under
/// [`features`].
pub fn instrument(module: &[u8], options: &MeterOptions) -> Result<Metered, MeterError> {
    // memory64 is accepted here only to be refused with its own error (in `shape`):
    // a module with no 64-bit memory or table is then valid under `features()`.
    Validator::new_with_features(features() | WasmFeatures::MEMORY64)
        .validate_all(module)
        .map_err(|err| MeterError::Invalid(err.to_string()))?;
    let shape = shape::shape(module, options)?;
    let bytes = rewrite::Rewriter::new(&shape, options).run(module)?;
    Validator::new_with_features(features())
        .validate_all(&bytes)
        .map_err(|err| MeterError::Output(err.to_string()))?;
    Ok(Metered { bytes })
}
