//! Guest programs as shell commands. A `.wasm` file runs by path (`./prog.wasm`,
//! `/usr/bin/prog`) or from `PATH`, and installed programs (`python3`, `qjs`) by name,
//! with streaming stdin/stdout/stderr, so they work in pipelines.
//!
//! bashkit would read a file given by path as a script. Its live command registry is
//! consulted first, by exact name, so before each exec the shell registers the names
//! in the script that denote guest modules (see [`Guests::prepare`]).

use crate::program_source::ProgramSource;
use crate::program_stubs::InstalledNames;
use crate::python_support;
use crate::stdin_feed::{StdinRead, StdinSource};
use bashkit::{
    BuiltinRegistry, Command, CommandContext, CommandInput, CommandOutput, CommandStatus,
};
use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use sandtab_wasi::{
    BoxFuture, ClockMode, CompiledModule, GuestEngine, GuestHost, GuestIo, GuestLimits, GuestRun,
    OutStream, RandomMode,
};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The first bytes of every WebAssembly module.
const WASM_MAGIC: &[u8; 4] = b"\0asm";

/// A program installed by name: its module (perhaps still on its way), compiled on
/// first use.
struct Program {
    source: Arc<ProgramSource>,
    sha256: Option<String>,
    compiled: Mutex<Option<CompiledModule>>,
}

/// Everything guest commands share within one shell session.
pub(crate) struct Guests {
    engine: GuestEngine,
    host: Arc<dyn GuestHost>,
    gate: Arc<sandtab_caps::Gate>,
    fs: Arc<SandboxFs>,
    limits: Mutex<GuestLimits>,
    cancel: Arc<AtomicBool>,
    programs: Mutex<HashMap<String, Arc<Program>>>,
    registry: BuiltinRegistry,
    /// Names registered for the current exec because they denote `.wasm` files.
    by_path: Mutex<BTreeSet<String>>,
    /// What guests observe of time and randomness when it is not the host's (a tape).
    observed: Mutex<Option<Arc<dyn sandtab_wasi::Platform>>>,
    /// Guest runs started so far: an exec that moved it ran one.
    runs: std::sync::atomic::AtomicU64,
    /// The installed programs' names, as the shell's filesystem shows them on `PATH`.
    installed: InstalledNames,
    /// The terminal the current exec runs in, if any (see [`Guests::set_terminal`]).
    terminal: Mutex<Option<Arc<dyn StdinSource>>>,
}

impl std::fmt::Debug for Guests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guests").finish_non_exhaustive()
    }
}

