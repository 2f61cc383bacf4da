//! Guest programs in a dedicated worker, where they run in production: by path, in
//! pipelines, under limits, cancelled from outside, and awaiting a host call that a
//! JavaScript promise answers.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{
    code, exec, exec_with, field, js, memory, memory_with_doors, message, outcome_of, sleep,
    write_file,
};
use js_sys::{Function, Object, Reflect};
use sandtab_web::Sandbox;
use serde_json::{Value, json};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

const HELLO: &[u8] = include_bytes!("../../../target/guests/c/hello.wasm");
const UPPER: &[u8] = include_bytes!("../../../target/guests/c/stdin_upper.wasm");
const EXIT_TRAP: &[u8] = include_bytes!("../../../target/guests/c/exit_trap.wasm");

/// `options` with guests on `tier` (`"interpreter"` or `"engine"`).
fn on(tier: &str, mut options: Value) -> Value {
    options["guestTier"] = tier.into();
    options
}

/// Runs each test on both guest tiers: wasmi, and the browser's engine with JSPI.
macro_rules! on_both_tiers {
    ($($test:ident),* $(,)?) => {
        $(
            mod $test {
                use wasm_bindgen_test::*;

                #[wasm_bindgen_test]
                async fn interpreter() {
                    super::$test("interpreter").await;
                }

                #[wasm_bindgen_test]
                async fn engine() {
                    super::$test("engine").await;
                }
            }
        )*
    };
}

on_both_tiers!(
    a_wasm_file_runs_by_path_and_streams_through_a_pipeline,
    a_guest_limit_gives_137_and_a_per_command_override_applies,
    a_cancel_stops_a_running_guest,
    a_host_call_is_answered_by_a_javascript_promise,
    an_installed_program_is_a_command_and_a_wrong_pin_is_refused,
    every_c_guest_case_prints_what_native_linux_prints,
);

async fn with_files(tier: &str, options: Value, files: &[(&str, &[u8])]) -> Sandbox {
    let sandbox = memory(on(tier, options)).await;
    for (path, bytes) in files {
        write_file(&sandbox, path, bytes).await.unwrap();
    }
    sandbox
}

async fn a_wasm_file_runs_by_path_and_streams_through_a_pipeline(tier: &str) {
    let sandbox = with_files(
        tier,
        json!({}),
        &[
            ("/home/agent/hello.wasm", HELLO),
            ("/home/agent/upper.wasm", UPPER),
        ],
    )
    .await;
    let out = exec(&sandbox, "./hello.wasm 5 x; echo status=$?", None).await;
    assert_eq!(
        out.stdout, "argv[0]=./hello.wasm\nargv[1]=5\nargv[2]=x\nGREETING unset\nstatus=5\n",
        "{}",
        out.stderr
    );
    let out = exec(
        &sandbox,
        "seq 1 5000 | ./upper.wasm 2>/dev/null | wc -l",
        None,
    )
    .await;
    assert_eq!(out.stdout.trim(), "5000", "{}", out.stderr);
    // The result says which engine ran the command's guests, and nothing for none.
    let tier_of = |script: &str| {
        let op = json!({"op": "exec", "script": script});
        let sandbox = &sandbox;
        async move {
            let result = common::try_run(sandbox, op).await.unwrap();
            common::field(&result, "guestTier").as_string()
        }
    };
    assert_eq!(tier_of("./hello.wasm").await.as_deref(), Some(tier));
    assert_eq!(tier_of("echo no guest").await, None);
}

