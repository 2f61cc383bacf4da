//! GNU's text utilities: head, wc, cut, seq, base64, join and the checksum commands
//! (md5sum, sha1sum, sha256sum, sha512sum), with GNU's options, output formats,
//! messages and exit statuses. Files are read whole from the sandbox (it holds them in
//! memory anyway); standard input is streamed where that matters (`yes | head`).

mod base64;
mod checksum;
mod cut;
mod digest;
mod float_format;
mod head;
mod join;
mod seq;
mod wc;

use crate::util::{Files, is_missing, read_stdin, strerror};
use crate::{Context, Registry};
use sandtab_vfs::{FileKind, SandboxFs, VfsError};
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    let builder = builder
        .command("head", head::Head { fs: fs.clone() })
        .command("wc", wc::Wc { fs: fs.clone() })
        .command("cut", cut::Cut { fs: fs.clone() })
        .command("seq", seq::Seq)
        .command("base64", base64::Base64 { fs: fs.clone() })
        .command("join", join::Join { fs: fs.clone() });
    checksum::register(builder, fs)
}

/// What `/dev/zero` yields when read whole (as bashkit's own commands bound it).
const DEV_ZERO_BYTES: usize = 1 << 20;

/// Why an input could not be read: it could not be opened (GNU's `cannot open`), or
/// reading it failed (a directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InputError {
    Open(&'static str),
    Read(&'static str),
}

impl InputError {
    /// The C library's text for the error.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Open(reason) | Self::Read(reason) => reason,
        }
    }
}

/// The inputs of one command run: file operands, and standard input (read once: a
/// second `-` finds it at its end, as in GNU).
pub(super) struct Inputs<'c, 'a> {
    ctx: &'c Context<'a>,
    files: Files<'c>,
    stdin_read: bool,
}

impl<'c, 'a> Inputs<'c, 'a> {
    pub fn new(fs: &'c Arc<SandboxFs>, ctx: &'c Context<'a>) -> Self {
        Self {
            ctx,
            files: Files::new(fs, ctx),
            stdin_read: false,
        }
    }

    /// Whether `operand` names standard input.
    pub fn is_stdin(operand: &str) -> bool {
        matches!(operand, "-" | "/dev/stdin" | "/dev/fd/0")
    }

    /// All of standard input (empty once it has been read).
    pub async fn stdin(&mut self) -> crate::Result<Vec<u8>> {
        if std::mem::replace(&mut self.stdin_read, true) {
            return Ok(Vec::new());
        }
        read_stdin(self.ctx).await
    }

    /// Marks standard input as read by a caller that streams it itself; whether it
    /// had been read already.
    pub fn stdin_consumed(&mut self) -> bool {
        std::mem::replace(&mut self.stdin_read, true)
    }

    /// The contents of `operand`: standard input for `-`, else the file.
    pub async fn read(&mut self, operand: &str) -> crate::Result<Result<Vec<u8>, InputError>> {
        if Self::is_stdin(operand) {
            return Ok(Ok(self.stdin().await?));
        }
        Ok(self.read_file(operand).await)
    }

    /// The contents of the file `operand` (devices as Linux has them, and what bashkit
    /// serves itself: system files such as `/etc/passwd`, process substitutions).
    pub async fn read_file(&self, operand: &str) -> Result<Vec<u8>, InputError> {
        match operand {
            "/dev/null" => return Ok(Vec::new()),
            "/dev/zero" => return Ok(vec![0; DEV_ZERO_BYTES]),
            _ => {}
        }
        let meta = match self.files.stat(operand) {
            Ok(meta) => meta,
            Err(err) if is_missing(&err) => return self.read_system(operand, &err).await,
            Err(err) => return Err(InputError::Open(strerror(&err))),
        };
        if meta.kind == FileKind::Directory {
            return Err(InputError::Read("Is a directory"));
        }
        self.files
            .read(operand)
            .await
            .map_err(|err| InputError::Read(strerror(&err)))
    }

    /// `operand` from the shell's read-only system layer, or `missing` as the error.
    async fn read_system(&self, operand: &str, missing: &VfsError) -> Result<Vec<u8>, InputError> {
        let not_found = InputError::Open(strerror(missing));
        let Some(path) = self.system_path(operand) else {
            return Err(not_found);
        };
        match self.ctx.shell_files.stat(&path).await {
            Some(file) if file.is_dir => Err(InputError::Read("Is a directory")),
            Some(_) => self.ctx.shell_files.read(&path).await.ok_or(not_found),
            None => Err(not_found),
        }
    }

    /// The absolute path of `operand` if it lies in a tree of the shell's system layer.
    fn system_path(&self, operand: &str) -> Option<PathBuf> {
        let path = self.files.path(operand).ok()?.to_string();
        let system = SYSTEM_TREES
            .iter()
            .any(|tree| path == *tree || path.starts_with(&format!("{tree}/")));
        system.then(|| PathBuf::from(path))
    }

    /// The size of `operand` if it is a regular file (wc sizes its columns by them).
    pub async fn regular_size(&self, operand: &str) -> Option<u64> {
        if Self::is_stdin(operand) || operand.starts_with("/dev/") {
            return None;
        }
        match self.files.stat(operand) {
            Ok(meta) => (meta.kind == FileKind::File).then_some(meta.size),
            Err(_) => {
                let file = self
                    .ctx
                    .shell_files
                    .stat(&self.system_path(operand)?)
                    .await?;
                file.is_file.then_some(file.size)
            }
        }
    }

    /// Whether `operand` exists (so that an open of it would succeed).
    pub async fn opens(&self, operand: &str) -> bool {
        if Self::is_stdin(operand)
            || matches!(operand, "/dev/null" | "/dev/zero")
            || self.files.stat(operand).is_ok()
        {
            return true;
        }
        match self.system_path(operand) {
            Some(path) => self.ctx.shell_files.stat(&path).await.is_some(),
            None => false,
        }
    }
}

/// The trees the shell serves itself when the sandbox lacks them: its read-only system
/// layer, and `/dev/fd/N` for process substitution (`join <(sort a) <(sort b)`).
const SYSTEM_TREES: &[&str] = &["/etc", "/proc", "/bin", "/usr/bin", "/root", "/dev"];

/// Whether the environment's locale is UTF-8 (a locale set to C or POSIX is not;
/// none set counts as UTF-8, as on the systems agents know).
pub(super) fn utf8_locale(ctx: &Context<'_>) -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|name| ctx.env.get(*name))
        .find(|value| !value.is_empty());
    match locale {
        None => true,
        Some(value) => {
            let value = value.to_ascii_lowercase();
            value.contains("utf-8") || value.contains("utf8")
        }
    }
}

/// Writes `text` to stdout and ends with status 0 (`--help`, `--version`).
pub(super) async fn print_and_exit(ctx: &Context<'_>, text: &str) -> crate::Result<crate::Status> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(crate::Status::success())
}