impl Guests {
    /// Guest runs started so far.
    pub(crate) fn runs(&self) -> u64 {
        self.runs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Guests observe `platform`'s time and randomness from now on.
    pub(crate) fn observe(&self, platform: Arc<dyn sandtab_wasi::Platform>) {
        *self.observed.lock().unwrap_or_else(|e| e.into_inner()) = Some(platform);
    }

    /// The host, as the platform guests would observe without a tape.
    pub(crate) fn host(&self) -> Arc<dyn sandtab_wasi::Platform> {
        self.host.clone()
    }

    fn observed(&self) -> Option<Arc<dyn sandtab_wasi::Platform>> {
        self.observed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    // Each argument is a separate handle the session shares with the guests.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        engine: GuestEngine,
        host: Arc<dyn GuestHost>,
        gate: Arc<sandtab_caps::Gate>,
        fs: Arc<SandboxFs>,
        limits: GuestLimits,
        cancel: Arc<AtomicBool>,
        registry: BuiltinRegistry,
        installed: InstalledNames,
    ) -> Arc<Self> {
        Arc::new(Self {
            engine,
            host,
            gate,
            fs,
            limits: Mutex::new(limits),
            cancel,
            programs: Mutex::default(),
            registry,
            by_path: Mutex::default(),
            observed: Mutex::default(),
            runs: std::sync::atomic::AtomicU64::new(0),
            installed,
            terminal: Mutex::default(),
        })
    }

    /// The exec that runs next is in a terminal reading `input` (`None`: it is not).
    /// A guest whose stdin is the exec's own (empty) stdin reads the terminal instead,
    /// and sees it as one (`isatty(0)`).
    pub(crate) fn set_terminal(&self, input: Option<Arc<dyn StdinSource>>) {
        *lock(&self.terminal) = input;
    }

    pub(crate) fn limits(&self) -> GuestLimits {
        *lock(&self.limits)
    }

    pub(crate) fn set_limits(&self, limits: GuestLimits) {
        *lock(&self.limits) = limits;
    }

    /// Installs a program under `names` (for example `python3` and `python`).
    pub(crate) fn install(
        self: &Arc<Self>,
        names: &[&str],
        source: Arc<ProgramSource>,
        sha256: Option<String>,
    ) {
        let program = Arc::new(Program {
            source,
            sha256,
            compiled: Mutex::default(),
        });
        for name in names {
            lock(&self.programs).insert((*name).to_owned(), program.clone());
            self.installed.add(name);
            // An installed program is never removed as a stale path name.
            lock(&self.by_path).remove(*name);
            self.registry.insert_command(
                *name,
                GuestCommand {
                    guests: self.clone(),
                    target: Target::Installed(program.clone()),
                },
            );
        }
    }

    /// Compiles an installed program now (so its first run does not pay for it), if
    /// its module is here.
    pub(crate) fn precompile(&self, name: &str) -> Result<(), sandtab_wasi::GuestError> {
        let program = lock(&self.programs).get(name).cloned();
        match program.and_then(|program| Some((program.source.module()?, program))) {
            Some((bytes, program)) => self.compiled(&program, &bytes).map(|_| ()),
            None => Ok(()),
        }
    }

    fn compiled(
        &self,
        program: &Program,
        bytes: &[u8],
    ) -> Result<CompiledModule, sandtab_wasi::GuestError> {
        let mut slot = lock(&program.compiled);
        if let Some(module) = &*slot {
            return Ok(module.clone());
        }
        let module = self.engine.compile(bytes, program.sha256.as_deref())?;
        *slot = Some(module.clone());
        Ok(module)
    }

    /// Registers the words of `script` that name guest modules: words ending in
    /// `.wasm`, and paths or `PATH` names of executable files that begin with the
    /// WebAssembly magic. Names registered for an earlier exec that no longer apply
    /// are removed.
    pub(crate) async fn prepare(self: &Arc<Self>, script: &str, cwd: &str, path_var: &str) {
        let cwd = VfsPath::parse(cwd).unwrap_or_else(|_| VfsPath::root());
        let mut names = BTreeSet::new();
        // `/usr/bin/python3` and the like: the installed program (see `program_stubs`).
        let mut stubs: HashMap<String, Arc<Program>> = HashMap::new();
        // The `PATH` directories that exist, looked up once for all the words (often
        // none does in a sandbox).
        let mut path_dirs: Option<Vec<&str>> = None;
        for word in candidate_words(script) {
            if lock(&self.programs).contains_key(word) {
                continue;
            }
            if word.contains('/') {
                if let Some(program) = self.stub_program(&cwd, word) {
                    stubs.insert(word.to_owned(), program);
                } else if word.ends_with(".wasm") || self.is_guest_file(&cwd, word).await {
                    names.insert(word.to_owned());
                }
            } else if word.ends_with(".wasm")
                || self.registry.lookup(word).is_none()
                || lock(&self.by_path).contains(word)
            {
                let dirs = path_dirs.get_or_insert_with(|| self.existing_dirs(&cwd, path_var));
                for dir in dirs.iter() {
                    if self.is_guest_file(&cwd, &format!("{dir}/{word}")).await {
                        names.insert(word.to_owned());
                        break;
                    }
                }
            }
        }
        let mut registered = lock(&self.by_path);
        for stale in registered.difference(&names) {
            if !stubs.contains_key(stale) {
                self.registry.remove(stale);
            }
        }
        for name in names.difference(&registered) {
            self.registry.insert_command(
                name.clone(),
                GuestCommand {
                    guests: self.clone(),
                    target: Target::File,
                },
            );
        }
        for (path, program) in stubs {
            self.registry.insert_command(
                path.clone(),
                GuestCommand {
                    guests: self.clone(),
                    target: Target::Installed(program),
                },
            );
            names.insert(path);
        }
        *registered = names;
    }

    /// The installed program a path word runs when it is `/usr/bin/NAME` or `/bin/NAME`
    /// of one and no real file is there.
    fn stub_program(&self, cwd: &VfsPath, word: &str) -> Option<Arc<Program>> {
        let path = cwd.join(word).ok()?;
        let name = self
            .installed
            .program_at(std::path::Path::new(&path.to_string()))?;
        if self.fs.mem().exists(&path) {
            return None;
        }
        lock(&self.programs).get(&name).cloned()
    }

    /// The absolute directories of `path_var` that exist (as directories, through
    /// symlinks), in order.
    fn existing_dirs<'p>(&self, cwd: &VfsPath, path_var: &'p str) -> Vec<&'p str> {
        let mem = self.fs.mem();
        path_var
            .split(':')
            .filter(|dir| dir.starts_with('/'))
            .filter(|dir| {
                cwd.join(dir)
                    .ok()
                    .and_then(|path| mem.stat(&path).ok())
                    .is_some_and(|meta| meta.kind == FileKind::Directory)
            })
            .collect()
    }

    /// Whether `word` (relative to `cwd`) is an executable file holding a wasm module.
    async fn is_guest_file(&self, cwd: &VfsPath, word: &str) -> bool {
        let Ok(path) = cwd.join(word) else {
            return false;
        };
        let mem = self.fs.mem();
        match mem.stat(&path) {
            Ok(meta) if meta.kind == FileKind::File && meta.mode & 0o111 != 0 && meta.size >= 8 => {
            }
            _ => return false,
        }
        if self.fs.load_for_read(&path).await.is_err() {
            return false;
        }
        mem.read_at(&path, 0, 4)
            .is_ok_and(|head| head == WASM_MAGIC)
    }

    /// The module a command named `name` runs, and the program path it was found at.
    async fn module_for_file(
        &self,
        name: &str,
        cwd: &VfsPath,
        path_var: &str,
    ) -> Result<(CompiledModule, Arc<Vec<u8>>), (i32, String)> {
        let candidates: Vec<VfsPath> = if name.contains('/') {
            cwd.join(name).into_iter().collect()
        } else {
            path_var
                .split(':')
                .filter(|dir| dir.starts_with('/'))
                .filter_map(|dir| VfsPath::parse(&format!("{dir}/{name}")).ok())
                .collect()
        };
        let mem = self.fs.mem();
        let Some(path) = candidates.into_iter().find(|path| mem.stat(path).is_ok()) else {
            return Err((127, format!("{name}: No such file or directory\n")));
        };
        let meta = mem
            .stat(&path)
            .map_err(|err| (127, format!("{name}: {}\n", err.kind().description())))?;
        if meta.kind == FileKind::Directory {
            return Err((126, format!("{name}: Is a directory\n")));
        }
        if meta.mode & 0o111 == 0 && !name.ends_with(".wasm") {
            return Err((126, format!("{name}: Permission denied\n")));
        }
        self.fs
            .load_for_read(&path)
            .await
            .map_err(|err| (126, format!("{name}: {err}\n")))?;
        let bytes = mem
            .read(&path)
            .map_err(|err| (126, format!("{name}: {err}\n")))?;
        let module = self
            .engine
            .compile(&bytes, None)
            .map_err(|err| (err.exit_status(), format!("{name}: {err}\n")))?;
        Ok((module, Arc::new(bytes)))
    }
}

