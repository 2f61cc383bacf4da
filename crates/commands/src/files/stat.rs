//! `stat`: GNU coreutils' file status, with `-c`/`--format`, `--printf` (backslash
//! escapes, no newline added), `-L`, `-t` and `-f`, and its default multi-line report.
//!
//! Also what `ls` shares with it: how the sandbox's files look to GNU tools on ext4
//! (owner `agent`, 4096-byte directories, 4 KiB blocks, a directory's link count) and
//! GNU's time formats.

mod format;

use crate::calendar;
use crate::options::{self, Long, Parser, Value};
use crate::util::{Files, Output, strerror, usage_error};
use crate::{Context, Registry, Status};
use format::*;
use sandtab_vfs::{FileKind, MemFs, Metadata, SandboxFs, Timestamp, VfsPath};
use std::fmt::Write as _;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("stat", Stat { fs: fs.clone() })
}

// ---------------------------------------------------------------------------------
// How files look to GNU tools.

/// The user and group every file belongs to.
pub(super) const OWNER: &str = "agent";
/// Their numeric ids.
pub(super) const OWNER_ID: u32 = 1000;
/// The block size of ext4, which sizes files on disk.
const FS_BLOCK: u64 = 4096;
/// The device every file is on (major, minor).
const DEVICE: (u64, u64) = (0, 42);
/// What a symlink this long or longer takes a block for (ext4 keeps shorter ones in
/// the inode).
const FAST_SYMLINK_MAX: u64 = 60;

/// The size GNU tools report: ext4 directories take one block.
pub(super) fn apparent_size(meta: &Metadata) -> u64 {
    match meta.kind {
        FileKind::Directory => FS_BLOCK,
        _ => meta.size,
    }
}

/// Space used on disk, in 512-byte units (`st_blocks`).
/// A count as the C library's signed type holds it (none here comes near the limit).
fn as_signed(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(super) fn blocks_512(meta: &Metadata) -> u64 {
    let bytes = match meta.kind {
        FileKind::Symlink if meta.size < FAST_SYMLINK_MAX => 0,
        _ => apparent_size(meta),
    };
    bytes.div_ceil(FS_BLOCK) * (FS_BLOCK / 512)
}

/// The link count GNU tools report: a directory has one for itself, one for its
/// name, and one for each subdirectory's `..`.
pub(super) fn link_count(fs: &MemFs, path: &VfsPath, meta: &Metadata) -> u64 {
    if meta.kind != FileKind::Directory {
        return u64::from(meta.links);
    }
    let subdirs = fs.read_dir(path).map_or(0, |entries| {
        entries
            .iter()
            .filter(|entry| entry.metadata.kind == FileKind::Directory)
            .count()
    });
    2 + subdirs as u64
}

/// The file type bits of `st_mode`.
fn type_bits(meta: &Metadata) -> u32 {
    match meta.kind {
        FileKind::File => 0o100_000,
        FileKind::Directory => 0o040_000,
        FileKind::Symlink => 0o120_000,
    }
}

/// `-rwxr-xr-x`, as `ls -l` and `stat %A` print the mode.
pub(super) fn mode_string(meta: &Metadata) -> String {
    let mode = meta.mode;
    let mut text = String::with_capacity(10);
    text.push(match meta.kind {
        FileKind::File => '-',
        FileKind::Directory => 'd',
        FileKind::Symlink => 'l',
    });
    // (read bit, write bit, execute bit, special bit, letter when special)
    let triads = [
        (0o400, 0o200, 0o100, 0o4000, 's'),
        (0o040, 0o020, 0o010, 0o2000, 's'),
        (0o004, 0o002, 0o001, 0o1000, 't'),
    ];
    for (read, write, exec, special, letter) in triads {
        text.push(if mode & read != 0 { 'r' } else { '-' });
        text.push(if mode & write != 0 { 'w' } else { '-' });
        text.push(match (mode & exec != 0, mode & special != 0) {
            (true, true) => letter,
            (false, true) => letter.to_ascii_uppercase(),
            (true, false) => 'x',
            (false, false) => '-',
        });
    }
    text
}

/// What `stat %F` calls the file.
pub(super) fn type_name(meta: &Metadata) -> &'static str {
    match meta.kind {
        FileKind::File if meta.size == 0 => "regular empty file",
        FileKind::File => "regular file",
        FileKind::Directory => "directory",
        FileKind::Symlink => "symbolic link",
    }
}

