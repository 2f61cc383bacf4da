//! The rewrite: shifted indices, bounded memories and tables, refusals.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_meter::{MeterError, MeterOptions, instrument};
use support::{Host, OPTIONS, instantiate_metered, meter, run_metered, run_original, wat};
use wasmi::Val;

/// Imports before and after other imports, a table filled by active, passive and
/// declared segments, `ref.func` in a global and in code, a start function, tail calls.
const SHIFTED: &str = r#"
(module
  (import "env" "add1" (func $add1 (param i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  (type $unary (func (param i32) (result i32)))
  (table $t 4 funcref)
  (memory 1)
  (global $g funcref (ref.func $triple))
  (global $counter (mut i32) (i32.const 0))
  (elem (i32.const 0) $double $add1 $triple)
  (elem $passive func $double $triple)
  (elem declare func $negate)
  (start $init)
  (func $init (global.set $counter (i32.const 100)) (call $log (i32.const 7)))
  (func $double (type $unary) (i32.mul (local.get 0) (i32.const 2)))
  (func $triple (type $unary) (i32.mul (local.get 0) (i32.const 3)))
  (func $negate (type $unary) (i32.sub (i32.const 0) (local.get 0)))
  (func (export "direct") (param i32) (result i32)
    (call $add1 (call $double (local.get 0))))
  (func (export "indirect") (param i32) (param i32) (result i32)
    (call_indirect (type $unary) (local.get 0) (local.get 1)))
  (func (export "from_global") (param i32) (result i32)
    (table.set $t (i32.const 3) (global.get $g))
    (call_indirect (type $unary) (local.get 0) (i32.const 3)))
  (func (export "ref_func") (param i32) (result i32)
    (table.set $t (i32.const 3) (ref.func $negate))
    (call_indirect (type $unary) (local.get 0) (i32.const 3)))
  (func (export "passive") (param i32) (result i32)
    (table.init $t $passive (i32.const 2) (i32.const 0) (i32.const 2))
    (call_indirect (type $unary) (local.get 0) (i32.const 2)))
  (func (export "tail") (param i32) (result i32)
    (return_call $triple (local.get 0)))
  (func (export "counter") (result i32) (global.get $counter))
  (func (export "logs") (call $log (call $add1 (i32.const 41))))
)
"#;

#[test]
fn shifted_indices_behave_as_before() {
    let original = wat(SHIFTED);
    let metered = meter(&original);
    let cases: &[(&str, &[Val])] = &[
        ("direct", &[Val::I32(5)]),
        ("indirect", &[Val::I32(5), Val::I32(0)]),
        ("indirect", &[Val::I32(5), Val::I32(1)]),
        ("indirect", &[Val::I32(5), Val::I32(2)]),
        ("indirect", &[Val::I32(5), Val::I32(3)]),
        ("from_global", &[Val::I32(5)]),
        ("ref_func", &[Val::I32(5)]),
        ("passive", &[Val::I32(5)]),
        ("tail", &[Val::I32(5)]),
        ("counter", &[]),
        ("logs", &[]),
    ];
    for (name, args) in cases {
        let expected = run_original(&original, name, args);
        let host = Host {
            slice: 1 << 30,
            ..Host::default()
        };
        let got = run_metered(&metered, name, args, 1 << 30, host);
        assert_eq!(got.results, expected.results, "{name}{args:?}");
        assert_eq!(got.logged, expected.logged, "{name}{args:?}");
    }
}

#[test]
fn the_name_section_follows_the_shift() {
    let original = wat(SHIFTED);
    let metered = meter(&original);
    let names = |bytes: &[u8]| {
        let mut found = Vec::new();
        for payload in wasmparser::Parser::new(0).parse_all(bytes) {
            let wasmparser::Payload::CustomSection(section) = payload.unwrap() else {
                continue;
            };
            let wasmparser::KnownCustom::Name(reader) = section.as_known() else {
                continue;
            };
            for name in reader {
                if let wasmparser::Name::Function(map) = name.unwrap() {
                    for naming in map {
                        let naming = naming.unwrap();
                        found.push((naming.index, naming.name.to_owned()));
                    }
                }
            }
        }
        found
    };
    let before = names(&original);
    let after = names(&metered);
    assert!(!before.is_empty());
    let shifted: Vec<_> = before
        .into_iter()
        .map(|(index, name)| (if index < 2 { index } else { index + 1 }, name))
        .collect();
    assert_eq!(after, shifted);
}

#[test]
fn a_module_without_types_imports_globals_or_exports_gains_them() {
    let metered = meter(&wat("(module)"));
    let (mut store, instance) = instantiate_metered(&metered, Host::default());
    let (get, set) = support::accessors(&store, &instance);
    support::set_fuel(&mut store, set, 42);
    assert_eq!(support::fuel_left(&mut store, get), 42);
    // The fuel global itself is not exported: engines reach an exported mutable global
    // through an indirection on every charge.
    let exported_globals = instance
        .exports(&store)
        .filter(|export| export.clone().into_global().is_some())
        .map(|export| export.name().to_owned())
        .collect::<Vec<_>>();
    assert_eq!(exported_globals, [sandtab_meter::GROW_REFUSED_EXPORT]);
}

/// `metered` instantiated with fuel for anything these tests run.
fn fueled(metered: &[u8]) -> (wasmi::Store<Host>, wasmi::Instance) {
    let (mut store, instance) = instantiate_metered(metered, Host::default());
    let (_, set) = support::accessors(&store, &instance);
    support::set_fuel(&mut store, set, 1 << 30);
    (store, instance)
}

#[test]
fn memory_growth_stops_at_the_limit() {
    let source = r#"(module (memory 1)
        (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))"#;
    let options = MeterOptions {
        max_memory_pages: 4,
        max_table_elements: 10,
    };
    let metered = instrument(&wat(source), &options).unwrap().bytes;
    let (mut store, instance) = fueled(&metered);
    let grow = instance.get_typed_func::<i32, i32>(&store, "grow").unwrap();
    let refused = instance
        .get_global(&store, sandtab_meter::GROW_REFUSED_EXPORT)
        .unwrap();
    assert_eq!(grow.call(&mut store, 3).unwrap(), 1);
    assert_eq!(refused.get(&store).i32(), Some(0), "a growth that succeeds");
    assert_eq!(grow.call(&mut store, 1).unwrap(), -1);
    // The engine refuses silently; the global tells the host.
    assert_eq!(
        refused.get(&store).i32(),
        Some(sandtab_meter::REFUSED_MEMORY)
    );
    assert_eq!(grow.call(&mut store, 0).unwrap(), 4);
}

#[test]
fn a_refused_table_growth_is_marked_too() {
    let source = r#"(module (table 1 funcref)
        (func (export "grow") (param i32) (result i32)
          (table.grow (ref.null func) (local.get 0))))"#;
    let options = MeterOptions {
        max_memory_pages: 4,
        max_table_elements: 10,
    };
    let metered = instrument(&wat(source), &options).unwrap().bytes;
    let (mut store, instance) = fueled(&metered);
    let grow = instance.get_typed_func::<i32, i32>(&store, "grow").unwrap();
    let refused = instance
        .get_global(&store, sandtab_meter::GROW_REFUSED_EXPORT)
        .unwrap();
    assert_eq!(grow.call(&mut store, 9).unwrap(), 1);
    assert_eq!(refused.get(&store).i32(), Some(0));
    assert_eq!(grow.call(&mut store, 1).unwrap(), -1);
    assert_eq!(
        refused.get(&store).i32(),
        Some(sandtab_meter::REFUSED_TABLE)
    );
}

#[test]
fn declared_maxima_below_the_limit_stay() {
    let source = r#"(module (memory 1 2) (table 1 3 funcref)
        (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
        (func (export "grow_table") (param i32) (result i32)
          (table.grow (ref.null func) (local.get 0))))"#;
    let metered = meter(&wat(source));
    let (mut store, instance) = fueled(&metered);
    let grow = instance.get_typed_func::<i32, i32>(&store, "grow").unwrap();
    assert_eq!(grow.call(&mut store, 2).unwrap(), -1);
    assert_eq!(grow.call(&mut store, 1).unwrap(), 1);
    let grow_table = instance
        .get_typed_func::<i32, i32>(&store, "grow_table")
        .unwrap();
    assert_eq!(grow_table.call(&mut store, 3).unwrap(), -1);
    assert_eq!(grow_table.call(&mut store, 2).unwrap(), 1);
}

#[test]
fn minima_past_the_limits_are_refused() {
    let options = MeterOptions {
        max_memory_pages: 4,
        max_table_elements: 10,
    };
    let err = instrument(&wat("(module (memory 5))"), &options).unwrap_err();
    assert_eq!(
        err,
        MeterError::MemoryLimit {
            index: 0,
            minimum: 5,
            limit: 4
        }
    );
    assert!(err.to_string().contains("5 pages"), "{err}");
    let err = instrument(&wat("(module (table 11 funcref))"), &options).unwrap_err();
    assert_eq!(
        err,
        MeterError::TableLimit {
            index: 0,
            minimum: 11,
            limit: 10
        }
    );
}

#[test]
fn refusals_are_typed() {
    let refused = |source: &str| instrument(&wat(source), &OPTIONS).unwrap_err();
    assert!(matches!(
        refused(r#"(module (import "sandtab:meter" "out_of_fuel" (func)))"#),
        MeterError::ReservedImport { .. }
    ));
    assert!(matches!(
        refused(r#"(module (global (export "sandtab:fuel") i64 (i64.const 0)))"#),
        MeterError::ReservedExport(_)
    ));
    assert!(matches!(
        refused(r#"(module (import "env" "memory" (memory 1)))"#),
        MeterError::ImportedMemory { .. }
    ));
    // SIMD is not among sandtab's interpreter's features.
    assert!(matches!(
        refused("(module (func (drop (v128.const i64x2 0 0))))"),
        MeterError::Invalid(_)
    ));
    let garbage = instrument(b"\0asm garbage, not a module", &OPTIONS).unwrap_err();
    assert!(matches!(garbage, MeterError::Invalid(_)), "{garbage}");
    assert!(matches!(
        instrument(&[], &OPTIONS),
        Err(MeterError::Invalid(_))
    ));
    let whole = wat(SHIFTED);
    for len in (0..whole.len()).step_by(7) {
        assert!(
            matches!(
                instrument(&whole[..len], &OPTIONS),
                Err(MeterError::Invalid(_))
            ),
            "a module truncated to {len} bytes"
        );
    }
}

#[test]
fn memory64_is_refused() {
    let err = instrument(&wat("(module (memory i64 1))"), &OPTIONS).unwrap_err();
    assert_eq!(err, MeterError::Memory64 { index: 0 });
    assert!(err.to_string().contains("64-bit memory"), "{err}");
    let err = instrument(&wat("(module (memory 1) (memory i64 1))"), &OPTIONS).unwrap_err();
    assert_eq!(err, MeterError::Memory64 { index: 1 });
    let err = instrument(&wat("(module (table i64 1 funcref))"), &OPTIONS).unwrap_err();
    assert_eq!(err, MeterError::Table64 { index: 0 });
}

/// Metered modules are kept across page loads under [`sandtab_meter::REVISION`]: a
/// rewrite that changes its output without a new revision would run stale modules. This
/// pins one module's output (loops, calls, growth, bulk memory) to the revision; when it
/// fails, bump `REVISION` and put the new digest here.
#[test]
fn the_revision_names_the_output() {
    let source = r#"(module
      (import "env" "f" (func $f (param i32) (result i32)))
      (memory 1) (table 2 funcref)
      (func $g (param i32) (result i32)
        (loop $l (br_if $l (i32.eqz (call $f (local.get 0)))))
        (drop (memory.grow (i32.const 1)))
        (memory.fill (i32.const 0) (i32.const 1) (i32.const 100))
        (drop (table.grow (ref.null func) (i32.const 1)))
        (local.get 0))
      (export "g" (func $g)))"#;
    let metered = meter(&wat(source));
    // FNV-1a: stable across Rust versions, unlike std's hasher.
    let fnv = metered
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    let digest = (metered.len(), fnv);
    assert_eq!(
        (sandtab_meter::REVISION, digest),
        (2, (357, 16_535_913_697_668_076_903)),
        "the rewrite's output changed: bump sandtab_meter::REVISION and pin the new digest"
    );
}
