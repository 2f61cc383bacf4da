//! The shell facade, natively: output, persistence across execs, files on the VFS, and the
//! answers to bad input (syntax errors, limits, cancellation).
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_shell::{
    EXIT_CANCELLED, EXIT_LIMIT, EXIT_SYNTAX, ExecOutcome, Shell, ShellLimits, Stream, WallClock,
};
use sandtab_vfs::storage::MemoryStore;
use sandtab_vfs::{ErrorKind, Mount, MountSource, Quota, SandboxFs, VfsError, VfsPath};
use std::sync::Arc;
use std::time::Duration;

fn memory_fs(quota: Quota) -> Arc<SandboxFs> {
    Arc::new(SandboxFs::in_memory(Arc::new(WallClock), quota, Vec::new()).unwrap())
}

fn new_shell(limits: ShellLimits) -> Shell {
    Shell::new(memory_fs(Quota::UNLIMITED), limits).unwrap()
}

async fn stored_shell(store: &Arc<MemoryStore>) -> Shell {
    let mounts = vec![Mount {
        path: VfsPath::parse("/tmp").unwrap(),
        source: MountSource::Memory,
    }];
    let fs = SandboxFs::open(store.clone(), Arc::new(WallClock), Quota::UNLIMITED, mounts)
        .await
        .unwrap();
    Shell::new(Arc::new(fs), ShellLimits::default()).unwrap()
}

async fn run(shell: &mut Shell, script: &str) -> ExecOutcome {
    shell.exec(script).await
}

#[tokio::test]
async fn echo_to_a_file_and_cat_it_back() {
    let mut shell = new_shell(ShellLimits::default());
    let out = run(&mut shell, "echo hello > /tmp/a; cat /tmp/a").await;
    assert_eq!(out.stdout_text(), "hello\n");
    assert_eq!(out.exit_code, 0);
    // The write landed in sandtab's VFS, not in bashkit's own memory.
    let data = shell
        .fs()
        .mem()
        .read(&VfsPath::parse("/tmp/a").unwrap())
        .unwrap();
    assert_eq!(data, b"hello\n");
}

#[tokio::test]
async fn files_written_to_the_vfs_are_visible_to_the_shell() {
    let mut shell = new_shell(ShellLimits::default());
    shell
        .fs()
        .mem()
        .write(
            &VfsPath::parse("/home/agent/notes.txt").unwrap(),
            b"one\ntwo\nthree\n",
        )
        .unwrap();
    let out = run(&mut shell, "wc -l < notes.txt; ls").await;
    assert_eq!(out.stdout_text(), "3\nnotes.txt\n");
}

#[tokio::test]
async fn session_state_persists_between_execs() {
    let mut shell = new_shell(ShellLimits::default());
    run(
        &mut shell,
        "mkdir -p /work/proj && cd /work/proj; X=42; greet() { echo hi $1; }",
    )
    .await;
    let out = run(&mut shell, "pwd; echo $X; greet there").await;
    assert_eq!(out.stdout_text(), "/work/proj\n42\nhi there\n");
}

#[tokio::test]
async fn exit_status_and_stderr_are_reported() {
    let mut shell = new_shell(ShellLimits::default());
    let out = run(&mut shell, "cat /nope; echo done >&2; exit 3").await;
    assert_eq!(out.exit_code, 3);
    let stderr = out.stderr_text();
    assert!(stderr.contains("/nope"), "{stderr}");
    assert!(stderr.ends_with("done\n"), "{stderr}");
}

#[tokio::test]
async fn output_streams_in_chunks_as_it_is_written() {
    let mut shell = new_shell(ShellLimits::default());
    let mut chunks = Vec::new();
    let out = shell
        .exec_streaming(
            "for i in 1 2 3; do echo $i; done; echo oops >&2",
            &mut |s, c| chunks.push((s, c.to_vec())),
        )
        .await;
    assert_eq!(out.stdout_text(), "1\n2\n3\n");
    let streamed_out: Vec<u8> = chunks
        .iter()
        .filter(|(s, _)| *s == Stream::Stdout)
        .flat_map(|(_, c)| c.clone())
        .collect();
    assert_eq!(streamed_out, b"1\n2\n3\n");
    assert!(chunks.contains(&(Stream::Stderr, b"oops\n".to_vec())));
}

#[tokio::test]
async fn binary_output_is_not_mangled() {
    let mut shell = new_shell(ShellLimits::default());
    shell
        .fs()
        .mem()
        .write(
            &VfsPath::parse("/tmp/bin").unwrap(),
            &[0, 0xff, 0xfe, b'\n', 0x80],
        )
        .unwrap();
    let out = run(&mut shell, "cat /tmp/bin").await;
    assert_eq!(out.stdout, vec![0, 0xff, 0xfe, b'\n', 0x80]);
}

