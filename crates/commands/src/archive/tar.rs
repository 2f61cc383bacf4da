//! `tar`: create (`c`), append (`r`, `u`), list (`t`) and extract (`x`) archives,
//! with GNU tar's options (`f`, `z`, `v`, `C`, `O`, `--strip-components`,
//! `--exclude`, old-style clusters such as `tar czf`), messages and exit statuses.
//! Archives are GNU format, so real tar reads them and they read real tar's.

mod create;
mod extract;

use crate::files::fileops::Run;
use crate::files::fileops::args::{self, Arg, Spec, Value};
use crate::wildcard;
use crate::{Context, Registry, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

struct Tar {
    fs: Arc<SandboxFs>,
}

#[async_trait::async_trait]
impl crate::Command for Tar {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        run(&self.fs, &ctx).await
    }
}

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("tar", Tar { fs: fs.clone() })
}

const HELP: char = '\u{e070}';
const VERSION: char = '\u{e071}';
const USAGE: char = '\u{e072}';
const EXCLUDE: char = '\u{e073}';
const STRIP: char = '\u{e074}';
const SKIP_OLD: char = '\u{e075}';
const OVERWRITE: char = '\u{e076}';
const OWNER: char = '\u{e077}';
const GROUP: char = '\u{e078}';
const NUMERIC_OWNER: char = '\u{e079}';
const MTIME: char = '\u{e07a}';
const WILDCARDS: char = '\u{e07b}';
const NO_WILDCARDS: char = '\u{e07c}';
const NO_RECURSION: char = '\u{e07d}';
const RECURSION: char = '\u{e07e}';
const REMOVE_FILES: char = '\u{e07f}';
const IGNORED: char = '\u{e080}';
const IGNORED_VALUE: char = '\u{e081}';
const ZSTD: char = '\u{e082}';
const NO_SAME_PERMISSIONS: char = '\u{e083}';
const DELETE: char = '\u{e084}';

const SPEC: Spec = Spec {
    short: "AcdrtuxC:f:zjJZavOpmkhPT:X:UoSsb:BWw",
    long: &[
        ("absolute-names", Value::No, 'P'),
        ("anchored", Value::No, IGNORED),
        ("append", Value::No, 'r'),
        ("auto-compress", Value::No, 'a'),
        ("blocking-factor", Value::Required, 'b'),
        ("bzip2", Value::No, 'j'),
        ("catenate", Value::No, 'A'),
        ("compress", Value::No, 'Z'),
        ("concatenate", Value::No, 'A'),
        ("create", Value::No, 'c'),
        ("delay-directory-restore", Value::No, IGNORED),
        ("delete", Value::No, DELETE),
        ("dereference", Value::No, 'h'),
        ("diff", Value::No, 'd'),
        ("directory", Value::Required, 'C'),
        ("exclude", Value::Required, EXCLUDE),
        ("exclude-from", Value::Required, 'X'),
        ("exclude-vcs", Value::No, IGNORED),
        ("extract", Value::No, 'x'),
        ("file", Value::Required, 'f'),
        ("files-from", Value::Required, 'T'),
        ("format", Value::Required, IGNORED_VALUE),
        ("full-time", Value::No, IGNORED),
        ("get", Value::No, 'x'),
        ("group", Value::Required, GROUP),
        ("gunzip", Value::No, 'z'),
        ("gzip", Value::No, 'z'),
        ("help", Value::No, HELP),
        ("ignore-zeros", Value::No, IGNORED),
        ("keep-old-files", Value::No, 'k'),
        ("list", Value::No, 't'),
        ("lzma", Value::No, 'J'),
        ("mode", Value::Required, IGNORED_VALUE),
        ("mtime", Value::Required, MTIME),
        ("no-anchored", Value::No, IGNORED),
        ("no-overwrite-dir", Value::No, IGNORED),
        ("no-recursion", Value::No, NO_RECURSION),
        ("no-same-owner", Value::No, 'o'),
        ("no-same-permissions", Value::No, NO_SAME_PERMISSIONS),
        ("no-wildcards", Value::No, NO_WILDCARDS),
        ("numeric-owner", Value::No, NUMERIC_OWNER),
        ("one-file-system", Value::No, IGNORED),
        ("overwrite", Value::No, OVERWRITE),
        ("owner", Value::Required, OWNER),
        ("posix", Value::No, IGNORED),
        ("preserve-permissions", Value::No, 'p'),
        ("record-size", Value::Required, IGNORED_VALUE),
        ("recursion", Value::No, RECURSION),
        ("remove-files", Value::No, REMOVE_FILES),
        ("same-owner", Value::No, IGNORED),
        ("same-permissions", Value::No, 'p'),
        ("skip-old-files", Value::No, SKIP_OLD),
        ("sort", Value::Required, IGNORED_VALUE),
        ("strip-components", Value::Required, STRIP),
        ("to-stdout", Value::No, 'O'),
        ("totals", Value::No, IGNORED),
        ("touch", Value::No, 'm'),
        ("uncompress", Value::No, 'Z'),
        ("ungzip", Value::No, 'z'),
        ("unlink-first", Value::No, 'U'),
        ("update", Value::No, 'u'),
        ("usage", Value::No, USAGE),
        ("verbose", Value::No, 'v'),
        ("version", Value::No, VERSION),
        ("warning", Value::Required, IGNORED_VALUE),
        ("wildcards", Value::No, WILDCARDS),
        ("xz", Value::No, 'J'),
        ("zstd", Value::No, ZSTD),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

/// What the archive is to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Create,
    Append,
    Update,
    List,
    Extract,
}

/// A compression program tar would run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    Gzip,
    /// One the sandbox does not have (`bzip2`, `xz`, `compress`, `zstd`).
    Missing(&'static str),
}

/// A member named on the command line, and the `-C` directories before it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    dirs: Vec<String>,
    name: String,
}

