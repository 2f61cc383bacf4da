//! `ls`: GNU coreutils' listing as it is when standard output is not a terminal (one
//! name per line unless `-C`, `-x` or `-m` asks for columns or commas), with the long
//! format (`-l`, `-n`, `-g`, `-o`, `-h`, `--full-time`, `--time-style`), inode and
//! block columns (`-i`, `-s`), indicators (`-F`, `-p`), sorting (`-r`, `-S`, `-t`, `-X`,
//! `-v`, `-U`, `--sort`, `--group-directories-first`), hidden and ignored entries (`-a`,
//! `-A`, `-B`, `-I`, `--hide`), `-d`, `-R` and symlink following (`-L`, `-H`).
//! Files look as they would on ext4: see [`super::stat`].

use super::stat::{
    Civil, MONTHS, OWNER, OWNER_ID, apparent_size, blocks_512, epoch_secs, full_time, link_count,
    mode_string, quote_always,
};
use super::util::{ArgItem, GnuArgs, Output};
use crate::WallClock;
use bashkit::{BashBuilder, CommandContext, CommandStatus};
use sandtab_vfs::{Clock, FileKind, MemFs, Metadata, SandboxFs, Timestamp, VfsPath};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

pub(crate) fn register(builder: BashBuilder, fs: &Arc<SandboxFs>) -> BashBuilder {
    builder.command("ls", Ls { fs: fs.clone() })
}

#[derive(Debug)]
struct Ls {
    fs: Arc<SandboxFs>,
}

// ---------------------------------------------------------------------------------
// Options.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    /// Names starting with `.` are left out.
    Skip,
    /// Shown, but not `.` and `..` (`-A`).
    AlmostAll,
    /// Shown, with `.` and `..` (`-a`).
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OnePerLine,
    Long,
    Columns,
    Across,
    Commas,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    None,
    Size,
    Time,
    Extension,
    Version,
    Width,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Indicator {
    None,
    Slash,
    FileType,
    Classify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeField {
    Modified,
    Changed,
    Accessed,
    Birth,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum TimeStyle {
    /// `Mmm dd HH:MM`, or `Mmm dd  YYYY` when not within the last six months.
    Locale,
    FullIso,
    LongIso,
    Iso,
    /// `+FORMAT`: strftime formats for old and recent files.
    Custom {
        recent: String,
        old: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deref {
    /// Symlinks are shown as such (`-l`, `-d`, `-F` without `-H`/`-L`).
    Never,
    /// A command-line symlink to a directory lists the directory (the default).
    CommandLineDirs,
    /// Command-line symlinks are followed (`-H`).
    CommandLine,
    /// Every symlink is followed (`-L`).
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Literal,
    /// `-Q`: in double quotes, with C escapes.
    C,
    /// `-b`: C escapes without quotes.
    Escape,
}

#[derive(Debug, Clone)]
struct Options {
    hidden: Hidden,
    ignore_backups: bool,
    ignore: Vec<String>,
    hide: Vec<String>,
    directory: bool,
    recursive: bool,
    format: Format,
    show_owner: bool,
    show_group: bool,
    numeric_ids: bool,
    /// `-h` (1024) or `--si` (1000).
    human: Option<u64>,
    inode: bool,
    blocks: bool,
    indicator: Indicator,
    sort: Sort,
    reverse: bool,
    time: TimeField,
    time_style: Option<TimeStyle>,
    deref: Option<Deref>,
    group_directories_first: bool,
    width: Option<usize>,
    tab_size: usize,
    quoting: Quoting,
    zero: bool,
    operands: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            hidden: Hidden::Skip,
            ignore_backups: false,
            ignore: Vec::new(),
            hide: Vec::new(),
            directory: false,
            recursive: false,
            format: Format::OnePerLine,
            show_owner: true,
            show_group: true,
            numeric_ids: false,
            human: None,
            inode: false,
            blocks: false,
            indicator: Indicator::None,
            sort: Sort::Name,
            reverse: false,
            time: TimeField::Modified,
            time_style: None,
            deref: None,
            group_directories_first: false,
            width: None,
            tab_size: 8,
            quoting: Quoting::Literal,
            zero: false,
            operands: Vec::new(),
        }
    }
}

const LONG_OPTIONS: &[&str] = &[
    "all",
    "almost-all",
    "author",
    "escape",
    "block-size=",
    "ignore-backups",
    "color?",
    "directory",
    "dired",
    "classify?",
    "file-type",
    "format=",
    "full-time",
    "group-directories-first",
    "no-group",
    "human-readable",
    "si",
    "dereference-command-line",
    "dereference-command-line-symlink-to-dir",
    "hide=",
    "hyperlink?",
    "indicator-style=",
    "inode",
    "ignore=",
    "kibibytes",
    "dereference",
    "numeric-uid-gid",
    "literal",
    "hide-control-chars",
    "show-control-chars",
    "quote-name",
    "quoting-style=",
    "reverse",
    "recursive",
    "size",
    "sort=",
    "time=",
    "time-style=",
    "tabsize=",
    "width=",
    "context",
    "zero",
    "help",
    "version",
];

/// How the command line ended: options to run with, or an early exit.
enum Parsed {
    Run(Options),
    /// A message and the exit status (GNU's `Try 'ls --help'` follows).
    Usage(String, i32),
    Text(String),
}

/// The long option a short one stands for (with its value if it takes one).
fn short_as_long(flag: char) -> Option<&'static str> {
    Some(match flag {
        'a' => "all",
        'A' => "almost-all",
        'b' => "escape",
        'B' => "ignore-backups",
        'c' => "time=ctime",
        'C' => "format=vertical",
        'd' => "directory",
        'f' => "-f",
        'F' => "classify",
        'g' => "-g",
        'G' => "no-group",
        'h' => "human-readable",
        'H' => "dereference-command-line",
        'i' => "inode",
        'k' => "kibibytes",
        'l' => "format=long",
        'L' => "dereference",
        'm' => "format=commas",
        'n' => "numeric-uid-gid",
        'N' => "literal",
        'o' => "-o",
        'p' => "indicator-style=slash",
        'q' => "hide-control-chars",
        'Q' => "quote-name",
        'r' => "reverse",
        'R' => "recursive",
        's' => "size",
        'S' => "sort=size",
        't' => "sort=time",
        'u' => "time=atime",
        'U' => "sort=none",
        'v' => "sort=version",
        'x' => "format=across",
        'X' => "sort=extension",
        'Z' => "context",
        '1' => "format=single-column",
        _ => return None,
    })
}

fn parse_args(args: &[String], env_width: Option<usize>, env_style: Option<&str>) -> Parsed {
    let mut options = Options::default();
    let mut parser = GnuArgs::new(args);
    while let Some(item) = parser.next_item() {
        let (name, value): (&str, Option<String>) = match item {
            ArgItem::Operand(operand) => {
                options.operands.push(operand.to_owned());
                continue;
            }
            ArgItem::Short(flag @ ('I' | 'T' | 'w')) => {
                let Some(value) = parser.short_value() else {
                    return Parsed::Usage(format!("option requires an argument -- '{flag}'"), 2);
                };
                let name = match flag {
                    'I' => "ignore",
                    'T' => "tabsize",
                    _ => "width",
                };
                (name, Some(value.to_owned()))
            }
            ArgItem::Short(flag) => match short_as_long(flag) {
                Some(long) => match long.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (long, None),
                },
                None => return Parsed::Usage(format!("invalid option -- '{flag}'"), 2),
            },
            ArgItem::Long(given, inline) => match parser.long_option(given, inline, LONG_OPTIONS) {
                Ok((name, value)) => (name, value.map(str::to_owned)),
                Err(message) => return Parsed::Usage(message, 2),
            },
        };
        if let Some(early) = apply_option(&mut options, name, value.as_deref()) {
            return early;
        }
    }
    finish_options(options, env_width, env_style)
}

