//! Tab completion as a terminal asks for it (`Op::Complete`, a query): commands in a
//! command's place (builtins, sandtab's commands, functions, aliases), variables after
//! `$`, paths elsewhere (from the session's directory and `~`, directories ending with
//! `/`, names escaped as typed back).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, exec, open};
use sandtab_runtime::{Op, Reply, Sandbox};
use serde_json::json;

fn complete(sandbox: &Sandbox, before: &str) -> (String, Vec<String>) {
    match sandbox.query(&Op::Complete {
        before: before.to_owned(),
        session: None,
    }) {
        Ok(Reply::Completion { word, candidates }) => (word, candidates),
        other => panic!("{other:?}"),
    }
}

fn candidates(sandbox: &Sandbox, before: &str) -> Vec<String> {
    complete(sandbox, before).1
}

#[test]
fn commands_variables_and_paths_complete_as_in_bash() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let setup = exec(
        &sandbox,
        "mkdir -p proj/src 'my dir' && touch proj/readme.md proj/.hidden 'my dir/a b.txt' && \
         myfunc() { :; }; alias mylist='ls -l'; export MYVAR=1",
    );
    assert_eq!(setup.code, 0, "{}", setup.stderr);

    assert_eq!(
        complete(&sandbox, "myf"),
        ("myf".into(), vec!["myfunc".into()])
    );
    assert_eq!(candidates(&sandbox, "myl"), ["mylist"]);
    let ec = candidates(&sandbox, "ec");
    assert!(ec.contains(&"echo".to_owned()), "{ec:?}");
    let gr = candidates(&sandbox, "ls | gr");
    assert!(gr.contains(&"grep".to_owned()), "{gr:?}");
    assert!(candidates(&sandbox, "if true; then whi").contains(&"while".to_owned()));

    // Not in a command's place: paths, from the session's directory.
    assert_eq!(candidates(&sandbox, "cat pr"), ["proj/"]);
    assert_eq!(
        complete(&sandbox, "cat proj/"),
        (
            "proj/".into(),
            vec!["proj/readme.md".into(), "proj/src/".into()]
        )
    );
    assert_eq!(candidates(&sandbox, "cat proj/."), ["proj/.hidden"]);
    assert_eq!(candidates(&sandbox, "cd ~/pr"), ["~/proj/"]);
    assert_eq!(candidates(&sandbox, "ls /ho"), ["/home/"]);
    assert_eq!(candidates(&sandbox, "cat my"), ["my\\ dir/"]);
    assert_eq!(
        candidates(&sandbox, "cat my\\ dir/a"),
        ["my\\ dir/a\\ b.txt"]
    );
    assert!(candidates(&sandbox, "cat nothing-here").is_empty());

    // Variables.
    assert_eq!(candidates(&sandbox, "echo $MYV"), ["$MYVAR"]);
    assert_eq!(candidates(&sandbox, "echo ${MYV"), ["${MYVAR}"]);

    // The session's directory counts: after a cd, paths are from there.
    exec(&sandbox, "cd proj");
    assert_eq!(candidates(&sandbox, "cat re"), ["readme.md"]);
}

#[test]
fn a_command_that_goes_on_is_not_complete() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({}), &platform).unwrap();
    let whole = |script: &str| match sandbox.query(&Op::IsComplete {
        script: script.to_owned(),
    }) {
        Ok(Reply::Flag { value }) => value,
        other => panic!("{other:?}"),
    };
    assert!(whole("for x in a b\ndo echo $x\ndone"));
    assert!(!whole("for x in a b\ndo echo $x"));
    assert!(!whole("echo 'open"));
    assert!(
        whole("echo )"),
        "a mistake no line can mend runs, and says so"
    );
}
