//! Recording a sandbox and replaying a recording (`record: true`, `replay: RECORDING`).
//! A recording sandbox keeps each operation the page asks for (exec, callTool,
//! writeFile and the agent's file tools, fetch) with the inputs it consumed from the
//! tape and its outcome; `recording()` gives them as JSON. A replaying sandbox is a
//! fresh one in memory whose sources give back the recorded inputs and whose doors are
//! shut; `replay()` runs every operation again and reports any difference in outcome or
//! in the final file tree.

use crate::Sandbox;
use crate::convert::set;
use js_sys::{Array, Object};
use sandtab_caps::{HttpRequest, Via};
use sandtab_shell::ExecOutcome;
use sandtab_shell::file_tools;
use sandtab_shell::replay::{
    Inputs, Op, Outcome, OutputDigest, RECORDING_FORMAT, RECORDING_VERSION, RecordedOp, Recording,
    Tape, TapeMode, tree_digest,
};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// The tape of a recording or replaying sandbox, and what it has kept.
#[derive(Debug)]
pub(crate) struct Recorder {
    pub(crate) tape: Arc<Tape>,
    /// The inputs opening the sandbox consumed (its new tree's times, MCP servers).
    opening: RefCell<Inputs>,
    ops: RefCell<Vec<RecordedOp>>,
    /// The options a replay needs.
    options: Value,
    /// The recording being replayed.
    replaying: Option<Box<Recording>>,
    /// The shell's own clocks and random draws on the tape (not for a replay of a
    /// recording older than that).
    _shell_sources: Option<crate::shell_sources::OnTape>,
}

/// An operation under way on the tape; dropped unfinished (it failed before it ran),
/// it leaves nothing behind.
pub(crate) struct OpGuard {
    recorder: Rc<Recorder>,
    done: bool,
}

impl OpGuard {
    /// Keeps `op` with the inputs it consumed and its `outcome`.
    pub(crate) fn finish(mut self, op: Op, outcome: Outcome) {
        self.done = true;
        let inputs = self.recorder.tape.end();
        self.recorder.ops.borrow_mut().push(RecordedOp {
            op,
            inputs,
            outcome,
        });
    }
}

impl Drop for OpGuard {
    fn drop(&mut self) {
        if !self.done {
            self.recorder.tape.end();
        }
    }
}

impl Recorder {
    /// A recorder taking `options` down, or replaying `recording`.
    pub(crate) fn new(mode: TapeMode, options: Value, replaying: Option<Box<Recording>>) -> Self {
        let tape = Arc::new(Tape::new(mode));
        let tapes_the_shell = replaying.as_ref().is_none_or(|r| r.tapes_the_shell());
        Self {
            _shell_sources: tapes_the_shell.then(|| crate::shell_sources::put_on(tape.clone())),
            tape,
            opening: RefCell::default(),
            ops: RefCell::default(),
            options,
            replaying,
        }
    }

    /// Starts opening the sandbox on the tape.
    pub(crate) fn begin_opening(&self) {
        let inputs = self
            .replaying
            .as_ref()
            .map(|r| r.opening.clone())
            .unwrap_or_default();
        self.tape.begin(inputs);
    }

    /// The sandbox is open.
    pub(crate) fn end_opening(&self) {
        *self.opening.borrow_mut() = self.tape.end();
    }

    /// Starts an operation to record, if this recorder records; one at a time.
    pub(crate) fn begin(self: &Rc<Self>) -> Result<Option<OpGuard>, JsValue> {
        if self.tape.mode() != TapeMode::Record {
            return Ok(None);
        }
        if self.tape.active() {
            return Err(JsError::new(
                "this sandbox is recording: one operation at a time (wait for the one running)",
            )
            .into());
        }
        self.tape.begin(Inputs::default());
        Ok(Some(OpGuard {
            recorder: self.clone(),
            done: false,
        }))
    }
}

/// An exec's outcome as a recording keeps it.
pub(crate) fn exec_outcome(outcome: &ExecOutcome) -> Outcome {
    Outcome {
        exit_code: Some(outcome.exit_code),
        stdout: Some(OutputDigest::of(&outcome.stdout, outcome.stdout_total)),
        stderr: Some(OutputDigest::of(&outcome.stderr, outcome.stderr_total)),
        answer: None,
    }
}

/// Any other operation's outcome.
pub(crate) fn answer_outcome(answer: Result<String, String>) -> Outcome {
    Outcome {
        answer: Some(match answer {
            Ok(text) => format!("ok: {text}"),
            Err(text) => format!("error: {text}"),
        }),
        ..Outcome::default()
    }
}

