//! File names: `realpath` and `readlink` (symlinks resolved one component at a time,
//! as the kernel does, so `link/..` is the link target's parent), `basename` and
//! `dirname` (GNU's rules for slashes and suffixes).

use super::util::{ArgItem, GnuArgs, Output, quote, usage_error};
use bashkit::{BashBuilder, CommandContext, CommandStatus};
use sandtab_vfs::{ErrorKind, FileKind, MemFs, SandboxFs, VfsPath};
use std::collections::HashSet;
use std::sync::Arc;

pub(crate) fn register(builder: BashBuilder, fs: &Arc<SandboxFs>) -> BashBuilder {
    builder
        .command("realpath", Realpath { fs: fs.clone() })
        .command("readlink", Readlink { fs: fs.clone() })
        .command("basename", Basename)
        .command("dirname", Dirname)
}

// ---------------------------------------------------------------------------------
// Resolving names.

/// Which components of a name must exist .
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Existence {
    /// Every component (`-e`).
    All,
    /// All but the last (`realpath`, `readlink -f`).
    AllButLast,
    /// None, and a file may stand where a directory would (`-m`).
    None,
}

/// How a name is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Resolve {
    pub existence: Existence,
    /// Follow symlinks (false for `realpath -s`).
    pub follow: bool,
    /// Apply `..` to the name as written before following symlinks (`realpath -L`).
    pub logical: bool,
}

/// More symlinks than this in one name is a loop (Linux allows 40).
const MAX_SYMLINKS: usize = 40;

/// Components from a directory down, outermost first.
type Components = Vec<String>;

/// The absolute path `name` (relative to `cwd`) resolves to, as components below `/`;
/// or the error that stops it.
pub(super) fn canonicalize(
    fs: &MemFs,
    cwd: &str,
    name: &str,
    how: Resolve,
) -> Result<Components, ErrorKind> {
    if name.is_empty() {
        return Err(ErrorKind::NotFound);
    }
    let written = if name.starts_with('/') {
        name.to_owned()
    } else {
        format!("{cwd}/{name}")
    };
    if how.logical || !how.follow {
        let lexical = VfsPath::parse(&written).map_err(|err| err.kind())?;
        let mut text = lexical.to_string();
        if name.ends_with('/') && !lexical.is_root() {
            text.push('/'); // A trailing slash still asks for a directory.
        }
        if !how.follow {
            return check_lexical(fs, &lexical, name.ends_with('/'), how.existence);
        }
        return walk(fs, &text, how.existence);
    }
    walk(fs, &written, how.existence)
}

/// `realpath -s`: the name normalised as written, checked for existence as asked.
fn check_lexical(
    fs: &MemFs,
    path: &VfsPath,
    wants_dir: bool,
    existence: Existence,
) -> Result<Components, ErrorKind> {
    let components = path.components().to_vec();
    let must_exist = match existence {
        Existence::None => return Ok(components),
        Existence::All => Some(path.clone()),
        Existence::AllButLast => path.parent(),
    };
    if let Some(must) = must_exist {
        let meta = fs.stat(&must).map_err(|err| err.kind())?;
        let needs_dir = existence == Existence::AllButLast || wants_dir;
        if needs_dir && meta.kind != FileKind::Directory {
            return Err(ErrorKind::NotADirectory);
        }
    }
    Ok(components)
}

