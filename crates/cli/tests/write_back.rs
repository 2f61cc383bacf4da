//! The write-back of `--dir HOST::GUEST` under attack: a guest script tries to reach
//! outside HOST (symlinks, names, a symlink on the host), to leave setuid, setgid or
//! sticky bits on the host, and to change a read-only mapping. Each test lays out a
//! scratch directory holding HOST and a sibling `outside`, and checks what reached them.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The exit status when the write-back refused or failed on some entry.
const REFUSED: i32 = 3;

/// A scratch directory with `host` (mapped to `/data`) and an empty sibling `outside`.
struct Scratch {
    root: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("host")).unwrap();
        std::fs::create_dir(root.path().join("outside")).unwrap();
        Self { root }
    }

    fn host(&self) -> PathBuf {
        self.root.path().join("host")
    }

    fn outside(&self) -> PathBuf {
        self.root.path().join("outside")
    }

    fn map(&self, suffix: &str) -> String {
        format!("{}::/data{suffix}", self.host().display())
    }

    fn assert_outside_untouched(&self) {
        let left: Vec<_> = std::fs::read_dir(self.outside())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "written outside HOST: {left:?}");
        let siblings: Vec<_> = std::fs::read_dir(self.root.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(siblings.len(), 2, "beside HOST: {siblings:?}");
    }
}

