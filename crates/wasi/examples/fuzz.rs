//! The guest engine's fuzzer (`./dev fuzz [SECONDS]`): wasm-smith's valid modules,
//! byte-mutated ones and mutations of the hostile corpus, each compiled and run under
//! small limits. A finding is a panic, a run past its deadline plus a margin, or host
//! heap past the memory limit plus a fixed overhead; it is saved with its seed.
//!
//! The parent process runs children (`--child`), each trying seeds from where the last
//! one stopped; a child that dies (an abort, the allocator's hard cap) leaves its
//! current case behind, and the parent files it as a finding.
//!
//!     cargo run -p sandtab-wasi --example fuzz -- [--seconds N] [--out DIR] [--seed S]
//!     cargo run -p sandtab-wasi --example fuzz -- --replay FILE.wasm | --case SEED

use cap::Cap;
use sandtab_vfs::{ManualClock, Quota, SandboxFs, Timestamp, VfsPath};
use sandtab_wasi::{
    BoxFuture, ClockMode, GuestEngine, GuestIo, GuestLimits, GuestRun, NativeHost, OutStream,
    RandomMode, RunOutcome,
};
use std::alloc::System;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Counts the heap; the hard cap turns a runaway allocation into an abort (a finding)
/// rather than the machine's OOM killer.
#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, 4 << 30);

const LIMITS: GuestLimits = GuestLimits {
    fuel: 50_000_000,
    memory_bytes: 32 << 20,
    table_elements: 10_000,
    instances: 16,
    call_depth: 10_000,
    deadline_ms: 1_000,
    output_bytes: 1 << 20,
};
/// Compiling and running may take this much longer than the deadline.
const MARGIN_MS: u64 = 2_000;
/// Heap a case may hold beyond twice its memory limit (a memory's `Vec` may have twice
/// its length in capacity): the engine, the module, wasm-smith's own buffers.
const OVERHEAD: usize = 64 << 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|arg| arg == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let out = PathBuf::from(flag("--out").unwrap_or_else(|| "target/fuzz".into()));
    let seed: u64 = flag("--seed").map_or(1, |s| s.parse().expect("--seed N"));
    if let Some(file) = flag("--replay") {
        let bytes = std::fs::read(&file).expect("the module to replay");
        let (outcome, stderr) = run_case(&bytes);
        println!("{outcome:?}\n{stderr}");
        return;
    }
    if let Some(seed) = flag("--case") {
        let (kind, bytes) = case(seed.parse().expect("--case SEED"), &hostile_corpus());
        let (outcome, stderr) = run_case(&bytes);
        println!("{kind} ({} bytes): {outcome:?}\n{stderr}", bytes.len());
        return;
    }
    if args.iter().any(|arg| arg == "--child") {
        child(&out, seed);
        return;
    }
    let seconds: u64 = flag("--seconds").map_or(600, |s| s.parse().expect("--seconds N"));
    parent(&out, seed, seconds);
}

// ---- the parent: children, the clock, the summary ------------------------------------

#[allow(clippy::disallowed_methods)] // native only: the fuzzer's own clock
fn parent(out: &Path, mut seed: u64, seconds: u64) {
    std::fs::create_dir_all(out.join("findings")).expect("the output directory");
    let started = std::time::Instant::now();
    let budget = Duration::from_secs(seconds);
    let exe = std::env::current_exe().expect("the fuzzer's path");
    let mut tried = 0u64;
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    let mut findings = 0u64;
    while started.elapsed() < budget {
        let left = budget
            .saturating_sub(started.elapsed())
            .as_secs()
            .clamp(1, 30);
        let child = std::process::Command::new(&exe)
            .args(["--child", "--out"])
            .arg(out)
            .args(["--seed", &seed.to_string()])
            .env("FUZZ_CHILD_SECONDS", left.to_string())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("a child");
        let output = child.wait_with_output().expect("the child's end");
        // The child prints `seed N status S` per case and `finding ...` lines.
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["seed", n, "status", status] => {
                    tried += 1;
                    seed = n.parse::<u64>().unwrap_or(seed) + 1;
                    *statuses.entry((*status).to_owned()).or_default() += 1;
                }
                ["finding", ..] => {
                    findings += 1;
                    println!("{line}");
                }
                _ => {}
            }
        }
        if !output.status.success() {
            // The child died on its current case: file it, then go on after it.
            let current = std::fs::read_to_string(out.join("current.txt")).unwrap_or_default();
            let dead: u64 = current
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(seed);
            let name = format!("{dead}-died");
            let _ = std::fs::copy(
                out.join("current.wasm"),
                out.join("findings").join(format!("{name}.wasm")),
            );
            let _ = std::fs::write(
                out.join("findings").join(format!("{name}.txt")),
                format!("{current}\nthe child ended with {}\n", output.status),
            );
            findings += 1;
            println!("finding {name}: the child ended with {}", output.status);
            seed = dead + 1;
        }
        let rate = tried as f64 / started.elapsed().as_secs_f64().max(0.001);
        println!(
            "fuzz: {tried} modules in {:.0} s ({rate:.1}/s), {findings} findings",
            started.elapsed().as_secs_f64()
        );
    }
    println!("fuzz: exit statuses {statuses:?}");
    println!(
        "fuzz: {tried} modules, {findings} findings (in {})",
        out.join("findings").display()
    );
}

