//! The WASI conformance guest's cases (tests/guests/wasi-conform) and how sandtab's run of
//! one compares with what wasmtime printed for it. Shared by the native test
//! (crates/wasi/tests/wasi_conformance.rs) and the browser one (crates/web/tests/
//! conformance.rs), so both hold sandtab to the same recording.

#![allow(dead_code, clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use sandtab_wasi::{
    BoxFuture, ClockMode, CompiledModule, GuestEngine, GuestIo, GuestLimits, GuestRun, OutStream,
    Platform, RandomMode,
};
use std::sync::Arc;

pub const CASES: &str = include_str!("../../../../tests/guests/wasi-conform/cases.json");
pub const EXPECTED: &str = include_str!("../../../../tests/guests/wasi-conform/expected.json");
pub const DIFFERENCES: &str =
    include_str!("../../../../tests/guests/wasi-conform/differences.json");

/// One run: the arguments and environment the guest gets.
pub struct Case {
    pub label: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

pub fn cases() -> Vec<Case> {
    let cases: serde_json::Value = serde_json::from_str(CASES).unwrap();
    cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| Case {
            label: case["label"].as_str().unwrap().to_owned(),
            args: case["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect(),
            env: case["env"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                .collect(),
        })
        .collect()
}

/// What a run printed and left behind, in check.py's terms.
#[derive(Default)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub status: String,
    pub tree: String,
}

/// Standard streams in memory: stdin is an empty pipe, as in check.py's runs. A sleep
/// returns at once (the guest's `poll_oneoff` then finds the time not yet come and asks
/// again), so the same code serves a thread and a browser worker.
#[derive(Default)]
struct CaptureIo {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl GuestIo for CaptureIo {
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

/// Runs `case` on a fresh sandbox whose `/sandbox` is the only preopen (fd 3).
pub async fn run_case(
    engine: &GuestEngine,
    module: &CompiledModule,
    fs: Arc<SandboxFs>,
    platform: Arc<dyn Platform>,
    case: &Case,
) -> Outcome {
    run_case_on(engine, module, fs, platform, case, None).await
}

/// [`run_case`] on an engine tier (`tier`, with the module's bytes) instead of wasmi.
pub async fn run_case_on(
    engine: &GuestEngine,
    module: &CompiledModule,
    fs: Arc<SandboxFs>,
    platform: Arc<dyn Platform>,
    case: &Case,
    tier: Option<(&dyn sandtab_wasi::foreign::EngineTier, &[u8])>,
) -> Outcome {
    let sandbox = VfsPath::parse("/sandbox").unwrap();
    fs.mem().create_dir(&sandbox).unwrap();
    let run = GuestRun {
        args: case.args.clone(),
        env: case.env.clone(),
        preopens: vec![("/sandbox".to_owned(), sandbox.clone())],
        fs: fs.clone(),
        limits: GuestLimits::default(),
        clock: ClockMode::Real,
        random: RandomMode::Real,
        platform,
        observed: None,
        stdin_terminal: false,
    };
    let mut io = CaptureIo::default();
    let outcome = match tier {
        Some((tier, source)) => tier.run(source, module, run, &mut io).await,
        None => sandtab_wasi::run(engine, module, run, &mut io).await,
    };
    let status = match outcome.exit_code {
        134 => "trap".to_owned(),
        code => code.to_string(),
    };
    Outcome {
        stdout: String::from_utf8_lossy(&io.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&io.stderr).into_owned(),
        status: format!("{status}\n"),
        tree: tree(&fs, &sandbox),
    }
}

/// What the preopened directory holds, in check.py's format.
fn tree(fs: &SandboxFs, root: &VfsPath) -> String {
    fn walk(fs: &SandboxFs, root: &str, dir: &VfsPath, lines: &mut Vec<String>) {
        for entry in fs.mem().read_dir(dir).unwrap() {
            let path = dir.join(&entry.name).unwrap();
            let rel = path.to_string()[root.len() + 1..].to_owned();
            match entry.metadata.kind {
                FileKind::Directory => {
                    lines.push(format!("d {rel}"));
                    walk(fs, root, &path, lines);
                }
                FileKind::Symlink => {
                    lines.push(format!("l {rel} -> {}", fs.mem().read_link(&path).unwrap()))
                }
                FileKind::File => lines.push(format!("f {rel} {}", entry.metadata.size)),
            }
        }
    }
    let mut lines = Vec::new();
    walk(fs, &root.to_string(), root, &mut lines);
    lines.sort();
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The lines of `got` and `want` that differ, marked `-` (wasmtime) and `+` (sandtab).
fn line_diff(want: &str, got: &str) -> String {
    let want: Vec<&str> = want.lines().collect();
    let got: Vec<&str> = got.lines().collect();
    let mut out = Vec::new();
    for i in 0..want.len().max(got.len()) {
        let (w, g) = (want.get(i), got.get(i));
        if w != g {
            out.extend(w.map(|w| format!("  - {w}")));
            out.extend(g.map(|g| format!("  + {g}")));
        }
    }
    out.join("\n")
}

/// How `got` differs from wasmtime's recording of `label`, or `None` if it does not.
pub fn compare(label: &str, got: &Outcome) -> Option<String> {
    let expected: serde_json::Value = serde_json::from_str(EXPECTED).unwrap();
    let want = &expected["cases"][label];
    assert!(want.is_object(), "{label}: not recorded (check.py record)");
    let differences: serde_json::Value = serde_json::from_str(DIFFERENCES).unwrap();
    let documented = &differences["differences"][label];
    let mut problems = Vec::new();
    // A documented difference: sandtab's own value, which must still differ from wasmtime's.
    let field = |name: &str| match documented[name].as_str() {
        Some(ours) => ours.to_owned(),
        None => want[name].as_str().unwrap().to_owned(),
    };
    for name in ["stdout", "stderr", "status", "tree"] {
        if documented[name].as_str().is_some() && documented[name] == want[name] {
            problems.push(format!(
                "{name}: differences.json documents a difference wasmtime no longer shows"
            ));
        }
    }
    for (stream, got) in [
        ("stdout", &got.stdout),
        ("status", &got.status),
        ("tree", &got.tree),
    ] {
        let want = field(stream);
        if *got != want {
            problems.push(format!("{stream}:\n{}", line_diff(&want, got)));
        }
    }
    // A trap's message is the host's own; what the guest wrote before it must match.
    let want_stderr = field("stderr");
    let stderr_ok = if got.status == "trap\n" {
        got.stderr.starts_with(&want_stderr)
    } else {
        got.stderr == want_stderr
    };
    if !stderr_ok {
        problems.push(format!("stderr:\n{}", line_diff(&want_stderr, &got.stderr)));
    }
    (!problems.is_empty()).then(|| format!("== {label}\n{}", problems.join("\n")))
}

/// Compiles the conformance guest.
pub fn compile(engine: &GuestEngine, bytes: &[u8]) -> CompiledModule {
    engine
        .compile(bytes, None)
        .expect("the conformance guest compiles")
}
