//! The IndexedDB backend in a dedicated worker (where the runtime keeps it): files survive
//! a reopen, contents load lazily, bad stored data is refused with a clear, typed error,
//! and snapshots, forks and tar work on real IndexedDB.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{code, exec, field, js, memory, message, query, read_file, run, set, try_run_js};
use js_sys::Uint8Array;
use sandtab_vfs::ErrorKind;
use sandtab_vfs::storage::records::{ChunkRecord, Superblock, encode_superblock, seal};
use sandtab_vfs::storage::{Batch, Store};
use sandtab_web::Sandbox;
use sandtab_web::idb_store::IdbStore;
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", (js_sys::Math::random() * 1e12) as u64)
}

async fn open(name: &str) -> Result<Sandbox, JsValue> {
    common::try_open(&json!({"name": name, "storage": "indexeddb"})).await
}

async fn fsck(sandbox: &Sandbox) -> JsValue {
    run(sandbox, json!({"op": "fsck"}), "fsck").await
}

#[wasm_bindgen_test]
async fn files_survive_a_reopen_and_tmp_does_not() {
    let name = unique("reopen");
    {
        let sandbox = open(&name).await.unwrap();
        let info = query(&sandbox, json!({"op": "info"}), "info");
        assert_eq!(field(&info, "storage").as_string().unwrap(), "indexeddb");
        assert_eq!(field(&info, "name").as_string().unwrap(), name);
        let out = exec(
            &sandbox,
            "mkdir -p proj && seq 1 5000 > proj/n.txt && echo t > /tmp/t && ln -s proj/n.txt link",
            None,
        )
        .await;
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
    }
    let sandbox = open(&name).await.unwrap();
    let out = exec(
        &sandbox,
        "wc -l < proj/n.txt; tail -n 1 link; ls /tmp | wc -l",
        None,
    )
    .await;
    assert_eq!(out.stdout, "5000\n5000\n0\n", "{}", out.stderr);
    let report = fsck(&sandbox).await;
    assert!(field(&report, "clean").as_bool().unwrap());
    drop(sandbox);
    Sandbox::delete_stored(name.clone()).await.unwrap();
    let fresh = open(&name).await.unwrap();
    assert_eq!(
        exec(&fresh, "ls proj 2>&1 | head -c 40; echo", None)
            .await
            .exit_code,
        0
    );
    let err = read_file(&fresh, "/home/agent/proj/n.txt")
        .await
        .unwrap_err();
    assert_eq!(code(&err), "ENOENT", "{}", message(&err));
}

#[wasm_bindgen_test]
async fn an_unknown_format_version_is_refused_and_left_alone() {
    let name = unique("version");
    {
        let sandbox = open(&name).await.unwrap();
        exec(&sandbox, "echo keep > keep.txt", None).await;
    }
    let store = IdbStore::open(&name).await.unwrap();
    let mut payload = 7u32.to_le_bytes().to_vec();
    payload.push(0);
    let future_superblock = seal(&payload);
    store
        .commit(Batch {
            superblock: Some(future_superblock.clone()),
            ..Batch::default()
        })
        .await
        .unwrap();
    let err = open(&name).await.unwrap_err();
    assert_eq!(code(&err), "ENOTSUP");
    assert!(
        message(&err).contains("format version 7"),
        "{}",
        message(&err)
    );
    let state = store.load().await.unwrap();
    assert_eq!(
        state.superblock.unwrap(),
        future_superblock,
        "nothing was written"
    );
    // Put the current version back: the files are all there.
    let good = encode_superblock(&Superblock {
        next_ino: 1000,
        next_blob: 1000,
    });
    store
        .commit(Batch {
            superblock: Some(good),
            ..Batch::default()
        })
        .await
        .unwrap();
    let sandbox = open(&name).await.unwrap();
    assert_eq!(exec(&sandbox, "cat keep.txt", None).await.stdout, "keep\n");
}