// ---- the child: cases, the watchdog, the checks --------------------------------------

/// When the current case started (ms since the child started), 0 between cases.
static CASE_STARTED_MS: AtomicU64 = AtomicU64::new(0);

#[allow(clippy::disallowed_methods)] // native only: the watchdog's thread and clock
fn child(out: &Path, first: u64) {
    let started = std::time::Instant::now();
    let seconds: u64 = std::env::var("FUZZ_CHILD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let now_ms = move || started.elapsed().as_millis() as u64 + 1;
    {
        let out = out.to_owned();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(50));
                let case = CASE_STARTED_MS.load(Ordering::SeqCst);
                if case != 0 && now_ms().saturating_sub(case) > LIMITS.deadline_ms + MARGIN_MS {
                    let current =
                        std::fs::read_to_string(out.join("current.txt")).unwrap_or_default();
                    let _ = std::fs::write(out.join("current.txt"), format!("{current} hang"));
                    // The parent files the case.
                    std::process::exit(4);
                }
            }
        });
    }
    let corpus = hostile_corpus();
    let mut seed = first;
    let mut stdout = std::io::stdout().lock();
    while started.elapsed() < Duration::from_secs(seconds) {
        let (kind, bytes) = case(seed, &corpus);
        let _ = std::fs::write(out.join("current.wasm"), &bytes);
        let _ = std::fs::write(out.join("current.txt"), format!("seed {seed} {kind}"));
        let baseline = ALLOCATOR.allocated();
        let peak_before = ALLOCATOR.max_allocated();
        CASE_STARTED_MS.store(now_ms(), Ordering::SeqCst);
        let result = std::panic::catch_unwind(|| run_case(&bytes));
        CASE_STARTED_MS.store(0, Ordering::SeqCst);
        let status = match &result {
            Ok((outcome, _)) => outcome.exit_code.to_string(),
            Err(_) => "panic".to_owned(),
        };
        let _ = writeln!(stdout, "seed {seed} status {status}");
        let mut found = Vec::new();
        if let Err(panic) = &result {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            found.push(format!("panic: {message}"));
        }
        // The peak is never reset: a case is over only if it raised the peak past
        // its own start plus the bound. After such a case the child starts afresh.
        let peak = ALLOCATOR.max_allocated();
        let bound = 2 * LIMITS.memory_bytes as usize + OVERHEAD;
        let over = peak > peak_before && peak.saturating_sub(baseline) > bound;
        if over {
            found.push(format!(
                "the host heap reached {} MiB (bound {} MiB)",
                peak.saturating_sub(baseline) >> 20,
                bound >> 20
            ));
        }
        if !found.is_empty() {
            let name = format!("{seed}-{kind}");
            let dir = out.join("findings");
            let _ = std::fs::write(dir.join(format!("{name}.wasm")), &bytes);
            let detail = match &result {
                Ok((outcome, stderr)) => format!("{outcome:?}\n{stderr}"),
                Err(_) => String::new(),
            };
            let _ = std::fs::write(
                dir.join(format!("{name}.txt")),
                format!("seed {seed} {kind}\n{}\n{detail}", found.join("\n")),
            );
            let _ = writeln!(stdout, "finding {name}: {}", found.join("; "));
            if over {
                let _ = stdout.flush();
                return;
            }
        }
        seed += 1;
    }
}

/// Compiles and runs `bytes` under the fuzzer's limits; the outcome and the stderr.
fn run_case(bytes: &[u8]) -> (RunOutcome, String) {
    let engine = GuestEngine::new(LIMITS.call_depth);
    let module = match engine.compile(bytes, None) {
        Ok(module) => module,
        Err(error) => {
            let stderr = error.to_string();
            let outcome = RunOutcome {
                exit_code: error.exit_status(),
                error: Some(error),
                fuel_used: 0,
            };
            return (outcome, stderr);
        }
    };
    let fs = Arc::new(
        SandboxFs::in_memory(
            Arc::new(ManualClock::new(Timestamp(1_700_000_000_000_000_000))),
            Quota::UNLIMITED,
            Vec::new(),
        )
        .expect("a memory sandbox"),
    );
    let cwd = VfsPath::root();
    let run = GuestRun {
        args: vec!["fuzz".into()],
        env: Vec::new(),
        preopens: GuestRun::default_preopens(&fs, &cwd),
        fs,
        limits: LIMITS,
        clock: ClockMode::Virtual {
            start_ns: 1_700_000_000_000_000_000,
        },
        random: RandomMode::Seeded(7),
        platform: Arc::new(NativeHost::default()),
        observed: None,
        stdin_terminal: false,
    };
    let mut io = Io::default();
    let outcome = futures::executor::block_on(sandtab_wasi::run(&engine, &module, run, &mut io));
    (outcome, String::from_utf8_lossy(&io.stderr).into_owned())
}

