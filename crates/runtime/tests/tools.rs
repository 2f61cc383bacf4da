//! Tools through the gate: granted tools reach the host's door only when the document
//! allows the call; sandtab's own `bash` and file tools (by `callTool` and as the
//! `readText`/`writeText`/`editFile` ops) follow the document's `builtins`; everything
//! is in the audit log; tool definitions in each format; `fetch` through the policy.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, audit, error, exec, open, run, run_json, text};
use sandtab_runtime::{Op, Reply};
use serde_json::{Value, json};

fn weather_document() -> Value {
    json!({
        "version": 1,
        "tools": [{
            "name": "weather",
            "description": "The forecast for a city.",
            "parameters": {"type": "object",
                           "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                           "required": ["city"]},
            "constraints": {"arg": "city", "in": ["Oslo", "Paris"]},
        }],
        "network": {"allow": [{"origin": "https://api.example.com"}]},
    })
}

fn call(sandbox: &sandtab_runtime::Sandbox, name: &str, args: Value) -> Result<String, String> {
    run_json(
        sandbox,
        json!({"op": "callTool", "name": name, "args": args.to_string()}),
    )
    .map(|reply| match reply {
        Reply::Text { text } => text,
        other => panic!("{other:?}"),
    })
    .map_err(|err| err.code)
}

#[test]
fn granted_tools_reach_the_door_only_when_the_document_allows_the_call() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"capabilities": weather_document()}), &platform).unwrap();

    let answer = call(&sandbox, "weather", json!({"city": "Oslo", "days": 2})).unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["tool"], "weather");
    assert_eq!(answer["args"]["city"], "Oslo");
    assert_eq!(platform.doors.tool_call_count(), 1);

    // A constraint violation is refused before the door.
    let err = error(run_json(
        &sandbox,
        json!({"op": "callTool", "name": "weather", "args": r#"{"city":"Rome"}"#}),
    ));
    assert_eq!(err.code, "CAP_CONSTRAINT");
    assert!(err.message.contains("city"), "{}", err.message);
    // Arguments against the schema, and a tool not granted.
    assert_eq!(
        call(&sandbox, "weather", json!({"days": 2})),
        Err("CAP_BAD_ARGS".into())
    );
    assert_eq!(call(&sandbox, "mail", json!({})), Err("CAP_DENIED".into()));
    assert_eq!(
        platform.doors.tool_call_count(),
        1,
        "nothing refused reached the door"
    );

    // The shell reaches the same tool through the same gate.
    let ran = exec(
        &sandbox,
        "weather --city Paris; weather --city Rome; echo $?",
    );
    assert!(ran.stdout.contains("\"city\":\"Paris\""), "{}", ran.stdout);
    assert!(ran.stderr.contains("CAP_CONSTRAINT"), "{}", ran.stderr);
    assert_eq!(platform.doors.tool_call_count(), 2);

    // A request through the network policy: granted origin reaches the door, others not.
    let reply = run_json(
        &sandbox,
        json!({"op": "fetch", "request": {"url": "https://api.example.com/v1"}}),
    )
    .unwrap();
    let Reply::Fetched(response) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(response.status, 200);
    assert!(String::from_utf8_lossy(&response.body.0).starts_with("canned response"));
    let err = error(run_json(
        &sandbox,
        json!({"op": "fetch", "request": {"url": "https://evil.example.net/"}}),
    ));
    assert_eq!(err.code, "CAP_NET_DENIED");
    assert_eq!(platform.doors.fetches.lock().unwrap().len(), 1);

    // Without a document nothing is granted.
    let bare = open(json!({}), &platform).unwrap();
    assert_eq!(
        call(&bare, "weather", json!({"city": "Oslo"})),
        Err("CAP_DENIED".into())
    );
}

#[test]
fn builtins_work_when_granted() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let written: Value = serde_json::from_str(
        &call(
            &sandbox,
            "write_file",
            json!({"path": "notes/a.txt", "content": "one\ntwo\nthree\n"}),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(written["bytes_written"], 14);
    let read: Value =
        serde_json::from_str(&call(&sandbox, "read_file", json!({"path": "notes/a.txt"})).unwrap())
            .unwrap();
    assert_eq!(read["content"].as_str().unwrap(), "one\ntwo\nthree\n");
    let edited: Value = serde_json::from_str(
        &call(
            &sandbox,
            "edit_file",
            json!({"path": "/home/agent/notes/a.txt", "old_string": "two", "new_string": "2"}),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(edited["replacements"], 1);
    let bash: Value = serde_json::from_str(
        &call(
            &sandbox,
            "bash",
            json!({"command": "cat notes/a.txt; exit 4"}),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(bash["stdout"], "one\n2\nthree\n");
    assert_eq!(bash["exit_code"], 4);

    // The same tools as ops.
    let count = run_json(
        &sandbox,
        json!({"op": "writeText", "path": "b.txt", "content": "alpha beta alpha"}),
    )
    .unwrap();
    assert_eq!(count, Reply::Count { count: 16 });
    let count = run_json(
        &sandbox,
        json!({"op": "editFile", "path": "b.txt", "oldString": "alpha", "newString": "A", "replaceAll": true}),
    )
    .unwrap();
    assert_eq!(count, Reply::Count { count: 2 });
    assert_eq!(
        text(run_json(
            &sandbox,
            json!({"op": "readText", "path": "b.txt"})
        )),
        "A beta A"
    );
    assert_eq!(
        text(run_json(
            &sandbox,
            json!({"op": "readText", "path": "notes/a.txt", "offset": 2, "limit": 1})
        )),
        "2\n"
    );
    // An edit whose old string is not there changes nothing.
    let err = error(run_json(
        &sandbox,
        json!({"op": "editFile", "path": "b.txt", "oldString": "gamma", "newString": "G"}),
    ));
    assert_eq!(err.code, "EINVAL", "{err:?}");
    assert_eq!(exec(&sandbox, "cat b.txt").stdout, "A beta A");
}

#[test]
fn builtins_are_refused_when_the_document_denies_them() {
    let platform = FakePlatform::new();
    let document = json!({"builtins": {
        "bash": false,
        "write_file": false,
        "edit_file": {"paths": ["/home/agent/src"]},
        "read_file": {"constraints": {"arg": "path", "not_in": ["secret.txt"]}},
    }});
    let sandbox = open(json!({"capabilities": document}), &platform).unwrap();
    exec(
        &sandbox,
        "mkdir src; echo x > src/a; echo x > b; echo s > secret.txt",
    );

    assert_eq!(
        call(&sandbox, "bash", json!({"command": "echo hi"})),
        Err("CAP_DENIED".into())
    );
    assert_eq!(
        call(&sandbox, "write_file", json!({"path": "c", "content": "c"})),
        Err("CAP_DENIED".into())
    );
    let err = error(run_json(
        &sandbox,
        json!({"op": "writeText", "path": "c", "content": "c"}),
    ));
    assert_eq!(err.code, "CAP_DENIED");
    assert!(err.message.contains("write_file"), "{}", err.message);
    // edit_file only under src.
    let err = error(run_json(
        &sandbox,
        json!({"op": "editFile", "path": "b", "oldString": "x", "newString": "y"}),
    ));
    assert!(err.code.starts_with("CAP_"), "{err:?}");
    assert_eq!(
        run_json(
            &sandbox,
            json!({"op": "editFile", "path": "src/a", "oldString": "x", "newString": "y"}),
        )
        .unwrap(),
        Reply::Count { count: 1 }
    );
    // read_file's constraint.
    let err = error(run_json(
        &sandbox,
        json!({"op": "readText", "path": "secret.txt"}),
    ));
    assert_eq!(err.code, "CAP_CONSTRAINT");
    assert_eq!(
        text(run_json(&sandbox, json!({"op": "readText", "path": "b"}))),
        "x\n"
    );
    // Nothing denied happened; the shell itself (exec) is not a builtin call.
    assert_eq!(
        exec(&sandbox, "ls; cat b src/a").stdout,
        "b\nsecret.txt\nsrc\nx\ny\n"
    );

    // Definitions leave out what is denied.
    let defs: Value = serde_json::from_str(&text(sandbox.query(&Op::ToolDefinitions {
        format: "anthropic".into(),
    })))
    .unwrap();
    let names: Vec<&str> = defs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file", "edit_file"]);
}

#[test]
fn the_audit_log_has_execs_calls_and_denials() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"capabilities": weather_document()}), &platform).unwrap();
    exec(&sandbox, "echo audited");
    call(&sandbox, "weather", json!({"city": "Oslo"})).unwrap();
    call(&sandbox, "weather", json!({"city": "Rome"})).unwrap_err();
    call(&sandbox, "mail", json!({})).unwrap_err();
    call(
        &sandbox,
        "write_file",
        json!({"path": "w", "content": "abc"}),
    )
    .unwrap();

    let log = audit(&sandbox);
    let line = |pred: &dyn Fn(&Value) -> bool| log.iter().find(|e| pred(e)).cloned();
    let exec_line = line(&|e| e["kind"] == "exec").unwrap_or_else(|| panic!("{log:#?}"));
    assert_eq!(exec_line["script"], "echo audited");
    assert_eq!(exec_line["exit_code"], 0);
    let text = serde_json::to_string(&log).unwrap();
    assert!(
        log.iter()
            .any(|e| e.to_string().contains("weather") && e.to_string().contains("Oslo")),
        "{text}"
    );
    assert!(
        log.iter()
            .any(|e| e.to_string().contains("CAP_CONSTRAINT") && e.to_string().contains("Rome")),
        "{text}"
    );
    assert!(
        log.iter()
            .any(|e| e.to_string().contains("CAP_DENIED") && e.to_string().contains("mail")),
        "{text}"
    );
    assert!(
        log.iter().any(|e| e.to_string().contains("write_file")),
        "{text}"
    );
    // Sequence numbers count up.
    let seqs: Vec<u64> = log.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
}

#[test]
fn tool_definitions_come_in_each_format() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"capabilities": weather_document()}), &platform).unwrap();
    let defs = |format: &str| -> Value {
        let op: Op =
            serde_json::from_value(json!({"op": "toolDefinitions", "format": format})).unwrap();
        serde_json::from_str(&text(sandbox.query(&op))).unwrap()
    };
    let openai = defs("openai");
    let weather = openai
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["function"]["name"] == "weather")
        .unwrap();
    assert_eq!(weather["type"], "function");
    assert_eq!(
        weather["function"]["parameters"]["required"],
        json!(["city"])
    );
    let anthropic = defs("anthropic");
    let names: Vec<&str> = anthropic
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    for name in [
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "fetch",
        "weather",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(anthropic[0]["input_schema"].is_object());
    let mcp = defs("mcp");
    assert!(mcp[0]["inputSchema"].is_object(), "{mcp}");

    let err = error(run_json(
        &sandbox,
        json!({"op": "toolDefinitions", "format": "gemini"}),
    ));
    assert_eq!(err.code, "EINVAL");
    assert!(
        err.message.contains("gemini") && err.message.contains("openai"),
        "{}",
        err.message
    );
    // A query through run answers the same.
    assert_eq!(
        run(
            &sandbox,
            Op::ToolDefinitions {
                format: "mcp".into()
            }
        )
        .unwrap(),
        sandbox
            .query(&Op::ToolDefinitions {
                format: "mcp".into()
            })
            .unwrap()
    );
}
