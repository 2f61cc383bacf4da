//! The rewrite against the module as given: same results, limits, fuel and errors.

use crate::{
    BoxFuture, GuestEngine, GuestIo, GuestLimits, GuestRun, NativeHost, OutStream, RunOutcome,
};
use sandtab_vfs::{ManualClock, Quota, SandboxFs, Timestamp, VfsPath};
use std::sync::Arc;

#[derive(Default)]
struct Io {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl GuestIo for Io {
    fn read_stdin(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(async { Ok(None) })
    }
    fn write(&mut self, stream: OutStream, bytes: Vec<u8>) -> BoxFuture<'_, Result<(), String>> {
        match stream {
            OutStream::Stdout => self.stdout.extend(bytes),
            OutStream::Stderr => self.stderr.extend(bytes),
        }
        Box::pin(async { Ok(()) })
    }
    fn yield_now(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn sleep(&mut self, _nanos: u64) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn cancelled(&self) -> bool {
        false
    }
}

fn run(engine: &GuestEngine, bytes: &[u8], limits: GuestLimits) -> (RunOutcome, Io) {
    let mut io = Io::default();
    let module = match engine.compile(bytes, None) {
        Ok(module) => module,
        Err(err) => {
            let outcome = RunOutcome {
                exit_code: err.exit_status(),
                error: Some(err),
                fuel_used: 0,
            };
            return (outcome, io);
        }
    };
    let clock = Arc::new(ManualClock::new(Timestamp(1_700_000_000_000_000_000)));
    let fs = Arc::new(SandboxFs::in_memory(clock, Quota::UNLIMITED, Vec::new()).unwrap());
    let run = GuestRun {
        args: vec!["grow".into()],
        env: Vec::new(),
        preopens: Vec::new(),
        fs,
        limits,
        clock: crate::ClockMode::Virtual { start_ns: 0 },
        random: crate::RandomMode::Seeded(1),
        platform: Arc::new(NativeHost::default()),
        observed: None,
        stdin_terminal: false,
    };
    let _ = VfsPath::root();
    let outcome = futures::executor::block_on(crate::run(engine, &module, run, &mut io));
    (outcome, io)
}

/// Runs `wat` rewritten and as given; both must end alike, fuel included.
fn both(bytes: &[u8], limits: GuestLimits) -> (RunOutcome, Io) {
    let rewritten = GuestEngine::new(limits.call_depth);
    let compiled = rewritten.compile(bytes, None).unwrap();
    assert!(compiled.grow.is_some(), "the module was not rewritten");
    let (outcome, io) = run(&rewritten, bytes, limits);
    let plain = GuestEngine::without_grow_calls(limits.call_depth);
    let (expected, expected_io) = run(&plain, bytes, limits);
    assert_eq!(outcome, expected);
    assert_eq!(io.stdout, expected_io.stdout);
    assert_eq!(io.stderr, expected_io.stderr);
    (outcome, io)
}

/// Each growth's result in memory 0 (one i32 each), printed as raw bytes.
const GROWTHS: &str = r#"
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory $m0 (export "memory") 1 4)
  (memory $m1 0)
  (table $t 1 funcref)
  (table $e 0 externref)
  (global $started (mut i32) (i32.const 0))
  (elem declare func $answer)
  (type $give (func (result i32)))
  (func $answer (result i32) (i32.const 42))
  (func $init (global.set $started (i32.const 7)))
  (start $init)
  (func $put (param $at i32) (param $value i32)
    (i32.store (i32.add (i32.const 1024) (i32.mul (local.get $at) (i32.const 4)))
      (local.get $value)))
  (func (export "_start")
    (call $put (i32.const 0) (memory.grow $m0 (i32.const 1)))
    (call $put (i32.const 1) (memory.grow $m0 (i32.const 0)))
    (call $put (i32.const 2) (memory.grow $m0 (i32.const 10)))
    (call $put (i32.const 3) (memory.grow $m1 (i32.const 2)))
    (call $put (i32.const 4) (memory.size $m1))
    (call $put (i32.const 5) (memory.size $m0))
    (call $put (i32.const 6) (table.grow $t (ref.null func) (i32.const 3)))
    (call $put (i32.const 7) (table.grow $t (ref.func $answer) (i32.const 1)))
    (call $put (i32.const 8) (call_indirect $t (type $give) (i32.const 4)))
    (call $put (i32.const 9) (table.grow $e (ref.null extern) (i32.const 2)))
    (call $put (i32.const 10) (table.size $t))
    (call $put (i32.const 11) (global.get $started))
    ;; beyond the limits (10 pages, 50 elements): -1
    (call $put (i32.const 12) (memory.grow $m1 (i32.const 100)))
    (call $put (i32.const 13) (table.grow $t (ref.null func) (i32.const 100)))
    (call $put (i32.const 14) (memory.size $m1))
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const 60))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 0))))
"#;

#[test]
fn rewritten_growths_return_what_the_instructions_do() {
    let limits = GuestLimits {
        memory_bytes: 10 << 16,
        table_elements: 50,
        ..GuestLimits::default()
    };
    let (outcome, io) = both(&wat::parse_str(GROWTHS).unwrap(), limits);
    assert_eq!(
        outcome.exit_code,
        0,
        "{:?}",
        String::from_utf8_lossy(&io.stderr)
    );
    let words: Vec<i32> = io
        .stdout
        .chunks(4)
        .map(|word| i32::from_le_bytes(word.try_into().unwrap()))
        .collect();
    assert_eq!(words, [1, 2, -1, 0, 2, 2, 1, 4, 42, 0, 5, 7, -1, -1, 2]);
}