/// A request as a recording keeps it.
pub(crate) fn request_json(request: &HttpRequest) -> Value {
    use base64::Engine;
    json!({
        "method": request.method,
        "url": request.url,
        "headers": request.headers,
        "body": request.body.as_ref().map(|b| base64::engine::general_purpose::STANDARD.encode(b)),
        "follow": request.follow_redirects,
    })
}

fn request_from_json(value: &Value) -> Result<HttpRequest, String> {
    use base64::Engine;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let headers: Vec<(String, String)> = serde_json::from_value(value["headers"].clone())
        .map_err(|err| format!("a recorded request's headers: {err}"))?;
    let body = match text("body") {
        Some(b64) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|_| "a recorded request's body is not base64".to_owned())?,
        ),
        None => None,
    };
    Ok(HttpRequest {
        method: text("method").unwrap_or_else(|| "GET".into()),
        url: text("url").ok_or("a recorded request has no url")?,
        headers,
        body,
        follow_redirects: value["follow"].as_bool().unwrap_or(false),
    })
}

fn js_error(message: impl AsRef<str>) -> JsValue {
    JsError::new(message.as_ref()).into()
}

/// `{ kind, ...}` for one operation, in the report.
fn summary(op: &Op) -> String {
    match op {
        Op::Exec { script, .. } => format!("exec {script:?}"),
        Op::CallTool { name, .. } => format!("callTool {name}"),
        Op::WriteFile { path, .. } => format!("writeFile {path}"),
        Op::WriteText { path, .. } => format!("write_file {path}"),
        Op::EditFile { path, .. } => format!("edit_file {path}"),
        Op::CloseSession { name } => format!("closeSession {name}"),
        Op::Fetch { request } => format!(
            "fetch {}",
            request.get("url").and_then(Value::as_str).unwrap_or("?")
        ),
    }
}

#[wasm_bindgen]
impl Sandbox {
    /// The recording so far (a recording sandbox, `record: true`): `{ format, version,
    /// options, programs, opening, ops: [{ op, ...its arguments, inputs, outcome }],
    /// tree }`, JSON-ready. Give it as `replay` to a new sandbox to replay it.
    pub async fn recording(&self) -> Result<JsValue, JsValue> {
        let recorder = self
            .recorder
            .as_ref()
            .filter(|r| r.tape.mode() == TapeMode::Record)
            .ok_or_else(|| js_error("this sandbox is not recording (open it with record: true)"))?;
        let tree = tree_digest(&self.fs).await.map_err(crate::vfs_error)?;
        let recording = Recording {
            format: RECORDING_FORMAT.into(),
            version: RECORDING_VERSION,
            options: recorder.options.clone(),
            programs: self.program_list(),
            opening: recorder.opening.borrow().clone(),
            ops: recorder.ops.borrow().clone(),
            tree,
        };
        let text = serde_json::to_string(&recording).map_err(|err| js_error(err.to_string()))?;
        js_sys::JSON::parse(&text)
    }

    /// Replays the recording this sandbox was opened with (`replay: RECORDING`): every
    /// operation again, in order, with the recorded inputs and no door open. Resolves to
    /// `{ ok, ops, mismatches: [{ index, op, expected, actual }], divergence, tree:
    /// { expected, actual } }`; `ok` when every outcome and the final tree are the same.
    #[wasm_bindgen(js_name = replay)]
    pub async fn replay_recording(&self) -> Result<JsValue, JsValue> {
        let recorder = self
            .recorder
            .clone()
            .filter(|r| r.tape.mode() == TapeMode::Replay)
            .ok_or_else(|| {
                js_error("this sandbox has no recording to replay (open it with replay: RECORDING)")
            })?;
        let Some(recording) = recorder.replaying.as_ref() else {
            return Err(js_error("this sandbox has no recording to replay"));
        };
        let installed = self.program_list();
        for wanted in &recording.programs {
            if !installed.contains(wanted) {
                return Err(js_error(format!(
                    "the recording ran the program {wanted}, which this sandbox does not have: give the same `programs`"
                )));
            }
        }
        let mismatches = Array::new();
        for (index, recorded) in recording.ops.iter().enumerate() {
            recorder.tape.begin(recorded.inputs.clone());
            let actual = self.run_op(&recorded.op).await;
            recorder.tape.end();
            let actual = match actual {
                Ok(outcome) => outcome,
                Err(message) => answer_outcome(Err(message)),
            };
            if actual != recorded.outcome {
                let item = Object::new();
                set(&item, "index", &JsValue::from(index as u32));
                set(&item, "op", &JsValue::from_str(&summary(&recorded.op)));
                let show = |o: &Outcome| {
                    js_sys::JSON::parse(&serde_json::to_string(o).unwrap_or_default())
                        .unwrap_or(JsValue::NULL)
                };
                set(&item, "expected", &show(&recorded.outcome));
                set(&item, "actual", &show(&actual));
                mismatches.push(&item);
            }
        }
        let tree = tree_digest(&self.fs).await.map_err(crate::vfs_error)?;
        let report = Object::new();
        let same_tree = tree == recording.tree;
        let divergence = recorder.tape.divergence();
        set(
            &report,
            "ok",
            &JsValue::from(mismatches.length() == 0 && same_tree && divergence.is_none()),
        );
        set(&report, "ops", &JsValue::from(recording.ops.len() as u32));
        set(&report, "mismatches", &mismatches);
        set(
            &report,
            "divergence",
            &divergence.map_or(JsValue::NULL, |d| JsValue::from_str(&d)),
        );
        let trees = Object::new();
        set(&trees, "expected", &JsValue::from_str(&recording.tree));
        set(&trees, "actual", &JsValue::from_str(&tree));
        set(&report, "tree", &trees);
        Ok(report.into())
    }
}