/// Fills in what depends on several options.
fn finish_options(
    mut options: Options,
    env_width: Option<usize>,
    env_style: Option<&str>,
) -> Parsed {
    if options.width.is_none() {
        options.width = env_width;
    }
    if options.time_style.is_none()
        && options.format == Format::Long
        && let Some(style) = env_style
    {
        match parse_time_style(style) {
            Ok(style) => options.time_style = Some(style),
            Err(message) => return Parsed::Usage(message, 2),
        }
    }
    if options.operands.is_empty() {
        options.operands.push(".".to_owned());
    }
    Parsed::Run(options)
}

/// Applies one option; `Some` ends parsing (help, version or a bad value).
fn apply_option(options: &mut Options, name: &str, value: Option<&str>) -> Option<Parsed> {
    let text = value.unwrap_or("");
    match name {
        "all" => options.hidden = Hidden::All,
        "almost-all" => options.hidden = Hidden::AlmostAll,
        "escape" => options.quoting = Quoting::Escape,
        "literal" | "show-control-chars" => options.quoting = Quoting::Literal,
        "quote-name" => options.quoting = Quoting::C,
        "quoting-style" => {
            options.quoting = match text {
                "literal"
                | "shell"
                | "shell-always"
                | "shell-escape"
                | "shell-escape-always"
                | "locale"
                | "clocale" => Quoting::Literal,
                "c" => Quoting::C,
                "escape" => Quoting::Escape,
                _ => return Some(invalid_argument(text, "--quoting-style")),
            }
        }
        "ignore-backups" => options.ignore_backups = true,
        "directory" => options.directory = true,
        "-f" => {
            options.hidden = Hidden::All;
            options.sort = Sort::None;
            options.blocks = false;
            if options.format == Format::Long {
                options.format = Format::OnePerLine;
            }
        }
        "classify" => match text {
            "" | "always" | "yes" | "force" | "auto" | "tty" | "if-tty" => {
                // `auto` classifies only on a terminal; this output never is one.
                if !matches!(text, "auto" | "tty" | "if-tty") {
                    options.indicator = Indicator::Classify;
                }
            }
            "never" | "no" | "none" => options.indicator = Indicator::None,
            _ => return Some(invalid_argument(text, "--classify")),
        },
        "file-type" => options.indicator = Indicator::FileType,
        "indicator-style" => {
            options.indicator = match text {
                "none" => Indicator::None,
                "slash" => Indicator::Slash,
                "file-type" => Indicator::FileType,
                "classify" => Indicator::Classify,
                _ => return Some(invalid_argument(text, "--indicator-style")),
            }
        }
        "format" => {
            options.format = match text {
                "long" | "verbose" => Format::Long,
                "single-column" => Format::OnePerLine,
                "vertical" => Format::Columns,
                "across" | "horizontal" => Format::Across,
                "commas" => Format::Commas,
                _ => return Some(invalid_argument(text, "--format")),
            }
        }
        "-g" => {
            options.format = Format::Long;
            options.show_owner = false;
        }
        "-o" => {
            options.format = Format::Long;
            options.show_group = false;
        }
        "no-group" => options.show_group = false,
        "numeric-uid-gid" => {
            options.format = Format::Long;
            options.numeric_ids = true;
        }
        "full-time" => {
            options.format = Format::Long;
            options.time_style = Some(TimeStyle::FullIso);
        }
        "time-style" => match parse_time_style(text) {
            Ok(style) => options.time_style = Some(style),
            Err(message) => return Some(Parsed::Usage(message, 2)),
        },
        "human-readable" => options.human = Some(1024),
        "si" => options.human = Some(1000),
        "kibibytes" | "block-size" | "author" | "color" | "hyperlink" | "context" | "dired"
        | "hide-control-chars" => {}
        "dereference-command-line" => options.deref = Some(Deref::CommandLine),
        "dereference-command-line-symlink-to-dir" => {
            options.deref = Some(Deref::CommandLineDirs);
        }
        "dereference" => options.deref = Some(Deref::All),
        "hide" => options.hide.push(text.to_owned()),
        "ignore" => options.ignore.push(text.to_owned()),
        "inode" => options.inode = true,
        "reverse" => options.reverse = true,
        "recursive" => options.recursive = true,
        "size" => options.blocks = true,
        "sort" => {
            options.sort = match text {
                "none" => Sort::None,
                "name" => Sort::Name,
                "time" => Sort::Time,
                "size" => Sort::Size,
                "extension" => Sort::Extension,
                "version" => Sort::Version,
                "width" => Sort::Width,
                _ => return Some(invalid_argument(text, "--sort")),
            }
        }
        "time" => {
            options.time = match text {
                "atime" | "access" | "use" => TimeField::Accessed,
                "ctime" | "status" => TimeField::Changed,
                "mtime" | "modification" => TimeField::Modified,
                "birth" | "creation" => TimeField::Birth,
                _ => return Some(invalid_argument(text, "--time")),
            };
        }
        "tabsize" => match text.parse() {
            Ok(size) => options.tab_size = size,
            Err(_) => {
                return Some(Parsed::Usage(
                    format!("invalid tab size: {}", quote_always(text)),
                    2,
                ));
            }
        },
        "width" => match text.parse() {
            Ok(width) => options.width = Some(width),
            Err(_) => {
                return Some(Parsed::Usage(
                    format!("invalid line width: {}", quote_always(text)),
                    2,
                ));
            }
        },
        "zero" => options.zero = true,
        "help" => return Some(Parsed::Text(HELP.to_owned())),
        _ => return Some(Parsed::Text("ls (GNU coreutils) 9.1\n".to_owned())),
    }
    None
}

