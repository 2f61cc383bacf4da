//! Remote MCP servers' tools as sandbox tools, against a scripted Streamable HTTP server
//! behind the doors: the document must grant the URL, the session is opened and kept,
//! listed tools join the granted ones under the document's constraints and limits, and
//! nothing reaches the server that the gate refused. (The browser test talks to a real
//! `@modelcontextprotocol/sdk` server: tests/e2e/mcp.test.mjs.)
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use sandtab_caps::{
    BoxFuture, Capabilities, Code, Denial, DoorRequest, Doors, Format, Gate, HttpResponse, Via,
    definitions_json,
};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

const URL: &str = "http://127.0.0.1:9100/mcp";

/// An MCP server in the doors: sessions, `tools/list` in two pages, three tools.
#[derive(Default)]
struct Server {
    /// Answer with an event stream (the SDK's default) rather than JSON.
    sse: bool,
    sessions: Mutex<Vec<String>>,
    /// Every message received, with the session header it came with.
    received: Mutex<Vec<(Value, Option<String>)>>,
}

impl Server {
    fn methods(&self) -> Vec<String> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .map(|(m, _)| m["method"].as_str().unwrap_or("?").to_owned())
            .collect()
    }

    fn forget_sessions(&self) {
        self.sessions.lock().unwrap().clear();
    }

    fn answer(&self, request: &DoorRequest) -> HttpResponse {
        let header = |name: &str| {
            request
                .headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let message: Value = serde_json::from_slice(request.body.as_deref().unwrap()).unwrap();
        let session = header("mcp-session-id");
        self.received
            .lock()
            .unwrap()
            .push((message.clone(), session.clone()));
        let method = message["method"].as_str().unwrap();
        let mut headers = Vec::new();
        if method != "initialize" {
            let known = session
                .as_ref()
                .is_some_and(|s| self.sessions.lock().unwrap().contains(s));
            if !known {
                return respond(404, headers, "{\"error\":\"session not found\"}");
            }
            assert_eq!(
                header("mcp-protocol-version").as_deref(),
                Some("2025-06-18")
            );
        }
        let result = match method {
            "initialize" => {
                let id = format!("s{}", self.received.lock().unwrap().len());
                self.sessions.lock().unwrap().push(id.clone());
                headers.push(("mcp-session-id".to_owned(), id));
                json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "kb", "version": "1"}})
            }
            "notifications/initialized" => return respond(202, headers, ""),
            "tools/list" => match message["params"]["cursor"].as_str() {
                None => json!({"tools": [
                    {"name": "search", "description": "Searches the notes.",
                     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
                    {"name": "add", "inputSchema": {"type": "object",
                     "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
                ], "nextCursor": "page2"}),
                Some("page2") => json!({"tools": [
                    {"name": "explode", "inputSchema": {"type": "object"}},
                    {"name": "bad name!", "inputSchema": {"type": "object"}},
                ]}),
                Some(other) => panic!("unknown cursor {other}"),
            },
            "tools/call" => {
                let args = &message["params"]["arguments"];
                match message["params"]["name"].as_str().unwrap() {
                    "search" => json!({"content": [
                        {"type": "text", "text": format!("found: {}", args["q"].as_str().unwrap())}]}),
                    "add" => {
                        let sum = args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap();
                        json!({"content": [{"type": "text", "text": sum.to_string()}],
                               "structuredContent": {"sum": sum}})
                    }
                    "explode" => json!({"isError": true,
                        "content": [{"type": "text", "text": "the notes are on fire"}]}),
                    other => {
                        return self.reply(
                            headers,
                            json!({"jsonrpc": "2.0", "id": message["id"],
                                   "error": {"code": -32602, "message": format!("Tool {other} not found")}}),
                        );
                    }
                }
            }
            other => panic!("unexpected method {other}"),
        };
        self.reply(
            headers,
            json!({"jsonrpc": "2.0", "id": message["id"], "result": result}),
        )
    }

    fn reply(&self, mut headers: Vec<(String, String)>, message: Value) -> HttpResponse {
        match self.sse {
            true => {
                headers.push(("content-type".into(), "text/event-stream".into()));
                let progress = json!({"jsonrpc": "2.0", "method": "notifications/message",
                                      "params": {"level": "info", "data": "working"}});
                let body = format!(
                    "event: message\ndata: {progress}\n\nevent: message\ndata: {message}\n\n"
                );
                respond(200, headers, &body)
            }
            false => {
                headers.push(("content-type".into(), "application/json".into()));
                respond(200, headers, &message.to_string())
            }
        }
    }
}

