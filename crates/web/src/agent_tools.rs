//! The sandbox's own tools as a model calls them: their definitions (OpenAI, Anthropic,
//! MCP formats), the file tools, and `fetch` through the network policy. The page's
//! `Sandbox.callTool` dispatches to these (and `bash` to `exec`).

use crate::convert::{set, vfs_error};
use crate::recorder::{answer_outcome, fetch_answer, request_json};
use crate::{Sandbox, denial_error};
use js_sys::{Array, Object, Reflect, Uint8Array};
use sandtab_caps::{Format, HttpRequest, UiAction, Via};
use sandtab_shell::ShellError;
use sandtab_shell::file_tools;
use sandtab_shell::replay::Op;
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
    /// `offset..offset+limit` of it.
    #[wasm_bindgen(js_name = readText)]
    pub async fn read_text(
        &self,
        path: String,
        offset: Option<u32>,
        limit: Option<u32>,
    ) -> Result<String, JsValue> {
        file_tools::read_file(
            &self.fs,
            &path,
            offset.map(|n| n as usize),
            limit.map(|n| n as usize),
        )
        .await
        .map_err(tool_error)
    }

    /// `write_file`: creates or replaces `path` with `content`, directories made; the
    /// bytes written.
    #[wasm_bindgen(js_name = writeText)]
    pub async fn write_text(&self, path: String, content: String) -> Result<u32, JsValue> {
        let guard = self.begin_op()?;
        let result = file_tools::write_file(&self.fs, &path, &content).await;
        if let Some(guard) = guard {
            let kept = result
                .as_ref()
                .map(ToString::to_string)
                .map_err(ToString::to_string);
            guard.finish(Op::WriteText { path, content }, answer_outcome(kept));
        }
        result.map(|n| n as u32).map_err(tool_error)
    }

    /// `edit_file`: replaces the exact `old` (unique unless `replaceAll`) by `new`; the
    /// number of replacements.
    #[wasm_bindgen(js_name = editFile)]
    pub async fn edit_file(
        &self,
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    ) -> Result<u32, JsValue> {
        let guard = self.begin_op()?;
        let result = file_tools::edit_file(&self.fs, &path, &old, &new, replace_all).await;
        if let Some(guard) = guard {
            let kept = result
                .as_ref()
                .map(ToString::to_string)
                .map_err(ToString::to_string);
            let op = Op::EditFile {
                path,
                old_string: old,
                new_string: new,
                replace_all,
            };
            guard.finish(op, answer_outcome(kept));
        }
        result.map(|n| n as u32).map_err(tool_error)
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