fn invalid_argument(value: &str, option: &str) -> Parsed {
    Parsed::Usage(
        format!("invalid argument {} for '{option}'", quote_always(value)),
        2,
    )
}

fn parse_time_style(style: &str) -> Result<TimeStyle, String> {
    let style = style.strip_prefix("posix-").unwrap_or(style);
    Ok(match style {
        "full-iso" => TimeStyle::FullIso,
        "long-iso" => TimeStyle::LongIso,
        "iso" => TimeStyle::Iso,
        "locale" => TimeStyle::Locale,
        custom if custom.starts_with('+') => {
            let formats = &custom[1..];
            let (old, recent) = match formats.split_once('\n') {
                Some((old, recent)) => (old, recent),
                None => (formats, formats),
            };
            TimeStyle::Custom {
                recent: recent.to_owned(),
                old: old.to_owned(),
            }
        }
        other => {
            return Err(format!(
                "invalid argument {} for 'time style'",
                quote_always(other)
            ));
        }
    })
}

const HELP: &str = "Usage: ls [OPTION]... [FILE]...
List information about the FILEs (the current directory by default).
Sort entries alphabetically if none of -cftuvSUX nor --sort is specified.

  -a, --all                  do not ignore entries starting with .
  -A, --almost-all           do not list implied . and ..
  -B, --ignore-backups       do not list implied entries ending with ~
  -c                         with -lt: sort by, and show, ctime
  -C                         list entries by columns
  -d, --directory            list directories themselves, not their contents
  -F, --classify[=WHEN]      append indicator (one of */=>@|) to entries
      --file-type            likewise, except do not append '*'
      --full-time            like -l --time-style=full-iso
  -g                         like -l, but do not list owner
      --group-directories-first  group directories before files
  -G, --no-group             in a long listing, don't print group names
  -h, --human-readable       with -l and -s, print sizes like 1K 234M 2G etc.
      --si                   likewise, but use powers of 1000 not 1024
  -H, --dereference-command-line  follow symbolic links listed on the command line
      --hide=PATTERN         do not list implied entries matching shell PATTERN
  -i, --inode                print the index number of each file
  -I, --ignore=PATTERN       do not list implied entries matching shell PATTERN
  -l                         use a long listing format
  -L, --dereference          show information for the file a symbolic link
                               references rather than for the link itself
  -m                         fill width with a comma separated list of entries
  -n, --numeric-uid-gid      like -l, but list numeric user and group IDs
  -o                         like -l, but do not list group information
  -p, --indicator-style=slash  append / indicator to directories
  -Q, --quote-name           enclose entry names in double quotes
  -r, --reverse              reverse order while sorting
  -R, --recursive            list subdirectories recursively
  -s, --size                 print the allocated size of each file, in blocks
  -S                         sort by file size, largest first
      --sort=WORD            sort by WORD instead of name: none (-U), size (-S),
                               time (-t), version (-v), extension (-X), width
      --time=WORD            change the default of using modification times
      --time-style=TIME_STYLE  time/date format with -l
  -t                         sort by time, newest first; see --time
  -u                         with -lt: sort by, and show, access time
  -U                         do not sort; list entries in directory order
  -v                         natural sort of (version) numbers within text
  -w, --width=COLS           set output width to COLS.  0 means no limit
  -x                         list entries by lines instead of by columns
  -X                         sort alphabetically by entry extension
  -1                         list one file per line
      --help        display this help and exit
      --version     output version information and exit

Exit status:
 0  if OK,
 1  if minor problems (e.g., cannot access subdirectory),
 2  if serious trouble (e.g., cannot access command-line argument).
";

// ---------------------------------------------------------------------------------
// Entries.

/// One name to list, with what it refers to.
#[derive(Debug, Clone)]
struct Entry {
    /// As printed: the operand as given, or the name within its directory.
    name: String,
    path: VfsPath,
    meta: Metadata,
    /// A symlink's target, as stored.
    target: Option<String>,
    /// What a symlink's target is, if it exists.
    target_meta: Option<Metadata>,
}

impl Entry {
    fn new(fs: &MemFs, name: String, path: VfsPath, meta: Metadata) -> Self {
        let (target, target_meta) = match meta.kind {
            FileKind::Symlink => (fs.read_link(&path).ok(), fs.stat(&path).ok()),
            _ => (None, None),
        };
        Self {
            name,
            path,
            meta,
            target,
            target_meta,
        }
    }

    fn is_dir(&self) -> bool {
        self.meta.kind == FileKind::Directory
    }

    /// A directory, or a symlink to one (for `--group-directories-first`).
    fn is_dir_like(&self) -> bool {
        self.is_dir()
            || self
                .target_meta
                .as_ref()
                .is_some_and(|meta| meta.kind == FileKind::Directory)
    }
}

/// The indicator `-F`/`-p`/`--file-type` appends for a file of this kind and mode.
fn indicator_for(style: Indicator, meta: &Metadata) -> Option<char> {
    match (style, meta.kind) {
        (Indicator::None, _) => None,
        (_, FileKind::Directory) => Some('/'),
        (Indicator::Slash, _) => None,
        (_, FileKind::Symlink) => Some('@'),
        (Indicator::Classify, FileKind::File) if meta.mode & 0o111 != 0 => Some('*'),
        _ => None,
    }
}