/// Standard streams for a fuzz case: no input, stderr kept, stdout counted.
#[derive(Default)]
struct Io {
    stdout: usize,
    stderr: Vec<u8>,
}

impl GuestIo for Io {
    fn read_stdin(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(async { Ok(None) })
    }
    fn write(&mut self, stream: OutStream, bytes: Vec<u8>) -> BoxFuture<'_, Result<(), String>> {
        match stream {
            OutStream::Stdout => self.stdout += bytes.len(),
            OutStream::Stderr => self.stderr.extend(bytes.into_iter().take(4096)),
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
    fn host_call(&mut self, name: String, _args: String) -> BoxFuture<'_, Result<String, String>> {
        Box::pin(async move { Err(format!("tool {name} is not granted")) })
    }
}

// ---- the cases ---------------------------------------------------------------------

/// A small deterministic generator (splitmix64), so a seed names its case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The corpus files, for mutation.
fn hostile_corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guests/hostile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "wasm"))
        .filter_map(|path| std::fs::read(path).ok())
        .collect()
}

/// The case for `seed`: its kind and bytes.
fn case(seed: u64, corpus: &[Vec<u8>]) -> (&'static str, Vec<u8>) {
    let mut rng = Rng(seed);
    match seed % 4 {
        0 | 1 => ("valid", smith(&mut rng)),
        2 => {
            let mut bytes = smith(&mut rng);
            mutate(&mut rng, &mut bytes);
            ("mutated", bytes)
        }
        _ => {
            let mut bytes = corpus
                .get(rng.below(corpus.len()))
                .cloned()
                .unwrap_or_else(|| smith(&mut rng));
            mutate(&mut rng, &mut bytes);
            ("hostile", bytes)
        }
    }
}

/// The WASI functions a generated module may import and call.
const IMPORTS: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))
  (import "wasi_snapshot_preview1" "random_get" (func (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sched_yield" (func (result i32))))"#;

/// A valid module from wasm-smith: a command (`_start`), up to 4 memories and tables,
/// the WASI imports above, without the proposals wasmi is built without.
fn smith(rng: &mut Rng) -> Vec<u8> {
    let len = 4096 + rng.below(16384);
    let data = rng.bytes(len);
    let mut u = arbitrary::Unstructured::new(&data);
    let mut config = wasm_smith::Config {
        available_imports: Some(wat::parse_str(IMPORTS).expect("the imports")),
        exports: Some(wat::parse_str(r#"(module (func (export "_start")))"#).expect("the exports")),
        max_memories: 4,
        max_tables: 4,
        max_funcs: 20,
        max_instructions: 400,
        simd_enabled: false,
        relaxed_simd_enabled: false,
        gc_enabled: false,
        exceptions_enabled: false,
        memory64_enabled: false,
        threads_enabled: false,
        wide_arithmetic_enabled: false,
        custom_page_sizes_enabled: false,
        compact_imports_enabled: false,
        ..wasm_smith::Config::default()
    };
    config.canonicalize_nans = false;
    match wasm_smith::Module::new(config, &mut u) {
        Ok(module) => module.to_bytes(),
        // Too little data for the configuration: an empty command.
        Err(_) => wat::parse_str(r#"(module (func (export "_start")))"#).expect("a command"),
    }
}

/// Byte mutations, including lengths and counts made huge.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        if bytes.is_empty() {
            bytes.push(0);
        }
        let at = rng.below(bytes.len());
        let byte = rng.next() as u8;
        match rng.below(6) {
            0 => bytes[at] = byte,
            1 => bytes[at] ^= 1 << (byte % 8),
            2 => {
                bytes.remove(at);
            }
            3 => bytes.insert(at, byte),
            // A LEB128 made huge in place (0xFFFFFFFF or near).
            4 => {
                let huge = [0xff, 0xff, 0xff, 0xff, 0x0f];
                let end = (at + huge.len()).min(bytes.len());
                bytes.splice(at..end, huge);
            }
            _ => bytes.truncate(at.max(8)),
        }
    }
}
