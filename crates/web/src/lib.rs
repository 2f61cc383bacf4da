//! sandtab's browser binding: the one crate that talks to JavaScript.
//!
//! It exports [`Sandbox`] to the runtime's dedicated worker (see `web/src/worker.ts`),
//! which owns it and answers the page's messages. Everything else (filesystem, shell)
//! lives in platform-free crates; [`idb_store`] is the IndexedDB backend.

mod agent_tools;
mod convert;
mod crash;
mod doors;
mod guest_host;
pub mod idb_store;
pub mod opfs_store;
mod options;
mod recorder;
mod shell_sources;
mod yielding;

pub use yielding::Yielding;

use convert::{
    counts, entry_kind, fsck_to_js, new_byte_array, outcome_to_js, set, snapshot_to_js, vfs_error,
};
use idb_store::IdbStore;
use js_sys::{Array, Object, Uint8Array};
use opfs_store::OpfsStore;
use options::StorageKind;
use sandtab_shell::replay::{Op, Tape, TapeClock, TapeDoors, TapeMode};
use sandtab_shell::{CancelHandle, DEFAULT_SESSION, ExecOutcome, Gate, Sessions, Stream};
use sandtab_vfs::storage::records::PACK_MAX_FILE;
use sandtab_vfs::storage::{ContentSink, fsck};
use sandtab_vfs::{SandboxFs, VfsPath, VfsResult};
use send_wrapper::SendWrapper;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    crash::install_panic_hook();
}

/// This runtime's compiled `WebAssembly.Module`, which the page hands to the next worker
/// it starts so that worker instantiates it without compiling it again.
#[wasm_bindgen(js_name = compiledModule)]
pub fn compiled_module() -> JsValue {
    wasm_bindgen::module()
}

/// Builds the `Uint8Array` `readFile` answers with, piece by piece.
#[derive(Debug, Default)]
struct ArraySink {
    array: Option<SendWrapper<Uint8Array>>,
    filled: u32,
}

impl ContentSink for ArraySink {
    fn size(&mut self, size: u64) -> VfsResult<()> {
        self.array = Some(SendWrapper::new(new_byte_array(size)?));
        Ok(())
    }

    fn piece(&mut self, data: &[u8]) {
        if let Some(array) = &self.array {
            let end = self.filled + data.len() as u32;
            array.subarray(self.filled, end).copy_from(data);
            self.filled = end;
        }
    }
}

impl ArraySink {
    fn into_array(self) -> Uint8Array {
        self.array
            .map_or_else(|| Uint8Array::new_with_length(0), SendWrapper::take)
    }
}

/// One sandbox: a filesystem and the shell sessions on it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Sandbox {
    /// The capability check every door goes through, and the audit log.
    gate: Arc<Gate>,
    // Shared with the future of a running exec; `exec` is the only mutable borrower.
    sessions: Rc<RefCell<Sessions>>,
    fs: Arc<SandboxFs>,
    /// Cancels the exec that is running, in whichever session.
    cancel: Rc<RefCell<Option<CancelHandle>>>,
    name: String,
    storage: StorageKind,
    /// The OPFS store again, typed, for its direct large-file reads.
    opfs: Option<Arc<OpfsStore>>,
    /// The tape, when the sandbox records or replays.
    recorder: Option<Rc<recorder::Recorder>>,
}

/// A denial as a JS `Error` with `code` (`CAP_...`) and the message.
fn denial_error(denial: sandtab_caps::Denial) -> JsValue {
    let error = js_sys::Error::new(&denial.to_string());
    set(&error, "code", &JsValue::from_str(denial.code.as_str()));
    error.into()
}

fn parse_path(path: &str) -> Result<VfsPath, JsValue> {
    VfsPath::parse(path).map_err(vfs_error)
}

