//! A sandbox kept in a store: reopening, lazy loading, mounts, refused commits, format
//! versions, corruption, fsck, snapshots, forks, and files unlinked while open (tar:
//! `tests/tar.rs`).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use sandtab_vfs::storage::records::{Superblock, encode_superblock, seal};
use sandtab_vfs::storage::{ContentSink, MemoryStore, fsck};
use sandtab_vfs::{
    ErrorKind, FileKind, ManualClock, Mount, MountSource, Quota, SandboxFs, Store, Timestamp,
    VfsError, VfsPath,
};
use std::sync::Arc;

fn p(path: &str) -> VfsPath {
    VfsPath::parse(path).unwrap()
}

fn tmp_mount() -> Vec<Mount> {
    vec![Mount {
        path: p("/tmp"),
        source: MountSource::Memory,
    }]
}

fn open_with(store: &Arc<MemoryStore>, mounts: Vec<Mount>) -> Result<SandboxFs, VfsError> {
    let clock = Arc::new(ManualClock::new(Timestamp(1_000_000_000)));
    block_on(SandboxFs::open(
        store.clone(),
        clock,
        Quota::UNLIMITED,
        mounts,
    ))
}

fn open(store: &Arc<MemoryStore>) -> SandboxFs {
    open_with(store, tmp_mount()).unwrap()
}

fn read(fs: &SandboxFs, path: &str) -> Vec<u8> {
    block_on(fs.load_for_read(&p(path))).unwrap();
    fs.mem().read(&p(path)).unwrap()
}

#[test]
fn files_survive_a_reopen_with_their_metadata() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    let mem = fs.mem();
    mem.create_dir_all(&p("/home/agent/src")).unwrap();
    mem.write(&p("/home/agent/src/main.rs"), b"fn main() {}")
        .unwrap();
    let big: Vec<u8> = (0..700_000u32).map(|i| (i % 251) as u8).collect();
    mem.write(&p("/home/agent/big.bin"), &big).unwrap();
    mem.set_mode(&p("/home/agent/src/main.rs"), 0o600).unwrap();
    mem.set_modified(&p("/home/agent/src/main.rs"), Timestamp(42))
        .unwrap();
    mem.symlink("src/main.rs", &p("/home/agent/link")).unwrap();
    mem.hard_link(&p("/home/agent/big.bin"), &p("/home/agent/big2.bin"))
        .unwrap();
    mem.write(&p("/home/agent/empty"), b"").unwrap();
    let before = mem.stat(&p("/home/agent/src/main.rs")).unwrap();
    block_on(fs.flush()).unwrap();

    let fs = open(&store);
    let after = fs.mem().stat(&p("/home/agent/src/main.rs")).unwrap();
    assert_eq!(after.mode, 0o600);
    assert_eq!(after.modified, Timestamp(42));
    assert_eq!(after.ino, before.ino, "inode numbers are stable");
    assert_eq!(read(&fs, "/home/agent/link"), b"fn main() {}");
    assert_eq!(read(&fs, "/home/agent/big2.bin"), big);
    assert_eq!(fs.mem().stat(&p("/home/agent/big.bin")).unwrap().links, 2);
    assert_eq!(read(&fs, "/home/agent/empty"), b"");
    // The symlink's target counts as bytes too.
    let link_bytes = "src/main.rs".len() as u64;
    assert_eq!(
        fs.mem().usage().bytes,
        before.size + big.len() as u64 + link_bytes
    );
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
}

#[test]
fn contents_load_only_when_read() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().write(&p("/a"), b"hello").unwrap();
    block_on(fs.flush()).unwrap();
    let fs = open(&store);
    assert_eq!(
        fs.mem().stat(&p("/a")).unwrap().size,
        5,
        "metadata is there at once"
    );
    let err = fs.mem().read(&p("/a")).unwrap_err();
    assert_eq!(
        err.kind(),
        ErrorKind::Io,
        "contents are not loaded before asked for"
    );
    assert_eq!(read(&fs, "/a"), b"hello");
    // Appending needs the old contents; replacing does not.
    let fs = open(&store);
    block_on(fs.load_for_write(&p("/a"))).unwrap();
    fs.mem().append(&p("/a"), b"!").unwrap();
    fs.mem().write(&p("/a"), b"new").unwrap();
    assert_eq!(fs.mem().read(&p("/a")).unwrap(), b"new");
}

