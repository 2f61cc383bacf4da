//! Record and replay through the runtime: a recording sandbox keeps every operation that
//! changes something with the inputs it consumed; a new sandbox opened with that
//! recording replays it to the same outcomes and tree without opening a door; a tampered
//! recording is reported; the format is version 3 with bytes as base64.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, error, exec, exec_op, open, run_json};
use sandtab_runtime::Reply;
use serde_json::{Value, json};

fn document() -> Value {
    json!({"tools": [{"name": "weather", "constraints": {"arg": "city", "in": ["Oslo"]}}]})
}

/// Options to replay `recording` with: its own options (limits, quota, capabilities)
/// and the recording, as the page's `Sandbox.replay` gives them (the runtime does not
/// take a recording's options from it by itself).
fn replay_options(recording: &Value) -> Value {
    let mut options = recording["options"].clone();
    options["replay"] = recording.clone();
    options
}

/// Records a session with time, dice, files, tools and sessions in it.
fn record(platform: &std::rc::Rc<FakePlatform>) -> (Value, Vec<String>) {
    let sandbox = open(
        json!({"record": true, "capabilities": document(), "limits": {"maxCommands": 100000}}),
        platform,
    )
    .unwrap();
    let mut outputs = Vec::new();
    outputs.push(
        exec(
            &sandbox,
            "date +%s%N > when; echo $RANDOM $RANDOM | tee dice",
        )
        .stdout,
    );
    run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/home/agent/bytes.bin", "data": [0, 159, 255, 10]}),
    )
    .unwrap();
    let reply = run_json(
        &sandbox,
        json!({"op": "callTool", "name": "write_file", "args": r#"{"path":"notes.txt","content":"noted\n"}"#}),
    )
    .unwrap();
    assert!(matches!(reply, Reply::Text { .. }));
    // The agent's file tools as ops, and `bash` as a tool (kept as an exec).
    run_json(
        &sandbox,
        json!({"op": "editFile", "path": "notes.txt", "oldString": "noted", "newString": "edited"}),
    )
    .unwrap();
    run_json(
        &sandbox,
        json!({"op": "callTool", "name": "bash", "args": r#"{"command":"date > bashed; echo $RANDOM >> bashed"}"#}),
    )
    .unwrap();
    let answer = run_json(
        &sandbox,
        json!({"op": "callTool", "name": "weather", "args": r#"{"city":"Oslo"}"#}),
    )
    .unwrap();
    let Reply::Text { text } = answer else {
        panic!()
    };
    outputs.push(text);
    // A refusal is recorded too (as an error outcome).
    assert_eq!(
        error(run_json(
            &sandbox,
            json!({"op": "callTool", "name": "weather", "args": r#"{"city":"Rome"}"#}),
        ))
        .code,
        "CAP_CONSTRAINT"
    );
    outputs.push(
        exec_op(
            &sandbox,
            json!({"op": "exec", "script": "cd /tmp; V=1; echo $RANDOM; weather --city Oslo", "session": "b"}),
        )
        .unwrap()
        .stdout,
    );
    run_json(&sandbox, json!({"op": "closeSession", "name": "b"})).unwrap();
    outputs.push(
        exec(
            &sandbox,
            "cat when dice notes.txt bashed; od -An -tx1 bytes.bin; sleep 0.01; date +%N",
        )
        .stdout,
    );
    assert_eq!(platform.doors.tool_call_count(), 2);
    let Reply::Json { value } = run_json(&sandbox, json!({"op": "recording"})).unwrap() else {
        panic!()
    };
    (value, outputs)
}

#[test]
fn a_recording_replays_to_the_same_outcomes_and_tree() {
    let platform = FakePlatform::new();
    let (recording, outputs) = record(&platform);
    assert!(outputs[0].trim().split(' ').count() == 2, "{outputs:?}");

    assert_eq!(recording["format"], "sandtab-recording");
    assert_eq!(recording["version"], 3);
    let ops = recording["ops"].as_array().unwrap();
    let kinds: Vec<&str> = ops.iter().map(|o| o["op"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "exec",
            "writeFile",
            "writeText",
            "editFile",
            "exec",
            "callTool",
            "callTool",
            "exec",
            "closeSession",
            "exec"
        ]
    );
    // Bytes are base64 text, not arrays of numbers.
    assert_eq!(ops[1]["data"], "AJ//Cg==");
    assert_eq!(recording["options"]["capabilities"], document());
    assert!(recording["tree"].as_str().is_some_and(|t| !t.is_empty()));

    // A new sandbox replays it: the door is never opened.
    let replayer = FakePlatform::new();
    let sandbox = open(replay_options(&recording), &replayer).unwrap();
    let Reply::Json { value: report } = run_json(&sandbox, json!({"op": "replay"})).unwrap() else {
        panic!()
    };
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(report["ops"], 10);
    assert_eq!(report["mismatches"], json!([]));
    assert_eq!(report["tree"]["expected"], report["tree"]["actual"]);
    assert_eq!(replayer.doors.tool_call_count(), 0);
    // The replayed sandbox holds what the recording made.
    let cat = exec(&sandbox, "cat dice notes.txt").stdout;
    assert!(cat.starts_with(outputs[0].as_str()), "{cat:?} {outputs:?}");

    // The recording given as JSON text replays too.
    let mut options = replay_options(&recording);
    options["replay"] = json!(recording.to_string());
    let sandbox = open(options, &FakePlatform::new()).unwrap();
    let Reply::Json { value: report } = run_json(&sandbox, json!({"op": "replay"})).unwrap() else {
        panic!()
    };
    assert_eq!(report["ok"], true, "{report:#}");
}

#[test]
fn a_tampered_recording_is_reported() {
    let platform = FakePlatform::new();
    let (mut recording, _) = record(&platform);
    // The granted tool's recorded answer is changed: its outcome no longer matches.
    let ops = recording["ops"].as_array_mut().unwrap();
    let index = ops
        .iter()
        .position(|o| o["op"] == "callTool" && o["name"] == "weather")
        .unwrap();
    let outcome = &mut ops[index]["outcome"];
    let answer = outcome["answer"].as_str().unwrap().to_owned();
    assert!(answer.starts_with("ok: "), "{answer}");
    outcome["answer"] = json!(answer.replace("Oslo", "Bergen"));

    let sandbox = open(replay_options(&recording), &FakePlatform::new()).unwrap();
    let Reply::Json { value: report } = run_json(&sandbox, json!({"op": "replay"})).unwrap() else {
        panic!()
    };
    assert_eq!(report["ok"], false, "{report:#}");
    let mismatches = report["mismatches"].as_array().unwrap();
    assert_eq!(mismatches.len(), 1, "{report:#}");
    assert_eq!(mismatches[0]["index"], index);
    assert_eq!(mismatches[0]["op"], "callTool weather");

    // A changed exec outcome (its exit status) is found too.
    let (mut recording, _) = record(&FakePlatform::new());
    recording["ops"][0]["outcome"]["exit_code"] = json!(7);
    let sandbox = open(replay_options(&recording), &FakePlatform::new()).unwrap();
    let Reply::Json { value: report } = run_json(&sandbox, json!({"op": "replay"})).unwrap() else {
        panic!()
    };
    assert_eq!(report["ok"], false);
    assert_eq!(report["mismatches"][0]["index"], 0, "{report:#}");

    // A changed final tree.
    let (mut recording, _) = record(&FakePlatform::new());
    recording["tree"] = json!("0000");
    let sandbox = open(replay_options(&recording), &FakePlatform::new()).unwrap();
    let Reply::Json { value: report } = run_json(&sandbox, json!({"op": "replay"})).unwrap() else {
        panic!()
    };
    assert_eq!(report["ok"], false);
    assert_eq!(report["mismatches"], json!([]));
}

#[test]
fn recording_and_replaying_are_refused_where_they_cannot_work() {
    let platform = FakePlatform::new();
    // A stored sandbox that already has files cannot be recorded.
    let stored = open(json!({"name": "full", "storage": "indexeddb"}), &platform).unwrap();
    exec(&stored, "echo x > f");
    drop(stored);
    let err = open(
        json!({"name": "full", "storage": "indexeddb", "record": true}),
        &platform,
    )
    .unwrap_err();
    assert_eq!(err.code, "EINVAL");
    assert!(
        err.message.contains("options.record") && err.message.contains("full"),
        "{}",
        err.message
    );
    // A new stored one can.
    let fresh = open(
        json!({"name": "empty", "storage": "indexeddb", "record": true}),
        &platform,
    )
    .unwrap();
    exec(&fresh, "echo y > g");
    assert!(matches!(
        run_json(&fresh, json!({"op": "recording"})).unwrap(),
        Reply::Json { .. }
    ));

    // Both at once, a replay in storage, a recording that is not one.
    let err = open(json!({"record": true, "replay": {}}), &platform).unwrap_err();
    assert!(err.message.contains("options.record"), "{}", err.message);
    let (recording, _) = record(&platform);
    let err = open(
        json!({"replay": recording, "storage": "indexeddb"}),
        &platform,
    )
    .unwrap_err();
    assert_eq!(err.code, "EINVAL");
    assert!(err.message.contains("options.replay"), "{}", err.message);
    let err = open(json!({"replay": "not json"}), &platform).unwrap_err();
    assert!(
        err.message
            .starts_with("options.replay: not a sandtab recording"),
        "{}",
        err.message
    );

    // recording/replay on a sandbox that does neither.
    let plain = open(json!({}), &platform).unwrap();
    assert_eq!(
        error(run_json(&plain, json!({"op": "recording"}))).code,
        "EINVAL"
    );
    assert_eq!(
        error(run_json(&plain, json!({"op": "replay"}))).code,
        "EINVAL"
    );
}
