//! `sandtab sh` on the typed runtime: the capability document with tools answered by
//! host commands, record and replay, and hand-offs to and from a runtime sandbox (as a
//! tab or Node makes them), with equal tree digests.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_caps::{Doors, NoDoors};
use sandtab_runtime::{Op, Platform, Reply, RuntimeResult, Sandbox, SandboxOptions, StorageKind};
use sandtab_shell::{GuestHost, Stream, WallClock};
use sandtab_vfs::storage::MemoryStore;
use sandtab_vfs::{Clock, Store};
use serde_json::{Value, json};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::process::{Command, Output, Stdio};
use std::rc::Rc;
use std::sync::Arc;

fn sandtab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sandtab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A tab's or Node's host, natively: memory storage, no doors.
struct TabPlatform;

impl Platform for TabPlatform {
    fn clock(&self) -> Arc<dyn Clock> {
        Arc::new(WallClock)
    }

    fn guest_host(&self) -> Arc<dyn GuestHost> {
        Arc::new(sandtab_wasi::NativeHost::default())
    }

    fn doors(&self) -> Arc<dyn Doors> {
        Arc::new(NoDoors)
    }

    fn open_store<'a>(
        &'a self,
        _kind: StorageKind,
        _name: &'a str,
    ) -> Pin<Box<dyn Future<Output = RuntimeResult<Arc<dyn Store>>> + 'a>> {
        Box::pin(async { Ok(Arc::new(MemoryStore::new()) as Arc<dyn Store>) })
    }
}

/// Natively bashkit times each exec with tokio.
fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

fn open(options: Value) -> Sandbox {
    let options = SandboxOptions::from_json(&options.to_string()).unwrap();
    block_on(Sandbox::open(options, Rc::new(TabPlatform))).unwrap()
}

fn run(sandbox: &Sandbox, op: Op) -> Reply {
    block_on(sandbox.run(op, &mut |_: Stream, _: &[u8]| {})).unwrap()
}

/// stdout of `script`, which must succeed.
fn exec(sandbox: &Sandbox, script: &str) -> String {
    let op = serde_json::from_value(json!({"op": "exec", "script": script})).unwrap();
    let Reply::Exec(result) = run(sandbox, op) else {
        panic!("not an exec")
    };
    assert_eq!(result.exit_code, 0, "{}", text(&result.stderr.0));
    text(&result.stdout.0)
}

fn hand_off(sandbox: &Sandbox) -> Value {
    match run(sandbox, Op::Handoff) {
        Reply::Json { value } => value,
        other => panic!("{other:?}"),
    }
}