/// Whether a shell wildcard pattern matches all of `name` (for `-I` and `--hide`).
fn glob_matches(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| glob_matches(rest, &name[skip..])),
        Some(('?', rest)) => !name.is_empty() && glob_matches(rest, &name[1..]),
        Some(('[', rest)) => match (
            bracket_match(rest, name.first().copied()),
            name.split_first(),
        ) {
            (Some((true, after)), Some((_, name_rest))) => glob_matches(after, name_rest),
            (Some((false, _)), _) | (Some(_), None) => false,
            // An unclosed `[` is an ordinary character.
            (None, _) => name.first() == Some(&'[') && glob_matches(rest, &name[1..]),
        },
        Some(('\\', rest)) if !rest.is_empty() => {
            name.first() == Some(&rest[0]) && glob_matches(&rest[1..], &name[1..])
        }
        Some((literal, rest)) => name.first() == Some(literal) && glob_matches(rest, &name[1..]),
    }
}

/// A bracket expression after its `[`: whether `c` is in it, and the pattern after
/// its `]`; `None` if it never closes.
fn bracket_match(pattern: &[char], c: Option<char>) -> Option<(bool, &[char])> {
    let mut i = 0;
    let negate = matches!(pattern.first(), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while i < pattern.len() {
        let current = pattern[i];
        if current == ']' && !first {
            return Some((found != negate && c.is_some(), &pattern[i + 1..]));
        }
        first = false;
        if pattern.get(i + 1) == Some(&'-') && pattern.get(i + 2).is_some_and(|end| *end != ']') {
            let end = pattern[i + 2];
            if c.is_some_and(|c| current <= c && c <= end) {
                found = true;
            }
            i += 3;
        } else {
            if c == Some(current) {
                found = true;
            }
            i += 1;
        }
    }
    None
}

/// Natural (version) order: runs of digits compare by value.
fn version_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    while !a.is_empty() || !b.is_empty() {
        let a_digits = a.iter().take_while(|c| c.is_ascii_digit()).count();
        let b_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if a_digits > 0 && b_digits > 0 {
            let a_num = trim_zeros(&a[..a_digits]);
            let b_num = trim_zeros(&b[..b_digits]);
            let by_value = a_num.len().cmp(&b_num.len()).then_with(|| a_num.cmp(b_num));
            if by_value != Ordering::Equal {
                return by_value;
            }
            a = &a[a_digits..];
            b = &b[b_digits..];
            continue;
        }
        match (a.first(), b.first()) {
            (Some(x), Some(y)) if x == y => {
                a = &a[1..];
                b = &b[1..];
            }
            (x, y) => return x.cmp(&y),
        }
    }
    Ordering::Equal
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|d| **d == b'0').count();
    &digits[zeros..]
}

/// The part of a name after its last `.` (empty without one), for `-X`.
fn extension(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if dot > 0 || name.len() > 1 => &name[dot + 1..],
        _ => "",
    }
}

// ---------------------------------------------------------------------------------
// A listing.

/// Everything one `ls` run needs while it lists.
struct Listing<'a> {
    fs: &'a MemFs,
    options: &'a Options,
    out: String,
    code: i32,
    /// Messages, in order, to write before the listing that follows them.
    errors: Vec<(usize, String)>,
}

impl<'a> Listing<'a> {
    fn time_of(&self, meta: &Metadata) -> Timestamp {
        match self.options.time {
            TimeField::Modified => meta.modified,
            TimeField::Changed => meta.changed,
            TimeField::Accessed => meta.accessed,
            TimeField::Birth => meta.created,
        }
    }

    fn error(&mut self, message: String, code: i32) {
        self.errors
            .push((self.out.len(), format!("ls: {message}\n")));
        self.code = self.code.max(code);
    }

    fn compare(&self, a: &Entry, b: &Entry) -> Ordering {
        let by_name = || a.name.as_bytes().cmp(b.name.as_bytes());
        let order = match self.options.sort {
            Sort::None => Ordering::Equal,
            Sort::Name => by_name(),
            Sort::Size => apparent_size(&b.meta)
                .cmp(&apparent_size(&a.meta))
                .then_with(by_name),
            Sort::Time => self
                .time_of(&b.meta)
                .cmp(&self.time_of(&a.meta))
                .then_with(by_name),
            Sort::Extension => extension(&a.name)
                .as_bytes()
                .cmp(extension(&b.name).as_bytes())
                .then_with(by_name),
            Sort::Version => version_cmp(&a.name, &b.name).then_with(by_name),
            Sort::Width => a
                .name
                .chars()
                .count()
                .cmp(&b.name.chars().count())
                .then_with(by_name),
        };
        if self.options.reverse {
            order.reverse()
        } else {
            order
        }
    }

    fn sort(&self, entries: &mut [Entry]) {
        if self.options.sort != Sort::None || self.options.reverse {
            entries.sort_by(|a, b| self.compare(a, b));
        }
        if self.options.group_directories_first {
            // A stable sort keeps the order within each group.
            entries.sort_by_key(|entry| !entry.is_dir_like());
        }
    }

    /// Whether a name in a directory is left out.
    fn hidden(&self, name: &str) -> bool {
        let options = self.options;
        if name.starts_with('.') && options.hidden == Hidden::Skip {
            return true;
        }
        if options.ignore_backups && name.ends_with('~') {
            return true;
        }
        let chars: Vec<char> = name.chars().collect();
        let matches = |patterns: &[String]| {
            patterns
                .iter()
                .any(|pattern| glob_matches(&pattern.chars().collect::<Vec<_>>(), &chars))
        };
        matches(&options.ignore) || (options.hidden == Hidden::Skip && matches(&options.hide))
    }