/// Follows `path` (absolute) from `/` one component at a time, as gnulib's
/// `canonicalize_filename_mode` does.
fn walk(fs: &MemFs, path: &str, existence: Existence) -> Result<Components, ErrorKind> {
    let mut resolved: Components = Vec::new();
    // What is left to walk, last component first (so the next one pops off the end).
    let mut pending: Vec<String> = split_reversed(path);
    let mut seen: HashSet<(u64, Vec<String>)> = HashSet::new();
    let mut followed = 0;
    while let Some(component) = pending.pop() {
        match component.as_str() {
            "" | "." => continue,
            ".." => {
                resolved.pop();
                continue;
            }
            _ => {}
        }
        let more_follows = pending.iter().any(|rest| !rest.is_empty());
        let anything_follows = !pending.is_empty();
        resolved.push(component);
        let here = to_path(&resolved)?;
        let meta = match fs.lstat(&here) {
            Ok(meta) => meta,
            Err(err) => match (existence, err.kind()) {
                (Existence::None, _) => continue,
                (Existence::AllButLast, ErrorKind::NotFound) if !more_follows => continue,
                (_, kind) => return Err(kind),
            },
        };
        match meta.kind {
            FileKind::Symlink => {
                followed += 1;
                let looped = !seen.insert((meta.ino, pending.clone()));
                if looped || followed > MAX_SYMLINKS {
                    if existence == Existence::None {
                        continue; // -m keeps a looping link as a name.
                    }
                    return Err(ErrorKind::TooManyLinks);
                }
                let target = fs.read_link(&here).map_err(|err| err.kind())?;
                resolved.pop();
                if target.starts_with('/') {
                    resolved.clear();
                }
                pending.extend(split_reversed(&target));
            }
            FileKind::File if anything_follows && existence != Existence::None => {
                return Err(ErrorKind::NotADirectory);
            }
            _ => {}
        }
    }
    Ok(resolved)
}

/// The components of `path` (empty ones kept: they tell a trailing slash), last first.
fn split_reversed(path: &str) -> Vec<String> {
    let relative = path.trim_start_matches('/');
    if relative.is_empty() {
        return Vec::new();
    }
    relative.split('/').rev().map(str::to_owned).collect()
}

fn to_path(components: &[String]) -> Result<VfsPath, ErrorKind> {
    VfsPath::parse(&components_text(components)).map_err(|err| err.kind())
}

/// `/a/b` for `["a", "b"]`, `/` for none.
pub(super) fn components_text(components: &[String]) -> String {
    if components.is_empty() {
        return "/".to_owned();
    }
    components.iter().fold(String::new(), |mut text, name| {
        text.push('/');
        text.push_str(name);
        text
    })
}

