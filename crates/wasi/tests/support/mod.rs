//! A host for guests in native tests: stdin from bytes, output collected, real time.

#![allow(dead_code, clippy::unwrap_used)]

use sandtab_vfs::{Quota, SandboxFs, VfsPath};
use sandtab_wasi::{
    BoxFuture, ClockMode, GuestEngine, GuestIo, GuestLimits, GuestRun, OutStream, RandomMode,
    RunOutcome,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Standard streams in memory. stdin comes in `chunk`-sized pieces, as from a pipe.
#[derive(Default)]
pub struct TestIo {
    pub stdin: Vec<u8>,
    pub chunk: usize,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub yields: usize,
    pub writes: usize,
    pub slept_ns: u64,
    pub cancel: Arc<AtomicBool>,
    pub cancel_after_yields: Option<usize>,
    pub calls: Arc<Mutex<Vec<(String, String)>>>,
}

impl GuestIo for TestIo {
    fn read_stdin(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(async move {
            if self.stdin.is_empty() {
                return Ok(None);
            }
            let take = if self.chunk == 0 {
                self.stdin.len()
            } else {
                self.chunk.min(self.stdin.len())
            };
            Ok(Some(self.stdin.drain(..take).collect()))
        })
    }
    fn write(&mut self, stream: OutStream, bytes: Vec<u8>) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            self.writes += 1;
            match stream {
                OutStream::Stdout => self.stdout.extend(bytes),
                OutStream::Stderr => self.stderr.extend(bytes),
            }
            Ok(())
        })
    }
    fn yield_now(&mut self) -> BoxFuture<'_, ()> {
        self.yields += 1;
        if Some(self.yields) == self.cancel_after_yields {
            self.cancel.store(true, Ordering::SeqCst);
        }
        Box::pin(async {})
    }
    fn sleep(&mut self, nanos: u64) -> BoxFuture<'_, ()> {
        self.slept_ns += nanos;
        Box::pin(async move { std::thread::sleep(std::time::Duration::from_nanos(nanos)) })
    }
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }
    fn host_call(&mut self, name: String, args: String) -> BoxFuture<'_, Result<String, String>> {
        self.calls
            .lock()
            .unwrap()
            .push((name.clone(), args.clone()));
        Box::pin(async move {
            match name.as_str() {
                "echo" => Ok(format!("{{\"echo\":{args}}}")),
                _ => Err(format!("tool {name} is not granted")),
            }
        })
    }
    fn device(&mut self, name: String, request: Vec<u8>) -> BoxFuture<'_, Result<Vec<u8>, String>> {
        self.calls.lock().unwrap().push((
            format!("device {name}"),
            String::from_utf8_lossy(&request).into(),
        ));
        Box::pin(async move {
            match name.as_str() {
                "upper" => Ok(request.to_ascii_uppercase()),
                _ => Err(format!("no device {name}")),
            }
        })
    }
}

pub fn memory_fs() -> Arc<SandboxFs> {
    Arc::new(
        SandboxFs::in_memory(
            Arc::new(sandtab_shell_free_clock()),
            Quota::UNLIMITED,
            Vec::new(),
        )
        .expect("memory sandbox"),
    )
}

fn sandtab_shell_free_clock() -> sandtab_vfs::ManualClock {
    sandtab_vfs::ManualClock::new(sandtab_vfs::Timestamp(1_700_000_000_000_000_000))
}

pub fn wasm(wat: &str) -> Vec<u8> {
    wat::parse_str(wat).expect("valid wat")
}

pub struct Run {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub limits: GuestLimits,
    pub fs: Arc<SandboxFs>,
    pub clock: ClockMode,
    pub random: RandomMode,
}

impl Run {
    pub fn new(args: &[&str]) -> Self {
        Self {
            args: args.iter().map(|a| a.to_string()).collect(),
            env: vec![("GREETING".into(), "hello".into())],
            limits: GuestLimits::default(),
            fs: memory_fs(),
            clock: ClockMode::Real,
            random: RandomMode::Real,
        }
    }

    pub fn run(self, bytes: &[u8], io: &mut TestIo) -> RunOutcome {
        let engine = GuestEngine::new(self.limits.call_depth);
        let module = match engine.compile(bytes, None) {
            Ok(module) => module,
            Err(err) => {
                return RunOutcome {
                    exit_code: err.exit_status(),
                    error: Some(err),
                    fuel_used: 0,
                };
            }
        };
        let cwd = VfsPath::root();
        let run = GuestRun {
            args: self.args,
            env: self.env,
            preopens: GuestRun::default_preopens(&self.fs, &cwd),
            fs: self.fs,
            limits: self.limits,
            clock: self.clock,
            random: self.random,
            platform: Arc::new(sandtab_wasi::NativeHost::default()),
            observed: None,
            stdin_terminal: false,
        };
        futures::executor::block_on(sandtab_wasi::run(&engine, &module, run, io))
    }
}

/// A guest built by `./dev setup` (target/guests/...).
pub fn built_guest(relative: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/guests")
        .join(relative);
    std::fs::read(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err}. The test guests are built by `./dev setup`.",
            path.display()
        )
    })
}
