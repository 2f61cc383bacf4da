//! sandtab's agent shell.
//!
//! A [`Shell`] is one shell session over a sandbox's filesystem: `cd`, variables and
//! functions persist from one [`Shell::exec`] to the next, as in a terminal. The engine is
//! the `bashkit` crate; every bashkit type stays inside this crate so that it could be
//! replaced without touching callers.
//!
//! Platform-free: it runs natively (tests, a CLI) and in the browser's worker.

mod commands;
mod completion;
mod entropy;
mod error;
mod exec_overrides;
pub mod file_tools;
mod fs_adapter;
mod guests;
mod http_device;
mod limits;
mod program_source;
mod program_stubs;
pub mod python_support;
pub mod replay;
mod sessions;
mod stdin_feed;

pub use completion::{Completion, is_complete};
pub use error::ShellError;
pub use exec_overrides::Overridden;
pub use fs_adapter::WallClock;
pub use limits::ShellLimits;
pub use program_source::ProgramSource;
pub use sandtab_caps::{Capabilities, Gate};
pub use sandtab_wasi::{BoxFuture, GuestEngine, GuestHost, GuestLimits};
pub use sessions::{DEFAULT_SESSION, MAX_SESSIONS, Sessions};
pub use stdin_feed::{StdinRead, StdinSource};

use bashkit::{Bash, PosixFs};
use sandtab_vfs::{SandboxFs, VfsPath};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Home and starting directory of the agent.
pub const HOME: &str = "/home/agent";

/// Exit status of a command that hit a limit (bash's "cannot execute").
pub const EXIT_LIMIT: i32 = 126;
/// Exit status of a script that does not parse (bash's "misuse of shell builtins").
pub const EXIT_SYNTAX: i32 = 2;
/// Exit status of a cancelled command (128 + SIGINT, as after Ctrl-C in bash).
pub const EXIT_CANCELLED: i32 = 130;

/// Which output stream a chunk belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// What one `exec` produced. Output is bytes: a command may write anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecOutcome {
    /// Everything written to stdout, up to the output limit.
    pub stdout: Vec<u8>,
    /// Everything written to stderr, up to the output limit, plus the shell's own
    /// message when a limit, a syntax error or a cancellation ended the exec.
    pub stderr: Vec<u8>,
    /// The exit status, as bash would report it in `$?`.
    pub exit_code: i32,
    /// Whether stdout went over the output limit and was cut.
    pub stdout_truncated: bool,
    /// Whether stderr went over the output limit and was cut.
    pub stderr_truncated: bool,
    /// Bytes the exec wrote to stdout in all, kept or not.
    pub stdout_total: u64,
    /// Bytes the exec wrote to stderr in all, kept or not.
    pub stderr_total: u64,
    /// Why the exec's file changes could not be saved to storage, if they could not.
    /// They stay in memory and are saved by the next exec that succeeds in saving.
    pub save_error: Option<sandtab_vfs::VfsError>,
    /// Whether a guest program (a WebAssembly module) ran in the exec.
    pub ran_guest: bool,
}

impl ExecOutcome {
    /// stdout as text (invalid UTF-8 replaced), ending with the truncation note when it
    /// was cut.
    pub fn stdout_text(&self) -> String {
        self.text(Stream::Stdout)
    }

    /// stderr as text (invalid UTF-8 replaced), ending with the truncation note when it
    /// was cut.
    pub fn stderr_text(&self) -> String {
        self.text(Stream::Stderr)
    }

    /// What to tell a reader of `stream` that was cut at the output limit: how much of it
    /// is shown. `None` when nothing was cut.
    pub fn truncation_note(&self, stream: Stream) -> Option<String> {
        let (kept, total, truncated, name) = match stream {
            Stream::Stdout => (
                self.stdout.len(),
                self.stdout_total,
                self.stdout_truncated,
                "stdout",
            ),
            Stream::Stderr => (
                self.stderr.len(),
                self.stderr_total,
                self.stderr_truncated,
                "stderr",
            ),
        };
        truncated.then(|| {
            format!("\n[sandtab: {name} truncated: the first {kept} of {total} bytes are shown]\n")
        })
    }

    fn text(&self, stream: Stream) -> String {
        let bytes = match stream {
            Stream::Stdout => &self.stdout,
            Stream::Stderr => &self.stderr,
        };
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        if let Some(note) = self.truncation_note(stream) {
            text.push_str(&note);
        }
        text
    }
}

