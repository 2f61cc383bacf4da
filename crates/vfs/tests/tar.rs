//! A sandbox's files as a tar archive: export and import round trips, GNU tar's format,
//! damaged archives, names that would climb out, and exports that load only what they
//! archive.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use sandtab_vfs::storage::MemoryStore;
use sandtab_vfs::{
    ErrorKind, ManualClock, Mount, MountSource, Quota, SandboxFs, Timestamp, VfsPath,
};
use std::sync::Arc;

fn p(path: &str) -> VfsPath {
    VfsPath::parse(path).unwrap()
}

/// A sandbox on `store`, with `/tmp` in memory.
fn open(store: &Arc<MemoryStore>) -> SandboxFs {
    let clock = Arc::new(ManualClock::new(Timestamp(1_000_000_000)));
    let mounts = vec![Mount {
        path: p("/tmp"),
        source: MountSource::Memory,
    }];
    block_on(SandboxFs::open(
        store.clone(),
        clock,
        Quota::UNLIMITED,
        mounts,
    ))
    .unwrap()
}

#[test]
fn tar_export_and_import_round_trip() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    let mem = fs.mem();
    mem.create_dir_all(&p("/w/deep/er")).unwrap();
    let long = "n".repeat(150);
    mem.write(&p(&format!("/w/deep/er/{long}")), b"long name")
        .unwrap();
    mem.write(&p("/w/run.sh"), b"#!/bin/sh\necho hi\n").unwrap();
    mem.set_mode(&p("/w/run.sh"), 0o755).unwrap();
    mem.symlink("run.sh", &p("/w/link")).unwrap();
    mem.write(&p("/tmp/skip"), b"mounts are not exported")
        .unwrap();
    block_on(fs.flush()).unwrap();
    let fs = open(&store);
    let archive = block_on(fs.export_tar(&VfsPath::root())).unwrap();

    let other =
        SandboxFs::in_memory(Arc::new(ManualClock::default()), Quota::UNLIMITED, vec![]).unwrap();
    let stats = block_on(other.import_tar(&p("/restored"), &archive)).unwrap();
    assert_eq!(stats.files, 2);
    assert_eq!(stats.symlinks, 1);
    let m = other.mem();
    assert_eq!(
        m.read(&p(&format!("/restored/w/deep/er/{long}"))).unwrap(),
        b"long name"
    );
    assert_eq!(m.stat(&p("/restored/w/run.sh")).unwrap().mode, 0o755);
    assert_eq!(m.read_link(&p("/restored/w/link")).unwrap(), "run.sh");
    assert!(!m.exists(&p("/restored/tmp/skip")));
}

#[test]
fn export_is_gnu_tar_and_a_damaged_archive_imports_nothing() {
    use sandtab_vfs::tar_format;
    let fs =
        SandboxFs::in_memory(Arc::new(ManualClock::default()), Quota::UNLIMITED, vec![]).unwrap();
    fs.mem().create_dir_all(&p("/w/d")).unwrap();
    fs.mem().write(&p("/w/d/f"), &[b'x'; 700]).unwrap();
    let archive = block_on(fs.export_tar(&p("/w"))).unwrap();
    // As GNU tar writes it: whole 10240-byte records, read back by the shell's reader.
    assert_eq!(archive.len() % 10_240, 0);
    let contents = tar_format::read(&archive);
    let names: Vec<&str> = contents
        .entries
        .iter()
        .map(|(e, _)| e.name.as_str())
        .collect();
    assert_eq!(names, ["d/", "d/f"]);

    let other =
        SandboxFs::in_memory(Arc::new(ManualClock::default()), Quota::UNLIMITED, vec![]).unwrap();
    // `tar -x` would skip a damaged header and go on; an import takes nothing.
    let mut damaged = archive.clone();
    damaged[512] ^= 0xff; // the second entry's header
    let err = block_on(other.import_tar(&p("/in"), &damaged)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("damaged header"), "{err}");
    assert!(!other.mem().exists(&p("/in")));
    let err = block_on(other.import_tar(&p("/in"), &archive[..1000])).unwrap_err();
    assert!(err.to_string().contains("ends inside an entry"), "{err}");
    assert!(!other.mem().exists(&p("/in")));
    // Nothing at all is an empty archive.
    let stats = block_on(other.import_tar(&p("/empty"), b"")).unwrap();
    assert_eq!(stats.files + stats.directories, 0);
}

#[test]
fn tar_import_cannot_escape_its_directory_and_rejects_garbage() {
    let mut builder = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(4);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    // `append_data` refuses `..`, so write the name into the header directly.
    header.as_old_mut().name[..16].copy_from_slice(b"../../etc/passwd");
    header.set_cksum();
    builder.append(&header, &b"evil"[..]).unwrap();
    let archive = builder.into_inner().unwrap();
    let fs =
        SandboxFs::in_memory(Arc::new(ManualClock::default()), Quota::UNLIMITED, vec![]).unwrap();
    block_on(fs.import_tar(&p("/in"), &archive)).unwrap();
    assert_eq!(fs.mem().read(&p("/in/etc/passwd")).unwrap(), b"evil");
    assert!(!fs.mem().exists(&p("/etc")));

    let err = block_on(fs.import_tar(
        &p("/in"),
        b"this is not a tar archive at all, just text that goes on for a while",
    ))
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

#[test]
fn exporting_a_directory_loads_only_its_files() {
    let store = Arc::new(MemoryStore::new());
    let fs = open(&store);
    fs.mem().create_dir(&p("/a")).unwrap();
    fs.mem().create_dir(&p("/b")).unwrap();
    fs.mem().write(&p("/a/x"), b"exported").unwrap();
    fs.mem().write(&p("/b/y"), &vec![9u8; 300_000]).unwrap();
    block_on(fs.flush()).unwrap();
    let fs = open(&store);
    let archive = block_on(fs.export_tar(&p("/a"))).unwrap();
    assert!(archive.windows(8).any(|w| w == b"exported"));
    assert_eq!(fs.mem().read(&p("/a/x")).unwrap(), b"exported");
    let err = fs.mem().read(&p("/b/y")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "/b was not read");
}
