//! The sandbox's own tools as a model calls them (`bash`, `read_file`, `write_file`,
//! `edit_file` through the gate: the document's `builtins`, their schemas and limits,
//! the audit log), granted tools, `fetch` through the network policy, and the `ui` door.

use crate::error::{RuntimeError, RuntimeResult};
use crate::protocol::{ExecRequest, FetchRequest, FetchResponse, Op, UiRequest};
use crate::recorder::{Recorder, answer_outcome};
use crate::sandbox::Sandbox;
use sandtab_caps::{Format, GATED_BUILTINS, Gate, HttpRequest, UiAction, Via, home_path};
use sandtab_shell::file_tools::{self, ToolCallError};
use sandtab_shell::{ShellError, Stream};
use serde_json::{Value, json};

impl From<ToolCallError> for RuntimeError {
    fn from(err: ToolCallError) -> Self {
        match err {
            ToolCallError::Denied(denial) => denial.into(),
            ToolCallError::Failed(err) => err.into(),
        }
    }
}

/// The tools' definitions for a model, as JSON text in `format`.
pub(crate) fn definitions(gate: &Gate, format: &str) -> RuntimeResult<String> {
    let format = Format::parse(format).ok_or_else(|| {
        RuntimeError::invalid(format!(
            "unknown tool format {format:?}: use \"openai\", \"anthropic\" or \"mcp\""
        ))
    })?;
    Ok(sandtab_caps::definitions_json(gate.capabilities(), format).to_string())
}

/// Calls tool `name` with JSON `args`: sandtab's own through [`call_builtin`], a granted
/// one through the gate to the host's handler. The answer is JSON text.
pub(crate) async fn call_tool(sandbox: &Sandbox, name: &str, args: &str) -> RuntimeResult<String> {
    if GATED_BUILTINS.contains(&name) {
        let recorder = sandbox.recorder.as_ref().filter(|r| r.records());
        return call_builtin(sandbox, name, args, recorder).await;
    }
    Ok(sandbox.gate.call_tool(name, args, Via::Api).await?)
}

/// Calls sandtab's own tool `name` through the gate; `recorder` keeps what it changed
/// (`write_file`/`edit_file` as `writeText`/`editFile`, `bash` as an exec). A refusal is
/// not recorded: nothing happened.
pub(crate) async fn call_builtin(
    sandbox: &Sandbox,
    name: &str,
    args: &str,
    recorder: Option<&Recorder>,
) -> RuntimeResult<String> {
    if name == "bash" {
        return call_bash(sandbox, args, recorder).await;
    }
    let call = file_tools::begin(&sandbox.gate, &sandbox.fs, name, args, Via::Api)?;
    let op = call.recorded_op();
    let guard = match (recorder, &op) {
        (Some(recorder), Some(_)) => match recorder.begin() {
            Ok(guard) => Some(guard),
            Err(err) => {
                // Counted at the gate: its audit line says why it did not run.
                call.finish(&Err(ShellError::FileTool(err.message.clone())));
                return Err(err);
            }
        },
        _ => None,
    };
    let answer = call.perform(&sandbox.fs).await;
    if let (Some(guard), Some(op)) = (guard, op) {
        // Kept as the `writeText`/`editFile` ops keep it: the count as text.
        let kept = answer
            .as_ref()
            .map(|value| {
                value
                    .get("bytes_written")
                    .or_else(|| value.get("replacements"))
                    .map_or_else(String::new, ToString::to_string)
            })
            .map_err(ToString::to_string);
        guard.finish(crate::recording::from_legacy_op(op)?, answer_outcome(kept));
    }
    call.finish(&answer);
    Ok(answer?.to_string())
}

