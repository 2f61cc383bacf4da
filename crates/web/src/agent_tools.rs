//! The sandbox's own tools as a model calls them: their definitions (OpenAI, Anthropic,
//! MCP formats), `bash` and the file tools through the gate (the document's `builtins`,
//! their schemas and limits, the audit log), and `fetch` through the network policy.
//! The page's `Sandbox.callTool` dispatches to these.

use crate::convert::{set, vfs_error};
use crate::recorder::{Recorder, answer_outcome, fetch_answer, request_json};
use crate::{Sandbox, denial_error};
use js_sys::{Array, Object, Reflect, Uint8Array};
use sandtab_caps::{Format, GATED_BUILTINS, HttpRequest, UiAction, Via, home_path};
use sandtab_shell::file_tools::{self, ToolCallError};
use sandtab_shell::replay::Op;
use sandtab_shell::{CancelHandle, Gate, Sessions, ShellError};
use sandtab_vfs::SandboxFs;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// A file tool's error as a JS `Error`: the errno name as `code` for filesystem errors,
/// `EINVAL` for a request the tool refuses (not found, not unique, not text).
fn tool_error(err: ShellError) -> JsValue {
    match err {
        ShellError::Filesystem(vfs) => vfs_error(vfs),
        other => {
            let error = js_sys::Error::new(&other.to_string());
            set(&error, "code", &JsValue::from_str("EINVAL"));
            error.into()
        }
    }
}

fn call_error(err: ToolCallError) -> JsValue {
    match err {
        ToolCallError::Denied(denial) => denial_error(denial),
        ToolCallError::Failed(err) => tool_error(err),
    }
}

/// Whether `callTool(name, ...)` names one of sandtab's own tools that run here (`bash`
/// and the file tools), rather than a granted tool.
pub(crate) fn is_builtin(name: &str) -> bool {
    GATED_BUILTINS.contains(&name)
}

/// What a built-in tool call needs of its sandbox, owned: the call's future outlives
/// the borrow of the sandbox.
pub(crate) struct ToolContext {
    gate: Arc<Gate>,
    fs: Arc<SandboxFs>,
    sessions: Rc<RefCell<Sessions>>,
    cancel: Rc<RefCell<Option<CancelHandle>>>,
    recorder: Option<Rc<Recorder>>,
}

impl Sandbox {
    pub(crate) fn tool_context(&self) -> ToolContext {
        ToolContext {
            gate: self.gate.clone(),
            fs: self.fs.clone(),
            sessions: self.sessions.clone(),
            cancel: self.cancel.clone(),
            recorder: self.recorder.clone(),
        }
    }
}

/// The message of a JS error (for the audit log).
fn error_text(err: &JsValue) -> String {
    Reflect::get(err, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "the tool failed".into())
}

/// Calls sandtab's own tool `name` (`bash`, `read_file`, `write_file`, `edit_file`)
/// with JSON `args` through the gate; the answer as JSON text (`{stdout, stderr,
/// exit_code}`, `{content}`, `{bytes_written}`, `{replacements}`). A refusal rejects
/// with its `CAP_...` code and is not recorded (nothing happened); the check reads the
/// clock outside the recorded operation, as the audit line of its end does.
pub(crate) async fn call_builtin(
    ctx: ToolContext,
    name: String,
    args: String,
) -> Result<String, JsValue> {
    if name == "bash" {
        return call_bash(ctx, args).await;
    }
    let call = file_tools::begin(&ctx.gate, &ctx.fs, &name, &args, Via::Api).map_err(call_error)?;
    let op = call.recorded_op();
    let guard = match (&ctx.recorder, &op) {
        (Some(recorder), Some(_)) => match recorder.begin() {
            Ok(guard) => guard,
            Err(err) => {
                // Counted at the gate: its audit line says why it did not run.
                call.finish(&Err(ShellError::FileTool(error_text(&err))));
                return Err(err);
            }
        },
        _ => None,
    };
    let answer = call.perform(&ctx.fs).await;
    if let (Some(guard), Some(op)) = (guard, op) {
        // Kept as `writeText`/`editFile` kept it: the count as text.
        let kept = answer
            .as_ref()
            .map(|value| {
                value
                    .get("bytes_written")
                    .or_else(|| value.get("replacements"))
                    .map_or_else(String::new, ToString::to_string)
            })
            .map_err(ToString::to_string);
        guard.finish(op, answer_outcome(kept));
    }
    call.finish(&answer);
    answer.map(|value| value.to_string()).map_err(tool_error)
}