#[tokio::test]
async fn a_syntax_error_is_exit_2_with_a_message() {
    let mut shell = new_shell(ShellLimits::default());
    let out = run(&mut shell, "if then fi (").await;
    assert_eq!(out.exit_code, EXIT_SYNTAX);
    // As bash -c says it: the line, the token, then the offending line.
    assert_eq!(
        out.stderr_text(),
        "bash: -c: line 1: syntax error near unexpected token `then'\nbash: -c: line 1: `if then fi ('\n"
    );
    // The session is still usable.
    assert_eq!(run(&mut shell, "echo ok").await.stdout_text(), "ok\n");
}

#[tokio::test]
async fn an_endless_loop_stops_at_the_iteration_limit() {
    let limits = ShellLimits {
        max_loop_iterations: 5_000,
        ..ShellLimits::default()
    };
    let mut shell = new_shell(limits);
    let out = run(
        &mut shell,
        "echo before > /tmp/kept; while true; do :; done",
    )
    .await;
    assert_eq!(out.exit_code, EXIT_LIMIT, "{}", out.stderr_text());
    let stderr = out.stderr_text();
    assert!(stderr.contains("max_loop_iterations"), "{stderr}");
    assert!(stderr.contains("5000"), "{stderr}");
    assert_eq!(
        run(&mut shell, "cat /tmp/kept").await.stdout_text(),
        "before\n"
    );
}

#[tokio::test]
async fn a_hundred_thousand_iteration_loop_runs_by_default() {
    let mut shell = new_shell(ShellLimits::default());
    let out = run(
        &mut shell,
        "n=0; for i in $(seq 1 100000); do n=$((n+1)); done; echo $n",
    )
    .await;
    assert_eq!(out.stdout_text(), "100000\n", "{}", out.stderr_text());
}