/// Lets the futures polled beside this one run once (here: the pipes' pumps).
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await;
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Words of a script that could be command names: split on blanks and operators,
/// quotes dropped. Over-inclusive on purpose: a word that is not a command costs a
/// `stat`, and a registered name that is never run does nothing.
fn candidate_words(script: &str) -> impl Iterator<Item = &str> {
    script
        .split(|c: char| {
            c.is_whitespace()
                || matches!(c, ';' | '|' | '&' | '(' | ')' | '<' | '>' | '`' | '{' | '}')
        })
        .map(|word| word.trim_matches(|c| c == '"' || c == '\''))
        .filter(|word| {
            !word.is_empty()
                && !word.starts_with('-')
                && !word.contains('$')
                && !word.contains('=')
                && !word.contains('*')
                && word.len() < 512
        })
}

/// What a guest command runs.
enum Target {
    /// An installed program.
    Installed(Arc<Program>),
    /// The `.wasm` file its name denotes.
    File,
}

struct GuestCommand {
    guests: Arc<Guests>,
    target: Target,
}

#[bashkit::async_trait]
impl Command for GuestCommand {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let guests = &self.guests;
        let cwd = ctx
            .cwd
            .to_str()
            .and_then(|cwd| VfsPath::parse(cwd).ok())
            .unwrap_or_else(VfsPath::root);
        let path_var = ctx.env.get("PATH").cloned().unwrap_or_default();
        // `python3 -m pip ...` is sandtab's pip (CPython has none).
        if matches!(self.target, Target::Installed(_))
            && python_support::is_python(ctx.name)
            && ctx.args.first().map(String::as_str) == Some("-m")
            && ctx.args.get(1).map(String::as_str) == Some("pip")
        {
            let args = ctx.args[2..].to_vec();
            let pip = sandtab_commands::Pip::new(&guests.fs, &guests.gate);
            let streams = crate::commands::Streams::new(&ctx);
            let status = Box::pin(pip.run(&streams.context(&ctx), &args)).await;
            return status
                .map(|status| CommandStatus::with_code(status.exit_code))
                .map_err(crate::commands::into_bashkit);
        }
        let module = match &self.target {
            Target::Installed(program) => match guests.module_of(program).await {
                Ok(bytes) => guests
                    .compiled(program, &bytes)
                    .map(|module| (module, bytes))
                    .map_err(|err| (err.exit_status(), format!("{}: {err}\n", ctx.name))),
                Err(Unavailable::Cancelled) => return Ok(CommandStatus::with_code(130)),
                Err(Unavailable::Failed(reason)) => Err((
                    126,
                    format!("{}: the program could not be loaded: {reason}\n", ctx.name),
                )),
            },
            Target::File => guests.module_for_file(ctx.name, &cwd, &path_var).await,
        };
        let (module, source) = match module {
            Ok(module) => module,
            Err((code, message)) => {
                ctx.stderr
                    .write_all(format!("bash: {message}").as_bytes())
                    .await?;
                return Ok(CommandStatus::with_code(code));
            }
        };
        let mut args = vec![ctx.name.to_owned()];
        args.extend(ctx.args.iter().cloned());
        // In a terminal, a guest whose stdin ends at once (the exec's own, empty) reads
        // the terminal; otherwise its first chunk is kept for it.
        let terminal = lock(&guests.terminal).clone();
        let (stdin, first) = match terminal {
            Some(source) => match ctx.stdin.read_chunk().await? {
                None => (GuestStdin::Terminal(source), None),
                Some(chunk) => (GuestStdin::Command(ctx.stdin.clone()), Some(chunk)),
            },
            None => (GuestStdin::Command(ctx.stdin.clone()), None),
        };
        let stdin_terminal = matches!(stdin, GuestStdin::Terminal(_));
        let mut env: Vec<(String, String)> = ctx
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if matches!(self.target, Target::Installed(_)) && python_support::is_python(ctx.name) {
            let given = env.iter().position(|(key, _)| key == "PYTHONPATH");
            let value = python_support::python_path(given.map(|at| env[at].1.as_str()));
            match given {
                Some(at) => env[at].1 = value,
                None => env.push(("PYTHONPATH".into(), value)),
            }
        }
        env.sort();
        let run = GuestRun {
            args,
            env,
            preopens: GuestRun::default_preopens(&guests.fs, &cwd),
            fs: guests.fs.clone(),
            limits: guests.limits(),
            clock: ClockMode::Real,
            random: RandomMode::Real,
            platform: guests.host.clone(),
            observed: guests.observed(),
            stdin_terminal,
        };
        let mut io = CommandIo {
            stdin,
            first,
            last_written: None,
            stdout: ctx.stdout.clone(),
            stderr: ctx.stderr.clone(),
            host: guests.host.clone(),
            gate: guests.gate.clone(),
            cancel: guests.cancel.clone(),
            interrupts: false,
            interrupted: false,
        };
        guests
            .runs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let outcome = match guests.host.engine_tier() {
            Some(tier) => tier.run(&source, &module, run, &mut io).await,
            None => sandtab_wasi::run(&guests.engine, &module, run, &mut io).await,
        };
        Ok(CommandStatus::with_code(outcome.exit_code))
    }
}