/// `path` relative to the directory `base` (both absolute, resolved).
fn relative(path: &[String], base: &[String]) -> String {
    let common = path.iter().zip(base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; base.len() - common];
    parts.extend(path[common..].iter().map(String::as_str));
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

fn cwd_of(ctx: &CommandContext<'_>) -> String {
    ctx.cwd.to_str().unwrap_or("/").to_owned()
}

// ---------------------------------------------------------------------------------
// realpath

#[derive(Debug)]
struct Realpath {
    fs: Arc<SandboxFs>,
}

#[derive(Debug)]
struct RealpathOptions {
    how: Resolve,
    quiet: bool,
    zero: bool,
    relative_to: Option<String>,
    relative_base: Option<String>,
    operands: Vec<String>,
}

const REALPATH_LONG: &[&str] = &[
    "canonicalize-existing",
    "canonicalize-missing",
    "logical",
    "physical",
    "quiet",
    "relative-to=",
    "relative-base=",
    "strip",
    "no-symlinks",
    "zero",
    "help",
    "version",
];

const REALPATH_HELP: &str = "Usage: realpath [OPTION]... FILE...
Print the resolved absolute file name;
all but the last component must exist

  -e, --canonicalize-existing  all components of the path must exist
  -m, --canonicalize-missing   no path components need exist or be a directory
  -L, --logical                resolve '..' components before symlinks
  -P, --physical               resolve symlinks as encountered (default)
  -q, --quiet                  suppress most error messages
      --relative-to=DIR        print the resolved path relative to DIR
      --relative-base=DIR      print absolute paths unless paths below DIR
  -s, --strip, --no-symlinks   don't expand symlinks
  -z, --zero                   end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
";

/// What a command line asks for, or why it stops early.
enum Parsed<T> {
    Run(T),
    Usage(String),
    Text(&'static str),
}

fn parse_realpath(args: &[String]) -> Parsed<RealpathOptions> {
    let mut options = RealpathOptions {
        how: Resolve {
            existence: Existence::AllButLast,
            follow: true,
            logical: false,
        },
        quiet: false,
        zero: false,
        relative_to: None,
        relative_base: None,
        operands: Vec::new(),
    };
    let mut parser = GnuArgs::new(args);
    while let Some(item) = parser.next_item() {
        let option = match item {
            ArgItem::Operand(operand) => {
                options.operands.push(operand.to_owned());
                continue;
            }
            ArgItem::Short(flag) => match flag {
                'e' => "canonicalize-existing",
                'm' => "canonicalize-missing",
                'L' => "logical",
                'P' => "physical",
                'q' => "quiet",
                's' => "strip",
                'z' => "zero",
                other => return Parsed::Usage(format!("invalid option -- '{other}'")),
            },
            ArgItem::Long(given, inline) => {
                match parser.long_option(given, inline, REALPATH_LONG) {
                    Ok(("relative-to", value)) => {
                        options.relative_to = value.map(str::to_owned);
                        continue;
                    }
                    Ok(("relative-base", value)) => {
                        options.relative_base = value.map(str::to_owned);
                        continue;
                    }
                    Ok((name, _)) => name,
                    Err(message) => return Parsed::Usage(message),
                }
            }
        };
        match option {
            "canonicalize-existing" => options.how.existence = Existence::All,
            "canonicalize-missing" => options.how.existence = Existence::None,
            "logical" => options.how.logical = true,
            "physical" => options.how.logical = false,
            "quiet" => options.quiet = true,
            "strip" | "no-symlinks" => options.how.follow = false,
            "zero" => options.zero = true,
            "help" => return Parsed::Text(REALPATH_HELP),
            _ => return Parsed::Text("realpath (GNU coreutils) 9.1\n"),
        }
    }
    if options.operands.is_empty() {
        return Parsed::Usage("missing operand".into());
    }
    Parsed::Run(options)
}

#[bashkit::async_trait]
impl bashkit::Command for Realpath {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let options = match parse_realpath(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(CommandStatus::with_code(0));
            }
        };
        let fs = self.fs.mem();
        let cwd = cwd_of(&ctx);
        let mut out = Output::new(&ctx);
        let resolve_dir = |dir: &Option<String>| match dir {
            Some(dir) => canonicalize(fs, &cwd, dir, options.how)
                .map(Some)
                .map_err(|kind| format!("realpath: {}: {}\n", quote(dir), kind.description())),
            None => Ok(None),
        };
        let (mut relative_to, mut relative_base) = match (
            resolve_dir(&options.relative_to),
            resolve_dir(&options.relative_base),
        ) {
            (Ok(to), Ok(base)) => (to, base),
            (Err(message), _) | (_, Err(message)) => {
                out.err(message).await?;
                return out.finish(1).await;
            }
        };
        if relative_to.is_none() {
            relative_to.clone_from(&relative_base);
        }
        // A base the directory is not below makes every path absolute.
        if let (Some(to), Some(base)) = (&relative_to, &relative_base)
            && !to.starts_with(base)
        {
            relative_to = None;
            relative_base = None;
        }
        let end = if options.zero { '\0' } else { '\n' };
        let mut code = 0;
        for operand in &options.operands {
            match canonicalize(fs, &cwd, operand, options.how) {
                Ok(path) => {
                    let text = match (&relative_to, &relative_base) {
                        (Some(to), Some(base)) if path.starts_with(base) => relative(&path, to),
                        (Some(to), None) => relative(&path, to),
                        _ => components_text(&path),
                    };
                    out.out(format!("{text}{end}")).await?;
                }
                Err(kind) => {
                    if !options.quiet {
                        out.err(format!(
                            "realpath: {}: {}\n",
                            quote(operand),
                            kind.description()
                        ))
                        .await?;
                    }
                    code = 1;
                }
            }
        }
        out.finish(code).await
    }
}

// ---------------------------------------------------------------------------------
// readlink

#[derive(Debug)]
struct Readlink {
    fs: Arc<SandboxFs>,
}

#[derive(Debug, Default)]
struct ReadlinkOptions {
    /// `-f`, `-e`, `-m`: canonicalize instead of reading the link.
    canonicalize: Option<Existence>,
    no_newline: bool,
    verbose: bool,
    zero: bool,
    operands: Vec<String>,
}

const READLINK_LONG: &[&str] = &[
    "canonicalize",
    "canonicalize-existing",
    "canonicalize-missing",
    "no-newline",
    "quiet",
    "silent",
    "verbose",
    "zero",
    "help",
    "version",
];

