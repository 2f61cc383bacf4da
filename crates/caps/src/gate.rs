//! The one check every door goes through. A tool call (from the shell, a guest or the
//! page) is checked against the tool's grant, schema, constraints, `max_calls` and rate
//! limit; a request against the network policy at every hop. Each is logged.

use crate::audit::{AuditLog, Via, redact_pointers};
use crate::document::{Capabilities, MAX_TOOLS, Tool, ToolSource};
use crate::doors::{BoxFuture, DoorRequest, Doors, HttpRequest, HttpResponse, UiAction};
use crate::error::{CapsError, Code, Denial};
use crate::mcp::{McpClient, listed_tools};
use crate::network::NetworkPolicy;
use crate::scrub::{Scrubber, least_len_before_scrubbing};
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use url::Url;

/// The longest tool result passed back (bytes); a larger one fails the call.
pub const MAX_TOOL_RESULT: usize = 16 * 1024 * 1024;

#[derive(Debug, Default)]
struct Usage {
    calls: u64,
    recent: VecDeque<f64>,
}

/// A sandbox's capabilities, its host's doors, and the audit log.
pub struct Gate {
    caps: Capabilities,
    doors: Arc<dyn Doors>,
    usage: Mutex<HashMap<String, Usage>>,
    audit: Arc<AuditLog>,
    net: Net,
    mcp: Vec<Arc<McpClient>>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("caps", &self.caps)
            .finish_non_exhaustive()
    }
}

/// The network door as a value a call's future can own: the policy, the doors, the
/// scrubber of the known secrets and the audit log.
#[derive(Clone)]
pub(crate) struct Net {
    policy: Arc<NetworkPolicy>,
    doors: Arc<dyn Doors>,
    scrubber: Arc<Scrubber>,
    audit: AuditHandle,
}

impl Net {
    /// Sends `request` through the network policy (see [`Gate::fetch`]).
    pub(crate) fn fetch(
        &self,
        request: HttpRequest,
        via: Via,
    ) -> impl std::future::Future<Output = Result<HttpResponse, Denial>> + Send + 'static {
        let started = self.doors.now_ms();
        let mut fields = Map::new();
        fields.insert("via".into(), json!(via.as_str()));
        fields.insert("method".into(), json!(request.method.to_ascii_uppercase()));
        fields.insert("url".into(), self.audit.log.text(&request.url));
        let names: Vec<&str> = request.headers.iter().map(|(n, _)| n.as_str()).collect();
        fields.insert("headers".into(), json!(names));
        fields.insert(
            "request_bytes".into(),
            json!(request.body.as_ref().map_or(0, Vec::len)),
        );
        let net = self.clone();
        async move {
            let outcome = fetch_checked(&net.policy, net.doors.as_ref(), request, &net.scrubber)
                .await
                // A message may quote a URL a server chose.
                .map_err(|denial| net.scrubber.denial(denial));
            let mut fields = fields;
            if let Ok(response) = &outcome {
                fields.insert("status".into(), json!(response.status));
                if response.redirected {
                    fields.insert("final_url".into(), json!(response.url));
                }
            }
            net.audit.finish(
                "fetch",
                started,
                fields,
                &outcome.as_ref().map(|r| r.body.len()),
            );
            outcome
        }
    }
}

impl Gate {
    /// A gate enforcing `caps` in front of `doors`. Tools of the MCP servers the
    /// document grants are added by [`Gate::connect_mcp`].
    pub fn new(caps: Capabilities, doors: Arc<dyn Doors>) -> Self {
        let secrets: Vec<String> = caps
            .network
            .grants
            .iter()
            .flat_map(|g| g.headers.iter().filter_map(|(_, v)| v.clone()))
            .filter(|v| !v.is_empty())
            .collect();
        let audit = Arc::new(AuditLog::new(secrets));
        let net = Net {
            policy: Arc::new(caps.network.clone()),
            doors: doors.clone(),
            scrubber: audit.scrubber(),
            audit: AuditHandle {
                log: audit.clone(),
                doors: doors.clone(),
            },
        };
        Self {
            audit,
            caps,
            doors,
            usage: Mutex::default(),
            net,
            mcp: Vec::new(),
        }
    }