#[wasm_bindgen_test]
async fn a_database_from_a_newer_schema_is_refused() {
    let name = unique("schema");
    let db =
        indexed_db_futures::database::Database::open(&sandtab_web::idb_store::database_name(&name))
            .with_version(9u8)
            .await
            .unwrap();
    db.close();
    let err = open(&name).await.unwrap_err();
    assert_eq!(code(&err), "ENOTSUP", "{}", message(&err));
    assert!(message(&err).contains("newer sandtab"), "{}", message(&err));
}

#[wasm_bindgen_test]
async fn a_corrupt_chunk_is_reported_by_read_and_fsck() {
    let name = unique("corrupt");
    {
        let sandbox = open(&name).await.unwrap();
        // Two commands, two flushes: two packs of small files.
        exec(&sandbox, "echo precious > a.txt", None).await;
        exec(&sandbox, "echo fine > b.txt", None).await;
    }
    let store = IdbStore::open(&name).await.unwrap();
    let blobs = store.blob_ids().await.unwrap();
    assert_eq!(blobs.len(), 2);
    let mut chunk = store.read_blob(blobs[0]).await.unwrap().remove(0).1;
    chunk[5] ^= 0x20;
    store
        .commit(Batch {
            put_chunks: vec![(blobs[0], 0, ChunkRecord::from_sealed(chunk))],
            ..Batch::default()
        })
        .await
        .unwrap();
    let sandbox = open(&name).await.unwrap();
    let err = read_file(&sandbox, "/home/agent/a.txt").await.unwrap_err();
    assert_eq!(code(&err), "EUCLEAN", "{}", message(&err));
    assert!(message(&err).contains("checksum"), "{}", message(&err));
    let out = exec(&sandbox, "cat a.txt; cat b.txt", None).await;
    assert!(
        out.stderr.contains("Structure needs cleaning"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "fine\n");
    let report = fsck(&sandbox).await;
    assert!(!field(&report, "clean").as_bool().unwrap());
    let problems = js_sys::Array::from(&field(&report, "problems"));
    assert_eq!(problems.length(), 1);
}

#[wasm_bindgen_test]
async fn the_browsers_quota_error_becomes_edquot() {
    let exception =
        web_sys::DomException::new_with_message_and_name("full", "QuotaExceededError").unwrap();
    let err = sandtab_web::idb_store::error_from_browser(
        "write",
        indexed_db_futures::error::Error::from(exception),
    );
    assert_eq!(err.kind(), ErrorKind::QuotaExceeded);
    assert!(err.to_string().contains("storage quota"), "{err}");
}

#[wasm_bindgen_test]
async fn snapshots_forks_and_tar_on_indexed_db() {
    let name = unique("snap");
    let sandbox = open(&name).await.unwrap();
    exec(&sandbox, "echo v1 > f.txt", None).await;
    let snap = run(
        &sandbox,
        json!({"op": "snapshot", "label": "first"}),
        "snapshot",
    )
    .await;
    assert_eq!(field(&snap, "label").as_string().unwrap(), "first");
    let id = field(&snap, "id").as_f64().unwrap() as u64;
    exec(&sandbox, "echo v2 > f.txt; echo new > g.txt", None).await;
    let fork_name = unique("fork");
    run(
        &sandbox,
        json!({"op": "fork", "newName": fork_name, "snapshotId": id}),
        "done",
    )
    .await;
    run(&sandbox, json!({"op": "restore", "id": id}), "done").await;
    assert_eq!(
        exec(&sandbox, "cat f.txt; ls", None).await.stdout,
        "v1\nf.txt\n"
    );
    let forked = open(&fork_name).await.unwrap();
    assert_eq!(exec(&forked, "cat f.txt", None).await.stdout, "v1\n");
    let reopened = open(&name).await.unwrap();
    let snapshots = query(&reopened, json!({"op": "snapshots"}), "snapshots");
    assert_eq!(
        js_sys::Array::from(&field(&snapshots, "snapshots")).length(),
        1
    );
    assert_eq!(exec(&reopened, "cat f.txt", None).await.stdout, "v1\n");

    let exported = run(
        &sandbox,
        json!({"op": "exportTar", "path": "/home/agent"}),
        "bytes",
    )
    .await;
    let archive = field(&exported, "data");
    assert!(archive.is_instance_of::<Uint8Array>());
    let memory = memory(json!({})).await;
    let import = js(&json!({"op": "importTar", "path": "/imported"}));
    set(&import, "data", &archive);
    let stats = try_run_js(&memory, &import, None).await.unwrap();
    assert_eq!(field(&stats, "reply").as_string().unwrap(), "imported");
    assert_eq!(field(&stats, "files").as_f64().unwrap(), 1.0);
    assert_eq!(
        exec(&memory, "cat /imported/f.txt", None).await.stdout,
        "v1\n"
    );
    // The shell's own tar reads what the sandbox wrote.
    let out = exec(
        &memory,
        "cd /imported && tar -cf /tmp/a.tar f.txt && tar -tf /tmp/a.tar",
        None,
    )
    .await;
    assert_eq!(out.stdout, "f.txt\n", "{}", out.stderr);
    let import = js(&json!({"op": "importTar"}));
    set(
        &import,
        "data",
        &Uint8Array::from(&b"not a tar".repeat(100)[..]).into(),
    );
    let garbage = try_run_js(&memory, &import, None).await.unwrap_err();
    assert_eq!(code(&garbage), "EINVAL", "{}", message(&garbage));
}

/// Opens `sandtab:<name>` as schema version 1 had it (one record per inode) and fills it
/// with `source`'s records.
async fn write_version_one_database(name: &str, source: &IdbStore) {
    use indexed_db_futures::prelude::*;
    use indexed_db_futures::transaction::TransactionMode;
    let state = source.load().await.unwrap();
    let mut chunks = Vec::new();
    for blob in source.blob_ids().await.unwrap() {
        for (index, record) in source.read_blob(blob).await.unwrap() {
            chunks.push((blob as f64 * 4096.0 + f64::from(index), record));
        }
    }
    let db =
        indexed_db_futures::database::Database::open(&sandtab_web::idb_store::database_name(name))
            .with_version(1u8)
            .with_on_upgrade_needed(|_event, db| {
                for store in ["meta", "inodes", "chunks", "snapshots"] {
                    db.create_object_store(store).build()?;
                }
                Ok(())
            })
            .await
            .unwrap();
    let tx = db
        .transaction(["meta", "inodes", "chunks"])
        .with_mode(TransactionMode::Readwrite)
        .build()
        .unwrap();
    let bytes = |record: &[u8]| -> JsValue { Uint8Array::from(record).into() };
    let meta = tx.object_store("meta").unwrap();
    drop(
        meta.put(bytes(&state.superblock.unwrap()))
            .with_key("superblock")
            .primitive()
            .unwrap(),
    );
    let inodes = tx.object_store("inodes").unwrap();
    for (ino, record) in &state.inodes {
        drop(
            inodes
                .put(bytes(record))
                .with_key(*ino as f64)
                .primitive()
                .unwrap(),
        );
    }
    let chunk_store = tx.object_store("chunks").unwrap();
    for (key, record) in &chunks {
        drop(
            chunk_store
                .put(bytes(record))
                .with_key(*key)
                .primitive()
                .unwrap(),
        );
    }
    tx.commit().await.unwrap();
    db.close();
}

/// How many records an object store of `sandtab:<name>` holds.
async fn record_count(name: &str, object_store: &str) -> u32 {
    use indexed_db_futures::prelude::*;
    let db =
        indexed_db_futures::database::Database::open(&sandtab_web::idb_store::database_name(name))
            .await
            .unwrap();
    let count = {
        let tx = db.transaction(object_store).build().unwrap();
        tx.object_store(object_store)
            .unwrap()
            .count()
            .await
            .unwrap()
    };
    db.close();
    count
}

#[wasm_bindgen_test]
async fn inode_records_are_kept_in_pages_that_follow_every_change() {
    let name = unique("pages");
    {
        let sandbox = open(&name).await.unwrap();
        let out = exec(
            &sandbox,
            "mkdir d && cd d && for i in $(seq 1 700); do echo $i > f$i; done; ls | wc -l",
            None,
        )
        .await;
        assert_eq!(out.stdout, "700\n", "{}", out.stderr);
    }
    // 700 files and a few directories: three pages, not 700 records.
    let pages = record_count(&name, "inode_pages").await;
    assert!((3..=4).contains(&pages), "{pages} pages");
    {
        let sandbox = open(&name).await.unwrap();
        let out = exec(&sandbox, "cat d/f1 d/f700; rm d/f1*; ls d | wc -l", None).await;
        assert_eq!(out.stdout, "1\n700\n589\n", "{}", out.stderr);
    }
    let sandbox = open(&name).await.unwrap();
    let out = exec(
        &sandbox,
        "ls d | wc -l; cat d/f2 d/f699; ls d/f1 2>&1 >/dev/null | wc -l",
        None,
    )
    .await;
    assert_eq!(out.stdout, "589\n2\n699\n1\n", "{}", out.stderr);
    let report = fsck(&sandbox).await;
    assert!(field(&report, "clean").as_bool().unwrap(), "{:?}", report);
}

#[wasm_bindgen_test]
async fn a_version_one_database_opens_and_moves_to_pages_at_its_first_save() {
    let source_name = unique("v1-source");
    {
        let sandbox = open(&source_name).await.unwrap();
        let out = exec(
            &sandbox,
            "mkdir -p src && echo 'fn main() {}' > src/main.rs && seq 1 100000 > big.txt",
            None,
        )
        .await;
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
    }
    let name = unique("v1");
    write_version_one_database(&name, &IdbStore::open(&source_name).await.unwrap()).await;
    assert!(record_count(&name, "inodes").await > 3);
    {
        let sandbox = open(&name).await.unwrap();
        let out = exec(&sandbox, "cat src/main.rs; tail -n 1 big.txt", None).await;
        assert_eq!(out.stdout, "fn main() {}\n100000\n", "{}", out.stderr);
        assert!(
            record_count(&name, "inodes").await > 3,
            "reading moves nothing"
        );
        exec(&sandbox, "echo new > new.txt", None).await;
    }
    assert_eq!(
        record_count(&name, "inodes").await,
        0,
        "the first save moved every record"
    );
    assert!(record_count(&name, "inode_pages").await >= 1);
    let sandbox = open(&name).await.unwrap();
    let out = exec(&sandbox, "cat src/main.rs new.txt; wc -l < big.txt", None).await;
    assert_eq!(out.stdout, "fn main() {}\nnew\n100000\n", "{}", out.stderr);
}

#[wasm_bindgen_test]
async fn a_damaged_inode_page_is_refused_with_euclean() {
    use indexed_db_futures::prelude::*;
    use indexed_db_futures::transaction::TransactionMode;
    let name = unique("bad-page");
    {
        let sandbox = open(&name).await.unwrap();
        exec(&sandbox, "echo keep > keep.txt", None).await;
    }
    let db =
        indexed_db_futures::database::Database::open(&sandtab_web::idb_store::database_name(&name))
            .await
            .unwrap();
    let tx = db
        .transaction("inode_pages")
        .with_mode(TransactionMode::Readwrite)
        .build()
        .unwrap();
    let garbage: JsValue = Uint8Array::from(&[1u8, 2, 3][..]).into();
    drop(
        tx.object_store("inode_pages")
            .unwrap()
            .put(garbage)
            .with_key(0f64)
            .primitive()
            .unwrap(),
    );
    tx.commit().await.unwrap();
    db.close();
    let err = open(&name).await.unwrap_err();
    assert_eq!(code(&err), "EUCLEAN", "{}", message(&err));
    assert!(message(&err).contains("inode page 0"), "{}", message(&err));
}
