//! `diff`: GNU diffutils' `diff` over the sandbox's files. Normal, unified, context,
//! ed, RCS and side-by-side output, directory comparison (`-r`, `-N`), the usual ways
//! of ignoring differences (`-i -w -b -Z -B -I`), and GNU's exit statuses: 0 same,
//! 1 different, 2 trouble.
//!
//! The lines are compared by Myers' algorithm (the `similar` crate), as GNU's are, so
//! the scripts are as short as GNU's; where several are equally short, GNU's heuristics
//! may choose another.

mod compare;
mod output;

use super::util::{Files, Output, is_missing, read_stdin, shell_quote, strerror};
use bashkit::{BashBuilder, CommandContext, CommandStatus};
use compare::*;
use output::*;
use regex::bytes::Regex;
use sandtab_vfs::{FileKind, SandboxFs, Timestamp, VfsPath};
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) fn register(builder: BashBuilder, fs: &Arc<SandboxFs>) -> BashBuilder {
    builder.command("diff", Diff { fs: fs.clone() })
}

struct Diff {
    fs: Arc<SandboxFs>,
}

#[bashkit::async_trait]
impl bashkit::Command for Diff {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let parsed = match parse_args(ctx.args) {
            Ok(parsed) => parsed,
            Err(message) => return usage_error(&ctx, &message).await,
        };
        let (opts, operands) = match parsed {
            Parsed::Help => return print_and_exit(&ctx, HELP).await,
            Parsed::Version => return print_and_exit(&ctx, VERSION).await,
            Parsed::Run(opts, operands) => (opts, operands),
        };
        let mut opts = opts;
        opts.iso_times = hard_locale(ctx.env, "LC_TIME");
        opts.utf8_names = utf8_locale(ctx.env);
        let files = Files::new(&self.fs, &ctx);
        for name in std::mem::take(&mut opts.exclude_from) {
            match files.read(&name).await {
                Ok(data) => opts.excludes.extend(
                    split_lines(&data)
                        .into_iter()
                        .map(|line| String::from_utf8_lossy(content(line)).into_owned())
                        .filter(|pattern| !pattern.is_empty()),
                ),
                Err(err) => {
                    let text = format!("diff: {name}: {}\n", strerror(&err));
                    ctx.stderr.write_all(text.as_bytes()).await?;
                    return Ok(CommandStatus::with_code(2));
                }
            }
        }
        let mut run = Run {
            fs: &self.fs,
            files: Files::new(&self.fs, &ctx),
            ctx: &ctx,
            out: Output::new(&ctx),
            opts: *opts,
            stdin: None,
        };
        let status = run.top(&operands[0], &operands[1]).await?;
        run.out.finish(status).await
    }
}

/// GNU diff's usage error: `diff: message` and `diff: Try 'diff --help' ...`, status 2.
async fn usage_error(ctx: &CommandContext<'_>, message: &str) -> bashkit::Result<CommandStatus> {
    let text = format!("diff: {message}\ndiff: Try 'diff --help' for more information.\n");
    ctx.stderr.write_all(text.as_bytes()).await?;
    Ok(CommandStatus::with_code(2))
}

async fn print_and_exit(ctx: &CommandContext<'_>, text: &str) -> bashkit::Result<CommandStatus> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(CommandStatus::with_code(0))
}

const VERSION: &str = "diff (GNU diffutils) 3.8\n";

const HELP: &str = "\
Usage: diff [OPTION]... FILES
Compare FILES line by line.

  -q, --brief                   report only when files differ
  -s, --report-identical-files  report when two files are the same
  -c, -C NUM, --context[=NUM]   output NUM (default 3) lines of copied context
  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified context
  -e, --ed                      output an ed script
  -n, --rcs                     output an RCS format diff
  -y, --side-by-side            output in two columns
  -W, --width=NUM               output at most NUM (default 130) print columns
      --suppress-common-lines   do not output common lines
  -p, --show-c-function         show which C function each change is in
  -F, --show-function-line=RE   show the most recent line matching RE
      --label LABEL             use LABEL instead of file name and timestamp
  -t, --expand-tabs             expand tabs to spaces in output
  -T, --initial-tab             make tabs line up by prepending a tab
  -r, --recursive               recursively compare any subdirectories found
  -N, --new-file                treat absent files as empty
      --unidirectional-new-file treat absent first files as empty
  -x, --exclude=PAT             exclude files that match PAT
  -X, --exclude-from=FILE       exclude files that match any pattern in FILE
  -i, --ignore-case             ignore case differences in file contents
  -E, --ignore-tab-expansion    ignore changes due to tab expansion
  -Z, --ignore-trailing-space   ignore white space at line end
  -b, --ignore-space-change     ignore changes in the amount of white space
  -w, --ignore-all-space        ignore all white space
  -B, --ignore-blank-lines      ignore changes where lines are all blank
  -I, --ignore-matching-lines=RE  ignore changes where all lines match RE
  -a, --text                    treat all files as text
      --strip-trailing-cr       strip trailing carriage return on input
      --help                    display this help and exit
  -v, --version                 output version information and exit

Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.
";

use super::getopt::{self, Arg, HasArg};

