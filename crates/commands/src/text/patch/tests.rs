use crate::text::patch::{
    ArgError, Hunk, HunkLine, Locator, Parser, RejectStyle, apply_at, is_epoch, parse_args,
    reject_hunk, split_header_name, strip_name, success_message,
};

fn hunk(text: &str) -> Hunk {
    let files = Parser::new(text.as_bytes()).parse();
    files[0].hunks[0].clone()
}

#[test]
fn parses_unified_files_and_hunks() {
    let files = Parser::new(
        b"diff --git a/x b/x\nindex 1..2\n--- a/x\t2020-01-01\n+++ b/x\n@@ -1,2 +1,2 @@ fn\n a\n-b\n+c\n\\ No newline at end of file\n",
    )
    .parse();
    assert_eq!(files.len(), 1);
    let file = &files[0];
    assert_eq!(file.old_name.as_deref(), Some("a/x"));
    assert_eq!(file.old_rest, "\t2020-01-01");
    assert_eq!(file.first_hunk_line, 5);
    let hunk = &file.hunks[0];
    assert_eq!(hunk.suffix, " fn");
    assert_eq!(hunk.lines.last(), Some(&HunkLine::Insert(b"c".to_vec())));
}

#[test]
fn parses_context_and_normal_hunks() {
    let context =
        hunk("*** a\n--- b\n***************\n*** 1,2 ****\n  x\n! y\n--- 1,2 ----\n  x\n! z\n");
    assert_eq!(
        context.lines,
        [
            HunkLine::Context(b"x\n".to_vec()),
            HunkLine::Delete(b"y\n".to_vec()),
            HunkLine::Insert(b"z\n".to_vec())
        ]
    );
    let normal = hunk("3a4\n> four\n");
    assert_eq!(
        (normal.old_first, normal.old_len, normal.new_len),
        (4, 0, 1)
    );
}

#[test]
fn strips_names() {
    assert_eq!(strip_name("a/src/x.c", Some(1)).as_deref(), Some("src/x.c"));
    assert_eq!(strip_name("a/src/x.c", None).as_deref(), Some("x.c"));
    assert_eq!(strip_name("x.c", Some(1)), None);
    assert_eq!(
        split_header_name("f 2024-01-01 10:00"),
        ("f".into(), " 2024-01-01 10:00".into())
    );
}

#[test]
fn locates_with_offset_and_fuzz() {
    let file: Vec<&[u8]> = vec![b"extra\n", b"hello\n", b"world\n"];
    let mut locator = Locator {
        file: &file,
        in_offset: 0,
        last_frozen: 0,
        loose: false,
    };
    let h = hunk("--- f\n+++ f\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n");
    assert_eq!(locator.locate(&h, 0), Some(2));
    assert_eq!(locator.in_offset, 1);
}

#[test]
fn rejects_are_unified() {
    let h = hunk("--- f\n+++ f\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n");
    assert_eq!(
        reject_hunk(&h, 0, RejectStyle::Unified),
        b"@@ -1,2 +1,2 @@\n hello\n-world\n+there\n"
    );
    assert_eq!(
        success_message(1, 3, 0, 2),
        "Hunk #1 succeeded at 3 (offset 2 lines).\n"
    );
}

#[test]
fn hunks_apply_with_context_from_the_file() {
    let file: Vec<&[u8]> = vec![b"a\n", b"B\n", b"c\n", b"d\n"];
    let h = hunk("--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n");
    let mut out = Vec::new();
    // The trailing context stays uncopied, free for the next hunk.
    assert_eq!(apply_at(&file, &h, 1, 0, &mut out), 2);
    assert_eq!(out, b"a\nb\n");
}

#[test]
fn swapping_keeps_deletions_first() {
    let h = hunk("--- f\n+++ f\n@@ -1,2 +1,2 @@\n x\n-old\n+new\n");
    let lines = h.swapped().lines;
    assert_eq!(lines[1], HunkLine::Delete(b"new\n".to_vec()));
    assert_eq!(lines[2], HunkLine::Insert(b"old\n".to_vec()));
}

#[test]
fn epoch_times_mean_absent_files() {
    assert!(is_epoch("\t1970-01-01 00:00:00.000000000 +0000"));
    assert!(!is_epoch("\t2024-01-01 00:00:00.000000000 +0000"));
}

#[test]
fn bad_arguments() {
    let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert!(
        matches!(parse_args(&args(&["-px"])), Err(ArgError::Fatal(m)) if m == "strip count x is not a number")
    );
    assert!(
        matches!(parse_args(&args(&["a", "b", "c"])), Err(ArgError::Usage(m)) if m == "c: extra operand")
    );
}
