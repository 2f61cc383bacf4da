//! The WASI conformance guest (tests/guests/wasi-conform) against what wasmtime printed for
//! it: every `wasi_snapshot_preview1` function, its error paths, rights, preopens, trailing
//! slashes, symlinks and odd path spellings. The expected files are recorded from wasmtime
//! by `check.py record`, never written by hand; sandtab must print the same stdout and
//! stderr, end with the same status and leave the same tree.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use sandtab_wasi::{ClockMode, GuestEngine, GuestLimits, GuestRun, RandomMode};
use std::sync::Arc;
use support::{TestIo, built_guest, memory_fs};

fn conform(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/guests/wasi-conform")
        .join(relative)
}

fn expected(label: &str, stream: &str) -> String {
    std::fs::read_to_string(conform(&format!("expected/{label}.{stream}"))).unwrap_or_default()
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
            if let Some(w) = w {
                out.push(format!("  - {w}"));
            }
            if let Some(g) = g {
                out.push(format!("  + {g}"));
            }
        }
    }
    out.join("\n")
}

struct Outcome {
    stdout: String,
    stderr: String,
    status: String,
    tree: String,
}

fn run_case(
    engine: &GuestEngine,
    module: &sandtab_wasi::CompiledModule,
    case: &serde_json::Value,
) -> Outcome {
    let fs: Arc<SandboxFs> = memory_fs();
    let sandbox = VfsPath::parse("/sandbox").unwrap();
    fs.mem().create_dir(&sandbox).unwrap();
    let run = GuestRun {
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
        preopens: vec![("/sandbox".to_owned(), sandbox.clone())],
        fs: fs.clone(),
        limits: GuestLimits::default(),
        clock: ClockMode::Real,
        random: RandomMode::Real,
        platform: Arc::new(sandtab_wasi::NativeHost::default()),
        observed: None,
    };
    let mut io = TestIo::default();
    let outcome = futures::executor::block_on(sandtab_wasi::run(engine, module, run, &mut io));
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

#[test]
fn every_preview1_function_answers_as_wasmtime_does() {
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(conform("cases.json")).expect("cases.json")).unwrap();
    let engine = GuestEngine::new(GuestLimits::default().call_depth);
    let module = engine
        .compile(&built_guest("rust/wasi_conform.wasm"), None)
        .expect("the conformance guest compiles");
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases["cases"].as_array().unwrap() {
        let label = case["label"].as_str().unwrap();
        let got = run_case(&engine, &module, case);
        count += 1;
        let mut problems = Vec::new();
        for (stream, got) in [
            ("stdout", &got.stdout),
            ("status", &got.status),
            ("tree", &got.tree),
        ] {
            let want = expected(label, stream);
            if *got != want {
                problems.push(format!("{stream}:\n{}", line_diff(&want, got)));
            }
        }
        // A trap's message is the host's own; what the guest wrote before it must match.
        let want_stderr = expected(label, "stderr");
        let stderr_ok = if got.status == "trap\n" {
            got.stderr.starts_with(&want_stderr)
        } else {
            got.stderr == want_stderr
        };
        if !stderr_ok {
            problems.push(format!("stderr:\n{}", line_diff(&want_stderr, &got.stderr)));
        }
        if !problems.is_empty() {
            failures.push(format!("== {label}\n{}", problems.join("\n")));
        }
    }
    assert!(count >= 40, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ from wasmtime (- wasmtime, + sandtab):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
