use super::names::{base_name, dir_name};
use super::readlink::read_link;
use super::resolve::{Existence, Resolve, canonicalize, components_text, relative};
use sandtab_vfs::{ErrorKind, ManualClock, MemFs, VfsPath};
use std::sync::Arc;

#[test]
fn basenames() {
    assert_eq!(base_name("/usr/local/bin/tool", None), "tool");
    assert_eq!(base_name("dir/sub/", None), "sub");
    assert_eq!(base_name("/", None), "/");
    assert_eq!(base_name("//", None), "/");
    assert_eq!(base_name("", None), "");
    assert_eq!(base_name("a//b//", None), "b");
    assert_eq!(base_name("main.rs", Some(".rs")), "main");
    assert_eq!(base_name(".txt", Some(".txt")), ".txt");
    assert_eq!(base_name("x/.c", Some(".c")), ".c");
    assert_eq!(base_name("a.c", Some("c")), "a.");
}

#[test]
fn dirnames() {
    assert_eq!(dir_name("/usr/local/bin/tool"), "/usr/local/bin");
    assert_eq!(dir_name("file.txt"), ".");
    assert_eq!(dir_name("a/b/"), "a");
    assert_eq!(dir_name("/"), "/");
    assert_eq!(dir_name("//"), "/");
    assert_eq!(dir_name("//a//b//"), "//a");
    assert_eq!(dir_name(""), ".");
    assert_eq!(dir_name("/f"), "/");
    assert_eq!(dir_name("a/"), ".");
}

#[test]
fn relative_paths() {
    let v = |s: &str| -> Vec<String> {
        s.split('/')
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(relative(&v("/h/a.txt"), &v("/h/sub/deep")), "../../a.txt");
    assert_eq!(
        relative(&v("/h/src/lib/mod.rs"), &v("/h/src")),
        "lib/mod.rs"
    );
    assert_eq!(relative(&v("/h"), &v("/h")), ".");
    assert_eq!(relative(&v("/"), &v("/a/b")), "../..");
}

fn tree() -> MemFs {
    let fs = MemFs::new(Arc::new(ManualClock::default()));
    let p = |s: &str| VfsPath::parse(s).unwrap();
    fs.create_dir_all(&p("/h/sub/deep")).unwrap();
    fs.write(&p("/h/a.txt"), b"").unwrap();
    fs.symlink("sub/deep", &p("/h/dl")).unwrap();
    fs.symlink("loop2", &p("/h/loop1")).unwrap();
    fs.symlink("loop1", &p("/h/loop2")).unwrap();
    fs.symlink("missing", &p("/h/dang")).unwrap();
    fs
}

fn resolve(fs: &MemFs, name: &str, existence: Existence) -> Result<String, ErrorKind> {
    let how = Resolve {
        existence,
        follow: true,
        logical: false,
    };
    canonicalize(fs, "/h", name, how).map(|c| components_text(&c))
}

#[test]
fn symlinks_resolve_before_dot_dot() {
    let fs = tree();
    assert_eq!(
        resolve(&fs, "dl/../a.txt", Existence::AllButLast).unwrap(),
        "/h/sub/a.txt"
    );
    assert_eq!(
        resolve(&fs, "dl/../a.txt", Existence::All),
        Err(ErrorKind::NotFound)
    );
    assert_eq!(
        resolve(&fs, "dl/..", Existence::AllButLast).unwrap(),
        "/h/sub"
    );
    assert_eq!(
        resolve(&fs, "dang", Existence::AllButLast).unwrap(),
        "/h/missing"
    );
    assert_eq!(
        resolve(&fs, "dang", Existence::All),
        Err(ErrorKind::NotFound)
    );
    assert_eq!(
        resolve(&fs, "nope/x", Existence::AllButLast),
        Err(ErrorKind::NotFound)
    );
    assert_eq!(
        resolve(&fs, "nope/x/../y", Existence::None).unwrap(),
        "/h/nope/y"
    );
    assert_eq!(
        resolve(&fs, "a.txt/x", Existence::AllButLast),
        Err(ErrorKind::NotADirectory)
    );
    assert_eq!(
        resolve(&fs, "a.txt/x", Existence::None).unwrap(),
        "/h/a.txt/x"
    );
    assert_eq!(
        resolve(&fs, "loop1", Existence::AllButLast),
        Err(ErrorKind::TooManyLinks)
    );
    assert_eq!(resolve(&fs, "loop1", Existence::None).unwrap(), "/h/loop1");
    assert_eq!(resolve(&fs, "", Existence::None), Err(ErrorKind::NotFound));
    assert_eq!(resolve(&fs, "/", Existence::All).unwrap(), "/");
    assert_eq!(
        resolve(&fs, "newfile/", Existence::AllButLast).unwrap(),
        "/h/newfile"
    );
}

#[test]
fn reading_links() {
    let fs = tree();
    assert_eq!(read_link(&fs, "/h", "dl").unwrap(), "sub/deep");
    assert_eq!(read_link(&fs, "/h", "a.txt"), Err(ErrorKind::InvalidInput));
    assert_eq!(read_link(&fs, "/h", "nope"), Err(ErrorKind::NotFound));
    assert_eq!(read_link(&fs, "/h", "dl/"), Err(ErrorKind::InvalidInput));
}
