//! Remote MCP servers reached over Streamable HTTP, whose tools become the sandbox's
//! tools: listed once when the sandbox opens ([`crate::Gate::connect_mcp`]), then called
//! through the same check as every granted tool (schema, constraints, `max_calls`, rate
//! limit). Each message to a server is an ordinary request through the network policy
//! (its URL must be granted for POST), so nothing here can reach what the policy does
//! not allow, and every message is in the audit log.

use crate::audit::Via;
use crate::document::{Tool, ToolDoc, ToolSource, compile_tool};
use crate::doors::{HttpRequest, HttpResponse};
use crate::error::{CapsError, Code, Denial};
use crate::gate::Net;
use crate::network::NetworkPolicy;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The MCP version sandtab asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The versions sandtab accepts when a server answers with another one.
pub const KNOWN_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// The most MCP servers one document may grant.
pub const MAX_MCP_SERVERS: usize = 16;
/// The most pages of `tools/list` read from one server.
const MAX_LIST_PAGES: usize = 64;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpDoc {
    name: String,
    url: String,
    prefix: Option<String>,
    tools: Option<Vec<ToolDoc>>,
}

/// A granted MCP server.
#[derive(Debug, Clone)]
pub struct McpServer {
    /// Its name in the document (in messages; `NAME_` is the default prefix).
    pub name: String,
    /// Its Streamable HTTP endpoint.
    pub url: String,
    /// What its tools' names start with in the sandbox.
    pub prefix: String,
    /// The tools exposed, with their constraints and limits; `None`: every tool it lists.
    pub(crate) tools: Option<Vec<ToolDoc>>,
}

/// Checks the `mcp` section: each server's URL must be granted for POST, and the tools
/// it names must be valid, with names no other tool has.
pub(crate) fn compile_servers(
    docs: Vec<McpDoc>,
    network: &NetworkPolicy,
    granted: &BTreeSet<String>,
) -> Result<Vec<McpServer>, CapsError> {
    if docs.len() > MAX_MCP_SERVERS {
        return Err(CapsError::invalid(
            "mcp",
            format!("more than {MAX_MCP_SERVERS} servers"),
        ));
    }
    let mut servers = Vec::new();
    let mut server_names = BTreeSet::new();
    let mut taken = granted.clone();
    for (i, doc) in docs.into_iter().enumerate() {
        let place = format!("mcp[{i}]");
        if !crate::valid_tool_name(&doc.name) {
            return Err(CapsError::invalid(
                format!("{place}.name"),
                format!(
                    "`{}` is not a server name (a letter or `_`, then letters, digits, `_`, `-` or `.`)",
                    doc.name
                ),
            ));
        }
        if !server_names.insert(doc.name.clone()) {
            return Err(CapsError::invalid(
                format!("{place}.name"),
                format!("the server `{}` is granted twice", doc.name),
            ));
        }
        network.check("POST", &doc.url).map_err(|denial| {
            CapsError::invalid(
                format!("{place}.url"),
                format!(
                    "{} (the network policy must grant this URL with \"methods\": [\"POST\"])",
                    denial.message
                ),
            )
        })?;
        let prefix = doc.prefix.unwrap_or_else(|| format!("{}_", doc.name));
        if let Some(tools) = &doc.tools {
            for (j, tool) in tools.iter().enumerate() {
                let at = format!("{place}.tools[{j}]");
                if tool.parameters.is_some() {
                    return Err(CapsError::invalid(
                        format!("{at}.parameters"),
                        "the schema comes from the server; leave it out",
                    ));
                }
                let exposed = ToolDoc {
                    name: format!("{prefix}{}", tool.name),
                    ..tool.clone()
                };
                if !taken.insert(exposed.name.clone()) {
                    return Err(CapsError::invalid(
                        format!("{at}.name"),
                        format!("`{}` is granted twice", exposed.name),
                    ));
                }
                compile_tool(exposed, &at, ToolSource::Host)?;
            }
        }
        servers.push(McpServer {
            name: doc.name,
            url: doc.url,
            prefix,
            tools: doc.tools,
        });
    }
    Ok(servers)
}