const LONG_OPTIONS: &[(&str, HasArg)] = &[
    ("normal", HasArg::No),
    ("brief", HasArg::No),
    ("report-identical-files", HasArg::No),
    ("context", HasArg::Optional),
    ("unified", HasArg::Optional),
    ("ed", HasArg::No),
    ("rcs", HasArg::No),
    ("side-by-side", HasArg::No),
    ("width", HasArg::Required),
    ("left-column", HasArg::No),
    ("suppress-common-lines", HasArg::No),
    ("show-c-function", HasArg::No),
    ("show-function-line", HasArg::Required),
    ("label", HasArg::Required),
    ("expand-tabs", HasArg::No),
    ("initial-tab", HasArg::No),
    ("tabsize", HasArg::Required),
    ("suppress-blank-empty", HasArg::No),
    ("paginate", HasArg::No),
    ("new-file", HasArg::No),
    ("unidirectional-new-file", HasArg::No),
    ("recursive", HasArg::No),
    ("no-dereference", HasArg::No),
    ("exclude", HasArg::Required),
    ("exclude-from", HasArg::Required),
    ("starting-file", HasArg::Required),
    ("ignore-file-name-case", HasArg::No),
    ("no-ignore-file-name-case", HasArg::No),
    ("ignore-case", HasArg::No),
    ("ignore-tab-expansion", HasArg::No),
    ("ignore-trailing-space", HasArg::No),
    ("ignore-space-change", HasArg::No),
    ("ignore-all-space", HasArg::No),
    ("ignore-blank-lines", HasArg::No),
    ("ignore-matching-lines", HasArg::Required),
    ("text", HasArg::No),
    ("strip-trailing-cr", HasArg::No),
    ("binary", HasArg::No),
    ("minimal", HasArg::No),
    ("horizon-lines", HasArg::Required),
    ("speed-large-files", HasArg::No),
    ("color", HasArg::Optional),
    ("palette", HasArg::Required),
    ("help", HasArg::No),
    ("version", HasArg::No),
];

const SPEC: getopt::Spec = getopt::Spec {
    flags: "0123456789abBcdeEfhHilnNpqrstTuvwyZ",
    with_value: "CUDFILSWxX",
    long: LONG_OPTIONS,
};

/// The output formats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Normal,
    Unified,
    Context,
    Ed,
    Rcs,
    SideBySide,
}

/// How lines are compared.
#[derive(Clone, Debug, Default)]
struct Compare {
    ignore_case: bool,
    all_space: bool,
    space_change: bool,
    trailing_space: bool,
    strip_cr: bool,
    blank_lines: bool,
    /// `-d`: no discarding of lines, no cost cut-off.
    minimal: bool,
    matching: Vec<Regex>,
}

impl Compare {
    /// Whether any option makes different bytes count as the same.
    fn ignores_anything(&self) -> bool {
        self.ignore_case
            || self.all_space
            || self.space_change
            || self.trailing_space
            || self.strip_cr
            || self.blank_lines
            || !self.matching.is_empty()
    }
}

#[derive(Debug)]
struct Options {
    format: Format,
    context: usize,
    brief: bool,
    report_identical: bool,
    recursive: bool,
    new_file: bool,
    left_new_file: bool,
    text: bool,
    labels: Vec<String>,
    excludes: Vec<String>,
    /// `-X`: files of patterns to exclude, read before comparing.
    exclude_from: Vec<String>,
    function_line: Option<Regex>,
    initial_tab: bool,
    expand_tabs: bool,
    tab_size: usize,
    width: usize,
    /// `--horizon-lines`: identical lines kept around the compared part.
    horizon: usize,
    /// The locale dates context headers the ISO way (it is not C or POSIX).
    iso_times: bool,
    /// The locale shows UTF-8 file names as they are.
    utf8_names: bool,
    suppress_common: bool,
    left_column: bool,
    compare: Compare,
    /// The options as given, for the `diff -r a/f b/f` lines of directory comparisons.
    switches: String,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            format: Format::Normal,
            context: 3,
            brief: false,
            report_identical: false,
            recursive: false,
            new_file: false,
            left_new_file: false,
            text: false,
            labels: Vec::new(),
            excludes: Vec::new(),
            exclude_from: Vec::new(),
            function_line: None,
            initial_tab: false,
            expand_tabs: false,
            tab_size: 8,
            width: 130,
            horizon: 0,
            iso_times: false,
            utf8_names: false,
            suppress_common: false,
            left_column: false,
            compare: Compare::default(),
            switches: String::new(),
        }
    }
}

enum Parsed {
    Run(Box<Options>, Vec<String>),
    Help,
    Version,
}

fn parse_args(args: &[String]) -> Result<Parsed, String> {
    let mut opts = Options::default();
    let mut operands = Vec::new();
    // Obsolete `-NUM` context lengths (`-5u`): digits accumulate.
    let mut digits: Option<usize> = None;
    let mut last_was_digit = false;
    for (arg, raw) in getopt::parse(args, &SPEC)? {
        for word in raw {
            opts.switches.push(' ');
            opts.switches.push_str(&shell_quote(&word));
        }
        let is_digit = matches!(arg, Arg::Short(c, None) if c.is_ascii_digit());
        match arg {
            Arg::Operand(operand) => operands.push(operand),
            Arg::Short(c, None) if c.is_ascii_digit() => {
                let base = if last_was_digit {
                    digits.unwrap_or(0)
                } else {
                    0
                };
                let digit = c.to_digit(10).map_or(0, |d| d as usize);
                let value = base.saturating_mul(10).saturating_add(digit);
                digits = Some(value);
                opts.context = value;
            }
            Arg::Short(c, value) => {
                if let Some(done) = short_option(&mut opts, c, value)? {
                    return Ok(done);
                }
            }
            Arg::Long(name, value) => {
                if let Some(done) = long_option(&mut opts, name, value)? {
                    return Ok(done);
                }
            }
        }
        last_was_digit = is_digit;
    }
    match operands.len() {
        0 => Err("missing operand after 'diff'".into()),
        1 => Err(format!("missing operand after '{}'", operands[0])),
        2 => Ok(Parsed::Run(Box::new(opts), operands)),
        _ => Err(format!("extra operand '{}'", operands[2])),
    }
}

/// Widths and tab stops beyond this would only fill memory with blanks.
const MAX_COLUMNS: usize = 1 << 16;

