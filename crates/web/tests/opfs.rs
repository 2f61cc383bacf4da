//! The OPFS backend in a dedicated worker (sync access handles exist only there): files
//! survive a reopen, a torn tail from a crash mid-commit is cut off, a second opener is
//! refused, and compaction keeps the log small without losing anything.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod common;

use common::{exec, field, query, read_file, run, write_file};
use sandtab_web::Sandbox;
use sandtab_web::opfs_store::{
    append_garbage_for_test, chunk_payloads_for_test, compact_for_test, flip_byte_for_test,
    log_size_for_test,
};
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", (js_sys::Math::random() * 1e12) as u64)
}

async fn open(name: &str) -> Result<Sandbox, JsValue> {
    common::try_open(&json!({"name": name, "storage": "opfs"})).await
}

async fn fsck_clean(sandbox: &Sandbox) {
    let report = run(sandbox, json!({"op": "fsck"}), "fsck").await;
    let problems = js_sys::Array::from(&field(&report, "problems"));
    assert!(
        field(&report, "clean").as_bool().unwrap(),
        "{:?}",
        problems.to_vec()
    );
}

/// Writes `data` to `/home/agent/big` of sandbox `name` (a new one) and closes it.
async fn write_big(name: &str, data: &[u8]) {
    let sandbox = open(name).await.unwrap();
    write_file(&sandbox, "/home/agent/big", data).await.unwrap();
}

/// Where the payloads of the log's large chunks are, and their lengths.
async fn large_payloads(name: &str) -> Vec<(u64, u32)> {
    let payloads = chunk_payloads_for_test(name).await.unwrap();
    payloads
        .into_iter()
        .filter(|(_, len)| *len > 65536)
        .collect()
}

/// A batch's header as the log writes it: magic, metadata length, data length.
fn batch_head(meta_len: u32, data_len: u64) -> Vec<u8> {
    let mut head = 0x5342_4154u32.to_le_bytes().to_vec();
    head.extend_from_slice(&meta_len.to_le_bytes());
    head.extend_from_slice(&data_len.to_le_bytes());
    head
}

/// Whether each payload starts where the one before it ends.
fn back_to_back(payloads: &[(u64, u32)]) -> bool {
    payloads
        .windows(2)
        .all(|w| w[0].0 + u64::from(w[0].1) == w[1].0)
}

#[wasm_bindgen_test]
async fn files_survive_a_reopen() {
    let name = unique("opfs-reopen");
    {
        let sandbox = open(&name).await.unwrap();
        let info = query(&sandbox, json!({"op": "info"}), "info");
        assert_eq!(field(&info, "storage").as_string().unwrap(), "opfs");
        let out = exec(
            &sandbox,
            "mkdir d && seq 1 20000 > d/n && echo x > /tmp/x",
            None,
        )
        .await;
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
    }
    let sandbox = open(&name).await.unwrap();
    let out = exec(&sandbox, "tail -n 1 d/n; ls /tmp | wc -l", None).await;
    assert_eq!(out.stdout, "20000\n0\n", "{}", out.stderr);
    fsck_clean(&sandbox).await;
}

#[wasm_bindgen_test]
async fn a_torn_tail_is_cut_off_and_the_last_commit_stays() {
    let name = unique("opfs-torn");
    {
        let sandbox = open(&name).await.unwrap();
        exec(&sandbox, "echo committed > c.txt", None).await;
    }
    // What a crash in the middle of writing a batch leaves: a header and half a body.
    let mut torn = batch_head(500, 1_000_000);
    torn.extend_from_slice(&[7u8; 300]);
    append_garbage_for_test(&name, &torn).await.unwrap();
    {
        let sandbox = open(&name).await.unwrap();
        assert_eq!(
            exec(&sandbox, "cat c.txt", None).await.stdout,
            "committed\n"
        );
        exec(&sandbox, "echo after > d.txt", None).await;
        fsck_clean(&sandbox).await;
    }
    let sandbox = open(&name).await.unwrap();
    assert_eq!(
        exec(&sandbox, "cat c.txt d.txt", None).await.stdout,
        "committed\nafter\n"
    );
}

