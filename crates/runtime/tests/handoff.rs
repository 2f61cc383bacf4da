//! Handing a sandbox to another host and back: files with modes, times and symlinks,
//! sessions' cwd, variables and functions, and the options, with equal tree digests.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, exec, open, run_json};
use sandtab_runtime::Reply;
use serde_json::{Value, json};

fn hand_off(sandbox: &sandtab_runtime::Sandbox) -> Value {
    match run_json(sandbox, json!({"op": "handoff"})).unwrap() {
        Reply::Json { value } => value,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_sandbox_resumes_elsewhere_and_comes_back_the_same() {
    let platform = FakePlatform::new();
    let tab = open(
        json!({"name": "tab", "storage": "indexeddb", "limits": {"maxLoopIterations": 5000},
               "mounts": [{"path": "/skills", "files": {"a.md": "skill"}}]}),
        &platform,
    )
    .unwrap();
    let setup = exec(
        &tab,
        "mkdir -p src/deep && printf 'fn main() {}\\n' > src/main.rs && chmod 750 src && \
         ln -s src/main.rs link && touch -d 2001-02-03 src/deep && echo tmp > /tmp/t && \
         cd src && GREETING=hello && export TOKEN=abc && greet() { echo \"$GREETING from $(pwd)\"; }",
    );
    assert_eq!(setup.code, 0, "{}", setup.stderr);
    let other = common::exec_op(
        &tab,
        json!({"op": "exec", "script": "cd /tmp; X=other", "session": "s2"}),
    );
    assert_eq!(other.unwrap().code, 0);
    let handed = hand_off(&tab);
    assert_eq!(handed["format"], "sandtab-handoff");
    // Travels as JSON text, bytes as base64; read-only mounts go as options, not files.
    let text = handed.to_string();
    let paths: Vec<&str> = handed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"/home/agent/src/main.rs"), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with("/skills")), "{paths:?}");
    assert_eq!(handed["options"]["mounts"][0]["path"], "/skills");

    // "Node": a new memory sandbox resumes it, with the options it carried.
    let server_platform = FakePlatform::new();
    let server = open(
        json!({"storage": "memory", "resume": text}),
        &server_platform,
    )
    .unwrap();
    let main = exec(
        &server,
        "greet; echo $TOKEN; cat main.rs; readlink ../link; stat -c %a .",
    );
    assert_eq!(
        main.stdout, "hello from /home/agent/src\nabc\nfn main() {}\nsrc/main.rs\n750\n",
        "{}",
        main.stderr
    );
    assert_eq!(
        exec(&server, "for ((i=0;i<6000;i++)); do :; done").code,
        126,
        "limits carried"
    );
    assert_eq!(
        exec(&server, "cat /tmp/t; ls /skills").stdout,
        "tmp\na.md\n"
    );
    let work = exec(&server, "echo built > out.txt && cd deep");
    assert_eq!(work.code, 0, "{}", work.stderr);
    let back = hand_off(&server);

    // Back in the tab: a new sandbox resumes the server's work, digests equal.
    let again = open(
        json!({"name": "tab2", "storage": "indexeddb", "resume": back.clone(),
               "mounts": [{"path": "/skills", "files": {"a.md": "skill"}}]}),
        &platform,
    )
    .unwrap();
    assert_eq!(
        exec(&again, "pwd; cat ../out.txt; cat /skills/a.md").stdout,
        "/home/agent/src/deep\nbuilt\nskill"
    );
    assert_eq!(hand_off(&again)["tree"], back["tree"]);
}

#[test]
fn a_damaged_or_misplaced_handoff_is_refused() {
    let platform = FakePlatform::new();
    let tab = open(json!({"storage": "memory"}), &platform).unwrap();
    exec(&tab, "echo one > f");
    let mut handed = hand_off(&tab);
    // A file's contents changed on the way: the digest tells.
    for entry in handed["entries"].as_array_mut().unwrap() {
        if entry["path"] == "/home/agent/f" {
            entry["data"] = json!("dHdvCg==");
        }
    }
    let err = open(json!({"storage": "memory", "resume": handed}), &platform).unwrap_err();
    assert_eq!(err.code, "EUCLEAN", "{}", err.message);
    // Not a hand-off; one given to a sandbox that has files; with record.
    let err = open(
        json!({"storage": "memory", "resume": {"format": "x"}}),
        &platform,
    )
    .unwrap_err();
    assert_eq!(err.code, "EINVAL");
    let handed = hand_off(&tab);
    let stored = open(json!({"name": "full", "storage": "indexeddb"}), &platform).unwrap();
    exec(&stored, "echo x > y");
    drop(stored);
    let err = open(
        json!({"name": "full", "storage": "indexeddb", "resume": handed.clone()}),
        &platform,
    )
    .unwrap_err();
    assert!(err.message.contains("already has files"), "{}", err.message);
    let err = open(
        json!({"storage": "memory", "record": true, "resume": handed}),
        &platform,
    )
    .unwrap_err();
    assert!(err.message.contains("resume"), "{}", err.message);
}