/// The sandbox's tools for what server `index` listed. Tools the document names must
/// be there and valid; when it names none, a listed tool that cannot be a sandbox tool
/// (its name, its schema, a name already taken) is left out and said in `skipped`.
pub(crate) fn listed_tools(
    server: &McpServer,
    index: usize,
    listed: &[Value],
    taken: &BTreeSet<String>,
    skipped: &mut Vec<String>,
) -> Result<Vec<Tool>, CapsError> {
    let fail = |reason: String| CapsError::Mcp {
        server: server.name.clone(),
        url: server.url.clone(),
        reason,
    };
    let find = |name: &str| {
        listed
            .iter()
            .find(|tool| tool.get("name").and_then(Value::as_str) == Some(name))
    };
    let remote_doc = |listing: &Value, policy: Option<&ToolDoc>| -> Result<ToolDoc, String> {
        let name = listing
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a listed tool has no name")?;
        let schema = listing
            .get("inputSchema")
            .cloned()
            .ok_or_else(|| format!("its tool `{name}` has no inputSchema"))?;
        let description = listing
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut doc = policy.cloned().unwrap_or(ToolDoc {
            name: name.to_owned(),
            description: String::new(),
            parameters: None,
            constraints: None,
            max_calls: None,
            rate_limit: None,
            redact: Vec::new(),
        });
        doc.name = format!("{}{name}", server.prefix);
        if doc.description.is_empty() {
            doc.description = description.to_owned();
        }
        doc.parameters = Some(schema);
        Ok(doc)
    };
    let mut tools = Vec::new();
    match &server.tools {
        Some(policies) => {
            for (j, policy) in policies.iter().enumerate() {
                let listing = find(&policy.name).ok_or_else(|| {
                    fail(format!(
                        "mcp[{index}].tools[{j}]: the server has no tool `{}`",
                        policy.name
                    ))
                })?;
                let doc = remote_doc(listing, Some(policy)).map_err(&fail)?;
                let source = ToolSource::Mcp {
                    server: index,
                    remote: policy.name.clone(),
                };
                let place = format!("mcp[{index}].tools[{j}]");
                tools.push(compile_tool(doc, &place, source).map_err(|err| fail(err.to_string()))?);
            }
        }
        None => {
            for listing in listed {
                let remote = listing
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let doc = match remote_doc(listing, None) {
                    Ok(doc) => doc,
                    Err(why) => {
                        skipped.push(why);
                        continue;
                    }
                };
                if taken.contains(&doc.name) || tools.iter().any(|t: &Tool| t.name == doc.name) {
                    skipped.push(format!("`{}`: the name is taken", doc.name));
                    continue;
                }
                let place = format!("mcp[{index}] tool `{remote}`");
                match compile_tool(
                    doc,
                    &place,
                    ToolSource::Mcp {
                        server: index,
                        remote,
                    },
                ) {
                    Ok(tool) => tools.push(tool),
                    Err(err) => skipped.push(err.to_string()),
                }
            }
        }
    }
    if let Some(clash) = tools.iter().find(|tool| taken.contains(&tool.name)) {
        return Err(fail(format!(
            "its tool `{}` has the name of a tool already granted",
            clash.name
        )));
    }
    Ok(tools)
}

#[derive(Debug, Default)]
struct Session {
    id: Option<String>,
    version: Option<String>,
}

/// Why an exchange did not give an answer.
enum Failure {
    /// The server forgot the session (HTTP 404): start a new one and try again.
    SessionGone,
    Denied(Denial),
}

impl From<Denial> for Failure {
    fn from(denial: Denial) -> Self {
        Failure::Denied(denial)
    }
}

/// A connection to one MCP server: its session and the gate's network door.
pub(crate) struct McpClient {
    server: McpServer,
    net: Net,
    session: Mutex<Session>,
    next_id: AtomicU64,
}

impl McpClient {
    pub(crate) fn new(server: McpServer, net: Net) -> Self {
        Self {
            server,
            net,
            session: Mutex::default(),
            next_id: AtomicU64::new(1),
        }
    }

    pub(crate) fn server(&self) -> &McpServer {
        &self.server
    }

