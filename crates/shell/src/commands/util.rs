//! What sandtab's own commands share: paths resolved against the working directory,
//! file contents loaded from storage when needed, GNU-style messages, and buffered
//! output.

#![allow(dead_code)] // Shared helpers; each command uses the ones it needs.

use bashkit::{CommandContext, CommandStatus};
use sandtab_vfs::{ErrorKind, Metadata, SandboxFs, VfsError, VfsPath};
use std::sync::Arc;

/// The files a command works on, and where relative paths start.
pub(crate) struct Files<'a> {
    pub fs: &'a Arc<SandboxFs>,
    pub cwd: VfsPath,
}

impl<'a> Files<'a> {
    pub fn new(fs: &'a Arc<SandboxFs>, ctx: &CommandContext<'_>) -> Self {
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
pub(crate) async fn read_stdin(ctx: &CommandContext<'_>) -> bashkit::Result<Vec<u8>> {
    let mut all = Vec::new();
    while let Some(chunk) = ctx.stdin.read_chunk().await? {
        all.extend_from_slice(&chunk);
    }
    Ok(all)
}

/// A command's output, collected and written when it ends (or when it grows large).
pub(crate) struct Output<'c, 'a> {
    ctx: &'c CommandContext<'a>,
    out: Vec<u8>,
}

impl<'c, 'a> Output<'c, 'a> {
    const FLUSH_AT: usize = 64 * 1024;

    pub fn new(ctx: &'c CommandContext<'a>) -> Self {
        Self {
            ctx,
            out: Vec::new(),
        }
    }

    /// Adds to stdout.
    pub async fn out(&mut self, bytes: impl AsRef<[u8]>) -> bashkit::Result<()> {
        self.out.extend_from_slice(bytes.as_ref());
        if self.out.len() >= Self::FLUSH_AT {
            self.flush().await?;
        }
        Ok(())
    }

    /// Writes to stderr at once (after what stdout holds so far).
    pub async fn err(&mut self, text: impl AsRef<str>) -> bashkit::Result<()> {
        self.flush().await?;
        self.ctx.stderr.write_all(text.as_ref().as_bytes()).await
    }

    pub async fn flush(&mut self) -> bashkit::Result<()> {
        if !self.out.is_empty() {
            let out = std::mem::take(&mut self.out);
            self.ctx.stdout.write_all(&out).await?;
        }
        Ok(())
    }

    /// Flushes and ends the command with `code`.
    pub async fn finish(mut self, code: i32) -> bashkit::Result<CommandStatus> {
        self.flush().await?;
        Ok(CommandStatus::with_code(code))
    }
}

/// GNU's usage error: the message, the `Try '...' line`, and exit status `code`.
/// Prints `text` (a command's `--help` or `--version`) and succeeds.
pub(crate) async fn print_info(
    ctx: &CommandContext<'_>,
    text: &str,
) -> bashkit::Result<CommandStatus> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(CommandStatus::with_code(0))
}

pub(crate) async fn usage_error(
    ctx: &CommandContext<'_>,
    message: &str,
    code: i32,
) -> bashkit::Result<CommandStatus> {
    let name = ctx.name;
    ctx.stderr
        .write_all(
            format!("{name}: {message}\nTry '{name} --help' for more information.\n").as_bytes(),
        )
        .await?;
    Ok(CommandStatus::with_code(code))
}

/// One item of a GNU-style command line (see [`GnuArgs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgItem<'a> {
    /// `-x`, alone or within a cluster (`-rf`).
    Short(char),
    /// `--name` or `--name=value` (the name as written: resolve it with [`resolve_long`]).
    Long(&'a str, Option<&'a str>),
    /// An operand (after `--`, everything is one).
    Operand(&'a str),
}

/// A GNU `getopt_long` style reader: combined short flags (`-rf`), values attached or
/// separate (`-n5`, `-n 5`, `--lines=5`, `--lines 5`), `--` ending the options, and
/// options after operands (unless the command stops at its first operand).
#[derive(Debug)]
pub(crate) struct GnuArgs<'a> {
    args: &'a [String],
    next: usize,
    /// Within a cluster of short flags: the argument's index and the next flag's offset.
    cluster: Option<(usize, usize)>,
    operands_only: bool,
    stop_at_operand: bool,
}

impl<'a> GnuArgs<'a> {
    pub fn new(args: &'a [String]) -> Self {
        Self {
            args,
            next: 0,
            cluster: None,
            operands_only: false,
            stop_at_operand: false,
        }
    }

