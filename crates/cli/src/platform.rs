//! The command line as a host of the typed runtime: the system's clocks and randomness,
//! memory storage only, and [`HostDoors`], which answers each granted tool with the host
//! command `--tool NAME=COMMAND` names. It makes no network requests and shows no UI.

use crate::args::ToolCommand;
use sandtab_caps::{BoxFuture, Code, Denial, DoorRequest, Doors, HttpResponse};
use sandtab_runtime::{Platform, RuntimeError, RuntimeResult, StorageKind};
use sandtab_shell::{GuestHost, WallClock};
use sandtab_vfs::{Clock, Store};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use tokio::io::AsyncWriteExt;

/// The CLI's platform.
pub struct CliPlatform {
    doors: Arc<HostDoors>,
}

impl CliPlatform {
    pub fn new(doors: HostDoors) -> Self {
        Self {
            doors: Arc::new(doors),
        }
    }
}

impl Platform for CliPlatform {
    fn clock(&self) -> Arc<dyn Clock> {
        Arc::new(WallClock)
    }

    fn guest_host(&self) -> Arc<dyn GuestHost> {
        Arc::new(sandtab_wasi::NativeHost::default())
    }

    fn doors(&self) -> Arc<dyn Doors> {
        self.doors.clone()
    }

    fn open_store<'a>(
        &'a self,
        kind: StorageKind,
        _name: &'a str,
    ) -> Pin<Box<dyn Future<Output = RuntimeResult<Arc<dyn Store>>> + 'a>> {
        Box::pin(async move {
            Err(RuntimeError::unsupported(format!(
                "the command line keeps sandboxes in memory only (not {})",
                kind.as_str()
            )))
        })
    }
}

/// The most bytes a tool's command may answer (the gate refuses more than its own cap
/// anyway; this bounds what the process holds).
const MAX_ANSWER: usize = 64 << 20;

/// Granted tools answered by host commands.
#[derive(Debug, Default)]
pub struct HostDoors {
    commands: BTreeMap<String, Vec<String>>,
}

impl HostDoors {
    pub fn new(tools: &[ToolCommand]) -> Self {
        Self {
            commands: tools
                .iter()
                .map(|tool| (tool.name.clone(), tool.argv.clone()))
                .collect(),
        }
    }
}

impl Doors for HostDoors {
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        let Some(argv) = self.commands.get(name).cloned() else {
            let message =
                format!("this host has no command for `{name}` (give `--tool {name}=COMMAND`)");
            return Box::pin(async move { Err(message) });
        };
        let args = args.as_bytes().to_vec();
        Box::pin(async move { run_tool(&argv, args).await })
    }

    fn fetch(&self, _request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        Box::pin(async {
            Err(Denial::new(
                Code::NetFailed,
                "this host makes no network requests",
            ))
        })
    }

    fn now_ms(&self) -> f64 {
        #[allow(clippy::disallowed_methods)] // the host's real clock, for rate limits and audit
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        now.as_secs_f64() * 1000.0
    }
}

/// Runs a tool's command with `args` on stdin: its stdout, or why it failed.
async fn run_tool(argv: &[String], args: Vec<u8>) -> Result<String, String> {
    let (program, rest) = argv.split_first().ok_or("an empty command")?;
    let mut child = tokio::process::Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| format!("{program}: {err}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    // Written while the output is read: a command may answer before reading it all.
    let write = async move {
        // A command that does not read its arguments closes the pipe early: not an error.
        let _ = stdin.write_all(&args).await;
        drop(stdin);
    };
    let (_, output) = tokio::join!(write, child.wait_with_output());
    let output = output.map_err(|err| format!("{program}: {err}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let status = match output.status.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_owned(),
        };
        return Err(format!("{program}: {status}: {}", stderr.trim_end()));
    }
    if output.stdout.len() > MAX_ANSWER {
        return Err(format!("{program}: answered more than {MAX_ANSWER} bytes"));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| format!("{program}: answered bytes that are not UTF-8"))
}
