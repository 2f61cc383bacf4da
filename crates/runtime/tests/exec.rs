//! Execs through the runtime: output and status, streaming, sessions, fresh sessions,
//! per-exec options checked with the field named, the output cap, one exec at a time,
//! and cancelling.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, block_on, exec, exec_op, open, run_json};
use sandtab_runtime::{ExecRequest, Op, Reply};
use sandtab_shell::Stream;
use serde_json::json;

#[test]
fn an_exec_gives_output_and_status_and_streams_as_it_runs() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let ran = exec(&sandbox, "echo hello; echo oops >&2; exit 3");
    assert_eq!(ran.stdout, "hello\n");
    assert_eq!(ran.stderr, "oops\n");
    assert_eq!(ran.code, 3);
    assert_eq!(ran.result.stdout_total, 6);
    assert!(!ran.result.stdout_truncated);
    assert!(ran.result.stdout_note.is_none());

    let mut chunks: Vec<(Stream, Vec<u8>)> = Vec::new();
    let mut sink = |stream: Stream, bytes: &[u8]| chunks.push((stream, bytes.to_vec()));
    let op: Op =
        serde_json::from_str(r#"{"op":"exec","script":"echo one; echo two >&2"}"#).unwrap();
    let reply = block_on(sandbox.run(op, &mut sink)).unwrap();
    let Reply::Exec(result) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(result.exit_code, 0);
    let streamed = |which: Stream| -> Vec<u8> {
        chunks
            .iter()
            .filter(|(s, _)| *s == which)
            .flat_map(|(_, b)| b.clone())
            .collect()
    };
    assert_eq!(streamed(Stream::Stdout), b"one\n");
    assert_eq!(streamed(Stream::Stderr), b"two\n");
}

#[test]
fn an_exec_says_which_engine_ran_its_guests() {
    // `(module (func (export "_start")))`
    const EMPTY_GUEST: [u8; 36] = [
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03,
        0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x00,
        0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
    ];
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/home/agent/t.wasm", "data": EMPTY_GUEST.to_vec()}),
    )
    .unwrap();
    let ran = exec(&sandbox, "./t.wasm && echo ran");
    assert_eq!(
        (ran.stdout.as_str(), ran.code),
        ("ran\n", 0),
        "{}",
        ran.stderr
    );
    // Natively guests run on the interpreter.
    assert_eq!(
        ran.result.guest_tier,
        Some(sandtab_runtime::GuestTier::Interpreter)
    );
    assert_eq!(exec(&sandbox, "echo no guest").result.guest_tier, None);
}

#[test]
fn sessions_keep_their_state_and_fresh_ones_do_not() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    exec(&sandbox, "mkdir -p /tmp/w && cd /tmp/w && X=main");
    let again = exec(&sandbox, "pwd; echo \"x=$X\"");
    assert_eq!(again.stdout, "/tmp/w\nx=main\n");

    // A named session is its own.
    let other = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "cd /tmp; Y=other; pwd; echo \"x=$X\"", "session": "b"}),
    )
    .unwrap();
    assert_eq!(other.stdout, "/tmp\nx=\n");
    let other = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "pwd; echo \"y=$Y\"", "session": "b"}),
    )
    .unwrap();
    assert_eq!(other.stdout, "/tmp\ny=other\n");
    let Reply::Names { names } = run_json(&sandbox, json!({"op": "sessionNames"})).unwrap() else {
        panic!()
    };
    assert!(names.contains(&"b".to_owned()), "{names:?}");

    // A fresh session starts over and leaves nothing behind.
    let fresh = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "pwd; echo \"x=$X\"; Z=fresh; cd /", "fresh": true}),
    )
    .unwrap();
    assert_eq!(fresh.stdout, "/home/agent\nx=\n");
    assert_eq!(exec(&sandbox, "pwd; echo \"z=$Z\"").stdout, "/tmp/w\nz=\n");

    // Closing a session forgets it.
    let closed = run_json(&sandbox, json!({"op": "closeSession", "name": "b"})).unwrap();
    assert_eq!(closed, Reply::Flag { value: true });
    let reopened = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "echo \"y=$Y\"", "session": "b"}),
    )
    .unwrap();
    assert_eq!(reopened.stdout, "y=\n");
}

