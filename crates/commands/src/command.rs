//! What a command is to the shell that runs it: a name, arguments, an environment, a
//! working directory and three streams in; an exit status out. The shell (bashkit,
//! behind `sandtab-shell`) adapts its own command interface to this one, so the
//! commands do not depend on it and their tests run without a shell.

use async_trait::async_trait;
use sandtab_vfs::Timestamp;
use std::collections::HashMap;
use std::path::Path;

/// A command registered under one or more names.
#[async_trait]
pub trait Command: Send + Sync {
    /// Runs once: reads what it needs, writes its output, and returns its status.
    async fn execute(&self, ctx: Context<'_>) -> Result<Status>;
}

/// One invocation of a command.
pub struct Context<'a> {
    /// The name the command was run by (`gunzip` and `zcat` are one command).
    pub name: &'a str,
    /// The arguments after the name, expanded by the shell.
    pub args: &'a [String],
    /// The exported environment, including prefix assignments (`LC_ALL=C cmd`).
    pub env: &'a HashMap<String, String>,
    /// The working directory, absolute.
    pub cwd: &'a Path,
    pub stdin: &'a dyn InputStream,
    pub stdout: &'a dyn OutputStream,
    pub stderr: &'a dyn OutputStream,
    /// Files the shell serves beside the sandbox's (see [`ShellFiles`]).
    pub shell_files: &'a dyn ShellFiles,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("name", &self.name)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

/// How a command ended: its exit status (0 is success).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub exit_code: i32,
}

impl Status {
    pub const fn success() -> Self {
        Self { exit_code: 0 }
    }

    pub const fn with_code(exit_code: i32) -> Self {
        Self { exit_code }
    }
}

/// A stream the shell gave a command could not be used: the shell's own error (an
/// output limit reached, the exec cancelled), handed back to it unchanged.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct StreamError(pub Box<dyn std::error::Error + Send + Sync>);

pub type Result<T> = std::result::Result<T, StreamError>;

/// Standard input, read as it comes.
#[async_trait]
pub trait InputStream: Send + Sync {
    /// The next bytes, or `None` at end of input.
    async fn read_chunk(&self) -> Result<Option<Vec<u8>>>;
}

/// Standard output or standard error.
#[async_trait]
pub trait OutputStream: Send + Sync {
    async fn write_all(&self, bytes: &[u8]) -> Result<()>;
}

/// Files the shell serves itself where the sandbox has none: its read-only system
/// layer (`/etc/passwd`, `/proc/...`) and `/dev/fd/N` of process substitution.
#[async_trait]
pub trait ShellFiles: Send + Sync {
    /// What is at `path`, or `None` when the shell serves nothing there.
    async fn stat(&self, path: &Path) -> Option<ShellFile>;
    /// The contents of the file at `path`.
    async fn read(&self, path: &Path) -> Option<Vec<u8>>;
}

/// What [`ShellFiles::stat`] tells of a file.
#[derive(Debug, Clone, Copy)]
pub struct ShellFile {
    pub is_dir: bool,
    /// A regular file (not a directory, pipe or device).
    pub is_file: bool,
    pub size: u64,
    pub modified: Timestamp,
}

/// The commands a shell registers, by name.
#[derive(Default)]
pub struct Registry {
    commands: Vec<(String, Box<dyn Command>)>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.commands.iter().map(|(name, _)| name))
            .finish()
    }
}

impl Registry {
    /// Adds `command` under `name`.
    #[must_use]
    pub fn command(mut self, name: impl Into<String>, command: impl Command + 'static) -> Self {
        self.commands.push((name.into(), Box::new(command)));
        self
    }

    /// The command registered as `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Command> {
        self.commands
            .iter()
            .find(|(registered, _)| registered == name)
            .map(|(_, command)| command.as_ref())
    }

    /// The names registered, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.commands.iter().map(|(name, _)| name.as_str())
    }
}

impl IntoIterator for Registry {
    type Item = (String, Box<dyn Command>);
    type IntoIter = std::vec::IntoIter<Self::Item>;

    fn into_iter(self) -> Self::IntoIter {
        self.commands.into_iter()
    }
}