/// `bash`: `{command, session?}` through the gate, then run as an exec; `{stdout,
/// stderr, exit_code}` with any truncation note appended.
async fn call_bash(
    sandbox: &Sandbox,
    args: &str,
    recorder: Option<&Recorder>,
) -> RuntimeResult<String> {
    let call = sandbox
        .gate
        .begin_builtin("bash", args, Via::Api, &|path: &str| Ok(home_path(path)))?;
    let request = ExecRequest {
        script: call
            .args()
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        session: call
            .args()
            .get("session")
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..ExecRequest::default()
    };
    let guard = match recorder.map(Recorder::begin) {
        Some(Ok(guard)) => Some(guard),
        Some(Err(err)) => {
            call.finish(Err(&err.message));
            return Err(err);
        }
        None => None,
    };
    let outcome = crate::exec::run(sandbox, &request, &mut |_: Stream, _: &[u8]| {}).await;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(err) => {
            call.finish(Err(&err.message));
            return Err(err);
        }
    };
    if let Some(guard) = guard {
        guard.finish(
            Op::Exec(request),
            crate::recorder::exec_outcome(&outcome.stdout, &outcome.stderr, &outcome),
        );
    }
    let text = |bytes: &[u8], stream| {
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        if let Some(note) = outcome.truncation_note(stream) {
            text.push_str(&note);
        }
        text
    };
    let answer = json!({
        "stdout": text(&outcome.stdout, Stream::Stdout),
        "stderr": text(&outcome.stderr, Stream::Stderr),
        "exit_code": outcome.exit_code,
    })
    .to_string();
    call.finish(Ok(answer.len()));
    Ok(answer)
}

/// A file tool's answer field.
async fn file_tool(
    sandbox: &Sandbox,
    name: &str,
    args: Value,
    field: &str,
) -> RuntimeResult<Value> {
    let recorder = sandbox.recorder.as_ref().filter(|r| r.records());
    let answer = call_builtin(sandbox, name, &args.to_string(), recorder).await?;
    let value: Value = serde_json::from_str(&answer).unwrap_or_default();
    Ok(value[field].clone())
}

/// `read_file`: the text of `path` (relative to /home/agent), or lines
/// `offset..offset+limit` of it.
pub(crate) async fn read_text(
    sandbox: &Sandbox,
    path: String,
    offset: Option<u32>,
    limit: Option<u32>,
) -> RuntimeResult<String> {
    let mut args = json!({ "path": path });
    if let Some(offset) = offset {
        args["offset"] = json!(offset);
    }
    if let Some(limit) = limit {
        args["limit"] = json!(limit);
    }
    let content = file_tool(sandbox, "read_file", args, "content").await?;
    Ok(content.as_str().unwrap_or_default().to_owned())
}

/// `write_file`: creates or replaces `path` with `content`; the bytes written.
pub(crate) async fn write_text(
    sandbox: &Sandbox,
    path: String,
    content: String,
) -> RuntimeResult<u64> {
    let args = json!({ "path": path, "content": content });
    Ok(file_tool(sandbox, "write_file", args, "bytes_written")
        .await?
        .as_u64()
        .unwrap_or(0))
}

/// `edit_file`: replaces the exact `old` (unique unless `replace_all`) by `new`; the
/// number of replacements.
pub(crate) async fn edit_file(
    sandbox: &Sandbox,
    path: String,
    old: String,
    new: String,
    replace_all: bool,
) -> RuntimeResult<u64> {
    let args = json!({ "path": path, "old_string": old, "new_string": new,
                       "replace_all": replace_all });
    Ok(file_tool(sandbox, "edit_file", args, "replacements")
        .await?
        .as_u64()
        .unwrap_or(0))
}

/// The gate's request for `request`.
pub(crate) fn http_request(request: FetchRequest) -> HttpRequest {
    HttpRequest {
        method: request.method.unwrap_or_else(|| "GET".into()),
        url: request.url,
        headers: request.headers,
        body: request.body.map(|b| b.0),
        follow_redirects: request.follow.unwrap_or(true),
    }
}

/// A request through the network policy (the same as `curl`'s).
pub(crate) async fn fetch(
    sandbox: &Sandbox,
    request: FetchRequest,
) -> RuntimeResult<FetchResponse> {
    let response = sandbox.gate.fetch(http_request(request), Via::Api).await?;
    Ok(FetchResponse {
        status: response.status,
        status_text: response.status_text,
        headers: response.headers,
        url: response.url,
        redirected: response.redirected,
        body: response.body.into(),
    })
}

/// The `ui` door (the document must grant `ui`).
pub(crate) async fn ui(sandbox: &Sandbox, request: UiRequest) -> RuntimeResult<Option<String>> {
    let action = match request {
        UiRequest::Show { html, title } => UiAction::Show {
            html,
            title: title.unwrap_or_else(|| "sandbox ui".into()),
        },
        UiRequest::Wait { timeout_ms } => UiAction::Wait {
            timeout_ms: timeout_ms.unwrap_or(300_000),
        },
        UiRequest::Close => UiAction::Close,
    };
    Ok(sandbox.gate.ui(action, Via::Api).await?)
}
