//! A fake platform for the runtime's native tests: the system's clocks and randomness
//! (the native guest host), doors that answer every granted tool with a canned JSON
//! answer (counting the calls) and every request with a canned response, and one
//! `MemoryStore` per sandbox name, kept, so that reopening a name sees what was saved.
#![allow(dead_code)] // Each test file uses its own part of this.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::future::LocalBoxFuture;
use sandtab_caps::{BoxFuture, Denial, DoorRequest, Doors, HttpResponse};
use sandtab_runtime::{
    Op, Platform, Reply, RuntimeError, RuntimeResult, Sandbox, SandboxOptions, StorageKind,
};
use sandtab_shell::{GuestHost, Stream, WallClock};
use sandtab_vfs::storage::MemoryStore;
use sandtab_vfs::{Clock, Store};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Doors that answer whatever the gate lets through, and count it.
#[derive(Default)]
pub struct FakeDoors {
    pub tool_calls: Mutex<Vec<(String, String)>>,
    pub fetches: Mutex<Vec<DoorRequest>>,
    /// Each answer differs (a real world changes), so a replay that opened a door
    /// would be seen.
    pub answers: AtomicU64,
}

impl FakeDoors {
    pub fn tool_call_count(&self) -> usize {
        self.tool_calls.lock().unwrap().len()
    }
}

impl Doors for FakeDoors {
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        self.tool_calls
            .lock()
            .unwrap()
            .push((name.to_owned(), args.to_owned()));
        let n = self.answers.fetch_add(1, Ordering::SeqCst);
        let answer = json!({
            "tool": name,
            "answer": n,
            "args": serde_json::from_str::<Value>(args).unwrap_or(Value::Null),
        })
        .to_string();
        Box::pin(async move { Ok(answer) })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let n = self.answers.fetch_add(1, Ordering::SeqCst);
        let url = request.url.clone();
        self.fetches.lock().unwrap().push(request);
        Box::pin(async move {
            Ok(HttpResponse {
                status: 200,
                status_text: "OK".into(),
                headers: vec![("content-type".into(), "text/plain".into())],
                url,
                redirected: false,
                body: format!("canned response {n}\n").into_bytes(),
            })
        })
    }

    fn now_ms(&self) -> f64 {
        #[allow(clippy::disallowed_methods)] // native test: the real clock is fine
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        now.as_secs_f64() * 1000.0
    }
}

/// The test host.
pub struct FakePlatform {
    pub clock: Arc<dyn Clock>,
    pub doors: Arc<FakeDoors>,
    /// The stored sandboxes, by name (the storage kind is only a label here).
    pub stores: RefCell<HashMap<String, Arc<MemoryStore>>>,
    /// How many times each name was opened.
    pub opened: RefCell<HashMap<String, usize>>,
}

impl Default for FakePlatform {
    fn default() -> Self {
        Self {
            clock: Arc::new(WallClock),
            doors: Arc::default(),
            stores: RefCell::default(),
            opened: RefCell::default(),
        }
    }
}

impl FakePlatform {
    pub fn new() -> Rc<Self> {
        Rc::new(Self::default())
    }

    /// The store kept for `name`, if it was ever opened.
    pub fn store(&self, name: &str) -> Option<Arc<MemoryStore>> {
        self.stores.borrow().get(name).cloned()
    }
}

impl Platform for FakePlatform {
    fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    fn guest_host(&self) -> Arc<dyn GuestHost> {
        Arc::new(sandtab_wasi::NativeHost::default())
    }

    fn doors(&self) -> Arc<dyn Doors> {
        self.doors.clone()
    }

    fn open_store<'a>(
        &'a self,
        kind: StorageKind,
        name: &'a str,
    ) -> LocalBoxFuture<'a, RuntimeResult<Arc<dyn Store>>> {
        Box::pin(async move {
            if kind == StorageKind::Opfs {
                return Err(RuntimeError::unsupported("no OPFS in the tests"));
            }
            *self.opened.borrow_mut().entry(name.to_owned()).or_default() += 1;
            let store = self
                .stores
                .borrow_mut()
                .entry(name.to_owned())
                .or_insert_with(|| Arc::new(MemoryStore::new()))
                .clone();
            Ok(store as Arc<dyn Store>)
        })
    }
}

/// Runs `future` to its end. Natively bashkit times each exec with tokio, so the
/// executor is a current-thread tokio runtime with its timer (not `futures`' own).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

/// Options from JSON text (as the page gives them).
pub fn options(json: Value) -> SandboxOptions {
    SandboxOptions::from_json(&json.to_string()).unwrap()
}

/// Opens a sandbox with `options` on `platform`.
pub fn open(options_json: Value, platform: &Rc<FakePlatform>) -> RuntimeResult<Sandbox> {
    let options = SandboxOptions::from_json(&options_json.to_string())?;
    let platform: Rc<dyn Platform> = platform.clone();
    block_on(Sandbox::open(options, platform))
}

/// An op from the JSON the page sends.
pub fn op(json: Value) -> Op {
    serde_json::from_value(json).unwrap()
}

/// Runs `op`, discarding streamed output.
pub fn run(sandbox: &Sandbox, op: Op) -> RuntimeResult<Reply> {
    block_on(sandbox.run(op, &mut |_: Stream, _: &[u8]| {}))
}

/// Runs a JSON op.
pub fn run_json(sandbox: &Sandbox, json: Value) -> RuntimeResult<Reply> {
    run(sandbox, op(json))
}

/// What an exec gave: stdout, stderr, exit status.
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
    pub result: sandtab_runtime::ExecResult,
}

/// Runs `script` in the default session.
pub fn exec(sandbox: &Sandbox, script: &str) -> Ran {
    exec_op(sandbox, json!({"op": "exec", "script": script})).unwrap()
}

/// Runs an exec op given as JSON.
pub fn exec_op(sandbox: &Sandbox, json: Value) -> RuntimeResult<Ran> {
    match run_json(sandbox, json)? {
        Reply::Exec(result) => Ok(Ran {
            stdout: String::from_utf8_lossy(&result.stdout.0).into_owned(),
            stderr: String::from_utf8_lossy(&result.stderr.0).into_owned(),
            code: result.exit_code,
            result,
        }),
        other => panic!("an exec answered {other:?}"),
    }
}

/// The text of a `Reply::Text`.
pub fn text(reply: RuntimeResult<Reply>) -> String {
    match reply.unwrap() {
        Reply::Text { text } => text,
        other => panic!("expected text, got {other:?}"),
    }
}

/// The error of a failed op.
pub fn error(reply: RuntimeResult<Reply>) -> RuntimeError {
    match reply {
        Err(err) => err,
        Ok(reply) => panic!("expected an error, got {reply:?}"),
    }
}

/// The audit log as JSON values.
pub fn audit(sandbox: &Sandbox) -> Vec<Value> {
    text(sandbox.query(&Op::AuditLog))
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}