/// A gate that grants nothing: no tools, no network.
pub fn no_capabilities() -> Arc<Gate> {
    Arc::new(Gate::new(
        Capabilities::default(),
        Arc::new(sandtab_caps::NoDoors),
    ))
}

/// Stops the exec that is running (or the next one to poll) from anywhere.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    flag: Arc<AtomicBool>,
    limit: Arc<Mutex<Option<String>>>,
}

impl CancelHandle {
    /// Asks the running exec to stop. It ends with exit status 130.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Stops the running exec because it ran into a limit the host keeps (a per-exec
    /// timeout): it ends with exit status 126 and `sandtab: limit reached: {reason}`.
    pub fn stop_at_limit(&self, reason: String) {
        *self
            .limit
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(reason);
        self.cancel();
    }
}

/// One shell session over a sandbox's filesystem.
pub struct Shell {
    bash: Bash,
    fs: Arc<SandboxFs>,
    limits: ShellLimits,
    guests: Arc<guests::Guests>,
    /// The `set` options the last exec left different from their defaults, as a `set`
    /// command: bashkit resets them before each exec, a terminal keeps them.
    set_options: String,
    /// The working directory and `PATH` the last exec left (where the next looks for
    /// guest modules), kept from the state read after it: reading bashkit's state
    /// copies all of it.
    cwd: String,
    path_var: String,
    /// The tape of a recording or replaying sandbox.
    tape: Option<Arc<replay::Tape>>,
    /// Whether `$RANDOM` is still to be seeded from the tape (at the next exec).
    seed_random: bool,
    /// Where `uuidgen` and `shuf` draw random bytes.
    entropy: Arc<entropy::SessionRandom>,
    /// bashkit's live commands (shared with `guests`): a streamed stdin's feed.
    registry: bashkit::BuiltinRegistry,
    /// Why the host stopped the running exec, when a limit it keeps did.
    stopped_at_limit: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("fs", &self.fs)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Shell {
    /// A new session on `fs`, starting in [`HOME`] (created if missing, with `/tmp`),
    /// whose guest programs run on the native platform.
    #[cfg(not(target_family = "wasm"))]
    pub fn new(fs: Arc<SandboxFs>, limits: ShellLimits) -> Result<Self, ShellError> {
        let engine = GuestEngine::new(limits.guest.call_depth);
        Self::with_guest_host(
            fs,
            limits,
            engine,
            Arc::new(sandtab_wasi::NativeHost::default()),
        )
    }

    /// A new session on `fs`, starting in [`HOME`] (created if missing, with `/tmp`).
    /// Guest programs run on `engine` (whose module cache sessions may share) with
    /// the platform services of `host`.
    pub fn with_guest_host(
        fs: Arc<SandboxFs>,
        limits: ShellLimits,
        engine: GuestEngine,
        host: Arc<dyn GuestHost>,
    ) -> Result<Self, ShellError> {
        Self::with_gate(fs, limits, engine, host, no_capabilities())
    }

    /// A new session like [`Shell::with_guest_host`] whose doors out (tool calls from
    /// commands and guests, `curl`/`wget`) all go through `gate`.
    pub fn with_gate(
        fs: Arc<SandboxFs>,
        limits: ShellLimits,
        engine: GuestEngine,
        host: Arc<dyn GuestHost>,
        gate: Arc<Gate>,
    ) -> Result<Self, ShellError> {
        limits.validate()?;
        if engine.call_depth() != limits.guest.call_depth {
            return Err(ShellError::InvalidLimit {
                name: "guest.call_depth",
                reason: format!("differs from the guest engine's {}", engine.call_depth()),
            });
        }
        for dir in [HOME, "/tmp"] {
            fs.mem().create_dir_all(&VfsPath::parse(dir)?)?;
        }
        let registry = bashkit::BuiltinRegistry::new();
        let installed = program_stubs::InstalledNames::default();
        let entropy = entropy::SessionRandom::new(host.clone());
        let commands_entropy = sandtab_commands::Entropy::new(entropy.clone());
        let bash = commands::register(Bash::builder(), &fs, &gate, &commands_entropy)
            .builtin_registry(registry.clone())
            .fs(Arc::new(PosixFs::new(fs_adapter::VfsBackend::new(
                fs.clone(),
                installed.clone(),
            ))))
            .limits(limits.to_bashkit())
            .session_limits(
                bashkit::SessionLimits::new()
                    .max_total_commands(u64::MAX)
                    .max_exec_calls(u64::MAX),
            )
            .username("agent")
            .hostname("sandtab")
            .cwd(HOME)
            .env("HOME", HOME)
            .env("USER", "agent")
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .build();
        commands::register_tools(&bash, &registry, &gate);
        let (cwd, path_var) = cwd_and_path(&bash.shell_state_view());
        let guests = guests::Guests::new(
            engine,
            host,
            gate,
            fs.clone(),
            limits.guest,
            bash.cancellation_token(),
            registry.clone(),
            installed,
        );
        Ok(Self {
            bash,
            fs,
            limits,
            guests,
            set_options: String::new(),
            cwd,
            path_var,
            tape: None,
            seed_random: false,
            entropy,
            registry,
            stopped_at_limit: Arc::default(),
        })
    }

    /// Installs a WebAssembly program as the commands `names` (for example CPython as
    /// `python3` and `python`). With `sha256`, a module whose hash differs refuses to
    /// run. It is compiled when first run, or by [`Shell::precompile`].
    pub fn install_program(
        &mut self,
        names: &[&str],
        module: Arc<Vec<u8>>,
        sha256: Option<String>,
    ) {
        self.install_program_from(names, ProgramSource::ready(module), sha256);
    }

    /// Like [`Shell::install_program`], with the module from `source`, which may still
    /// be on its way: the names are commands at once, and running one waits for it.
    pub fn install_program_from(
        &mut self,
        names: &[&str],
        source: Arc<ProgramSource>,
        sha256: Option<String>,
    ) {
        self.guests.install(names, source, sha256);
    }

    /// Changes the limits guest programs run under from the next command on (per
    /// sandbox, or around one exec for a per-command override). The call depth is the
    /// engine's and cannot change.
    pub fn set_guest_limits(&mut self, guest: GuestLimits) -> Result<(), ShellError> {
        let invalid = |reason: String| ShellError::InvalidLimit {
            name: "guest",
            reason,
        };
        guest.validate().map_err(|err| invalid(err.to_string()))?;
        if guest.call_depth != self.limits.guest.call_depth {
            return Err(invalid(
                "call_depth is fixed when the sandbox is created".into(),
            ));
        }
        self.limits.guest = guest;
        self.guests.set_limits(guest);
        Ok(())
    }

    /// Compiles the installed program `name` now, so that its first run starts at once.
    pub fn precompile(&self, name: &str) -> Result<(), sandtab_wasi::GuestError> {
        self.guests.precompile(name)
    }

    /// The filesystem this session works on.
    pub fn fs(&self) -> &Arc<SandboxFs> {
        &self.fs
    }

    /// The limits each exec runs under.
    pub fn limits(&self) -> &ShellLimits {
        &self.limits
    }

    /// A handle that cancels the running exec.
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle {
            flag: self.bash.cancellation_token(),
            limit: self.stopped_at_limit.clone(),
        }
    }