    /// Opens a session and lists the server's tools (every page).
    pub(crate) async fn connect(&self) -> Result<Vec<Value>, Denial> {
        self.initialize().await?;
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let result = self.request("tools/list", params).await?;
            let page = result
                .get("tools")
                .and_then(Value::as_array)
                .ok_or_else(|| self.failed("tools/list answered without a `tools` list"))?;
            tools.extend(page.iter().cloned());
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
                _ => return Ok(tools),
            }
        }
        Err(self.failed(format!(
            "tools/list went on for more than {MAX_LIST_PAGES} pages"
        )))
    }

    /// Calls the server's tool `remote` (the sandbox's `exposed`) with checked `args`;
    /// the answer is JSON text: the structured result if there is one, else the text
    /// content as a string, else the content list.
    pub(crate) async fn call_tool(
        &self,
        exposed: &str,
        remote: &str,
        args: Value,
    ) -> Result<String, Denial> {
        let result = self
            .request("tools/call", json!({"name": remote, "arguments": args}))
            .await?;
        tool_answer(exposed, &result)
    }

    async fn initialize(&self) -> Result<(), Denial> {
        *self.lock() = Session::default();
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "sandtab", "version": env!("CARGO_PKG_VERSION")},
        });
        let (result, session_id) = match self.exchange("initialize", Some(params)).await {
            Ok(answer) => answer,
            Err(Failure::Denied(denial)) => return Err(denial),
            Err(Failure::SessionGone) => {
                return Err(self.failed("initialize: HTTP 404 (is the URL the MCP endpoint?)"));
            }
        };
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !KNOWN_VERSIONS.contains(&version) {
            return Err(self.failed(format!(
                "the server speaks MCP version `{version}`; sandtab speaks {}",
                KNOWN_VERSIONS.join(", ")
            )));
        }
        *self.lock() = Session {
            id: session_id,
            version: Some(version.to_owned()),
        };
        match self.exchange("notifications/initialized", None).await {
            Ok(_) => Ok(()),
            Err(Failure::Denied(denial)) => Err(denial),
            Err(Failure::SessionGone) => Err(self.failed("the new session was refused")),
        }
    }

    /// A request in the current session; a session the server forgot is opened again
    /// once.
    async fn request(&self, method: &str, params: Value) -> Result<Value, Denial> {
        match self.exchange(method, Some(params.clone())).await {
            Ok((result, _)) => Ok(result),
            Err(Failure::Denied(denial)) => Err(denial),
            Err(Failure::SessionGone) => {
                self.initialize().await?;
                match self.exchange(method, Some(params)).await {
                    Ok((result, _)) => Ok(result),
                    Err(Failure::Denied(denial)) => Err(denial),
                    Err(Failure::SessionGone) => {
                        Err(self.failed(format!("{method}: the server keeps losing the session")))
                    }
                }
            }
        }
    }

    /// Posts one JSON-RPC message: a request (with `params`) whose result comes back with
    /// the session id the server gave, or a notification (`params` `None`).
    async fn exchange(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<(Value, Option<String>), Failure> {
        let notification = method.starts_with("notifications/");
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = match (&params, notification) {
            (_, true) => json!({"jsonrpc": "2.0", "method": method}),
            (Some(params), false) => {
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            }
            (None, false) => json!({"jsonrpc": "2.0", "id": id, "method": method}),
        };
        let (request, had_session) = {
            let session = self.lock();
            let mut headers = vec![
                ("content-type".to_owned(), "application/json".to_owned()),
                (
                    "accept".to_owned(),
                    "application/json, text/event-stream".to_owned(),
                ),
            ];
            if let Some(version) = &session.version {
                headers.push(("mcp-protocol-version".to_owned(), version.clone()));
            }
            if let Some(id) = &session.id {
                headers.push(("mcp-session-id".to_owned(), id.clone()));
            }
            let request = HttpRequest {
                method: "POST".into(),
                url: self.server.url.clone(),
                headers,
                body: Some(message.to_string().into_bytes()),
                follow_redirects: false,
            };
            (request, session.id.is_some())
        };
        let response = self.net.fetch(request, Via::Mcp).await?;
        if response.status == 404 && had_session {
            return Err(Failure::SessionGone);
        }
        if !(200..300).contains(&response.status) {
            return Err(self
                .failed(format!(
                    "{method}: HTTP {} {}{}",
                    response.status,
                    response.status_text,
                    snippet(&response.body)
                ))
                .into());
        }
        if notification {
            return Ok((Value::Null, None));
        }
        let session_id = response.header("mcp-session-id").map(str::to_owned);
        let reply =
            find_reply(&response, id).map_err(|why| self.failed(format!("{method}: {why}")))?;
        if let Some(error) = reply.get("error") {
            let text = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message");
            let code = error.get("code").cloned().unwrap_or(Value::Null);
            return Err(self
                .failed(format!("{method}: {text} (JSON-RPC error {code})"))
                .into());
        }
        match reply.get("result") {
            Some(result) => Ok((result.clone(), session_id)),
            None => Err(self
                .failed(format!("{method}: the reply has neither result nor error"))
                .into()),
        }
    }

    fn failed(&self, why: impl std::fmt::Display) -> Denial {
        Denial::new(
            Code::ToolFailed,
            format!(
                "the MCP server `{}` ({}): {why}",
                self.server.name, self.server.url
            ),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The reply to request `id` in a response: a JSON body (one message or a batch) or an
/// event stream of messages (the server's own requests and notifications are skipped).
fn find_reply(response: &HttpResponse, id: u64) -> Result<Value, String> {
    let kind = response.header("content-type").unwrap_or_default();
    let messages: Vec<Value> = if kind.starts_with("text/event-stream") {
        sse_messages(&response.body)
    } else {
        match serde_json::from_slice::<Value>(&response.body) {
            Ok(Value::Array(batch)) => batch,
            Ok(message) => vec![message],
            Err(err) => {
                return Err(format!(
                    "the answer is not JSON ({err}){}",
                    snippet(&response.body)
                ));
            }
        }
    };
    messages
        .into_iter()
        .find(|message| message.get("id") == Some(&json!(id)) && message.get("method").is_none())
        .ok_or_else(|| format!("the answer holds no reply to request {id}"))
}

/// The JSON messages in a `text/event-stream` body: each event's `data:` lines joined.
fn sse_messages(body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(body).replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect();
            match data.is_empty() {
                true => None,
                false => serde_json::from_str(&data.join("\n")).ok(),
            }
        })
        .collect()
}

/// A `tools/call` result as the sandbox's tool answer.
fn tool_answer(exposed: &str, result: &Value) -> Result<String, Denial> {
    let content = result.get("content").and_then(Value::as_array);
    let texts: Vec<&str> = content
        .into_iter()
        .flatten()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|item| item.get("text").and_then(Value::as_str))
        .collect();
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let why = match texts.is_empty() {
            true => "the server reported an error".to_owned(),
            false => texts.join("\n"),
        };
        return Err(Denial::new(
            Code::ToolFailed,
            format!("`{exposed}` failed: {why}"),
        ));
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        return Ok(structured.to_string());
    }
    match content {
        Some(items) if texts.len() == items.len() => {
            Ok(Value::String(texts.join("\n")).to_string())
        }
        Some(items) => Ok(Value::Array(items.clone()).to_string()),
        None => Ok(Value::Null.to_string()),
    }
}

