//! Sessions: state persists within one, not across them; files are shared; a fresh
//! session starts clean; bad names and too many sessions are clear errors.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_shell::{
    DEFAULT_SESSION, GuestEngine, MAX_SESSIONS, Sessions, ShellError, ShellLimits, WallClock,
};
use sandtab_vfs::{Quota, SandboxFs};
use std::sync::Arc;

fn sessions() -> Sessions {
    let fs =
        Arc::new(SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, Vec::new()).unwrap());
    let limits = ShellLimits::default();
    let engine = GuestEngine::new(limits.guest.call_depth);
    Sessions::new(
        fs,
        limits,
        engine,
        Arc::new(sandtab_wasi::NativeHost::default()),
    )
    .unwrap()
}

async fn run(sessions: &mut Sessions, name: &str, script: &str) -> String {
    let out = sessions.session(name).unwrap().exec(script).await;
    assert_eq!(out.exit_code, 0, "{script}: {}", out.stderr_text());
    out.stdout_text()
}

#[tokio::test]
async fn every_kind_of_state_persists_within_a_session() {
    let mut s = sessions();
    let setup = "mkdir -p proj && cd proj; export E=exported; P=plain; f() { echo \"f:$1\"; }; \
                 alias ll='echo aliased'; set -o pipefail";
    run(&mut s, DEFAULT_SESSION, setup).await;
    run(&mut s, DEFAULT_SESSION, "shopt -s expand_aliases").await;
    let out = run(
        &mut s,
        DEFAULT_SESSION,
        "pwd; echo $E $P; f x; ll; set -o | grep pipefail",
    )
    .await;
    assert_eq!(
        out,
        "/home/agent/proj\nexported plain\nf:x\naliased\npipefail       \ton\n"
    );
}

#[tokio::test]
async fn set_options_persist_and_line_numbers_stay_the_scripts() {
    let mut s = sessions();
    run(&mut s, DEFAULT_SESSION, "set -u").await;
    let shell = s.session(DEFAULT_SESSION).unwrap();
    let out = shell.exec("echo one\necho $missing\necho never").await;
    assert_eq!(out.stdout_text(), "one\n");
    assert_ne!(out.exit_code, 0);
    assert!(
        out.stderr_text()
            .contains("line 2: missing: unbound variable"),
        "{}",
        out.stderr_text()
    );
    // Turned off again, it stays off.
    run(&mut s, DEFAULT_SESSION, "set +u").await;
    assert_eq!(
        run(&mut s, DEFAULT_SESSION, "echo \"[$missing]\"").await,
        "[]\n"
    );
}

#[tokio::test]
async fn sessions_are_separate_but_share_files() {
    let mut s = sessions();
    run(&mut s, "a", "cd /tmp; X=1; echo data > /tmp/shared").await;
    run(&mut s, "b", "cd /home; X=2").await;
    assert_eq!(run(&mut s, "a", "pwd; echo $X").await, "/tmp\n1\n");
    assert_eq!(
        run(&mut s, "b", "pwd; echo $X; cat /tmp/shared").await,
        "/home\n2\ndata\n"
    );
    assert_eq!(s.names(), ["a", "b", DEFAULT_SESSION]);
    assert!(s.close("a"));
    assert!(!s.close("a"));
    // A closed session comes back new.
    assert_eq!(
        run(&mut s, "a", "pwd; echo \"[$X]\"").await,
        "/home/agent\n[]\n"
    );
}

#[tokio::test]
async fn a_fresh_session_starts_clean_and_leaves_nothing_behind() {
    let mut s = sessions();
    run(&mut s, DEFAULT_SESSION, "cd /tmp; V=kept").await;
    let mut fresh = s.fresh().unwrap();
    let out = fresh
        .exec("pwd; echo \"[$V]\"; W=gone; touch /tmp/made")
        .await;
    assert_eq!(out.stdout_text(), "/home/agent\n[]\n");
    assert_eq!(
        run(&mut s, DEFAULT_SESSION, "pwd; echo $V \"[$W]\"; ls /tmp").await,
        "/tmp\nkept []\nmade\n"
    );
}

#[test]
fn bad_names_and_too_many_sessions_are_refused() {
    let mut s = sessions();
    for bad in ["", "a b", "x/y", &"n".repeat(65)] {
        assert_eq!(
            s.session(bad).unwrap_err(),
            ShellError::InvalidSessionName(bad.to_owned())
        );
    }
    for i in 1..MAX_SESSIONS {
        s.session(&format!("s{i}")).unwrap();
    }
    let err = s.session("one-more").unwrap_err();
    assert_eq!(err, ShellError::TooManySessions(MAX_SESSIONS));
    assert!(err.to_string().contains("close one first"), "{err}");
}

fn hello_module() -> Vec<u8> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/guests/c/hello.wasm");
    std::fs::read(&path)
        .unwrap_or_else(|err| panic!("{}: {err}. Built by `./dev setup`.", path.display()))
}

/// A program whose module is still on its way is a command at once; other commands run
/// meanwhile, and one that runs it waits for the module, in every session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_on_its_way_is_waited_for_only_by_commands_that_run_it() {
    let mut s = sessions();
    let source = sandtab_shell::ProgramSource::waiting();
    s.install_program_from(&["hello"], source.clone(), None);
    assert_eq!(
        run(&mut s, DEFAULT_SESSION, "echo at-once; type -t hello").await,
        "at-once\nfile\n"
    );
    let module = hello_module();
    let provider = tokio::spawn({
        let source = source.clone();
        async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            source.provide(Arc::new(module));
        }
    });
    let started = tokio::time::Instant::now();
    let out = run(&mut s, "other", "hello; echo after").await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(250));
    assert_eq!(out, "argv[0]=hello\nGREETING unset\nafter\n");
    provider.await.unwrap();
}

// Two threads: the native host's sleep (the wait's tick) holds its thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_will_not_come_fails_with_the_reason_and_a_wait_can_be_cancelled() {
    let mut s = sessions();
    let failed = sandtab_shell::ProgramSource::waiting();
    s.install_program_from(&["gone"], failed.clone(), None);
    failed.fail("fetching guests/gone.wasm: HTTP 404".into());
    let out = s.session(DEFAULT_SESSION).unwrap().exec("gone").await;
    assert_eq!(out.exit_code, 126);
    assert_eq!(
        out.stderr_text(),
        "bash: gone: the program could not be loaded: fetching guests/gone.wasm: HTTP 404\n"
    );

    let never = sandtab_shell::ProgramSource::waiting();
    s.install_program_from(&["slow"], never, None);
    let shell = s.session(DEFAULT_SESSION).unwrap();
    let cancel = shell.cancel_handle();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let out = shell.exec("slow; echo not-reached").await;
    assert_eq!(out.exit_code, 130, "{}", out.stderr_text());
    assert_eq!(out.stdout_text(), "");
    canceller.await.unwrap();
}
