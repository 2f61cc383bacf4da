//! The commands run natively, without a shell: each through the registry, as the
//! shell finds it, on an in-memory sandbox.

use crate::testing::{self, Ran};
use crate::{Command, Registry, StreamError};
use sandtab_caps::{Capabilities, Gate, NoDoors};
use sandtab_vfs::{SandboxFs, VfsPath};
use std::sync::Arc;

fn registry(fs: &Arc<SandboxFs>) -> Registry {
    let gate = Arc::new(Gate::new(Capabilities::default(), Arc::new(NoDoors)));
    crate::all(fs, &gate, &testing::counting_entropy())
}

async fn run(fs: &Arc<SandboxFs>, name: &str, args: &[&str], stdin: &[u8]) -> Ran {
    let registry = registry(fs);
    let command = registry.get(name).expect("a registered command");
    testing::run(command, name, args, "/", stdin).await
}

fn path(text: &str) -> VfsPath {
    VfsPath::parse(text).expect("a valid path")
}

#[test]
fn every_command_is_registered_once() {
    let registry = registry(&testing::sandbox());
    let mut names: Vec<&str> = registry.names().collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "a name is registered twice");
    for name in [
        "cp",
        "mv",
        "rm",
        "mkdir",
        "ln",
        "chmod",
        "touch",
        "ls",
        "stat",
        "df",
        "file",
        "basename",
        "realpath",
        "head",
        "wc",
        "cut",
        "join",
        "seq",
        "base64",
        "sha256sum",
        "diff",
        "patch",
        "tar",
        "gzip",
        "gunzip",
        "zcat",
        "curl",
        "wget",
        "pip",
        "tool",
        "ui",
        "date",
        "uuidgen",
        "shuf",
        "openssl",
        "help",
    ] {
        assert!(registry.get(name).is_some(), "{name} is missing");
    }
}

#[tokio::test]
async fn output_goes_to_stdout_and_usage_errors_to_stderr_in_gnu_words() {
    let fs = testing::sandbox();
    let ran = run(&fs, "seq", &["2", "4"], b"").await;
    assert_eq!((ran.status, ran.stdout.as_str()), (0, "2\n3\n4\n"));
    let ran = run(&fs, "seq", &["-q"], b"").await;
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.stderr,
        "seq: invalid option -- 'q'\nTry 'seq --help' for more information.\n"
    );
}

#[tokio::test]
async fn stdin_is_read_and_files_are_the_sandboxs() {
    let fs = testing::sandbox();
    let ran = run(&fs, "wc", &["-l"], b"a\nb\nc\n").await;
    assert_eq!(ran.stdout, "3\n");
    fs.mem().write(&path("/a"), b"one\ntwo\n").unwrap();
    fs.mem().write(&path("/b"), b"one\nthree\n").unwrap();
    let ran = run(&fs, "diff", &["a", "b"], b"").await;
    assert_eq!(
        (ran.status, ran.stdout.as_str()),
        (1, "2c2\n< two\n---\n> three\n")
    );
}

#[tokio::test]
async fn an_archive_made_by_one_command_is_read_by_another() {
    let fs = testing::sandbox();
    fs.mem().create_dir_all(&path("/src")).unwrap();
    fs.mem().write(&path("/src/f"), b"contents\n").unwrap();
    let ran = run(&fs, "tar", &["-czf", "/out.tgz", "src"], b"").await;
    assert_eq!((ran.status, ran.stderr.as_str()), (0, ""));
    let ran = run(&fs, "tar", &["-tzf", "/out.tgz"], b"").await;
    assert_eq!(ran.stdout, "src/\nsrc/f\n");
    let ran = run(&fs, "gzip", &["-k", "src/f"], b"").await;
    assert_eq!(ran.status, 0);
    let ran = run(&fs, "zcat", &["src/f.gz"], b"").await;
    assert_eq!(ran.stdout, "contents\n");
}

#[tokio::test]
async fn random_commands_draw_from_the_given_source() {
    let fs = testing::sandbox();
    let first = run(&fs, "shuf", &["-i", "1-20"], b"").await;
    let again = run(&fs, "shuf", &["-i", "1-20"], b"").await;
    assert_eq!(first.stdout, again.stdout, "the same bytes, the same order");
    assert_ne!(
        first.stdout,
        (1..=20).map(|n| format!("{n}\n")).collect::<String>()
    );
}

#[tokio::test]
async fn a_failing_stream_is_handed_back_to_the_shell_unchanged() {
    #[derive(Debug, Clone, thiserror::Error)]
    #[error("the reader left")]
    struct Gone;
    let fs = testing::sandbox();
    let registry = registry(&fs);
    let seq: &dyn Command = registry.get("seq").expect("seq");
    let err: StreamError = testing::run_failing_stdout(seq, "seq", &["1000000"], Gone)
        .await
        .expect_err("the write fails");
    assert!(err.0.downcast_ref::<Gone>().is_some(), "{err}");
}