    /// The entries of a directory, `.` and `..` included with `-a`, sorted.
    fn read_directory(
        &mut self,
        dir: &VfsPath,
        shown_as: &str,
        command_line: bool,
    ) -> Option<Vec<Entry>> {
        let listed = match self.fs.read_dir(dir) {
            Ok(listed) => listed,
            Err(err) => {
                let message = format!(
                    "cannot open directory {}: {}",
                    quote_always(shown_as),
                    err.kind().description()
                );
                self.error(message, if command_line { 2 } else { 1 });
                return None;
            }
        };
        let mut entries = Vec::new();
        if self.options.hidden == Hidden::All {
            for (name, path) in [(".", dir.clone()), ("..", dir.parent().unwrap_or_default())] {
                if let Ok(meta) = self.fs.stat(&path) {
                    entries.push(Entry::new(self.fs, name.to_owned(), path, meta));
                }
            }
        }
        for item in listed {
            if self.hidden(&item.name) {
                continue;
            }
            let path = match dir.join(&item.name) {
                Ok(path) => path,
                Err(_) => continue,
            };
            let mut meta = item.metadata;
            if self.options.deref == Some(Deref::All) && meta.kind == FileKind::Symlink {
                match self.fs.stat(&path) {
                    Ok(target) => meta = target,
                    Err(err) => {
                        let shown = child_name(shown_as, &item.name);
                        let message = format!(
                            "cannot access {}: {}",
                            quote_always(&shown),
                            err.kind().description()
                        );
                        self.error(message, 1);
                    }
                }
            }
            entries.push(Entry::new(self.fs, item.name, path, meta));
        }
        self.sort(&mut entries);
        Some(entries)
    }
}

/// A directory's entry as `ls -R` names it (`./sub`, `a/b`).
fn child_name(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

// ---------------------------------------------------------------------------------
// Printing.

/// Sizes like `4.0K`, `16K`, `1.5M`: rounded up as GNU's are.
fn human_size(bytes: u64, base: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    let (bytes, base) = (u128::from(bytes), u128::from(base));
    if bytes < base {
        return bytes.to_string();
    }
    let mut power = base;
    let mut unit = 0;
    while bytes >= power * base && unit + 1 < UNITS.len() {
        power *= base;
        unit += 1;
    }
    let letter = |unit: usize| {
        let letter = UNITS[unit];
        if base == 1000 && letter == 'K' {
            'k'
        } else {
            letter
        }
    };
    let tenths = (bytes * 10).div_ceil(power);
    if tenths < 100 {
        return format!("{}.{}{}", tenths / 10, tenths % 10, letter(unit));
    }
    let whole = bytes.div_ceil(power);
    if whole >= base && unit + 1 < UNITS.len() {
        return format!("1.0{}", letter(unit + 1));
    }
    format!("{whole}{}", letter(unit))
}

/// A name as printed, in the quoting style asked for.
fn quoted(name: &str, quoting: Quoting) -> String {
    match quoting {
        Quoting::Literal => name.to_owned(),
        Quoting::C => format!("\"{}\"", c_escape(name, true)),
        Quoting::Escape => c_escape(name, false),
    }
}

fn c_escape(name: &str, in_quotes: bool) -> String {
    let mut text = String::new();
    for c in name.chars() {
        match c {
            '\\' => text.push_str("\\\\"),
            '"' if in_quotes => text.push_str("\\\""),
            ' ' if !in_quotes => text.push_str("\\ "),
            '\n' => text.push_str("\\n"),
            '\t' => text.push_str("\\t"),
            '\r' => text.push_str("\\r"),
            '\x07' => text.push_str("\\a"),
            '\x08' => text.push_str("\\b"),
            '\x0b' => text.push_str("\\v"),
            '\x0c' => text.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(text, "\\{:03o}", c as u32);
            }
            c => text.push(c),
        }
    }
    text
}

/// Formats a time with a strftime format (the fields GNU's `date` knows best).
pub(super) fn strftime(format: &str, time: Timestamp) -> String {
    let c = Civil::from_secs(epoch_secs(time));
    let twelve = if c.hour.is_multiple_of(12) {
        12
    } else {
        c.hour % 12
    };
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            text.push(ch);
            continue;
        }
        let Some(field) = chars.next() else {
            text.push('%');
            break;
        };
        let _ = match field {
            'Y' => write!(text, "{}", c.year),
            'C' => write!(text, "{:02}", c.year.div_euclid(100)),
            'y' => write!(text, "{:02}", c.year.rem_euclid(100)),
            'm' => write!(text, "{:02}", c.month),
            'd' => write!(text, "{:02}", c.day),
            'e' => write!(text, "{:2}", c.day),
            'H' => write!(text, "{:02}", c.hour),
            'k' => write!(text, "{:2}", c.hour),
            'I' => write!(text, "{twelve:02}"),
            'l' => write!(text, "{twelve:2}"),
            'M' => write!(text, "{:02}", c.minute),
            'S' => write!(text, "{:02}", c.second),
            'N' => write!(text, "{:09}", time.0 % 1_000_000_000),
            'p' => text.write_str(if c.hour < 12 { "AM" } else { "PM" }),
            'P' => text.write_str(if c.hour < 12 { "am" } else { "pm" }),
            'b' | 'h' => text.write_str(c.month_name()),
            'B' => text.write_str(FULL_MONTHS[(c.month as usize + 11) % 12]),
            'a' => text.write_str(c.weekday_name()),
            'A' => text.write_str(FULL_WEEKDAYS[c.weekday as usize % 7]),
            'j' => write!(text, "{:03}", c.year_day + 1),
            'u' => write!(text, "{}", if c.weekday == 0 { 7 } else { c.weekday }),
            'w' => write!(text, "{}", c.weekday),
            's' => write!(text, "{}", epoch_secs(time)),
            'F' => write!(text, "{}-{:02}-{:02}", c.year, c.month, c.day),
            'D' => write!(
                text,
                "{:02}/{:02}/{:02}",
                c.month,
                c.day,
                c.year.rem_euclid(100)
            ),
            'T' => write!(text, "{:02}:{:02}:{:02}", c.hour, c.minute, c.second),
            'R' => write!(text, "{:02}:{:02}", c.hour, c.minute),
            'z' => text.write_str("+0000"),
            'Z' => text.write_str("UTC"),
            'n' => text.write_str("\n"),
            't' => text.write_str("\t"),
            '%' => text.write_str("%"),
            other => write!(text, "%{other}"),
        };
    }
    text
}

const FULL_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const FULL_WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Half a Gregorian year: older (or future) times show the year instead of the time.
const SIX_MONTHS_SECS: i64 = 31_556_952 / 2;

