//! The model-facing file tools: read with line ranges, write with directories made,
//! and exact-string edits that refuse when the string is missing or not unique.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_shell::ShellError;
use sandtab_shell::file_tools::{edit_file, read_file, write_file};
use sandtab_vfs::{ErrorKind, Quota, SandboxFs, VfsPath};
use std::sync::Arc;

fn fs() -> Arc<SandboxFs> {
    let fs = SandboxFs::in_memory(
        Arc::new(sandtab_shell::WallClock),
        Quota::UNLIMITED,
        Vec::new(),
    )
    .unwrap();
    fs.mem()
        .create_dir_all(&VfsPath::parse("/home/agent").unwrap())
        .unwrap();
    Arc::new(fs)
}

#[tokio::test]
async fn write_then_read_whole_and_by_lines() {
    let fs = fs();
    assert_eq!(
        write_file(&fs, "src/app/main.py", "a\nb\nc\nd\n")
            .await
            .unwrap(),
        8
    );
    assert_eq!(
        read_file(&fs, "/home/agent/src/app/main.py", None, None)
            .await
            .unwrap(),
        "a\nb\nc\nd\n"
    );
    assert_eq!(
        read_file(&fs, "src/app/main.py", Some(2), Some(2))
            .await
            .unwrap(),
        "b\nc\n"
    );
    assert_eq!(
        read_file(&fs, "src/app/main.py", Some(4), None)
            .await
            .unwrap(),
        "d\n"
    );
    assert_eq!(
        read_file(&fs, "src/app/main.py", Some(9), None)
            .await
            .unwrap(),
        ""
    );
    let missing = read_file(&fs, "nope.txt", None, None).await.unwrap_err();
    assert!(
        matches!(&missing, ShellError::Filesystem(e) if e.kind() == ErrorKind::NotFound),
        "{missing}"
    );
    fs.mem()
        .write(
            &VfsPath::parse("/home/agent/bin").unwrap(),
            &[0xff, 0xfe, 0],
        )
        .unwrap();
    let binary = read_file(&fs, "bin", None, None).await.unwrap_err();
    assert_eq!(
        binary.to_string(),
        "bin is not UTF-8 text; use bash (od, base64, file) for binary files"
    );
}

#[tokio::test]
async fn edits_need_an_exact_unique_match() {
    let fs = fs();
    write_file(&fs, "f.py", "x = 1\ny = 1\nprint(x)\n")
        .await
        .unwrap();
    let twice = edit_file(&fs, "f.py", " = 1", " = 2", false)
        .await
        .unwrap_err();
    assert_eq!(
        twice.to_string(),
        "old_string occurs 2 times in f.py; give more context to make it unique, or set replace_all"
    );
    let absent = edit_file(&fs, "f.py", "z = 1", "z = 2", false)
        .await
        .unwrap_err();
    assert!(
        absent
            .to_string()
            .starts_with("old_string does not occur in f.py")
    );
    assert_eq!(
        read_file(&fs, "f.py", None, None).await.unwrap(),
        "x = 1\ny = 1\nprint(x)\n",
        "unchanged"
    );
    assert_eq!(
        edit_file(&fs, "f.py", "x = 1", "x = 3", false)
            .await
            .unwrap(),
        1
    );
    assert_eq!(edit_file(&fs, "f.py", "1", "4", true).await.unwrap(), 1);
    assert_eq!(
        read_file(&fs, "f.py", None, None).await.unwrap(),
        "x = 3\ny = 4\nprint(x)\n"
    );
    assert!(edit_file(&fs, "f.py", "", "a", false).await.is_err());
    assert!(edit_file(&fs, "f.py", "x", "x", false).await.is_err());
}