#[test]
fn bad_exec_options_are_refused_naming_what_was_wrong() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let err = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "echo hi", "session": "s", "fresh": true}),
    )
    .err()
    .unwrap();
    assert_eq!(err.code, "EINVAL");
    assert!(
        err.message.contains("session") && err.message.contains("fresh"),
        "{}",
        err.message
    );

    // A guest limit the engine refuses names `guestLimits` and the limit.
    let request = ExecRequest {
        script: "echo hi".into(),
        guest_limits: Some(serde_json::from_value(json!({"memoryBytes": 1_u64 << 50})).unwrap()),
        ..ExecRequest::default()
    };
    let err = block_on(sandbox.run(Op::Exec(request), &mut |_: Stream, _: &[u8]| {})).unwrap_err();
    assert_eq!(err.code, "EINVAL");
    assert!(err.message.starts_with("guestLimits: "), "{}", err.message);
    assert!(err.message.contains("memory"), "{}", err.message);

    // Not a positive whole number: refused when the request is read, naming the field.
    let err = sandtab_runtime::protocol::decode_value::<ExecRequest>(
        json!({"script": "ls", "guestLimits": {"fuel": 0}}),
        "exec",
    )
    .unwrap_err();
    assert_eq!(err.code, "EINVAL");
    assert!(
        err.message
            .starts_with("exec.guestLimits.fuel: must be a positive whole number"),
        "{}",
        err.message
    );
    // Read as a whole `Op` (internally tagged, so serde buffers it), the path is lost:
    // the message says what is wrong but not where. (A known gap, see the report.)
    let err = sandtab_runtime::protocol::decode_value::<Op>(
        json!({"op": "exec", "script": "ls", "guestLimits": {"fuel": 0}}),
        "exec",
    )
    .unwrap_err();
    assert_eq!(err.code, "EINVAL");
    assert!(
        err.message.contains("must be a positive whole number"),
        "{}",
        err.message
    );

    // The sandbox is still usable, and the session limits are back to the usual ones.
    assert_eq!(exec(&sandbox, "echo still").stdout, "still\n");
}

#[test]
fn max_output_bytes_truncates_with_a_note_and_keeps_the_totals() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let ran = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "for i in $(seq 1 100); do echo 0123456789; done", "maxOutputBytes": 50}),
    )
    .unwrap();
    assert_eq!(ran.code, 0);
    assert_eq!(ran.result.stdout.0.len(), 50);
    assert_eq!(ran.result.stdout_total, 1100);
    assert!(ran.result.stdout_truncated);
    let note = ran.result.stdout_note.unwrap();
    assert!(note.contains("1100") || note.contains("1050"), "{note}");
    assert!(!ran.result.stderr_truncated);
    assert!(ran.result.stderr_note.is_none());
    // Without the option, nothing is cut.
    let whole = exec(&sandbox, "for i in $(seq 1 100); do echo 0123456789; done");
    assert_eq!(whole.stdout.len(), 1100);
    assert!(!whole.result.stdout_truncated);
}

#[test]
fn a_second_exec_while_one_runs_is_busy() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    block_on(async {
        let long = Op::Exec(ExecRequest {
            script: "for i in $(seq 1 20000); do :; done; echo first".into(),
            ..ExecRequest::default()
        });
        let short = Op::Exec(ExecRequest {
            script: "echo second".into(),
            ..ExecRequest::default()
        });
        let mut sink_a = |_: Stream, _: &[u8]| {};
        let mut sink_b = |_: Stream, _: &[u8]| {};
        let mut first = Box::pin(sandbox.run(long, &mut sink_a));
        // Start the first exec (it yields while it runs), then ask for another.
        let started = futures::future::poll_fn(|cx| {
            std::task::Poll::Ready(std::future::Future::poll(first.as_mut(), cx))
        })
        .await;
        assert!(
            started.is_pending(),
            "the long exec finished without yielding: cannot test EBUSY"
        );
        let err = sandbox.run(short, &mut sink_b).await.unwrap_err();
        assert_eq!(err.code, "EBUSY");
        // Queries are answered meanwhile.
        assert!(matches!(
            sandbox.query(&Op::Info).unwrap(),
            Reply::Info { .. }
        ));
        let Reply::Exec(result) = first.await.unwrap() else {
            panic!()
        };
        assert_eq!(result.stdout.0, b"first\n");
    });
    assert_eq!(exec(&sandbox, "echo after").stdout, "after\n");
}

#[test]
fn cancel_ends_a_running_loop_with_130_and_keeps_the_session() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    exec(&sandbox, "cd /tmp; echo kept > k");
    block_on(async {
        let op = Op::Exec(ExecRequest {
            script: "while true; do :; done".into(),
            ..ExecRequest::default()
        });
        let mut sink = |_: Stream, _: &[u8]| {};
        let canceller = async {
            // Let the loop start, then stop it.
            for _ in 0..10 {
                yield_now().await;
            }
            sandbox.cancel();
        };
        let (reply, ()) = futures::future::join(sandbox.run(op, &mut sink), canceller).await;
        let Reply::Exec(result) = reply.unwrap() else {
            panic!()
        };
        assert_eq!(result.exit_code, 130);
        assert!(
            String::from_utf8_lossy(&result.stderr.0).contains("cancel"),
            "{:?}",
            String::from_utf8_lossy(&result.stderr.0)
        );
    });
    let after = exec(&sandbox, "pwd; cat k");
    assert_eq!(after.stdout, "/tmp\nkept\n");
}