/// Collects what `SandboxFs::read_into` passes on.
#[derive(Default)]
struct Collect {
    size: Option<u64>,
    data: Vec<u8>,
}

impl ContentSink for Collect {
    fn size(&mut self, size: u64) -> Result<(), VfsError> {
        self.size = Some(size);
        Ok(())
    }
    fn piece(&mut self, data: &[u8]) {
        self.data.extend_from_slice(data);
    }
}

#[test]
fn read_into_streams_stored_contents_without_loading_them() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    let big: Vec<u8> = (0..900_000u32).map(|i| (i * 7 % 253) as u8).collect();
    fs.mem().write(&p("/big"), &big).unwrap();
    fs.mem().write(&p("/small"), b"packed").unwrap();
    fs.mem().symlink("big", &p("/link")).unwrap();
    block_on(fs.flush()).unwrap();

    let fs = open(&store);
    for (path, want) in [("/link", &big[..]), ("/small", b"packed")] {
        let mut sink = Collect::default();
        block_on(fs.read_into(&p(path), &mut sink)).unwrap();
        assert_eq!(sink.size, Some(want.len() as u64), "{path}");
        assert!(sink.data == want, "{path}: contents differ");
    }
    assert_eq!(
        fs.mem().read(&p("/big")).unwrap_err().kind(),
        ErrorKind::Io,
        "streamed contents are not kept in memory"
    );
    // Loaded (or changed) contents come from memory.
    fs.mem().write(&p("/small"), b"changed").unwrap();
    let mut sink = Collect::default();
    block_on(fs.read_into(&p("/small"), &mut sink)).unwrap();
    assert_eq!(sink.data, b"changed");
    let mut sink = Collect::default();
    let err = block_on(fs.read_into(&p("/"), &mut sink)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::IsADirectory);

    // A damaged chunk in the middle of the big file stops the stream with EUCLEAN.
    assert!(
        (1..10).any(|blob| store.tamper_chunk(blob, 2, |record| record[100] ^= 1)),
        "the big file has a blob of several chunks"
    );
    let fs = open(&store);
    let err = block_on(fs.read_into(&p("/big"), &mut Collect::default())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.to_string().contains("/big"), "{err}");
    assert!(err.to_string().contains("checksum"), "{err}");
}

#[test]
fn only_changes_are_flushed_and_old_contents_are_collected() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    for i in 0..20 {
        fs.mem().write(&p(&format!("/f{i}")), b"data").unwrap();
    }
    let big = vec![1u8; 100_000];
    fs.mem().write(&p("/big"), &big).unwrap();
    let first = block_on(fs.flush()).unwrap();
    assert_eq!(
        first.records, 25,
        "21 inodes, one pack of the small files, big's own chunk, the root, the superblock: {first:?}"
    );
    assert_eq!(store.chunk_count(), 2);
    fs.mem().write(&p("/f3"), b"changed").unwrap();
    let second = block_on(fs.flush()).unwrap();
    assert_eq!(
        second.records, 3,
        "inode, a new pack, superblock: {second:?}"
    );
    assert_eq!(store.chunk_count(), 3, "the old pack still holds 19 files");
    fs.mem().write(&p("/big"), b"small now").unwrap();
    block_on(fs.flush()).unwrap();
    assert_eq!(store.chunk_count(), 3, "big's old chunk went, a pack came");
    for i in (0..20).filter(|&i| i != 3) {
        fs.mem().remove_file(&p(&format!("/f{i}"))).unwrap();
    }
    block_on(fs.flush()).unwrap();
    assert_eq!(
        store.chunk_count(),
        2,
        "the first pack goes with its last file"
    );
    assert_eq!(
        block_on(fs.flush()).unwrap().records,
        0,
        "nothing changed, nothing written"
    );
    // Reading never causes a write.
    let fs = open(&store);
    assert_eq!(read(&fs, "/f3"), b"changed");
    assert_eq!(read(&fs, "/big"), b"small now");
    assert_eq!(block_on(fs.flush()).unwrap().records, 0);
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
}