/// Seconds since the epoch, as a signed count.
pub(super) fn epoch_secs(time: Timestamp) -> i64 {
    i64::try_from(time.as_secs()).unwrap_or(i64::MAX)
}

/// `2026-12-01 18:39:42.784255240 +0000`: stat's `%y` and ls's `--full-time`.
pub(super) fn full_time(time: Timestamp) -> String {
    calendar::format("%Y-%m-%d %H:%M:%S.%N %z", time.into())
}

// ---------------------------------------------------------------------------------
// The command.

#[derive(Debug)]
struct Stat {
    fs: Arc<SandboxFs>,
}

/// What the command line asks for.
#[derive(Debug, Default)]
struct Options {
    dereference: bool,
    file_system: bool,
    terse: bool,
    /// The format, and whether it is `--printf`'s (escapes, no newline added).
    format: Option<(String, bool)>,
    operands: Vec<String>,
}

const SPEC: options::Spec<Long> = options::Spec {
    short: "Lftc:",
    long: &[
        ("dereference", Value::No, 'L'),
        ("file-system", Value::No, 'f'),
        ("format", Value::Required, 'c'),
        ("printf", Value::Required, PRINTF),
        ("terse", Value::No, 't'),
        // There is no cache to bypass.
        ("cached", Value::Required, CACHED),
        ("help", Value::No, options::HELP),
        ("version", Value::No, options::VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// Keys of stat's long-only options.
const PRINTF: char = 'p';
const CACHED: char = 'C';

enum Parsed {
    Run(Options),
    Usage(String),
    Help,
    Version,
}

fn parse_args(args: &[String]) -> Parsed {
    read_args(args).unwrap_or_else(|err| Parsed::Usage(err.into()))
}

fn read_args(args: &[String]) -> Result<Parsed, options::UsageError> {
    let mut options = Options::default();
    let mut parser = Parser::new(&SPEC, args);
    while let Some((key, value)) = parser.next_option(&mut options.operands)? {
        let value = value.unwrap_or_default();
        match key {
            'L' => options.dereference = true,
            'f' => options.file_system = true,
            't' => options.terse = true,
            'c' => options.format = Some((value.to_owned(), false)),
            PRINTF => options.format = Some((value.to_owned(), true)),
            options::HELP => return Ok(Parsed::Help),
            options::VERSION => return Ok(Parsed::Version),
            _ => {}
        }
    }
    if options.operands.is_empty() {
        return Ok(Parsed::Usage("missing operand".into()));
    }
    Ok(Parsed::Run(options))
}

const HELP: &str = "Usage: stat [OPTION]... FILE...
Display file or file system status.

  -L, --dereference     follow links
  -f, --file-system     display file system status instead of file status
  -c  --format=FORMAT   use the specified FORMAT instead of the default;
                          output a newline after each use of FORMAT
      --printf=FORMAT   like --format, but interpret backslash escapes,
                          and do not output a mandatory trailing newline
  -t, --terse           print the information in terse form
      --help        display this help and exit
      --version     output version information and exit
";

/// GNU's formats when none is given.
const DEFAULT_BODY: &str = "  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n\
Device: %Hd,%Ld\tInode: %-11i Links: %h\n\
Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n\
Access: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const TERSE: &str = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";
const FS_DEFAULT: &str = "  File: \"%n\"\n    ID: %-8i Namelen: %-7l Type: %T\n\
Block size: %-10s Fundamental block size: %S\n\
Blocks: Total: %-10b Free: %-10f Available: %a\n\
Inodes: Total: %-10c Free: %d\n";
const FS_TERSE: &str = "%n %i %l %t %s %S %b %f %a %c %d\n";

#[async_trait::async_trait]
impl crate::Command for Stat {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse_args(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Help => {
                ctx.stdout.write_all(HELP.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
            Parsed::Version => {
                ctx.stdout.write_all(b"stat (GNU coreutils) 9.1\n").await?;
                return Ok(Status::with_code(0));
            }
        };
        let files = Files::new(&self.fs, &ctx);
        let mut out = Output::new(&ctx);
        let mut code = 0;
        for operand in &options.operands {
            let report = if options.file_system {
                file_system_report(&files, operand, &options)
            } else {
                file_report(&files, operand, &options)
            };
            match report {
                Ok((text, warnings)) => {
                    for warning in warnings {
                        out.err(format!("stat: warning: {warning}\n")).await?;
                    }
                    out.out(text).await?;
                }
                Err(message) => {
                    out.err(format!("stat: {message}\n")).await?;
                    code = 1;
                }
            }
        }
        out.finish(code).await
    }
}

/// The report on one file, with any warnings about the format; or the error message.
fn file_report(
    files: &Files<'_>,
    operand: &str,
    options: &Options,
) -> Result<(Vec<u8>, Vec<String>), String> {
    let cannot = |err: &sandtab_vfs::VfsError| {
        format!("cannot statx {}: {}", quote_always(operand), strerror(err))
    };
    let path = files.path(operand).map_err(|err| cannot(&err))?;
    let mem = files.fs.mem();
    let meta = if options.dereference {
        mem.stat(&path)
    } else {
        mem.lstat(&path)
    }
    .map_err(|err| cannot(&err))?;
    let target = match meta.kind {
        FileKind::Symlink => mem.read_link(&path).ok(),
        _ => None,
    };
    let file = StatFile {
        name: operand,
        links: link_count(mem, &path, &meta),
        meta,
        target,
    };
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    match &options.format {
        Some((format, printf)) => {
            expand(format, *printf, &mut out, &mut warnings, &|spec, out| {
                file.directive(spec, out);
            });
            if !printf {
                out.push(b'\n');
            }
        }
        None if options.terse => {
            expand(TERSE, false, &mut out, &mut warnings, &|spec, out| {
                file.directive(spec, out);
            });
        }
        None => {
            out.extend_from_slice(b"  File: ");
            out.extend_from_slice(file.name.as_bytes());
            if let Some(target) = &file.target {
                out.extend_from_slice(b" -> ");
                out.extend_from_slice(target.as_bytes());
            }
            out.push(b'\n');
            expand(
                DEFAULT_BODY,
                false,
                &mut out,
                &mut warnings,
                &|spec, out| {
                    file.directive(spec, out);
                },
            );
        }
    }
    Ok((out, warnings))
}

/// `stat -f`: the file system the file is on.
fn file_system_report(
    files: &Files<'_>,
    operand: &str,
    options: &Options,
) -> Result<(Vec<u8>, Vec<String>), String> {
    let cannot = |err: &sandtab_vfs::VfsError| {
        format!(
            "cannot read file system information for {}: {}",
            quote_always(operand),
            strerror(err)
        )
    };
    let path = files.path(operand).map_err(|err| cannot(&err))?;
    let mem = files.fs.mem();
    mem.stat(&path).map_err(|err| cannot(&err))?;
    let system = FileSystem::of(mem, operand);
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let (format, printf, newline) = match &options.format {
        Some((format, printf)) => (format.as_str(), *printf, !printf),
        None if options.terse => (FS_TERSE, false, false),
        None => (FS_DEFAULT, false, false),
    };
    expand(format, printf, &mut out, &mut warnings, &|spec, out| {
        system.directive(spec, out);
    });
    if newline {
        out.push(b'\n');
    }
    Ok((out, warnings))
}

/// One file's status, as the directives see it.
struct StatFile<'a> {
    name: &'a str,
    meta: Metadata,
    links: u64,
    target: Option<String>,
}

impl StatFile<'_> {
    fn directive(&self, spec: &Spec, out: &mut Vec<u8>) {
        match (spec.prefix, spec.letter) {
            (Some('H'), 'd') => spec.unsigned(DEVICE.0, out),
            (Some('L'), 'd') => spec.unsigned(DEVICE.1, out),
            (Some(_), _) => spec.unsigned(0, out), // %Hr, %Lr: not a device file.
            (None, letter) => self.plain_directive(letter, spec, out),
        }
    }

    fn plain_directive(&self, letter: char, spec: &Spec, out: &mut Vec<u8>) {
        let meta = &self.meta;
        match letter {
            'n' => spec.string(self.name, out),
            'N' => spec.string(&self.quoted_name(), out),
            // GNU prints the size and the file system's block counts as signed numbers
            // (`off_t`, `fsblkcnt_t` through `out_int`): `%+s` gives `+5`.
            's' => spec.signed(as_signed(apparent_size(meta)), out),
            'a' => spec.octal(u64::from(meta.mode & 0o7777), out),
            'A' => spec.string(&mode_string(meta), out),
            'f' => spec.hex(u64::from(type_bits(meta) | (meta.mode & 0o7777)), out),
            'F' => spec.string(type_name(meta), out),
            'h' => spec.unsigned(self.links, out),
            'i' => spec.unsigned(meta.ino, out),
            'u' | 'g' => spec.unsigned(u64::from(OWNER_ID), out),
            'U' | 'G' => spec.string(OWNER, out),
            'b' => spec.unsigned(blocks_512(meta), out),
            'B' => spec.unsigned(512, out),
            'o' => spec.unsigned(FS_BLOCK, out),
            'd' => spec.unsigned(DEVICE.0 << 8 | DEVICE.1, out),
            'D' => spec.hex(DEVICE.0 << 8 | DEVICE.1, out),
            't' | 'T' => spec.hex(0, out),
            'm' => spec.string("/", out),
            'x' => spec.string(&full_time(meta.accessed), out),
            'y' => spec.string(&full_time(meta.modified), out),
            'z' => spec.string(&full_time(meta.changed), out),
            'w' => spec.string(&full_time(meta.created), out),
            'X' => spec.epoch(meta.accessed, out),
            'Y' => spec.epoch(meta.modified, out),
            'Z' => spec.epoch(meta.changed, out),
            'W' => spec.epoch(meta.created, out),
            _ => spec.string("?", out),
        }
    }

    /// `%N`: the name quoted, and a symlink's target.
    fn quoted_name(&self) -> String {
        let mut text = quote_always(self.name);
        if let Some(target) = &self.target {
            let _ = write!(text, " -> {}", quote_always(target));
        }
        text
    }
}

/// A name quoted as GNU's `shell-escape-always` style writes it (in messages of `ls`
/// and `stat`, and `stat %N`): in single quotes, or double quotes for a name that has
/// a single quote and nothing a double-quoted string would expand.
pub(super) fn quote_always(name: &str) -> String {
    if !name.contains('\'') {
        format!("'{name}'")
    } else if !name.contains(['"', '$', '`', '\\', '!']) {
        format!("\"{name}\"")
    } else {
        format!("'{}'", name.replace('\'', "'\\''"))
    }
}

/// What `stat -f` reports about the sandbox's file system.
struct FileSystem {
    name: String,
    total_blocks: u64,
    free_blocks: u64,
    total_inodes: u64,
    free_inodes: u64,
}

impl FileSystem {
    /// Blocks and inodes in a sandbox without a quota, as a 1 TiB disk would have.
    const UNLIMITED_BLOCKS: u64 = 1 << 28;
    const UNLIMITED_INODES: u64 = 1 << 26;

    fn of(fs: &MemFs, name: &str) -> Self {
        let quota = fs.quota();
        let usage = fs.usage();
        let total_blocks = (quota.max_bytes / FS_BLOCK).min(Self::UNLIMITED_BLOCKS);
        let used_blocks = usage.bytes.div_ceil(FS_BLOCK);
        let total_inodes = quota.max_entries.min(Self::UNLIMITED_INODES);
        let used_inodes = usage.files + usage.dirs;
        Self {
            name: name.to_owned(),
            total_blocks,
            free_blocks: total_blocks.saturating_sub(used_blocks),
            total_inodes,
            free_inodes: total_inodes.saturating_sub(used_inodes),
        }
    }

    fn directive(&self, spec: &Spec, out: &mut Vec<u8>) {
        match spec.letter {
            'n' => spec.string(&self.name, out),
            'i' => spec.hex(0, out),
            'l' => spec.unsigned(255, out),
            't' => spec.hex(0x0102_1994, out),
            'T' => spec.string("tmpfs", out),
            's' | 'S' => spec.unsigned(FS_BLOCK, out),
            'b' => spec.signed(as_signed(self.total_blocks), out),
            'f' | 'a' => spec.signed(as_signed(self.free_blocks), out),
            'c' => spec.unsigned(self.total_inodes, out),
            'd' => spec.signed(as_signed(self.free_inodes), out),
            _ => spec.string("?", out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(kind: FileKind, mode: u32, size: u64) -> Metadata {
        Metadata {
            kind,
            size,
            mode,
            ino: 7,
            links: 1,
            modified: Timestamp(0),
            accessed: Timestamp(0),
            changed: Timestamp(0),
            created: Timestamp(0),
        }
    }

    fn run(format: &str, printf: bool, file: &StatFile<'_>) -> (String, Vec<String>) {
        let mut out = Vec::new();
        let mut warnings = Vec::new();
        expand(format, printf, &mut out, &mut warnings, &|spec, out| {
            file.directive(spec, out);
        });
        (String::from_utf8_lossy(&out).into_owned(), warnings)
    }

    #[test]
    fn mode_strings() {
        assert_eq!(mode_string(&meta(FileKind::File, 0o644, 1)), "-rw-r--r--");
        assert_eq!(
            mode_string(&meta(FileKind::Directory, 0o1777, 0)),
            "drwxrwxrwt"
        );
        assert_eq!(mode_string(&meta(FileKind::File, 0o4644, 0)), "-rwSr--r--");
        assert_eq!(
            mode_string(&meta(FileKind::Symlink, 0o777, 1)),
            "lrwxrwxrwx"
        );
    }

    #[test]
    fn directives_with_widths() {
        let file = StatFile {
            name: "f",
            meta: meta(FileKind::File, 0o644, 6),
            links: 1,
            target: None,
        };
        assert_eq!(run("%s %n %a %F", false, &file).0, "6 f 644 regular file");
        assert_eq!(
            run("[%-4s|%4s|%04s|%.3s]", false, &file).0,
            "[6   |   6|0006|006]"
        );
        assert_eq!(
            run("%04a/%10.10A %#a %f", false, &file).0,
            "0644/-rw-r--r-- 0644 81a4"
        );
        assert_eq!(run("%q %% %", false, &file).0, "? % %");
        assert_eq!(run("%.3Y", false, &file).0, "0.000");
    }

    #[test]
    fn printf_escapes() {
        let file = StatFile {
            name: "a",
            meta: meta(FileKind::File, 0o644, 0),
            links: 1,
            target: None,
        };
        let (text, warnings) = run("%n\\t\\x41\\101\\q\\n", true, &file);
        assert_eq!(text, "a\tAAq\n");
        assert_eq!(warnings, vec!["unrecognized escape '\\q'".to_owned()]);
        assert_eq!(run("%n\\n", false, &file).0, "a\\n");
    }

    #[test]
    fn quoted_names() {
        let link = StatFile {
            name: "l",
            meta: meta(FileKind::Symlink, 0o777, 1),
            links: 1,
            target: Some("it's".into()),
        };
        assert_eq!(run("%N", false, &link).0, "'l' -> \"it's\"");
        assert_eq!(quote_always("a'$b"), "'a'\\''$b'");
    }

    #[test]
    fn arguments() {
        let args: Vec<String> = ["-Lc", "%s", "x"].iter().map(|s| s.to_string()).collect();
        let Parsed::Run(options) = parse_args(&args) else {
            panic!("expected options");
        };
        assert!(options.dereference);
        assert_eq!(options.format, Some(("%s".into(), false)));
        assert!(matches!(parse_args(&[]), Parsed::Usage(_)));
        let args: Vec<String> = ["--printf=%n", "x"].iter().map(|s| s.to_string()).collect();
        let Parsed::Run(options) = parse_args(&args) else {
            panic!("expected options");
        };
        assert_eq!(options.format, Some(("%n".into(), true)));
    }
}