fn format_time(style: &TimeStyle, time: Timestamp) -> String {
    let secs = epoch_secs(time);
    let now = epoch_secs(WallClock.now());
    let recent = now - SIX_MONTHS_SECS < secs && secs <= now;
    match style {
        TimeStyle::FullIso => full_time(time),
        TimeStyle::LongIso => strftime("%Y-%m-%d %H:%M", time),
        TimeStyle::Iso if recent => strftime("%m-%d %H:%M", time),
        TimeStyle::Iso => strftime("%Y-%m-%d ", time),
        TimeStyle::Custom { recent: format, .. } if recent => strftime(format, time),
        TimeStyle::Custom { old, .. } => strftime(old, time),
        TimeStyle::Locale => {
            let c = Civil::from_secs(secs);
            let month = MONTHS[(c.month as usize + 11) % 12];
            if recent {
                format!("{month} {:2} {:02}:{:02}", c.day, c.hour, c.minute)
            } else {
                format!("{month} {:2}  {}", c.day, c.year)
            }
        }
    }
}

/// The columns of one listing, computed over all its entries.
struct Row {
    inode: String,
    blocks: String,
    /// The long format's fields before the name (mode, links, owner, group, size, date).
    long: Vec<String>,
    name: String,
    /// ` -> target` and the target's indicator, in the long format.
    link: String,
    indicator: Option<char>,
}

