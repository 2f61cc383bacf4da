//! Unit tests of `MemFs`.

use super::*;
use crate::clock::ManualClock;

/// The usage of a tree that holds only `/`.
const ROOT_ONLY: Usage = Usage {
    bytes: 0,
    files: 0,
    dirs: 1,
};

fn fs() -> (MemFs, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(Timestamp(1_000_000_000)));
    (MemFs::new(clock.clone()), clock)
}

fn p(path: &str) -> VfsPath {
    VfsPath::parse(path).unwrap()
}

fn kind<T: std::fmt::Debug>(result: VfsResult<T>) -> ErrorKind {
    result.unwrap_err().kind()
}

#[test]
fn write_then_read_round_trips_bytes() {
    let (fs, _) = fs();
    fs.write(&p("/a.bin"), &[0, 159, 146, 150, 255]).unwrap();
    assert_eq!(fs.read(&p("/a.bin")).unwrap(), vec![0, 159, 146, 150, 255]);
    fs.append(&p("/a.bin"), b"!").unwrap();
    assert_eq!(fs.stat(&p("/a.bin")).unwrap().size, 6);
}

#[test]
fn writing_needs_an_existing_parent_directory() {
    let (fs, _) = fs();
    assert_eq!(
        kind(fs.write(&p("/no/such/file"), b"x")),
        ErrorKind::NotFound
    );
    fs.write(&p("/file"), b"x").unwrap();
    assert_eq!(
        kind(fs.write(&p("/file/child"), b"x")),
        ErrorKind::NotADirectory
    );
    fs.create_dir(&p("/dir")).unwrap();
    assert_eq!(kind(fs.write(&p("/dir"), b"x")), ErrorKind::IsADirectory);
    assert_eq!(kind(fs.read(&p("/dir"))), ErrorKind::IsADirectory);
}

#[test]
fn directories_list_in_name_order_with_metadata() {
    let (fs, _) = fs();
    fs.create_dir_all(&p("/w/sub")).unwrap();
    fs.write(&p("/w/b.txt"), b"bb").unwrap();
    fs.write(&p("/w/a.txt"), b"a").unwrap();
    let listing = fs.read_dir(&p("/w")).unwrap();
    let names: Vec<_> = listing.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a.txt", "b.txt", "sub"]);
    assert_eq!(listing[1].metadata.size, 2);
    assert_eq!(listing[2].metadata.kind, FileKind::Directory);
    assert_eq!(kind(fs.read_dir(&p("/w/a.txt"))), ErrorKind::NotADirectory);
}

#[test]
fn create_dir_reports_existing_and_missing_parents() {
    let (fs, _) = fs();
    fs.create_dir(&p("/d")).unwrap();
    assert_eq!(kind(fs.create_dir(&p("/d"))), ErrorKind::AlreadyExists);
    assert_eq!(kind(fs.create_dir(&p("/x/y"))), ErrorKind::NotFound);
    fs.create_dir_all(&p("/d/e/f")).unwrap();
    fs.create_dir_all(&p("/d/e/f")).unwrap();
    fs.write(&p("/d/file"), b"").unwrap();
    assert_eq!(
        kind(fs.create_dir_all(&p("/d/file/g"))),
        ErrorKind::NotADirectory
    );
}

#[test]
fn removal_distinguishes_files_empty_and_full_directories() {
    let (fs, _) = fs();
    fs.create_dir_all(&p("/d/e")).unwrap();
    fs.write(&p("/d/e/f"), b"123").unwrap();
    assert_eq!(kind(fs.remove_dir(&p("/d"))), ErrorKind::DirectoryNotEmpty);
    assert_eq!(kind(fs.remove_file(&p("/d"))), ErrorKind::IsADirectory);
    assert_eq!(kind(fs.remove_dir(&p("/d/e/f"))), ErrorKind::NotADirectory);
    assert_eq!(kind(fs.remove_all(&p("/"))), ErrorKind::Busy);
    fs.remove_all(&p("/d")).unwrap();
    assert!(!fs.exists(&p("/d/e/f")));
    assert_eq!(fs.usage(), ROOT_ONLY);
}

