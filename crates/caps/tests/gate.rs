//! The gate end to end with scripted doors: every refusal has its code, allowed calls
//! reach the doors exactly as checked, redirects are checked at every hop, secrets are
//! injected and scrubbed, and everything is in the audit log.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use sandtab_caps::{
    BoxFuture, Capabilities, Code, Denial, DoorRequest, Doors, Gate, HttpRequest, HttpResponse, Via,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Scripted {
    now: Mutex<f64>,
    tool_calls: Mutex<Vec<(String, String)>>,
    requests: Mutex<Vec<DoorRequest>>,
    responses: Mutex<HashMap<String, HttpResponse>>,
}

impl Scripted {
    fn respond(&self, url: &str, status: u16, headers: &[(&str, &str)], body: &str) {
        self.responses.lock().unwrap().insert(
            url.into(),
            HttpResponse {
                status,
                status_text: "X".into(),
                headers: headers
                    .iter()
                    .map(|(n, v)| ((*n).into(), (*v).into()))
                    .collect(),
                url: url.into(),
                redirected: false,
                body: body.as_bytes().to_vec(),
            },
        );
    }
    fn advance(&self, ms: f64) {
        *self.now.lock().unwrap() += ms;
    }
}

impl Doors for Scripted {
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        self.tool_calls
            .lock()
            .unwrap()
            .push((name.into(), args.into()));
        let answer = match name {
            "broken" => Err("the handler threw".to_owned()),
            "prose" => Ok("not json".to_owned()),
            _ => Ok(
                json!({"ok": true, "args": serde_json::from_str::<Value>(args).unwrap()})
                    .to_string(),
            ),
        };
        Box::pin(async move { answer })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let answer = self
            .responses
            .lock()
            .unwrap()
            .get(&request.url)
            .cloned()
            .ok_or_else(|| Denial::new(Code::NetFailed, "connection refused"));
        self.requests.lock().unwrap().push(request);
        Box::pin(async move { answer })
    }

    fn now_ms(&self) -> f64 {
        *self.now.lock().unwrap()
    }
}

fn gate(doc: Value) -> (Gate, Arc<Scripted>) {
    let doors = Arc::new(Scripted::default());
    let caps = Capabilities::from_value(&doc).unwrap();
    (Gate::new(caps, doors.clone()), doors)
}

fn call(gate: &Gate, name: &str, args: &str) -> Result<String, Code> {
    block_on(gate.call_tool(name, args, Via::Api)).map_err(|d| d.code)
}

fn get(gate: &Gate, url: &str, follow: bool) -> Result<HttpResponse, Denial> {
    block_on(gate.fetch(
        HttpRequest {
            method: "GET".into(),
            url: url.into(),
            headers: vec![
                ("Authorization".into(), "mine".into()),
                ("X-Mine".into(), "1".into()),
            ],
            body: None,
            follow_redirects: follow,
        },
        Via::Shell,
    ))
}