impl Listing<'_> {
    fn blocks_text(&self, blocks_512: u64) -> String {
        match self.options.human {
            Some(base) => human_size(blocks_512 * 512, base),
            None => (blocks_512 / 2).to_string(),
        }
    }

    fn row(&self, entry: &Entry) -> Row {
        let options = self.options;
        let long = options.format == Format::Long;
        let mut row = Row {
            inode: if options.inode {
                entry.meta.ino.to_string()
            } else {
                String::new()
            },
            blocks: if options.blocks {
                self.blocks_text(blocks_512(&entry.meta))
            } else {
                String::new()
            },
            long: Vec::new(),
            name: quoted(&entry.name, options.quoting),
            link: String::new(),
            indicator: None,
        };
        if long {
            row.long = self.long_fields(entry);
            if let Some(target) = &entry.target {
                row.link = format!(" -> {}", quoted(target, options.quoting));
                if let Some(mark) = entry
                    .target_meta
                    .as_ref()
                    .and_then(|meta| indicator_for(options.indicator, meta))
                {
                    row.link.push(mark);
                }
            }
        }
        row.indicator = match (long, entry.meta.kind) {
            (true, FileKind::Symlink) => None,
            _ => indicator_for(options.indicator, &entry.meta),
        };
        row
    }

    fn long_fields(&self, entry: &Entry) -> Vec<String> {
        let options = self.options;
        let meta = &entry.meta;
        let mut fields = vec![
            mode_string(meta),
            link_count(self.fs, &entry.path, meta).to_string(),
        ];
        let owner = if options.numeric_ids {
            OWNER_ID.to_string()
        } else {
            OWNER.to_owned()
        };
        if options.show_owner {
            fields.push(owner.clone());
        }
        if options.show_group {
            fields.push(owner);
        }
        let size = apparent_size(meta);
        fields.push(match options.human {
            Some(base) => human_size(size, base),
            None => size.to_string(),
        });
        let style = options.time_style.clone().unwrap_or(TimeStyle::Locale);
        fields.push(format_time(&style, self.time_of(meta)));
        fields
    }

    /// Prints entries in the format asked for.
    fn print(&mut self, entries: &[Entry]) {
        if entries.is_empty() {
            return;
        }
        let rows: Vec<Row> = entries.iter().map(|entry| self.row(entry)).collect();
        let inode_width = rows.iter().map(|r| r.inode.len()).max().unwrap_or(0);
        let blocks_width = rows.iter().map(|r| r.blocks.len()).max().unwrap_or(0);
        match self.options.format {
            Format::Long => self.print_long(&rows, inode_width, blocks_width),
            Format::OnePerLine => {
                let end = if self.options.zero { '\0' } else { '\n' };
                for row in &rows {
                    let cell = self.cell(row, inode_width, blocks_width);
                    self.out.push_str(&cell);
                    self.out.push(end);
                }
            }
            Format::Commas => self.print_commas(&rows),
            Format::Columns | Format::Across => {
                let cells: Vec<String> = rows
                    .iter()
                    .map(|row| self.cell(row, inode_width, blocks_width))
                    .collect();
                self.print_columns(&cells, self.options.format == Format::Columns);
            }
        }
    }

    /// A name with its inode, blocks and indicator, as the short formats print it.
    fn cell(&self, row: &Row, inode_width: usize, blocks_width: usize) -> String {
        let mut cell = String::new();
        if self.options.inode {
            let _ = write!(cell, "{:>inode_width$} ", row.inode);
        }
        if self.options.blocks {
            let _ = write!(cell, "{:>blocks_width$} ", row.blocks);
        }
        cell.push_str(&row.name);
        if let Some(mark) = row.indicator {
            cell.push(mark);
        }
        cell
    }

    fn print_long(&mut self, rows: &[Row], inode_width: usize, blocks_width: usize) {
        let columns = rows.first().map_or(0, |row| row.long.len());
        let widths: Vec<usize> = (0..columns)
            .map(|i| {
                rows.iter()
                    .map(|row| row.long.get(i).map_or(0, |f| f.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Owner and group are left-aligned; the mode, counts and sizes right-aligned.
        let owner_columns =
            usize::from(self.options.show_owner) + usize::from(self.options.show_group);
        let end = if self.options.zero { '\0' } else { '\n' };
        for row in rows {
            let mut line = String::new();
            if self.options.inode {
                let _ = write!(line, "{:>inode_width$} ", row.inode);
            }
            if self.options.blocks {
                let _ = write!(line, "{:>blocks_width$} ", row.blocks);
            }
            for (i, field) in row.long.iter().enumerate() {
                let width = widths[i];
                let left = i >= 2 && i < 2 + owner_columns;
                let last = i + 1 == row.long.len();
                if left || last {
                    let _ = write!(line, "{field:<width$} ");
                } else {
                    let _ = write!(line, "{field:>width$} ");
                }
            }
            line.push_str(&row.name);
            if let Some(mark) = row.indicator {
                line.push(mark);
            }
            line.push_str(&row.link);
            self.out.push_str(&line);
            self.out.push(end);
        }
    }

    fn line_width(&self) -> usize {
        self.options.width.unwrap_or(80)
    }

    fn print_commas(&mut self, rows: &[Row]) {
        let width = self.line_width();
        let mut position = 0;
        let cells: Vec<String> = rows.iter().map(|row| self.cell(row, 0, 0)).collect();
        for (i, cell) in cells.iter().enumerate() {
            let length = cell.chars().count();
            if i > 0 {
                if width == 0 || position + length + 2 < width {
                    self.out.push_str(", ");
                    position += 2;
                } else {
                    self.out.push_str(",\n");
                    position = 0;
                }
            }
            self.out.push_str(cell);
            position += length;
        }
        self.out.push('\n');
    }

    /// `-C` (down the columns) and `-x` (across): GNU's column fitting.
    fn print_columns(&mut self, cells: &[String], by_columns: bool) {
        let lengths: Vec<usize> = cells.iter().map(|c| c.chars().count()).collect();
        let widths = fit_columns(&lengths, self.line_width(), by_columns);
        let columns = widths.len().max(1);
        let count = cells.len();
        let rows = count.div_ceil(columns);
        let mut lines: Vec<String> = Vec::new();
        for row in 0..rows {
            let mut line = String::new();
            let mut position = 0;
            for column in 0..columns {
                let index = if by_columns {
                    column * rows + row
                } else {
                    row * columns + column
                };
                let Some(cell) = cells.get(index) else {
                    break;
                };
                line.push_str(cell);
                let next = if by_columns { index + rows } else { index + 1 };
                if column + 1 == columns || next >= count {
                    break;
                }
                let width = widths.get(column).copied().unwrap_or(0);
                self.indent(&mut line, position + lengths[index], position + width);
                position += width;
            }
            lines.push(line);
        }
        for line in lines {
            self.out.push_str(&line);
            self.out.push('\n');
        }
    }

    /// Pads from column `from` to `to`, with tabs where they fit (as GNU does).
    fn indent(&self, line: &mut String, mut from: usize, to: usize) {
        let tab = self.options.tab_size;
        while from < to {
            if tab != 0 && to / tab > (from + 1) / tab {
                line.push('\t');
                from += tab - from % tab;
            } else {
                line.push(' ');
                from += 1;
            }
        }
    }
}

/// The widths of the most columns that fit in `line_width`, as GNU's
/// `calculate_columns` finds them: every column is at least 3 wide, and all but the
/// last have 2 spaces after their longest name.
fn fit_columns(lengths: &[usize], line_width: usize, by_columns: bool) -> Vec<usize> {
    const MIN_COLUMN_WIDTH: usize = 3;
    let count = lengths.len();
    let max_columns = if line_width == 0 {
        count
    } else {
        (line_width / MIN_COLUMN_WIDTH).max(1).min(count)
    };
    for columns in (2..=max_columns).rev() {
        let mut widths = vec![MIN_COLUMN_WIDTH; columns];
        let rows = count.div_ceil(columns);
        for (i, length) in lengths.iter().enumerate() {
            let column = if by_columns { i / rows } else { i % columns };
            let Some(width) = widths.get_mut(column) else {
                continue;
            };
            let padded = length + if column + 1 == columns { 0 } else { 2 };
            *width = (*width).max(padded);
        }
        if line_width == 0 || widths.iter().sum::<usize>() < line_width {
            return widths;
        }
    }
    vec![lengths.iter().copied().max().unwrap_or(0)]
}

// ---------------------------------------------------------------------------------
// The command.

#[bashkit::async_trait]
impl bashkit::Command for Ls {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let env_width = ctx
            .env
            .get("COLUMNS")
            .and_then(|columns| columns.parse().ok())
            .filter(|width| *width > 0);
        let env_style = ctx.env.get("TIME_STYLE").map(String::as_str);
        let options = match parse_args(ctx.args, env_width, env_style) {
            Parsed::Run(options) => options,
            Parsed::Usage(message, code) => {
                return super::util::usage_error(&ctx, &message, code).await;
            }
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(CommandStatus::with_code(0));
            }
        };
        let files = super::util::Files::new(&self.fs, &ctx);
        let mut listing = Listing {
            fs: self.fs.mem(),
            options: &options,
            out: String::new(),
            code: 0,
            errors: Vec::new(),
        };
        list(&mut listing, &files);
        let mut out = Output::new(&ctx);
        let mut written = 0;
        let errors = std::mem::take(&mut listing.errors);
        for (at, message) in errors {
            out.out(&listing.out.as_bytes()[written..at]).await?;
            written = at;
            out.err(message).await?;
        }
        out.out(&listing.out.as_bytes()[written..]).await?;
        out.finish(listing.code).await
    }
}

/// How `ls` treats a command-line symlink by default: `-l`, `-d` and `-F` show the
/// link itself.
fn command_line_deref(options: &Options) -> Deref {
    options.deref.unwrap_or(
        if options.directory
            || options.indicator == Indicator::Classify
            || options.format == Format::Long
        {
            Deref::Never
        } else {
            Deref::CommandLineDirs
        },
    )
}

/// The operand as an entry: the file itself or, when it is followed, what it refers to.
fn operand_entry(
    listing: &mut Listing<'_>,
    files: &super::util::Files<'_>,
    operand: &str,
) -> Option<Entry> {
    let fs = listing.fs;
    let cannot = |listing: &mut Listing<'_>, kind: sandtab_vfs::ErrorKind| {
        let message = format!(
            "cannot access {}: {}",
            quote_always(operand),
            kind.description()
        );
        listing.error(message, 2);
    };
    let path = match files.path(operand) {
        Ok(path) => path,
        Err(err) => {
            cannot(listing, err.kind());
            return None;
        }
    };
    let deref = command_line_deref(listing.options);
    let followed = fs.stat(&path);
    // A trailing slash makes the kernel follow the link (and want a directory).
    if operand.ends_with('/') && operand.len() > 1 {
        return match followed {
            Ok(meta) if meta.kind == FileKind::Directory => {
                Some(Entry::new(fs, operand.to_owned(), path, meta))
            }
            Ok(_) => {
                cannot(listing, sandtab_vfs::ErrorKind::NotADirectory);
                None
            }
            Err(err) => {
                cannot(listing, err.kind());
                None
            }
        };
    }
    let meta = match fs.lstat(&path) {
        Ok(meta) => meta,
        Err(err) => {
            cannot(listing, err.kind());
            return None;
        }
    };
    if meta.kind != FileKind::Symlink {
        return Some(Entry::new(fs, operand.to_owned(), path, meta));
    }
    let meta = match (deref, followed) {
        (Deref::All | Deref::CommandLine, Ok(target)) => target,
        (Deref::CommandLineDirs, Ok(target)) if target.kind == FileKind::Directory => target,
        (Deref::All | Deref::CommandLine, Err(err)) => {
            cannot(listing, err.kind());
            return None;
        }
        _ => meta,
    };
    Some(Entry::new(fs, operand.to_owned(), path, meta))
}