/// A capability document granting `weather` for two cities, and the web origin.
fn write_caps(dir: &Path) {
    std::fs::write(
        dir.join("caps.json"),
        json!({
            "tools": [{
                "name": "weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "constraints": {"arg": "city", "in": ["Oslo", "Bergen"]},
            }],
            "network": {"allow": [{"origin": "https://example.com"}]},
        })
        .to_string(),
    )
    .unwrap();
    let script = dir.join("weather.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nread -r args\ncase \"$args\" in *Bergen*) echo 'no data for Bergen' >&2; exit 3;; esac\n\
         printf '{\"temp\": 12, \"asked\": %s}\\n' \"$args\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn granted_tools_are_answered_by_host_commands_within_the_document() {
    let dir = tempfile::tempdir().unwrap();
    write_caps(dir.path());
    let tool = "weather=./weather.sh";
    let base = ["sh", "--caps", "caps.json", "--tool", tool, "-c"];
    let with = |script: &str| {
        let mut args = base.to_vec();
        args.push(script);
        sandtab(dir.path(), &args)
    };

    // Allowed: the command gets the JSON arguments on stdin, its stdout is the answer.
    let out = with("weather --city Oslo");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim_end(),
        r#"{"temp": 12, "asked": {"city":"Oslo"}}"#
    );

    // Refused by the document: the command is never run.
    let out = with("weather --city Paris; echo $?; tool nothere --x 1; echo $?");
    assert_eq!(text(&out.stdout), "126\n126\n", "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("CAP_CONSTRAINT"), "{stderr}");
    assert!(stderr.contains("CAP_DENIED"), "{stderr}");

    // The command failed: CAP_TOOL_FAILED with its stderr.
    let out = with("weather --city Bergen");
    assert_ne!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("CAP_TOOL_FAILED"), "{stderr}");
    assert!(stderr.contains("no data for Bergen"), "{stderr}");

    // A granted origin still reaches nothing from this host.
    let out = with("curl https://example.com/");
    assert_ne!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("this host makes no network requests"),
        "{stderr}"
    );

    // A --tool the document does not grant, and a document that is not one.
    let out = sandtab(
        dir.path(),
        &[
            "sh",
            "--caps",
            "caps.json",
            "--tool",
            "rain=./x",
            "-c",
            "true",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("grants no tool `rain`"));
    std::fs::write(dir.path().join("bad.json"), r#"{"tools": [{"nam": "x"}]}"#).unwrap();
    let out = sandtab(dir.path(), &["sh", "--caps", "bad.json", "-c", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("EINVAL"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_recorded_script_replays_and_a_tampered_one_does_not() {
    let dir = tempfile::tempdir().unwrap();
    write_caps(dir.path());
    let out = sandtab(
        dir.path(),
        &[
            "sh",
            "--caps",
            "caps.json",
            "--tool",
            "weather=./weather.sh",
            "--record",
            "rec.json",
            "--env",
            "WHO=me",
            "-c",
            "echo $RANDOM $WHO $1 > dice; date +%s%N > when; weather --city Oslo > w.json; cd /tmp",
            "arg1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let recording = read_json(&dir.path().join("rec.json"));
    assert_eq!(recording["format"], "sandtab-recording");

    // The weather command is gone: a replay opens no door.
    std::fs::remove_file(dir.path().join("weather.sh")).unwrap();
    let out = sandtab(dir.path(), &["sh", "--replay", "rec.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["tree"]["actual"], recording["tree"]);

    let mut tampered = recording.clone();
    tampered["tree"] = json!("0".repeat(64));
    std::fs::write(dir.path().join("bad.json"), tampered.to_string()).unwrap();
    let out = sandtab(dir.path(), &["sh", "--replay", "bad.json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
}

#[test]
fn a_tab_hands_off_to_the_cli_and_takes_the_result_back() {
    let dir = tempfile::tempdir().unwrap();
    // "The tab": a runtime sandbox with files, a cwd, variables and a function.
    let tab = open(json!({"name": "tab", "storage": "memory"}));
    exec(
        &tab,
        "mkdir -p src && echo 'fn main() {}' > src/main.rs && chmod 750 src && \
         ln -s src/main.rs link && cd src && GREETING=hello && export TOKEN=abc && \
         greet() { echo \"$GREETING from $(pwd)\"; }",
    );
    let handed = hand_off(&tab);
    std::fs::write(dir.path().join("in.json"), handed.to_string()).unwrap();

    // The CLI resumes it, works, and hands it back.
    let out = sandtab(
        dir.path(),
        &[
            "sh",
            "--resume",
            "in.json",
            "--handoff",
            "out.json",
            "-c",
            "greet; echo $TOKEN; cat main.rs; readlink ../link; stat -c %a .; \
             echo built > out.txt; mkdir deep; cd deep; AFTER=yes",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "hello from /home/agent/src\nabc\nfn main() {}\nsrc/main.rs\n750\n"
    );
    let back = read_json(&dir.path().join("out.json"));
    assert_eq!(back["format"], "sandtab-handoff");
    assert_eq!(back["name"], "tab");

    // The CLI resumes its own hand-off too.
    let out = sandtab(
        dir.path(),
        &[
            "sh",
            "--resume",
            "out.json",
            "-c",
            "pwd; echo $AFTER; cat ../out.txt",
        ],
    );
    assert_eq!(
        text(&out.stdout),
        "/home/agent/src/deep\nyes\nbuilt\n",
        "{}",
        text(&out.stderr)
    );

    // Back in "the tab": the result resumes with equal tree digests.
    let again = open(json!({"name": "tab2", "storage": "memory", "resume": back.clone()}));
    assert_eq!(
        exec(&again, "pwd; echo $AFTER; cat ../out.txt; greet"),
        "/home/agent/src/deep\nyes\nbuilt\nhello from /home/agent/src/deep\n"
    );
    assert_eq!(hand_off(&again)["tree"], back["tree"]);
    assert_ne!(back["tree"], handed["tree"], "the CLI's work is in it");

    // A hand-off that was changed on the way is refused.
    let mut damaged = back.clone();
    for entry in damaged["entries"].as_array_mut().unwrap() {
        if entry["path"] == "/home/agent/src/out.txt" {
            entry["data"] = json!("dHdvCg==");
        }
    }
    std::fs::write(dir.path().join("damaged.json"), damaged.to_string()).unwrap();
    let out = sandtab(
        dir.path(),
        &["sh", "--resume", "damaged.json", "-c", "true"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("EUCLEAN"),
        "{}",
        text(&out.stderr)
    );
}