#[test]
fn rename_replaces_files_atomically_and_refuses_cycles() {
    let (fs, _) = fs();
    fs.write(&p("/old"), b"new contents").unwrap();
    fs.write(&p("/target"), b"stale").unwrap();
    let ino = fs.stat(&p("/old")).unwrap().ino;
    fs.rename(&p("/old"), &p("/target")).unwrap();
    assert!(!fs.exists(&p("/old")));
    assert_eq!(fs.read(&p("/target")).unwrap(), b"new contents");
    assert_eq!(
        fs.stat(&p("/target")).unwrap().ino,
        ino,
        "inode numbers are stable"
    );
    assert_eq!(fs.usage().bytes, 12);

    fs.create_dir_all(&p("/a/b")).unwrap();
    assert_eq!(
        kind(fs.rename(&p("/a"), &p("/a/b/c"))),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(fs.rename(&p("/target"), &p("/a"))),
        ErrorKind::IsADirectory
    );
    assert_eq!(
        kind(fs.rename(&p("/a/b"), &p("/target"))),
        ErrorKind::NotADirectory
    );
    fs.write(&p("/a/b/f"), b"").unwrap();
    fs.create_dir(&p("/empty")).unwrap();
    fs.rename(&p("/a/b"), &p("/empty")).unwrap();
    assert!(fs.exists(&p("/empty/f")));
    assert_eq!(
        kind(fs.rename(&p("/missing"), &p("/x"))),
        ErrorKind::NotFound
    );
    // A failed rename changed nothing.
    assert_eq!(fs.read(&p("/target")).unwrap(), b"new contents");
}

#[test]
fn symlinks_resolve_inside_the_sandbox_and_loops_are_eloop() {
    let (fs, _) = fs();
    fs.create_dir_all(&p("/data/real")).unwrap();
    fs.write(&p("/data/real/f"), b"hi").unwrap();
    fs.symlink("real", &p("/data/link")).unwrap();
    assert_eq!(fs.read(&p("/data/link/f")).unwrap(), b"hi");
    assert_eq!(fs.lstat(&p("/data/link")).unwrap().kind, FileKind::Symlink);
    assert_eq!(fs.stat(&p("/data/link")).unwrap().kind, FileKind::Directory);
    assert_eq!(fs.read_link(&p("/data/link")).unwrap(), "real");

    // `..` in a target cannot climb above `/`.
    fs.symlink("../../../../data/real/f", &p("/data/escape"))
        .unwrap();
    assert_eq!(fs.read(&p("/data/escape")).unwrap(), b"hi");

    fs.symlink("/loop2", &p("/loop1")).unwrap();
    fs.symlink("/loop1", &p("/loop2")).unwrap();
    assert_eq!(kind(fs.read(&p("/loop1"))), ErrorKind::TooManyLinks);
    // Removing a symlink removes the link, not its target.
    fs.remove_file(&p("/data/link")).unwrap();
    assert!(fs.exists(&p("/data/real/f")));
}

#[test]
fn writing_through_a_dangling_symlink_creates_its_target() {
    let (fs, _) = fs();
    fs.symlink("/made", &p("/link")).unwrap();
    fs.write(&p("/link"), b"x").unwrap();
    assert_eq!(fs.read(&p("/made")).unwrap(), b"x");
}

#[test]
fn times_come_from_the_injected_clock() {
    let (fs, clock) = fs();
    fs.write(&p("/f"), b"1").unwrap();
    let created = fs.stat(&p("/f")).unwrap().created;
    clock.advance(5_000_000_000);
    fs.append(&p("/f"), b"2").unwrap();
    let meta = fs.stat(&p("/f")).unwrap();
    assert_eq!(meta.created, created);
    assert_eq!(meta.modified.as_secs(), created.as_secs() + 5);
    assert_eq!(meta.changed, meta.modified);
    assert_eq!(meta.accessed, created, "writing is not reading");

    clock.advance(1_000_000_000);
    fs.read(&p("/f")).unwrap();
    let read = fs.stat(&p("/f")).unwrap();
    assert_eq!(read.accessed.as_secs(), created.as_secs() + 6);
    assert_eq!(read.modified, meta.modified, "reading changes no mtime");

    clock.advance(1_000_000_000);
    fs.set_mode(&p("/f"), 0o600).unwrap();
    let chmodded = fs.stat(&p("/f")).unwrap();
    assert_eq!(chmodded.changed.as_secs(), created.as_secs() + 7);
    assert_eq!(
        chmodded.modified, meta.modified,
        "chmod changes ctime, not mtime"
    );

    fs.set_times(&p("/f"), Some(Timestamp(7)), Some(Timestamp(9)))
        .unwrap();
    let set = fs.stat(&p("/f")).unwrap();
    assert_eq!((set.accessed, set.modified), (Timestamp(7), Timestamp(9)));

    // Removing an entry changes its directory.
    clock.advance(1_000_000_000);
    let dir_before = fs.stat(&p("/")).unwrap().modified;
    fs.remove_file(&p("/f")).unwrap();
    assert!(fs.stat(&p("/")).unwrap().modified > dir_before);
}