    /// Connects to each MCP server the document grants (through the network policy,
    /// like any request), lists its tools, and adds them to the granted tools: those
    /// the document names, with their constraints and limits, or all it lists when the
    /// document names none. Fails, naming the server, if one cannot be reached or does
    /// not have a tool the document names.
    pub async fn connect_mcp(mut self) -> Result<Self, CapsError> {
        for (index, server) in self.caps.mcp.clone().into_iter().enumerate() {
            let client = Arc::new(McpClient::new(server.clone(), self.net.clone()));
            let listed = client.connect().await.map_err(|denial| CapsError::Mcp {
                server: server.name.clone(),
                url: server.url.clone(),
                reason: match denial.code {
                    Code::ToolFailed => denial
                        .message
                        .split_once("): ")
                        .map_or(denial.message.clone(), |(_, why)| why.to_owned()),
                    _ => denial.to_string(),
                },
            })?;
            let taken: BTreeSet<String> = self.caps.tools.iter().map(|t| t.name.clone()).collect();
            let mut skipped = Vec::new();
            let tools = listed_tools(&server, index, &listed, &taken, &mut skipped)?;
            if self.caps.tools.len() + tools.len() > MAX_TOOLS {
                return Err(CapsError::Mcp {
                    server: server.name,
                    url: server.url,
                    reason: format!("with its tools the sandbox would have more than {MAX_TOOLS}"),
                });
            }
            let mut fields = Map::new();
            fields.insert("server".into(), json!(server.name));
            fields.insert("url".into(), json!(server.url));
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            fields.insert("tools".into(), json!(names));
            if !skipped.is_empty() {
                fields.insert("skipped".into(), json!(skipped));
            }
            self.audit
                .record(self.doors.now_ms(), "mcp_connect", fields);
            self.caps.tools.extend(tools);
            self.mcp.push(client);
        }
        Ok(self)
    }

    /// The capabilities enforced.
    pub fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    /// The audit log.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// The current time from the doors.
    pub fn now_ms(&self) -> f64 {
        self.doors.now_ms()
    }

    /// Checks a call of tool `name` with JSON `args` and, if allowed, counts it. Every
    /// way of calling a tool goes through here.
    pub fn authorize_tool(&self, name: &str, args: &str) -> Result<Value, Denial> {
        let Some(tool) = self.caps.tool(name) else {
            return Err(Denial::new(
                Code::Denied,
                format!("the tool `{name}` is not granted"),
            ));
        };
        let parsed = self.check_args(tool, args)?;
        self.count_call(tool)?;
        Ok(parsed)
    }

    /// `args` parsed and checked against `tool`'s schema and constraints.
    pub(crate) fn check_args(&self, tool: &Tool, args: &str) -> Result<Value, Denial> {
        let name = tool.name.as_str();
        let parsed: Value = serde_json::from_str(args).map_err(|err| {
            Denial::new(
                Code::BadArgs,
                format!("`{name}`: the arguments are not JSON ({err})"),
            )
        })?;
        let problems = tool.schema.problems(&parsed, 5);
        if !problems.is_empty() {
            return Err(Denial::new(
                Code::BadArgs,
                format!(
                    "`{name}`: the arguments do not match its schema: {}",
                    problems.join("; ")
                ),
            ));
        }
        if let Some(constraint) = &tool.constraints {
            constraint
                .check(&parsed)
                .map_err(|why| Denial::new(Code::Constraint, format!("`{name}`: {why}")))?;
        }
        Ok(parsed)
    }

    /// Counts a call of `tool` against its `max_calls` and rate limit.
    pub(crate) fn count_call(&self, tool: &Tool) -> Result<(), Denial> {
        let name = tool.name.as_str();
        let now = self.doors.now_ms();
        let mut usage = self.usage.lock().unwrap_or_else(|e| e.into_inner());
        let used = usage.entry(name.to_owned()).or_default();
        if let Some(max) = tool.max_calls
            && used.calls >= max
        {
            return Err(Denial::new(
                Code::MaxCalls,
                format!("`{name}` may be called {max} times, and all of them are used"),
            ));
        }
        if let Some(rate) = tool.rate_limit {
            let window = rate.per_seconds * 1000.0;
            while used.recent.front().is_some_and(|&t| t <= now - window) {
                used.recent.pop_front();
            }
            if used.recent.len() >= rate.calls as usize {
                let wait = used.recent.front().map_or(0.0, |&t| t + window - now) / 1000.0;
                return Err(Denial::new(
                    Code::RateLimit,
                    format!(
                        "`{name}` may be called {} times per {} s; try again in {wait:.1} s",
                        rate.calls, rate.per_seconds
                    ),
                ));
            }
            used.recent.push_back(now);
        }
        used.calls += 1;
        Ok(())
    }

