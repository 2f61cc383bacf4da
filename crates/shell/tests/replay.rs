//! Record and replay natively: a sandbox whose clock, guests' time and randomness,
//! `$RANDOM` and doors (a tool, a request) are behind a recording tape runs a session;
//! a fresh sandbox given the recorded inputs, with doors that must never be opened,
//! gives the same stdout, stderr and exit statuses, and the same file tree, bit for
//! bit. A replay that is asked something the recording lacks says so, and does not
//! panic.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_caps::{BoxFuture, Capabilities, Denial, DoorRequest, Doors, HttpResponse};
use sandtab_shell::replay::{Inputs, Tape, TapeClock, TapeDoors, TapeMode, tree_digest};
use sandtab_shell::{Gate, GuestEngine, Sessions, ShellLimits, WallClock};
use sandtab_vfs::{Quota, SandboxFs, VfsPath};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The real world while recording: a tool whose answer changes every call, and a server.
#[derive(Default)]
struct World {
    calls: AtomicU64,
}

impl Doors for World {
    fn call_tool(&self, _name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let answer =
            json!({"call": n, "args": serde_json::from_str::<serde_json::Value>(args).unwrap()});
        Box::pin(async move { Ok(answer.to_string()) })
    }
    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            Ok(HttpResponse {
                status: 200,
                status_text: "OK".into(),
                headers: vec![("content-type".into(), "text/plain".into())],
                url: request.url,
                redirected: false,
                body: format!("response {n}\n").into_bytes(),
            })
        })
    }
    fn now_ms(&self) -> f64 {
        #[allow(clippy::disallowed_methods)] // native test: the real clock is the point
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        now.as_secs_f64() * 1000.0
    }
}

/// Doors a replay must never open.
struct Shut;

impl Doors for Shut {
    fn call_tool(&self, name: &str, _: &str) -> BoxFuture<'static, Result<String, String>> {
        panic!("a replay called the real tool {name}")
    }
    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        panic!("a replay sent a real request to {}", request.url)
    }
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// A guest printing the time it sees and 8 random bytes (16 bytes in all).
const GUEST: &str = r#"(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (call $clock (i32.const 0) (i64.const 1) (i32.const 100)))
    (drop (call $random (i32.const 108) (i32.const 8)))
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 16))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#;

const SCRIPTS: [&str; 4] = [
    "mkdir -p work && cd work && date +%s%N > when && echo $RANDOM $RANDOM > dice && touch -d '1 hour ago' old",
    "cd work; ./clock.wasm | od -An -tx1 | tr -d ' \\n' > guest; ls -l --time-style=full-iso | tail -n +2 | md5sum",
    "weather --city Oslo > forecast; curl -s http://127.0.0.1:9/news > news; cat forecast news; date -s now; echo $?",
    "cd work; sleep 0.01; date +%N; echo $RANDOM; cat dice guest | wc -c; uuidgen; uuidgen -t; openssl rand -hex 8; seq 9 | shuf | tr -d '\\n'",
];

struct Sandbox {
    sessions: Sessions,
    fs: Arc<SandboxFs>,
    tape: Arc<Tape>,
    /// The inputs its making consumed (the new tree's times).
    opening: Inputs,
}

fn sandbox(mode: TapeMode, doors: Arc<dyn Doors>, opening: Inputs) -> Sandbox {
    let tape = Arc::new(Tape::new(mode));
    tape.begin(opening);
    let clock = Arc::new(TapeClock::new(tape.clone(), Arc::new(WallClock)));
    let fs = Arc::new(SandboxFs::in_memory(clock, Quota::UNLIMITED, Vec::new()).unwrap());
    let caps = Capabilities::from_value(&json!({
        "tools": [{"name": "weather"}],
        "network": {"allow": [{"origin": "http://127.0.0.1:9"}]},
    }))
    .unwrap();
    let gate = Arc::new(Gate::new(
        caps,
        Arc::new(TapeDoors::new(tape.clone(), doors)),
    ));
    let limits = ShellLimits::default();
    let engine = GuestEngine::new(limits.guest.call_depth);
    let host = Arc::new(sandtab_wasi::NativeHost::default());
    let mut sessions = Sessions::with_gate(fs.clone(), limits, engine, host, gate).unwrap();
    sessions.set_tape(tape.clone());
    let opening = tape.end();
    Sandbox {
        sessions,
        fs,
        tape,
        opening,
    }
}

type Outcome = (String, String, i32);

