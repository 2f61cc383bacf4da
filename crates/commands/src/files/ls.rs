//! `ls`: GNU coreutils' listing as it is when standard output is not a terminal (one
//! name per line unless `-C`, `-x` or `-m` asks for columns or commas), with the long
//! format (`-l`, `-n`, `-g`, `-o`, `-h`, `--full-time`, `--time-style`), inode and
//! block columns (`-i`, `-s`), indicators (`-F`, `-p`), sorting (`-r`, `-S`, `-t`, `-X`,
//! `-v`, `-U`, `--sort`, `--group-directories-first`), hidden and ignored entries (`-a`,
//! `-A`, `-B`, `-I`, `--hide`), `-d`, `-R` and symlink following (`-L`, `-H`).
//! Files look as they would on ext4: see [`crate::files::stat`].

use crate::files::stat::{apparent_size, blocks_512, quote_always};

mod format;
mod options;

use crate::util::Output;
use crate::wildcard;
use crate::{Context, Registry, Status};

pub(super) use format::strftime;
use format::*;
use options::*;
use sandtab_vfs::{FileKind, MemFs, Metadata, SandboxFs, Timestamp, VfsPath};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("ls", Ls { fs: fs.clone() })
}

#[derive(Debug)]
struct Ls {
    fs: Arc<SandboxFs>,
}

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
        let matches = |patterns: &[String]| {
            patterns
                .iter()
                .any(|pattern| wildcard::matches(pattern, name))
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
// The command.

#[async_trait::async_trait]
impl crate::Command for Ls {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let env_width = ctx
            .env
            .get("COLUMNS")
            .and_then(|columns| columns.parse().ok())
            .filter(|width| *width > 0);
        let env_style = ctx.env.get("TIME_STYLE").map(String::as_str);
        let options = match parse_args(ctx.args, env_width, env_style) {
            Parsed::Run(options) => options,
            Parsed::Usage(message, code) => {
                return crate::util::usage_error(&ctx, &message, code).await;
            }
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
        };
        let files = crate::util::Files::new(&self.fs, &ctx);
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
    files: &crate::util::Files<'_>,
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
fn list(listing: &mut Listing<'_>, files: &crate::util::Files<'_>) {
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
        let m = wildcard::matches;
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
        assert_eq!(
            format_time(
                &TimeStyle::Locale,
                old,
                Timestamp(1_800_000_000 * 1_000_000_000)
            ),
            "Jan  2  2020"
        );
        assert_eq!(
            format_time(
                &TimeStyle::LongIso,
                old,
                Timestamp(1_800_000_000 * 1_000_000_000)
            ),
            "2020-01-02 03:04"
        );
        assert_eq!(
            format_time(
                &TimeStyle::Iso,
                old,
                Timestamp(1_800_000_000 * 1_000_000_000)
            ),
            "2020-01-02 "
        );
        assert_eq!(
            strftime("%Y/%m %e|%j %a %B %%", old),
            "2020/01  2|002 Thu January %"
        );
    }
}
