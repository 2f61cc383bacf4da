//! `diff`: GNU diffutils' `diff` over the sandbox's files. Normal, unified, context,
//! ed, RCS and side-by-side output, directory comparison (`-r`, `-N`), the usual ways
//! of ignoring differences (`-i -w -b -Z -B -I`), and GNU's exit statuses: 0 same,
//! 1 different, 2 trouble.
//!
//! The lines are compared by Myers' algorithm (the `similar` crate), as GNU's are, so
//! the scripts are as short as GNU's; where several are equally short, GNU's heuristics
//! may choose another.

mod compare;
mod naming;
mod options;
mod output;

use crate::util::{Files, Output, is_missing, read_stdin, strerror};
use crate::{Context, Registry, Status};
use compare::*;
use naming::*;
use options::*;
use output::*;
use sandtab_vfs::{FileKind, SandboxFs, Timestamp, VfsPath};
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("diff", Diff { fs: fs.clone() })
}

struct Diff {
    fs: Arc<SandboxFs>,
}

#[async_trait::async_trait]
impl crate::Command for Diff {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
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
                    return Ok(Status::with_code(2));
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
async fn usage_error(ctx: &Context<'_>, message: &str) -> crate::Result<Status> {
    let text = format!("diff: {message}\ndiff: Try 'diff --help' for more information.\n");
    ctx.stderr.write_all(text.as_bytes()).await?;
    Ok(Status::with_code(2))
}

async fn print_and_exit(ctx: &Context<'_>, text: &str) -> crate::Result<Status> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(Status::with_code(0))
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
    ctx: &'c Context<'a>,
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
            Source::Stdin => Ok(file(self.fs.mem().now())),
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
            Source::Shell(path) => match self.ctx.shell_files.stat(path).await {
                Some(file) => Ok(Info {
                    kind: if file.is_dir { Kind::Dir } else { Kind::File },
                    modified: file.modified,
                }),
                None => Err((true, "No such file or directory".into())),
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
                .shell_files
                .read(path)
                .await
                .map(Arc::new)
                .ok_or_else(|| "No such file or directory".to_owned()),
        }
    }

    async fn trouble(&mut self, name: &str, message: &str) -> crate::Result<i32> {
        self.out.err(format!("diff: {name}: {message}\n")).await?;
        Ok(2)
    }

    /// Compares the two operands.
    async fn top(&mut self, a: &str, b: &str) -> crate::Result<i32> {
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
    ) -> crate::Result<i32> {
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
    async fn compare_dirs(&mut self, a: &Side, b: &Side, depth: usize) -> crate::Result<i32> {
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
    async fn compare_entries(&mut self, a: &Side, b: &Side) -> crate::Result<Step> {
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
    ) -> crate::Result<Step> {
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
    async fn compare_files(&mut self, a: &Side, b: &Side, in_dir: bool) -> crate::Result<i32> {
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
    ) -> crate::Result<i32> {
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

    async fn identical(&mut self, name_a: &str, name_b: &str) -> crate::Result<i32> {
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

#[cfg(test)]
mod tests;
