//! [`Sandbox`]: a filesystem, its shell sessions and the gate, opened from options over
//! a [`Platform`], answering [`Op`]s.

use crate::config::{SandboxOptions, StorageKind, TapeSetup};
use crate::error::{RuntimeError, RuntimeResult};
use crate::platform::Platform;
use crate::protocol::{DirEntry, Op, Reply, SnapshotEntry};
use crate::recorder::Recorder;
use sandtab_caps::Gate;
use sandtab_shell::replay::{TapeClock, TapeDoors, TapeMode};
use sandtab_shell::{CancelHandle, GuestEngine, Sessions, Stream};
use sandtab_vfs::storage::{SnapshotInfo, fsck};
use sandtab_vfs::{ErrorKind, FileKind, SandboxFs, VfsPath};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// Where an exec's output goes as it is written.
pub type OutputSink<'a> = &'a mut (dyn FnMut(Stream, &[u8]) + Send);

/// One sandbox.
pub struct Sandbox {
    pub(crate) platform: Rc<dyn Platform>,
    /// The capability check every door goes through, and the audit log.
    pub(crate) gate: Arc<Gate>,
    /// Borrowed mutably for a whole exec: a second one meanwhile is `EBUSY`.
    pub(crate) sessions: RefCell<Sessions>,
    pub(crate) fs: Arc<SandboxFs>,
    /// Cancels the exec that is running, in whichever session.
    pub(crate) cancel: RefCell<Option<CancelHandle>>,
    /// Standard input written while execs run.
    pub(crate) stdin: RefCell<crate::stdin::StdinStreams>,
    /// Programs installed before their module came, by first name (see
    /// [`Sandbox::expect_program`]).
    expected: RefCell<std::collections::HashMap<String, Arc<sandtab_shell::ProgramSource>>>,
    name: String,
    storage: StorageKind,
    /// The tape, when the sandbox records or replays.
    pub(crate) recorder: Option<Recorder>,
    /// The options a hand-off carries on.
    carried: SandboxOptions,
    /// The read-only mounts' paths, whose files the host gives again.
    read_only: Vec<VfsPath>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("name", &self.name)
            .field("storage", &self.storage)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Opens the sandbox the options name (creating it if new) on `platform`: MCP
    /// servers the capability document grants are connected first; a stored sandbox
    /// reads only its metadata now, contents on first use.
    pub async fn open(options: SandboxOptions, platform: Rc<dyn Platform>) -> RuntimeResult<Self> {
        let setup = options.resolve()?;
        let read_only: Vec<VfsPath> = setup
            .mounts
            .iter()
            .filter(|mount| matches!(mount.source, sandtab_vfs::MountSource::ReadOnly(_)))
            .map(|mount| mount.path.clone())
            .collect();
        let recorder = match setup.tape {
            None => None,
            Some(TapeSetup::Record { options }) => {
                Some(Recorder::new(TapeMode::Record, options, None, &*platform))
            }
            Some(TapeSetup::Replay(recording)) => {
                if matches!(
                    setup.storage,
                    Some(StorageKind::Indexeddb | StorageKind::Opfs)
                ) {
                    return Err(RuntimeError::invalid(
                        "options.replay: a replay runs in a new sandbox in memory; leave storage out",
                    ));
                }
                Some(Recorder::new(
                    TapeMode::Replay,
                    serde_json::Value::Null,
                    Some(recording),
                    &*platform,
                ))
            }
        };
        if let Some(recorder) = &recorder {
            recorder.begin_opening();
        }
        let tape = recorder.as_ref().map(|r| r.tape.clone());
        let doors: Arc<dyn sandtab_caps::Doors> = match &tape {
            Some(tape) => Arc::new(TapeDoors::new(tape.clone(), platform.doors())),
            None => platform.doors(),
        };
        let gate = Gate::new(setup.capabilities, doors)
            .connect_mcp()
            .await
            .map_err(|err| RuntimeError::invalid(err.to_string()))?;
        let replaying = recorder.as_ref().is_some_and(Recorder::replays);
        let storage = match replaying {
            true => StorageKind::Memory,
            false => setup.storage.unwrap_or_else(|| platform.default_storage()),
        };
        let clock: Arc<dyn sandtab_vfs::Clock> = match &tape {
            Some(tape) => Arc::new(TapeClock::new(tape.clone(), platform.clock())),
            None => platform.clock(),
        };
        let fs = match storage {
            StorageKind::Memory => SandboxFs::in_memory(clock, setup.quota, setup.mounts)?,
            kind => {
                let store = platform.open_store(kind, &setup.name).await?;
                SandboxFs::open(store, clock, setup.quota, setup.mounts).await?
            }
        };
        if (recorder.is_some() || setup.resume.is_some()) && has_files(&fs)? {
            let why = match recorder.is_some() {
                true => {
                    "options.record: the sandbox \"{}\" already has files, which a recording would not hold"
                }
                false => {
                    "options.resume: the sandbox \"{}\" already has files, which resuming would mix with the ones handed over"
                }
            };
            return Err(RuntimeError::invalid(format!(
                "{}; use a new sandbox (another name, or storage: \"memory\")",
                why.replace("{}", &setup.name)
            )));
        }
        let fs = Arc::new(fs);
        let engine = GuestEngine::new(setup.limits.guest.call_depth);
        let gate = Arc::new(gate);
        let mut sessions = Sessions::with_gate(
            fs.clone(),
            setup.limits,
            engine,
            platform.guest_host(),
            gate.clone(),
        )?;
        if let Some(tape) = tape {
            sessions.set_tape(tape);
        }
        if let Some(handoff) = &setup.resume {
            crate::handoff::resume(handoff, &fs, &mut sessions, &read_only).await?;
        }
        // A new sandbox's first flush writes its root and `/home/agent`.
        fs.flush().await?;
        if let Some(recorder) = &recorder {
            recorder.end_opening();
        }
        Ok(Self {
            platform,
            gate,
            sessions: RefCell::new(sessions),
            fs,
            cancel: RefCell::default(),
            stdin: RefCell::default(),
            expected: RefCell::default(),
            name: setup.name,
            storage,
            recorder,
            carried: setup.carried,
            read_only,
        })
    }