#[test]
fn copy_keeps_mode_and_set_mode_masks() {
    let (fs, _) = fs();
    fs.write(&p("/run.sh"), b"echo").unwrap();
    fs.set_mode(&p("/run.sh"), 0o100755).unwrap();
    fs.copy(&p("/run.sh"), &p("/copy.sh")).unwrap();
    assert_eq!(fs.stat(&p("/copy.sh")).unwrap().mode, 0o755);
    assert_eq!(fs.read(&p("/copy.sh")).unwrap(), b"echo");
}

fn quota_fs(quota: Quota) -> MemFs {
    MemFs::with_quota(Arc::new(ManualClock::default()), quota)
}

#[test]
fn offset_writes_fill_gaps_with_zeros_and_reads_stop_at_the_end() {
    let (fs, _) = fs();
    fs.write_at(&p("/f"), 3, b"abc").unwrap();
    assert_eq!(fs.read(&p("/f")).unwrap(), b"\0\0\0abc");
    fs.write_at(&p("/f"), 1, b"XY").unwrap();
    assert_eq!(fs.read(&p("/f")).unwrap(), b"\0XYabc");
    assert_eq!(fs.read_at(&p("/f"), 4, 100).unwrap(), b"bc");
    assert_eq!(fs.read_at(&p("/f"), 99, 4).unwrap(), b"");
    fs.truncate(&p("/f"), 2).unwrap();
    assert_eq!(fs.read(&p("/f")).unwrap(), b"\0X");
    fs.truncate(&p("/f"), 4).unwrap();
    assert_eq!(fs.read(&p("/f")).unwrap(), b"\0X\0\0");
    assert_eq!(fs.usage().bytes, 4);
    assert_eq!(kind(fs.truncate(&p("/missing"), 1)), ErrorKind::NotFound);
    assert_eq!(kind(fs.truncate(&p("/"), 1)), ErrorKind::IsADirectory);
}

#[test]
fn absurd_sizes_are_efbig_not_an_abort() {
    let (fs, _) = fs();
    assert_eq!(
        kind(fs.write_at(&p("/f"), u64::MAX - 1, b"xy")),
        ErrorKind::FileTooLarge
    );
    assert!(!fs.exists(&p("/f")), "the refused write created nothing");
    fs.write(&p("/g"), b"").unwrap();
    assert_eq!(
        kind(fs.truncate(&p("/g"), MAX_FILE_SIZE + 1)),
        ErrorKind::FileTooLarge
    );
}

#[test]
fn byte_quota_refuses_the_write_and_changes_nothing() {
    let fs = quota_fs(Quota {
        max_bytes: 10,
        ..Quota::UNLIMITED
    });
    fs.write(&p("/a"), b"123456").unwrap();
    assert_eq!(kind(fs.write(&p("/b"), b"12345")), ErrorKind::QuotaExceeded);
    assert!(
        !fs.exists(&p("/b")),
        "a refused new file is not left behind empty"
    );
    assert_eq!(
        kind(fs.append(&p("/a"), b"12345")),
        ErrorKind::QuotaExceeded
    );
    assert_eq!(fs.read(&p("/a")).unwrap(), b"123456");
    // Replacing with something smaller is always allowed, and frees room.
    fs.write(&p("/a"), b"1").unwrap();
    fs.write(&p("/b"), b"123456789").unwrap();
    assert_eq!(fs.usage().bytes, 10);
}

#[test]
fn an_owned_write_replaces_under_the_same_quotas() {
    let fs = quota_fs(Quota {
        max_bytes: 10,
        ..Quota::UNLIMITED
    });
    fs.write(&p("/a"), b"123456").unwrap();
    fs.write_owned(&p("/a"), b"abc".to_vec()).unwrap();
    assert_eq!(fs.read(&p("/a")).unwrap(), b"abc");
    assert_eq!(
        kind(fs.write_owned(&p("/b"), vec![7; 8])),
        ErrorKind::QuotaExceeded
    );
    assert!(
        !fs.exists(&p("/b")),
        "a refused new file is not left behind"
    );
    fs.write_owned(&p("/b"), vec![7; 7]).unwrap();
    assert_eq!(fs.usage().bytes, 10);
}

#[test]
fn file_size_and_entry_quotas() {
    let fs = quota_fs(Quota {
        max_file_size: 4,
        max_entries: 3,
        ..Quota::UNLIMITED
    });
    assert_eq!(
        kind(fs.write(&p("/big"), b"12345")),
        ErrorKind::FileTooLarge
    );
    fs.write(&p("/a"), b"1234").unwrap();
    fs.create_dir(&p("/d")).unwrap(); // root + a + d = 3 entries
    assert_eq!(kind(fs.write(&p("/b"), b"")), ErrorKind::QuotaExceeded);
    assert_eq!(kind(fs.create_dir(&p("/e"))), ErrorKind::QuotaExceeded);
    assert_eq!(kind(fs.symlink("a", &p("/l"))), ErrorKind::QuotaExceeded);
    // Overwriting an existing file needs no new entry.
    fs.write(&p("/a"), b"4321").unwrap();
    fs.remove_file(&p("/a")).unwrap();
    fs.write(&p("/b"), b"").unwrap();
}