fn context_length(text: &str) -> Result<usize, String> {
    getopt::count(text).ok_or_else(|| format!("invalid context length '{text}'"))
}

fn regex(text: &str) -> Result<Regex, String> {
    Regex::new(text).map_err(|_| format!("invalid regular expression '{text}'"))
}

fn set_format(opts: &mut Options, format: Format, context: Option<usize>) {
    opts.format = format;
    if let Some(context) = context {
        opts.context = context;
    }
}

fn short_option(
    opts: &mut Options,
    c: char,
    value: Option<String>,
) -> Result<Option<Parsed>, String> {
    let value = value.unwrap_or_default();
    match c {
        'a' => opts.text = true,
        'b' => opts.compare.space_change = true,
        'B' => opts.compare.blank_lines = true,
        'c' => set_format(opts, Format::Context, None),
        'C' => set_format(opts, Format::Context, Some(context_length(&value)?)),
        'u' => set_format(opts, Format::Unified, None),
        'U' => set_format(opts, Format::Unified, Some(context_length(&value)?)),
        'e' => opts.format = Format::Ed,
        'n' => opts.format = Format::Rcs,
        'y' => opts.format = Format::SideBySide,
        'W' => {
            opts.width = getopt::count(&value)
                .filter(|&width| width > 0)
                .ok_or(format!("invalid width '{value}'"))?
                .min(MAX_COLUMNS);
        }
        'd' => opts.compare.minimal = true,
        'E' | 'H' | 'l' | 'f' => {}
        'D' => return Err("option -D (--ifdef) is not supported".into()),
        'F' => opts.function_line = Some(regex(&value)?),
        'p' => opts.function_line = Some(regex("^[[:alpha:]$_]")?),
        'h' => {}
        'i' => opts.compare.ignore_case = true,
        'I' => opts.compare.matching.push(regex(&value)?),
        'L' => opts.labels.push(value),
        'N' => opts.new_file = true,
        'q' => opts.brief = true,
        'r' => opts.recursive = true,
        's' => opts.report_identical = true,
        'S' => {}
        't' => opts.expand_tabs = true,
        'T' => opts.initial_tab = true,
        'v' => return Ok(Some(Parsed::Version)),
        'w' => opts.compare.all_space = true,
        'x' => opts.excludes.push(value),
        'X' => opts.exclude_from.push(value),
        'Z' => opts.compare.trailing_space = true,
        _ => return Err(format!("invalid option -- '{c}'")),
    }
    Ok(None)
}

fn long_option(
    opts: &mut Options,
    name: &str,
    value: Option<String>,
) -> Result<Option<Parsed>, String> {
    let short = match name {
        "help" => return Ok(Some(Parsed::Help)),
        "version" => 'v',
        "normal" => {
            opts.format = Format::Normal;
            return Ok(None);
        }
        "context" | "unified" => {
            let format = if name == "context" {
                Format::Context
            } else {
                Format::Unified
            };
            let context = value.as_deref().map(context_length).transpose()?;
            set_format(opts, format, context);
            return Ok(None);
        }
        "brief" => 'q',
        "report-identical-files" => 's',
        "ed" => 'e',
        "rcs" => 'n',
        "side-by-side" => 'y',
        "width" => 'W',
        "show-c-function" => 'p',
        "show-function-line" => 'F',
        "label" => 'L',
        "expand-tabs" => 't',
        "initial-tab" => 'T',
        "new-file" => 'N',
        "recursive" => 'r',
        "exclude" => 'x',
        "exclude-from" => 'X',
        "starting-file" => 'S',
        "ignore-case" => 'i',
        "ignore-tab-expansion" => 'E',
        "ignore-trailing-space" => 'Z',
        "ignore-space-change" => 'b',
        "ignore-all-space" => 'w',
        "ignore-blank-lines" => 'B',
        "ignore-matching-lines" => 'I',
        "text" => 'a',
        "minimal" => 'd',
        "speed-large-files" => 'H',
        "paginate" => 'l',
        _ => {
            long_only_option(opts, name, value)?;
            return Ok(None);
        }
    };
    short_option(opts, short, value)
}

/// The long options without a short form.
fn long_only_option(opts: &mut Options, name: &str, value: Option<String>) -> Result<(), String> {
    let value = value.unwrap_or_default();
    match name {
        "left-column" => opts.left_column = true,
        "suppress-common-lines" => opts.suppress_common = true,
        "tabsize" => {
            opts.tab_size = getopt::count(&value)
                .filter(|&n| n > 0)
                .ok_or(format!("invalid tabsize '{value}'"))?
                .min(MAX_COLUMNS);
        }
        "unidirectional-new-file" => opts.left_new_file = true,
        "strip-trailing-cr" => opts.compare.strip_cr = true,
        "horizon-lines" => {
            opts.horizon =
                getopt::count(&value).ok_or(format!("invalid horizon length '{value}'"))?;
        }
        "color" if !matches!(value.as_str(), "" | "never" | "auto" | "always") => {
            return Err(format!("invalid argument '{value}' for '--color'"));
        }
        // Accepted without effect: nothing here differs for the sandbox.
        _ => {}
    }
    Ok(())
}

/// Where one side of a comparison gets its data.
#[derive(Clone, Debug)]
enum Source {
    Stdin,
    Vfs(VfsPath),
    /// A path only the shell knows (`/dev/fd/63` of a process substitution).
    Shell(PathBuf),
    /// An absent file taken as empty (`-N`).
    Absent,
    /// `/dev/null`.
    Null,
}

/// One side of a comparison: the name diff prints, and where its data comes from.
#[derive(Clone, Debug)]
struct Side {
    name: String,
    source: Source,
}