fn respond(status: u16, headers: Vec<(String, String)>, body: &str) -> HttpResponse {
    HttpResponse {
        status,
        status_text: String::new(),
        headers,
        url: URL.into(),
        redirected: false,
        body: body.as_bytes().to_vec(),
    }
}

struct ServerDoors(Arc<Server>);

impl Doors for ServerDoors {
    fn call_tool(&self, name: &str, _args: &str) -> BoxFuture<'static, Result<String, String>> {
        let name = name.to_owned();
        Box::pin(async move { Err(format!("{name} is not the page's")) })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        assert_eq!(request.url, URL, "only the granted endpoint is asked");
        let response = self.0.answer(&request);
        Box::pin(async move { Ok(response) })
    }

    fn now_ms(&self) -> f64 {
        0.0
    }
}

fn document(mcp: Value) -> Value {
    json!({
        "tools": [{"name": "weather"}],
        "network": {"allow": [{"origin": "http://127.0.0.1:9100", "paths": ["/mcp"], "methods": ["POST"]}]},
        "mcp": [mcp],
    })
}

fn connect(sse: bool, mcp: Value) -> (Result<Gate, String>, Arc<Server>) {
    let server = Arc::new(Server {
        sse,
        ..Server::default()
    });
    let caps = Capabilities::from_value(&document(mcp)).unwrap();
    let gate = Gate::new(caps, Arc::new(ServerDoors(server.clone())));
    let gate = block_on(gate.connect_mcp()).map_err(|err| err.to_string());
    (gate, server)
}

fn call(gate: &Gate, name: &str, args: Value) -> Result<String, Denial> {
    block_on(gate.call_tool(name, &args.to_string(), Via::Shell))
}