/// Gives the executor one turn.
async fn yield_now() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}

#[test]
fn stdin_given_whole_is_what_the_script_reads() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let ran = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "read first; echo \"<$first>\"; tr a-z A-Z", "stdin": b"one\ntwo\nthree\n".to_vec()}),
    )
    .unwrap();
    assert_eq!(ran.stdout, "<one>\nTWO\nTHREE\n", "{}", ran.stderr);
    // Without stdin a reader sees end of file at once.
    let ran = exec(&sandbox, "read line || echo eof");
    assert_eq!(ran.stdout, "eof\n");
    let err = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "cat", "stdin": [1], "stdinStream": 1}),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("stdin or stdinStream"), "{err}");
}

#[test]
fn stdin_streamed_while_the_script_runs_reaches_it_in_order() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    // Written before the exec starts: kept for it.
    sandbox.write_stdin(1, b"ada\n".to_vec()).unwrap();
    let op = common::op(json!({"op": "exec", "stdinStream": 1,
        "script": "read name; echo \"hello $name\"; while read line; do echo \"got $line\"; done; echo done"}));
    let mut out = Vec::new();
    let mut sink = |_: Stream, bytes: &[u8]| out.extend_from_slice(bytes);
    let writer = async {
        // The script waits for these; they come while it runs.
        for line in ["b\n", "c\n"] {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            sandbox.write_stdin(1, line.as_bytes().to_vec()).unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        sandbox.end_stdin(1);
    };
    let (reply, ()) = block_on(async { tokio::join!(sandbox.run(op, &mut sink), writer) });
    let Reply::Exec(result) = reply.unwrap() else {
        panic!()
    };
    assert_eq!(result.exit_code, 0);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "hello ada\ngot b\ngot c\ndone\n"
    );
    // What the script set stays in the session, as without a stream.
    assert_eq!(exec(&sandbox, "echo \"$name\"").stdout, "ada\n");
    // Late chunks of a finished stream are dropped, not kept for ever.
    sandbox.write_stdin(1, b"late\n".to_vec()).unwrap();
    sandbox.end_stdin(1);
    // A stream that never gets an end is ended by a cancel.
    let op = common::op(json!({"op": "exec", "stdinStream": 2, "script": "cat"}));
    let canceller = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        sandbox.cancel();
    };
    let mut sink = |_: Stream, _: &[u8]| {};
    let (reply, ()) = block_on(async { tokio::join!(sandbox.run(op, &mut sink), canceller) });
    let Reply::Exec(result) = reply.unwrap() else {
        panic!()
    };
    assert_eq!(result.exit_code, 130);
}

#[test]
fn a_terminal_needs_its_stream_and_a_recording_takes_no_stream() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let err = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "true", "tty": true}),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("tty needs"), "{err}");
    // In a terminal, the shell's own commands see an empty stdin and do not wait.
    sandbox.write_stdin(5, b"typed\n".to_vec()).unwrap();
    let ran = exec_op(
        &sandbox,
        json!({"op": "exec", "script": "f() { echo in-f; }; f; read x; echo \"[$x]\"", "stdinStream": 5, "tty": true}),
    )
    .unwrap();
    assert_eq!(ran.stdout, "in-f\n[]\n", "{}", ran.stderr);
    // Nothing was read: the terminal's prompt takes the line as typed ahead.
    assert_eq!(ran.result.stdin_read, Some(0));

    let recording = open(json!({"name": "rec", "record": true}), &platform).unwrap();
    let err = exec_op(
        &recording,
        json!({"op": "exec", "script": "cat", "stdinStream": 1}),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("recording sandbox"), "{err}");
    let ran = exec_op(
        &recording,
        json!({"op": "exec", "script": "cat", "stdin": b"kept\n".to_vec()}),
    )
    .unwrap();
    assert_eq!(ran.stdout, "kept\n");
    // A terminal on a recording sandbox still runs commands; its programs see no input.
    recording.write_stdin(2, b"typed\n".to_vec()).unwrap();
    let ran = exec_op(
        &recording,
        json!({"op": "exec", "script": "echo ran", "stdinStream": 2, "tty": true}),
    )
    .unwrap();
    assert_eq!(ran.stdout, "ran\n");
}