impl Side {
    fn child(&self, entry: &str) -> Side {
        let name = if self.name.ends_with('/') {
            format!("{}{entry}", self.name)
        } else {
            format!("{}/{entry}", self.name)
        };
        let source = match &self.source {
            Source::Vfs(path) => path.join(entry).map_or(Source::Absent, Source::Vfs),
            _ => Source::Absent,
        };
        Side { name, source }
    }
}

/// What a side is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    File,
    Dir,
}

#[derive(Clone, Copy, Debug)]
struct Info {
    kind: Kind,
    modified: Timestamp,
}

/// `data` ending in a newline, with GNU's warning added to `warnings` if it did not.
fn complete_last_line(data: Arc<Vec<u8>>, name: &str, warnings: &mut String) -> Arc<Vec<u8>> {
    if data.is_empty() || data.ends_with(b"\n") {
        return data;
    }
    warnings.push_str(&format!("diff: {name}: No newline at end of file\n\n"));
    let mut completed = data.as_ref().clone();
    completed.push(b'\n');
    Arc::new(completed)
}

/// An absent file standing in for one of `kind` (`-N`).
fn absent(kind: Kind) -> Info {
    Info {
        kind,
        modified: Timestamp(0),
    }
}

/// A name still to compare in a pair of directories.
struct Task {
    a: Side,
    b: Side,
    name: String,
    in_left: bool,
    in_right: bool,
    depth: usize,
}

/// What comparing two entries of a directory comparison came to.
enum Step {
    Done(i32),
    /// Two directories to compare in turn.
    Descend(Side, Side),
}

/// One `diff` invocation.
struct Run<'r, 'c, 'a> {
    fs: &'r Arc<SandboxFs>,
    files: Files<'r>,
    ctx: &'c CommandContext<'a>,
    out: Output<'c, 'a>,
    opts: Options,
    stdin: Option<Arc<Vec<u8>>>,
}

/// How deep directory comparison goes (a symlink loop would go on forever).
const MAX_DEPTH: usize = 128;

