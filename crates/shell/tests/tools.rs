//! Tool calls from the shell and from guests go through the capability gate: the `tool`
//! command, each granted tool by its own name, and a guest's `sandtab.tool_call`.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_caps::{BoxFuture, Capabilities, Denial, DoorRequest, Doors, HttpResponse, UiAction};
use sandtab_shell::{EXIT_LIMIT, Gate, GuestEngine, Shell, ShellLimits, WallClock};
use sandtab_vfs::{Quota, SandboxFs};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Handlers {
    calls: Mutex<Vec<(String, Value)>>,
    ui: Mutex<Vec<UiAction>>,
}

impl Doors for Handlers {
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        let args: Value = serde_json::from_str(args).unwrap();
        self.calls.lock().unwrap().push((name.into(), args.clone()));
        let answer = match name {
            "fails" => Err("upstream is down".to_owned()),
            "say" => Ok(json!(format!("line one\n{}", args["text"].as_str().unwrap())).to_string()),
            _ => Ok(json!({"tool": name, "args": args}).to_string()),
        };
        Box::pin(async move { answer })
    }
    fn fetch(&self, _: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        unreachable!("no requests in these tests")
    }
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn ui(&self, action: UiAction) -> BoxFuture<'static, Result<Option<String>, Denial>> {
        let answer = match &action {
            UiAction::Wait { timeout_ms: 0 } => None,
            UiAction::Wait { .. } => Some(r#"{"type":"click","id":"ok"}"#.to_owned()),
            _ => None,
        };
        self.ui.lock().unwrap().push(action);
        Box::pin(async move { Ok(answer) })
    }
}

fn shell() -> (Shell, Arc<Handlers>, Arc<Gate>) {
    shell_with(json!({"ui": true}))
}

fn shell_with(extra: Value) -> (Shell, Arc<Handlers>, Arc<Gate>) {
    let mut doc = json!({"tools": [
        {"name": "weather", "description": "The forecast for a city.\nMore text.",
         "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "Which city"},
            "days": {"type": "integer"}, "metric": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}}},
          "required": ["city"]},
         "constraints": {"arg": "city", "in": ["Oslo", "Paris", "123"]}, "max_calls": 5},
        {"name": "fails"},
        {"name": "say"},
        {"name": "ls", "description": "shadowed by the command"},
    ]});
    for (key, value) in extra.as_object().unwrap() {
        doc[key] = value.clone();
    }
    let handlers = Arc::new(Handlers::default());
    let gate = Arc::new(Gate::new(
        Capabilities::from_value(&doc).unwrap(),
        handlers.clone(),
    ));
    let fs =
        Arc::new(SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, Vec::new()).unwrap());
    let limits = ShellLimits::default();
    let engine = GuestEngine::new(limits.guest.call_depth);
    let host = Arc::new(sandtab_wasi::NativeHost::default());
    let shell = Shell::with_gate(fs, limits, engine, host, gate.clone()).unwrap();
    (shell, handlers, gate)
}