const READLINK_HELP: &str = "Usage: readlink [OPTION]... FILE...
Print value of a symbolic link or canonical file name

  -f, --canonicalize            canonicalize by following every symlink in
                                every component of the given name recursively;
                                all but the last component must exist
  -e, --canonicalize-existing   canonicalize by following every symlink in
                                every component of the given name recursively,
                                all components must exist
  -m, --canonicalize-missing    canonicalize by following every symlink in
                                every component of the given name recursively,
                                without requirements on components existence
  -n, --no-newline              do not output the trailing delimiter
  -q, --quiet
  -s, --silent                  suppress most error messages (on by default)
  -v, --verbose                 report error messages
  -z, --zero                    end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
";

fn parse_readlink(args: &[String]) -> Parsed<ReadlinkOptions> {
    let mut options = ReadlinkOptions::default();
    let mut parser = GnuArgs::new(args);
    while let Some(item) = parser.next_item() {
        let option = match item {
            ArgItem::Operand(operand) => {
                options.operands.push(operand.to_owned());
                continue;
            }
            ArgItem::Short(flag) => match flag {
                'f' => "canonicalize",
                'e' => "canonicalize-existing",
                'm' => "canonicalize-missing",
                'n' => "no-newline",
                'q' | 's' => "quiet",
                'v' => "verbose",
                'z' => "zero",
                other => return Parsed::Usage(format!("invalid option -- '{other}'")),
            },
            ArgItem::Long(given, inline) => {
                match parser.long_option(given, inline, READLINK_LONG) {
                    Ok((name, _)) => name,
                    Err(message) => return Parsed::Usage(message),
                }
            }
        };
        match option {
            "canonicalize" => options.canonicalize = Some(Existence::AllButLast),
            "canonicalize-existing" => options.canonicalize = Some(Existence::All),
            "canonicalize-missing" => options.canonicalize = Some(Existence::None),
            "no-newline" => options.no_newline = true,
            "quiet" | "silent" => options.verbose = false,
            "verbose" => options.verbose = true,
            "zero" => options.zero = true,
            "help" => return Parsed::Text(READLINK_HELP),
            _ => return Parsed::Text("readlink (GNU coreutils) 9.1\n"),
        }
    }
    if options.operands.is_empty() {
        return Parsed::Usage("missing operand".into());
    }
    Parsed::Run(options)
}

/// The target the symlink `name` stores (its directory resolved first, as the kernel
/// does).
fn read_link(fs: &MemFs, cwd: &str, name: &str) -> Result<String, ErrorKind> {
    let trimmed = name.trim_end_matches('/');
    let (dir, base) = match trimmed.rsplit_once('/') {
        Some((dir, base)) => (if dir.is_empty() { "/" } else { dir }, base),
        None => (".", trimmed),
    };
    let how = Resolve {
        existence: Existence::All,
        follow: true,
        logical: false,
    };
    let mut path = canonicalize(fs, cwd, dir, how)?;
    if trimmed.len() != name.len() || matches!(base, "" | "." | "..") {
        // With a trailing slash (or `.`, `..`) the name is a directory, not a link.
        canonicalize(fs, cwd, name, how)?;
        return Err(ErrorKind::InvalidInput);
    }
    path.push(base.to_owned());
    fs.read_link(&to_path(&path)?).map_err(|err| err.kind())
}

#[bashkit::async_trait]
impl bashkit::Command for Readlink {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let mut options = match parse_readlink(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(CommandStatus::with_code(0));
            }
        };
        let mut out = Output::new(&ctx);
        if options.no_newline && options.operands.len() > 1 {
            out.err("readlink: ignoring --no-newline with multiple arguments\n")
                .await?;
            options.no_newline = false;
        }
        let fs = self.fs.mem();
        let cwd = cwd_of(&ctx);
        let end = match (options.no_newline, options.zero) {
            (true, _) => "",
            (false, true) => "\0",
            (false, false) => "\n",
        };
        let mut code = 0;
        for operand in &options.operands {
            let result = match options.canonicalize {
                Some(existence) => {
                    let how = Resolve {
                        existence,
                        follow: true,
                        logical: false,
                    };
                    canonicalize(fs, &cwd, operand, how).map(|path| components_text(&path))
                }
                None => read_link(fs, &cwd, operand),
            };
            match result {
                Ok(text) => out.out(format!("{text}{end}")).await?,
                Err(kind) => {
                    if options.verbose {
                        out.err(format!(
                            "readlink: {}: {}\n",
                            quote(operand),
                            kind.description()
                        ))
                        .await?;
                    }
                    code = 1;
                }
            }
        }
        out.finish(code).await
    }
}