    /// Runs `script` and collects its output.
    pub async fn exec(&mut self, script: &str) -> ExecOutcome {
        self.exec_streaming(script, &mut |_, _| {}).await
    }

    /// Runs `script`, handing each chunk of output to `on_output` as it is written, and
    /// returns everything collected. Never fails: a syntax error, a limit or a
    /// cancellation is reported as an exit status and a message on stderr. Afterwards
    /// the file changes are flushed to storage, so once this returns they survive a
    /// reload; if storage refuses, stderr says so and `save_error` holds why.
    pub async fn exec_streaming(
        &mut self,
        script: &str,
        on_output: &mut (dyn FnMut(Stream, &[u8]) + Send),
    ) -> ExecOutcome {
        self.exec_with_stdin(script, None, on_output).await
    }

    /// Like [`Shell::exec_streaming`], with `stdin` as the script's standard input (what
    /// its first command reads when nothing in the script pipes into it).
    pub async fn exec_with_stdin(
        &mut self,
        script: &str,
        stdin: Option<Vec<u8>>,
        on_output: &mut (dyn FnMut(Stream, &[u8]) + Send),
    ) -> ExecOutcome {
        let cap = self.limits.max_output_bytes;
        self.exec_with_output_cap(script, stdin, cap, on_output)
            .await
    }