impl Run<'_, '_, '_> {
    fn side(&self, arg: &str) -> Side {
        let source = match arg {
            "-" | "/dev/stdin" => Source::Stdin,
            "/dev/null" => Source::Null,
            _ if arg.starts_with("/dev/fd/") => Source::Shell(PathBuf::from(arg)),
            _ => self
                .files
                .path(arg)
                .map_or_else(|_| Source::Shell(PathBuf::from(arg)), Source::Vfs),
        };
        Side {
            name: arg.to_owned(),
            source,
        }
    }

    async fn info(&self, side: &Side) -> Result<Info, (bool, String)> {
        let file = |modified| Info {
            kind: Kind::File,
            modified,
        };
        match &side.source {
            Source::Stdin => Ok(file(now())),
            Source::Absent | Source::Null => Ok(file(Timestamp(0))),
            Source::Vfs(path) => match self.fs.mem().stat(path) {
                Ok(meta) => Ok(Info {
                    kind: if meta.kind == FileKind::Directory {
                        Kind::Dir
                    } else {
                        Kind::File
                    },
                    modified: meta.modified,
                }),
                Err(err) => Err((is_missing(&err), strerror(&err).to_owned())),
            },
            Source::Shell(path) => match self.ctx.fs.stat(path).await {
                Ok(meta) => Ok(Info {
                    kind: if meta.file_type == bashkit::FileType::Directory {
                        Kind::Dir
                    } else {
                        Kind::File
                    },
                    modified: system_time(meta.modified),
                }),
                Err(_) => Err((true, "No such file or directory".into())),
            },
        }
    }

    async fn read(&mut self, side: &Side) -> Result<Arc<Vec<u8>>, String> {
        match &side.source {
            Source::Stdin => {
                if self.stdin.is_none() {
                    let data = read_stdin(self.ctx).await.map_err(|e| e.to_string())?;
                    self.stdin = Some(Arc::new(data));
                }
                Ok(self.stdin.clone().unwrap_or_default())
            }
            Source::Absent | Source::Null => Ok(Arc::default()),
            Source::Vfs(path) => {
                self.fs
                    .load_for_read(path)
                    .await
                    .map_err(|e| strerror(&e).to_owned())?;
                self.fs
                    .mem()
                    .read(path)
                    .map(Arc::new)
                    .map_err(|e| strerror(&e).to_owned())
            }
            Source::Shell(path) => self
                .ctx
                .fs
                .read_file(path)
                .await
                .map(Arc::new)
                .map_err(|_| "No such file or directory".to_owned()),
        }
    }

    async fn trouble(&mut self, name: &str, message: &str) -> bashkit::Result<i32> {
        self.out.err(format!("diff: {name}: {message}\n")).await?;
        Ok(2)
    }

    /// Compares the two operands.
    async fn top(&mut self, a: &str, b: &str) -> bashkit::Result<i32> {
        let (mut left, mut right) = (self.side(a), self.side(b));
        let left_info = self.info(&left).await;
        let right_info = self.info(&right).await;
        // `-N` takes a missing file for an empty one, when the other one exists.
        let missing = |info: &Result<Info, (bool, String)>| matches!(info, Err((true, _)));
        let left_absent = missing(&left_info)
            && (self.opts.new_file || self.opts.left_new_file)
            && right_info.is_ok();
        let right_absent = missing(&right_info) && self.opts.new_file && left_info.is_ok();
        let mut status = 0;
        if let (Err((_, message)), false) = (&left_info, left_absent) {
            status = self.trouble(a, message).await?;
        }
        if let (Err((_, message)), false) = (&right_info, right_absent) {
            status = self.trouble(b, message).await?;
        }
        let (left_info, right_info) = match (left_info, right_info) {
            _ if status != 0 => return Ok(status),
            (Ok(l), Ok(r)) => (l, r),
            (Err(_), Ok(r)) => {
                left.source = Source::Absent;
                (absent(r.kind), r)
            }
            (Ok(l), Err(_)) => {
                right.source = Source::Absent;
                (l, absent(l.kind))
            }
            (Err(_), Err(_)) => return Ok(2),
        };
        match (left_info.kind, right_info.kind) {
            (Kind::Dir, Kind::Dir) => self.compare_dirs(&left, &right, 0).await,
            (Kind::File, Kind::File) => self.compare_files(&left, &right, false).await,
            (Kind::Dir, Kind::File) => self.file_against_dir(&right, &left, true).await,
            (Kind::File, Kind::Dir) => self.file_against_dir(&left, &right, false).await,
        }
    }

    /// `diff file dir`: compares `file` with `dir/file`'s basename.
    async fn file_against_dir(
        &mut self,
        file: &Side,
        dir: &Side,
        dir_first: bool,
    ) -> bashkit::Result<i32> {
        if matches!(file.source, Source::Stdin) {
            self.out
                .err("diff: cannot compare '-' to a directory\n")
                .await?;
            return Ok(2);
        }
        let base = file
            .name
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        let inner = dir.child(&base);
        match self.info(&inner).await {
            Err((_, message)) => self.trouble(&inner.name, &message).await,
            Ok(info) if info.kind == Kind::Dir => self.trouble(&inner.name, "Is a directory").await,
            Ok(_) if dir_first => self.compare_files(&inner, file, false).await,
            Ok(_) => self.compare_files(file, &inner, false).await,
        }
    }

    /// The names in a directory (none for an absent one), without the excluded ones.
    fn list(&self, side: &Side) -> Vec<String> {
        let Source::Vfs(path) = &side.source else {
            return Vec::new();
        };
        let mut names: Vec<String> = self
            .fs
            .mem()
            .read_dir(path)
            .map(|entries| entries.into_iter().map(|e| e.name).collect())
            .unwrap_or_default();
        names.retain(|name| !self.opts.excludes.iter().any(|pat| glob_match(pat, name)));
        names.sort();
        names
    }

    /// Compares two directories, depth first in name order. Iterative (async recursion
    /// would need boxing): each directory pair pushes its names, last first.
    async fn compare_dirs(&mut self, a: &Side, b: &Side, depth: usize) -> bashkit::Result<i32> {
        let mut pending = Vec::new();
        self.push_names(&mut pending, a, b, depth);
        let mut status = 0;
        while let Some(task) = pending.pop() {
            let step = match (task.in_left, task.in_right) {
                (true, true) => {
                    let (ca, cb) = (task.a.child(&task.name), task.b.child(&task.name));
                    self.compare_entries(&ca, &cb).await?
                }
                (true, false) => self.only_in(&task.a, &task.b, &task.name, true).await?,
                _ => self.only_in(&task.b, &task.a, &task.name, false).await?,
            };
            match step {
                Step::Done(code) => status = status.max(code),
                Step::Descend(..) if task.depth >= MAX_DEPTH => {
                    let name = task.a.child(&task.name).name;
                    status = self
                        .trouble(&name, "Too many levels of symbolic links")
                        .await?;
                }
                Step::Descend(ca, cb) => self.push_names(&mut pending, &ca, &cb, task.depth + 1),
            }
        }
        Ok(status)
    }

    fn push_names(&self, pending: &mut Vec<Task>, a: &Side, b: &Side, depth: usize) {
        let left = self.list(a);
        let right = self.list(b);
        let mut names: Vec<&String> = left.iter().chain(right.iter()).collect();
        names.sort();
        names.dedup();
        for name in names.into_iter().rev() {
            pending.push(Task {
                a: a.clone(),
                b: b.clone(),
                name: name.clone(),
                in_left: left.contains(name),
                in_right: right.contains(name),
                depth,
            });
        }
    }

    /// Two entries of the same name in the directories being compared.
    async fn compare_entries(&mut self, a: &Side, b: &Side) -> bashkit::Result<Step> {
        let ia = self.info(a).await;
        let ib = self.info(b).await;
        let (ia, ib) = match (ia, ib) {
            (Ok(ia), Ok(ib)) => (ia, ib),
            (ia, ib) => {
                let mut status = 0;
                if let Err((_, message)) = ia {
                    status = self.trouble(&a.name, &message).await?;
                }
                if let Err((_, message)) = ib {
                    status = self.trouble(&b.name, &message).await?;
                }
                return Ok(Step::Done(status));
            }
        };
        match (ia.kind, ib.kind) {
            (Kind::File, Kind::File) => Ok(Step::Done(self.compare_files(a, b, true).await?)),
            (Kind::Dir, Kind::Dir) if self.opts.recursive => {
                Ok(Step::Descend(a.clone(), b.clone()))
            }
            (Kind::Dir, Kind::Dir) => {
                let text = format!("Common subdirectories: {} and {}\n", a.name, b.name);
                self.out.out(text).await?;
                Ok(Step::Done(0))
            }
            (left, _) => {
                let (what_a, what_b) = if left == Kind::Dir {
                    ("a directory", "a regular file")
                } else {
                    ("a regular file", "a directory")
                };
                let text = format!(
                    "File {} is {what_a} while file {} is {what_b}\n",
                    a.name, b.name
                );
                self.out.out(text).await?;
                Ok(Step::Done(1))
            }
        }
    }

    /// `name` is in `present`'s directory only.
    async fn only_in(
        &mut self,
        present: &Side,
        missing: &Side,
        name: &str,
        present_is_left: bool,
    ) -> bashkit::Result<Step> {
        let as_empty = self.opts.new_file || (self.opts.left_new_file && !present_is_left);
        let here = present.child(name);
        let kind = self.info(&here).await.map(|i| i.kind).ok();
        if !as_empty || kind.is_none() {
            let text = format!("Only in {}: {name}\n", present.name);
            self.out.out(text).await?;
            return Ok(Step::Done(1));
        }
        let mut there = missing.child(name);
        there.source = Source::Absent;
        let (a, b) = if present_is_left {
            (here, there)
        } else {
            (there, here)
        };
        match kind {
            Some(Kind::Dir) if self.opts.recursive => Ok(Step::Descend(a, b)),
            // The absent one counts as an empty directory.
            Some(Kind::Dir) => {
                let text = format!("Common subdirectories: {} and {}\n", a.name, b.name);
                self.out.out(text).await?;
                Ok(Step::Done(0))
            }
            _ => Ok(Step::Done(self.compare_files(&a, &b, true).await?)),
        }
    }

    fn label<'s>(&'s self, side: &'s Side, index: usize) -> &'s str {
        self.opts
            .labels
            .get(index)
            .map_or(side.name.as_str(), String::as_str)
    }

    /// Compares two files; `in_dir` when they were found by comparing directories (their
    /// output then starts with a `diff a/f b/f` line).
    async fn compare_files(&mut self, a: &Side, b: &Side, in_dir: bool) -> bashkit::Result<i32> {
        let old = match self.read(a).await {
            Ok(data) => data,
            Err(message) => return self.trouble(&a.name, &message).await,
        };
        let new = match self.read(b).await {
            Ok(data) => data,
            Err(message) => return self.trouble(&b.name, &message).await,
        };
        let (name_a, name_b) = (self.label(a, 0).to_owned(), self.label(b, 1).to_owned());
        // Side by side shows the common lines too, so identical files still print.
        let shows_all = self.opts.format == Format::SideBySide && !self.opts.brief;
        if old == new && !shows_all {
            return self.identical(&name_a, &name_b).await;
        }
        if !self.opts.text && (is_binary(&old) || is_binary(&new)) {
            let text = if self.opts.brief {
                format!("Files {name_a} and {name_b} differ\n")
            } else {
                format!("Binary files {name_a} and {name_b} differ\n")
            };
            self.out.out(text).await?;
            return Ok(1);
        }
        if self.opts.brief && !self.opts.compare.ignores_anything() {
            self.out
                .out(format!("Files {name_a} and {name_b} differ\n"))
                .await?;
            return Ok(1);
        }
        // An ed script cannot say "no newline": GNU adds one, and warns after the
        // script.
        let mut warnings = String::new();
        let (old, new) = if self.opts.format == Format::Ed {
            let old = complete_last_line(old, &name_a, &mut warnings);
            let new = complete_last_line(new, &name_b, &mut warnings);
            (old, new)
        } else {
            (old, new)
        };
        let status = self.report_changes(a, b, &old, &new, in_dir).await?;
        if warnings.is_empty() {
            return Ok(status);
        }
        self.out.err(warnings).await?;
        Ok(2)
    }

    /// Compares the contents of two files that differ as bytes, and prints the
    /// differences that count.
    async fn report_changes(
        &mut self,
        a: &Side,
        b: &Side,
        old: &[u8],
        new: &[u8],
        in_dir: bool,
    ) -> bashkit::Result<i32> {
        let (name_a, name_b) = (self.label(a, 0).to_owned(), self.label(b, 1).to_owned());
        let old_lines = split_lines(old);
        let new_lines = split_lines(new);
        let context = match self.opts.format {
            Format::Unified | Format::Context => self.opts.context,
            _ => 0,
        };
        let horizon = context.max(self.opts.horizon);
        let changes = find_changes(&old_lines, &new_lines, &self.opts.compare, horizon);
        let hunks = group_hunks(&changes, context);
        let shows_all = self.opts.format == Format::SideBySide && !self.opts.brief;
        if hunks.is_empty() && !shows_all {
            return self.identical(&name_a, &name_b).await;
        }
        if self.opts.brief {
            self.out
                .out(format!("Files {name_a} and {name_b} differ\n"))
                .await?;
            return Ok(1);
        }
        let mut text = Vec::new();
        if in_dir {
            let (quoted_a, quoted_b) = (self.header_name(a, 0), self.header_name(b, 1));
            let line = format!("diff{} {quoted_a} {quoted_b}\n", self.opts.switches);
            text.extend_from_slice(line.as_bytes());
        }
        let stamp_a = self.stamp(a, 0).await;
        let stamp_b = self.stamp(b, 1).await;
        let printer = Printer {
            opts: &self.opts,
            texts: Texts {
                old: &old_lines,
                new: &new_lines,
            },
        };
        match self.opts.format {
            Format::Normal => printer.normal(&hunks, &mut text),
            Format::Unified => printer.unified(&hunks, &stamp_a, &stamp_b, &mut text),
            Format::Context => printer.context(&hunks, &stamp_a, &stamp_b, &mut text),
            Format::Ed => printer.ed(&hunks, &mut text),
            Format::Rcs => printer.rcs(&hunks, &mut text),
            Format::SideBySide => printer.side_by_side(&changes, &mut text),
        }
        self.out.out(text).await?;
        Ok(i32::from(!hunks.is_empty()))
    }

    async fn identical(&mut self, name_a: &str, name_b: &str) -> bashkit::Result<i32> {
        if self.opts.report_identical {
            self.out
                .out(format!("Files {name_a} and {name_b} are identical\n"))
                .await?;
        }
        Ok(0)
    }

    /// A name on a header line: the label as given, or the name quoted as GNU does.
    fn header_name(&self, side: &Side, index: usize) -> String {
        match self.opts.labels.get(index) {
            Some(label) => label.clone(),
            None => c_quote(&side.name, self.opts.utf8_names),
        }
    }

    /// The name and time on a `---`/`+++` header line: the label alone if there is one.
    async fn stamp(&self, side: &Side, index: usize) -> String {
        if let Some(label) = self.opts.labels.get(index) {
            return label.clone();
        }
        let modified = self.info(side).await.map_or(Timestamp(0), |i| i.modified);
        // POSIX wants the traditional date in context format, in the C locale.
        let time = if self.opts.format == Format::Context && !self.opts.iso_times {
            format_ctime(modified)
        } else {
            format_time(modified)
        };
        format!("{}\t{time}", c_quote(&side.name, self.opts.utf8_names))
    }
}