/// `bash`: `{command, session?}` through the gate, then run as `exec` runs it (recorded
/// as an exec); `{stdout, stderr, exit_code}` with any truncation note appended.
async fn call_bash(ctx: ToolContext, args: String) -> Result<String, JsValue> {
    let call = ctx
        .gate
        .begin_builtin("bash", &args, Via::Api, &|path: &str| Ok(home_path(path)))
        .map_err(denial_error)?;
    let script = call
        .args()
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let session = call
        .args()
        .get("session")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let options = Object::new();
    if let Some(session) = &session {
        set(&options, "session", &JsValue::from_str(session));
    }
    let guard = match ctx.recorder.as_ref().map(|recorder| recorder.begin()) {
        Some(Ok(guard)) => guard,
        Some(Err(err)) => {
            call.finish(Err(&error_text(&err)));
            return Err(err);
        }
        None => None,
    };
    let outcome = crate::run_exec(
        ctx.sessions,
        ctx.cancel,
        ctx.gate.clone(),
        script.clone(),
        None,
        Some(options),
    )
    .await;
    if let (Some(guard), Ok(outcome)) = (guard, &outcome) {
        let op = Op::Exec {
            script,
            session,
            fresh: false,
            max_output_bytes: None,
            guest_limits: None,
        };
        guard.finish(op, crate::recorder::exec_outcome(outcome));
    }
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(err) => {
            call.finish(Err(&error_text(&err)));
            return Err(err);
        }
    };
    let text = |bytes: &[u8], stream| {
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        if let Some(note) = outcome.truncation_note(stream) {
            text.push_str(&note);
        }
        text
    };
    let answer = json!({
        "stdout": text(&outcome.stdout, sandtab_shell::Stream::Stdout),
        "stderr": text(&outcome.stderr, sandtab_shell::Stream::Stderr),
        "exit_code": outcome.exit_code,
    })
    .to_string();
    call.finish(Ok(answer.len()));
    Ok(answer)
}

#[wasm_bindgen]
impl Sandbox {
    /// The sandbox's tools (its own, then the granted ones) as a JSON array in `format`:
    /// `"openai"`, `"anthropic"` or `"mcp"`.
    #[wasm_bindgen(js_name = toolDefinitions)]
    pub fn tool_definitions(&self, format: &str) -> Result<String, JsError> {
        let format = Format::parse(format).ok_or_else(|| {
            JsError::new(&format!(
                "unknown tool format {format:?}: use \"openai\", \"anthropic\" or \"mcp\""
            ))
        })?;
        Ok(sandtab_caps::definitions_json(self.gate.capabilities(), format).to_string())
    }

    /// `read_file`: the text of `path` (relative to /home/agent), or lines
    /// `offset..offset+limit` of it; through the gate, as `callTool('read_file')`.
    #[wasm_bindgen(js_name = readText)]
    pub async fn read_text(
        &self,
        path: String,
        offset: Option<u32>,
        limit: Option<u32>,
    ) -> Result<String, JsValue> {
        let mut args = json!({ "path": path });
        if let Some(offset) = offset {
            args["offset"] = json!(offset);
        }
        if let Some(limit) = limit {
            args["limit"] = json!(limit);
        }
        let answer =
            call_builtin(self.tool_context(), "read_file".into(), args.to_string()).await?;
        let value: Value = serde_json::from_str(&answer).unwrap_or_default();
        Ok(value["content"].as_str().unwrap_or_default().to_owned())
    }

    /// `write_file`: creates or replaces `path` with `content`, directories made; the
    /// bytes written. Through the gate, as `callTool('write_file')`.
    #[wasm_bindgen(js_name = writeText)]
    pub async fn write_text(&self, path: String, content: String) -> Result<u32, JsValue> {
        let args = json!({ "path": path, "content": content }).to_string();
        let answer = call_builtin(self.tool_context(), "write_file".into(), args).await?;
        let value: Value = serde_json::from_str(&answer).unwrap_or_default();
        Ok(value["bytes_written"].as_u64().unwrap_or(0) as u32)
    }

    /// `edit_file`: replaces the exact `old` (unique unless `replaceAll`) by `new`; the
    /// number of replacements. Through the gate, as `callTool('edit_file')`.
    #[wasm_bindgen(js_name = editFile)]
    pub async fn edit_file(
        &self,
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    ) -> Result<u32, JsValue> {
        let args = json!({ "path": path, "old_string": old, "new_string": new,
                           "replace_all": replace_all })
        .to_string();
        let answer = call_builtin(self.tool_context(), "edit_file".into(), args).await?;
        let value: Value = serde_json::from_str(&answer).unwrap_or_default();
        Ok(value["replacements"].as_u64().unwrap_or(0) as u32)
    }