#[tokio::test]
async fn the_command_limit_names_itself() {
    let limits = ShellLimits {
        max_commands: 50,
        ..ShellLimits::default()
    };
    let mut shell = new_shell(limits);
    let out = run(&mut shell, "for i in $(seq 1 100); do echo $i; done").await;
    assert_eq!(out.exit_code, EXIT_LIMIT);
    assert!(
        out.stderr_text().contains("max_commands"),
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn output_over_the_cap_is_cut_and_flagged() {
    let limits = ShellLimits {
        max_output_bytes: 1000,
        ..ShellLimits::default()
    };
    let mut shell = new_shell(limits);
    let out = run(&mut shell, "for i in $(seq 1 1000); do echo line $i; done").await;
    assert_eq!(out.stdout.len(), 1000);
    assert!(out.stdout_truncated);
    // Every line counts towards the total: "line N\n" for N in 1..=1000.
    let total: usize = (1..=1000).map(|n: usize| 6 + n.to_string().len()).sum();
    assert_eq!(out.stdout_total, total as u64);
    assert!(out.stdout_text().ends_with(&format!(
        "\n[sandtab: stdout truncated: the first 1000 of {total} bytes are shown]\n"
    )));
    assert!(!out.stderr_truncated);
    assert_eq!(out.truncation_note(sandtab_shell::Stream::Stderr), None);
}

#[tokio::test]
async fn one_command_writing_past_the_cap_is_counted_whole_and_binary_stays_exact() {
    let mut shell = new_shell(ShellLimits::default());
    let out = shell
        .exec_with_output_cap(
            "seq 1 100000; printf '\\377\\000\\001' >&2",
            None,
            4096,
            &mut |_, _| {},
        )
        .await;
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.stdout.len(), 4096);
    assert_eq!(out.stdout_total, 588_895);
    assert_eq!(out.stderr, [0xff, 0, 1]);
    assert_eq!(out.stderr_total, 3);
    assert!(!out.stderr_truncated);
}

#[tokio::test]
async fn cancel_stops_a_cpu_bound_loop_and_the_session_survives() {
    let mut shell = new_shell(ShellLimits::default());
    run(&mut shell, "echo keep > /tmp/k; cd /tmp").await;
    let cancel = shell.cancel_handle();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let out = run(&mut shell, "while true; do :; done").await;
    canceller.await.unwrap();
    assert_eq!(out.exit_code, EXIT_CANCELLED, "{}", out.stderr_text());
    assert!(out.stderr_text().contains("cancelled"));
    let after = run(&mut shell, "pwd; cat k").await;
    assert_eq!(after.stdout_text(), "/tmp\nkeep\n");
}

#[test]
fn invalid_limits_are_refused_with_the_limit_named() {
    let fs = memory_fs(Quota::UNLIMITED);
    let err = Shell::new(
        fs,
        ShellLimits {
            timeout: Duration::ZERO,
            ..ShellLimits::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("timeout"), "{err}");
}

#[tokio::test]
async fn a_write_over_the_quota_fails_clearly_and_stays_within_it() {
    let quota = sandtab_vfs::Quota {
        max_bytes: 100,
        ..sandtab_vfs::Quota::UNLIMITED
    };
    let fs = memory_fs(quota);
    let mut shell = Shell::new(fs, ShellLimits::default()).unwrap();
    run(&mut shell, "echo small > /tmp/f").await;
    let out = run(&mut shell, "seq 1 100 > /tmp/f").await;
    assert_ne!(out.exit_code, 0);
    assert!(
        out.stderr_text().contains("Disk quota exceeded"),
        "{}",
        out.stderr_text()
    );
    // As in bash, `>` truncates at open; the refused write itself changed nothing, so
    // the filesystem never holds more than the quota.
    assert!(shell.fs().mem().usage().bytes <= 100);
    let other = run(&mut shell, "echo fits > /tmp/g; cat /tmp/g").await;
    assert_eq!(other.stdout_text(), "fits\n");
}

#[tokio::test]
async fn every_exec_is_saved_and_a_reopened_sandbox_reads_it_back() {
    let store = Arc::new(MemoryStore::new());
    let mut shell = stored_shell(&store).await;
    let out = run(
        &mut shell,
        "mkdir -p src && printf 'line %s\\n' 1 2 3 > src/notes; echo scratch > /tmp/s",
    )
    .await;
    assert_eq!(out.exit_code, 0, "{}", out.stderr_text());
    assert!(out.save_error.is_none());
    // A new session on the reopened store: as after a reload.
    let mut reopened = stored_shell(&store).await;
    let out = run(
        &mut reopened,
        "cat src/notes; wc -l < src/notes; ls /tmp | wc -l",
    )
    .await;
    assert_eq!(
        out.stdout_text(),
        "line 1\nline 2\nline 3\n3\n0\n",
        "{}",
        out.stderr_text()
    );
    let out = run(
        &mut reopened,
        "echo 'line 4' >> src/notes; tail -n 2 src/notes",
    )
    .await;
    assert_eq!(
        out.stdout_text(),
        "line 3\nline 4\n",
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn a_refused_save_is_reported_and_retried() {
    let store = Arc::new(MemoryStore::new());
    let mut shell = stored_shell(&store).await;
    store.fail_next_commit(
        VfsError::new(ErrorKind::QuotaExceeded, "/").with_detail("QuotaExceededError"),
    );
    let out = run(&mut shell, "echo kept > kept.txt").await;
    assert_eq!(out.exit_code, 0);
    assert_eq!(
        out.save_error.as_ref().map(VfsError::kind),
        Some(ErrorKind::QuotaExceeded)
    );
    assert!(
        out.stderr_text().contains("not saved"),
        "{}",
        out.stderr_text()
    );
    assert_eq!(
        run(&mut shell, "cat kept.txt").await.stdout_text(),
        "kept\n"
    );
    // The next exec saves it.
    assert!(run(&mut shell, "true").await.save_error.is_none());
    let mut reopened = stored_shell(&store).await;
    assert_eq!(
        run(&mut reopened, "cat kept.txt").await.stdout_text(),
        "kept\n"
    );
}

#[tokio::test]
async fn read_only_mounts_give_erofs_in_the_shell() {
    let mounts = vec![Mount {
        path: VfsPath::parse("/project").unwrap(),
        source: MountSource::ReadOnly(vec![("a.txt".into(), b"given\n".to_vec())]),
    }];
    let fs = SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, mounts).unwrap();
    let mut shell = Shell::new(Arc::new(fs), ShellLimits::default()).unwrap();
    assert_eq!(
        run(&mut shell, "cat /project/a.txt").await.stdout_text(),
        "given\n"
    );
    let out = run(&mut shell, "echo x > /project/a.txt").await;
    assert_ne!(out.exit_code, 0);
    assert!(
        out.stderr_text().contains("Read-only file system"),
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn commands_read_files_of_tens_of_megabytes() {
    let mut shell = new_shell(ShellLimits::default());
    let big = vec![b'x'; 20 << 20];
    shell
        .fs()
        .mem()
        .write(&VfsPath::parse("/home/agent/big").unwrap(), &big)
        .unwrap();
    let out = run(
        &mut shell,
        "wc -c < big; cat big | wc -c; cat big big | wc -c",
    )
    .await;
    assert_eq!(
        out.stdout_text(),
        "20971520\n20971520\n41943040\n",
        "{}",
        out.stderr_text()
    );
}

#[tokio::test]
async fn a_runaway_write_loop_stops_at_the_file_write_limit() {
    let limits = ShellLimits {
        max_file_write_bytes: 10_000,
        ..ShellLimits::default()
    };
    let mut shell = new_shell(limits);
    let out = run(
        &mut shell,
        "while true; do echo 0123456789 >> log; done; echo never",
    )
    .await;
    assert_eq!(out.exit_code, EXIT_LIMIT, "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("[max_file_write_bytes]"),
        "{}",
        out.stderr_text()
    );
    assert!(!out.stdout_text().contains("never"));
    let size = shell
        .fs()
        .mem()
        .stat(&VfsPath::parse("/home/agent/log").unwrap())
        .unwrap()
        .size;
    assert!(size <= 10_000, "{size}");
    // The next exec has a budget of its own, and sandtab's own commands count too.
    let out = run(&mut shell, "echo fine > other; cat other").await;
    assert_eq!(out.stdout_text(), "fine\n", "{}", out.stderr_text());
    let out = run(
        &mut shell,
        "seq 1 3000 > s; while true; do cp s s2; rm s2; gzip -kf s; done",
    )
    .await;
    assert_eq!(out.exit_code, EXIT_LIMIT, "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("[max_file_write_bytes]"),
        "{}",
        out.stderr_text()
    );
}

/// The commands agents reach for, every one of which must exist.
const AGENT_COMMANDS: &str = "cat echo printf ls cd pwd mkdir rmdir rm cp mv ln touch chmod stat \
    file find xargs grep egrep fgrep sed awk head tail wc sort uniq cut tr tee diff patch comm \
    paste join nl od basename dirname realpath readlink du df date sleep timeout env printenv \
    which true false test seq yes base64 sha256sum md5sum tar gzip gunzip zcat jq sh bash";

#[tokio::test]
async fn every_command_agents_use_exists() {
    let mut shell = new_shell(ShellLimits::default());
    let script = format!(
        "for c in {AGENT_COMMANDS}; do type \"$c\" >/dev/null 2>&1 || echo \"missing: $c\"; done"
    );
    let out = run(&mut shell, &script).await;
    assert_eq!(out.stdout_text(), "", "{}", out.stderr_text());
}

#[tokio::test]
async fn commands_refuse_sizes_that_would_fill_the_memory() {
    let mut shell = new_shell(ShellLimits::default());
    let out = shell
        .exec("shuf -r -n 99999999999 -e a; echo $?; shuf -n 3 -i 1-99999999999; echo $?; date +%99999999s | wc -c; date -s now; echo $?")
        .await;
    assert_eq!(out.stdout_text(), "1\n1\n1025\n1\n");
    assert_eq!(
        out.stderr_text(),
        "shuf: -n 99999999999 with -r: the sandbox repeats at most 1000000 lines\n\
         shuf: input range too large: the sandbox shuffles at most 10000000 numbers\n\
         date: cannot set date: Operation not permitted\n"
    );
}

/// `help` describes sandtab's shell as bash's does, and never names the engine under it.
#[tokio::test]
async fn help_describes_the_shell_builtins_in_its_own_words() {
    let mut shell = new_shell(ShellLimits::default());
    let out = run(&mut shell, "help").await;
    assert_eq!(out.exit_code, 0);
    let text = out.stdout_text();
    assert!(
        text.starts_with("sandtab shell: a bash-compatible shell"),
        "{text}"
    );
    assert!(text.contains(" cd [-L|-P] [dir]\n"), "{text}");
    let out = run(
        &mut shell,
        "help cd; help -d pwd; help -s read | cut -c1-10",
    )
    .await;
    assert_eq!(
        out.stdout_text(),
        "cd: cd [-L|-P] [dir]\n    Change the shell working directory.\n\
         pwd - Print the name of the current working directory.\n\
         read: read\nreadonly: \n"
    );
    let out = run(&mut shell, "help ls").await;
    assert_eq!(out.exit_code, 1);
    assert!(out.stderr_text().contains("Try `ls --help'"));
    let out = run(&mut shell, "{ help; help -d ''; } 2>&1").await;
    assert!(!out.stdout_text().to_lowercase().contains("bashkit"));
}