fn now() -> Timestamp {
    #[allow(clippy::disallowed_methods)] // bashkit's SystemTime is wasm-safe.
    system_time(bashkit::time::SystemTime::now())
}

fn system_time(time: bashkit::time::SystemTime) -> Timestamp {
    let since = time
        .duration_since(bashkit::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
}

/// `2024-01-01 00:00:00.000000000 +0000`, as GNU diff dates its headers (in UTC).
fn format_time(time: Timestamp) -> String {
    let secs = time.0 / 1_000_000_000;
    let nanos = time.0 % 1_000_000_000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{nanos:09} +0000",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `Tue Dec  1 18:59:31 2026`, as GNU diff dates context-format headers (in UTC).
fn format_ctime(time: Timestamp) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = time.0 / 1_000_000_000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let weekday = DAYS[(days + 4).rem_euclid(7) as usize];
    let month = MONTHS[(month - 1).clamp(0, 11) as usize];
    format!(
        "{weekday} {month} {day:>2} {:02}:{:02}:{:02} {year}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A file name as GNU diff writes it in headers: in C quotes with escapes when it has
/// white space, quotes, backslashes, control bytes or (unless the locale is UTF-8)
/// non-ASCII bytes; as is otherwise.
fn c_quote(name: &str, utf8: bool) -> String {
    let plain = |c: char| {
        (c.is_ascii_graphic() && c != '"' && c != '\\')
            || (utf8 && !c.is_ascii() && !c.is_control())
    };
    if name.chars().all(plain) {
        return name.to_owned();
    }
    let mut out = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c if plain(c) => out.push(c),
            c => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Whether the locale of `category` (`LC_TIME`, `LC_CTYPE`) is other than C/POSIX,
/// by the usual precedence of `LC_ALL`, the category, and `LANG`.
fn hard_locale(env: &HashMap<String, String>, category: &str) -> bool {
    let locale = ["LC_ALL", category, "LANG"]
        .iter()
        .filter_map(|name| env.get(*name))
        .find(|value| !value.is_empty());
    locale.is_some_and(|l| l != "C" && l != "POSIX")
}

/// Whether `LC_CTYPE`'s locale is a UTF-8 one.
fn utf8_locale(env: &HashMap<String, String>) -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|name| env.get(*name))
        .find(|value| !value.is_empty());
    locale.is_some_and(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("utf-8") || l.contains("utf8")
    })
}

/// The calendar date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whether GNU diff would take `data` for binary: a NUL byte near the start.
fn is_binary(data: &[u8]) -> bool {
    const SNIFF: usize = 128 * 1024;
    data[..data.len().min(SNIFF)].contains(&0)
}

/// A shell glob (`*`, `?`, `[...]`) matched against a whole file name.
fn glob_match(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    glob_from(&pattern, &name)
}

fn glob_from(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| glob_from(rest, &name[skip..])),
        Some(('?', rest)) => !name.is_empty() && glob_from(rest, &name[1..]),
        Some(('[', rest)) => match (name.split_first(), bracket(rest)) {
            (Some((c, name_rest)), Some((matches, after))) => {
                matches(*c) && glob_from(after, name_rest)
            }
            (Some((c, name_rest)), None) => *c == '[' && glob_from(rest, name_rest),
            (None, _) => false,
        },
        Some(('\\', [escaped, rest @ ..])) => {
            name.first() == Some(escaped) && glob_from(rest, &name[1..])
        }
        Some((c, rest)) => name.first() == Some(c) && glob_from(rest, &name[1..]),
    }
}