fn audit(gate: &Gate) -> Vec<Value> {
    gate.audit()
        .to_jsonl()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn tools_are_checked_in_order_and_only_allowed_calls_reach_the_host() {
    let (gate, doors) = gate(json!({"tools": [
        {"name": "weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"], "additionalProperties": false},
         "constraints": {"all": [{"arg": "city", "in": ["Oslo", "Paris"]}, {"any": [{"arg": "days", "le": 7}]}]},
         "max_calls": 2},
    ]}));
    assert_eq!(call(&gate, "mail", "{}"), Err(Code::Denied));
    assert_eq!(call(&gate, "weather", "{city"), Err(Code::BadArgs));
    assert_eq!(call(&gate, "weather", r#"{"days": 1}"#), Err(Code::BadArgs));
    assert_eq!(
        call(&gate, "weather", r#"{"city": "Oslo", "days": 1, "x": 1}"#),
        Err(Code::BadArgs)
    );
    assert_eq!(
        call(&gate, "weather", r#"{"city": "Rome", "days": 1}"#),
        Err(Code::Constraint)
    );
    // A constraint on a missing argument fails closed.
    assert_eq!(
        call(&gate, "weather", r#"{"city": "Oslo"}"#),
        Err(Code::Constraint)
    );
    assert!(
        doors.tool_calls.lock().unwrap().is_empty(),
        "nothing refused reached the host"
    );
    assert!(call(&gate, "weather", r#"{"city": "Oslo", "days": 3}"#).is_ok());
    assert!(call(&gate, "weather", r#"{"city": "Paris", "days": 7}"#).is_ok());
    assert_eq!(
        call(&gate, "weather", r#"{"city": "Oslo", "days": 1}"#),
        Err(Code::MaxCalls)
    );
    assert_eq!(doors.tool_calls.lock().unwrap().len(), 2);
    let denial = block_on(gate.call_tool("weather", r#"{"city": "Rome", "days": 1}"#, Via::Guest))
        .unwrap_err();
    assert_eq!(
        denial.to_string(),
        "CAP_CONSTRAINT: `weather`: `city` must be one of [\"Oslo\",\"Paris\"] and (`days` must be at most 7)"
    );
    let schema = block_on(gate.call_tool("weather", r#"{"city": 3}"#, Via::Guest)).unwrap_err();
    assert!(
        schema
            .message
            .contains("/city: want string, but got number"),
        "{}",
        schema.message
    );
}

#[test]
fn rate_limits_slide_with_the_clock() {
    let (gate, doors) =
        gate(json!({"tools": [{"name": "t", "rate_limit": {"calls": 2, "per_seconds": 10}}]}));
    assert!(call(&gate, "t", "{}").is_ok());
    doors.advance(4000.0);
    assert!(call(&gate, "t", "{}").is_ok());
    let denial = block_on(gate.call_tool("t", "{}", Via::Shell)).unwrap_err();
    assert_eq!(denial.code, Code::RateLimit);
    assert!(
        denial.message.ends_with("try again in 6.0 s"),
        "{}",
        denial.message
    );
    doors.advance(6000.0);
    assert!(
        call(&gate, "t", "{}").is_ok(),
        "the first call left the window"
    );
    assert_eq!(call(&gate, "t", "{}"), Err(Code::RateLimit));
}

#[test]
fn a_failing_or_non_json_handler_is_a_tool_failure() {
    let (gate, _) = gate(json!({"tools": [{"name": "broken"}, {"name": "prose"}]}));
    assert_eq!(call(&gate, "broken", "{}"), Err(Code::ToolFailed));
    assert_eq!(call(&gate, "prose", "{}"), Err(Code::ToolFailed));
    let kinds: Vec<String> = audit(&gate)
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["tool", "tool"], "failures are not denials");
}

#[test]
fn requests_are_checked_before_they_leave() {
    let (gate, doors) = gate(
        json!({"network": {"allow": [{"origin": "http://127.0.0.1:9000", "paths": ["/api/"]}]}}),
    );
    for (url, code) in [
        ("http://127.0.0.2:9000/api/x", Code::NetPrivate),
        ("http://127.0.0.1:9001/api/x", Code::NetPrivate),
        ("https://example.com/", Code::NetDenied),
        ("http://127.0.0.1:9000/other", Code::NetDenied),
        ("data:text/plain,hello", Code::NetScheme),
        ("blob:http://127.0.0.1:9000/uuid", Code::NetScheme),
        ("file:///etc/passwd", Code::NetScheme),
    ] {
        assert_eq!(get(&gate, url, true).unwrap_err().code, code, "{url}");
    }
    let post = block_on(gate.fetch(
        HttpRequest {
            method: "POST".into(),
            url: "http://127.0.0.1:9000/api/x".into(),
            ..HttpRequest::default()
        },
        Via::Shell,
    ));
    assert_eq!(post.unwrap_err().code, Code::NetMethod);
    assert!(
        doors.requests.lock().unwrap().is_empty(),
        "nothing refused was sent"
    );
    doors.respond(
        "http://127.0.0.1:9000/api/x",
        200,
        &[("content-type", "text/plain")],
        "hi",
    );
    let response = get(&gate, "http://127.0.0.1:9000/api/x", false).unwrap();
    assert_eq!(response.body, b"hi");
    let sent = doors.requests.lock().unwrap()[0].clone();
    assert_eq!(sent.follow_within, None);
    assert_eq!(sent.max_response_bytes, 10 * 1024 * 1024);
}

#[test]
fn every_redirect_hop_is_checked() {
    let (gate, doors) = gate(json!({"network": {"allow": [
        {"origin": "http://127.0.0.1:9000"},
        {"origin": "http://127.0.0.1:9100", "paths": ["/ok/"]},
    ]}}));
    doors.respond("http://127.0.0.1:9000/a", 302, &[("location", "/b")], "");
    doors.respond(
        "http://127.0.0.1:9000/b",
        301,
        &[("location", "http://127.0.0.1:9100/ok/c")],
        "",
    );
    doors.respond("http://127.0.0.1:9100/ok/c", 200, &[], "final");
    doors.respond(
        "http://127.0.0.1:9000/out",
        302,
        &[("location", "http://127.0.0.3:9000/steal")],
        "",
    );
    doors.respond(
        "http://127.0.0.1:9000/sideways",
        307,
        &[("location", "http://127.0.0.1:9100/admin")],
        "",
    );
    doors.respond(
        "http://127.0.0.1:9000/loop",
        302,
        &[("location", "/loop")],
        "",
    );
    assert_eq!(
        get(&gate, "http://127.0.0.1:9000/a", true).unwrap().body,
        b"final"
    );
    // Without -L the redirect itself is the answer.
    assert_eq!(
        get(&gate, "http://127.0.0.1:9000/a", false).unwrap().status,
        302
    );
    let out = get(&gate, "http://127.0.0.1:9000/out", true).unwrap_err();
    assert_eq!(out.code, Code::NetRedirect);
    assert!(out.message.contains("127.0.0.3"), "{}", out.message);
    assert_eq!(
        get(&gate, "http://127.0.0.1:9000/sideways", true)
            .unwrap_err()
            .code,
        Code::NetRedirect
    );
    assert_eq!(
        get(&gate, "http://127.0.0.1:9000/loop", true)
            .unwrap_err()
            .code,
        Code::NetRedirect
    );
    let sent: Vec<String> = doors
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.url.clone())
        .collect();
    assert!(
        !sent
            .iter()
            .any(|u| u.contains("127.0.0.3") || u.contains("/admin")),
        "{sent:?}"
    );
}

#[test]
fn doors_that_follow_redirects_themselves_have_the_final_url_checked() {
    // Doors that hide the hops may follow only where every path is granted (see
    // tests/network_security.rs); the final URL is checked all the same.
    let (gate, doors) = gate(json!({"network": {"allow": [
        {"origin": "http://127.0.0.1:9000"},
        {"origin": "http://127.0.0.1:9100", "paths": ["/api/"]},
    ]}}));
    let mut followed = HttpResponse {
        status: 200,
        url: "http://127.0.0.1:9100/private/x".into(),
        redirected: true,
        body: b"secret".to_vec(),
        ..HttpResponse::default()
    };
    doors
        .responses
        .lock()
        .unwrap()
        .insert("http://127.0.0.1:9000/api/r".into(), followed.clone());
    let denial = get(&gate, "http://127.0.0.1:9000/api/r", true).unwrap_err();
    assert_eq!(denial.code, Code::NetRedirect);
    assert_eq!(
        doors.requests.lock().unwrap()[0].follow_within.as_deref(),
        Some(&["http://127.0.0.1:9000".to_owned()][..])
    );
    followed.url = "http://127.0.0.1:9000/api/y".into();
    doors
        .responses
        .lock()
        .unwrap()
        .insert("http://127.0.0.1:9000/api/r".into(), followed);
    assert_eq!(
        get(&gate, "http://127.0.0.1:9000/api/r", true)
            .unwrap()
            .body,
        b"secret"
    );
}

#[test]
fn injected_headers_replace_the_sandboxs_and_never_come_back() {
    let (gate, doors) = gate(json!({"network": {"allow": [
        {"origin": "http://127.0.0.1:9000", "headers": {"Authorization": "Bearer s3cr3t-token", "X-Page-Key": null}},
        {"origin": "http://127.0.0.1:9100"},
    ]}}));
    doors.respond(
        "http://127.0.0.1:9000/echo",
        200,
        &[("x-echo", "Bearer s3cr3t-token")],
        "you sent: Authorization: Bearer s3cr3t-token",
    );
    let response = get(&gate, "http://127.0.0.1:9000/echo", true).unwrap();
    assert_eq!(
        String::from_utf8(response.body.clone()).unwrap(),
        "you sent: Authorization: [redacted]"
    );
    assert_eq!(response.header("x-echo"), Some("[redacted]"));
    let sent = doors.requests.lock().unwrap()[0].clone();
    let auth: Vec<&(String, String)> = sent
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
        .collect();
    assert_eq!(
        auth,
        [&("authorization".to_owned(), "Bearer s3cr3t-token".to_owned())],
        "the sandbox's own value is dropped"
    );
    assert!(sent.headers.iter().any(|(n, v)| n == "X-Mine" && v == "1"));
    assert_eq!(
        sent.inject,
        ["x-page-key"],
        "a null value is the page's to inject"
    );
    // A request with injected headers may only be redirected within its own origin.
    assert_eq!(
        sent.follow_within.as_deref(),
        Some(&["http://127.0.0.1:9000".to_owned()][..])
    );
    assert!(!gate.audit().to_jsonl().contains("s3cr3t"));
}

#[test]
fn the_audit_log_has_every_call_and_denial() {
    let (gate, doors) = gate(json!({
        "tools": [{"name": "login", "redact": ["/password"]}],
        "network": {"allow": [{"origin": "http://127.0.0.1:9000"}]},
    }));
    doors.advance(1_000.0);
    gate.log_exec("main", "echo hi", 0, 3, 0);
    call(&gate, "login", r#"{"user": "a", "password": "hunter2"}"#).unwrap();
    call(&gate, "nope", r#"{"x": 1}"#).unwrap_err();
    doors.respond("http://127.0.0.1:9000/", 200, &[], "12345");
    get(&gate, "http://127.0.0.1:9000/", false).unwrap();
    get(&gate, "http://10.0.0.1/", false).unwrap_err();
    let entries = audit(&gate);
    assert_eq!(entries.len(), 5);
    assert_eq!(entries[0]["kind"], "exec");
    assert_eq!(entries[0]["script"], "echo hi");
    assert_eq!(entries[0]["time_ms"], 1000.0);
    assert_eq!(entries[1]["kind"], "tool");
    assert_eq!(
        entries[1]["args"],
        json!({"user": "a", "password": "[redacted]"})
    );
    assert_eq!(entries[2]["kind"], "denial");
    assert_eq!(entries[2]["code"], "CAP_DENIED");
    assert_eq!(entries[2]["call"], "tool");
    assert_eq!(entries[3]["kind"], "fetch");
    assert_eq!(entries[3]["result_bytes"], 5);
    assert_eq!(entries[3]["status"], 200);
    assert_eq!(
        entries[3]["headers"],
        json!(["Authorization", "X-Mine"]),
        "names only, never values"
    );
    assert_eq!(entries[4]["code"], "CAP_NET_PRIVATE");
    let seqs: Vec<u64> = entries.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    assert!(!gate.audit().to_jsonl().contains("hunter2"));
}

#[test]
fn oversized_responses_are_refused() {
    let (gate, doors) = gate(
        json!({"network": {"allow": [{"origin": "http://127.0.0.1:9000"}], "max_response_bytes": 4}}),
    );
    doors.respond("http://127.0.0.1:9000/", 200, &[], "12345");
    assert_eq!(
        get(&gate, "http://127.0.0.1:9000/", false)
            .unwrap_err()
            .code,
        Code::NetTooLarge
    );
}

/// A built-in tool call as the runtime makes it: checked, carried out (here: nothing),
/// finished. Paths resolve lexically (no symlinks in these tests).
fn builtin(gate: &Gate, name: &str, args: &str) -> Result<Value, Code> {
    let lexical = |path: &str| Ok(sandtab_caps::home_path(path));
    let call = gate
        .begin_builtin(name, args, Via::Api, &lexical)
        .map_err(|d| d.code)?;
    let checked = call.args().clone();
    call.finish(Ok(3));
    Ok(checked)
}

#[test]
fn builtin_tools_are_checked_and_audited_without_their_contents() {
    // No `builtins` section: every built-in is granted, as before, and still checked.
    let (gate, doors) = gate(json!({}));
    let body = "a secret body ".repeat(100);
    let args = json!({"path": "notes.txt", "content": body}).to_string();
    assert!(builtin(&gate, "write_file", &args).is_ok());
    assert!(builtin(&gate, "read_file", r#"{"path": "notes.txt", "offset": 2}"#).is_ok());
    assert!(
        builtin(
            &gate,
            "edit_file",
            r#"{"path": "notes.txt", "old_string": "a", "new_string": "b"}"#
        )
        .is_ok()
    );
    assert!(builtin(&gate, "bash", r#"{"command": "ls"}"#).is_ok());
    // The schema is checked: a missing or unknown argument, a wrong type, not JSON.
    assert_eq!(
        builtin(&gate, "write_file", r#"{"path": "x"}"#),
        Err(Code::BadArgs)
    );
    assert_eq!(
        builtin(&gate, "read_file", r#"{"path": "x", "lines": 3}"#),
        Err(Code::BadArgs)
    );
    assert_eq!(
        builtin(&gate, "read_file", r#"{"path": 3}"#),
        Err(Code::BadArgs)
    );
    assert_eq!(builtin(&gate, "bash", "{command"), Err(Code::BadArgs));
    assert_eq!(builtin(&gate, "weather", "{}"), Err(Code::Denied));
    assert!(
        doors.tool_calls.lock().unwrap().is_empty(),
        "built-ins never reach the page's handlers"
    );
    let entries = audit(&gate);
    assert_eq!(entries.len(), 9);
    assert_eq!(entries[0]["kind"], "tool");
    assert_eq!(entries[0]["tool"], "write_file");
    assert_eq!(entries[0]["via"], "api");
    assert_eq!(entries[0]["ok"], true);
    assert_eq!(entries[0]["result_bytes"], 3);
    assert_eq!(
        entries[0]["args"],
        json!({"path": "notes.txt", "content_bytes": body.len()})
    );
    assert_eq!(
        entries[1]["args"],
        json!({"path": "notes.txt", "offset": 2})
    );
    assert_eq!(
        entries[2]["args"],
        json!({"path": "notes.txt", "old_string_bytes": 1, "new_string_bytes": 1})
    );
    assert_eq!(entries[3]["tool"], "bash");
    assert_eq!(entries[3]["args"], json!({"command": "ls"}));
    for entry in &entries[4..] {
        assert_eq!(entry["kind"], "denial", "{entry}");
        assert_eq!(entry["call"], "tool");
    }
    assert_eq!(entries[4]["code"], "CAP_BAD_ARGS");
    assert_eq!(entries[4]["args"], json!({"path": "x"}));
    assert_eq!(entries[8]["code"], "CAP_DENIED");
    let log = gate.audit().to_jsonl();
    assert!(!log.contains("a secret body"), "no file contents: {log}");
    assert!(
        log.lines().all(|line| line.len() < 600),
        "small lines: {log}"
    );
}

#[test]
fn a_denied_builtin_gives_its_code_and_is_audited_as_denied() {
    let (gate, _) = gate(json!({"builtins": {
        "write_file": false,
        "bash": {"max_calls": 1},
        "edit_file": {"paths": ["src", "/tmp/"], "rate_limit": {"calls": 1, "per_seconds": 60}},
        "read_file": true,
    }}));
    let denied = gate
        .begin_builtin(
            "write_file",
            r#"{"path": "a", "content": "x"}"#,
            Via::Api,
            &|p: &str| Ok(sandtab_caps::home_path(p)),
        )
        .unwrap_err();
    assert_eq!(denied.code, Code::Denied);
    assert!(denied.message.contains("builtins.write_file"), "{denied}");
    assert!(builtin(&gate, "read_file", r#"{"path": "a"}"#).is_ok());
    assert!(builtin(&gate, "bash", r#"{"command": "ls"}"#).is_ok());
    assert_eq!(
        builtin(&gate, "bash", r#"{"command": "ls"}"#),
        Err(Code::MaxCalls)
    );
    let edit = |path: &str| json!({"path": path, "old_string": "a", "new_string": "b"}).to_string();
    // Outside the paths: lexically, through `..`, and through a symlink the resolver
    // reports; all before the call is counted.
    assert_eq!(
        builtin(&gate, "edit_file", &edit("b.txt")),
        Err(Code::Constraint)
    );
    assert_eq!(
        builtin(&gate, "edit_file", &edit("src/../b.txt")),
        Err(Code::Constraint)
    );
    assert_eq!(
        builtin(&gate, "edit_file", &edit("/home/agent/srcx/a")),
        Err(Code::Constraint)
    );
    let via_link = gate
        .begin_builtin("edit_file", &edit("src/link"), Via::Api, &|_: &str| {
            Ok("/etc/passwd".to_owned())
        })
        .unwrap_err();
    assert_eq!(via_link.code, Code::Constraint);
    let unresolved = gate
        .begin_builtin("edit_file", &edit("src/loop"), Via::Api, &|_: &str| {
            Err("too many symlinks".to_owned())
        })
        .unwrap_err();
    assert_eq!(unresolved.code, Code::Constraint, "fails closed");
    assert!(builtin(&gate, "edit_file", &edit("/home/agent/src/x/a.rs")).is_ok());
    assert_eq!(
        builtin(&gate, "edit_file", &edit("/tmp/a")),
        Err(Code::RateLimit)
    );
    let entries = audit(&gate);
    assert_eq!(entries[0]["kind"], "denial");
    assert_eq!(entries[0]["call"], "tool");
    assert_eq!(entries[0]["tool"], "write_file");
    assert_eq!(entries[0]["code"], "CAP_DENIED");
    assert_eq!(entries[0]["args"], json!({"path": "a", "content_bytes": 1}));
    let codes: Vec<&str> = entries
        .iter()
        .map(|e| e["code"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(
        codes,
        [
            "CAP_DENIED",
            "ok",
            "ok",
            "CAP_MAX_CALLS",
            "CAP_CONSTRAINT",
            "CAP_CONSTRAINT",
            "CAP_CONSTRAINT",
            "CAP_CONSTRAINT",
            "CAP_CONSTRAINT",
            "ok",
            "CAP_RATE_LIMIT"
        ]
    );
    // The model is not offered what it may not call; restricted tools say where.
    let defs = sandtab_caps::definitions(gate.capabilities());
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["bash", "read_file", "edit_file"]);
    assert!(
        defs[2].description.contains("/home/agent/src, /tmp"),
        "{}",
        defs[2].description
    );
}

#[test]
fn builtins_sections_fail_closed_with_clear_errors() {
    let err = |doc: Value| Capabilities::from_value(&doc).unwrap_err().to_string();
    assert!(err(json!({"builtins": {"write_file": "no"}})).contains("builtins.write_file"));
    assert!(err(json!({"builtins": {"write_file": null}})).contains("builtins.write_file"));
    assert!(
        err(json!({"builtins": {"rm": false}})).contains("`rm` is not one of sandtab's own tools")
    );
    assert!(err(json!({"builtins": {"fetch": false}})).contains("`network`"));
    assert!(err(json!({"builtins": {"ui": true}})).contains("`ui`"));
    assert!(
        err(json!({"builtins": {"read_file": {"path": ["/x"]}}}))
            .contains("builtins.read_file: unknown field `path`")
    );
    assert!(err(json!({"builtins": {"bash": {"paths": ["/x"]}}})).contains("builtins.bash.paths"));
    assert!(
        err(json!({"builtins": {"read_file": {"paths": []}}})).contains("builtins.read_file.paths")
    );
    assert!(
        err(json!({"builtins": {"read_file": {"constraints": {"arg": "path", "bogus": 1}}}}))
            .contains("builtins.read_file.constraints")
    );
    assert!(
        err(json!({"builtins": {"read_file": {"rate_limit": {"calls": 0, "per_seconds": 1}}}}))
            .contains("builtins.read_file.rate_limit")
    );
    assert!(err(json!({"builtins": []})).contains("builtins"));
    // Constraints on a built-in's arguments use the tools' language.
    let (gate, _) = gate(
        json!({"builtins": {"bash": {"constraints": {"arg": "command", "not_in": ["reboot"]}}}}),
    );
    assert_eq!(
        builtin(&gate, "bash", r#"{"command": "reboot"}"#),
        Err(Code::Constraint)
    );
    assert!(builtin(&gate, "bash", r#"{"command": "ls"}"#).is_ok());
}
