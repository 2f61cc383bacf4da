//! The shell's `tar`, tested against what GNU tar 1.34 does with the same archives.

use crate::archive::tar::expand_old_style;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn old_style_clusters() {
    assert_eq!(
        expand_old_style(&strings(&["czf", "out.tgz", "a", "b"])).unwrap(),
        strings(&["-c", "-z", "-f", "out.tgz", "a", "b"])
    );
    assert_eq!(
        expand_old_style(&strings(&["xOf", "o.tar", "a"])).unwrap(),
        strings(&["-x", "-O", "-f", "o.tar", "a"])
    );
    assert_eq!(
        expand_old_style(&strings(&["cf"])).unwrap_err(),
        "Old option 'f' requires an argument."
    );
    assert_eq!(
        expand_old_style(&strings(&["-cf", "x"])).unwrap(),
        strings(&["-cf", "x"])
    );
}

/// Archives an attacker hands the agent, and what GNU tar 1.34 does with them.
mod through_symlinks {
    use crate::testing;
    use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
    use std::sync::Arc;

    fn p(path: &str) -> VfsPath {
        VfsPath::parse(path).unwrap()
    }

    enum Member<'a> {
        File(&'a str, &'a [u8]),
        Dir(&'a str),
        Symlink(&'a str, &'a str),
        HardLink(&'a str, &'a str),
    }

    fn archive(members: &[Member<'_>]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for member in members {
            let mut header = tar::Header::new_gnu();
            header.set_mode(0o644);
            header.set_size(0);
            let (kind, name, link, data): (_, _, _, &[u8]) = match *member {
                Member::File(name, data) => (tar::EntryType::Regular, name, "", data),
                Member::Dir(name) => (tar::EntryType::Directory, name, "", b""),
                Member::Symlink(name, to) => (tar::EntryType::Symlink, name, to, b""),
                Member::HardLink(name, to) => (tar::EntryType::Link, name, to, b""),
            };
            header.set_entry_type(kind);
            header.set_size(data.len() as u64);
            // Written into the header directly: the builder refuses `..`.
            header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            header.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
            header.set_cksum();
            builder.append(&header, data).unwrap();
        }
        builder.into_inner().unwrap()
    }

    /// A sandbox whose agent has a `.bashrc`, and the archive at /a.tar; runs `tar`
    /// with `args` in /home/agent/upload: (stderr, status).
    async fn extract(members: &[Member<'_>], args: &str) -> (Arc<SandboxFs>, String, i32) {
        let fs = testing::sandbox();
        let mem = fs.mem().clone();
        mem.create_dir_all(&p("/home/agent/upload")).unwrap();
        mem.write(&p("/home/agent/.bashrc"), b"original").unwrap();
        mem.write(&p("/a.tar"), &archive(members)).unwrap();
        let mut argv: Vec<&str> = args.split_whitespace().collect();
        argv.push("/a.tar");
        let tar = super::super::Tar { fs: fs.clone() };
        let ran = testing::run(&tar, "tar", &argv, "/home/agent/upload", b"").await;
        (fs, ran.stderr, ran.status)
    }

    fn bashrc_untouched(fs: &SandboxFs) {
        let mem = fs.mem();
        assert_eq!(mem.read(&p("/home/agent/.bashrc")).unwrap(), b"original");
        assert_eq!(mem.stat(&p("/home/agent/.bashrc")).unwrap().links, 1);
    }

    #[tokio::test]
    async fn a_member_through_a_symlink_the_archive_made_is_refused() {
        let (fs, stderr, status) = extract(
            &[
                Member::Symlink("s", "/home/agent"),
                Member::File("s/.bashrc", b"evil"),
                Member::HardLink("h", "s/.bashrc"),
                Member::Symlink("r", "../.."),
                Member::File("r/agent/.bashrc", b"evil"),
            ],
            "xf",
        )
        .await;
        assert_eq!(
            stderr,
            "tar: s/.bashrc: Cannot open: Not a directory\n\
             tar: s/.bashrc: Cannot stat: Not a directory\n\
             tar: h: Cannot hard link to 's/.bashrc': Not a directory\n\
             tar: r/agent/.bashrc: Cannot open: Not a directory\n\
             tar: Exiting with failure status due to previous errors\n"
        );
        assert_eq!(status, 2);
        bashrc_untouched(&fs);
        // The symlinks are made once everything else is out, as GNU tar makes them.
        let mem = fs.mem();
        assert_eq!(
            mem.read_link(&p("/home/agent/upload/s")).unwrap(),
            "/home/agent"
        );
        assert_eq!(mem.read_link(&p("/home/agent/upload/r")).unwrap(), "../..");
        assert!(!mem.exists(&p("/home/agent/upload/h")));
    }

    #[tokio::test]
    async fn a_symlink_within_is_made_at_once_and_one_out_is_made_last() {
        let (fs, stderr, status) = extract(
            &[
                Member::Dir("sub/"),
                Member::Symlink("d", "sub"),
                Member::File("d/f", b"in sub"),
                Member::Symlink("s", "/home/agent"),
                Member::HardLink("h", "s"),
                Member::Symlink("gone", "/home/agent"),
                Member::File("gone", b"replaced"),
            ],
            "xf",
        )
        .await;
        assert_eq!((stderr.as_str(), status), ("", 0));
        bashrc_untouched(&fs);
        let mem = fs.mem();
        assert_eq!(mem.read(&p("/home/agent/upload/sub/f")).unwrap(), b"in sub");
        let s = mem.lstat(&p("/home/agent/upload/s")).unwrap();
        let h = mem.lstat(&p("/home/agent/upload/h")).unwrap();
        assert_eq!((s.kind, s.ino, s.links), (FileKind::Symlink, h.ino, 2));
        assert_eq!(
            mem.read_link(&p("/home/agent/upload/h")).unwrap(),
            "/home/agent"
        );
        // A placeholder a later member replaced stays replaced.
        assert_eq!(
            mem.read(&p("/home/agent/upload/gone")).unwrap(),
            b"replaced"
        );
    }

    #[tokio::test]
    async fn a_hard_link_target_cannot_climb_out() {
        let (fs, stderr, status) = extract(
            &[
                Member::Dir("x/"),
                Member::HardLink("h", "x/../../.bashrc"),
                Member::HardLink("g", "../../.bashrc"),
            ],
            "xf",
        )
        .await;
        assert_eq!(
            stderr,
            "tar: Removing leading `x/../../' from hard link targets\n\
             tar: h: Cannot hard link to '.bashrc': No such file or directory\n\
             tar: Removing leading `../../' from hard link targets\n\
             tar: g: Cannot hard link to '.bashrc': No such file or directory\n\
             tar: Exiting with failure status due to previous errors\n"
        );
        assert_eq!(status, 2);
        bashrc_untouched(&fs);
    }

    #[tokio::test]
    async fn absolute_names_make_symlinks_at_once() {
        let (fs, _, status) = extract(
            &[
                Member::Symlink("s", "/home/agent/upload/real"),
                Member::Dir("real/"),
                Member::File("s/f", b"through"),
            ],
            "-P -xf",
        )
        .await;
        assert_eq!(status, 0);
        let mem = fs.mem();
        assert_eq!(
            mem.read(&p("/home/agent/upload/real/f")).unwrap(),
            b"through"
        );
    }
}
