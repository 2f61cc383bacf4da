//! File operations on a stored sandbox (the platform's store, here a `MemoryStore` per
//! name): writes are saved, a reopened sandbox of the same name sees them, snapshots
//! restore, tar round-trips, fsck is clean, and a fork is a sandbox of its own.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{FakePlatform, error, exec, open, run, run_json};
use sandtab_runtime::{Bytes, Op, Reply, StorageKind};
use serde_json::json;

fn read(sandbox: &sandtab_runtime::Sandbox, path: &str) -> Vec<u8> {
    match run_json(sandbox, json!({"op": "readFile", "path": path})).unwrap() {
        Reply::Bytes { data } => data.0,
        other => panic!("{other:?}"),
    }
}

fn names(sandbox: &sandtab_runtime::Sandbox, path: &str) -> Vec<(String, String, u64)> {
    match sandbox
        .query(&Op::ListDir {
            path: path.to_owned(),
        })
        .unwrap()
    {
        Reply::Entries { entries } => entries
            .into_iter()
            .map(|e| (e.name, e.kind, e.size))
            .collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn files_are_saved_and_a_reopened_sandbox_sees_them() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "proj", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(
        sandbox.query(&Op::Info).unwrap(),
        Reply::Info {
            name: "proj".into(),
            storage: StorageKind::Indexeddb,
            // Natively there is no engine tier.
            guest_tier: sandtab_runtime::GuestTier::Interpreter,
        }
    );
    // Bytes as the page sends them (an array of numbers) and as base64 text.
    run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/home/agent/a.bin", "data": [0, 1, 2, 255]}),
    )
    .unwrap();
    run_json(
        &sandbox,
        json!({"op": "writeFile", "path": "/home/agent/hello.txt", "data": "aGVsbG8K"}),
    )
    .unwrap();
    assert_eq!(read(&sandbox, "/home/agent/a.bin"), [0, 1, 2, 255]);
    assert_eq!(exec(&sandbox, "cat hello.txt").stdout, "hello\n");
    exec(
        &sandbox,
        "mkdir -p src && echo 'fn main() {}' > src/main.rs",
    );

    let listed = names(&sandbox, "/home/agent");
    let summary: Vec<(&str, &str)> = listed
        .iter()
        .map(|(n, k, _)| (n.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        summary,
        [("a.bin", "file"), ("hello.txt", "file"), ("src", "dir")]
    );
    assert_eq!((listed[0].2, listed[1].2), (4, 6));
    let Reply::Usage {
        bytes,
        files,
        max_bytes,
        ..
    } = sandbox.query(&Op::Usage).unwrap()
    else {
        panic!()
    };
    assert!(files >= 3 && bytes >= 4 + 6 + 13, "{files} {bytes}");
    assert_eq!(max_bytes, 256 << 20);
    // Queries are refused as ops that run only when they are not queries.
    assert_eq!(error(sandbox.query(&Op::Flush)).code, "EINVAL");

    let Reply::Flushed { .. } = run(&sandbox, Op::Flush).unwrap() else {
        panic!()
    };
    drop(sandbox);

    // The same name again: the files are there, read from the store.
    let again = open(json!({"name": "proj", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(platform.opened.borrow()["proj"], 2);
    assert_eq!(read(&again, "/home/agent/a.bin"), [0, 1, 2, 255]);
    assert_eq!(exec(&again, "cat src/main.rs").stdout, "fn main() {}\n");
    // Another name is another sandbox.
    let other = open(json!({"name": "other", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(
        error(run_json(
            &other,
            json!({"op": "readFile", "path": "/home/agent/a.bin"})
        ))
        .code,
        "ENOENT"
    );
}

#[test]
fn snapshots_restore_and_are_deleted() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "snaps", "storage": "indexeddb"}), &platform).unwrap();
    exec(&sandbox, "echo one > f");
    let Reply::Snapshot(first) =
        run_json(&sandbox, json!({"op": "snapshot", "label": "first"})).unwrap()
    else {
        panic!()
    };
    assert_eq!(first.label, "first");
    assert!(first.files >= 1);
    exec(&sandbox, "echo two > f; echo new > g");
    let Reply::Snapshot(second) =
        run_json(&sandbox, json!({"op": "snapshot", "label": "second"})).unwrap()
    else {
        panic!()
    };
    let Reply::Snapshots { snapshots } = sandbox.query(&Op::Snapshots).unwrap() else {
        panic!()
    };
    assert_eq!(
        snapshots
            .iter()
            .map(|s| s.label.as_str())
            .collect::<Vec<_>>(),
        ["first", "second"]
    );

    assert_eq!(
        run_json(&sandbox, json!({"op": "restore", "id": first.id})).unwrap(),
        Reply::Done
    );
    assert_eq!(exec(&sandbox, "cat f; ls").stdout, "one\nf\n");
    run_json(&sandbox, json!({"op": "deleteSnapshot", "id": second.id})).unwrap();
    let Reply::Snapshots { snapshots } = sandbox.query(&Op::Snapshots).unwrap() else {
        panic!()
    };
    assert_eq!(snapshots.len(), 1);
    assert!(
        run_json(&sandbox, json!({"op": "restore", "id": second.id})).is_err(),
        "a deleted snapshot cannot be restored"
    );
    // Snapshots are kept in the store too.
    drop(sandbox);
    let again = open(json!({"name": "snaps", "storage": "indexeddb"}), &platform).unwrap();
    let Reply::Snapshots { snapshots } = again.query(&Op::Snapshots).unwrap() else {
        panic!()
    };
    assert_eq!(snapshots.len(), 1);
    assert_eq!(snapshots[0].id, first.id);
}

#[test]
fn tar_round_trips_and_fsck_is_clean() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "tarred", "storage": "indexeddb"}), &platform).unwrap();
    exec(
        &sandbox,
        "mkdir -p proj/sub && echo top > proj/a && echo deep > proj/sub/b && ln -s a proj/link",
    );
    let Reply::Bytes { data: tar } = run_json(
        &sandbox,
        json!({"op": "exportTar", "path": "/home/agent/proj"}),
    )
    .unwrap() else {
        panic!()
    };
    assert!(tar.0.len() >= 512 * 3, "{}", tar.0.len());

    let other = open(
        json!({"name": "untarred", "storage": "indexeddb"}),
        &platform,
    )
    .unwrap();
    exec(&other, "mkdir -p /home/agent/copy");
    let reply = run(
        &other,
        Op::ImportTar {
            data: Bytes(tar.0.clone()),
            path: Some("/home/agent/copy".into()),
        },
    )
    .unwrap();
    let Reply::Imported {
        files,
        directories,
        symlinks,
        skipped,
    } = reply
    else {
        panic!("{reply:?}")
    };
    assert_eq!((files, symlinks, skipped), (2, 1, 0), "{reply:?}");
    assert!(directories >= 1);
    assert_eq!(
        exec(&other, "cd copy; cat a sub/b; readlink link").stdout,
        "top\ndeep\na\n"
    );
    // Not a tar archive: refused, nothing half-imported breaks the store.
    let bad = run(
        &other,
        Op::ImportTar {
            data: Bytes(vec![7; 1000]),
            path: None,
        },
    );
    assert!(bad.is_err(), "{bad:?}");

    for sandbox in [&sandbox, &other] {
        let Reply::Fsck {
            clean,
            problems,
            files,
            bytes_checked,
            ..
        } = run_json(sandbox, json!({"op": "fsck"})).unwrap()
        else {
            panic!()
        };
        assert!(clean, "{problems:?}");
        assert!(files >= 2 && bytes_checked > 0);
    }
    // A record broken in the store is found.
    let store = platform.store("untarred").unwrap();
    let mut broken = false;
    for ino in 1..64 {
        broken |= store.tamper_inode(ino, |record| {
            if let Some(last) = record.last_mut() {
                *last ^= 0xff;
            }
        });
        if broken {
            break;
        }
    }
    assert!(broken);
    let Reply::Fsck { clean, .. } = run_json(&other, json!({"op": "fsck"})).unwrap() else {
        panic!()
    };
    assert!(!clean);
}

