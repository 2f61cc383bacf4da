//! What sandtab's own commands share: paths resolved against the working directory,
//! file contents loaded from storage when needed, GNU-style messages, and buffered
//! output.

#![allow(dead_code)] // Shared helpers; each command uses the ones it needs.

use crate::{Context, Status};
use sandtab_vfs::{ErrorKind, Metadata, SandboxFs, VfsError, VfsPath};
use std::sync::Arc;

/// The files a command works on, and where relative paths start.
pub(crate) struct Files<'a> {
    pub fs: &'a Arc<SandboxFs>,
    pub cwd: VfsPath,
}

impl<'a> Files<'a> {
    pub fn new(fs: &'a Arc<SandboxFs>, ctx: &Context<'_>) -> Self {
        let cwd = ctx
            .cwd
            .to_str()
            .and_then(|cwd| VfsPath::parse(cwd).ok())
            .unwrap_or_else(VfsPath::root);
        Self { fs, cwd }
    }

    /// `arg` (as the user wrote it) as a sandbox path.
    pub fn path(&self, arg: &str) -> Result<VfsPath, VfsError> {
        if arg.starts_with('/') {
            VfsPath::parse(arg)
        } else {
            self.cwd.join(arg)
        }
    }

    /// The contents of the file at `arg`, loaded from storage if they are not yet.
    pub async fn read(&self, arg: &str) -> Result<Vec<u8>, VfsError> {
        let path = self.path(arg)?;
        self.fs.load_for_read(&path).await?;
        self.fs.mem().read(&path)
    }

    /// Replaces the contents of the file at `arg` (created if missing).
    pub async fn write(&self, arg: &str, data: &[u8]) -> Result<(), VfsError> {
        let path = self.path(arg)?;
        if self.fs.mem().exists(&path) {
            self.fs.load_for_write(&path).await?;
        }
        self.fs.mem().write(&path, data)
    }

    /// Metadata of `arg`, following symlinks.
    pub fn stat(&self, arg: &str) -> Result<Metadata, VfsError> {
        self.fs.mem().stat(&self.path(arg)?)
    }

    /// Metadata of `arg` itself.
    pub fn lstat(&self, arg: &str) -> Result<Metadata, VfsError> {
        self.fs.mem().lstat(&self.path(arg)?)
    }
}

/// The C library's text for an error, as GNU tools print it after the file name.
pub(crate) fn strerror(err: &VfsError) -> &'static str {
    err.kind().description()
}

/// Whether `err` means the file does not exist.
pub(crate) fn is_missing(err: &VfsError) -> bool {
    err.kind() == ErrorKind::NotFound
}

/// A file name quoted as GNU coreutils quote names in messages (`'a b'`, and plain
/// when nothing in it needs quoting).
pub(crate) fn quote(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+,:@%^=".contains(c));
    if plain {
        name.to_owned()
    } else if !name.contains('\'') {
        format!("'{name}'")
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// Everything on standard input.
pub(crate) async fn read_stdin(ctx: &Context<'_>) -> crate::Result<Vec<u8>> {
    let mut all = Vec::new();
    while let Some(chunk) = ctx.stdin.read_chunk().await? {
        all.extend_from_slice(&chunk);
    }
    Ok(all)
}

/// A command's output, collected and written when it ends (or when it grows large).
pub(crate) struct Output<'c, 'a> {
    ctx: &'c Context<'a>,
    out: Vec<u8>,
}

impl<'c, 'a> Output<'c, 'a> {
    const FLUSH_AT: usize = 64 * 1024;

    pub fn new(ctx: &'c Context<'a>) -> Self {
        Self {
            ctx,
            out: Vec::new(),
        }
    }

    /// Adds to stdout.
    pub async fn out(&mut self, bytes: impl AsRef<[u8]>) -> crate::Result<()> {
        self.out.extend_from_slice(bytes.as_ref());
        if self.out.len() >= Self::FLUSH_AT {
            self.flush().await?;
        }
        Ok(())
    }

    /// Writes to stderr at once (after what stdout holds so far).
    pub async fn err(&mut self, text: impl AsRef<str>) -> crate::Result<()> {
        self.flush().await?;
        self.ctx.stderr.write_all(text.as_ref().as_bytes()).await
    }

    pub async fn flush(&mut self) -> crate::Result<()> {
        if !self.out.is_empty() {
            let out = std::mem::take(&mut self.out);
            self.ctx.stdout.write_all(&out).await?;
        }
        Ok(())
    }

    /// Flushes and ends the command with `code`.
    pub async fn finish(mut self, code: i32) -> crate::Result<Status> {
        self.flush().await?;
        Ok(Status::with_code(code))
    }
}

/// GNU's usage error: the message, the `Try '...' line`, and exit status `code`.
/// Prints `text` (a command's `--help` or `--version`) and succeeds.
pub(crate) async fn print_info(ctx: &Context<'_>, text: &str) -> crate::Result<Status> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(Status::with_code(0))
}

pub(crate) async fn usage_error(
    ctx: &Context<'_>,
    message: &str,
    code: i32,
) -> crate::Result<Status> {
    let name = ctx.name;
    ctx.stderr
        .write_all(
            format!("{name}: {message}\nTry '{name} --help' for more information.\n").as_bytes(),
        )
        .await?;
    Ok(Status::with_code(code))
}

/// A word as GNU quotes it for the shell (`'*.log'`), plain when nothing needs it.
pub(crate) fn shell_quote(word: &str) -> String {
    let special = |(at, c): (usize, char)| {
        c.is_whitespace()
            || c.is_control()
            || "!\"$&'()*;<=>?[\\^`|".contains(c)
            || (at == 0 && "#~".contains(c))
    };
    if !word.is_empty() && !word.char_indices().any(special) {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}