/// A bracket expression after its `[`: what it matches, and the pattern after its `]`.
fn bracket(pattern: &[char]) -> Option<(impl Fn(char) -> bool, &[char])> {
    let (negate, body) = match pattern.first() {
        Some('!' | '^') => (true, &pattern[1..]),
        _ => (false, pattern),
    };
    // A `]` first in the set is a member, not the end.
    let end = body.iter().skip(1).position(|&c| c == ']')? + 1;
    let set: Vec<char> = body[..end].to_vec();
    let matches = move |c: char| {
        let mut found = false;
        let mut i = 0;
        while i < set.len() {
            if i + 2 < set.len() && set[i + 1] == '-' {
                found |= set[i] <= c && c <= set[i + 2];
                i += 3;
            } else {
                found |= set[i] == c;
                i += 1;
            }
        }
        found != negate
    };
    Some((matches, &body[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn run_options(list: &[&str]) -> (Options, Vec<String>) {
        match parse_args(&args(list)) {
            Ok(Parsed::Run(opts, operands)) => (*opts, operands),
            Ok(_) => panic!("not a run"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn parses_clusters_values_and_permuted_operands() {
        let (opts, operands) = run_options(&["a", "-ru", "--label=x", "-L", "y", "b"]);
        assert_eq!(operands, ["a", "b"]);
        assert!(opts.recursive);
        assert_eq!(opts.format, Format::Unified);
        assert_eq!(opts.labels, ["x", "y"]);
        assert_eq!(opts.switches, " -ru '--label=x' -L y");
        let (opts, _) = run_options(&["-U0", "a", "b"]);
        assert_eq!(opts.context, 0);
        let (opts, _) = run_options(&["--unif=5", "a", "b"]);
        assert_eq!((opts.format, opts.context), (Format::Unified, 5));
        let (opts, _) = run_options(&["-5u", "a", "b"]);
        assert_eq!(opts.context, 5);
    }

    #[test]
    fn reports_bad_arguments_like_gnu() {
        let err = |list: &[&str]| parse_args(&args(list)).err().unwrap_or_default();
        assert_eq!(err(&["--bogus", "a", "b"]), "unrecognized option '--bogus'");
        assert_eq!(err(&["-U", "x", "a", "b"]), "invalid context length 'x'");
        assert_eq!(err(&["a"]), "missing operand after 'a'");
        assert_eq!(err(&["a", "b", "c"]), "extra operand 'c'");
        assert_eq!(err(&["-L"]), "option requires an argument -- 'L'");
        assert!(err(&["--ignore", "a", "b"]).contains("ambiguous"));
    }

    fn diff_normal(old: &str, new: &str) -> String {
        let opts = Options::default();
        let (old, new) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
        let changes = find_changes(&old, &new, &opts.compare, 0);
        let hunks = group_hunks(&changes, 0);
        let mut out = Vec::new();
        let printer = Printer {
            opts: &opts,
            texts: Texts {
                old: &old,
                new: &new,
            },
        };
        printer.normal(&hunks, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn normal_format() {
        assert_eq!(
            diff_normal("one\ntwo\nthree\n", "one\n2\nthree\nfour\n"),
            "2c2\n< two\n---\n> 2\n3a4\n> four\n"
        );
        assert_eq!(diff_normal("1\n2\n3\n", "1\n3\n"), "2d1\n< 2\n");
        assert_eq!(
            diff_normal("x", "x\n"),
            "1c1\n< x\n\\ No newline at end of file\n---\n> x\n"
        );
    }

    #[test]
    fn hunks_merge_when_context_overlaps() {
        let change = |at: usize| Change {
            old: at..at + 1,
            new: at..at + 1,
            ignorable: false,
        };
        let changes = [change(0), change(7), change(15)];
        let hunks = group_hunks(&changes, 3);
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].len(), 2);
    }

    #[test]
    fn ranges() {
        assert_eq!(unified_span(&(2..3)), "3");
        assert_eq!(unified_span(&(0..0)), "0,0");
        assert_eq!(unified_span(&(0..4)), "1,4");
        assert_eq!(span(&(3..3)), "3");
        assert_eq!(span(&(1..3)), "2,3");
    }

    #[test]
    fn white_space_keys() {
        let compare = Compare {
            space_change: true,
            ..Compare::default()
        };
        assert_eq!(line_key(b"a  b \t\n", &compare).as_ref(), b"a b");
        let compare = Compare {
            all_space: true,
            ..Compare::default()
        };
        assert_eq!(line_key(b" a b\n", &compare).as_ref(), b"ab");
    }

    #[test]
    fn times_format_like_gnu() {
        assert_eq!(
            format_time(Timestamp(0)),
            "1970-01-01 00:00:00.000000000 +0000"
        );
        let t = Timestamp(1_704_067_200 * 1_000_000_000 + 5);
        assert_eq!(format_time(t), "2024-01-01 00:00:00.000000005 +0000");
    }

    #[test]
    fn globs() {
        assert!(glob_match("*.o", "a.o"));
        assert!(!glob_match("*.o", "a.c"));
        assert!(glob_match(".git", ".git"));
        assert!(glob_match("[ab]?", "bx"));
        assert!(!glob_match("[!ab]?", "bx"));
    }

    #[test]
    fn quoting_like_gnu() {
        assert_eq!(c_quote("d1/f", false), "d1/f");
        assert_eq!(c_quote("a b", false), "\"a b\"");
        assert_eq!(c_quote("t\tq\"\\", false), "\"t\\tq\\\"\\\\\"");
        assert_eq!(c_quote("\u{fc}", false), "\"\\303\\274\"");
        assert_eq!(c_quote("\u{fc}", true), "\u{fc}");
        assert_eq!(shell_quote("-r"), "-r");
        assert_eq!(shell_quote("*.log"), "'*.log'");
        assert_eq!(shell_quote("--exclude=x"), "'--exclude=x'");
    }

    #[test]
    fn context_format_dates() {
        let t = Timestamp(1_796_151_571 * 1_000_000_000);
        assert_eq!(format_ctime(t), "Tue Dec  1 18:59:31 2026");
    }

    /// What GNU diff prints for `old` and `new`, normal format.
    fn gnu_changes(old: &str, new: &str, horizon: usize) -> Vec<(Range<usize>, Range<usize>)> {
        let (old, new) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
        find_changes(&old, &new, &Compare::default(), horizon)
            .into_iter()
            .map(|c| (c.old, c.new))
            .collect()
    }

    #[test]
    fn changes_are_chosen_as_gnu_chooses() {
        // A replaced line is one change, not a deletion and an insertion elsewhere.
        assert_eq!(
            gnu_changes("e\nf\na\nf\ne\n", "e\nf\nf\nf\ne\n", 0),
            [(2..3, 2..3)]
        );
        // Runs slide down as far as they go, within the lines compared.
        assert_eq!(gnu_changes("x\nx\n", "x\nx\nx\n", 0), [(2..2, 2..3)]);
        assert_eq!(
            gnu_changes("a\nend\nend\nz\n", "a\nend\nz\n", 0),
            [(2..3, 2..2)]
        );
        assert_eq!(
            gnu_changes("a\nend\nend\nz\n", "a\nend\nz\n", 3),
            [(2..3, 2..2)]
        );
    }
}
