//! The page's file operations and per-exec options: `mkdir`, `rm`, `rename`, `stat`,
//! `writeFile` with parents, `writeFiles`; an exec's `env`, `cwd` and `timeoutMs`, and
//! whether it changed files. Each saves what it did, so a reopened sandbox sees it.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, block_on, error, exec, exec_op, open, run, run_json};
use sandtab_runtime::{ExecRequest, FileStat, Op, Reply};
use sandtab_shell::Stream;
use serde_json::json;

fn stat(sandbox: &sandtab_runtime::Sandbox, path: &str) -> Result<FileStat, String> {
    match sandbox.query(&Op::Stat {
        path: path.to_owned(),
    }) {
        Ok(Reply::Stat(stat)) => Ok(stat),
        Ok(other) => panic!("{other:?}"),
        Err(err) => Err(err.code),
    }
}

#[test]
fn mkdir_rm_and_rename_change_the_files_and_are_saved() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "ops", "storage": "indexeddb"}), &platform).unwrap();
    run_json(
        &sandbox,
        json!({"op": "mkdir", "path": "/p/q/r", "parents": true}),
    )
    .unwrap();
    // With parents, one that exists is fine; without, it is EEXIST, and a missing
    // parent ENOENT.
    run_json(
        &sandbox,
        json!({"op": "mkdir", "path": "/p/q", "parents": true}),
    )
    .unwrap();
    let exists = error(run_json(&sandbox, json!({"op": "mkdir", "path": "/p/q"})));
    assert_eq!(exists.code, "EEXIST", "{exists:?}");
    let missing = error(run_json(&sandbox, json!({"op": "mkdir", "path": "/x/y"})));
    assert_eq!(missing.code, "ENOENT", "{missing:?}");

    run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/p/q/r/f.txt", "data": b"hello".to_vec()}),
    )
    .unwrap();
    let file = stat(&sandbox, "/p/q/r/f.txt").unwrap();
    assert_eq!((file.kind.as_str(), file.size), ("file", 5));
    assert_eq!(stat(&sandbox, "/p/q").unwrap().kind, "dir");
    assert_eq!(stat(&sandbox, "/p/none").unwrap_err(), "ENOENT");

    run_json(
        &sandbox,
        json!({"op": "rename", "from": "/p/q", "to": "/p/moved"}),
    )
    .unwrap();
    assert_eq!(stat(&sandbox, "/p/moved/r/f.txt").unwrap().size, 5);
    assert_eq!(stat(&sandbox, "/p/q").unwrap_err(), "ENOENT");

    // A directory that is not empty needs `recursive`; `force` takes a missing path.
    let full = error(run_json(
        &sandbox,
        json!({"op": "remove", "path": "/p/moved"}),
    ));
    assert_eq!(full.code, "ENOTEMPTY", "{full:?}");
    let gone = error(run_json(&sandbox, json!({"op": "remove", "path": "/nope"})));
    assert_eq!(gone.code, "ENOENT");
    run_json(
        &sandbox,
        json!({"op": "remove", "path": "/nope", "force": true}),
    )
    .unwrap();
    let root = error(run_json(
        &sandbox,
        json!({"op": "remove", "path": "/", "recursive": true}),
    ));
    assert_eq!(root.code, "EINVAL", "{root:?}");
    run_json(
        &sandbox,
        json!({"op": "remove", "path": "/p/moved/r/f.txt"}),
    )
    .unwrap();
    run_json(&sandbox, json!({"op": "mkdir", "path": "/p/keep"})).unwrap();
    run_json(
        &sandbox,
        json!({"op": "remove", "path": "/p/moved", "recursive": true}),
    )
    .unwrap();
    drop(sandbox);

    let reopened = open(json!({"name": "ops", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(stat(&reopened, "/p/keep").unwrap().kind, "dir");
    assert_eq!(stat(&reopened, "/p/moved").unwrap_err(), "ENOENT");
}

#[test]
fn write_files_makes_parents_on_request_and_says_where_it_stopped() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "w", "storage": "indexeddb"}), &platform).unwrap();
    let plain = error(run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/a/b/c.txt", "data": b"x".to_vec()}),
    ));
    assert_eq!(plain.code, "ENOENT");
    run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/a/b/c.txt", "data": b"x".to_vec(), "parents": true}),
    )
    .unwrap();
    assert_eq!(stat(&sandbox, "/a/b/c.txt").unwrap().size, 1);

    run_json(
        &sandbox,
        json!({"op": "writeFiles", "parents": true, "files": [
            {"path": "/src/main.py", "data": b"print(1)\n".to_vec()},
            {"path": "/src/lib/util.py", "data": b"x = 2\n".to_vec()},
        ]}),
    )
    .unwrap();
    // The third cannot be written (its parent is a file): the first two stay and are
    // saved, and the message says how far it got.
    let stopped = error(run_json(
        &sandbox,
        json!({"op": "writeFiles", "parents": true, "files": [
            {"path": "/more/one", "data": b"1".to_vec()},
            {"path": "/more/two", "data": b"2".to_vec()},
            {"path": "/src/main.py/three", "data": b"3".to_vec()},
        ]}),
    ));
    assert_eq!(stopped.code, "ENOTDIR", "{stopped:?}");
    assert!(stopped.message.contains("2 of 3"), "{}", stopped.message);
    drop(sandbox);

    let reopened = open(json!({"name": "w", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(
        exec(
            &reopened,
            "cat /src/main.py /src/lib/util.py /more/one /more/two"
        )
        .stdout,
        "print(1)\nx = 2\n12"
    );
}

#[test]
fn an_exec_says_whether_it_changed_files() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    assert!(exec(&sandbox, "echo hi > /tmp/f").result.files_changed);
    assert!(
        !exec(&sandbox, "cat /tmp/f; ls /; echo $HOME")
            .result
            .files_changed
    );
    assert!(exec(&sandbox, "chmod 600 /tmp/f").result.files_changed);
    assert!(exec(&sandbox, "rm /tmp/f").result.files_changed);
    assert!(!exec(&sandbox, "true").result.files_changed);
}

#[test]
fn env_and_cwd_hold_for_one_exec_and_then_are_put_back() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    exec(
        &sandbox,
        "mkdir -p /work/sub; export KEEP=session; GREETING=before",
    );
    let ran = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "pwd; echo \"$GREETING $NEW\"; printenv NEW; cd ..; OTHER=set",
               "env": {"GREETING": "hello", "NEW": "world"}, "cwd": "/work/sub"}),
    )
    .unwrap();
    assert_eq!(
        ran.stdout, "/work/sub\nhello world\nworld\n",
        "{}",
        ran.stderr
    );
    // The session is back in its directory with its own values; what else the script
    // set stays.
    let after = exec(
        &sandbox,
        "pwd; echo \"[$GREETING] [${NEW-unset}] [$KEEP] [$OTHER]\"; printenv NEW || echo not exported",
    );
    assert_eq!(
        after.stdout,
        "/home/agent\n[before] [unset] [session] [set]\nnot exported\n"
    );
    // A relative cwd is from the session's directory.
    exec(&sandbox, "cd /work");
    let relative = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "pwd", "cwd": "sub"}),
    )
    .unwrap();
    assert_eq!(relative.stdout, "/work/sub\n");
    assert_eq!(exec(&sandbox, "pwd").stdout, "/work\n");
}