// ---------------------------------------------------------------------------------
// basename and dirname (gnulib's `last_component`, `base_name`, `dir_len`)

/// Where the last component of `name` starts (after any leading slashes).
fn last_component(name: &str) -> usize {
    let bytes = name.as_bytes();
    let mut base = bytes.iter().take_while(|b| **b == b'/').count();
    let mut after_slash = false;
    for (i, &byte) in bytes.iter().enumerate().skip(base) {
        if byte == b'/' {
            after_slash = true;
        } else if after_slash {
            base = i;
            after_slash = false;
        }
    }
    base
}

/// `basename`'s answer for `name`, without `suffix` if given and not the whole name.
fn base_name(name: &str, suffix: Option<&str>) -> String {
    let start = last_component(name);
    let base = &name[start..];
    let mut result = if base.is_empty() {
        // Only slashes (or nothing): the root stays.
        if name.is_empty() { "" } else { "/" }.to_owned()
    } else {
        base.trim_end_matches('/').to_owned()
    };
    if let Some(suffix) = suffix
        && !result.starts_with('/')
        && result.len() > suffix.len()
        && result.ends_with(suffix)
    {
        result.truncate(result.len() - suffix.len());
    }
    result
}

/// `dirname`'s answer for `name`.
fn dir_name(name: &str) -> &str {
    let bytes = name.as_bytes();
    let prefix = usize::from(bytes.first() == Some(&b'/'));
    let mut length = last_component(name);
    while prefix < length && bytes[length - 1] == b'/' {
        length -= 1;
    }
    if length == 0 { "." } else { &name[..length] }
}

#[derive(Debug)]
struct Basename;

const BASENAME_LONG: &[&str] = &["multiple", "suffix=", "zero", "help", "version"];

const BASENAME_HELP: &str = "Usage: basename NAME [SUFFIX]
  or:  basename OPTION... NAME...
Print NAME with any leading directory components removed.
If specified, also remove a trailing SUFFIX.

Mandatory arguments to long options are mandatory for short options too.
  -a, --multiple       support multiple arguments and treat each as a NAME
  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a
  -z, --zero           end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

Examples:
  basename /usr/bin/sort          -> \"sort\"
  basename include/stdio.h .h     -> \"stdio\"
  basename -s .h include/stdio.h  -> \"stdio\"
  basename -a any/str1 any/str2   -> \"str1\" followed by \"str2\"
";

#[derive(Debug, Default)]
struct BasenameOptions {
    multiple: bool,
    suffix: Option<String>,
    zero: bool,
    operands: Vec<String>,
}

fn parse_basename(args: &[String]) -> Parsed<BasenameOptions> {
    let mut options = BasenameOptions::default();
    let mut parser = GnuArgs::new(args).stopping_at_operand();
    while let Some(item) = parser.next_item() {
        let (option, value) = match item {
            ArgItem::Operand(operand) => {
                options.operands.push(operand.to_owned());
                continue;
            }
            ArgItem::Short('a') => ("multiple", None),
            ArgItem::Short('z') => ("zero", None),
            ArgItem::Short('s') => match parser.short_value() {
                Some(value) => ("suffix", Some(value)),
                None => return Parsed::Usage("option requires an argument -- 's'".into()),
            },
            ArgItem::Short(other) => return Parsed::Usage(format!("invalid option -- '{other}'")),
            ArgItem::Long(given, inline) => {
                match parser.long_option(given, inline, BASENAME_LONG) {
                    Ok(found) => found,
                    Err(message) => return Parsed::Usage(message),
                }
            }
        };
        match option {
            "multiple" => options.multiple = true,
            "zero" => options.zero = true,
            "suffix" => {
                options.multiple = true;
                options.suffix = value.map(str::to_owned);
            }
            "help" => return Parsed::Text(BASENAME_HELP),
            _ => return Parsed::Text("basename (GNU coreutils) 9.1\n"),
        }
    }
    match options.operands.len() {
        0 => Parsed::Usage("missing operand".into()),
        n if n > 2 && !options.multiple => {
            Parsed::Usage(format!("extra operand {}", quote_gnu(&options.operands[2])))
        }
        _ => Parsed::Run(options),
    }
}