#[test]
fn a_fork_is_a_sandbox_of_its_own() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "origin", "storage": "indexeddb"}), &platform).unwrap();
    exec(&sandbox, "echo before > f");
    let Reply::Snapshot(snap) =
        run_json(&sandbox, json!({"op": "snapshot", "label": "s"})).unwrap()
    else {
        panic!()
    };
    exec(&sandbox, "echo after > f");
    assert_eq!(
        run_json(&sandbox, json!({"op": "fork", "newName": "now"})).unwrap(),
        Reply::Done
    );
    run_json(
        &sandbox,
        json!({"op": "fork", "newName": "then", "snapshotId": snap.id}),
    )
    .unwrap();
    let err = error(run_json(
        &sandbox,
        json!({"op": "fork", "newName": "origin"}),
    ));
    assert_eq!(err.code, "EINVAL");

    let now = open(json!({"name": "now", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(exec(&now, "cat f").stdout, "after\n");
    let then = open(json!({"name": "then", "storage": "indexeddb"}), &platform).unwrap();
    assert_eq!(exec(&then, "cat f").stdout, "before\n");
    // Changing the fork leaves the origin alone.
    exec(&now, "echo forked > f");
    assert_eq!(exec(&sandbox, "cat f").stdout, "after\n");

    let memory = open(json!({"storage": "memory"}), &platform).unwrap();
    assert_eq!(memory.storage(), StorageKind::Memory);
    exec(&memory, "echo mem > m");
    let Reply::Fsck { clean, summary, .. } = run_json(&memory, json!({"op": "fsck"})).unwrap()
    else {
        panic!()
    };
    assert!(clean && summary.contains("memory"), "{summary}");
    // A sandbox in memory has nothing stored to fork from.
    let err = error(run_json(
        &memory,
        json!({"op": "fork", "newName": "from-memory"}),
    ));
    assert_eq!(err.code, "ENOTSUP", "{err:?}");
    // A kind the host does not have is refused by the host.
    let err = open(json!({"name": "x", "storage": "opfs"}), &platform).unwrap_err();
    assert_eq!(err.code, "ENOTSUP");
}

#[test]
fn fsck_checks_what_is_stored_when_the_quota_refuses_a_save() {
    let platform = FakePlatform::new();
    let sandbox = open(json!({"name": "full", "storage": "indexeddb"}), &platform).unwrap();
    exec(&sandbox, "echo kept > kept.txt");
    let store = platform.store("full").unwrap();
    let full = || {
        sandtab_vfs::VfsError::new(sandtab_vfs::ErrorKind::QuotaExceeded, "/")
            .with_detail("the browser's storage quota is full")
    };
    // A save the quota refuses: the change stays in memory, unsaved.
    store.fail_next_commit(full());
    let ran = exec(&sandbox, "echo pending > pending.txt");
    assert_eq!(
        ran.result.save_error.as_ref().map(|e| e.code.as_str()),
        Some("EDQUOT")
    );
    let commits = store.commit_count();
    // Checking retries the save, refused again: what is stored is still checked.
    store.fail_next_commit(full());
    let Reply::Fsck { clean, summary, .. } = run(&sandbox, Op::Fsck).unwrap() else {
        panic!()
    };
    assert!(clean, "{summary}");
    assert!(summary.contains("changes in memory not saved"), "{summary}");
    assert_eq!(store.commit_count(), commits);
    // Any other failure of the save still ends the check with an error.
    store.fail_next_commit(sandtab_vfs::VfsError::new(sandtab_vfs::ErrorKind::Io, "/"));
    assert_eq!(error(run(&sandbox, Op::Fsck)).code, "EIO");
    // Once storage takes it, the change is saved.
    assert_eq!(exec(&sandbox, "cat pending.txt").stdout, "pending\n");
    assert!(store.commit_count() > commits);
}