struct Options {
    operation: Option<Operation>,
    archive: String,
    compression: Compression,
    auto_compress: bool,
    verbose: u32,
    to_stdout: bool,
    touch: bool,
    keep_old: bool,
    skip_old: bool,
    dereference: bool,
    absolute_names: bool,
    recursion: bool,
    remove_files: bool,
    wildcards: Option<bool>,
    strip: usize,
    excludes: Vec<String>,
    owner: Option<String>,
    group: Option<String>,
    numeric_owner: bool,
    mtime: Option<i64>,
    members: Vec<Member>,
    /// The `-C` directories in force at the end (where extraction happens).
    dirs: Vec<String>,
}

/// A tar run: the shared command state, and whether a non-fatal error happened (the
/// run then ends with "Exiting with failure status", exit 2).
struct Session<'r, 'c, 'a> {
    run: &'r mut Run<'c, 'a>,
    options: Options,
    failed: bool,
    /// Prefixes already reported as removed from member names.
    removed_prefixes: Vec<String>,
}

/// GNU tar's usage status for a bad option given with a dash.
const EX_USAGE: i32 = 64;

async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let mut run = Run::new(fs, ctx);
    let parsed = match expand_old_style(ctx.args) {
        Ok(expanded) => args::parse_in_order(&expanded, &SPEC).map_err(|m| (m, EX_USAGE)),
        Err(message) => Err((message, 2)),
    };
    let items = match parsed {
        Ok(items) => items,
        Err((message, status)) => {
            run.status = usage_error(&mut run, &message, status).await?;
            return run.finish().await;
        }
    };
    let options = match read_options(&mut run, items).await? {
        Ok(options) => options,
        Err(status) => {
            run.status = status;
            return run.finish().await;
        }
    };
    let mut session = Session {
        run: &mut run,
        options,
        failed: false,
        removed_prefixes: Vec::new(),
    };
    let status = match session.options.operation {
        Some(Operation::Create | Operation::Append | Operation::Update) => session.create().await?,
        Some(Operation::List | Operation::Extract) => session.extract().await?,
        None => 2,
    };
    let status = if status == 0 && session.failed {
        session.failed_end().await?
    } else {
        status
    };
    run.status = status;
    run.finish().await
}

