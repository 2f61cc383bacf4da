//! Running a command in the tests without a shell: an in-memory sandbox, arguments,
//! stdin, and the output collected.

use crate::command::{
    Command, Context, InputStream, OutputStream, Result, ShellFile, ShellFiles, StreamError,
};
use crate::entropy::{Entropy, RandomSource};
use async_trait::async_trait;
use sandtab_vfs::{ManualClock, Quota, SandboxFs, Timestamp};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// An empty sandbox whose clock stands at 2024-01-01 00:00:00 UTC.
pub(crate) fn sandbox() -> Arc<SandboxFs> {
    let clock = Arc::new(ManualClock::new(Timestamp(1_704_067_200_000_000_000)));
    Arc::new(SandboxFs::in_memory(clock, Quota::UNLIMITED, Vec::new()).expect("an empty sandbox"))
}

/// Random bytes that count up from 0 (the same in every run).
pub(crate) fn counting_entropy() -> Arc<Entropy> {
    struct Counting(Mutex<u8>);
    impl RandomSource for Counting {
        fn fill(&self, buf: &mut [u8]) -> std::result::Result<(), String> {
            let mut next = self.0.lock().unwrap_or_else(|e| e.into_inner());
            for byte in buf {
                *byte = *next;
                *next = next.wrapping_add(1);
            }
            Ok(())
        }
    }
    Entropy::new(Arc::new(Counting(Mutex::new(0))))
}

/// What a command did.
#[derive(Debug)]
pub(crate) struct Ran {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` as `name ARGS` in `cwd` with `stdin`.
pub(crate) async fn run(
    command: &dyn Command,
    name: &str,
    args: &[&str],
    cwd: &str,
    stdin: &[u8],
) -> Ran {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let env = HashMap::new();
    let stdin = Bytes(Mutex::new(Some(stdin.to_vec())));
    let (stdout, stderr) = (Collected::default(), Collected::default());
    let status = command
        .execute(Context {
            name,
            args: &args,
            env: &env,
            cwd: Path::new(cwd),
            stdin: &stdin,
            stdout: &stdout,
            stderr: &stderr,
            shell_files: &NoShellFiles,
        })
        .await
        .expect("the test's streams do not fail");
    Ran {
        status: status.exit_code,
        stdout: stdout.text(),
        stderr: stderr.text(),
    }
}

/// Runs `command` with a stdout whose every write fails with `error`.
pub(crate) async fn run_failing_stdout<E>(
    command: &dyn Command,
    name: &str,
    args: &[&str],
    error: E,
) -> Result<i32>
where
    E: std::error::Error + Clone + Send + Sync + 'static,
{
    struct Failing<E>(E);
    #[async_trait]
    impl<E: std::error::Error + Clone + Send + Sync + 'static> OutputStream for Failing<E> {
        async fn write_all(&self, _bytes: &[u8]) -> Result<()> {
            Err(StreamError(Box::new(self.0.clone())))
        }
    }
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let env = HashMap::new();
    let stdin = Bytes(Mutex::new(None));
    let stderr = Collected::default();
    let status = command
        .execute(Context {
            name,
            args: &args,
            env: &env,
            cwd: Path::new("/"),
            stdin: &stdin,
            stdout: &Failing(error),
            stderr: &stderr,
            shell_files: &NoShellFiles,
        })
        .await?;
    Ok(status.exit_code)
}

struct Bytes(Mutex<Option<Vec<u8>>>);

#[async_trait]
impl InputStream for Bytes {
    async fn read_chunk(&self) -> Result<Option<Vec<u8>>> {
        let next = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(next.filter(|bytes| !bytes.is_empty()))
    }
}

#[derive(Default)]
struct Collected(Mutex<Vec<u8>>);

impl Collected {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

#[async_trait]
impl OutputStream for Collected {
    async fn write_all(&self, bytes: &[u8]) -> Result<()> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
        Ok(())
    }
}

struct NoShellFiles;

#[async_trait]
impl ShellFiles for NoShellFiles {
    async fn stat(&self, _path: &Path) -> Option<ShellFile> {
        None
    }

    async fn read(&self, _path: &Path) -> Option<Vec<u8>> {
        None
    }
}