#[wasm_bindgen_test]
async fn a_large_file_reads_back_whole_and_damage_in_it_is_reported() {
    let name = unique("opfs-large");
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 241) as u8).collect();
    write_big(&name, &data).await;
    {
        let sandbox = open(&name).await.unwrap();
        let back = read_file(&sandbox, "/home/agent/big").await.unwrap();
        assert!(back == data, "read back the same bytes");
        // Loaded by the shell, then read from memory: the same bytes again.
        let out = exec(&sandbox, "wc -c < big", None).await;
        assert_eq!(out.stdout, "3000000\n", "{}", out.stderr);
        let back = read_file(&sandbox, "/home/agent/big").await.unwrap();
        assert!(back == data, "read back the same bytes from memory");
    }
    // Large chunks' payloads start page-aligned in the log (reads of them are faster).
    let large = large_payloads(&name).await;
    assert_eq!(large.len(), 12, "{large:?}");
    assert!(large.iter().all(|(at, _)| at % 4096 == 0), "{large:?}");
    // ... and lie back to back (their seals are in the batch's metadata), so the file is
    // written, and read, in long runs.
    assert!(back_to_back(&large), "{large:?}");
    // The file's chunks are most of the log: its middle is inside one of them.
    let (size, _) = log_size_for_test(&name).await.unwrap();
    flip_byte_for_test(&name, size / 2).await.unwrap();
    let sandbox = open(&name).await.unwrap();
    let err = read_file(&sandbox, "/home/agent/big").await.unwrap_err();
    assert_eq!(field(&err, "code").as_string().unwrap(), "EUCLEAN");
    let message = field(&err, "message").as_string().unwrap();
    assert!(message.contains("checksum"), "{message}");
    assert!(message.contains("/home/agent/big"), "{message}");
    // The shell reads through the generic path: the same damage, the same verdict.
    let out = exec(&sandbox, "cat big > /dev/null", None).await;
    assert_ne!(out.exit_code, 0);
    assert!(
        out.stderr.contains("Structure needs cleaning"),
        "{}",
        out.stderr
    );
}

#[wasm_bindgen_test]
async fn a_second_opener_is_refused() {
    let name = unique("opfs-busy");
    let first = open(&name).await.unwrap();
    let err = open(&name).await.unwrap_err();
    assert_eq!(field(&err, "code").as_string().unwrap(), "EBUSY");
    drop(first);
    assert!(
        open(&name).await.is_ok(),
        "free again once the first is closed"
    );
}

#[wasm_bindgen_test]
async fn compaction_keeps_every_live_record() {
    let name = unique("opfs-compact");
    {
        let sandbox = open(&name).await.unwrap();
        exec(&sandbox, "echo keep > keep.txt", None).await;
        let snap = run(
            &sandbox,
            json!({"op": "snapshot", "label": "s"}),
            "snapshot",
        )
        .await;
        assert_eq!(field(&snap, "id").as_f64().unwrap(), 1.0);
        // 80 rewrites of a 1 MiB file: the log passes 64 MiB and is compacted.
        let data = vec![b'z'; 1 << 20];
        for round in 0..80u8 {
            let mut contents = data.clone();
            contents[0] = round;
            write_file(&sandbox, "/home/agent/big", &contents)
                .await
                .unwrap();
        }
        fsck_clean(&sandbox).await;
    }
    let (size, generation) = log_size_for_test(&name).await.unwrap();
    assert!(generation > 1, "compaction ran");
    assert!(size < 64 << 20, "80 MiB written, log is {size} bytes");
    let sandbox = open(&name).await.unwrap();
    let big = read_file(&sandbox, "/home/agent/big").await.unwrap();
    assert_eq!((big.len(), big[0]), (1 << 20, 79));
    assert_eq!(exec(&sandbox, "cat keep.txt", None).await.stdout, "keep\n");
    let snapshots = query(&sandbox, json!({"op": "snapshots"}), "snapshots");
    assert_eq!(
        js_sys::Array::from(&field(&snapshots, "snapshots")).length(),
        1
    );
    run(&sandbox, json!({"op": "restore", "id": 1}), "done").await;
    assert_eq!(exec(&sandbox, "ls", None).await.stdout, "keep.txt\n");
    fsck_clean(&sandbox).await;
}