/// The whole listing: file operands first, then each directory (and with `-R` what is
/// below it).
fn list(listing: &mut Listing<'_>, files: &super::util::Files<'_>) {
    let options = listing.options;
    let mut plain = Vec::new();
    let mut dirs = Vec::new();
    for operand in &options.operands {
        let Some(entry) = operand_entry(listing, files, operand) else {
            continue;
        };
        if entry.is_dir() && !options.directory {
            dirs.push(entry);
        } else {
            plain.push(entry);
        }
    }
    listing.sort(&mut plain);
    listing.sort(&mut dirs);
    let operand_count = options.operands.len();
    let printed_files = !plain.is_empty();
    listing.print(&plain);
    if printed_files && !dirs.is_empty() {
        listing.out.push('\n');
    }
    let headers = options.recursive || operand_count > 1 || printed_files;
    let mut first = true;
    let mut visited = HashSet::new();
    // Directories still to list, the next one last.
    let mut pending: Vec<(String, VfsPath, bool)> = dirs
        .into_iter()
        .rev()
        .map(|entry| (entry.name, entry.path, true))
        .collect();
    while let Some((name, path, command_line)) = pending.pop() {
        if options.deref == Some(Deref::All)
            && let Ok(meta) = listing.fs.stat(&path)
            && !visited.insert(meta.ino)
        {
            let message = format!(
                "{}: not listing already-listed directory",
                quote_always(&name)
            );
            listing.error(message, 2);
            continue;
        }
        if headers {
            if !first {
                listing.out.push('\n');
            }
            let _ = writeln!(listing.out, "{}:", quoted(&name, options.quoting));
        }
        first = false;
        let Some(entries) = listing.read_directory(&path, &name, command_line) else {
            continue;
        };
        if options.format == Format::Long || options.blocks {
            let total: u64 = entries.iter().map(|entry| blocks_512(&entry.meta)).sum();
            let _ = writeln!(listing.out, "total {}", listing.blocks_text(total));
        }
        listing.print(&entries);
        if options.recursive {
            let below: Vec<(String, VfsPath, bool)> = entries
                .iter()
                .filter(|entry| entry.is_dir() && entry.name != "." && entry.name != "..")
                .map(|entry| (child_name(&name, &entry.name), entry.path.clone(), false))
                .collect();
            pending.extend(below.into_iter().rev());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_size(5, 1024), "5");
        assert_eq!(human_size(4096, 1024), "4.0K");
        assert_eq!(human_size(5000, 1024), "4.9K");
        assert_eq!(human_size(16384, 1024), "16K");
        assert_eq!(human_size(10 * 1024 - 1, 1024), "10K");
        assert_eq!(human_size(1024 * 1024 - 1, 1024), "1.0M");
        assert_eq!(human_size(1_536_000, 1024), "1.5M");
        assert_eq!(human_size(5000, 1000), "5.0k");
        assert_eq!(human_size(u64::MAX, 1024), "16E");
    }

    #[test]
    fn columns_fit_like_gnu() {
        let names = ["a", "big", "dangling", "la", "old", "sub"];
        let lengths: Vec<usize> = names.iter().map(|n| n.len()).collect();
        assert_eq!(fit_columns(&lengths, 80, true).len(), 6);
        assert_eq!(fit_columns(&lengths, 20, true), vec![5, 10, 3]);
        assert_eq!(fit_columns(&lengths, 20, false), vec![4, 5, 8]);
    }

    #[test]
    fn globs() {
        let m = |p: &str, n: &str| {
            glob_matches(
                &p.chars().collect::<Vec<_>>(),
                &n.chars().collect::<Vec<_>>(),
            )
        };
        assert!(m("d*", "dangling"));
        assert!(!m("d*", "a"));
        assert!(m("*.[ch]", "x.c"));
        assert!(!m("*.[!ch]", "x.c"));
        assert!(m("?b", "ab"));
        assert!(m("[", "["));
    }

    #[test]
    fn version_order() {
        assert_eq!(version_cmp("a2", "a10"), Ordering::Less);
        assert_eq!(version_cmp("a10", "a10"), Ordering::Equal);
        assert_eq!(version_cmp("b", "a10"), Ordering::Greater);
    }

    #[test]
    fn options_combine() {
        let Parsed::Run(options) = parse_args(&args(&["-lah", "--sort=size", "x"]), None, None)
        else {
            panic!("expected options");
        };
        assert_eq!(options.format, Format::Long);
        assert_eq!(options.hidden, Hidden::All);
        assert_eq!(options.human, Some(1024));
        assert_eq!(options.sort, Sort::Size);
        assert_eq!(options.operands, vec!["x".to_owned()]);
        let Parsed::Run(options) = parse_args(&args(&["-l1"]), None, None) else {
            panic!("expected options");
        };
        assert_eq!(options.format, Format::OnePerLine);
        assert_eq!(options.operands, vec![".".to_owned()]);
        assert!(matches!(
            parse_args(&args(&["-j"]), None, None),
            Parsed::Usage(_, 2)
        ));
        assert!(matches!(
            parse_args(&args(&["--sort=x"]), None, None),
            Parsed::Usage(_, 2)
        ));
    }

    #[test]
    fn time_formats() {
        let old = Timestamp(1_577_934_240 * 1_000_000_000); // 2020-01-02 03:04 UTC
        assert_eq!(format_time(&TimeStyle::Locale, old), "Jan  2  2020");
        assert_eq!(format_time(&TimeStyle::LongIso, old), "2020-01-02 03:04");
        assert_eq!(format_time(&TimeStyle::Iso, old), "2020-01-02 ");
        assert_eq!(
            strftime("%Y/%m %e|%j %a %B %%", old),
            "2020/01  2|002 Thu January %"
        );
    }
}