#[test]
fn tmp_is_memory_only_and_symlinks_cross_mounts() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    let mem = fs.mem();
    mem.write(&p("/tmp/scratch"), b"gone after reopen").unwrap();
    mem.symlink("/tmp/scratch", &p("/link")).unwrap();
    assert_eq!(mem.read(&p("/link")).unwrap(), b"gone after reopen");
    mem.write(&p("/kept"), b"kept").unwrap();
    assert_eq!(
        mem.rename(&p("/kept"), &p("/tmp/kept")).unwrap_err().kind(),
        ErrorKind::CrossDevice
    );
    assert_eq!(
        mem.hard_link(&p("/kept"), &p("/tmp/k")).unwrap_err().kind(),
        ErrorKind::CrossDevice
    );
    assert_eq!(
        mem.remove_all(&p("/tmp")).unwrap_err().kind(),
        ErrorKind::Busy
    );
    assert_eq!(
        mem.rename(&p("/tmp"), &p("/t2")).unwrap_err().kind(),
        ErrorKind::Busy
    );
    block_on(fs.flush()).unwrap();
    let fs = open(&store);
    assert!(fs.mem().read_dir(&p("/tmp")).unwrap().is_empty());
    assert_eq!(
        fs.mem().read(&p("/link")).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(read(&fs, "/kept"), b"kept");
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
}

#[test]
fn read_only_mounts_refuse_every_change() {
    let store = Arc::new(MemoryStore::new());
    let mounts = vec![Mount {
        path: p("/project"),
        source: MountSource::ReadOnly(vec![
            ("README.md".into(), b"# project".to_vec()),
            ("src/lib.rs".into(), b"pub fn f() {}".to_vec()),
        ]),
    }];
    let fs = open_with(&store, mounts.clone()).unwrap();
    let mem = fs.mem();
    assert_eq!(
        mem.read(&p("/project/src/lib.rs")).unwrap(),
        b"pub fn f() {}"
    );
    let erofs = |r: Result<(), VfsError>| assert_eq!(r.unwrap_err().kind(), ErrorKind::ReadOnly);
    erofs(mem.write(&p("/project/README.md"), b"x"));
    erofs(mem.write(&p("/project/new"), b"x"));
    erofs(mem.append(&p("/project/README.md"), b"x"));
    erofs(mem.create_dir(&p("/project/d")));
    erofs(mem.remove_file(&p("/project/README.md")));
    erofs(mem.rename(&p("/project/README.md"), &p("/project/R")));
    erofs(mem.set_mode(&p("/project/README.md"), 0o777));
    erofs(mem.symlink("x", &p("/project/l")));
    assert_eq!(
        mem.remove_all(&p("/project")).unwrap_err().kind(),
        ErrorKind::Busy
    );
    // Copying out is fine.
    mem.copy(&p("/project/README.md"), &p("/readme-copy"))
        .unwrap();
    block_on(fs.flush()).unwrap();
    let fs = open_with(&store, mounts).unwrap();
    assert_eq!(read(&fs, "/readme-copy"), b"# project");
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
}

#[test]
fn a_refused_commit_changes_nothing_stored_and_keeps_the_changes() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().write(&p("/a"), b"one").unwrap();
    block_on(fs.flush()).unwrap();
    fs.mem().write(&p("/a"), b"two").unwrap();
    fs.mem().write(&p("/b"), b"new").unwrap();
    store.fail_next_commit(
        VfsError::new(ErrorKind::QuotaExceeded, "/").with_detail("QuotaExceededError"),
    );
    let err = block_on(fs.flush()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::QuotaExceeded);
    assert_eq!(
        fs.mem().read(&p("/a")).unwrap(),
        b"two",
        "memory keeps the change"
    );
    let reopened = open(&store);
    assert_eq!(
        read(&reopened, "/a"),
        b"one",
        "storage keeps the last good flush"
    );
    assert!(!reopened.mem().exists(&p("/b")));
    block_on(fs.flush()).unwrap();
    let reopened = open(&store);
    assert_eq!(read(&reopened, "/a"), b"two");
    assert_eq!(read(&reopened, "/b"), b"new");
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
}

#[test]
fn an_unknown_format_version_is_refused_and_left_alone() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().write(&p("/a"), b"one").unwrap();
    block_on(fs.flush()).unwrap();
    let mut payload = 99u32.to_le_bytes().to_vec();
    payload.extend_from_slice(&[1, 2]);
    store.set_superblock(seal(&payload));
    let commits = store.commit_count();
    let err = open_with(&store, tmp_mount()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("format version 99"), "{err}");
    assert_eq!(store.commit_count(), commits, "nothing written");
    let report = block_on(fsck(store.as_ref())).unwrap();
    assert!(
        report.problems[0].contains("format version 99"),
        "{:?}",
        report.problems
    );
    // The current version opens again once restored.
    store.set_superblock(encode_superblock(&Superblock {
        next_ino: 100,
        next_blob: 100,
    }));
    assert_eq!(read(&open(&store), "/a"), b"one");
}