impl Sandbox {
    /// The installed programs as a recording lists them: `{ names, sha256 }`.
    fn program_list(&self) -> Vec<Value> {
        self.sessions
            .try_borrow()
            .map(|s| {
                s.programs()
                    .map(|(names, sha256)| json!({"names": names, "sha256": sha256}))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Runs one recorded operation as the page's call would have.
    async fn run_op(&self, op: &Op) -> Result<Outcome, String> {
        let message = |err: JsValue| {
            js_sys::Reflect::get(&err, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| format!("{err:?}"))
        };
        Ok(match op {
            Op::Exec {
                script,
                session,
                fresh,
                max_output_bytes,
                guest_limits,
            } => {
                let mut options = serde_json::Map::new();
                if let Some(session) = session {
                    options.insert("session".into(), json!(session));
                }
                if *fresh {
                    options.insert("fresh".into(), json!(true));
                }
                if let Some(cap) = max_output_bytes {
                    options.insert("maxOutputBytes".into(), json!(cap));
                }
                if let Some(limits) = guest_limits {
                    options.insert("guestLimits".into(), limits.clone());
                }
                let options = Value::Object(options);
                let options: Object = js_sys::JSON::parse(&options.to_string())
                    .map_err(message)?
                    .into();
                let outcome = crate::run_exec(
                    self.sessions.clone(),
                    self.cancel.clone(),
                    self.gate.clone(),
                    script.clone(),
                    None,
                    Some(options),
                )
                .await
                .map_err(message)?;
                exec_outcome(&outcome)
            }
            Op::CallTool { name, args } => answer_outcome(
                self.gate
                    .call_tool(name, args, Via::Api)
                    .await
                    .map_err(|d| d.to_string()),
            ),
            Op::WriteFile { path, data } => {
                use base64::Engine;
                let data = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|_| "a recorded file is not base64".to_owned())?;
                answer_outcome(
                    self.write_bytes(path, data)
                        .await
                        .map(|()| String::new())
                        .map_err(|err| err.to_string()),
                )
            }
            Op::WriteText { path, content } => answer_outcome(
                file_tools::write_file(&self.fs, path, content)
                    .await
                    .map(|n| n.to_string())
                    .map_err(|e| e.to_string()),
            ),
            Op::EditFile {
                path,
                old_string,
                new_string,
                replace_all,
            } => answer_outcome(
                file_tools::edit_file(&self.fs, path, old_string, new_string, *replace_all)
                    .await
                    .map(|n| n.to_string())
                    .map_err(|e| e.to_string()),
            ),
            Op::CloseSession { name } => {
                let mut sessions = self
                    .sessions
                    .try_borrow_mut()
                    .map_err(|_| "the sandbox is busy".to_owned())?;
                answer_outcome(Ok(sessions.close(name).to_string()))
            }
            Op::Fetch { request } => {
                let request = request_from_json(request)?;
                answer_outcome(
                    self.gate
                        .fetch(request, Via::Api)
                        .await
                        .map(|r| fetch_answer(&r))
                        .map_err(|d| d.to_string()),
                )
            }
        })
    }
}

/// A response as an outcome: status, URL and body digest.
pub(crate) fn fetch_answer(response: &sandtab_caps::HttpResponse) -> String {
    format!(
        "{} {} {}",
        response.status,
        response.url,
        OutputDigest::of(&response.body, response.body.len() as u64).sha256
    )
}
