//! The browser's doors behind the capability gate: tool calls go to the page's handlers
//! (`hostCall(name, argsJson) => Promise<string>`), requests to the page's network
//! frame (`netFetch(request) => Promise<response>`, see `web/src/net-broker.ts`), which
//! follows redirects only within the origins the gate names (a Content Security Policy
//! checks every hop) and injects the headers whose values never enter the runtime.

use js_sys::{Array, Object, Reflect, Uint8Array};
use sandtab_caps::{BoxFuture, Code, Denial, DoorRequest, Doors, HttpResponse, UiAction};
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The page's functions, reached through the worker.
#[derive(Debug)]
pub struct WebDoors {
    host_call: SendWrapper<Option<js_sys::Function>>,
    net_fetch: SendWrapper<Option<js_sys::Function>>,
    ui_action: SendWrapper<Option<js_sys::Function>>,
}

impl WebDoors {
    /// Doors to `host_call`, `net_fetch` and `ui_action`; a missing one refuses.
    pub fn new(
        host_call: Option<js_sys::Function>,
        net_fetch: Option<js_sys::Function>,
        ui_action: Option<js_sys::Function>,
    ) -> Self {
        Self {
            host_call: SendWrapper::new(host_call),
            net_fetch: SendWrapper::new(net_fetch),
            ui_action: SendWrapper::new(ui_action),
        }
    }
}

impl WebDoors {
    /// The page's doors from `{ hostCall?, netFetch?, uiAction? }` (each a function).
    pub fn from_js(doors: &JsValue) -> Result<Self, sandtab_runtime::RuntimeError> {
        let get = |key: &str| -> Result<Option<js_sys::Function>, sandtab_runtime::RuntimeError> {
            if doors.is_undefined() || doors.is_null() {
                return Ok(None);
            }
            let value = Reflect::get(doors, &key.into()).unwrap_or(JsValue::UNDEFINED);
            if value.is_undefined() || value.is_null() {
                return Ok(None);
            }
            value.dyn_into().map(Some).map_err(|_| {
                sandtab_runtime::RuntimeError::invalid(format!("doors.{key} must be a function"))
            })
        };
        Ok(Self::new(
            get("hostCall")?,
            get("netFetch")?,
            get("uiAction")?,
        ))
    }
}

impl Doors for WebDoors {
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        let Some(function) = (*self.host_call).clone() else {
            let message = format!("the page has no handler for `{name}`");
            return Box::pin(async move { Err(message) });
        };
        let called = function.call2(
            &JsValue::NULL,
            &JsValue::from_str(name),
            &JsValue::from_str(args),
        );
        Box::pin(SendWrapper::new(async move {
            match settle(called).await {
                Ok(value) => value
                    .as_string()
                    .ok_or_else(|| "the handler did not answer with a JSON string".to_owned()),
                Err(err) => Err(error_text(&err)),
            }
        }))
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let Some(function) = (*self.net_fetch).clone() else {
            return Box::pin(async {
                Err(Denial::new(
                    Code::NetFailed,
                    "this sandbox's host cannot make network requests",
                ))
            });
        };
        let called = function.call1(&JsValue::NULL, &request_to_js(&request));
        Box::pin(SendWrapper::new(async move {
            match settle(called).await {
                Ok(value) => response_from_js(&value),
                Err(err) => {
                    let code = Reflect::get(&err, &"code".into())
                        .ok()
                        .and_then(|c| c.as_string())
                        .and_then(|c| Code::parse(&c))
                        .unwrap_or(Code::NetFailed);
                    Err(Denial::new(code, error_text(&err)))
                }
            }
        }))
    }

    fn now_ms(&self) -> f64 {
        crate::shell_sources::real_date_now()
    }

    fn ui(&self, action: UiAction) -> BoxFuture<'static, Result<Option<String>, Denial>> {
        let Some(function) = (*self.ui_action).clone() else {
            return Box::pin(async {
                Err(Denial::new(
                    Code::Denied,
                    "this page gives no place to show a user interface",
                ))
            });
        };
        let object = Object::new();
        let set = |key: &str, value: &JsValue| {
            let _ = Reflect::set(&object, &key.into(), value);
        };
        match &action {
            UiAction::Show { html, title } => {
                set("action", &"show".into());
                set("html", &html.as_str().into());
                set("title", &title.as_str().into());
            }
            UiAction::Wait { timeout_ms } => {
                set("action", &"wait".into());
                set("timeoutMs", &(*timeout_ms as f64).into());
            }
            UiAction::Close => set("action", &"close".into()),
        }
        let called = function.call1(&JsValue::NULL, &object);
        Box::pin(SendWrapper::new(async move {
            match settle(called).await {
                Ok(value) => Ok(value.as_string()),
                Err(err) => {
                    let code = Reflect::get(&err, &"code".into())
                        .ok()
                        .and_then(|c| c.as_string())
                        .and_then(|c| Code::parse(&c))
                        .unwrap_or(Code::ToolFailed);
                    Err(Denial::new(code, error_text(&err)))
                }
            }
        }))
    }
}