#[test]
fn every_listed_tool_joins_the_granted_tools() {
    for sse in [false, true] {
        let (gate, server) = connect(sse, json!({"name": "kb", "url": URL}));
        let gate = gate.unwrap();
        let names: Vec<&str> = gate
            .capabilities()
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        // The tool whose name cannot be a sandbox tool's is left out, and said so.
        assert_eq!(names, ["weather", "kb_search", "kb_add", "kb_explode"]);
        assert_eq!(
            server.methods(),
            [
                "initialize",
                "notifications/initialized",
                "tools/list",
                "tools/list"
            ]
        );
        let search = gate.capabilities().tool("kb_search").unwrap();
        assert_eq!(search.description, "Searches the notes.");

        assert_eq!(
            call(&gate, "kb_search", json!({"q": "rust"})).unwrap(),
            "\"found: rust\""
        );
        assert_eq!(
            call(&gate, "kb_add", json!({"a": 2, "b": 3})).unwrap(),
            r#"{"sum":5.0}"#
        );
        let failed = call(&gate, "kb_explode", json!({})).unwrap_err();
        assert_eq!(failed.code, Code::ToolFailed);
        assert_eq!(failed.message, "`kb_explode` failed: the notes are on fire");

        // Every message after initialize carried the session the server gave.
        let received = server.received.lock().unwrap();
        assert!(
            received[1..]
                .iter()
                .all(|(_, s)| s.as_deref() == Some("s1"))
        );
        let log = gate.audit().to_jsonl();
        assert!(log.contains(r#""kind":"mcp_connect""#), "{log}");
        assert!(
            log.contains(r#"skipped":["#) && log.contains("bad name!"),
            "{log}"
        );
        assert!(log.contains(r#""via":"mcp""#) && log.contains(r#""mcp":"kb""#));
    }
}

#[test]
fn the_schema_from_the_server_is_checked_before_anything_is_sent() {
    let (gate, server) = connect(true, json!({"name": "kb", "url": URL}));
    let gate = gate.unwrap();
    let before = server.received.lock().unwrap().len();
    let bad = call(&gate, "kb_search", json!({"query": "x"})).unwrap_err();
    assert_eq!(bad.code, Code::BadArgs);
    assert!(bad.message.contains("missing properties 'q'"), "{bad}");
    assert_eq!(server.received.lock().unwrap().len(), before);
    // The definitions given to a model include the server's tools and schemas.
    let defs = definitions_json(gate.capabilities(), Format::OpenAi);
    let add = defs
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["function"]["name"] == "kb_add")
        .unwrap();
    assert_eq!(add["function"]["parameters"]["required"], json!(["a", "b"]));
}

#[test]
fn named_tools_only_with_the_documents_constraints_and_limits() {
    let (gate, server) = connect(
        false,
        json!({"name": "kb", "url": URL, "prefix": "notes.", "tools": [
            {"name": "search", "description": "Our notes.", "max_calls": 2,
             "constraints": {"arg": "q", "max_length": 10}},
        ]}),
    );
    let gate = gate.unwrap();
    let names: Vec<&str> = gate
        .capabilities()
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["weather", "notes.search"]);
    assert_eq!(
        gate.capabilities()
            .tool("notes.search")
            .unwrap()
            .description,
        "Our notes."
    );
    assert_eq!(
        call(&gate, "kb_add", json!({"a": 1, "b": 1}))
            .unwrap_err()
            .code,
        Code::Denied
    );
    let long = call(&gate, "notes.search", json!({"q": "far too long a query"})).unwrap_err();
    assert_eq!(long.code, Code::Constraint);
    assert!(call(&gate, "notes.search", json!({"q": "a"})).is_ok());
    assert!(call(&gate, "notes.search", json!({"q": "b"})).is_ok());
    assert_eq!(
        call(&gate, "notes.search", json!({"q": "c"}))
            .unwrap_err()
            .code,
        Code::MaxCalls
    );
    let calls = server
        .methods()
        .iter()
        .filter(|m| *m == "tools/call")
        .count();
    assert_eq!(calls, 2, "refused calls never reach the server");
}

#[test]
fn a_forgotten_session_is_opened_again() {
    let (gate, server) = connect(true, json!({"name": "kb", "url": URL}));
    let gate = gate.unwrap();
    server.forget_sessions();
    assert_eq!(
        call(&gate, "kb_search", json!({"q": "again"})).unwrap(),
        "\"found: again\""
    );
    let methods = server.methods();
    assert_eq!(
        &methods[methods.len() - 4..],
        [
            "tools/call",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ]
    );
}

#[test]
fn connecting_fails_clearly() {
    let (gate, _) = connect(
        false,
        json!({"name": "kb", "url": URL, "tools": [{"name": "delete_all"}]}),
    );
    assert_eq!(
        gate.unwrap_err(),
        format!("MCP server `kb` ({URL}): mcp[0].tools[0]: the server has no tool `delete_all`")
    );

    let err = |doc: Value| Capabilities::from_value(&doc).unwrap_err().to_string();
    let ungranted = err(json!({"mcp": [{"name": "kb", "url": URL}]}));
    assert!(
        ungranted.starts_with("capability document: mcp[0].url: "),
        "{ungranted}"
    );
    assert!(ungranted.contains("\"methods\": [\"POST\"]"), "{ungranted}");
    let get_only = err(json!({
        "network": {"allow": [{"origin": "http://127.0.0.1:9100"}]},
        "mcp": [{"name": "kb", "url": URL}]}));
    assert!(
        get_only.contains("mcp[0].url") && get_only.contains("POST"),
        "{get_only}"
    );
    let clash = err(json!({
        "tools": [{"name": "kb_search"}],
        "network": {"allow": [{"origin": "http://127.0.0.1:9100", "methods": ["POST"]}]},
        "mcp": [{"name": "kb", "url": URL, "tools": [{"name": "search"}]}]}));
    assert!(
        clash.contains("mcp[0].tools[0].name: `kb_search` is granted twice"),
        "{clash}"
    );
    let schema = err(json!({
        "network": {"allow": [{"origin": "http://127.0.0.1:9100", "methods": ["POST"]}]},
        "mcp": [{"name": "kb", "url": URL, "tools": [{"name": "search", "parameters": {"type": "object"}}]}]}));
    assert!(schema.contains("mcp[0].tools[0].parameters: the schema comes from the server"));

    // A server that is not there: the request's own failure, naming the server.
    struct Nobody;
    impl Doors for Nobody {
        fn call_tool(&self, _: &str, _: &str) -> BoxFuture<'static, Result<String, String>> {
            Box::pin(async { Err("no".to_owned()) })
        }
        fn fetch(&self, _: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
            Box::pin(async { Err(Denial::new(Code::NetFailed, "connection refused")) })
        }
        fn now_ms(&self) -> f64 {
            0.0
        }
    }
    let caps = Capabilities::from_value(&document(json!({"name": "kb", "url": URL}))).unwrap();
    let failed = block_on(Gate::new(caps, Arc::new(Nobody)).connect_mcp()).unwrap_err();
    assert_eq!(
        failed.to_string(),
        format!("MCP server `kb` ({URL}): CAP_NET_FAILED: connection refused")
    );
}