#[test]
fn corrupt_records_are_reported_not_returned() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    // Two flushes: two packs, so damage to one leaves the other readable.
    fs.mem().write(&p("/a"), b"precious").unwrap();
    block_on(fs.flush()).unwrap();
    fs.mem().write(&p("/b"), b"other").unwrap();
    block_on(fs.flush()).unwrap();
    let a = fs.mem().stat(&p("/a")).unwrap().ino;
    let b = fs.mem().stat(&p("/b")).unwrap().ino;

    // A flipped bit in a file's contents: the read fails, fsck names it.
    assert!(store.tamper_chunk(1, 0, |record| record[6] ^= 1));
    let fs = open(&store);
    block_on(fs.load_for_read(&p("/b"))).unwrap();
    let err = block_on(fs.load_for_read(&p("/a"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.to_string().contains("checksum"), "{err}");
    let report = block_on(fsck(store.as_ref())).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        report.problems[0].contains(&format!("inode {a}")),
        "{:?}",
        report.problems
    );
    assert!(store.tamper_chunk(1, 0, |record| record[6] ^= 1));

    // A truncated inode record: opening fails with a clear error.
    assert!(store.tamper_inode(b, |record| record.truncate(3)));
    let err = open_with(&store, tmp_mount()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.to_string().contains(&format!("inode {b}")), "{err}");
    let report = block_on(fsck(store.as_ref())).unwrap();
    assert!(!report.is_clean());
}

#[test]
fn snapshots_restore_exactly_and_share_contents() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().create_dir(&p("/src")).unwrap();
    fs.mem().write(&p("/src/a"), b"version 1").unwrap();
    let first = block_on(fs.snapshot("before edit")).unwrap();
    let chunks = store.chunk_count();
    assert_eq!(chunks, 1, "a snapshot copies no contents");
    fs.mem().write(&p("/src/a"), b"version 2").unwrap();
    fs.mem().write(&p("/src/b"), b"added").unwrap();
    block_on(fs.flush()).unwrap();
    assert_eq!(
        store.chunk_count(),
        2,
        "the snapshot keeps version 1's pack"
    );
    block_on(fs.restore(first.id)).unwrap();
    assert_eq!(read(&fs, "/src/a"), b"version 1");
    assert!(!fs.mem().exists(&p("/src/b")));
    assert!(fs.mem().exists(&p("/tmp")), "mounts come back");
    let reopened = open(&store);
    assert_eq!(read(&reopened, "/src/a"), b"version 1");
    assert_eq!(reopened.snapshots().len(), 1);
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
    block_on(fs.delete_snapshot(first.id)).unwrap();
    assert_eq!(store.chunk_count(), 1, "only the live contents remain");
    assert_eq!(
        block_on(fs.restore(first.id)).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
}

#[test]
fn fork_copies_into_an_independent_store() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().write(&p("/a"), b"original").unwrap();
    let snap = block_on(fs.snapshot("s")).unwrap();
    fs.mem().write(&p("/a"), b"later").unwrap();
    let target = Arc::new(MemoryStore::new());
    block_on(fs.fork_into(Some(snap.id), target.as_ref())).unwrap();
    let forked = open(&target);
    assert_eq!(read(&forked, "/a"), b"original");
    forked.mem().write(&p("/a"), b"fork's own").unwrap();
    block_on(forked.flush()).unwrap();
    assert_eq!(read(&open(&store), "/a"), b"later");
    assert!(block_on(fsck(target.as_ref())).unwrap().is_clean());
    let err = block_on(fs.fork_into(None, target.as_ref())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AlreadyExists);
}

#[test]
fn an_unlinked_open_file_keeps_its_data_until_closed() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    let mem = fs.mem();
    mem.write(&p("/log"), b"line 1\n").unwrap();
    let handle = mem.open(&p("/log")).unwrap();
    mem.remove_file(&p("/log")).unwrap();
    assert!(!mem.exists(&p("/log")));
    mem.write_handle(&handle, 7, b"line 2\n").unwrap();
    assert_eq!(
        mem.read_handle(&handle, 0, 100).unwrap(),
        b"line 1\nline 2\n"
    );
    assert_eq!(mem.handle_metadata(&handle).links, 0);
    assert_eq!(mem.usage().bytes, 14, "still counted while open");
    block_on(fs.flush()).unwrap();
    mem.close(handle);
    assert_eq!(mem.usage().bytes, 0);
    assert_eq!(mem.usage().files, 0);
    block_on(fs.flush()).unwrap();
    assert!(block_on(fsck(store.as_ref())).unwrap().is_clean());
    assert_eq!(store.chunk_count(), 0);
    assert!(
        open(&store)
            .mem()
            .read_dir(&VfsPath::root())
            .unwrap()
            .iter()
            .all(|e| e.name == "tmp")
    );
    assert_eq!(
        mem.open(&p("/tmp")).unwrap_err().kind(),
        ErrorKind::IsADirectory
    );
}