#[test]
fn hard_links_share_one_inode_until_the_last_name_goes() {
    let (fs, _) = fs();
    fs.create_dir(&p("/d")).unwrap();
    fs.write(&p("/d/a"), b"shared").unwrap();
    fs.hard_link(&p("/d/a"), &p("/b")).unwrap();
    let (a, b) = (fs.stat(&p("/d/a")).unwrap(), fs.stat(&p("/b")).unwrap());
    assert_eq!(a.ino, b.ino);
    assert_eq!(b.links, 2);
    fs.append(&p("/b"), b"!").unwrap();
    assert_eq!(fs.read(&p("/d/a")).unwrap(), b"shared!");
    assert_eq!(
        fs.usage(),
        Usage {
            bytes: 7,
            files: 1,
            dirs: 2
        },
        "one inode, counted once"
    );

    // Removing the directory that held one name keeps the file alive under the other.
    fs.remove_all(&p("/d")).unwrap();
    assert_eq!(fs.read(&p("/b")).unwrap(), b"shared!");
    assert_eq!(fs.stat(&p("/b")).unwrap().links, 1);
    fs.remove_file(&p("/b")).unwrap();
    assert_eq!(fs.usage(), ROOT_ONLY);
}

#[test]
fn hard_link_errors() {
    let (fs, _) = fs();
    fs.create_dir(&p("/d")).unwrap();
    fs.write(&p("/f"), b"").unwrap();
    assert_eq!(
        kind(fs.hard_link(&p("/d"), &p("/d2"))),
        ErrorKind::NotPermitted
    );
    assert_eq!(
        kind(fs.hard_link(&p("/f"), &p("/d"))),
        ErrorKind::AlreadyExists
    );
    assert_eq!(
        kind(fs.hard_link(&p("/nope"), &p("/x"))),
        ErrorKind::NotFound
    );
    assert_eq!(
        kind(fs.hard_link(&p("/f"), &p("/no/x"))),
        ErrorKind::NotFound
    );
    // Renaming one name of a file onto another name of the same file does nothing.
    fs.hard_link(&p("/f"), &p("/g")).unwrap();
    fs.rename(&p("/f"), &p("/g")).unwrap();
    assert!(fs.exists(&p("/f")) && fs.exists(&p("/g")));
}

#[test]
fn a_command_s_write_budget_refuses_what_does_not_fit_and_changes_nothing() {
    let (fs, _) = fs();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    fs.write_budget().start(10, stop.clone());
    fs.write(&p("/a"), b"12345678").unwrap();
    let err = fs.write(&p("/b"), b"123").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FileTooLarge);
    assert!(!fs.exists(&p("/b")), "a refused write creates no file");
    assert!(stop.load(std::sync::atomic::Ordering::SeqCst));
    // Through an open handle too.
    let handle = fs.open(&p("/a")).unwrap();
    assert!(fs.append_handle(&handle, b"xyz").is_err());
    fs.close(handle);
    assert_eq!(fs.read(&p("/a")).unwrap(), b"12345678");
    assert!(fs.write_budget().finish());
    // Outside a command, nothing is bounded.
    fs.write(&p("/c"), &[0; 100]).unwrap();
}

#[test]
fn the_revision_moves_with_every_change_and_not_with_reads() {
    let (fs, _) = fs();
    let mut last = fs.revision();
    let mut changed = |fs: &MemFs, what: &str| {
        let now = fs.revision();
        assert!(now > last, "{what} left the revision at {now}");
        last = now;
    };
    fs.create_dir(&p("/d")).unwrap();
    changed(&fs, "mkdir");
    fs.write(&p("/d/f"), b"one").unwrap();
    changed(&fs, "create");
    fs.write_at(&p("/d/f"), 1, b"x").unwrap();
    changed(&fs, "write at");
    fs.set_mode(&p("/d/f"), 0o600).unwrap();
    changed(&fs, "chmod");
    fs.rename(&p("/d/f"), &p("/d/g")).unwrap();
    changed(&fs, "rename");
    let before = fs.revision();
    fs.read(&p("/d/g")).unwrap();
    fs.read_dir(&p("/d")).unwrap();
    fs.stat(&p("/d/g")).unwrap();
    assert_eq!(fs.revision(), before, "reads changed the revision");
    fs.remove_all(&p("/d")).unwrap();
    changed(&fs, "rm -r");
}