#[wasm_bindgen_test]
async fn a_stored_size_its_chunks_do_not_hold_is_euclean_before_anything_is_allocated() {
    use sandtab_vfs::storage::records::{KindRecord, decode_inode, encode_inode};
    use sandtab_vfs::storage::{Batch, Store};
    let name = unique("opfs-size");
    {
        let sandbox = open(&name).await.unwrap();
        write_file(&sandbox, "/home/agent/f", &[5u8; 200_000])
            .await
            .unwrap();
    }
    {
        let store = sandtab_web::opfs_store::OpfsStore::open(&name)
            .await
            .unwrap();
        let state = store.load().await.unwrap();
        let (ino, mut record) = state
            .inodes
            .iter()
            .map(|(ino, sealed)| (*ino, decode_inode(*ino, sealed).unwrap()))
            .find(|(_, r)| matches!(r.kind, KindRecord::File { size: 200_000, .. }))
            .unwrap();
        if let KindRecord::File { size, .. } = &mut record.kind {
            *size = 900 << 20;
        }
        store
            .commit(Batch {
                put_inodes: vec![(ino, encode_inode(&record))],
                ..Batch::default()
            })
            .await
            .unwrap();
    }
    let sandbox = open(&name).await.unwrap();
    let err = read_file(&sandbox, "/home/agent/f").await.unwrap_err();
    let message = common::message(&err);
    assert_eq!(common::code(&err), "EUCLEAN", "{message}");
    assert!(message.contains("holds 200000 bytes"), "{message}");
}

#[wasm_bindgen_test]
async fn a_log_with_seals_in_front_of_payloads_still_reads_and_is_rewritten_on_compaction() {
    let name = unique("opfs-older");
    let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
    write_big(&name, &data).await;
    exec(&open(&name).await.unwrap(), "echo small > small.txt", None).await;
    // The layout of logs from before seals moved into the metadata: each large payload
    // page-aligned with its seal in front of it.
    compact_for_test(&name, true).await.unwrap();
    let large = large_payloads(&name).await;
    assert_eq!(large.len(), 4, "{large:?}");
    assert!(
        large
            .windows(2)
            .all(|w| w[0].0 + u64::from(w[0].1) < w[1].0),
        "a seal between payloads: {large:?}"
    );
    {
        let sandbox = open(&name).await.unwrap();
        let back = read_file(&sandbox, "/home/agent/big").await.unwrap();
        assert!(back == data, "read back the same bytes");
        let out = exec(&sandbox, "cat small.txt; wc -c < big", None).await;
        assert_eq!(out.stdout, "small\n1000000\n", "{}", out.stderr);
        fsck_clean(&sandbox).await;
    }
    // Damage in a payload of the older layout is found as well.
    flip_byte_for_test(&name, large[1].0 + 100).await.unwrap();
    {
        let sandbox = open(&name).await.unwrap();
        let err = read_file(&sandbox, "/home/agent/big").await.unwrap_err();
        assert_eq!(field(&err, "code").as_string().unwrap(), "EUCLEAN");
    }
    flip_byte_for_test(&name, large[1].0 + 100).await.unwrap();
    // Compaction writes the current layout: payloads back to back, same bytes.
    compact_for_test(&name, false).await.unwrap();
    let large = large_payloads(&name).await;
    assert!(back_to_back(&large), "{large:?}");
    let sandbox = open(&name).await.unwrap();
    let back = read_file(&sandbox, "/home/agent/big").await.unwrap();
    assert!(back == data, "read back the same bytes");
    fsck_clean(&sandbox).await;
}

#[wasm_bindgen_test]
async fn a_committed_batch_this_build_cannot_decode_is_a_clear_error_that_changes_nothing() {
    let name = unique("opfs-newer");
    {
        let sandbox = open(&name).await.unwrap();
        exec(&sandbox, "echo kept > kept.txt", None).await;
    }
    // A whole batch (its commit's CRC holds) with one entry of a kind unknown here, as a
    // newer build might write: postcard's vector of length 1, variant 200.
    let meta = [0x01u8, 0xc8, 0x01];
    let mut batch = batch_head(meta.len() as u32, 0);
    batch.extend_from_slice(&meta);
    batch.extend_from_slice(&0x434f_4d54u32.to_le_bytes());
    batch.extend_from_slice(&crc32fast::hash(&meta).to_le_bytes());
    append_garbage_for_test(&name, &batch).await.unwrap();
    let (before, _) = log_size_for_test(&name).await.unwrap();
    let err = open(&name).await.unwrap_err();
    assert_eq!(field(&err, "code").as_string().unwrap(), "ENOTSUP");
    let message = field(&err, "message").as_string().unwrap();
    assert!(message.contains("cannot read"), "{message}");
    assert!(message.contains("newer"), "{message}");
    // Not cut off as a torn tail: the log is as it was, and its files were let go of (the
    // same error again, not EBUSY).
    let (after, _) = log_size_for_test(&name).await.unwrap();
    assert_eq!(before, after);
    let again = open(&name).await.unwrap_err();
    assert_eq!(field(&again, "code").as_string().unwrap(), "ENOTSUP");
}