#[test]
fn memory_sandboxes_explain_that_snapshots_need_storage() {
    let fs = SandboxFs::in_memory(
        Arc::new(ManualClock::default()),
        Quota::UNLIMITED,
        tmp_mount(),
    )
    .unwrap();
    let err = block_on(fs.snapshot("x")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("memory only"), "{err}");
    assert_eq!(fs.mem().stat(&p("/tmp")).unwrap().kind, FileKind::Directory);
    assert_eq!(block_on(fs.flush()).unwrap().records, 0);
    let _: Option<&Arc<dyn Store>> = fs.store();
}

#[test]
fn a_missing_chunk_is_reported_wherever_it_was() {
    for missing in [0, 2] {
        let store = Arc::new(MemoryStore::new());
        let fs = open(&store);
        let data = vec![7u8; 600_000]; // three chunks of 256 KiB
        fs.mem().write(&p("/big"), &data).unwrap();
        block_on(fs.flush()).unwrap();
        assert!(store.remove_chunk(1, missing));
        let fs = open(&store);
        let err = block_on(fs.load_for_read(&p("/big"))).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Corrupt, "chunk {missing}: {err}");
        let report = block_on(fsck(store.as_ref())).unwrap();
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    }
}

/// A sealed record of a file of `size` bytes in blob 1.
fn file_record_of_size(size: u64) -> Vec<u8> {
    use sandtab_vfs::storage::records::{InodeRecord, KindRecord, encode_inode};
    encode_inode(&InodeRecord {
        kind: KindRecord::File {
            size,
            blob: 1,
            offset: 0,
        },
        mode: 0o644,
        links: 1,
        modified: 0,
        accessed: 0,
        changed: 0,
        created: 0,
    })
}

#[test]
fn an_impossible_file_size_in_a_record_is_corruption_not_a_crash() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().write(&p("/f"), b"x").unwrap();
    block_on(fs.flush()).unwrap();
    let ino = fs.mem().stat(&p("/f")).unwrap().ino;
    let forged = file_record_of_size(u64::MAX / 2);
    assert!(store.tamper_inode(ino, |record| *record = forged));
    let err = open_with(&store, tmp_mount()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.to_string().contains("largest possible"), "{err}");

    // A size within the limit that the blob does not hold: the read says so.
    let forged = file_record_of_size(900 << 20);
    assert!(store.tamper_inode(ino, |record| *record = forged));
    let fs = open(&store);
    let err = block_on(fs.load_for_read(&p("/f"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
    let err = block_on(fs.read_into(&p("/f"), &mut Collect::default())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
}

/// A store that runs a hook inside its next commit, before the batch lands: what the
/// shell could do to a file while a flush of it is in flight.
struct HookedStore {
    inner: Arc<MemoryStore>,
    hook: std::sync::Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Store for HookedStore {
    fn load(&self) -> sandtab_vfs::storage::StoreFuture<'_, sandtab_vfs::storage::StoredState> {
        self.inner.load()
    }
    fn read_blob(&self, blob: u64) -> sandtab_vfs::storage::StoreFuture<'_, Vec<(u32, Vec<u8>)>> {
        self.inner.read_blob(blob)
    }
    fn blob_ids(&self) -> sandtab_vfs::storage::StoreFuture<'_, Vec<u64>> {
        self.inner.blob_ids()
    }
    fn read_snapshot(&self, id: u64) -> sandtab_vfs::storage::StoreFuture<'_, Option<Vec<u8>>> {
        self.inner.read_snapshot(id)
    }
    fn commit(
        &self,
        batch: sandtab_vfs::storage::Batch,
    ) -> sandtab_vfs::storage::StoreFuture<'_, ()> {
        if let Some(hook) = self.hook.lock().unwrap().take() {
            hook();
        }
        self.inner.commit(batch)
    }
    fn describe(&self) -> String {
        "hooked".into()
    }
}

