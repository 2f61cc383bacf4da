//! sandtab's own commands (`sandtab-commands`) as bashkit commands: each runs with a
//! [`Context`] made of bashkit's, registered over bashkit's builtins of the same name.

use bashkit::{Bash, BashBuilder, BuiltinRegistry, CommandContext, CommandStatus, FileSystem};
use sandtab_caps::Gate;
use sandtab_commands::{
    Command, Context, Entropy, InputStream, OutputStream, ShellFile, ShellFiles, StreamError,
};
use sandtab_vfs::{SandboxFs, Timestamp};
use std::path::Path;
use std::sync::Arc;

/// Adds sandtab's own commands to a shell being built; `gate` is the doors' check.
/// `entropy` is where `uuidgen`, `shuf` and `openssl rand` draw random bytes.
pub(crate) fn register(
    builder: BashBuilder,
    fs: &Arc<SandboxFs>,
    gate: &Arc<Gate>,
    entropy: &Arc<Entropy>,
) -> BashBuilder {
    sandtab_commands::all(fs, gate, entropy)
        .into_iter()
        .fold(builder, |builder, (name, command)| {
            builder.command(name, Adapted(command))
        })
}

/// Makes each granted tool a command of its own name, unless a command of that name
/// exists (then it is reachable as `tool NAME`).
pub(crate) fn register_tools(bash: &Bash, registry: &BuiltinRegistry, gate: &Arc<Gate>) {
    let taken = bash.builtin_names();
    for tool in &gate.capabilities().tools {
        if !taken.iter().any(|name| name == &tool.name) {
            let command = sandtab_commands::tool_by_name(gate, &tool.name);
            registry.insert_command(tool.name.clone(), Adapted(Box::new(command)));
        }
    }
}

/// One of sandtab's commands, run by bashkit.
struct Adapted(Box<dyn Command>);

#[bashkit::async_trait]
impl bashkit::Command for Adapted {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let streams = Streams::new(&ctx);
        let status = self.0.execute(streams.context(&ctx)).await;
        status
            .map(|status| CommandStatus::with_code(status.exit_code))
            .map_err(into_bashkit)
    }
}

/// bashkit's streams and files as sandtab-commands sees them.
pub(crate) struct Streams<'c> {
    stdin: Input<'c>,
    stdout: Output<'c>,
    stderr: Output<'c>,
    files: SystemLayer<'c>,
}

impl<'c> Streams<'c> {
    pub(crate) fn new(ctx: &'c CommandContext<'_>) -> Self {
        Self {
            stdin: Input(&ctx.stdin),
            stdout: Output(&ctx.stdout),
            stderr: Output(&ctx.stderr),
            files: SystemLayer(&*ctx.fs),
        }
    }

    /// The context of the command `ctx` runs.
    pub(crate) fn context<'a>(&'a self, ctx: &'a CommandContext<'_>) -> Context<'a> {
        Context {
            name: ctx.name,
            args: ctx.args,
            env: ctx.env,
            cwd: ctx.cwd,
            stdin: &self.stdin,
            stdout: &self.stdout,
            stderr: &self.stderr,
            shell_files: &self.files,
        }
    }
}

/// A stream's error as bashkit raised it (an output limit, a cancelled exec).
pub(crate) fn into_bashkit(err: StreamError) -> bashkit::Error {
    match err.0.downcast::<bashkit::Error>() {
        Ok(err) => *err,
        Err(other) => bashkit::Error::Io(std::io::Error::other(other)),
    }
}

fn from_bashkit(err: bashkit::Error) -> StreamError {
    StreamError(Box::new(err))
}

struct Input<'c>(&'c bashkit::CommandInput);

#[bashkit::async_trait]
impl InputStream for Input<'_> {
    async fn read_chunk(&self) -> sandtab_commands::Result<Option<Vec<u8>>> {
        self.0.read_chunk().await.map_err(from_bashkit)
    }
}

struct Output<'c>(&'c bashkit::CommandOutput);

#[bashkit::async_trait]
impl OutputStream for Output<'_> {
    async fn write_all(&self, bytes: &[u8]) -> sandtab_commands::Result<()> {
        self.0.write_all(bytes).await.map_err(from_bashkit)
    }
}

/// What bashkit serves beside the sandbox's files: its read-only system layer
/// (`/etc/passwd`, `/proc`) and the `/dev/fd/N` of process substitution.
struct SystemLayer<'c>(&'c dyn FileSystem);

#[bashkit::async_trait]
impl ShellFiles for SystemLayer<'_> {
    async fn stat(&self, path: &Path) -> Option<ShellFile> {
        let meta = self.0.stat(path).await.ok()?;
        let since = meta
            .modified
            .duration_since(bashkit::time::UNIX_EPOCH)
            .unwrap_or_default();
        Some(ShellFile {
            is_dir: meta.file_type.is_dir(),
            is_file: meta.file_type.is_file(),
            size: meta.size,
            modified: Timestamp(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)),
        })
    }

    async fn read(&self, path: &Path) -> Option<Vec<u8>> {
        self.0.read_file(path).await.ok()
    }
}