fn sandtab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sandtab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Every entry below `dir`: kind, mode (none for symlinks), contents or link target.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (char, Option<u32>, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (char, Option<u32>, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            let mode = meta.mode() & 0o7777;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                let target = target.into_os_string().into_encoded_bytes();
                out.insert(relative, ('l', None, target));
            } else if meta.is_dir() {
                out.insert(relative, ('d', Some(mode), Vec::new()));
                walk(root, &path, out);
            } else {
                out.insert(relative, ('f', Some(mode), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn symlinks_leaving_host_are_refused_and_the_rest_is_written_back() {
    let scratch = Scratch::new();
    let host = scratch.host();
    let script = "cd /data
        echo kept > kept
        ln -s /etc/shadow x
        ln -s ../../outside y
        ln -s ../outside/z z
        mkdir sub
        ln -s ../../outside/w sub/w
        ln -s ../kept sub/up
        ln -s sub/up/../kept sneaky
        ln -s sub/../kept dotted
        mkdir -p s/d
        ln -s .. s/d/parent
        ln -s s/d/parent/../../outside chained
        ln -s kept ok
        echo after > after";
    let out = sandtab(&["sh", "--dir", &scratch.map(""), "-c", script]);
    let stderr = text(&out.stderr);
    scratch.assert_outside_untouched();
    for refused in ["x", "y", "z", "sub/w", "chained", "sneaky", "dotted"] {
        assert!(!exists(&host.join(refused)), "{refused} was written back");
    }
    assert_eq!(out.status.code(), Some(REFUSED), "{stderr}");
    for refused in ["x", "y", "z", "sub/w", "chained", "sneaky", "dotted"] {
        assert!(
            stderr.contains(&format!("refused {}", host.join(refused).display())),
            "no refusal for {refused}: {stderr}"
        );
    }
    // Symlinks that stay inside HOST, and everything else, are written back.
    assert_eq!(
        std::fs::read_link(host.join("ok")).unwrap(),
        Path::new("kept")
    );
    assert_eq!(
        std::fs::read_link(host.join("sub/up")).unwrap(),
        Path::new("../kept")
    );
    assert_eq!(
        std::fs::read_link(host.join("s/d/parent")).unwrap(),
        Path::new("..")
    );
    assert_eq!(
        std::fs::read_to_string(host.join("kept")).unwrap(),
        "kept\n"
    );
    assert_eq!(
        std::fs::read_to_string(host.join("after")).unwrap(),
        "after\n"
    );
    scratch.assert_outside_untouched();
    assert!(
        !exists(Path::new("/outside")),
        "/outside was made on the host"
    );
}

/// A tar archive with a setuid file, a setgid file and a sticky directory.
fn special_modes_tar() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, mode, kind) in [
        ("t/", 0o1777, tar::EntryType::Directory),
        ("t/suid", 0o4755, tar::EntryType::Regular),
        ("t/sgid", 0o2711, tar::EntryType::Regular),
    ] {
        let mut header = tar::Header::new_ustar();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(if kind == tar::EntryType::Regular {
            3
        } else {
            0
        });
        header.set_path(name).unwrap();
        header.set_cksum();
        let data: &[u8] = if kind == tar::EntryType::Regular {
            b"hi\n"
        } else {
            b""
        };
        builder.append(&header, data).unwrap();
    }
    builder.into_inner().unwrap()
}

#[test]
fn no_setuid_setgid_or_sticky_bit_reaches_the_host() {
    let scratch = Scratch::new();
    let host = scratch.host();
    std::fs::write(host.join("a.tar"), special_modes_tar()).unwrap();
    std::fs::write(host.join("existing"), "old\n").unwrap();
    std::fs::set_permissions(
        host.join("existing"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::create_dir(host.join("olddir")).unwrap();
    std::fs::set_permissions(host.join("olddir"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = "cd /data
        echo f > f; chmod 4755 f
        echo g > g; chmod 2755 g
        mkdir d; chmod 1777 d
        echo changed > existing; chmod 6750 existing
        chmod 3700 olddir
        tar -xf a.tar
        ls -l f g t/suid t/sgid; ls -ld d t olddir";
    let out = sandtab(&["sh", "--dir", &scratch.map(""), "-c", script]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Inside the sandbox the bits were there.
    assert!(stdout.contains("-rwsr-xr-x"), "{stdout}");
    for (path, (kind, mode, _)) in tree(&host) {
        if let Some(mode) = mode {
            assert_eq!(
                mode & !0o777,
                0,
                "{} ({kind}) has mode {mode:o} on the host",
                path.display()
            );
        }
    }
    // The permission bits themselves are kept.
    let mode = |relative: &str| std::fs::metadata(host.join(relative)).unwrap().mode() & 0o7777;
    assert_eq!(mode("f"), 0o755);
    assert_eq!(mode("g"), 0o755);
    assert_eq!(mode("d"), 0o777);
    assert_eq!(mode("existing"), 0o750);
    assert_eq!(mode("olddir"), 0o700);
    assert_eq!(mode("t/suid"), 0o755);
    assert_eq!(mode("t/sgid"), 0o711);
    assert_eq!(mode("t"), 0o777);
    assert_eq!(
        std::fs::read_to_string(host.join("existing")).unwrap(),
        "changed\n"
    );
    scratch.assert_outside_untouched();
}

#[test]
fn names_that_could_steer_outside_host_are_refused() {
    let scratch = Scratch::new();
    let host = scratch.host();
    // `A -> /outside` beside `a/f`: on a case-insensitive host `a/f` would go through `A`.
    let script = r#"cd /data
        ln -s /outside A
        ln -s ../outside B
        mkdir a b; echo f > a/f; echo f > b/f
        echo w > 'back\slash'
        mkdir 'x\..\..'; echo w > 'x\..\..\evil'
        mkdir 'C:'; echo w > 'C:/drive'
        echo w > 'd:rive'
        echo fine > 'colon:inside'"#;
    let out = sandtab(&["sh", "--dir", &scratch.map(""), "-c", script]);
    let stderr = text(&out.stderr);
    scratch.assert_outside_untouched();
    assert!(!exists(&host.join("A")), "A was written back");
    assert!(!exists(&host.join("B")), "B was written back");
    for name in ["back\\slash", "x\\..\\..", "C:", "d:rive"] {
        assert!(!exists(&host.join(name)), "{name} was written back");
    }
    assert_eq!(out.status.code(), Some(REFUSED), "{stderr}");
    assert_eq!(std::fs::read_to_string(host.join("a/f")).unwrap(), "f\n");
    assert_eq!(std::fs::read_to_string(host.join("b/f")).unwrap(), "f\n");
    for name in ["back\\slash", "x\\..\\..", "C:", "d:rive"] {
        assert!(!exists(&host.join(name)), "{name} was written back");
        assert!(
            stderr.contains(&format!("refused {}", host.join(name).display())),
            "no refusal for {name}: {stderr}"
        );
    }
    // A colon that is no drive letter is an ordinary name on Unix.
    assert_eq!(
        std::fs::read_to_string(host.join("colon:inside")).unwrap(),
        "fine\n"
    );
    scratch.assert_outside_untouched();
}

#[test]
fn a_symlink_made_on_the_host_during_the_run_is_not_written_through() {
    let scratch = Scratch::new();
    let host = scratch.host();
    std::fs::create_dir(host.join("keep")).unwrap();
    let map = scratch.map("");
    // The script makes `new/f` and `keep/f`; meanwhile both become symlinks on the host.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandtab"))
        .args([
            "sh",
            "--dir",
            &map,
            "-c",
            "mkdir /data/new; echo secret > /data/new/f; echo secret > /data/keep/f; echo ready; sleep 2",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    std::os::unix::fs::symlink("../outside", host.join("new")).unwrap();
    std::fs::remove_dir(host.join("keep")).unwrap();
    std::os::unix::fs::symlink(scratch.outside(), host.join("keep")).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    scratch.assert_outside_untouched();
    assert!(is_symlink(&host.join("new")) && is_symlink(&host.join("keep")));
    assert_eq!(out.status.code(), Some(REFUSED), "{stderr}");
    assert!(stderr.contains("symlink on the host"), "{stderr}");
    let _ = std::io::stdout().flush();
}

#[test]
fn a_read_only_dir_is_read_and_left_byte_for_byte() {
    let scratch = Scratch::new();
    let host = scratch.host();
    std::fs::write(host.join("keep"), "kept\n").unwrap();
    std::fs::write(host.join("run.sh"), "echo ran\n").unwrap();
    std::fs::set_permissions(host.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir(host.join("sub")).unwrap();
    std::fs::create_dir(host.join("empty")).unwrap();
    std::fs::write(host.join("sub/a"), "a\n").unwrap();
    std::os::unix::fs::symlink("keep", host.join("link")).unwrap();
    let before = tree(&host);
    let script = "cat /data/keep /data/link /data/sub/a; ls /data/empty && echo empty-ok
        test -x /data/run.sh && echo exec-ok
        for attempt in 'echo x > /data/new' 'echo x >> /data/keep' 'rm /data/sub/a' \
            'mkdir /data/d' 'ln -s /etc/shadow /data/s' 'chmod 4755 /data/keep' \
            'mv /data/keep /data/moved'; do
          if sh -c \"$attempt\" 2>/dev/null; then echo \"allowed: $attempt\"; fi
        done
        echo x > /data/new
        true";
    let out = sandtab(&["sh", "--dir", &scratch.map(":ro"), "-c", script]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.starts_with("kept\nkept\na\nempty-ok\nexec-ok\n"),
        "{stdout}\n{stderr}"
    );
    assert!(!stdout.contains("allowed"), "{stdout}");
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert_eq!(tree(&host), before);
    scratch.assert_outside_untouched();
    let help = sandtab(&["--help"]);
    let help = text(&help.stdout);
    assert!(help.contains("HOSTDIR::GUESTDIR:ro"), "{help}");
    assert!(help.contains("refused"), "{help}");
}

#[test]
fn a_hard_link_in_host_is_replaced_not_written_through() {
    let scratch = Scratch::new();
    let host = scratch.host();
    let outside = scratch.outside().join("f");
    std::fs::write(&outside, "outside\n").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::hard_link(&outside, host.join("f")).unwrap();
    let script = "cat /data/f; echo changed > /data/f; chmod 600 /data/f";
    let out = sandtab(&["sh", "--dir", &scratch.map(""), "-c", script]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(text(&out.stdout), "outside\n");
    // The other name, outside HOST, keeps its contents and mode.
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
    let meta = std::fs::metadata(&outside).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o640);
    assert_eq!(meta.nlink(), 1, "HOST's name is a file of its own now");
    // HOST's name holds the guest's file, and no temporary file is left beside it.
    assert_eq!(
        std::fs::read_to_string(host.join("f")).unwrap(),
        "changed\n"
    );
    let meta = std::fs::metadata(host.join("f")).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o600);
    assert_eq!(meta.nlink(), 1);
    let names: Vec<_> = tree(&host).into_keys().collect();
    assert_eq!(names, [PathBuf::from("f")]);
}

#[test]
fn removing_a_directory_removes_only_what_the_guest_saw() {
    let scratch = Scratch::new();
    let host = scratch.host();
    // `gone` holds only what was copied in; `d` also a FIFO (never copied in); `e` gets
    // a file made on the host while the guest runs.
    for dir in ["gone/sub", "d/sub", "e/sub"] {
        std::fs::create_dir_all(host.join(dir)).unwrap();
    }
    for file in ["gone/a", "gone/sub/b", "d/a", "d/sub/b", "e/a", "e/sub/b"] {
        std::fs::write(host.join(file), "old\n").unwrap();
    }
    let fifo = host.join("d/sub/fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandtab"))
        .args([
            "sh",
            "--dir",
            &scratch.map(""),
            "-c",
            "rm -r /data/gone /data/d /data/e; echo ready; sleep 2",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    std::fs::write(host.join("e/late"), "made on the host\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(REFUSED), "{stderr}");
    // What the guest never saw survives; what it removed is gone.
    assert!(!exists(&host.join("gone")), "{stderr}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(
        std::fs::read_to_string(host.join("e/late")).unwrap(),
        "made on the host\n"
    );
    for removed in ["d/a", "d/sub/b", "e/a", "e/sub"] {
        assert!(!exists(&host.join(removed)), "{removed}: {stderr}");
    }
    // One line for each directory left, the deepest one holding what was never seen.
    let refusals: Vec<_> = stderr
        .lines()
        .filter(|line| line.contains("refused"))
        .collect();
    assert_eq!(refusals.len(), 2, "{stderr}");
    for left in ["d/sub", "e"] {
        let needle = format!("refused {}:", host.join(left).display());
        assert!(stderr.contains(&needle), "no line for {left}: {stderr}");
    }
    scratch.assert_outside_untouched();
}