/// The page puts the guest in, as an operation of its own (its clock reading is kept
/// when recording, given back when replaying).
fn put_guest(sandbox: &Sandbox, module: &[u8], inputs: Inputs) -> Inputs {
    let path = VfsPath::parse("/home/agent/work/clock.wasm").unwrap();
    sandbox.tape.begin(inputs);
    sandbox.fs.mem().write(&path, module).unwrap();
    sandbox.fs.mem().set_mode(&path, 0o755).unwrap();
    sandbox.tape.end()
}

async fn run(sandbox: &mut Sandbox, script: &str, inputs: Inputs) -> (Outcome, Inputs) {
    sandbox.tape.begin(inputs);
    let out = sandbox.sessions.session("main").unwrap().exec(script).await;
    let inputs = sandbox.tape.end();
    (
        (out.stdout_text(), out.stderr_text(), out.exit_code),
        inputs,
    )
}

#[tokio::test]
async fn a_replay_gives_the_same_outputs_and_tree_without_opening_a_door() {
    let mut recording = sandbox(
        TapeMode::Record,
        Arc::new(World::default()),
        Inputs::default(),
    );
    let module = wat::parse_str(GUEST).unwrap();
    let mut recorded = Vec::new();
    let (first, inputs) = run(&mut recording, SCRIPTS[0], Inputs::default()).await;
    recorded.push((SCRIPTS[0], first, inputs));
    let put = put_guest(&recording, &module, Inputs::default());
    for script in &SCRIPTS[1..] {
        let (outcome, inputs) = run(&mut recording, script, Inputs::default()).await;
        recorded.push((script, outcome, inputs));
    }
    let tree = tree_digest(&recording.fs).await.unwrap();
    let outputs: Vec<&Outcome> = recorded.iter().map(|(_, o, _)| o).collect();
    assert!(
        outputs.iter().all(|(_, _, code)| *code == 0),
        "{outputs:#?}"
    );
    assert!(
        outputs[2]
            .0
            .starts_with("{\"args\":{\"city\":\"Oslo\"},\"call\":0}\nresponse 1\n")
    );
    assert_eq!(
        outputs[2].1,
        "date: cannot set date: Operation not permitted\n"
    );
    assert!(recorded[1].2.clock.len() > 2 && !recorded[1].2.random.is_empty());

    // A second recording of the same scripts differs (time has moved, dice rolled)...
    let mut other = sandbox(
        TapeMode::Record,
        Arc::new(World::default()),
        Inputs::default(),
    );
    let (again, _) = run(&mut other, SCRIPTS[0], Inputs::default()).await;
    assert_eq!(again.2, 0);
    assert_ne!(
        other
            .fs
            .mem()
            .read(&VfsPath::parse("/home/agent/work/when").unwrap())
            .unwrap(),
        recording
            .fs
            .mem()
            .read(&VfsPath::parse("/home/agent/work/when").unwrap())
            .unwrap(),
    );

    // ...but a replay gives back exactly the recorded world.
    let mut replay = sandbox(TapeMode::Replay, Arc::new(Shut), recording.opening.clone());
    for (i, (script, outcome, inputs)) in recorded.iter().enumerate() {
        if i == 1 {
            put_guest(&replay, &module, put.clone());
        }
        let (replayed, _) = run(&mut replay, script, inputs.clone()).await;
        assert_eq!(&replayed, outcome, "script {i}: {script}");
    }
    assert_eq!(replay.tape.divergence(), None);
    assert_eq!(tree_digest(&replay.fs).await.unwrap(), tree);
}

#[tokio::test]
async fn a_replay_asked_for_what_was_not_recorded_diverges_clearly() {
    let mut recording = sandbox(
        TapeMode::Record,
        Arc::new(World::default()),
        Inputs::default(),
    );
    let (_, inputs) = run(&mut recording, "weather --city Oslo", Inputs::default()).await;
    let mut replay = sandbox(TapeMode::Replay, Arc::new(Shut), recording.opening.clone());
    let ((stdout, stderr, code), _) = run(
        &mut replay,
        "weather --city Paris; curl -s http://127.0.0.1:9/",
        inputs,
    )
    .await;
    assert_eq!(stdout, "");
    assert_eq!(code, 7, "curl: the request fails: {stderr}");
    assert!(
        stderr.contains(r#"replay: the sandbox asked for a call of the tool `weather` with {"city":"Paris"}, but the recording has a call of the tool `weather` with {"city":"Oslo"} next"#),
        "{stderr}"
    );
    let why = replay.tape.divergence().unwrap();
    assert!(why.contains("`weather`"), "{why}");
    // Garbage where the inputs should be is a divergence, not a panic.
    let broken = Inputs {
        random: "%%%".into(),
        clock: vec![i64::MAX, i64::MAX],
        ..Inputs::default()
    };
    let (outcome, _) = run(&mut replay, "date; echo $RANDOM", broken).await;
    assert_eq!(outcome.2, 0);
}