#[test]
fn a_refused_growth_still_names_the_limit() {
    // A guest that fails after a refused growth reports the limit.
    let wat = r#"
    (module
      (memory (export "memory") 1)
      (func (export "_start")
        (if (i32.eq (memory.grow (i32.const 100)) (i32.const -1))
          (then unreachable))))
    "#;
    let limits = GuestLimits {
        memory_bytes: 10 << 16,
        ..GuestLimits::default()
    };
    let (outcome, _) = both(&wat::parse_str(wat).unwrap(), limits);
    assert_eq!(outcome.exit_code, crate::EXIT_LIMIT);
}

#[test]
fn fuel_runs_out_alike() {
    let wat = r#"
    (module
      (memory (export "memory") 1)
      (table 1 funcref)
      (func (export "_start")
        (loop $again
          (drop (memory.grow (i32.const 1)))
          (drop (table.grow (ref.null func) (i32.const 1)))
          (br $again))))
    "#;
    let limits = GuestLimits {
        fuel: 3_000_000,
        ..GuestLimits::default()
    };
    let bytes = wat::parse_str(wat).unwrap();
    let (outcome, _) = run(&GuestEngine::default(), &bytes, limits);
    let plain = GuestEngine::without_grow_calls(limits.call_depth);
    let (expected, _) = run(&plain, &bytes, limits);
    assert_eq!(outcome.exit_code, crate::EXIT_LIMIT);
    assert_eq!(outcome.error, expected.error);
    // wasmi requires a block's fuel, its growths' 255 included, when the block is
    // entered; a growth's host call requires its own when it runs, so the run may
    // stop a few instructions of one block later (never past the budget).
    assert!(outcome.fuel_used <= limits.fuel);
    assert!(
        outcome.fuel_used.abs_diff(expected.fuel_used) < 255,
        "{} vs {}",
        outcome.fuel_used,
        expected.fuel_used
    );
}

#[test]
fn a_growth_of_more_than_a_call_s_fuel_works() {
    // 2,000 pages: wasmi charges 2,048,000 fuel for the bytes, more than one wasmi
    // call is given (`run::CALL_FUEL_MAX`); the call gets what the block needs.
    let wat = r#"
    (module
      (memory (export "memory") 1)
      (func (export "_start")
        (if (i32.ne (memory.grow (i32.const 2000)) (i32.const 1))
          (then unreachable))
        (if (i32.ne (memory.size) (i32.const 2001))
          (then unreachable))))
    "#;
    let bytes = wat::parse_str(wat).unwrap();
    let limits = GuestLimits::default();
    for engine in [
        GuestEngine::default(),
        GuestEngine::without_grow_calls(limits.call_depth),
    ] {
        let (outcome, io) = run(&engine, &bytes, limits);
        assert_eq!(
            outcome.exit_code,
            0,
            "{}",
            String::from_utf8_lossy(&io.stderr)
        );
    }
}

#[test]
fn a_guest_may_not_import_the_internal_module() {
    let wat = r#"
    (module
      (import "sandtab:internal" "memory.grow:0" (func (param i32) (result i32)))
      (memory 1)
      (func (export "_start")))
    "#;
    let bytes = wat::parse_str(wat).unwrap();
    for engine in [
        GuestEngine::default(),
        GuestEngine::without_grow_calls(GuestLimits::default().call_depth),
    ] {
        let err = engine.compile(&bytes, None).unwrap_err();
        assert_eq!(err.exit_status(), 126);
        assert!(err.to_string().contains("sandtab:internal"), "{err}");
    }
}

#[test]
fn an_invalid_module_is_refused_for_what_it_is() {
    // `call_indirect` of type 1, which the module lacks: the rewrite's own types
    // come first, so no index the module uses reaches one of them.
    use wasm_encoder::{
        CodeSection, ExportKind, ExportSection, Function, FunctionSection, Instruction,
        MemorySection, MemoryType, Module, TableSection, TableType, TypeSection,
    };
    let mut module = Module::new();
    let mut types = TypeSection::new();
    types.ty().function([], []);
    module.section(&types);
    let mut functions = FunctionSection::new();
    functions.function(0);
    module.section(&functions);
    let mut tables = TableSection::new();
    tables.table(TableType {
        element_type: wasm_encoder::RefType::FUNCREF,
        table64: false,
        minimum: 1,
        maximum: None,
        shared: false,
    });
    module.section(&tables);
    let mut memories = MemorySection::new();
    memories.memory(MemoryType {
        minimum: 1,
        maximum: None,
        memory64: false,
        shared: false,
        page_size_log2: None,
    });
    module.section(&memories);
    let mut exports = ExportSection::new();
    exports.export("_start", ExportKind::Func, 0);
    module.section(&exports);
    let mut code = CodeSection::new();
    let mut body = Function::new([]);
    body.instruction(&Instruction::I32Const(1))
        .instruction(&Instruction::MemoryGrow(0))
        .instruction(&Instruction::Drop)
        .instruction(&Instruction::I32Const(0))
        .instruction(&Instruction::CallIndirect {
            type_index: 1,
            table_index: 0,
        })
        .instruction(&Instruction::End);
    code.function(&body);
    module.section(&code);
    let bytes = module.finish();
    let err = GuestEngine::default().compile(&bytes, None).unwrap_err();
    assert!(matches!(err, crate::GuestError::Malformed(_)), "{err:?}");
}