/// Runs `script` as `Sandbox.exec` does (the session `options` name, its guest limits,
/// its output cap), streaming output to `on_output`, and logs it.
// Holding the `RefCell` borrow across the await is the point: it marks the sandbox busy
// for the whole exec, and a second exec meanwhile gets a clear error from
// `try_borrow_mut` instead of a panic.
#[allow(clippy::await_holding_refcell_ref)]
pub(crate) async fn run_exec(
    sessions: Rc<RefCell<Sessions>>,
    cancel: Rc<RefCell<Option<CancelHandle>>>,
    gate: Arc<Gate>,
    script: String,
    on_output: Option<js_sys::Function>,
    options: Option<Object>,
) -> Result<ExecOutcome, JsValue> {
    let mut sessions = sessions.try_borrow_mut().map_err(|_| {
        JsValue::from(JsError::new(
            "sandbox is busy: another command is still running",
        ))
    })?;
    let error = |err: String| JsValue::from(JsError::new(&err));
    let choice =
        options::exec_options(options.as_ref().map(JsValue::from).as_ref()).map_err(error)?;
    let default_cap = sessions.limits().max_output_bytes;
    let mut fresh;
    let session_name = match choice.fresh {
        true => "(fresh)".to_owned(),
        false => choice
            .session
            .clone()
            .unwrap_or_else(|| DEFAULT_SESSION.to_owned()),
    };
    let shell = if choice.fresh {
        fresh = sessions.fresh().map_err(|err| error(err.to_string()))?;
        &mut fresh
    } else {
        let name = choice.session.as_deref().unwrap_or(DEFAULT_SESSION);
        sessions
            .session(name)
            .map_err(|err| error(err.to_string()))?
    };
    // The callback is only ever called on this thread; the wrapper satisfies the
    // shell's `Send` bound (it panics if touched from elsewhere, which cannot happen
    // on wasm32's single thread).
    let callback = SendWrapper::new(on_output);
    let mut forward = move |stream: Stream, chunk: &[u8]| {
        if let Some(callback) = callback.as_ref() {
            let name = match stream {
                Stream::Stdout => "stdout",
                Stream::Stderr => "stderr",
            };
            // A throwing callback must not stop the command; the page sees its own
            // exception in the console.
            let _ = callback.call2(
                &JsValue::NULL,
                &JsValue::from_str(name),
                &Uint8Array::from(chunk),
            );
        }
    };
    // `{ guestLimits }` overrides the sandbox's guest limits for this exec only.
    let usual = shell.limits().guest;
    if let Some(options) = &options {
        options::guest_limits_in(options, "guestLimits", usual)
            .and_then(|limits| {
                shell
                    .set_guest_limits(limits)
                    .map_err(|err| err.to_string())
            })
            .map_err(error)?;
    }
    *cancel.borrow_mut() = Some(shell.cancel_handle());
    let cap = choice.max_output_bytes.unwrap_or(default_cap);
    let outcome = shell
        .exec_with_output_cap(&script, None, cap, &mut forward)
        .await;
    *cancel.borrow_mut() = None;
    let _ = shell.set_guest_limits(usual);
    gate.log_exec(
        &session_name,
        &script,
        outcome.exit_code,
        outcome.stdout_total,
        outcome.stderr_total,
    );
    Ok(outcome)
}

/// The gate for the capability document, in front of the page's doors (behind the
/// tape, when the sandbox records or replays).
fn gate_for(doors: options::DoorsConfig, tape: Option<Arc<Tape>>) -> Gate {
    let web_doors: Arc<dyn sandtab_caps::Doors> = Arc::new(doors::WebDoors::new(
        doors.host_call,
        doors.net_fetch,
        doors.ui_action,
    ));
    let doors_out: Arc<dyn sandtab_caps::Doors> = match tape {
        Some(tape) => Arc::new(TapeDoors::new(tape, web_doors)),
        None => web_doors,
    };
    Gate::new(doors.capabilities, doors_out)
}

/// Whether this global scope (page or worker) has IndexedDB.
fn has_indexed_db() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .is_ok_and(|value| !value.is_undefined() && !value.is_null())
}