/// GNU's `quote()` in the C locale: always in single quotes.
fn quote_gnu(text: &str) -> String {
    super::stat::quote_always(text)
}

#[bashkit::async_trait]
impl bashkit::Command for Basename {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let options = match parse_basename(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(CommandStatus::with_code(0));
            }
        };
        let end = if options.zero { '\0' } else { '\n' };
        let mut text = String::new();
        if options.multiple {
            for name in &options.operands {
                text.push_str(&base_name(name, options.suffix.as_deref()));
                text.push(end);
            }
        } else {
            let suffix = options.operands.get(1).map(String::as_str);
            text.push_str(&base_name(&options.operands[0], suffix));
            text.push(end);
        }
        ctx.stdout.write_all(text.as_bytes()).await?;
        Ok(CommandStatus::with_code(0))
    }
}

#[derive(Debug)]
struct Dirname;

const DIRNAME_HELP: &str = "Usage: dirname [OPTION] NAME...
Output each NAME with its last non-slash component and trailing slashes
removed; if NAME contains no /'s, output '.' (meaning the current directory).

  -z, --zero     end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

Examples:
  dirname /usr/bin/          -> \"/usr\"
  dirname dir1/str dir2/str  -> \"dir1\" followed by \"dir2\"
  dirname stdio.h            -> \".\"
";

fn parse_dirname(args: &[String]) -> Parsed<(bool, Vec<String>)> {
    let mut zero = false;
    let mut operands = Vec::new();
    let mut parser = GnuArgs::new(args);
    while let Some(item) = parser.next_item() {
        let option = match item {
            ArgItem::Operand(operand) => {
                operands.push(operand.to_owned());
                continue;
            }
            ArgItem::Short('z') => "zero",
            ArgItem::Short(other) => return Parsed::Usage(format!("invalid option -- '{other}'")),
            ArgItem::Long(given, inline) => {
                match parser.long_option(given, inline, &["zero", "help", "version"]) {
                    Ok((name, _)) => name,
                    Err(message) => return Parsed::Usage(message),
                }
            }
        };
        match option {
            "zero" => zero = true,
            "help" => return Parsed::Text(DIRNAME_HELP),
            _ => return Parsed::Text("dirname (GNU coreutils) 9.1\n"),
        }
    }
    if operands.is_empty() {
        return Parsed::Usage("missing operand".into());
    }
    Parsed::Run((zero, operands))
}