async fn a_guest_limit_gives_137_and_a_per_command_override_applies(tier: &str) {
    let sandbox = with_files(
        tier,
        json!({"guestLimits": {"fuel": 20000000}}),
        &[("/home/agent/t.wasm", EXIT_TRAP)],
    )
    .await;
    let out = exec(&sandbox, "./t.wasm loop; echo status=$?", None).await;
    assert_eq!(out.stdout, "status=137\n");
    assert!(out.stderr.contains("[fuel]"), "{}", out.stderr);
    // This exec only: a memory limit the bomb runs into.
    let result = exec_with(
        &sandbox,
        "./t.wasm alloc > /dev/null; echo status=$?",
        json!({"guestLimits": {"memoryBytes": 100000000}}),
    )
    .await
    .unwrap();
    let out = outcome_of(&result);
    assert_eq!(out.stdout, "status=137\n", "{}", out.stderr);
    assert!(out.stderr.contains("[memory_bytes]"), "{}", out.stderr);
    // A bad per-exec limit is refused before anything runs.
    let err = exec_with(&sandbox, "echo no", json!({"guestLimits": {"fuel": 0}}))
        .await
        .unwrap_err();
    assert_eq!(code(&err), "EINVAL", "{}", message(&err));
    assert!(
        message(&err).contains("must be a positive whole number"),
        "{}",
        message(&err)
    );
    let out = exec(&sandbox, "./t.wasm exit 3; echo status=$?", None).await;
    assert_eq!(out.stdout, "exit 3\nstatus=3\n");
}

async fn a_cancel_stops_a_running_guest(tier: &str) {
    let sandbox = with_files(
        tier,
        json!({"guestLimits": {"fuel": 1000000000000u64}}),
        &[("/home/agent/t.wasm", EXIT_TRAP)],
    )
    .await;
    let running = common::answer(sandbox.run(
        js(&json!({"op": "exec", "script": "./t.wasm loop; echo status=$?"})),
        None,
    ));
    let cancel = async {
        sleep(100).await;
        sandbox.cancel();
    };
    let (result, ()) = common::join(running, cancel).await;
    let result = result.unwrap();
    let status = field(&result, "exitCode").as_f64().unwrap() as i32;
    assert_eq!(status, 130);
    // The session works after.
    let out = exec(&sandbox, "./t.wasm exit 0; echo ok", None).await;
    assert_eq!(out.stdout, "exit 0\nok\n");
}