    /// Like [`Shell::exec_with_stdin`], with stdin streamed from `source` as the script
    /// reads it: memory stays bounded however long it is, and reading stops once the
    /// script has ended or closed it. The script runs as the last stage of a pipeline
    /// (a subshell, as `cmd | bash -c SCRIPT` runs it in bash).
    pub async fn exec_with_stdin_stream(
        &mut self,
        script: &str,
        source: Arc<dyn StdinSource>,
        on_output: &mut (dyn FnMut(Stream, &[u8]) + Send),
    ) -> ExecOutcome {
        let cap = self.limits.max_output_bytes;
        self.exec_with_stdin_stream_cap(script, source, cap, on_output)
            .await
    }

    /// Like [`Shell::exec_with_stdin_stream`], keeping at most `cap` bytes of each
    /// stream for the result.
    pub async fn exec_with_stdin_stream_cap(
        &mut self,
        script: &str,
        source: Arc<dyn StdinSource>,
        cap: usize,
        on_output: &mut (dyn FnMut(Stream, &[u8]) + Send),
    ) -> ExecOutcome {
        let (feed, done, status) = stdin_feed::feed_and_marker(source);
        self.registry.insert_command(stdin_feed::FEED_COMMAND, feed);
        self.registry
            .insert_command(stdin_feed::DONE_COMMAND, done.clone());
        self.registry
            .insert_command(stdin_feed::STATUS_COMMAND, status);
        let fed = stdin_feed::fed_script(script);
        let outcome = self.exec_with_output_cap(&fed, None, cap, on_output).await;
        self.registry.remove(stdin_feed::FEED_COMMAND);
        self.registry.remove(stdin_feed::DONE_COMMAND);
        self.registry.remove(stdin_feed::STATUS_COMMAND);
        if !done.group_ended() {
            // The script ended (`exit`, `set -e`) before its group removed the function.
            let _ = self.bash.exec(stdin_feed::CLEANUP).await;
        }
        outcome
    }

    /// Runs `script` in a terminal that `input` is typed into: the script's own
    /// commands see an empty stdin (so that a function or a subshell does not wait for
    /// the terminal to end), and a guest program whose stdin is that empty one reads the
    /// terminal instead, seeing it as a terminal (`isatty(0)`: CPython's prompt).
    pub async fn exec_in_terminal(
        &mut self,
        script: &str,
        input: Arc<dyn StdinSource>,
        cap: usize,
        on_output: &mut (dyn FnMut(Stream, &[u8]) + Send),
    ) -> ExecOutcome {
        self.guests.set_terminal(Some(input));
        let outcome = self
            .exec_with_output_cap(script, None, cap, on_output)
            .await;
        self.guests.set_terminal(None);
        outcome
    }

    /// The session's state (working directory, variables, exported environment, arrays,
    /// functions, aliases, traps, options) as JSON, to carry the session to another host.
    pub fn export_state(&self) -> serde_json::Value {
        serde_json::to_value(self.bash.shell_state()).unwrap_or_default()
    }

    /// Makes the session's state what [`Shell::export_state`] gave (files are not part
    /// of it).
    pub fn import_state(&mut self, state: &serde_json::Value) -> Result<(), ShellError> {
        let shell: bashkit::ShellState = serde_json::from_value(state.clone())
            .map_err(|err| ShellError::InvalidSessionState(err.to_string()))?;
        self.bash.restore_shell_state(&shell);
        // The `set` options live in variables too; bashkit resets them before each exec.
        self.set_options = set_options_command(&shell.variables);
        Ok(())
    }

    /// Puts this session's nondeterministic sources behind `tape` (recording or
    /// replaying): what its guests observe, and `$RANDOM`'s seed (drawn from the tape at
    /// the next exec).
    pub fn set_tape(&mut self, tape: Arc<replay::Tape>) {
        let real: Arc<dyn sandtab_wasi::Platform> = self.guests.host();
        self.guests
            .observe(Arc::new(replay::TapePlatform::new(tape.clone(), real)));
        self.entropy.set_tape(tape.clone());
        self.tape = Some(tape);
        self.seed_random = true;
    }

    /// `RANDOM=N; ` when `$RANDOM` is to be seeded from the tape now, else nothing.
    fn random_seed(&mut self) -> String {
        let Some(tape) = self.tape.as_ref().filter(|tape| tape.active()) else {
            return String::new();
        };
        if !std::mem::take(&mut self.seed_random) {
            return String::new();
        }
        let mut bytes = [0u8; 4];
        let real = self.guests.host();
        // A source that fails leaves the seed 0: still the same in the replay.
        let _ = tape.random(&mut bytes, |buf| real.random(buf));
        format!("RANDOM={}; ", u32::from_le_bytes(bytes) & 0x7fff_ffff)
    }