    /// Options end at the first operand (getopt's `+`, as `basename` and `env` do).
    pub fn stopping_at_operand(mut self) -> Self {
        self.stop_at_operand = true;
        self
    }

    /// The next item, or `None` at the end.
    pub fn next_item(&mut self) -> Option<ArgItem<'a>> {
        if let Some((index, offset)) = self.cluster {
            let arg = &self.args[index];
            if let Some(flag) = arg[offset..].chars().next() {
                let after = offset + flag.len_utf8();
                self.cluster = (after < arg.len()).then_some((index, after));
                return Some(ArgItem::Short(flag));
            }
            self.cluster = None;
        }
        let arg = self.args.get(self.next)?.as_str();
        self.next += 1;
        if self.operands_only || arg == "-" || !arg.starts_with('-') {
            if self.stop_at_operand {
                self.operands_only = true;
            }
            return Some(ArgItem::Operand(arg));
        }
        if arg == "--" {
            self.operands_only = true;
            return self.next_item();
        }
        if let Some(long) = arg.strip_prefix("--") {
            return Some(match long.split_once('=') {
                Some((name, value)) => ArgItem::Long(name, Some(value)),
                None => ArgItem::Long(long, None),
            });
        }
        self.cluster = Some((self.next - 1, 1));
        self.next_item()
    }

    /// The value of the short option just read: the rest of its cluster, or the next
    /// argument.
    pub fn short_value(&mut self) -> Option<&'a str> {
        if let Some((index, offset)) = self.cluster.take() {
            return Some(&self.args[index][offset..]);
        }
        self.take_next()
    }

    /// The optional value of the short option just read: the rest of its cluster only
    /// (getopt's `::`, as in `date -Iseconds`).
    pub fn short_value_attached(&mut self) -> Option<&'a str> {
        let (index, offset) = self.cluster.take()?;
        Some(&self.args[index][offset..])
    }

    /// The value of the long option just read: the one after `=`, or the next argument.
    pub fn long_value(&mut self, inline: Option<&'a str>) -> Option<&'a str> {
        inline.or_else(|| self.take_next())
    }

    fn take_next(&mut self) -> Option<&'a str> {
        let value = self.args.get(self.next)?;
        self.next += 1;
        Some(value)
    }
}

/// The long option `given` names among `names`: itself, or the one name it abbreviates.
/// The error is getopt's message.
pub(crate) fn resolve_long<'n>(given: &str, names: &[&'n str]) -> Result<&'n str, String> {
    if let Some(exact) = names.iter().find(|name| **name == given) {
        return Ok(exact);
    }
    let matches: Vec<&'n str> = names
        .iter()
        .copied()
        .filter(|name| !given.is_empty() && name.starts_with(given))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("unrecognized option '--{given}'")),
        many => {
            let listed: Vec<String> = many.iter().map(|name| format!("'--{name}'")).collect();
            Err(format!(
                "option '--{given}' is ambiguous; possibilities: {}",
                listed.join(" ")
            ))
        }
    }
}

impl<'a> GnuArgs<'a> {
    /// Resolves the long option just read (`given`, with the value after `=` if any)
    /// among `names`, written `name` (no value), `name=` (a value required) or `name?`
    /// (a value optional, only after `=`). Gives the option's name and value, or
    /// getopt's message.
    pub fn long_option<'n>(
        &mut self,
        given: &str,
        inline: Option<&'a str>,
        names: &[&'n str],
    ) -> Result<(&'n str, Option<&'a str>), String> {
        let bare: Vec<&'n str> = names
            .iter()
            .map(|name| name.trim_end_matches(['=', '?']))
            .collect();
        let name = resolve_long(given, &bare).map_err(|message| match inline {
            Some(value) if message.starts_with("unrecognized") => {
                format!("unrecognized option '--{given}={value}'")
            }
            _ => message,
        })?;
        let written = names
            .iter()
            .find(|written| written.trim_end_matches(['=', '?']) == name)
            .copied()
            .unwrap_or(name);
        if written.ends_with('=') {
            return match self.long_value(inline) {
                Some(value) => Ok((name, Some(value))),
                None => Err(format!("option '--{name}' requires an argument")),
            };
        }
        if !written.ends_with('?') && inline.is_some() {
            return Err(format!("option '--{name}' doesn't allow an argument"));
        }
        Ok((name, inline))
    }
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