async fn settle(called: Result<JsValue, JsValue>) -> Result<JsValue, JsValue> {
    let value = called?;
    JsFuture::from(js_sys::Promise::resolve(&value)).await
}

/// The `message` of a thrown value, or the value as text.
pub(crate) fn error_text(err: &JsValue) -> String {
    Reflect::get(err, &JsValue::from_str("message"))
        .ok()
        .and_then(|message| message.as_string())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| "the page's call failed".to_owned())
}

fn pairs(headers: &[(String, String)]) -> Array {
    headers
        .iter()
        .map(|(n, v)| Array::of2(&n.into(), &v.into()))
        .collect()
}

fn request_to_js(request: &DoorRequest) -> Object {
    let object = Object::new();
    let set = |key: &str, value: &JsValue| {
        let _ = Reflect::set(&object, &key.into(), value);
    };
    set("method", &request.method.as_str().into());
    set("url", &request.url.as_str().into());
    set("headers", &pairs(&request.headers));
    set(
        "body",
        &request
            .body
            .as_ref()
            .map_or(JsValue::NULL, |b| Uint8Array::from(b.as_slice()).into()),
    );
    set("grant", &(request.grant as u32).into());
    set(
        "inject",
        &request.inject.iter().map(JsValue::from).collect::<Array>(),
    );
    set(
        "followWithin",
        &request
            .follow_within
            .as_ref()
            .map_or(JsValue::NULL, |origins| {
                origins.iter().map(JsValue::from).collect::<Array>().into()
            }),
    );
    set("maxRedirects", &request.max_redirects.into());
    set(
        "maxResponseBytes",
        &(request.max_response_bytes as f64).into(),
    );
    object
}

fn response_from_js(value: &JsValue) -> Result<HttpResponse, Denial> {
    let bad = |what: &str| {
        Denial::new(
            Code::NetFailed,
            format!("the page's network answer has no valid `{what}`"),
        )
    };
    let get = |key: &str| Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let status = get("status")
        .as_f64()
        .filter(|s| (0.0..1000.0).contains(s))
        .ok_or_else(|| bad("status"))?;
    let headers_value = get("headers");
    if !Array::is_array(&headers_value) {
        return Err(bad("headers"));
    }
    let mut headers = Vec::new();
    for pair in Array::from(&headers_value).iter() {
        let pair = Array::from(&pair);
        match (pair.get(0).as_string(), pair.get(1).as_string()) {
            (Some(name), Some(v)) => headers.push((name.to_ascii_lowercase(), v)),
            _ => return Err(bad("headers")),
        }
    }
    let body = get("body")
        .dyn_into::<Uint8Array>()
        .map_err(|_| bad("body"))?
        .to_vec();
    Ok(HttpResponse {
        status: status as u16,
        status_text: get("statusText").as_string().unwrap_or_default(),
        headers,
        url: get("url").as_string().unwrap_or_default(),
        redirected: get("redirected").as_bool().unwrap_or(false),
        body,
    })
}