#[tokio::test]
async fn tool_calls_with_named_arguments_typed_by_the_schema() {
    let (mut shell, handlers, _) = shell();
    let out = shell
        .exec("tool weather --city Oslo --days 3 --metric=true --tags a --tags b")
        .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    assert_eq!(
        out.stdout_text(),
        "{\"args\":{\"city\":\"Oslo\",\"days\":3,\"metric\":true,\"tags\":[\"a\",\"b\"]},\"tool\":\"weather\"}\n"
    );
    // A string argument stays a string even when it looks like a number.
    let out = shell.exec("weather --city 123 | jq -r .args.city").await;
    assert_eq!(out.stdout_text(), "123\n", "{}", out.stderr_text());
    let out = shell.exec(r#"tool weather --json '{"city": "Paris"}'; echo '{"city":"Oslo"}' | tool weather --json -"#).await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    assert_eq!(out.stdout_text().lines().count(), 2);
    let calls = handlers.calls.lock().unwrap();
    assert_eq!(calls.len(), 4);
    assert_eq!(calls[3].1, json!({"city": "Oslo"}));
}

#[tokio::test]
async fn refusals_exit_126_with_their_code_and_reach_no_handler() {
    let (mut shell, handlers, gate) = shell();
    for (script, expected) in [
        (
            "tool mail --to x",
            "tool: mail: CAP_DENIED: the tool `mail` is not granted\n",
        ),
        (
            "tool weather --city Rome",
            "tool: weather: CAP_CONSTRAINT: `weather`: `city` must be one of [\"Oslo\",\"Paris\",\"123\"]\n",
        ),
        (
            "weather --days 2",
            "weather: CAP_BAD_ARGS: `weather`: the arguments do not match its schema: missing properties 'city'\n",
        ),
        (
            "tool weather --json '{bad'",
            "tool: weather: CAP_BAD_ARGS: `weather`: the arguments are not JSON (key must be a string at line 1 column 2)\n",
        ),
    ] {
        let out = shell.exec(script).await;
        assert_eq!(out.exit_code, EXIT_LIMIT, "{script}");
        assert_eq!(out.stderr_text(), expected, "{script}");
    }
    assert!(handlers.calls.lock().unwrap().is_empty());
    let denials = gate
        .audit()
        .to_jsonl()
        .matches("\"kind\":\"denial\"")
        .count();
    assert_eq!(denials, 4);
}

#[tokio::test]
async fn max_calls_and_handler_failures() {
    let (mut shell, _, _) = shell();
    let out = shell
        .exec(
            "for i in 1 2 3 4 5 6; do weather --city Oslo >/dev/null || echo \"call $i: $?\"; done",
        )
        .await;
    assert_eq!(out.stdout_text(), "call 6: 126\n");
    assert!(
        out.stderr_text().contains("CAP_MAX_CALLS"),
        "{}",
        out.stderr_text()
    );
    let out = shell.exec("fails; echo $?").await;
    assert_eq!(out.stdout_text(), "1\n");
    assert_eq!(
        out.stderr_text(),
        "fails: CAP_TOOL_FAILED: `fails` failed: upstream is down\n"
    );
}

#[tokio::test]
async fn usage_listing_and_help() {
    let (mut shell, _, _) = shell();
    let out = shell.exec("tool").await;
    assert_eq!(
        out.stdout_text(),
        "weather  The forecast for a city.\nfails    \nsay      \nls       shadowed by the command\n"
    );
    let out = shell.exec("weather --help").await;
    assert!(out.stdout_text().starts_with("weather: The forecast for a city.\nMore text.\nArguments:\n  --city <string> (required)  Which city\n"), "{}", out.stdout_text());
    let out = shell.exec("tool weather city=Oslo; echo $?").await;
    assert_eq!(out.stdout_text(), "2\n");
    assert!(
        out.stderr_text()
            .starts_with("tool: weather: unexpected argument 'city=Oslo'")
    );
    let out = shell.exec("tool weather --days x; echo $?").await;
    assert_eq!(
        out.stderr_text(),
        "tool: weather: --days must be an integer JSON value, got 'x'\nTry 'tool: weather --help' for its arguments.\n"
    );
    // A tool named like a command does not shadow it; `tool ls` reaches it.
    let out = shell.exec("mkdir d; ls -d d; tool ls").await;
    assert_eq!(
        out.stdout_text(),
        "d\n{\"args\":{},\"tool\":\"ls\"}\n",
        "{}",
        out.stderr_text()
    );
}

/// A guest that calls `weather` with `{"city":"Rome"}` and prints the answer and errno.
const GUEST: &str = r#"(module
  (import "sandtab" "tool_call" (func $call (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "weather")
  (data (i32.const 200) "{\"city\":\"Rome\"}")
  (func (export "_start") (local $errno i32)
    (local.set $errno (call $call (i32.const 100) (i32.const 7) (i32.const 200) (i32.const 15)
                                  (i32.const 1000) (i32.const 500) (i32.const 16)))
    (i32.store (i32.const 0) (i32.const 1000))
    (i32.store (i32.const 4) (i32.load (i32.const 16)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (local.get $errno))))"#;

#[tokio::test]
async fn a_guest_is_held_to_the_same_constraints() {
    let (mut shell, handlers, gate) = shell();
    let module = wat::parse_str(GUEST).unwrap();
    shell
        .fs()
        .mem()
        .write(
            &sandtab_vfs::VfsPath::parse("/home/agent/g.wasm").unwrap(),
            &module,
        )
        .unwrap();
    let out = shell.exec("./g.wasm; echo \" errno=$?\"").await;
    assert_eq!(
        out.stdout_text(),
        "CAP_CONSTRAINT: `weather`: `city` must be one of [\"Oslo\",\"Paris\",\"123\"] errno=63\n",
        "{}",
        out.stderr_text()
    );
    assert!(handlers.calls.lock().unwrap().is_empty());
    assert!(gate.audit().to_jsonl().contains("\"via\":\"guest\""));
}

#[tokio::test]
async fn ui_shows_a_file_and_waits_for_an_event_when_granted() {
    let (mut shell, handlers, gate) = shell();
    let out = shell.exec("echo '<button id=ok>OK</button>' > page.html; ui show page.html --title Ask --wait; ui wait --timeout 0; echo $?; ui close").await;
    assert_eq!(
        out.stdout_text(),
        "{\"type\":\"click\",\"id\":\"ok\"}\n124\n",
        "{}",
        out.stderr_text()
    );
    assert_eq!(out.stderr_text(), "ui: no event before the timeout\n");
    let actions = handlers.ui.lock().unwrap().clone();
    assert_eq!(
        actions[0],
        UiAction::Show {
            html: "<button id=ok>OK</button>\n".into(),
            title: "Ask".into()
        }
    );
    assert_eq!(
        actions[1],
        UiAction::Wait {
            timeout_ms: 300_000
        }
    );
    assert_eq!(actions[3], UiAction::Close);
    assert!(gate.audit().to_jsonl().contains("\"kind\":\"ui\""));
    let out = shell
        .exec("ui show missing.html; echo $?; ui bogus; echo $?")
        .await;
    assert_eq!(out.stdout_text(), "1\n2\n");
    let (mut denied, handlers, _) = shell_with(json!({}));
    let out = denied
        .exec("echo x > p.html; ui show p.html; echo $?")
        .await;
    assert_eq!(out.stdout_text(), "126\n");
    assert_eq!(
        out.stderr_text(),
        "ui: CAP_DENIED: the ui door is not granted (the capability document's `ui`)\n"
    );
    assert!(handlers.ui.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_text_answer_is_printed_as_text_and_others_as_json() {
    let (mut shell, _, _) = shell();
    let out = shell
        .exec("say --json '{\"text\": \"two\"}'; tool weather --city Paris")
        .await;
    assert_eq!(
        out.stdout_text(),
        "line one\ntwo\n{\"args\":{\"city\":\"Paris\"},\"tool\":\"weather\"}\n"
    );
}
