//! Programs that come after the sandbox opened (`expect_program`, `provide_program`):
//! handing a module over does not compile it (the host does that when idle, with
//! `precompile_program`), so a command sent meanwhile never waits for a compile.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, exec, open};
use serde_json::json;

/// A module that exits with status 7 from `_start`.
fn exits_seven() -> Vec<u8> {
    wat::parse_str(
        r#"(module
            (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
            (memory (export "memory") 1)
            (func (export "_start") (call $exit (i32.const 7))))"#,
    )
    .unwrap()
}

#[test]
fn a_module_is_handed_over_without_compiling_and_compiled_when_asked() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    sandbox.expect_program(&["seven".into()], None).unwrap();
    sandbox.expect_program(&["broken".into()], None).unwrap();
    // Not WebAssembly: handing it over succeeds, because nothing compiles it yet.
    sandbox
        .provide_program("broken", b"not a module".to_vec())
        .unwrap();
    let err = sandbox.precompile_program("broken").unwrap_err();
    assert!(err.message.contains("broken"), "{err:?}");
    let ran = exec(&sandbox, "broken; echo $?");
    assert!(
        ran.stdout.ends_with("126\n"),
        "{} / {}",
        ran.stdout,
        ran.stderr
    );

    sandbox.provide_program("seven", exits_seven()).unwrap();
    sandbox.precompile_program("seven").unwrap();
    let ran = exec(&sandbox, "seven; echo $?");
    assert_eq!(ran.stdout, "7\n");
    assert!(sandbox.precompile_program("unknown").is_err());
}

#[test]
fn a_command_runs_a_module_nobody_compiled_ahead() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    sandbox.expect_program(&["seven".into()], None).unwrap();
    sandbox.provide_program("seven", exits_seven()).unwrap();
    let ran = exec(&sandbox, "seven; echo $?");
    assert_eq!(ran.stdout, "7\n");
}