/// The start of a body, for an error message.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.is_empty() {
        true => String::new(),
        false => {
            let cut: String = text.chars().take(200).collect();
            format!(": {cut}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_streams_yield_their_messages() {
        let body = b"event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":3,\"result\":{}}\r\n\r\n: ping\n\ndata: not json\n\n";
        let messages = sse_messages(body);
        assert_eq!(
            messages,
            vec![json!({"jsonrpc": "2.0", "id": 3, "result": {}})]
        );
    }

    #[test]
    fn the_reply_is_found_among_other_messages() {
        let response = HttpResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":1}}\n\n".to_vec(),
            ..Default::default()
        };
        assert_eq!(
            find_reply(&response, 7).unwrap()["result"],
            json!({"ok": 1})
        );
        assert!(
            find_reply(&response, 8)
                .unwrap_err()
                .contains("no reply to request 8")
        );
        let batch = HttpResponse {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: br#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":2}]"#
                .to_vec(),
            ..Default::default()
        };
        assert_eq!(find_reply(&batch, 2).unwrap()["result"], json!(2));
    }

    #[test]
    fn tool_results_become_answers() {
        let text =
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        assert_eq!(tool_answer("t", &text).unwrap(), "\"a\\nb\"");
        let structured = json!({"content": [], "structuredContent": {"n": 1}});
        assert_eq!(tool_answer("t", &structured).unwrap(), r#"{"n":1}"#);
        let image =
            json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]});
        assert!(tool_answer("t", &image).unwrap().starts_with("[{"));
        let error = json!({"isError": true, "content": [{"type": "text", "text": "no such city"}]});
        let denial = tool_answer("t", &error).unwrap_err();
        assert_eq!(denial.code, Code::ToolFailed);
        assert_eq!(denial.message, "`t` failed: no such city");
    }
}