    /// Calls tool `name` with JSON `args` through the check; the answer is the
    /// handler's JSON text.
    pub fn call_tool(
        &self,
        name: &str,
        args: &str,
        via: Via,
    ) -> impl std::future::Future<Output = Result<String, Denial>> + Send + 'static {
        let started = self.doors.now_ms();
        let checked = self.authorize_tool(name, args);
        let redact = self
            .caps
            .tool(name)
            .map(|t| t.redact.clone())
            .unwrap_or_default();
        let shown_args = match &checked {
            Ok(parsed) => redact_pointers(parsed.clone(), &redact),
            Err(_) => serde_json::from_str(args)
                .map(|v| redact_pointers(v, &redact))
                .unwrap_or_else(|_| self.audit.text(args)),
        };
        let mut fields = Map::new();
        fields.insert("via".into(), json!(via.as_str()));
        fields.insert("tool".into(), json!(name));
        fields.insert("args".into(), shown_args);
        let source = self.caps.tool(name).map(|t| t.source.clone());
        let call: Result<BoxFuture<'static, Result<String, Denial>>, Denial> =
            checked.map(|parsed| match source {
                Some(ToolSource::Mcp { server, remote }) => {
                    fields.insert("mcp".into(), json!(self.mcp[server].server().name));
                    let client = self.mcp[server].clone();
                    let exposed = name.to_owned();
                    Box::pin(async move { client.call_tool(&exposed, &remote, parsed).await })
                        as BoxFuture<'static, _>
                }
                _ => {
                    let call = self.doors.call_tool(name, args);
                    let name = name.to_owned();
                    Box::pin(async move {
                        call.await.map_err(|message| {
                            Denial::new(Code::ToolFailed, format!("`{name}` failed: {message}"))
                        })
                    })
                }
            });
        let name = name.to_owned();
        let audit = self.audit_handle();
        async move {
            let outcome = match call {
                Err(denial) => Err(denial),
                Ok(call) => match call.await {
                    Ok(answer) if answer.len() > MAX_TOOL_RESULT => Err(Denial::new(
                        Code::ToolFailed,
                        format!(
                            "`{name}` answered {} bytes, more than {MAX_TOOL_RESULT}",
                            answer.len()
                        ),
                    )),
                    Ok(answer) => match serde_json::from_str::<Value>(&answer) {
                        Ok(_) => Ok(answer),
                        Err(err) => Err(Denial::new(
                            Code::ToolFailed,
                            format!("`{name}` answered something that is not JSON ({err})"),
                        )),
                    },
                    Err(denial) => Err(denial),
                },
            };
            audit.finish("tool", started, fields, &outcome.as_ref().map(String::len));
            outcome
        }
    }

    /// Sends `request` through the network policy: checked before it leaves, at every
    /// redirect, and on arrival (size); injected headers added and their values
    /// scrubbed from what comes back.
    pub fn fetch(
        &self,
        request: HttpRequest,
        via: Via,
    ) -> impl std::future::Future<Output = Result<HttpResponse, Denial>> + Send + 'static {
        self.net.fetch(request, via)
    }

    /// Carries out a `ui` action if the document grants `ui`; for `Wait`, the next
    /// event (JSON text) or `None` when none came in time.
    pub fn ui(
        &self,
        action: UiAction,
        via: Via,
    ) -> impl std::future::Future<Output = Result<Option<String>, Denial>> + Send + 'static {
        let started = self.doors.now_ms();
        let mut fields = Map::new();
        fields.insert("via".into(), json!(via.as_str()));
        let (name, detail) = match &action {
            UiAction::Show { html, title } => {
                ("show", json!({"title": title, "html_bytes": html.len()}))
            }
            UiAction::Wait { timeout_ms } => ("wait", json!({"timeout_ms": timeout_ms})),
            UiAction::Close => ("close", Value::Null),
        };
        fields.insert("action".into(), json!(name));
        if !detail.is_null() {
            fields.insert("args".into(), detail);
        }
        let call = match self.caps.ui {
            true => Ok(self.doors.ui(action)),
            false => Err(Denial::new(
                Code::Denied,
                "the ui door is not granted (the capability document's `ui`)",
            )),
        };
        let audit = self.audit_handle();
        async move {
            let outcome = match call {
                Ok(call) => call.await,
                Err(denial) => Err(denial),
            };
            let size = outcome
                .as_ref()
                .map(|event| event.as_ref().map_or(0, String::len));
            audit.finish("ui", started, fields, &size);
            outcome
        }
    }

    /// Logs an exec of `script` in `session` that ended with `exit_code`.
    pub fn log_exec(
        &self,
        session: &str,
        script: &str,
        exit_code: i32,
        stdout_bytes: u64,
        stderr_bytes: u64,
    ) {
        let mut fields = Map::new();
        fields.insert("session".into(), json!(session));
        fields.insert("script".into(), self.audit.text(script));
        fields.insert("exit_code".into(), json!(exit_code));
        fields.insert("stdout_bytes".into(), json!(stdout_bytes));
        fields.insert("stderr_bytes".into(), json!(stderr_bytes));
        self.audit.record(self.doors.now_ms(), "exec", fields);
    }

    pub(crate) fn audit_handle(&self) -> AuditHandle {
        AuditHandle {
            log: self.audit.clone(),
            doors: self.doors.clone(),
        }
    }
}