/// Why an installed program's module is not there to run.
enum Unavailable {
    /// The command was cancelled while it waited.
    Cancelled,
    /// It will not come: why.
    Failed(String),
}

impl Guests {
    /// An installed program's module, waiting for it if it is still on its way (the
    /// page downloads it in the background); a cancel ends the wait.
    async fn module_of(&self, program: &Program) -> Result<Arc<Vec<u8>>, Unavailable> {
        if let Some(module) = program.source.module() {
            return Ok(module);
        }
        let mut wait = std::pin::pin!(program.source.wait());
        loop {
            if self.cancel.load(Ordering::SeqCst) {
                return Err(Unavailable::Cancelled);
            }
            // Looked at again every 50 ms, as a sleeping guest is, for a cancel.
            let mut tick = self.host.sleep(50_000_000);
            let came = std::future::poll_fn(|cx| {
                if let std::task::Poll::Ready(outcome) = wait.as_mut().poll(cx) {
                    return std::task::Poll::Ready(Some(outcome));
                }
                tick.as_mut().poll(cx).map(|()| None)
            })
            .await;
            if let Some(outcome) = came {
                return outcome.map_err(Unavailable::Failed);
            }
        }
    }
}

/// The device a guest opens to take Ctrl-C as an interrupt (see `CommandIo::device`).
const INTERRUPTS_DEVICE: &str = "interrupts";

/// Where a guest's stdin comes from.
enum GuestStdin {
    /// The command's: a pipe, a file, the exec's stdin.
    Command(CommandInput),
    /// The terminal the exec runs in.
    Terminal(Arc<dyn StdinSource>),
}