    /// Like [`Shell::exec_with_stdin`], keeping at most `cap` bytes of each stream for
    /// the outcome instead of the limits' `max_output_bytes` (everything is still handed
    /// to `on_output`, and the totals are counted).
    pub async fn exec_with_output_cap(
        &mut self,
        script: &str,
        stdin: Option<Vec<u8>>,
        cap: usize,
        on_output: &mut (dyn FnMut(Stream, &[u8]) + Send),
    ) -> ExecOutcome {
        // A cancel aimed at an earlier exec must not stop this one.
        self.bash
            .cancellation_token()
            .store(false, Ordering::SeqCst);
        self.take_limit_stop();
        self.guests.prepare(script, &self.cwd, &self.path_var).await;
        let guest_runs = self.guests.runs();
        let seed = self.random_seed();
        let writes = self.fs.mem().write_budget();
        writes.start(
            self.limits.max_file_write_bytes,
            self.bash.cancellation_token(),
        );
        let collector = Mutex::new(Collector::new(cap, on_output));
        let collector = &collector;
        let mut options = bashkit::ExecOptions::new();
        if let Some(stdin) = stdin {
            options = options.stdin(stdin);
        }
        let original = script;
        // On the script's first line, so that line numbers in messages stay the script's.
        let script = if self.set_options.is_empty() && seed.is_empty() {
            std::borrow::Cow::Borrowed(script)
        } else {
            std::borrow::Cow::Owned(format!("{seed}{}{script}", self.set_options))
        };
        let result = self
            .bash
            .execute(&script)
            .options(options)
            .stdout_fn(move |chunk| async move {
                lock(collector).push(Stream::Stdout, &chunk);
                Ok(())
            })
            .stderr_fn(move |chunk| async move {
                lock(collector).push(Stream::Stderr, &chunk);
                Ok(())
            })
            .await;
        let write_limit = writes.limit();
        let wrote_too_much = writes.finish();
        let stopped_at_limit = self.take_limit_stop();
        let exit_code = {
            let mut collected = lock(collector);
            match result {
                _ if stopped_at_limit.is_some() => {
                    let reason = stopped_at_limit.unwrap_or_default();
                    collected.push(
                        Stream::Stderr,
                        format!("sandtab: limit reached: {reason}\n").as_bytes(),
                    );
                    EXIT_LIMIT
                }
                _ if wrote_too_much => {
                    let message = format!(
                        "sandtab: limit reached: files written by one command passed {write_limit} \
                         bytes [max_file_write_bytes]\n"
                    );
                    collected.push(Stream::Stderr, message.as_bytes());
                    EXIT_LIMIT
                }
                Ok(result) => result.exit_code,
                Err(err) => {
                    let (code, message) = describe_failure(&err, original);
                    collected.push(Stream::Stderr, message.as_bytes());
                    code
                }
            }
        };
        let state = self.bash.shell_state_view();
        self.set_options = set_options_command(&state.variables);
        (self.cwd, self.path_var) = cwd_and_path(&state);
        let save_error = self.fs.flush().await.err();
        let mut collected = lock(collector);
        if let Some(err) = &save_error {
            collected.push(
                Stream::Stderr,
                format!(
                    "sandtab: file changes not saved: {err}. They are kept in memory and \
                     saved after the next command.\n"
                )
                .as_bytes(),
            );
        }
        ExecOutcome {
            stdout: std::mem::take(&mut collected.stdout),
            stderr: std::mem::take(&mut collected.stderr),
            exit_code,
            stdout_truncated: collected.stdout_truncated,
            stderr_truncated: collected.stderr_truncated,
            stdout_total: collected.stdout_total,
            stderr_total: collected.stderr_total,
            save_error,
            ran_guest: self.guests.runs() != guest_runs,
        }
    }
}

impl Shell {
    /// Why the host stopped the exec at a limit, if it did, cleared for the next.
    fn take_limit_stop(&self) -> Option<String> {
        self.stopped_at_limit
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }

    /// Reads the working directory and `PATH` again after the state was changed.
    fn refresh_cwd_and_path(&mut self) {
        (self.cwd, self.path_var) = cwd_and_path(&self.bash.shell_state_view());
    }
}