    /// The options a hand-off carries on.
    pub(crate) fn carried_options(&self) -> &SandboxOptions {
        &self.carried
    }

    /// The read-only mounts' paths.
    pub(crate) fn read_only_mounts(&self) -> Vec<VfsPath> {
        self.read_only.clone()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where its files are kept.
    pub fn storage(&self) -> StorageKind {
        self.storage
    }

    /// Its filesystem.
    pub fn fs(&self) -> &Arc<SandboxFs> {
        &self.fs
    }

    /// Its gate (and audit log).
    pub fn gate(&self) -> &Arc<Gate> {
        &self.gate
    }

    /// Stops the running exec (it ends with status 130); files are kept.
    pub fn cancel(&self) {
        if let Some(cancel) = &*self.cancel.borrow() {
            cancel.cancel();
        }
        // A program waiting for typed input would not see the cancel until it came.
        self.stdin.borrow_mut().end_running();
    }

    /// Stops the running exec because its own `timeoutMs` (`ms`) passed: it ends with
    /// status 126 and says so. The host arms the timer when the exec starts.
    pub fn time_out(&self, ms: u64) {
        if let Some(cancel) = &*self.cancel.borrow() {
            cancel.stop_at_limit(format!("the exec's timeout of {ms} ms passed [timeoutMs]"));
        }
        self.stdin.borrow_mut().end_running();
    }

    /// As Ctrl-C in a terminal: a program waiting for typed input that takes interrupts
    /// (sandtab's CPython: `KeyboardInterrupt`) gets one and goes on; otherwise the
    /// running exec is cancelled as by [`Sandbox::cancel`]. True if it was interrupted.
    pub fn interrupt(&self) -> bool {
        if self.stdin.borrow_mut().interrupt_running() {
            return true;
        }
        self.cancel();
        false
    }

    /// A recording keeps an exec's stdin as bytes, for the replay to give again: a
    /// stream is refused; a terminal's (`tty`) is left out, so its programs see an
    /// empty stdin (the terminal still runs commands). Either way the stream ends.
    fn without_stream_when_recording(&self, op: Op) -> RuntimeResult<Op> {
        let records = self.recorder.as_ref().is_some_and(Recorder::records);
        match op {
            Op::Exec(mut request) if records && request.stdin_stream.is_some() => {
                if let Some(stream) = request.stdin_stream.take() {
                    self.stdin.borrow_mut().finish(stream);
                }
                if !request.tty {
                    return Err(RuntimeError::invalid(
                        "exec options: a recording sandbox takes stdin as bytes, not as a stream",
                    ));
                }
                request.tty = false;
                Ok(Op::Exec(request))
            }
            op => Ok(op),
        }
    }

    /// Appends `bytes` to stdin stream `stream` (see `ExecRequest::stdin_stream`), for
    /// its exec whether it runs, waits in the queue or has ended (then they are dropped).
    pub fn write_stdin(&self, stream: u32, bytes: Vec<u8>) -> RuntimeResult<()> {
        self.stdin
            .borrow_mut()
            .write(stream, bytes)
            .map_err(RuntimeError::invalid)
    }

    /// Ends stdin stream `stream`: its reader sees end of file once it has read the rest.
    pub fn end_stdin(&self, stream: u32) {
        self.stdin.borrow_mut().end(stream);
    }

    /// Installs a WebAssembly (WASI) program as the commands `names` (CPython as
    /// `python3` and `python`), compiled now; with `sha256`, a module whose hash differs
    /// refuses to run.
    pub fn install_program(
        &self,
        names: &[String],
        module: Vec<u8>,
        sha256: Option<String>,
    ) -> RuntimeResult<()> {
        let mut sessions = self
            .sessions
            .try_borrow_mut()
            .map_err(|_| RuntimeError::busy())?;
        let first = check_program_names(names)?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        sessions
            .install_program(&names, Arc::new(module), sha256)
            .map_err(|err| RuntimeError::invalid(format!("{first}: {err}")))
    }

    /// Installs the program `names` before its module comes (the page downloads it in
    /// the background): the names are commands at once, every other command runs
    /// meanwhile, and one that runs it waits for [`Sandbox::provide_program`] (or fails
    /// after [`Sandbox::program_failed`]).
    pub fn expect_program(&self, names: &[String], sha256: Option<String>) -> RuntimeResult<()> {
        let mut sessions = self
            .sessions
            .try_borrow_mut()
            .map_err(|_| RuntimeError::busy())?;
        let first = check_program_names(names)?.to_owned();
        let source = sandtab_shell::ProgramSource::waiting();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        sessions.install_program_from(&names, source.clone(), sha256);
        self.expected.borrow_mut().insert(first, source);
        Ok(())
    }

    /// The module of the expected program `name` (its first name) has come. Answered
    /// beside the queue: a command waiting for it goes on (and compiles it). Not
    /// compiled here: that takes long enough for a large module (CPython: about 0.2 s
    /// in a browser) that a command sent meanwhile would wait; the host compiles it
    /// when it is idle ([`Sandbox::precompile_program`]).
    pub fn provide_program(&self, name: &str, module: Vec<u8>) -> RuntimeResult<()> {
        self.expected_source(name)?.provide(Arc::new(module));
        Ok(())
    }

    /// Compiles the module of the expected program `name` ahead of its first use, if
    /// it has come and no command runs (else the first command that runs it does).
    /// An error is the module's: not valid WebAssembly, or not the SHA-256 expected.
    pub fn precompile_program(&self, name: &str) -> RuntimeResult<()> {
        self.expected_source(name)?;
        if let Ok(sessions) = self.sessions.try_borrow() {
            sessions
                .precompile(name)
                .map_err(|err| RuntimeError::invalid(format!("{name}: {err}")))?;
        }
        Ok(())
    }

    /// The module of the expected program `name` will not come, because of `reason`: a
    /// command that runs it fails with that reason.
    pub fn program_failed(&self, name: &str, reason: String) -> RuntimeResult<()> {
        self.expected_source(name)?.fail(reason);
        Ok(())
    }

    /// Whether a command is waiting for the expected program `name` now.
    pub fn program_waited_for(&self, name: &str) -> RuntimeResult<bool> {
        Ok(self.expected_source(name)?.is_waited_for())
    }

    fn expected_source(&self, name: &str) -> RuntimeResult<Arc<sandtab_shell::ProgramSource>> {
        self.expected
            .borrow()
            .get(name)
            .cloned()
            .ok_or_else(|| RuntimeError::invalid(format!("no program {name:?} is expected")))
    }

    /// Answers `op`; an exec's output goes to `output` as it is written. Operations that
    /// change files are recorded when the sandbox records.
    pub async fn run(&self, op: Op, output: OutputSink<'_>) -> RuntimeResult<Reply> {
        let op = self.without_stream_when_recording(op)?;
        match &self.recorder {
            Some(recorder) if recorder.records() && crate::recorder::is_recorded(&op) => {
                recorder.record(self, op, output).await
            }
            _ => self.perform(op, output).await,
        }
    }

    /// The engine this sandbox's guest programs run on.
    pub fn guest_tier(&self) -> crate::config::GuestTier {
        match self.platform.guest_host().engine_tier() {
            Some(_) => crate::config::GuestTier::Engine,
            None => crate::config::GuestTier::Interpreter,
        }
    }

    /// Answers a query (an op that only reads memory) at once, even while an exec runs.
    pub fn query(&self, op: &Op) -> RuntimeResult<Reply> {
        Ok(match op {
            Op::ListDir { path } => Reply::Entries {
                entries: self.list_dir(path)?,
            },
            Op::Stat { path } => Reply::Stat(crate::file_ops::stat(&self.fs, path)?),
            Op::Usage => {
                let usage = self.fs.mem().usage();
                let quota = self.fs.mem().quota();
                Reply::Usage {
                    bytes: usage.bytes,
                    files: usage.files,
                    dirs: usage.dirs,
                    max_bytes: quota.max_bytes,
                    max_entries: quota.max_entries,
                    max_file_size: quota.max_file_size,
                }
            }
            Op::Info => Reply::Info {
                name: self.name.clone(),
                storage: self.storage,
                guest_tier: self.guest_tier(),
            },
            Op::Snapshots => Reply::Snapshots {
                snapshots: self.fs.snapshots().iter().map(snapshot_entry).collect(),
            },
            Op::AuditLog => Reply::Text {
                text: self.gate.audit().to_jsonl(),
            },
            Op::ToolDefinitions { format } => Reply::Text {
                text: crate::tools::definitions(&self.gate, format)?,
            },
            Op::Complete { before, session } => {
                // A command running holds the sessions: nothing to offer until it ends.
                let Ok(mut sessions) = self.sessions.try_borrow_mut() else {
                    return Err(RuntimeError::busy());
                };
                let shell = sessions
                    .session(session.as_deref().unwrap_or(sandtab_shell::DEFAULT_SESSION))
                    .map_err(|err| RuntimeError::invalid(err.to_string()))?;
                let sandtab_shell::Completion { word, candidates } = shell.complete(before);
                Reply::Completion { word, candidates }
            }
            Op::IsComplete { script } => Reply::Flag {
                value: sandtab_shell::is_complete(script),
            },
            other => {
                return Err(RuntimeError::invalid(format!(
                    "{} is not a query: run it",
                    other.summary()
                )));
            }
        })
    }

    /// Does `op`, unrecorded.
    pub(crate) async fn perform(&self, op: Op, output: OutputSink<'_>) -> RuntimeResult<Reply> {
        if op.is_query() {
            return self.query(&op);
        }
        Ok(match op {
            Op::Exec(request) => Reply::Exec(crate::exec::exec(self, request, output).await?),
            Op::CallTool { name, args } => Reply::Text {
                text: crate::tools::call_tool(self, &name, &args).await?,
            },
            Op::ReadText {
                path,
                offset,
                limit,
            } => Reply::Text {
                text: crate::tools::read_text(self, path, offset, limit).await?,
            },
            Op::WriteText { path, content } => Reply::Count {
                count: crate::tools::write_text(self, path, content).await?,
            },
            Op::EditFile {
                path,
                old_string,
                new_string,
                replace_all,
            } => Reply::Count {
                count: crate::tools::edit_file(self, path, old_string, new_string, replace_all)
                    .await?,
            },
            Op::Fetch { request } => Reply::Fetched(crate::tools::fetch(self, request).await?),
            Op::Ui { request } => Reply::UiEvent {
                event: crate::tools::ui(self, request).await?,
            },
            Op::ReadFile { path } => {
                let path = VfsPath::parse(&path)?;
                self.fs.load_for_read(&path).await?;
                Reply::Bytes {
                    data: self.fs.mem().read(&path)?.into(),
                }
            }
            Op::WriteFile {
                path,
                data,
                parents,
            } => {
                crate::file_ops::write_files(
                    &self.fs,
                    vec![crate::protocol::FileToWrite { path, data }],
                    parents,
                )
                .await?;
                Reply::Done
            }
            Op::WriteFiles { files, parents } => {
                crate::file_ops::write_files(&self.fs, files, parents).await?;
                Reply::Done
            }
            Op::Mkdir { path, parents } => {
                crate::file_ops::mkdir(&self.fs, &path, parents).await?;
                Reply::Done
            }
            Op::Remove {
                path,
                recursive,
                force,
            } => {
                crate::file_ops::remove(&self.fs, &path, recursive, force).await?;
                Reply::Done
            }
            Op::Rename { from, to } => {
                crate::file_ops::rename(&self.fs, &from, &to).await?;
                Reply::Done
            }
            Op::Flush => {
                let stats = self.fs.flush().await?;
                Reply::Flushed {
                    records: stats.records as u64,
                    bytes: stats.bytes as u64,
                }
            }
            Op::Snapshot { label } => {
                Reply::Snapshot(snapshot_entry(&self.fs.snapshot(&label).await?))
            }
            Op::Restore { id } => {
                self.fs.restore(id).await?;
                Reply::Done
            }
            Op::DeleteSnapshot { id } => {
                self.fs.delete_snapshot(id).await?;
                Reply::Done
            }
            Op::Fork {
                new_name,
                snapshot_id,
            } => {
                if new_name == self.name {
                    return Err(RuntimeError::invalid("a fork needs a name of its own"));
                }
                let kind = match self.storage {
                    StorageKind::Memory => StorageKind::Indexeddb,
                    kind => kind,
                };
                let target = self.platform.open_store(kind, &new_name).await?;
                self.fs.fork_into(snapshot_id, target.as_ref()).await?;
                Reply::Done
            }
            Op::ExportTar { path } => {
                let root = VfsPath::parse(path.as_deref().unwrap_or("/"))?;
                Reply::Bytes {
                    data: self.fs.export_tar(&root).await?.into(),
                }
            }
            Op::ImportTar { data, path } => {
                let root = VfsPath::parse(path.as_deref().unwrap_or("/"))?;
                let result = self.fs.import_tar(&root, &data.0).await;
                // Whatever was imported before a failure is saved too: nothing half-kept.
                self.fs.flush().await?;
                let stats = result?;
                Reply::Imported {
                    files: stats.files,
                    directories: stats.directories,
                    symlinks: stats.symlinks,
                    skipped: stats.skipped,
                }
            }
            Op::Fsck => self.fsck().await?,
            Op::CloseSession { name } => {
                let mut sessions = self
                    .sessions
                    .try_borrow_mut()
                    .map_err(|_| RuntimeError::busy())?;
                Reply::Flag {
                    value: sessions.close(&name),
                }
            }
            Op::SessionNames => {
                let sessions = self
                    .sessions
                    .try_borrow()
                    .map_err(|_| RuntimeError::busy())?;
                Reply::Names {
                    names: sessions.names(),
                }
            }
            Op::Recording => Reply::Json {
                value: self
                    .recorder("this sandbox is not recording (open it with record: true)")?
                    .recording(self)
                    .await?,
            },
            Op::Handoff => Reply::Json {
                value: crate::handoff::hand_off(self).await?,
            },
            Op::Replay => Reply::Json {
                value: self
                    .recorder(
                        "this sandbox has no recording to replay (open it with replay: RECORDING)",
                    )?
                    .replay(self)
                    .await?,
            },
            Op::ListDir { .. }
            | Op::Stat { .. }
            | Op::Usage
            | Op::Info
            | Op::Snapshots
            | Op::AuditLog
            | Op::ToolDefinitions { .. }
            | Op::Complete { .. }
            | Op::IsComplete { .. } => self.query(&op)?,
        })
    }

    fn recorder(&self, missing: &str) -> RuntimeResult<&Recorder> {
        self.recorder
            .as_ref()
            .ok_or_else(|| RuntimeError::invalid(missing))
    }

    fn list_dir(&self, path: &str) -> RuntimeResult<Vec<DirEntry>> {
        let path = VfsPath::parse(path)?;
        Ok(self
            .fs
            .mem()
            .read_dir(&path)?
            .into_iter()
            .map(|entry| DirEntry {
                kind: match entry.metadata.kind {
                    FileKind::File => "file",
                    FileKind::Directory => "dir",
                    FileKind::Symlink => "symlink",
                }
                .to_owned(),
                size: entry.metadata.size,
                // Milliseconds with a fraction: nanosecond times keep microseconds in an
                // f64, enough for a page to tell that a file changed between listings.
                modified: entry.metadata.modified.0 as f64 / 1e6,
                name: entry.name,
            })
            .collect())
    }

    async fn fsck(&self) -> RuntimeResult<Reply> {
        let Some(store) = self.fs.store() else {
            return Ok(Reply::Fsck {
                clean: true,
                summary: "kept in memory: nothing stored to check".into(),
                problems: vec![],
                inodes: 0,
                files: 0,
                bytes_checked: 0,
            });
        };
        // A full quota must not stop the check: what is stored is checked, and the
        // changes still in memory are said to be unsaved.
        let unsaved = match self.fs.flush().await {
            Err(err) if err.kind() == ErrorKind::QuotaExceeded => Some(err),
            other => {
                other?;
                None
            }
        };
        let report = fsck(store.as_ref()).await?;
        let mut summary = report.summary();
        if let Some(err) = unsaved {
            summary.push_str(&format!(" (changes in memory not saved: {err})"));
        }
        Ok(Reply::Fsck {
            clean: report.is_clean(),
            summary,
            inodes: report.inodes,
            files: report.files,
            bytes_checked: report.bytes_checked,
            problems: report.problems,
        })
    }
}

fn snapshot_entry(info: &SnapshotInfo) -> SnapshotEntry {
    SnapshotEntry {
        id: info.id,
        label: info.label.clone(),
        // Milliseconds since the epoch, as `Date.now()`.
        created: info.created / 1_000_000,
        files: info.files,
        bytes: info.bytes,
    }
}

/// Whether `fs` holds anything but its mount points.
fn has_files(fs: &SandboxFs) -> RuntimeResult<bool> {
    let mounts: Vec<&VfsPath> = fs.mount_paths().collect();
    // Directories that only lead to mounts (`/opt/sandtab` above a mount) are not files.
    let mut dirs = vec![VfsPath::root()];
    while let Some(dir) = dirs.pop() {
        for entry in fs.mem().read_dir(&dir)? {
            let path = dir.join(&entry.name)?;
            if mounts.contains(&&path) {
                continue;
            }
            if mounts.iter().any(|mount| mount.starts_with(&path)) {
                dirs.push(path);
                continue;
            }
            return Ok(true);
        }
    }
    Ok(false)
}

/// The first of a program's command names, once all are checked.
fn check_program_names(names: &[String]) -> RuntimeResult<&str> {
    let Some(first) = names.first() else {
        return Err(RuntimeError::invalid(
            "installProgram needs at least one command name",
        ));
    };
    if let Some(bad) = names
        .iter()
        .find(|name| name.is_empty() || name.contains(['/', ' ', '\t', '\n']))
    {
        return Err(RuntimeError::invalid(format!(
            "not a command name: {bad:?}"
        )));
    }
    Ok(first)
}