#[test]
fn a_write_during_a_flush_never_changes_what_that_flush_stores() {
    let inner = Arc::new(MemoryStore::new());
    let store = Arc::new(HookedStore {
        inner: inner.clone(),
        hook: std::sync::Mutex::new(None),
    });
    let clock = Arc::new(ManualClock::new(Timestamp(1_000_000_000)));
    let fs = block_on(SandboxFs::open(
        store.clone(),
        clock,
        Quota::UNLIMITED,
        vec![],
    ))
    .unwrap();
    let big: Vec<u8> = (0..600_000u32).map(|i| (i % 199) as u8).collect();
    let small = b"small and packed".to_vec();
    fs.mem().write(&p("/big"), &big).unwrap();
    fs.mem().write(&p("/small"), &small).unwrap();
    // While the flush is in flight: change both files in place, and replace one.
    let mem = fs.mem().clone();
    *store.hook.lock().unwrap() = Some(Box::new(move || {
        mem.write_at(&p("/big"), 10, b"CHANGED").unwrap();
        mem.append(&p("/big"), b"tail").unwrap();
        mem.write_at(&p("/small"), 0, b"SMALL").unwrap();
    }));
    block_on(fs.flush()).unwrap();
    let stored = open(&inner);
    assert!(
        read(&stored, "/big") == big,
        "the flush stored the contents it started with"
    );
    assert_eq!(read(&stored, "/small"), small);
    // The changes are journaled for the next flush.
    block_on(fs.flush()).unwrap();
    let stored = open(&inner);
    let mut want = big.clone();
    want[10..17].copy_from_slice(b"CHANGED");
    want.extend_from_slice(b"tail");
    assert!(
        read(&stored, "/big") == want,
        "the next flush stored the changes"
    );
    assert_eq!(read(&stored, "/small"), b"SMALL and packed");
}

#[test]
fn refused_flushes_then_a_deletion_leave_no_orphan_contents() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().write(&p("/keep"), b"precious").unwrap();
    block_on(fs.flush()).unwrap();
    let big = vec![7u8; 300_000];
    fs.mem().write(&p("/big"), &big).unwrap();
    store.fail_next_commit(VfsError::new(ErrorKind::QuotaExceeded, "/"));
    assert!(block_on(fs.flush()).is_err());
    fs.mem().write(&p("/later"), b"later").unwrap();
    store.fail_next_commit(VfsError::new(ErrorKind::QuotaExceeded, "/"));
    assert!(block_on(fs.flush()).is_err());
    fs.mem().remove_file(&p("/big")).unwrap();
    block_on(fs.flush()).unwrap();
    let report = block_on(fsck(store.as_ref())).unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    let fs = open(&store);
    assert_eq!(read(&fs, "/keep"), b"precious");
    assert_eq!(read(&fs, "/later"), b"later");
}

/// A scratch mount's files count against the quota: a sandbox too small for all of
/// them opens with those that fit, in order, and without the rest (never a partial
/// set after a missing file), and a roomy one gets them all.
#[test]
fn a_scratch_mount_past_the_quota_opens_with_the_files_that_fit() {
    let scratch = || Mount {
        path: p("/opt/support"),
        source: MountSource::Scratch(vec![
            ("first.py".into(), vec![b'a'; 60]),
            ("second.py".into(), vec![b'b'; 60]),
            ("last.py".into(), vec![b'c'; 10]),
        ]),
    };
    let quota = Quota {
        max_bytes: 100,
        ..Quota::UNLIMITED
    };
    let fs =
        SandboxFs::in_memory(Arc::new(ManualClock::default()), quota, vec![scratch()]).unwrap();
    let mem = fs.mem();
    assert_eq!(
        mem.read(&p("/opt/support/first.py")).unwrap(),
        vec![b'a'; 60]
    );
    for left_out in ["/opt/support/second.py", "/opt/support/last.py"] {
        let err = mem.read(&p(left_out)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound, "{left_out}");
    }
    // What is left of the quota is the sandbox's own.
    mem.write(&p("/home.txt"), &[0; 40]).unwrap();

    let fs = SandboxFs::in_memory(
        Arc::new(ManualClock::default()),
        Quota::UNLIMITED,
        vec![scratch()],
    )
    .unwrap();
    assert_eq!(
        fs.mem().read(&p("/opt/support/last.py")).unwrap(),
        vec![b'c'; 10]
    );
}