/// The working directory and `PATH` of a shell state.
fn cwd_and_path(state: &bashkit::ShellStateView) -> (String, String) {
    let cwd = state.cwd.to_string_lossy().into_owned();
    let path_var = state
        .env
        .get("PATH")
        .or_else(|| state.variables.get("PATH"))
        .cloned()
        .unwrap_or_default();
    (cwd, path_var)
}

fn lock<'a, 'b>(collector: &'a Mutex<Collector<'b>>) -> std::sync::MutexGuard<'a, Collector<'b>> {
    collector
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The `set -o` options a session keeps from one exec to the next: their names, the
/// variables bashkit keeps them in, and whether they are on by default.
const SET_OPTIONS: &[(&str, &str, bool)] = &[
    ("allexport", "SHOPT_a", false),
    ("braceexpand", "SHOPT_B", true),
    ("errexit", "SHOPT_e", false),
    ("errtrace", "SHOPT_E", false),
    ("functrace", "SHOPT_T", false),
    ("noclobber", "SHOPT_C", false),
    ("noglob", "SHOPT_f", false),
    ("nounset", "SHOPT_u", false),
    ("pipefail", "SHOPT_pipefail", false),
    ("verbose", "SHOPT_v", false),
    ("xtrace", "SHOPT_x", false),
];

/// A `set` command (with a `; ` after it) that puts back the options that differ from
/// their defaults in `variables`, or nothing when none does.
fn set_options_command(variables: &std::collections::HashMap<String, String>) -> String {
    let mut command = String::new();
    for (name, variable, default) in SET_OPTIONS {
        let Some(value) = variables.get(*variable) else {
            continue;
        };
        let on = value == "1";
        if on != *default {
            command.push_str(if on { " -o " } else { " +o " });
            command.push_str(name);
        }
    }
    if command.is_empty() {
        command
    } else {
        format!("set{command}; ")
    }
}

/// The exit status and the message for an exec of `script` that bashkit ended with an
/// error. A syntax error reads as bash's (`bash -c` names itself `bash: -c`).
fn describe_failure(err: &bashkit::Error, script: &str) -> (i32, String) {
    match err {
        bashkit::Error::Parse { .. } => (
            EXIT_SYNTAX,
            err.syntax_report("bash: -c", script)
                .unwrap_or_else(|| format!("bash: -c: {err}\n")),
        ),
        bashkit::Error::ResourceLimit(limit) => (
            EXIT_LIMIT,
            format!(
                "sandtab: limit reached: {limit} [{}]\n",
                limit_name(limit).unwrap_or("limits")
            ),
        ),
        bashkit::Error::Cancelled => (EXIT_CANCELLED, "sandtab: cancelled\n".to_owned()),
        other => (1, format!("sandtab: {other}\n")),
    }
}

/// The [`ShellLimits`] field a bashkit limit corresponds to, so the message tells the
/// user which knob to turn.
fn limit_name(limit: &bashkit::LimitExceeded) -> Option<&'static str> {
    use bashkit::LimitExceeded as L;
    Some(match limit {
        L::MaxCommands(_) => "max_commands",
        L::MaxLoopIterations(_) => "max_loop_iterations",
        L::MaxTotalLoopIterations(_) => "max_total_loop_iterations",
        L::MaxFunctionDepth(_) => "max_function_depth",
        L::Timeout(_) => "timeout",
        _ => return None,
    })
}

/// Collects output up to the cap while passing every chunk on.
struct Collector<'a> {
    cap: usize,
    on_output: &'a mut (dyn FnMut(Stream, &[u8]) + Send),
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stdout_truncated: bool,
    stderr_truncated: bool,
    stdout_total: u64,
    stderr_total: u64,
}

impl<'a> Collector<'a> {
    fn new(cap: usize, on_output: &'a mut (dyn FnMut(Stream, &[u8]) + Send)) -> Self {
        Self {
            cap,
            on_output,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            stdout_total: 0,
            stderr_total: 0,
        }
    }

    fn push(&mut self, stream: Stream, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        (self.on_output)(stream, chunk);
        let (buffer, truncated, total) = match stream {
            Stream::Stdout => (
                &mut self.stdout,
                &mut self.stdout_truncated,
                &mut self.stdout_total,
            ),
            Stream::Stderr => (
                &mut self.stderr,
                &mut self.stderr_truncated,
                &mut self.stderr_total,
            ),
        };
        *total += chunk.len() as u64;
        let room = self.cap.saturating_sub(buffer.len());
        buffer.extend_from_slice(&chunk[..chunk.len().min(room)]);
        *truncated |= chunk.len() > room;
    }
}