    /// The `ui` door (the document must grant `ui`): `action` is `"show"` (with
    /// `html`, `title`), `"wait"` (with `timeoutMs`; resolves to the event's JSON or
    /// null) or `"close"`.
    pub fn ui(
        &self,
        action: String,
        html: Option<String>,
        title: Option<String>,
        timeout_ms: Option<f64>,
    ) -> js_sys::Promise {
        let action = match action.as_str() {
            "show" => Ok(UiAction::Show {
                html: html.unwrap_or_default(),
                title: title.unwrap_or_else(|| "sandbox ui".into()),
            }),
            "wait" => Ok(UiAction::Wait {
                timeout_ms: timeout_ms.unwrap_or(300_000.0).max(0.0) as u64,
            }),
            "close" => Ok(UiAction::Close),
            other => Err(format!("unknown ui action {other:?}: show, wait or close")),
        };
        let gate = self.gate.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let action = action.map_err(|message| JsValue::from(JsError::new(&message)))?;
            let event = gate.ui(action, Via::Api).await.map_err(denial_error)?;
            Ok(event.map_or(JsValue::NULL, |e| JsValue::from_str(&e)))
        })
    }

    /// `fetch`: `{ url, method?, headers?: {name: value}, body?: string | Uint8Array,
    /// follow?: boolean }` through the network policy (the same as `curl`'s); resolves
    /// to `{ status, statusText, headers: [[name, value]], url, redirected, body:
    /// Uint8Array }`, or rejects with an `Error` whose `code` is `CAP_...`.
    pub fn fetch(&self, request: JsValue) -> js_sys::Promise {
        let parsed = parse_request(&request);
        let gate = self.gate.clone();
        let guard = self.begin_op();
        wasm_bindgen_futures::future_to_promise(async move {
            let guard = guard?;
            let request = parsed.map_err(|message| JsValue::from(JsError::new(&message)))?;
            let kept = request_json(&request);
            let response = gate.fetch(request, Via::Api).await;
            if let Some(guard) = guard {
                let answer = response
                    .as_ref()
                    .map(fetch_answer)
                    .map_err(ToString::to_string);
                guard.finish(Op::Fetch { request: kept }, answer_outcome(answer));
            }
            let response = response.map_err(denial_error)?;
            let object = Object::new();
            set(&object, "status", &JsValue::from(response.status));
            set(
                &object,
                "statusText",
                &JsValue::from_str(&response.status_text),
            );
            let headers: Array = response
                .headers
                .iter()
                .map(|(n, v)| Array::of2(&n.into(), &v.into()))
                .collect();
            set(&object, "headers", &headers);
            set(&object, "url", &JsValue::from_str(&response.url));
            set(&object, "redirected", &JsValue::from(response.redirected));
            set(&object, "body", &Uint8Array::from(response.body.as_slice()));
            Ok(object.into())
        })
    }
}

fn parse_request(value: &JsValue) -> Result<HttpRequest, String> {
    if !value.is_object() {
        return Err("fetch needs { url, method?, headers?, body?, follow? }".into());
    }
    let get = |key: &str| Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let url = get("url")
        .as_string()
        .ok_or("fetch: `url` must be a string")?;
    let method = match get("method") {
        m if m.is_undefined() || m.is_null() => "GET".to_owned(),
        m => m.as_string().ok_or("fetch: `method` must be a string")?,
    };
    let mut headers = Vec::new();
    let given = get("headers");
    if !given.is_undefined() && !given.is_null() {
        if !given.is_object() {
            return Err("fetch: `headers` must be an object of strings".into());
        }
        for key in Object::keys(given.unchecked_ref::<Object>()).iter() {
            let name = key.as_string().unwrap_or_default();
            let v = Reflect::get(&given, &key)
                .ok()
                .and_then(|v| v.as_string())
                .ok_or_else(|| format!("fetch: header `{name}` must be a string"))?;
            headers.push((name, v));
        }
    }
    let body = match get("body") {
        b if b.is_undefined() || b.is_null() => None,
        b if b.is_string() => b.as_string().map(String::into_bytes),
        b => Some(
            b.dyn_into::<Uint8Array>()
                .map_err(|_| "fetch: `body` must be a string or a Uint8Array")?
                .to_vec(),
        ),
    };
    let follow = get("follow").as_bool().unwrap_or(true);
    Ok(HttpRequest {
        method,
        url,
        headers,
        body,
        follow_redirects: follow,
    })
}