const TOOL_CALL: &str = r#"(module
  (import "sandtab" "tool_call" (func $call (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "weather")
  (data (i32.const 200) "{\"city\":\"Oslo\"}")
  (func (export "_start") (local $errno i32)
    (local.set $errno (call $call (i32.const 100) (i32.const 7) (i32.const 200) (i32.const 15)
                                  (i32.const 1000) (i32.const 500) (i32.const 16)))
    (i32.store (i32.const 0) (i32.const 1000))
    (i32.store (i32.const 4) (i32.load (i32.const 16)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (local.get $errno))))"#;

async fn a_host_call_is_answered_by_a_javascript_promise(tier: &str) {
    // hostCall answers after a real timer, so the guest truly waits on the event loop.
    let host_call = Function::new_with_args(
        "name, args",
        "return new Promise((resolve, reject) => setTimeout(() => name === 'weather' \
           ? resolve(JSON.stringify({ tool: name, args: JSON.parse(args), temp: 3 })) \
           : reject(new Error('no tool ' + name)), 20));",
    );
    let doors = Object::new();
    Reflect::set(&doors, &"hostCall".into(), &host_call).unwrap();
    // The tool must be granted: the handler alone opens nothing.
    let ungranted = memory_with_doors(on(tier, json!({})), doors.clone().into()).await;
    let tool = wat::parse_str(TOOL_CALL).unwrap();
    write_file(&ungranted, "/home/agent/tool.wasm", &tool)
        .await
        .unwrap();
    let out = exec(&ungranted, "./tool.wasm; echo \" status=$?\"", None).await;
    assert!(!out.stdout.contains("temp"), "{}", out.stdout);
    assert!(!out.stdout.ends_with(" status=0\n"), "{}", out.stdout);
    let sandbox = memory_with_doors(
        on(
            tier,
            json!({"capabilities": {"tools": [{"name": "weather"}]}}),
        ),
        doors.into(),
    )
    .await;
    write_file(&sandbox, "/home/agent/tool.wasm", &tool)
        .await
        .unwrap();
    let out = exec(&sandbox, "./tool.wasm; echo \" status=$?\"", None).await;
    assert_eq!(
        out.stdout,
        r#"{"tool":"weather","args":{"city":"Oslo"},"temp":3} status=0"#.to_owned() + "\n",
        "{}",
        out.stderr
    );
}

async fn an_installed_program_is_a_command_and_a_wrong_pin_is_refused(tier: &str) {
    let sandbox = memory(on(tier, json!({}))).await;
    let wrong =
        sandbox.install_program(vec!["hello".into()], HELLO.to_vec(), Some("00".repeat(32)));
    let message = format!("{:?}", wrong.unwrap_err());
    assert!(message.contains("hash mismatch"), "{message}");
    sandbox
        .install_program(vec!["greet".into(), "hi".into()], HELLO.to_vec(), None)
        .unwrap();
    let out = exec(&sandbox, "greet a; hi; echo $?", None).await;
    assert_eq!(
        out.stdout, "argv[0]=greet\nargv[1]=a\nGREETING unset\nargv[0]=hi\nGREETING unset\n0\n",
        "{}",
        out.stderr
    );
    let bad = sandbox.install_program(vec!["x".into()], b"not wasm".to_vec(), None);
    assert!(bad.is_err());
}

/// A shell word for `text`.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Every case of the C test guests (tests/guests/c/expected/cases.json), through the
/// shell in the worker: the same output native Linux prints.
async fn every_c_guest_case_prints_what_native_linux_prints(tier: &str) {
    const CASES: &str = include_str!("../../../tests/guests/c/expected/cases.json");
    let programs: [(&str, &[u8]); 8] = [
        ("hello", HELLO),
        ("stdin_upper", UPPER),
        ("exit_trap", EXIT_TRAP),
        (
            "files",
            include_bytes!("../../../target/guests/c/files.wasm"),
        ),
        (
            "clock_random",
            include_bytes!("../../../target/guests/c/clock_random.wasm"),
        ),
        (
            "poll_stdin",
            include_bytes!("../../../target/guests/c/poll_stdin.wasm"),
        ),
        (
            "sha256",
            include_bytes!("../../../target/guests/c/sha256.wasm"),
        ),
        (
            "cpuloop",
            include_bytes!("../../../target/guests/c/cpuloop.wasm"),
        ),
    ];
    let inputs: [(&str, &str); 2] = [
        (
            "text.txt",
            include_str!("../../../tests/guests/c/inputs/text.txt"),
        ),
        (
            "poll.txt",
            include_str!("../../../tests/guests/c/inputs/poll.txt"),
        ),
    ];
    let sandbox = memory(on(tier, json!({}))).await;
    for (name, bytes) in programs {
        write_file(&sandbox, &format!("/home/agent/{name}.wasm"), bytes)
            .await
            .unwrap();
    }
    for (name, text) in inputs {
        write_file(&sandbox, &format!("/home/agent/{name}"), text.as_bytes())
            .await
            .unwrap();
    }
    // Each program on PATH under its own name (the cases' argv[0]), made executable.
    let install = programs
        .iter()
        .map(|(name, _)| {
            format!("cp {name}.wasm /usr/local/bin/{name} && chmod +x /usr/local/bin/{name}")
        })
        .collect::<Vec<_>>()
        .join(" && ");
    let out = exec(
        &sandbox,
        &format!("mkdir -p /usr/local/bin && {install}"),
        None,
    )
    .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    let cases: serde_json::Value = serde_json::from_str(CASES).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases["cases"].as_array().unwrap() {
        let label = case["label"].as_str().unwrap();
        let program = case["program"].as_str().unwrap();
        let args: Vec<String> = case["args"].as_array().unwrap()[1..]
            .iter()
            .map(|a| quote(&a.as_str().unwrap().replace("{DIR}", "/sandbox")))
            .collect();
        let env: Vec<String> = case["env"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k}={}", quote(v.as_str().unwrap())))
            .collect();
        let stdin = case["stdin"]
            .as_str()
            .map_or("/dev/null".to_owned(), |name| name.to_owned());
        // argv[0] is the name typed: the case's argv[0] is the program's PATH name.
        assert_eq!(case["args"][0].as_str().unwrap(), program);
        let reset = exec(&sandbox, "rm -rf /sandbox; mkdir /sandbox", None).await;
        assert_eq!(reset.exit_code, 0, "{}", reset.stderr);
        let script = format!("{} {program} {} < {stdin}", env.join(" "), args.join(" "));
        let out = exec(&sandbox, &script, None).await;
        let status = match &case["status"] {
            serde_json::Value::String(s) if s == "trap" => 134,
            value => value.as_i64().unwrap() as i32,
        };
        let want = |stream: &str| -> String {
            let file = format!("{label}.{stream}");
            expected_file(&file).unwrap_or_default()
        };
        count += 1;
        let stderr_ok = if status == 134 {
            out.stderr.starts_with(&want("stderr"))
        } else {
            out.stderr == want("stderr")
        };
        if out.exit_code != status || out.stdout != want("stdout") || !stderr_ok {
            failures.push(format!(
                "{label}: status {} (want {status})\nstdout:\n{}\nstderr:\n{}",
                out.exit_code, out.stdout, out.stderr
            ));
        }
    }
    assert!(count >= 15);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An expected-output file of the C guests, compiled in.
fn expected_file(name: &str) -> Option<String> {
    macro_rules! files {
        ($($file:literal),* $(,)?) => {
            match name {
                $($file => Some(include_str!(concat!("../../../tests/guests/c/expected/", $file)).to_owned()),)*
                _ => None,
            }
        };
    }
    files!(
        "clock_random.default.stdout",
        "cpuloop.10.stdout",
        "cpuloop.default.stdout",
        "exit_trap.exit0.stdout",
        "exit_trap.exit42.stdout",
        "exit_trap.trap.stdout",
        "exit_trap.usage.stderr",
        "exit_trap.usage.stdout",
        "files.dir.stdout",
        "hello.args.stderr",
        "hello.args.stdout",
        "hello.default.stderr",
        "hello.default.stdout",
        "hello.word.stderr",
        "hello.word.stdout",
        "poll_stdin.empty.stdout",
        "poll_stdin.text.stdout",
        "sha256.1.stdout",
        "sha256.default.stdout",
        "stdin_upper.empty.stderr",
        "stdin_upper.empty.stdout",
        "stdin_upper.text.stderr",
        "stdin_upper.text.stdout",
    )
}

/// Unbounded recursion: a limit on either tier (wasmi's call depth, the engine's
/// stack), never a crashed worker; the session goes on.
async fn deep_recursion_is_a_limit_and_the_session_goes_on(tier: &str) {
    const DEEP: &str = r#"(module
      (memory (export "memory") 1)
      (func $deep (param i32) (result i32) (call $deep (i32.add (local.get 0) (i32.const 1))))
      (func (export "_start") (drop (call $deep (i32.const 0)))))"#;
    let deep = wat::parse_str(DEEP).unwrap();
    let sandbox = with_files(tier, json!({}), &[("/home/agent/deep.wasm", &deep)]).await;
    let out = exec(&sandbox, "./deep.wasm; echo status=$?", None).await;
    assert_eq!(out.stdout, "status=137\n", "{}", out.stderr);
    assert!(out.stderr.contains("[call_depth]"), "{}", out.stderr);
    let out = exec(&sandbox, "./deep.wasm; echo again=$?", None).await;
    assert_eq!(out.stdout, "again=137\n", "{}", out.stderr);
}

on_both_tiers!(deep_recursion_is_a_limit_and_the_session_goes_on);

/// Where the browser has JSPI (both test browsers do), guests run on its engine unless
/// the sandbox asks for the interpreter; `info` says which.
#[wasm_bindgen_test]
async fn the_engine_tier_is_the_default_where_the_browser_has_jspi() {
    let tier_of = |sandbox: &Sandbox| {
        let info = common::query(sandbox, json!({"op": "info"}), "info");
        field(&info, "guestTier").as_string().unwrap()
    };
    assert_eq!(tier_of(&memory(json!({})).await), "engine");
    assert_eq!(
        tier_of(&memory(on("interpreter", json!({}))).await),
        "interpreter"
    );
    assert_eq!(tier_of(&memory(on("engine", json!({}))).await), "engine");
    let err = common::try_open(&common::in_memory(&json!({"guestTier": "jit"})))
        .await
        .unwrap_err();
    assert_eq!(code(&err), "EINVAL", "{}", message(&err));
}