#[wasm_bindgen]
impl Sandbox {
    /// `new Sandbox(options)`: a sandbox kept in memory only (`storage` must be absent or
    /// `"memory"`; use `Sandbox.open` for a stored one). Throws an `Error` naming a bad
    /// option.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Sandbox, JsError> {
        let config = options::parse(&options).map_err(|err| JsError::new(&err))?;
        if matches!(
            config.storage,
            Some(StorageKind::IndexedDb | StorageKind::Opfs)
        ) {
            return Err(JsError::new(
                "new Sandbox() keeps files in memory; use Sandbox.open() for stored sandboxes",
            ));
        }
        if !config.doors.capabilities.mcp.is_empty() {
            return Err(JsError::new(
                "capabilities.mcp: connecting to MCP servers takes time; use Sandbox.open()",
            ));
        }
        if config.tape.is_some() {
            return Err(JsError::new(
                "options.record and options.replay need Sandbox.open()",
            ));
        }
        let fs = SandboxFs::in_memory(
            Arc::new(shell_sources::RealClock),
            config.quota,
            config.mounts,
        )
        .map_err(|err| JsError::new(&err.to_string()))?;
        Self::with_fs(
            Arc::new(fs),
            config.limits,
            config.name,
            StorageKind::Memory,
            gate_for(config.doors, None),
            None,
        )
    }

    /// `Sandbox.open(options)`: opens the sandbox named `options.name` ("default") from
    /// IndexedDB, creating it if new; memory when `storage: "memory"` or where IndexedDB
    /// is missing. Only metadata is read now; file contents load on first use. Rejects
    /// with an `Error` whose `code` is the errno name (ENOTSUP for data of an unknown
    /// format, EUCLEAN for records that fail their checksum). MCP servers the capability
    /// document grants are connected to first and their tools listed; one that cannot be
    /// reached rejects, naming it, before any storage is opened.
    pub async fn open(options: JsValue) -> Result<Sandbox, JsValue> {
        let config = options::parse(&options).map_err(|err| JsValue::from(JsError::new(&err)))?;
        let error = |message: &str| JsValue::from(JsError::new(message));
        let recorder = match config.tape {
            None => None,
            Some(options::TapeSetup::Record { options }) => Some(Rc::new(recorder::Recorder::new(
                TapeMode::Record,
                options,
                None,
            ))),
            Some(options::TapeSetup::Replay(recording)) => {
                if matches!(
                    config.storage,
                    Some(StorageKind::IndexedDb | StorageKind::Opfs)
                ) {
                    return Err(error(
                        "options.replay: a replay runs in a new sandbox in memory; leave storage out",
                    ));
                }
                Some(Rc::new(recorder::Recorder::new(
                    TapeMode::Replay,
                    serde_json::Value::Null,
                    Some(recording),
                )))
            }
        };
        let replaying = recorder
            .as_ref()
            .is_some_and(|r| r.tape.mode() == TapeMode::Replay);
        if let Some(recorder) = &recorder {
            recorder.begin_opening();
        }
        let tape = recorder.as_ref().map(|r| r.tape.clone());
        let gate = gate_for(config.doors, tape.clone())
            .connect_mcp()
            .await
            .map_err(|err| JsValue::from(JsError::new(&err.to_string())))?;
        let storage = match replaying {
            true => StorageKind::Memory,
            false => config.storage.unwrap_or(if has_indexed_db() {
                StorageKind::IndexedDb
            } else {
                StorageKind::Memory
            }),
        };
        let clock: Arc<dyn sandtab_vfs::Clock> = match &tape {
            Some(tape) => Arc::new(TapeClock::new(
                tape.clone(),
                Arc::new(shell_sources::RealClock),
            )),
            None => Arc::new(shell_sources::RealClock),
        };
        let mut opfs = None;
        let fs = match storage {
            StorageKind::Memory => SandboxFs::in_memory(clock, config.quota, config.mounts),
            StorageKind::IndexedDb => {
                let store = IdbStore::open(&config.name).await.map_err(vfs_error)?;
                SandboxFs::open(Arc::new(store), clock, config.quota, config.mounts).await
            }
            StorageKind::Opfs => {
                let store = Arc::new(OpfsStore::open(&config.name).await.map_err(vfs_error)?);
                opfs = Some(store.clone());
                SandboxFs::open(store, clock, config.quota, config.mounts).await
            }
        }
        .map_err(vfs_error)?;
        let mount_names: Vec<String> = fs
            .mount_paths()
            .filter_map(|path| path.file_name().map(str::to_owned))
            .collect();
        if recorder.is_some()
            && !fs
                .mem()
                .read_dir(&VfsPath::root())
                .map_err(vfs_error)?
                .iter()
                .all(|entry| mount_names.contains(&entry.name))
        {
            return Err(error(&format!(
                "options.record: the sandbox \"{}\" already has files, which a recording would not hold; record a new sandbox (another name, or storage: \"memory\")",
                config.name
            )));
        }
        let fs = Arc::new(fs);
        // A new sandbox's first flush writes its root and `/home/agent`.
        let mut sandbox = Self::with_fs(
            fs.clone(),
            config.limits,
            config.name,
            storage,
            gate,
            recorder.clone(),
        )
        .map_err(JsValue::from)?;
        sandbox.opfs = opfs;
        fs.flush().await.map_err(vfs_error)?;
        if let Some(recorder) = &recorder {
            recorder.end_opening();
        }
        Ok(sandbox)
    }

    fn with_fs(
        fs: Arc<SandboxFs>,
        limits: sandtab_shell::ShellLimits,
        name: String,
        storage: StorageKind,
        gate: Gate,
        recorder: Option<Rc<recorder::Recorder>>,
    ) -> Result<Sandbox, JsError> {
        let engine = sandtab_shell::GuestEngine::new(limits.guest.call_depth);
        let host = Arc::new(guest_host::WebHost);
        let gate = Arc::new(gate);
        let mut sessions = Sessions::with_gate(fs.clone(), limits, engine, host, gate.clone())
            .map_err(|err| JsError::new(&err.to_string()))?;
        if let Some(recorder) = &recorder {
            sessions.set_tape(recorder.tape.clone());
        }
        Ok(Sandbox {
            gate,
            sessions: Rc::new(RefCell::new(sessions)),
            fs,
            cancel: Rc::default(),
            name,
            storage,
            opfs: None,
            recorder,
        })
    }

    /// Deletes the stored sandbox `name` (its IndexedDB database). Close it first.
    #[wasm_bindgen(js_name = deleteStored)]
    pub async fn delete_stored(name: String) -> Result<(), JsValue> {
        IdbStore::delete(&name).await.map_err(vfs_error)
    }

    /// `{ name, storage }`: which sandbox this is and where `/` is kept.
    pub fn info(&self) -> Object {
        let object = Object::new();
        set(&object, "name", &JsValue::from_str(&self.name));
        let storage = match self.storage {
            StorageKind::Opfs => "opfs",
            StorageKind::IndexedDb => "indexeddb",
            StorageKind::Memory => "memory",
        };
        set(&object, "storage", &JsValue::from_str(storage));
        object
    }

    /// Runs `script`; resolves to `{ stdout, stderr, exitCode, stdoutTruncated,
    /// stderrTruncated, stdoutTotal, stderrTotal, stdoutNote, stderrNote, saveError }` with
    /// output as `Uint8Array`s (at most `maxOutputBytes` of each; the totals count every
    /// byte written; a note says what was cut). `onOutput(stream, bytes)` is called with
    /// each chunk as it is written (`stream` is `"stdout"` or `"stderr"`). The command's
    /// file changes are saved before it resolves; `saveError` (`{ code, message }` or
    /// null) says if storage refused them.
    ///
    /// `options`: `{ session?: string, fresh?: boolean, maxOutputBytes?: number,
    /// guestLimits?: {...} }`. A named session (default `"main"`, made on first use)
    /// keeps `cd`, variables, functions, aliases and `set` options for its next exec;
    /// `fresh: true` runs in a new session that is dropped afterwards.
    /// Rejects for bad options, or if another exec is still running in this sandbox.
    // Holding the `RefCell` borrow across the await is the point: it marks the sandbox
    // busy for the whole exec, and a second exec meanwhile gets a clear error from
    // `try_borrow_mut` instead of a panic.
    pub fn exec(
        &self,
        script: String,
        on_output: Option<js_sys::Function>,
        options: Option<Object>,
    ) -> js_sys::Promise {
        let sessions = self.sessions.clone();
        let cancel = self.cancel.clone();
        let gate = self.gate.clone();
        let recorder = self.recorder.clone();
        wasm_bindgen_futures::future_to_promise(Yielding::new(async move {
            let op =
                options::exec_options(options.as_ref().map(JsValue::from).as_ref()).map(|choice| {
                    Op::Exec {
                        script: script.clone(),
                        session: choice.session,
                        fresh: choice.fresh,
                        max_output_bytes: choice.max_output_bytes.map(|n| n as u64),
                        guest_limits: options
                            .as_ref()
                            .and_then(|o| js_sys::Reflect::get(o, &"guestLimits".into()).ok())
                            .filter(|v| !v.is_undefined() && !v.is_null())
                            .and_then(|v| js_sys::JSON::stringify(&v).ok())
                            .and_then(|t| t.as_string())
                            .and_then(|t| serde_json::from_str(&t).ok()),
                    }
                });
            let guard = match &recorder {
                Some(recorder) => recorder.begin()?,
                None => None,
            };
            let outcome = run_exec(sessions, cancel, gate, script, on_output, options).await?;
            if let (Some(guard), Ok(op)) = (guard, op) {
                guard.finish(op, recorder::exec_outcome(&outcome));
            }
            Ok(outcome_to_js(&outcome))
        }))
    }

    /// Calls the tool `name` with `args` (JSON text) through the gate and resolves to
    /// its JSON answer: a granted tool through the same check as the shell's `tool`
    /// command and guests' `sandtab.tool_call` (the handler's answer), or sandtab's own
    /// `bash`, `read_file`, `write_file`, `edit_file` under the document's `builtins`
    /// (`{stdout, stderr, exit_code}`, `{content}`, `{bytes_written}`,
    /// `{replacements}`). Every call is in the audit log. Rejects with an `Error` whose
    /// `code` is the stable reason (`CAP_DENIED`, `CAP_BAD_ARGS`, `CAP_CONSTRAINT`,
    /// `CAP_MAX_CALLS`, `CAP_RATE_LIMIT`, `CAP_TOOL_FAILED`; `ENOENT`, `EINVAL`, ... for a
    /// file tool that was allowed and failed).
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(&self, name: String, args: String) -> js_sys::Promise {
        if agent_tools::is_builtin(&name) {
            let context = self.tool_context();
            // `bash` runs a command: the worker must see `cancel` meanwhile.
            return wasm_bindgen_futures::future_to_promise(Yielding::new(async move {
                agent_tools::call_builtin(context, name, args)
                    .await
                    .map(|answer| JsValue::from_str(&answer))
            }));
        }
        let guard = self.begin_op();
        let call = self.gate.call_tool(&name, &args, sandtab_caps::Via::Api);
        wasm_bindgen_futures::future_to_promise(async move {
            let guard = guard?;
            let answer = call.await;
            if let Some(guard) = guard {
                let kept = answer.clone().map_err(|denial| denial.to_string());
                guard.finish(Op::CallTool { name, args }, recorder::answer_outcome(kept));
            }
            answer
                .map(|answer| JsValue::from_str(&answer))
                .map_err(denial_error)
        })
    }

    /// The audit log as JSON Lines: every exec, tool call, request and denial, oldest
    /// first, secrets redacted.
    #[wasm_bindgen(js_name = auditLog)]
    pub fn audit_log(&self) -> String {
        self.gate.audit().to_jsonl()
    }

    /// Ends the shell session `name` (its variables, `cd` and functions); the files
    /// stay. Whether there was one. Throws while a command runs.
    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(&self, name: &str) -> Result<bool, JsError> {
        let mut sessions = self
            .sessions
            .try_borrow_mut()
            .map_err(|_| JsError::new("sandbox is busy: another command is still running"))?;
        let closed = sessions.close(name);
        // Recorded: a session made again later starts afresh in the replay too.
        if let Some(guard) = self
            .begin_op()
            .map_err(|_| JsError::new("busy recording"))?
        {
            let answer = recorder::answer_outcome(Ok(closed.to_string()));
            guard.finish(
                Op::CloseSession {
                    name: name.to_owned(),
                },
                answer,
            );
        }
        Ok(closed)
    }

    /// The names of the shell sessions that exist, sorted.
    #[wasm_bindgen(js_name = sessionNames)]
    pub fn session_names(&self) -> Result<Vec<String>, JsError> {
        let sessions = self
            .sessions
            .try_borrow()
            .map_err(|_| JsError::new("sandbox is busy: another command is still running"))?;
        Ok(sessions.names())
    }

    /// Installs a WebAssembly (WASI) program as the commands `names`, for example
    /// CPython as `["python3", "python"]`. With `sha256` (hex), a module whose hash
    /// differs refuses to run. Compiling happens here, so the first run starts at once;
    /// throws an `Error` for a module that is not valid WebAssembly.
    #[wasm_bindgen(js_name = installProgram)]
    pub fn install_program(
        &self,
        names: Vec<String>,
        module: Vec<u8>,
        sha256: Option<String>,
    ) -> Result<(), JsError> {
        let mut sessions = self
            .sessions
            .try_borrow_mut()
            .map_err(|_| JsError::new("sandbox is busy: another command is still running"))?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let Some(first) = names.first().copied() else {
            return Err(JsError::new(
                "installProgram needs at least one command name",
            ));
        };
        if let Some(bad) = names
            .iter()
            .find(|name| name.is_empty() || name.contains(['/', ' ', '\t', '\n']))
        {
            return Err(JsError::new(&format!("not a command name: {bad:?}")));
        }
        sessions
            .install_program(&names, Arc::new(module), sha256)
            .map_err(|err| JsError::new(&format!("{first}: {err}")))
    }

    /// Stops the running exec (it ends with exit status 130); files are kept.
    pub fn cancel(&self) {
        if let Some(cancel) = &*self.cancel.borrow() {
            cancel.cancel();
        }
    }

    /// Entries of a directory, sorted by name: `[{ name, kind, size, modified }]`
    /// (`modified`: milliseconds since the epoch), where `kind` is
    /// `"file"`, `"dir"` or `"symlink"`.
    #[wasm_bindgen(js_name = listDir)]
    pub fn list_dir(&self, path: &str) -> Result<Array, JsValue> {
        let path = parse_path(path)?;
        let entries = self.fs.mem().read_dir(&path).map_err(vfs_error)?;
        let list = Array::new();
        for entry in entries {
            let object = Object::new();
            set(&object, "name", &JsValue::from_str(&entry.name));
            set(
                &object,
                "kind",
                &JsValue::from_str(entry_kind(entry.metadata.kind)),
            );
            set(
                &object,
                "size",
                &JsValue::from_f64(entry.metadata.size as f64),
            );
            // Milliseconds with a fraction: nanosecond times keep microseconds in an f64,
            // enough for a page to tell that a file changed between two listings.
            set(
                &object,
                "modified",
                &JsValue::from_f64(entry.metadata.modified.0 as f64 / 1e6),
            );
            list.push(&object);
        }
        Ok(list)
    }

    /// The bytes of a file (loaded from storage on first read).
    #[wasm_bindgen(js_name = readFile)]
    pub async fn read_file(&self, path: String) -> Result<Uint8Array, JsValue> {
        let path = parse_path(&path)?;
        // A large file not yet loaded goes from the OPFS log straight into the array.
        if let Some(opfs) = &self.opfs
            && let Some(stored) = self.fs.stored_location(&path)
            && stored.offset == 0
            && stored.size > PACK_MAX_FILE as u64
        {
            return opfs
                .read_blob(stored.blob, stored.size)
                .map_err(|err| vfs_error(SandboxFs::read_failed(&path, &err)));
        }
        // Otherwise straight from storage into one JS array: a file not yet loaded is
        // neither loaded into the runtime's memory nor copied twice.
        let mut sink = ArraySink::default();
        self.fs
            .read_into(&path, &mut sink)
            .await
            .map_err(vfs_error)?;
        Ok(sink.into_array())
    }

    /// Writes a file (its directory must exist), replacing what was there, and saves it.
    #[wasm_bindgen(js_name = writeFile)]
    pub async fn write_file(&self, path: String, data: Vec<u8>) -> Result<(), JsValue> {
        let guard = self.begin_op()?;
        let kept = guard.as_ref().map(|_| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(&data)
        });
        let result = self.write_bytes(&path, data).await;
        if let (Some(guard), Some(data)) = (guard, kept) {
            let answer = result
                .as_ref()
                .map(|()| String::new())
                .map_err(ToString::to_string);
            guard.finish(
                Op::WriteFile { path, data },
                recorder::answer_outcome(answer),
            );
        }
        // A refused write keeps its errno name as `code` (EDQUOT for a full quota).
        result.map_err(vfs_error)
    }

    /// Saves every change not yet saved; resolves to `{ records, bytes }` written.
    pub async fn flush(&self) -> Result<Object, JsValue> {
        let stats = self.fs.flush().await.map_err(vfs_error)?;
        Ok(counts(&[
            ("records", stats.records as u64),
            ("bytes", stats.bytes as u64),
        ]))
    }

    /// `{ bytes, files, dirs }` in use, and the quota: `{ maxBytes, maxEntries,
    /// maxFileSize }`.
    pub fn usage(&self) -> Object {
        let usage = self.fs.mem().usage();
        let quota = self.fs.mem().quota();
        counts(&[
            ("bytes", usage.bytes),
            ("files", usage.files),
            ("dirs", usage.dirs),
            ("maxBytes", quota.max_bytes),
            ("maxEntries", quota.max_entries),
            ("maxFileSize", quota.max_file_size),
        ])
    }

    /// Saves, then records the files as a snapshot; resolves to `{ id, label, created,
    /// files, bytes }`. Contents are shared, not copied.
    pub async fn snapshot(&self, label: String) -> Result<Object, JsValue> {
        let info = self.fs.snapshot(&label).await.map_err(vfs_error)?;
        Ok(snapshot_to_js(&info))
    }

    /// The snapshots kept, oldest first.
    pub fn snapshots(&self) -> Array {
        self.fs
            .snapshots()
            .iter()
            .map(|info| JsValue::from(snapshot_to_js(info)))
            .collect()
    }

    /// Makes the files exactly what snapshot `id` holds (unsaved and later changes go).
    pub async fn restore(&self, id: f64) -> Result<(), JsValue> {
        self.fs.restore(id as u64).await.map_err(vfs_error)
    }

    /// Deletes snapshot `id` and the contents only it kept.
    #[wasm_bindgen(js_name = deleteSnapshot)]
    pub async fn delete_snapshot(&self, id: f64) -> Result<(), JsValue> {
        self.fs.delete_snapshot(id as u64).await.map_err(vfs_error)
    }

    /// Copies the files (or snapshot `snapshotId`'s) into a new stored sandbox
    /// `newName` (kept where this one is), which must not exist yet.
    pub async fn fork(&self, new_name: String, snapshot_id: Option<f64>) -> Result<(), JsValue> {
        if new_name == self.name {
            return Err(JsError::new("a fork needs a name of its own").into());
        }
        let snapshot = snapshot_id.map(|id| id as u64);
        let result = if self.storage == StorageKind::Opfs {
            let target = OpfsStore::open(&new_name).await.map_err(vfs_error)?;
            self.fs.fork_into(snapshot, &target).await
        } else {
            let target = IdbStore::open(&new_name).await.map_err(vfs_error)?;
            self.fs.fork_into(snapshot, &target).await
        };
        result.map_err(vfs_error)
    }

    /// A tar archive of the files below `path` (default `/`), mounts left out.
    #[wasm_bindgen(js_name = exportTar)]
    pub async fn export_tar(&self, path: Option<String>) -> Result<Uint8Array, JsValue> {
        let root = parse_path(path.as_deref().unwrap_or("/"))?;
        let archive = self.fs.export_tar(&root).await.map_err(vfs_error)?;
        Ok(Uint8Array::from(archive.as_slice()))
    }

    /// Unpacks a tar archive below `path` (default `/`) and saves; resolves to
    /// `{ files, directories, symlinks, skipped }`.
    #[wasm_bindgen(js_name = importTar)]
    pub async fn import_tar(&self, data: Vec<u8>, path: Option<String>) -> Result<Object, JsValue> {
        let root = parse_path(path.as_deref().unwrap_or("/"))?;
        let result = self.fs.import_tar(&root, &data).await;
        // Whatever was imported before a failure is saved too: nothing half-kept.
        self.fs.flush().await.map_err(vfs_error)?;
        let stats = result.map_err(vfs_error)?;
        Ok(counts(&[
            ("files", stats.files),
            ("directories", stats.directories),
            ("symlinks", stats.symlinks),
            ("skipped", stats.skipped),
        ]))
    }

    /// Saves, then reads every stored record back and checks it: resolves to
    /// `{ clean, summary, problems, inodes, files, bytesChecked }`.
    pub async fn fsck(&self) -> Result<Object, JsValue> {
        let Some(store) = self.fs.store() else {
            let object = Object::new();
            set(&object, "clean", &JsValue::TRUE);
            set(
                &object,
                "summary",
                &JsValue::from_str("kept in memory: nothing stored to check"),
            );
            set(&object, "problems", &Array::new());
            return Ok(object);
        };
        self.fs.flush().await.map_err(vfs_error)?;
        let report = fsck(store.as_ref()).await.map_err(vfs_error)?;
        Ok(fsck_to_js(&report))
    }
}

impl Sandbox {
    /// Starts an operation on the tape of a recording sandbox (`None` otherwise).
    fn begin_op(&self) -> Result<Option<recorder::OpGuard>, JsValue> {
        match &self.recorder {
            Some(recorder) => recorder.begin(),
            None => Ok(None),
        }
    }

    /// `writeFile`'s work: replace the file and save it.
    async fn write_bytes(&self, path: &str, data: Vec<u8>) -> VfsResult<()> {
        let path = VfsPath::parse(path)?;
        self.fs.mem().write_owned(&path, data)?;
        self.fs.flush().await?;
        Ok(())
    }
}
