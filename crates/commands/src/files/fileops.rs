//! The coreutils that change the filesystem: `mkdir`, `rmdir`, `rm`, `cp`, `mv`, `ln`,
//! `touch` and `chmod`, with GNU's options, messages and exit statuses, on the
//! sandbox's filesystem directly (so hard links, modes and times are real).

pub(crate) mod args;
mod chmod;
mod cp;
pub(crate) mod date;
mod ln;
mod mkdir;
pub(crate) mod modes;
mod mv;
mod rm;
mod target;
mod touch;

use crate::util::{Files, Output, strerror};
use crate::{Context, Registry, Status};
use sandtab_vfs::{ErrorKind, FileKind, Metadata, SandboxFs, Timestamp, VfsError, VfsPath};
use std::collections::VecDeque;
use std::sync::Arc;

/// Defines a command struct that runs `$run(fs, ctx)`.
macro_rules! file_command {
    ($ty:ident, $run:path) => {
        struct $ty {
            fs: Arc<SandboxFs>,
        }

        #[async_trait::async_trait]
        impl crate::Command for $ty {
            async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
                $run(&self.fs, &ctx).await
            }
        }
    };
}

file_command!(Mkdir, mkdir::mkdir);
file_command!(Rmdir, mkdir::rmdir);
file_command!(Rm, rm::run);
file_command!(Cp, cp::run);
file_command!(Mv, mv::run);
file_command!(Ln, ln::run);
file_command!(Touch, touch::run);
file_command!(Chmod, chmod::run);

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    let fs = || fs.clone();
    builder
        .command("mkdir", Mkdir { fs: fs() })
        .command("rmdir", Rmdir { fs: fs() })
        .command("rm", Rm { fs: fs() })
        .command("cp", Cp { fs: fs() })
        .command("mv", Mv { fs: fs() })
        .command("ln", Ln { fs: fs() })
        .command("touch", Touch { fs: fs() })
        .command("chmod", Chmod { fs: fs() })
}

/// A file name quoted as coreutils quote names in most messages: always in quotes
/// (`'d'`), double quotes when it holds a single quote.
pub(crate) fn quote_always(name: &str) -> String {
    if name.contains('\'') {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        format!("'{name}'")
    }
}

/// The name of `child` in the directory named `parent`, as the user would spell it
/// (`d/x`, and `d/x` for `d/` too).
pub(crate) fn child_name(parent: &str, child: &str) -> String {
    if parent.ends_with('/') {
        format!("{parent}{child}")
    } else {
        format!("{parent}/{child}")
    }
}