/// Rewrites an old-style first argument (`czf out.tgz`) as dashed options, taking the
/// values of `f`, `C`, `T`, `X` and `b` from the arguments after it in order.
fn expand_old_style(args: &[String]) -> Result<Vec<String>, String> {
    let Some(first) = args
        .first()
        .filter(|a| !a.is_empty() && !a.starts_with('-'))
    else {
        return Ok(args.to_vec());
    };
    let mut rest = args[1..].iter();
    let mut expanded = Vec::new();
    for letter in first.chars() {
        expanded.push(format!("-{letter}"));
        if "fCTXb".contains(letter) {
            match rest.next() {
                Some(value) => expanded.push(value.clone()),
                None => return Err(format!("Old option '{letter}' requires an argument.")),
            }
        }
    }
    expanded.extend(rest.cloned());
    Ok(expanded)
}

/// GNU tar's usage error: the message and its `Try` line; the exit status.
async fn usage_error(run: &mut Run<'_, '_>, message: &str, status: i32) -> crate::Result<i32> {
    run.warn(format!(
        "{message}\nTry 'tar --help' or 'tar --usage' for more information."
    ))
    .await?;
    Ok(status)
}

impl Options {
    fn new() -> Self {
        Self {
            operation: None,
            archive: "-".to_owned(),
            compression: Compression::None,
            auto_compress: false,
            verbose: 0,
            to_stdout: false,
            touch: false,
            keep_old: false,
            skip_old: false,
            dereference: false,
            absolute_names: false,
            recursion: true,
            remove_files: false,
            wildcards: None,
            strip: 0,
            excludes: Vec::new(),
            owner: None,
            group: None,
            numeric_owner: false,
            mtime: None,
            members: Vec::new(),
            dirs: Vec::new(),
        }
    }

    /// Adds `names` as members, under the `-C` directories given so far.
    fn add_members(&mut self, names: impl IntoIterator<Item = String>) {
        for name in names {
            self.members.push(Member {
                dirs: self.dirs.clone(),
                name,
            });
        }
    }

