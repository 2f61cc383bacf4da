//! wasm-smith's valid modules, in the features sandtab's interpreter supports: the
//! meter never panics, and whatever it returns validates and instantiates.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_meter::{MeterError, MeterOptions, features, instrument};
use support::generate::smith;

#[test]
fn smith_modules_meter_or_refuse_and_never_panic() {
    let options = MeterOptions {
        max_memory_pages: 12,
        max_table_elements: 1_000,
    };
    let (mut metered, mut refused, mut generated) = (0, 0, 0);
    for seed in 0..300 {
        let Some(module) = smith(seed) else { continue };
        generated += 1;
        match instrument(&module, &options) {
            Ok(out) => {
                metered += 1;
                wasmparser::Validator::new_with_features(features())
                    .validate_all(&out.bytes)
                    .unwrap_or_else(|err| panic!("seed {seed}: invalid output: {err}"));
                // wasmi accepts it too (it compiles; imports are not provided).
                wasmi::Module::new(&wasmi::Engine::default(), &out.bytes)
                    .unwrap_or_else(|err| panic!("seed {seed}: wasmi refuses: {err}"));
            }
            Err(MeterError::Output(err)) => panic!("seed {seed}: a bug: {err}"),
            Err(err) => {
                refused += 1;
                println!("seed {seed}: refused: {err}");
            }
        }
        // Mutated bytes: an error or a module, never a panic.
        let mut broken = module.clone();
        if !broken.is_empty() {
            let at = (seed as usize * 31) % broken.len();
            broken[at] ^= 0x5a;
            broken.truncate(broken.len() - (seed as usize % 3));
            if let Err(MeterError::Output(err)) = instrument(&broken, &options) {
                panic!("seed {seed} mutated: a bug: {err}");
            }
        }
    }
    println!("{generated} generated, {metered} metered, {refused} refused");
    assert!(generated >= 250, "only {generated} modules generated");
    assert!(
        metered >= generated * 3 / 4,
        "only {metered} of {generated} metered"
    );
}