/// What a call's future needs to log its end after the gate's borrow is over.
#[derive(Clone)]
pub(crate) struct AuditHandle {
    log: Arc<AuditLog>,
    doors: Arc<dyn Doors>,
}

impl AuditHandle {
    /// Logs a finished call: `denial` entries for refusals, `kind` entries otherwise.
    pub(crate) fn finish(
        &self,
        kind: &str,
        started: f64,
        mut fields: Map<String, Value>,
        outcome: &Result<usize, &Denial>,
    ) {
        let now = self.doors.now_ms();
        fields.insert("duration_ms".into(), json!((now - started).max(0.0)));
        let kind = match outcome {
            Ok(bytes) => {
                fields.insert("ok".into(), json!(true));
                fields.insert("result_bytes".into(), json!(bytes));
                kind
            }
            Err(denial) => {
                fields.insert("ok".into(), json!(false));
                fields.insert("code".into(), json!(denial.code.as_str()));
                fields.insert("message".into(), json!(denial.message));
                if denial.code.is_refusal() {
                    fields.insert("call".into(), json!(kind));
                    "denial"
                } else {
                    kind
                }
            }
        };
        self.log.record(started, kind, fields);
    }
}

/// The request's journey: check, send, follow redirects (checking each hop's origin,
/// path and method before it is sent), check the result, scrub known secrets.
///
/// Doors that cannot show where a redirect points (a browser) are let follow redirects
/// only where every hop would be allowed whatever its path
/// ([`NetworkPolicy::blind_redirect_origins`]); otherwise they are asked not to
/// follow, and the gate follows the redirect itself if the doors show it, or refuses
/// it as one that could not be checked.
async fn fetch_checked(
    policy: &NetworkPolicy,
    doors: &dyn Doors,
    request: HttpRequest,
    scrubber: &Scrubber,
) -> Result<HttpResponse, Denial> {
    let mut method = request.method.to_ascii_uppercase();
    if method.is_empty() {
        method = "GET".into();
    }
    let mut url = request.url.clone();
    let mut body = request.body;
    let mut hops = 0;
    // The origins every hop must stay within, set by the first request's grant (a
    // request carrying injected headers stays at its origin).
    let mut within: Option<Vec<String>> = None;
    // Doors that hold secrets of their own (the page) scrub them from every response.
    let doors_scrub = policy
        .grants
        .iter()
        .any(|g| g.headers.iter().any(|(_, value)| value.is_none()));
    loop {
        let allowed = policy
            .check(&method, &url)
            .and_then(|allowed| match &within {
                Some(origins) if !policy.within(origins, &allowed.url) => Err(Denial::new(
                    Code::NetRedirect,
                    format!(
                        "it leaves the origins this request may reach ({})",
                        origins.join(", ")
                    ),
                )),
                _ => Ok(allowed),
            });
        let allowed = allowed.map_err(|denial| match hops {
            0 => denial,
            _ => Denial::new(
                Code::NetRedirect,
                format!("a redirect to {url} was refused: {}", denial.message),
            ),
        })?;
        let within = within.get_or_insert_with(|| policy.redirect_origins(allowed.grant));
        let grant = &policy.grants[allowed.grant];
        let mut headers: Vec<(String, String)> = request
            .headers
            .iter()
            .filter(|(name, _)| {
                !grant
                    .headers
                    .iter()
                    .any(|(g, _)| g.eq_ignore_ascii_case(name))
            })
            .cloned()
            .collect();
        let mut inject = Vec::new();
        for (name, value) in &grant.headers {
            match value {
                Some(value) => headers.push((name.clone(), value.clone())),
                None => inject.push(name.clone()),
            }
        }
        let blind = match request.follow_redirects {
            true => policy
                .blind_redirect_origins(allowed.grant, &method)
                .map(|open| open.into_iter().filter(|o| within.contains(o)).collect()),
            false => None,
        };
        let unchecked = request.follow_redirects && blind.is_none();
        let door_request = DoorRequest {
            method: method.clone(),
            url: allowed.url.to_string(),
            headers,
            body: body.clone(),
            grant: allowed.grant,
            inject,
            follow_within: blind,
            max_redirects: policy.max_redirects.saturating_sub(hops),
            max_response_bytes: policy.max_response_bytes,
        };
        let mut response = match doors.fetch(door_request).await {
            // Doors that hide redirects were asked not to follow this one.
            Err(denial) if unchecked && denial.code == Code::NetRedirect => {
                return Err(Denial::new(
                    Code::NetRedirect,
                    format!(
                        "{} answered with a redirect that could not be checked, so it was \
                         not followed: the grant for {} limits paths or methods, and \
                         these doors do not show where a redirect points (ask for the \
                         place it leads to directly)",
                        allowed.url,
                        grant.origin()
                    ),
                ));
            }
            answer => answer?,
        };
        // The limit holds for the body as received, before anything was scrubbed from
        // it: by this gate (below) or by doors that inject secrets of their own.
        let received = match doors_scrub {
            true => least_len_before_scrubbing(&response.body),
            false => response.body.len(),
        };
        if received as u64 > policy.max_response_bytes {
            return Err(Denial::new(
                Code::NetTooLarge,
                format!(
                    "the response is larger than the {} bytes allowed",
                    policy.max_response_bytes
                ),
            ));
        }
        if response.redirected {
            // The doors followed redirects within the origins allowed, where every
            // path and method is granted; the final URL must satisfy the whole policy.
            let final_url = Url::parse(&response.url).ok();
            policy
                .check(&method, &response.url)
                .and_then(|allowed| match final_url {
                    Some(url) if policy.within(within, &url) => Ok(allowed),
                    _ => Err(Denial::new(
                        Code::NetRedirect,
                        "it left the origins this request may reach",
                    )),
                })
                .map_err(|denial| {
                    Denial::new(
                        Code::NetRedirect,
                        format!(
                            "a redirect to {} was refused: {}",
                            response.url, denial.message
                        ),
                    )
                })?;
        }
        let location = response.header("location").map(str::to_owned);
        if request.follow_redirects
            && !response.redirected
            && matches!(response.status, 301 | 302 | 303 | 307 | 308)
            && let Some(location) = location
        {
            hops += 1;
            if hops > policy.max_redirects {
                return Err(Denial::new(
                    Code::NetRedirect,
                    format!("more than {} redirects", policy.max_redirects),
                ));
            }
            let next = Url::parse(&url)
                .and_then(|base| base.join(&location))
                .map_err(|_| {
                    Denial::new(
                        Code::NetRedirect,
                        format!("a redirect to `{location}`, which is not a URL"),
                    )
                })?;
            // Fetch's rules: 307 and 308 keep the method and the body; 301 and 302
            // turn a POST into a GET, 303 anything but HEAD. The next turn checks the
            // hop's path and method before it is sent.
            let to_get = (response.status == 303 && method != "GET" && method != "HEAD")
                || (matches!(response.status, 301 | 302) && method == "POST");
            if to_get {
                method = "GET".into();
                body = None;
            }
            url = next.to_string();
            continue;
        }
        if response.url.is_empty() {
            response.url = allowed.url.to_string();
        }
        // Hops the gate followed count as well as the doors'.
        response.redirected |= hops > 0;
        scrubber.response(&mut response);
        return Ok(response);
    }
}