#[test]
fn bad_env_and_cwd_are_refused_before_anything_runs() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    exec(&sandbox, "touch /tmp/file");
    let bad_name = error(run_json(
        &sandbox,
        json!({"op": "exec", "script": "touch /tmp/ran", "env": {"A-B": "1"}}),
    ));
    assert_eq!(bad_name.code, "EINVAL");
    assert!(bad_name.message.contains("\"A-B\""), "{}", bad_name.message);
    let missing = error(run_json(
        &sandbox,
        json!({"op": "exec", "script": "touch /tmp/ran", "cwd": "/nowhere"}),
    ));
    assert_eq!(missing.code, "ENOENT", "{missing:?}");
    let file = error(run_json(
        &sandbox,
        json!({"op": "exec", "script": "touch /tmp/ran", "cwd": "/tmp/file", "env": {"X": "1"}}),
    ));
    assert_eq!(file.code, "EINVAL", "{file:?}");
    assert!(file.message.contains("not a directory"), "{}", file.message);
    let ran = exec(&sandbox, "ls /tmp/ran 2>&1; pwd; echo \"[${X-unset}]\"");
    assert!(ran.stdout.contains("No such file"), "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with("/home/agent\n[unset]\n"),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_timeout_of_one_exec_stops_it_as_a_limit_and_is_bounded_by_the_sandboxes() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"limits": {"timeoutMs": 60000}}), &platform).unwrap();
    for bad in [0, 60001] {
        let err = error(run_json(
            &sandbox,
            json!({"op": "exec", "script": "true", "timeoutMs": bad}),
        ));
        assert_eq!(err.code, "EINVAL");
        assert!(err.message.contains("timeoutMs"), "{}", err.message);
    }
    block_on(async {
        let op = Op::Exec(ExecRequest {
            script: "while true; do :; done".into(),
            timeout_ms: Some(50),
            ..ExecRequest::default()
        });
        let mut sink = |_: Stream, _: &[u8]| {};
        // The host arms the timer; here it fires after the loop has started.
        let timer = async {
            for _ in 0..10 {
                tokio::task::yield_now().await;
            }
            sandbox.time_out(50);
        };
        let (reply, ()) = futures::future::join(sandbox.run(op, &mut sink), timer).await;
        let Reply::Exec(result) = reply.unwrap() else {
            panic!()
        };
        let stderr = String::from_utf8_lossy(&result.stderr.0).into_owned();
        assert_eq!(result.exit_code, 126, "{stderr}");
        assert!(
            stderr.contains("limit reached: the exec's timeout of 50 ms passed [timeoutMs]"),
            "{stderr}"
        );
    });
    // The next exec is not stopped by the last one's timeout.
    let next = exec(&sandbox, "echo next");
    assert_eq!((next.stdout.as_str(), next.code), ("next\n", 0));
    // A stop aimed at no running exec does nothing.
    sandbox.time_out(1);
    assert_eq!(exec(&sandbox, "echo still").code, 0);
    let _ = run(&sandbox, Op::Usage);
}
