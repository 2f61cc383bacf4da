//! Fuel: what metered modules spend against what wasmi charges for the originals,
//! and the checks that stop them.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use support::{Host, meter, run_metered, run_original, wat};
use wasmi::Val;

const PROGRAMS: &str = r#"
(module
  (memory 1)
  (table 3 funcref)
  (elem (i32.const 0) $double $square $inc)
  (type $unary (func (param i32) (result i32)))
  (func $double (type $unary) (i32.mul (local.get 0) (i32.const 2)))
  (func $square (type $unary) (i32.mul (local.get 0) (local.get 0)))
  (func $inc (type $unary) (i32.add (local.get 0) (i32.const 1)))

  ;; sum of i*i+3 for i in 0..n
  (func (export "arith") (param $n i32) (result i32)
    (local $i i32) (local $acc i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $acc (i32.add (local.get $acc)
          (i32.add (i32.mul (local.get $i) (local.get $i)) (i32.const 3))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $acc))

  (func $fib (export "fib") (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1)))
                     (call $fib (i32.sub (local.get $n) (i32.const 2)))))))

  ;; writes n words, then sums them
  (func (export "memory") (param $n i32) (result i32)
    (local $i i32) (local $acc i32)
    (loop $write
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $write (i32.lt_u (local.get $i) (local.get $n))))
    (local.set $i (i32.const 0))
    (loop $read
      (local.set $acc (i32.add (local.get $acc)
        (i32.load (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $read (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $acc))

  ;; applies table[i % 3] to the accumulator n times
  (func (export "indirect") (param $n i32) (result i32)
    (local $i i32) (local $acc i32)
    (loop $next
      (local.set $acc (call_indirect (type $unary) (local.get $acc)
        (i32.rem_u (local.get $i) (i32.const 3))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $acc))

  ;; fills and copies 16 KiB n times
  (func (export "bulk") (param $n i32) (result i32)
    (local $i i32)
    (loop $next
      (memory.fill (i32.const 0) (local.get $i) (i32.const 16384))
      (memory.copy (i32.const 16384) (i32.const 0) (i32.const 16384))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (local.get $n))))
    (i32.load8_u (i32.const 16384)))

  ;; grows memory by a page and the table by 100 elements n times, filling each,
  ;; then tries a growth past every limit (which fails, and wasmi charges its base)
  (func (export "grow") (param $n i32) (result i32)
    (local $i i32)
    (loop $next
      (drop (memory.grow (i32.const 1)))
      (drop (table.grow (ref.null func) (i32.const 100)))
      (table.fill (i32.const 0) (ref.null func) (table.size))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (local.get $n))))
    (drop (memory.grow (i32.const 70000)))
    (memory.size))

  (func (export "spin") (loop $forever (br $forever)))

  (func $deep (export "deep") (param $n i32) (result i32)
    (i32.add (i32.const 1) (call $deep (local.get $n))))
)
"#;

/// Runs `name(arg)` both ways: same results, and the ratio of fuel spent.
fn ratio(name: &str, arg: i32) -> f64 {
    let original = wat(PROGRAMS);
    let metered = meter(&original);
    let args = [Val::I32(arg)];
    let expected = run_original(&original, name, &args);
    let host = Host {
        slice: 1 << 40,
        ..Host::default()
    };
    let got = run_metered(&metered, name, &args, 1 << 40, host);
    assert_eq!(got.results, expected.results, "{name}");
    assert_eq!(got.out_of_fuel_calls, 0);
    let ratio = got.spent as f64 / expected.spent as f64;
    println!(
        "{name}({arg}): wasmi {} fuel, metered {} fuel, ratio {ratio:.3}",
        expected.spent, got.spent
    );
    ratio
}

#[test]
fn fuel_matches_wasmi_exactly() {
    for (name, arg) in [
        ("arith", 10_000),
        ("fib", 20),
        ("memory", 5_000),
        ("indirect", 10_000),
        ("bulk", 100),
        ("grow", 10),
    ] {
        let ratio = ratio(name, arg);
        // Equal spends give exactly 1.
        assert!(
            (ratio - 1.0).abs() < f64::EPSILON,
            "{name}: metered/wasmi fuel ratio {ratio:.6}, not 1"
        );
    }
}

#[test]
fn an_infinite_loop_runs_out_of_fuel_in_slices() {
    let metered = meter(&wat(PROGRAMS));
    let slice = 10_000;
    let host = Host {
        slice,
        trap_on: Some(3),
        ..Host::default()
    };
    let outcome = run_metered(&metered, "spin", &[], slice, host);
    let err = outcome.results.unwrap_err();
    assert!(err.contains("out of fuel"), "{err}");
    assert_eq!(outcome.out_of_fuel_calls, 3);
    // The initial slice and two refills, each overdrawn by at most one loop body.
    let spent = outcome.spent as i64;
    assert!(
        (3 * slice..3 * slice + 10).contains(&spent),
        "spent {spent}"
    );
}

#[test]
fn deep_recursion_hits_the_entry_check() {
    let metered = meter(&wat(PROGRAMS));
    let host = Host {
        slice: 1_000,
        trap_on: Some(1),
        ..Host::default()
    };
    // No loop: only the function-entry check can stop it, long before the stack.
    let outcome = run_metered(&metered, "deep", &[Val::I32(0)], 1_000, host);
    let err = outcome.results.unwrap_err();
    assert!(err.contains("out of fuel"), "{err}");
    assert_eq!(outcome.out_of_fuel_calls, 1);
    assert!(
        outcome.spent >= 1_000 && outcome.spent < 1_010,
        "spent {}",
        outcome.spent
    );
}

#[test]
fn a_refilling_host_lets_a_long_run_finish() {
    let original = wat(PROGRAMS);
    let metered = meter(&original);
    let args = [Val::I32(20)];
    let expected = run_original(&original, "fib", &args);
    let host = Host {
        slice: 1_000,
        ..Host::default()
    };
    let got = run_metered(&metered, "fib", &args, 1_000, host);
    assert_eq!(got.results, expected.results);
    assert!(got.out_of_fuel_calls as u64 >= expected.spent / 1_000 - 1);
}