    /// Applies an option that needs nothing but its value; a usage error's message.
    fn set(&mut self, key: char, value: String) -> Result<(), String> {
        match key {
            'f' => self.archive = value,
            'C' => self.dirs.push(value),
            'z' => self.compression = Compression::Gzip,
            'j' => self.compression = Compression::Missing("bzip2"),
            'J' => self.compression = Compression::Missing("xz"),
            'Z' => self.compression = Compression::Missing("compress"),
            ZSTD => self.compression = Compression::Missing("zstd"),
            'a' => self.auto_compress = true,
            'v' => self.verbose += 1,
            'O' => self.to_stdout = true,
            'm' => self.touch = true,
            'k' => self.keep_old = true,
            SKIP_OLD => self.skip_old = true,
            OVERWRITE | 'U' => {
                self.keep_old = false;
                self.skip_old = false;
            }
            'h' => self.dereference = true,
            'P' => self.absolute_names = true,
            NO_RECURSION => self.recursion = false,
            RECURSION => self.recursion = true,
            REMOVE_FILES => self.remove_files = true,
            WILDCARDS => self.wildcards = Some(true),
            NO_WILDCARDS => self.wildcards = Some(false),
            EXCLUDE => self.excludes.push(value),
            OWNER => self.owner = Some(value),
            GROUP => self.group = Some(value),
            NUMERIC_OWNER => self.numeric_owner = true,
            STRIP => {
                self.strip = value
                    .parse()
                    .map_err(|_| format!("{value}: Invalid number of elements"))?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The operation an option letter asks for.
fn operation_of(key: char) -> Option<Operation> {
    match key {
        'c' => Some(Operation::Create),
        'r' => Some(Operation::Append),
        'u' => Some(Operation::Update),
        't' => Some(Operation::List),
        'x' => Some(Operation::Extract),
        _ => None,
    }
}

/// The options and members `items` give; `Err` with the status after a usage problem
/// (or `--help`).
async fn read_options(
    run: &mut Run<'_, '_>,
    items: Vec<Arg>,
) -> crate::Result<Result<Options, i32>> {
    let mut options = Options::new();
    let mut operations = 0;
    for item in items {
        let (key, value) = match item {
            Arg::Operand(name) => {
                options.add_members([name]);
                continue;
            }
            Arg::Option(key, value) => (key, value.unwrap_or_default()),
        };
        if let Some(operation) = operation_of(key) {
            if options.operation != Some(operation) {
                operations += 1;
            }
            options.operation = Some(operation);
            continue;
        }
        match key {
            'A' | 'd' | DELETE => {
                let message = "this operation is not supported in the sandbox";
                return usage_error(run, message, 2).await.map(Err);
            }
            'T' | 'X' => {
                let Some(lines) = list_file(run, &value).await? else {
                    return Ok(Err(2));
                };
                if key == 'T' {
                    options.add_members(lines);
                } else {
                    options.excludes.extend(lines);
                }
            }
            MTIME => {
                if let Some(secs) = parse_mtime(run, &value) {
                    options.mtime = Some(secs);
                } else {
                    let message = format!(
                        "Substituting 1970-01-01 00:00:00 for unknown date format '{value}'"
                    );
                    run.warn(message).await?;
                    options.mtime = Some(0);
                }
            }
            HELP | USAGE => return help(run).await.map(Err),
            VERSION => {
                run.out.out("tar (GNU tar) 1.34\n").await?;
                return Ok(Err(0));
            }
            _ => {
                if let Err(message) = options.set(key, value) {
                    return usage_error(run, &message, 2).await.map(Err);
                }
            }
        }
    }
    let message = match operations {
        0 => "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options",
        1 => return Ok(Ok(options)),
        _ => "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option",
    };
    usage_error(run, message, 2).await.map(Err)
}

/// `--mtime=DATE`: a date, or the modification time of the file it names.
fn parse_mtime(run: &Run<'_, '_>, value: &str) -> Option<i64> {
    use crate::files::fileops::date;
    if value.starts_with(['/', '.']) {
        return run
            .files
            .stat(value)
            .ok()
            .and_then(|meta| i64::try_from(meta.modified.as_secs()).ok());
    }
    let now = date::Instant::from_nanos(run.fs().mem().now().0);
    date::parse_date(value, now).map(|instant| instant.secs)
}

/// The lines of `-T`/`-X`'s file (`-` for stdin); `None` after a fatal error.
async fn list_file(run: &mut Run<'_, '_>, name: &str) -> crate::Result<Option<Vec<String>>> {
    let data = if name == "-" {
        crate::util::read_stdin(run.ctx()).await?
    } else {
        match run.read(name).await {
            Ok(data) => data,
            Err(err) => {
                let message = format!(
                    "{name}: Cannot open: {}\ntar: Error is not recoverable: exiting now",
                    crate::util::strerror(&err)
                );
                run.warn(message).await?;
                return Ok(None);
            }
        }
    };
    let text = String::from_utf8_lossy(&data);
    Ok(Some(
        text.lines()
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect(),
    ))
}

async fn help(run: &mut Run<'_, '_>) -> crate::Result<i32> {
    let text = "Usage: tar [OPTION...] [FILE]...\n\
        GNU 'tar' saves many files together into a single tape or disk archive, and can\n\
        restore individual files from the archive.\n\n\
        Examples:\n\
        \x20 tar -cf archive.tar foo bar  # Create archive.tar from files foo and bar.\n\
        \x20 tar -tvf archive.tar         # List all files in archive.tar verbosely.\n\
        \x20 tar -xf archive.tar          # Extract all files from archive.tar.\n\n\
        \x20 -c, --create               create a new archive\n\
        \x20 -r, --append               append files to the end of an archive\n\
        \x20 -t, --list                 list the contents of an archive\n\
        \x20 -u, --update               only append files newer than copy in archive\n\
        \x20 -x, --extract, --get       extract files from an archive\n\
        \x20 -C, --directory=DIR        change to directory DIR\n\
        \x20 -f, --file=ARCHIVE         use archive file or device ARCHIVE\n\
        \x20 -O, --to-stdout            extract files to standard output\n\
        \x20 -v, --verbose              verbosely list files processed\n\
        \x20 -z, --gzip                 filter the archive through gzip\n\
        \x20     --exclude=PATTERN      exclude files, given as a PATTERN\n\
        \x20     --strip-components=NUMBER   strip NUMBER leading components from file\n\
        \x20                            names on extraction\n";
    run.out.out(text).await?;
    Ok(0)
}

impl Session<'_, '_, '_> {
    /// A non-fatal error: reported now, and the run fails at its end.
    async fn error(&mut self, message: impl AsRef<str>) -> crate::Result<()> {
        self.failed = true;
        self.run.warn(message).await
    }

    /// A fatal error: `message`, then "Error is not recoverable"; the status (2).
    async fn fatal(&mut self, message: impl AsRef<str>) -> crate::Result<i32> {
        self.run.warn(message).await?;
        self.run
            .warn("Error is not recoverable: exiting now")
            .await?;
        Ok(2)
    }

    /// The end of a run that had errors.
    async fn failed_end(&mut self) -> crate::Result<i32> {
        self.run
            .warn("Exiting with failure status due to previous errors")
            .await?;
        Ok(2)
    }

    /// Where the member listing goes: stderr when stdout carries the archive or the
    /// extracted data.
    async fn list_line(&mut self, line: &str) -> crate::Result<()> {
        let to_stderr = self.options.to_stdout
            || (self.options.archive == "-"
                && matches!(
                    self.options.operation,
                    Some(Operation::Create | Operation::Append | Operation::Update)
                ));
        if to_stderr {
            self.run.out.err(format!("{line}\n")).await
        } else {
            self.run.say(line).await
        }
    }

    /// `name` without the leading `/` and `../` GNU tar takes off member names
    /// (saying so once per prefix), unless `-P`.
    async fn safe_name(&mut self, name: &str, what: &str) -> crate::Result<String> {
        if self.options.absolute_names {
            return Ok(name.to_owned());
        }
        let mut rest = name;
        loop {
            if let Some(after) = rest.strip_prefix('/') {
                rest = after;
            } else if let Some(after) = rest.strip_prefix("../") {
                rest = after;
            } else if rest == ".." {
                rest = "";
            } else {
                break;
            }
        }
        let prefix = &name[..name.len() - rest.len()];
        if !prefix.is_empty() {
            let prefix = if prefix.trim_matches('/').is_empty() {
                "/".to_owned()
            } else if prefix.starts_with('/') {
                "/../".to_owned()
            } else {
                "../".to_owned()
            };
            let key = format!("{prefix}{what}");
            if !self.removed_prefixes.contains(&key) {
                self.removed_prefixes.push(key);
                self.run
                    .warn(format!("Removing leading `{prefix}' from {what}"))
                    .await?;
            }
        }
        Ok(rest.to_owned())
    }

    /// GNU tar's warning, once per prefix, that `prefix` was cut from `what` (as
    /// "hard link targets"); nothing when `prefix` is empty.
    async fn removing_prefix(&mut self, prefix: &str, what: &str) -> crate::Result<()> {
        let key = format!("{prefix}{what}");
        if prefix.is_empty() || self.removed_prefixes.contains(&key) {
            return Ok(());
        }
        self.removed_prefixes.push(key);
        self.run
            .warn(format!("Removing leading `{prefix}' from {what}"))
            .await
    }

    /// Whether `name` (a member's name) matches an `--exclude` pattern.
    fn excluded(&self, name: &str) -> bool {
        let trimmed = name.trim_end_matches('/');
        self.options.excludes.iter().any(|pattern| {
            let pattern = pattern.trim_end_matches('/');
            wildcard::matches(pattern, trimmed)
                || trimmed
                    .match_indices('/')
                    .any(|(at, _)| wildcard::matches(pattern, &trimmed[at + 1..]))
        })
    }
}

#[cfg(test)]
mod tests;
