//! `ls`'s options: what the command line asks for, parsed GNU-style.

use crate::files::stat::quote_always;
use crate::options::{Arg, Parser, Spec, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hidden {
    /// Names starting with `.` are left out.
    Skip,
    /// Shown, but not `.` and `..` (`-A`).
    AlmostAll,
    /// Shown, with `.` and `..` (`-a`).
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    OnePerLine,
    Long,
    Columns,
    Across,
    Commas,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sort {
    Name,
    None,
    Size,
    Time,
    Extension,
    Version,
    Width,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Indicator {
    None,
    Slash,
    FileType,
    Classify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeField {
    Modified,
    Changed,
    Accessed,
    Birth,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TimeStyle {
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
pub(super) enum Deref {
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
pub(super) enum Quoting {
    Literal,
    /// `-Q`: in double quotes, with C escapes.
    C,
    /// `-b`: C escapes without quotes.
    Escape,
}

#[derive(Debug, Clone)]
pub(super) struct Options {
    pub(super) hidden: Hidden,
    pub(super) ignore_backups: bool,
    pub(super) ignore: Vec<String>,
    pub(super) hide: Vec<String>,
    pub(super) directory: bool,
    pub(super) recursive: bool,
    pub(super) format: Format,
    pub(super) show_owner: bool,
    pub(super) show_group: bool,
    pub(super) numeric_ids: bool,
    /// `-h` (1024) or `--si` (1000).
    pub(super) human: Option<u64>,
    pub(super) inode: bool,
    pub(super) blocks: bool,
    pub(super) indicator: Indicator,
    pub(super) sort: Sort,
    pub(super) reverse: bool,
    pub(super) time: TimeField,
    pub(super) time_style: Option<TimeStyle>,
    pub(super) deref: Option<Deref>,
    pub(super) group_directories_first: bool,
    pub(super) width: Option<usize>,
    pub(super) tab_size: usize,
    pub(super) quoting: Quoting,
    pub(super) zero: bool,
    pub(super) operands: Vec<String>,
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

/// What `ls` accepts: each short letter stands for a long option (`short_as_long`).
pub(super) const SPEC: Spec = Spec {
    short: "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1I:T:w:",
    long: &[
        ("all", Value::No),
        ("almost-all", Value::No),
        ("author", Value::No),
        ("escape", Value::No),
        ("block-size", Value::Required),
        ("ignore-backups", Value::No),
        ("color", Value::Optional),
        ("directory", Value::No),
        ("dired", Value::No),
        ("classify", Value::Optional),
        ("file-type", Value::No),
        ("format", Value::Required),
        ("full-time", Value::No),
        ("group-directories-first", Value::No),
        ("no-group", Value::No),
        ("human-readable", Value::No),
        ("si", Value::No),
        ("dereference-command-line", Value::No),
        ("dereference-command-line-symlink-to-dir", Value::No),
        ("hide", Value::Required),
        ("hyperlink", Value::Optional),
        ("indicator-style", Value::Required),
        ("inode", Value::No),
        ("ignore", Value::Required),
        ("kibibytes", Value::No),
        ("dereference", Value::No),
        ("numeric-uid-gid", Value::No),
        ("literal", Value::No),
        ("hide-control-chars", Value::No),
        ("show-control-chars", Value::No),
        ("quote-name", Value::No),
        ("quoting-style", Value::Required),
        ("reverse", Value::No),
        ("recursive", Value::No),
        ("size", Value::No),
        ("sort", Value::Required),
        ("time", Value::Required),
        ("time-style", Value::Required),
        ("tabsize", Value::Required),
        ("width", Value::Required),
        ("context", Value::No),
        ("zero", Value::No),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

/// How the command line ended: options to run with, or an early exit.
pub(super) enum Parsed {
    Run(Options),
    /// A message and the exit status (GNU's `Try 'ls --help'` follows).
    Usage(String, i32),
    Text(String),
}

/// The long option a short one stands for (with its value if it takes one).
pub(super) fn short_as_long(flag: char) -> Option<&'static str> {
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

pub(super) fn parse_args(
    args: &[String],
    env_width: Option<usize>,
    env_style: Option<&str>,
) -> Parsed {
    let mut options = Options::default();
    let mut parser = Parser::new(&SPEC, args);
    loop {
        let (name, value): (&str, Option<&str>) = match parser.next_arg() {
            Ok(Some(Arg::Operand(operand))) => {
                options.operands.push(operand.to_owned());
                continue;
            }
            Ok(Some(Arg::Short('I', value))) => ("ignore", value),
            Ok(Some(Arg::Short('T', value))) => ("tabsize", value),
            Ok(Some(Arg::Short('w', value))) => ("width", value),
            Ok(Some(Arg::Short(flag, _))) => {
                // Every other letter SPEC takes stands for a long option.
                let Some(long) = short_as_long(flag) else {
                    continue;
                };
                match long.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (long, None),
                }
            }
            Ok(Some(Arg::Long(name, value))) => (name, value),
            Ok(None) => break,
            Err(err) => return Parsed::Usage(err.into(), 2),
        };
        if let Some(early) = apply_option(&mut options, name, value) {
            return early;
        }
    }
    finish_options(options, env_width, env_style)
}

/// Fills in what depends on several options.
pub(super) fn finish_options(
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
pub(super) fn apply_option(
    options: &mut Options,
    name: &str,
    value: Option<&str>,
) -> Option<Parsed> {
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

pub(super) fn invalid_argument(value: &str, option: &str) -> Parsed {
    Parsed::Usage(
        format!("invalid argument {} for '{option}'", quote_always(value)),
        2,
    )
}

pub(super) fn parse_time_style(style: &str) -> Result<TimeStyle, String> {
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

pub(super) const HELP: &str = "Usage: ls [OPTION]... [FILE]...
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