/// A guest's standard streams are the command's: pipes, files or the terminal.
struct CommandIo {
    stdin: GuestStdin,
    /// A chunk read ahead of the guest (to tell a terminal's stdin from the command's).
    first: Option<Vec<u8>>,
    /// The stream written last, in a terminal (see `write`).
    last_written: Option<OutStream>,
    stdout: CommandOutput,
    stderr: CommandOutput,
    host: Arc<dyn GuestHost>,
    gate: Arc<sandtab_caps::Gate>,
    cancel: Arc<AtomicBool>,
    /// The guest asked for interrupts (`/dev/sandtab/interrupts`): Ctrl-C while it
    /// waits for the terminal fails that read with ECANCELED instead of stopping it.
    interrupts: bool,
    /// The last read of the terminal ended with an interrupt.
    interrupted: bool,
}

impl GuestIo for CommandIo {
    fn read_stdin(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(async move {
            if let Some(chunk) = self.first.take() {
                return Ok(Some(chunk));
            }
            match &self.stdin {
                GuestStdin::Command(input) => {
                    input.read_chunk().await.map_err(|err| err.to_string())
                }
                GuestStdin::Terminal(source) if self.interrupts => {
                    match source.read_interruptible().await? {
                        StdinRead::Chunk(chunk) => Ok(Some(chunk)),
                        StdinRead::End => Ok(None),
                        StdinRead::Interrupt => {
                            self.interrupted = true;
                            Ok(None)
                        }
                    }
                }
                GuestStdin::Terminal(source) => source.read_chunk().await,
            }
        })
    }

    fn take_interrupt(&mut self) -> bool {
        std::mem::take(&mut self.interrupted)
    }

    fn write(&mut self, stream: OutStream, bytes: Vec<u8>) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            // stdout and stderr reach the page through two pipes drained in turn, so two
            // writes in one go may arrive swapped. A terminal shows them as one stream
            // (Python's output, then its next prompt): when a program reading the
            // terminal switches streams, the other pipe is drained first.
            if matches!(self.stdin, GuestStdin::Terminal(_)) {
                if self.last_written.is_some_and(|last| last != stream) {
                    // bashkit polls the shell and the two pumps in a rotating order:
                    // staying pending for one whole round lets both pumps run.
                    yield_once().await;
                    yield_once().await;
                }
                self.last_written = Some(stream);
            }
            let out = match stream {
                OutStream::Stdout => &self.stdout,
                OutStream::Stderr => &self.stderr,
            };
            out.write_all(&bytes).await.map_err(|err| err.to_string())
        })
    }

    fn yield_now(&mut self) -> BoxFuture<'_, ()> {
        self.host.yield_now()
    }

    fn sleep(&mut self, nanos: u64) -> BoxFuture<'_, ()> {
        // Sleep in steps, so a cancel is seen within 50 ms.
        let host = self.host.clone();
        let cancel = self.cancel.clone();
        Box::pin(async move {
            let mut left = nanos;
            while left > 0 && !cancel.load(Ordering::SeqCst) {
                let step = left.min(50_000_000);
                host.sleep(step).await;
                left -= step;
            }
        })
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    /// A guest's tool call goes through the same check as the shell's and the page's;
    /// a denial reaches the guest as `CODE: message`.
    fn host_call(&mut self, name: String, args: String) -> BoxFuture<'_, Result<String, String>> {
        let call = self.gate.call_tool(&name, &args, sandtab_caps::Via::Guest);
        Box::pin(async move { call.await.map_err(|denial| denial.to_string()) })
    }

    /// `/dev/sandtab/http`: an HTTP request through the gate (see `http_device`).
    /// `/dev/sandtab/interrupts`: the guest takes Ctrl-C in the terminal as a failed
    /// read (ECANCELED) of its stdin; answers `on` if its stdin is the terminal, `off`
    /// if not (nothing then interrupts it).
    fn device(&mut self, name: String, request: Vec<u8>) -> BoxFuture<'_, Result<Vec<u8>, String>> {
        let gate = self.gate.clone();
        Box::pin(async move {
            match name.as_str() {
                crate::http_device::NAME => Ok(crate::http_device::exchange(&gate, &request).await),
                INTERRUPTS_DEVICE => {
                    self.interrupts = matches!(self.stdin, GuestStdin::Terminal(_));
                    Ok(if self.interrupts {
                        b"on\n".to_vec()
                    } else {
                        b"off\n".to_vec()
                    })
                }
                _ => Err(format!("no device /dev/sandtab/{name}")),
            }
        })
    }
}