/// The last name in `arg` (`b` for `a/b/`), as `basename` gives it.
pub(crate) fn base_name(arg: &str) -> &str {
    let trimmed = arg.trim_end_matches('/');
    if trimmed.is_empty() {
        return if arg.is_empty() { "" } else { "/" };
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// Whether `path` is the null device (which the shell knows only in redirections:
/// commands that take it as a file operand read nothing from it and write to it in
/// vain, as on Linux).
pub(crate) fn is_dev_null(path: &VfsPath) -> bool {
    path.components().len() == 2 && path.to_string() == "/dev/null"
}

/// What `stat /dev/null` would give, for commands that treat it as an empty file.
pub(crate) fn dev_null_metadata() -> Metadata {
    Metadata {
        kind: FileKind::File,
        size: 0,
        mode: 0o666,
        ino: 0,
        links: 1,
        modified: Timestamp(0),
        accessed: Timestamp(0),
        changed: Timestamp(0),
        created: Timestamp(0),
    }
}

/// One command's run: its files, buffered output and exit status so far.
pub(crate) struct Run<'c, 'a> {
    pub files: Files<'c>,
    pub out: Output<'c, 'a>,
    pub name: &'a str,
    pub status: i32,
    answers: Option<VecDeque<String>>,
    ctx: &'c Context<'a>,
}

impl<'c, 'a> Run<'c, 'a> {
    pub fn new(fs: &'c Arc<SandboxFs>, ctx: &'c Context<'a>) -> Self {
        Self {
            files: Files::new(fs, ctx),
            out: Output::new(ctx),
            name: ctx.name,
            status: 0,
            answers: None,
            ctx,
        }
    }

    /// The command's context (its stdin, environment, ...).
    pub fn ctx(&self) -> &'c Context<'a> {
        self.ctx
    }

    pub fn fs(&self) -> &'c Arc<SandboxFs> {
        self.files.fs
    }

    /// Prints `name: message` to stderr and marks the run failed.
    pub async fn fail(&mut self, message: impl AsRef<str>) -> crate::Result<()> {
        self.status = 1;
        self.warn(message).await
    }

    /// Prints `name: message` to stderr without changing the status.
    pub async fn warn(&mut self, message: impl AsRef<str>) -> crate::Result<()> {
        let line = format!("{}: {}\n", self.name, message.as_ref());
        self.out.err(line).await
    }

    /// GNU's usage error (message and `Try` line), exit status 1.
    pub async fn usage(mut self, message: &str) -> crate::Result<Status> {
        let name = self.name;
        self.out
            .err(format!(
                "{name}: {message}\nTry '{name} --help' for more information.\n"
            ))
            .await?;
        self.out.finish(1).await
    }

    /// GNU's usage error (message and `Try` line), continuing with status 1.
    pub async fn usage_error(&mut self, message: &str) -> crate::Result<()> {
        self.status = 1;
        let name = self.name;
        self.out
            .err(format!(
                "{name}: {message}\nTry '{name} --help' for more information.\n"
            ))
            .await
    }

    pub async fn finish(self) -> crate::Result<Status> {
        let status = self.status;
        self.out.finish(status).await
    }

    /// Asks `question` on stderr and reads the answer from stdin (as coreutils' `-i`
    /// does): yes when the line starts with `y` or `Y`; no at the end of input.
    pub async fn ask(&mut self, question: &str) -> crate::Result<bool> {
        self.out.err(format!("{}: {question}? ", self.name)).await?;
        if self.answers.is_none() {
            let input = crate::util::read_stdin(self.ctx).await?;
            let text = String::from_utf8_lossy(&input);
            self.answers = Some(text.lines().map(str::to_owned).collect());
        }
        let answer = self.answers.as_mut().and_then(VecDeque::pop_front);
        Ok(answer.is_some_and(|line| line.starts_with(['y', 'Y'])))
    }

    /// `arg` as a sandbox path; an empty name names nothing (not the working
    /// directory).
    pub fn path(&self, arg: &str) -> Result<VfsPath, VfsError> {
        if arg.is_empty() {
            return Err(VfsError::new(ErrorKind::NotFound, arg));
        }
        self.files.path(arg)
    }

    /// Metadata of `arg`, following symlinks.
    pub fn stat(&self, arg: &str) -> Result<Metadata, VfsError> {
        self.files.fs.mem().stat(&self.path(arg)?)
    }

    /// The contents of the file `arg`, loaded from storage if need be.
    pub async fn read(&self, arg: &str) -> Result<Vec<u8>, VfsError> {
        let path = self.path(arg)?;
        self.files.fs.load_for_read(&path).await?;
        self.files.fs.mem().read(&path)
    }

    /// The entry `arg` names, not following a final symlink, except that a trailing
    /// slash means the directory a symlink points to (as the kernel reads `link/`).
    pub fn lstat_arg(&self, arg: &str) -> Result<Metadata, VfsError> {
        let path = self.path(arg)?;
        let mem = self.files.fs.mem();
        if arg.len() > 1 && arg.ends_with('/') {
            let meta = mem.stat(&path)?;
            if meta.kind != FileKind::Directory {
                return Err(VfsError::new(ErrorKind::NotADirectory, arg));
            }
            return Ok(meta);
        }
        mem.lstat(&path)
    }

    /// `message` for `err` the way coreutils word it: `what 'arg': strerror`.
    pub async fn fail_at(&mut self, what: &str, arg: &str, err: &VfsError) -> crate::Result<()> {
        let message = format!("{what} {}: {}", quote_always(arg), strerror(err));
        self.fail(message).await
    }

    /// Prints a line on stdout (where `-v` messages go).
    pub async fn say(&mut self, line: impl AsRef<str>) -> crate::Result<()> {
        self.out.out(line.as_ref()).await?;
        self.out.out("\n").await
    }
}

/// Why reading a command's options ended without options to run with.
pub(crate) enum Stop {
    Help,
    Version,
    /// A usage error: GNU's message.
    Usage(String),
}

/// Prints a short usage text for `--help`.
pub(crate) async fn help(ctx: &Context<'_>, usage: &str) -> crate::Result<Status> {
    ctx.stdout
        .write_all(format!("Usage: {} {usage}\n", ctx.name).as_bytes())
        .await?;
    Ok(Status::with_code(0))
}

/// Prints the version line for `--version`.
pub(crate) async fn version(ctx: &Context<'_>) -> crate::Result<Status> {
    ctx.stdout
        .write_all(format!("{} (GNU coreutils) 9.1\n", ctx.name).as_bytes())
        .await?;
    Ok(Status::with_code(0))
}

/// The key `--help` reports as in every spec.
pub(crate) const HELP: char = '\u{e000}';
/// The key `--version` reports as in every spec.
pub(crate) const VERSION: char = '\u{e001}';

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(quote_always("d"), "'d'");
        assert_eq!(quote_always("a b"), "'a b'");
        assert_eq!(quote_always("it's"), "\"it's\"");
        assert_eq!(child_name("d", "x"), "d/x");
        assert_eq!(child_name("d/", "x"), "d/x");
        assert_eq!(base_name("a/b/"), "b");
        assert_eq!(base_name("b"), "b");
        assert_eq!(base_name("/"), "/");
    }
}