#[bashkit::async_trait]
impl bashkit::Command for Dirname {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let (zero, operands) = match parse_dirname(ctx.args) {
            Parsed::Run(parsed) => parsed,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(CommandStatus::with_code(0));
            }
        };
        let end = if zero { '\0' } else { '\n' };
        let text: String = operands
            .iter()
            .map(|name| format!("{}{end}", dir_name(name)))
            .collect();
        ctx.stdout.write_all(text.as_bytes()).await?;
        Ok(CommandStatus::with_code(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandtab_vfs::ManualClock;

    #[test]
    fn basenames() {
        assert_eq!(base_name("/usr/local/bin/tool", None), "tool");
        assert_eq!(base_name("dir/sub/", None), "sub");
        assert_eq!(base_name("/", None), "/");
        assert_eq!(base_name("//", None), "/");
        assert_eq!(base_name("", None), "");
        assert_eq!(base_name("a//b//", None), "b");
        assert_eq!(base_name("main.rs", Some(".rs")), "main");
        assert_eq!(base_name(".txt", Some(".txt")), ".txt");
        assert_eq!(base_name("x/.c", Some(".c")), ".c");
        assert_eq!(base_name("a.c", Some("c")), "a.");
    }

    #[test]
    fn dirnames() {
        assert_eq!(dir_name("/usr/local/bin/tool"), "/usr/local/bin");
        assert_eq!(dir_name("file.txt"), ".");
        assert_eq!(dir_name("a/b/"), "a");
        assert_eq!(dir_name("/"), "/");
        assert_eq!(dir_name("//"), "/");
        assert_eq!(dir_name("//a//b//"), "//a");
        assert_eq!(dir_name(""), ".");
        assert_eq!(dir_name("/f"), "/");
        assert_eq!(dir_name("a/"), ".");
    }

    #[test]
    fn relative_paths() {
        let v = |s: &str| -> Vec<String> {
            s.split('/')
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(relative(&v("/h/a.txt"), &v("/h/sub/deep")), "../../a.txt");
        assert_eq!(
            relative(&v("/h/src/lib/mod.rs"), &v("/h/src")),
            "lib/mod.rs"
        );
        assert_eq!(relative(&v("/h"), &v("/h")), ".");
        assert_eq!(relative(&v("/"), &v("/a/b")), "../..");
    }

    fn tree() -> MemFs {
        let fs = MemFs::new(Arc::new(ManualClock::default()));
        let p = |s: &str| VfsPath::parse(s).unwrap();
        fs.create_dir_all(&p("/h/sub/deep")).unwrap();
        fs.write(&p("/h/a.txt"), b"").unwrap();
        fs.symlink("sub/deep", &p("/h/dl")).unwrap();
        fs.symlink("loop2", &p("/h/loop1")).unwrap();
        fs.symlink("loop1", &p("/h/loop2")).unwrap();
        fs.symlink("missing", &p("/h/dang")).unwrap();
        fs
    }

    fn resolve(fs: &MemFs, name: &str, existence: Existence) -> Result<String, ErrorKind> {
        let how = Resolve {
            existence,
            follow: true,
            logical: false,
        };
        canonicalize(fs, "/h", name, how).map(|c| components_text(&c))
    }

    #[test]
    fn symlinks_resolve_before_dot_dot() {
        let fs = tree();
        assert_eq!(
            resolve(&fs, "dl/../a.txt", Existence::AllButLast).unwrap(),
            "/h/sub/a.txt"
        );
        assert_eq!(
            resolve(&fs, "dl/../a.txt", Existence::All),
            Err(ErrorKind::NotFound)
        );
        assert_eq!(
            resolve(&fs, "dl/..", Existence::AllButLast).unwrap(),
            "/h/sub"
        );
        assert_eq!(
            resolve(&fs, "dang", Existence::AllButLast).unwrap(),
            "/h/missing"
        );
        assert_eq!(
            resolve(&fs, "dang", Existence::All),
            Err(ErrorKind::NotFound)
        );
        assert_eq!(
            resolve(&fs, "nope/x", Existence::AllButLast),
            Err(ErrorKind::NotFound)
        );
        assert_eq!(
            resolve(&fs, "nope/x/../y", Existence::None).unwrap(),
            "/h/nope/y"
        );
        assert_eq!(
            resolve(&fs, "a.txt/x", Existence::AllButLast),
            Err(ErrorKind::NotADirectory)
        );
        assert_eq!(
            resolve(&fs, "a.txt/x", Existence::None).unwrap(),
            "/h/a.txt/x"
        );
        assert_eq!(
            resolve(&fs, "loop1", Existence::AllButLast),
            Err(ErrorKind::TooManyLinks)
        );
        assert_eq!(resolve(&fs, "loop1", Existence::None).unwrap(), "/h/loop1");
        assert_eq!(resolve(&fs, "", Existence::None), Err(ErrorKind::NotFound));
        assert_eq!(resolve(&fs, "/", Existence::All).unwrap(), "/");
        assert_eq!(
            resolve(&fs, "newfile/", Existence::AllButLast).unwrap(),
            "/h/newfile"
        );
    }

    #[test]
    fn reading_links() {
        let fs = tree();
        assert_eq!(read_link(&fs, "/h", "dl").unwrap(), "sub/deep");
        assert_eq!(read_link(&fs, "/h", "a.txt"), Err(ErrorKind::InvalidInput));
        assert_eq!(read_link(&fs, "/h", "nope"), Err(ErrorKind::NotFound));
        assert_eq!(read_link(&fs, "/h", "dl/"), Err(ErrorKind::InvalidInput));
    }
}
