//! Options are checked once at open: each mistake is `EINVAL` with a message naming
//! the field; good options take effect (limits, quota, mounts, the document's sections).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, exec, open, run_json};
use sandtab_runtime::{Op, Reply, SandboxOptions};
use serde_json::{Value, json};

/// The error opening with `options` gives (read from JSON or at open).
fn refused(options: Value) -> sandtab_runtime::RuntimeError {
    let err = open(options.clone(), &FakePlatform::new())
        .err()
        .unwrap_or_else(|| panic!("{options} was accepted"));
    assert_eq!(err.code, "EINVAL", "{options}: {err:?}");
    err
}

fn assert_names(options: Value, wanted: &[&str]) {
    let err = refused(options.clone());
    for part in wanted {
        assert!(
            err.message.contains(part),
            "{options}: {:?} does not name {part:?}",
            err.message
        );
    }
}

#[test]
fn bad_options_are_refused_naming_the_field() {
    assert_names(json!({"nmae": "x"}), &["options", "unknown field `nmae`"]);
    assert_names(
        json!({"limits": {"maxComands": 5}}),
        &["options.limits", "maxComands"],
    );
    assert_names(
        json!({"limits": {"maxCommands": -1}}),
        &["options.limits.maxCommands", "positive whole number"],
    );
    assert_names(
        json!({"limits": {"timeoutMs": 1.5}}),
        &["options.limits.timeoutMs", "positive whole number"],
    );
    assert_names(
        json!({"quota": {"maxBytes": "lots"}}),
        &["options.quota.maxBytes", "not a number"],
    );
    assert_names(
        json!({"guestLimits": {"fuel": 0}}),
        &["options.guestLimits.fuel"],
    );
    assert_names(
        json!({"storage": "floppy"}),
        &["options.storage", "floppy", "indexeddb"],
    );
    assert_names(json!({"name": ""}), &["options.name"]);
    assert_names(json!({"name": "a\nb"}), &["options.name"]);
    assert_names(json!({"name": "x".repeat(101)}), &["options.name", "100"]);
    assert_names(json!({"name": 7}), &["options.name"]);
    assert_names(json!({"record": "yes"}), &["options.record"]);
    assert_names(json!({"capabilities": 3}), &["options.capabilities"]);
    assert_names(
        json!({"mounts": [{"path": "relative", "files": {}}]}),
        &["mounts[0].path", "absolute"],
    );
    assert_names(
        json!({"mounts": [{"path": "/tmp", "files": {}}]}),
        &["mounts[0].path", "/tmp"],
    );
}

#[test]
fn the_documents_sections_are_given_in_one_place_only() {
    assert_names(
        json!({"limits": {"maxCommands": 5},
               "capabilities": {"limits": {"shell": {"maxCommands": 6}}}}),
        &["limits", "capabilities.limits.shell", "one place"],
    );
    assert_names(
        json!({"guestLimits": {"fuel": 5},
               "capabilities": {"limits": {"guest": {"fuel": 6}}}}),
        &["guestLimits", "capabilities.limits.guest"],
    );
    assert_names(
        json!({"quota": {"maxBytes": 5},
               "capabilities": {"filesystem": {"quota": {"maxBytes": 6}}}}),
        &["quota", "capabilities.filesystem.quota"],
    );
    assert_names(
        json!({"capabilities": {"limits": {"shel": {}}}}),
        &["capabilities.limits", "shel"],
    );
    assert_names(
        json!({"capabilities": {"limits": {"shell": {"maxCommands": 0}}}}),
        &["capabilities.limits.shell.maxCommands"],
    );
    // The document itself is checked by sandtab-caps, naming its place.
    assert_names(
        json!({"capabilities": {"tools": [{"name": "t", "constraints": {"arg": "x", "bogus": 1}}]}}),
        &["tools[0]"],
    );
    assert_names(json!({"capabilities": {"version": 2}}), &["version"]);
}

#[test]
fn good_options_take_effect() {
    let platform = FakePlatform::new();
    // Limits from the document's section.
    let sandbox = open(
        json!({"capabilities": {"limits": {"shell": {"maxLoopIterations": 10}}}}),
        &platform,
    )
    .unwrap();
    let ran = exec(&sandbox, "for i in $(seq 1 100); do :; done; echo done");
    assert_ne!(ran.code, 0, "{}", ran.stdout);
    assert!(!ran.stdout.contains("done"));

    // A quota.
    let sandbox = open(json!({"quota": {"maxFileSize": 10}}), &platform).unwrap();
    let Reply::Usage { max_file_size, .. } = sandbox.query(&Op::Usage).unwrap() else {
        panic!()
    };
    assert_eq!(max_file_size, 10);
    let err = run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/home/agent/big", "data": vec![0; 11]}),
    )
    .unwrap_err();
    assert_eq!(err.code, "EFBIG", "{err:?}");

    // A read-only mount, its files as text or bytes.
    let sandbox = open(
        json!({"mounts": [{"path": "/skills", "files": {"a.md": "# A\n", "dir/b.bin": [1, 2]}}]}),
        &platform,
    )
    .unwrap();
    assert_eq!(
        exec(&sandbox, "cat /skills/a.md; wc -c < /skills/dir/b.bin").stdout,
        "# A\n2\n"
    );
    let ran = exec(&sandbox, "echo x > /skills/c");
    assert_ne!(ran.code, 0);
    // A mount is not a file of the sandbox's own: it can still be recorded.
    let recording = open(
        json!({"record": true, "mounts": [{"path": "/skills", "files": {"a.md": "x"}}]}),
        &platform,
    );
    assert!(recording.is_ok(), "{recording:?}");

    // Options read from JSON text and given as a value agree.
    let text = r#"{"name":"n","storage":"memory","limits":{"maxOutputBytes":4096}}"#;
    let options = SandboxOptions::from_json(text).unwrap();
    assert_eq!(
        options,
        serde_json::from_str::<SandboxOptions>(text).unwrap()
    );
    assert_eq!(options.name.as_deref(), Some("n"));
}
