//! `gzip`, `gunzip` and `zcat` with GNU gzip's behaviour: `f` becomes `f.gz` (mode and
//! times kept, the original removed unless `-k`), `-c`, `-d`, `-f`, `-l`, `-t`,
//! `-1`..`-9`, `-n`/`-N`, `-r`, `-S`, stdin to stdout without files, and GNU's
//! messages and exit statuses (1 for errors, 2 for warnings).

pub(crate) mod format;

use crate::files::fileops::args::{self, Spec, Value};
use crate::files::fileops::date::format_month_day_time;
use crate::files::fileops::{Run, child_name, dev_null_metadata, is_dev_null};
use crate::util::{is_missing, read_stdin, strerror};
use crate::{Context, Registry, Status};
use format::{Problem, Trailing};
use sandtab_vfs::{FileKind, Metadata, SandboxFs, Timestamp};
use std::sync::Arc;

struct Gzip {
    fs: Arc<SandboxFs>,
}

#[async_trait::async_trait]
impl crate::Command for Gzip {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        run(&self.fs, &ctx).await
    }
}

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder
        .command("gzip", Gzip { fs: fs.clone() })
        .command("gunzip", Gzip { fs: fs.clone() })
        .command("zcat", Gzip { fs: fs.clone() })
}

const HELP: char = '\u{e060}';
const VERSION: char = '\u{e061}';
const IGNORED: char = '\u{e062}';

const SPEC: Spec = Spec {
    short: "acdfhklLnNqrS:tvV123456789",
    long: &[
        ("ascii", Value::No, 'a'),
        ("best", Value::No, '9'),
        ("decompress", Value::No, 'd'),
        ("fast", Value::No, '1'),
        ("force", Value::No, 'f'),
        ("help", Value::No, HELP),
        ("keep", Value::No, 'k'),
        ("license", Value::No, 'L'),
        ("list", Value::No, 'l'),
        ("name", Value::No, 'N'),
        ("no-name", Value::No, 'n'),
        ("quiet", Value::No, 'q'),
        ("recursive", Value::No, 'r'),
        ("rsyncable", Value::No, IGNORED),
        ("silent", Value::No, 'q'),
        ("stdout", Value::No, 'c'),
        ("suffix", Value::Required, 'S'),
        ("synchronous", Value::No, IGNORED),
        ("test", Value::No, 't'),
        ("to-stdout", Value::No, 'c'),
        ("uncompress", Value::No, 'd'),
        ("verbose", Value::No, 'v'),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Compress,
    Decompress,
    Test,
    List,
}

struct Options {
    mode: Mode,
    stdout: bool,
    force: bool,
    keep: bool,
    level: u32,
    /// `-n`: no name or time in the header, none restored from it.
    no_name: bool,
    /// `-N`: the name and time restored from the header.
    restore_name: bool,
    quiet: bool,
    verbose: bool,
    recursive: bool,
    suffix: String,
}

/// A gzip run: the shared command state, whether a warning was given (exit 2 unless
/// an error was, 1), and `gzip -l`'s running totals.
struct Session<'r, 'c, 'a> {
    run: &'r mut Run<'c, 'a>,
    options: Options,
    warned: bool,
    listed: Vec<(u64, u64, usize)>,
}

async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let mut run = Run::new(fs, ctx);
    run.name = "gzip";
    let parsed = match args::parse(ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => {
            run.fail(format!(
                "{message}\nTry `gzip --help' for more information."
            ))
            .await?;
            return run.finish().await;
        }
    };
    let options = match read_options(ctx.name, parsed.options) {
        Ok(options) => options,
        Err(Early::Help) => return help(ctx).await,
        Err(Early::Version) => {
            ctx.stdout.write_all(b"gzip 1.12\n").await?;
            return Ok(Status::with_code(0));
        }
    };
    if options.suffix.is_empty() || options.suffix.contains('/') {
        run.fail(format!("invalid suffix '{}'", options.suffix))
            .await?;
        return run.finish().await;
    }
    let mut session = Session {
        run: &mut run,
        options,
        warned: false,
        listed: Vec::new(),
    };
    if parsed.operands.is_empty() {
        session.stdin().await?;
    }
    for operand in &parsed.operands {
        if operand == "-" {
            session.stdin().await?;
        } else {
            session.operand(operand).await?;
        }
    }
    session.list_totals().await?;
    if session.warned && run.status == 0 {
        run.status = 2;
    }
    run.finish().await
}

/// Options that end the command before any file is touched.
enum Early {
    Help,
    Version,
}

/// The options `gzip`, `gunzip` or `zcat` (`name`) runs with.
fn read_options(name: &str, given: Vec<(char, Option<String>)>) -> Result<Options, Early> {
    let mut options = Options {
        mode: if name == "gzip" {
            Mode::Compress
        } else {
            Mode::Decompress
        },
        stdout: name == "zcat",
        force: false,
        keep: false,
        level: 6,
        no_name: false,
        restore_name: false,
        quiet: false,
        verbose: false,
        recursive: false,
        suffix: ".gz".to_owned(),
    };
    for (key, value) in given {
        match key {
            'c' => options.stdout = true,
            'd' => options.mode = Mode::Decompress,
            'f' => options.force = true,
            'k' => options.keep = true,
            'l' => options.mode = Mode::List,
            't' => options.mode = Mode::Test,
            'n' | 'N' => {
                options.no_name = key == 'n';
                options.restore_name = key == 'N';
            }
            'q' | 'v' => {
                options.quiet = key == 'q';
                options.verbose = key == 'v';
            }
            'r' => options.recursive = true,
            'S' => options.suffix = value.unwrap_or_default(),
            '1'..='9' => options.level = key.to_digit(10).unwrap_or(6),
            'h' | HELP => return Err(Early::Help),
            'V' | VERSION | 'L' => return Err(Early::Version),
            _ => {}
        }
    }
    Ok(options)
}

async fn help(ctx: &Context<'_>) -> crate::Result<Status> {
    let text = "Usage: gzip [OPTION]... [FILE]...\n\
        Compress or uncompress FILEs (by default, compress FILES in-place).\n\n\
        \x20 -c, --stdout      write on standard output, keep original files unchanged\n\
        \x20 -d, --decompress  decompress\n\
        \x20 -f, --force       force overwrite of output file and compress links\n\
        \x20 -k, --keep        keep (don't delete) input files\n\
        \x20 -l, --list        list compressed file contents\n\
        \x20 -n, --no-name     do not save or restore the original name and timestamp\n\
        \x20 -N, --name        save or restore the original name and timestamp\n\
        \x20 -q, --quiet       suppress all warnings\n\
        \x20 -r, --recursive   operate recursively on directories\n\
        \x20 -S, --suffix=SUF  use suffix SUF on compressed files\n\
        \x20 -t, --test        test compressed file integrity\n\
        \x20 -v, --verbose     verbose mode\n\
        \x20 -1, --fast        compress faster\n\
        \x20 -9, --best        compress better\n";
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(Status::with_code(0))
}

/// `%5.1f%%` of how much smaller `compressed` is than `original`, as gzip counts it
/// (`overhead` is the header and trailer).
fn ratio(original: u64, compressed: u64, overhead: usize) -> String {
    if original == 0 {
        return "  0.0%".to_owned();
    }
    let saved = original as f64 - (compressed as f64 - overhead as f64);
    format!("{:5.1}%", 100.0 * saved / original as f64)
}

/// The suffixes gunzip knows, and what each leaves (`.tgz` is a `.tar`).
const KNOWN_SUFFIXES: [(&str, &str); 7] = [
    (".gz", ""),
    (".z", ""),
    (".taz", ".tar"),
    (".tgz", ".tar"),
    ("-gz", ""),
    ("-z", ""),
    ("_z", ""),
];

impl Session<'_, '_, '_> {
    /// A warning: printed unless `-q`; exit status 2 unless there are errors.
    async fn warn(&mut self, message: impl AsRef<str>) -> crate::Result<()> {
        self.warned = true;
        if self.options.quiet {
            return Ok(());
        }
        self.run.warn(message).await
    }

    /// An error about the data of `name`, as gzip prints those (after a newline).
    async fn data_error(&mut self, name: &str, problem: Problem) -> crate::Result<()> {
        self.run.status = 1;
        self.run
            .out
            .err(format!("\ngzip: {name}: {}\n", problem.message()))
            .await
    }

    /// The suffix `name` ends with (the `-S` one or a known one), and what replaces it.
    fn suffix_of(&self, name: &str) -> Option<(String, &'static str)> {
        let custom = self.options.suffix.as_str();
        if name.len() > custom.len() && name.ends_with(custom) {
            let replacement = KNOWN_SUFFIXES
                .iter()
                .find(|(suffix, _)| *suffix == custom)
                .map_or("", |(_, replacement)| replacement);
            return Some((custom.to_owned(), replacement));
        }
        KNOWN_SUFFIXES
            .iter()
            .find(|(suffix, _)| name.len() > suffix.len() && name.ends_with(suffix))
            .map(|(suffix, replacement)| ((*suffix).to_owned(), *replacement))
    }

    async fn stdin(&mut self) -> crate::Result<()> {
        let data = read_stdin(self.run.ctx()).await?;
        match self.options.mode {
            Mode::Compress => {
                let gz = format::compress(&data, self.options.level, None, 0);
                self.run.out.out(gz).await
            }
            Mode::List => self.list_one("stdin", "stdout", &data, None).await,
            Mode::Decompress | Mode::Test => {
                let Some(decoded) = self.decode("stdin", &data).await? else {
                    return Ok(());
                };
                if self.options.mode == Mode::Decompress {
                    self.run.out.out(decoded).await?;
                }
                Ok(())
            }
        }
    }

    async fn operand(&mut self, arg: &str) -> crate::Result<()> {
        let Some((arg, meta)) = self.find_input(arg).await? else {
            return Ok(());
        };
        if meta.kind == FileKind::Directory {
            if self.options.recursive {
                return Box::pin(self.directory(&arg)).await;
            }
            return self.warn(format!("{arg} is a directory -- ignored")).await;
        }
        match self.options.mode {
            Mode::Compress => self.compress_file(&arg, &meta).await,
            Mode::List => {
                let Some(data) = self.read(&arg).await? else {
                    return Ok(());
                };
                let out_name = self.output_name(&arg).unwrap_or_else(|| arg.clone());
                self.list_one(&arg, &out_name, &data, Some(&meta)).await
            }
            Mode::Decompress | Mode::Test => self.decompress_file(&arg, &meta).await,
        }
    }

    /// The file `arg` names (for decompression, also `arg.gz` and the like when `arg`
    /// itself is missing), and its metadata; `None` after reporting why not.
    async fn find_input(&mut self, arg: &str) -> crate::Result<Option<(String, Metadata)>> {
        if self.run.path(arg).is_ok_and(|path| is_dev_null(&path)) {
            if self.options.stdout || self.options.mode == Mode::List {
                return Ok(Some((arg.to_owned(), dev_null_metadata())));
            }
            self.warn(format!(
                "{arg} is not a directory or a regular file - ignored"
            ))
            .await?;
            return Ok(None);
        }
        let mut found = self.run.lstat_arg(arg).map(|meta| (arg.to_owned(), meta));
        if self.options.mode != Mode::Compress
            && found.as_ref().is_err_and(is_missing)
            && self.suffix_of(arg).is_none()
        {
            let mut suffixes = vec![self.options.suffix.clone()];
            suffixes.extend(
                KNOWN_SUFFIXES
                    .iter()
                    .map(|(suffix, _)| (*suffix).to_owned()),
            );
            for suffix in suffixes {
                let candidate = format!("{arg}{suffix}");
                if let Ok(meta) = self.run.lstat_arg(&candidate) {
                    found = Ok((candidate, meta));
                    break;
                }
            }
            if let Err(err) = &found {
                let name = format!("{arg}{}", self.options.suffix);
                self.run.fail(format!("{name}: {}", strerror(err))).await?;
                return Ok(None);
            }
        }
        let (name, meta) = match found {
            Ok(found) => found,
            Err(err) => {
                self.run.fail(format!("{arg}: {}", strerror(&err))).await?;
                return Ok(None);
            }
        };
        if meta.kind != FileKind::Symlink {
            return Ok(Some((name, meta)));
        }
        // gzip opens with O_NOFOLLOW unless forced or writing to stdout.
        if !self.options.force && !self.options.stdout {
            self.run
                .fail(format!("{name}: Too many levels of symbolic links"))
                .await?;
            return Ok(None);
        }
        match self.run.stat(&name) {
            Ok(meta) => Ok(Some((name, meta))),
            Err(err) => {
                self.run.fail(format!("{name}: {}", strerror(&err))).await?;
                Ok(None)
            }
        }
    }

    /// `-r`: every file below `dir`.
    async fn directory(&mut self, dir: &str) -> crate::Result<()> {
        let entries = match self
            .run
            .path(dir)
            .and_then(|p| self.run.fs().mem().read_dir(&p))
        {
            Ok(entries) => entries,
            Err(err) => return self.run.fail(format!("{dir}: {}", strerror(&err))).await,
        };
        for entry in entries {
            let child = child_name(dir, &entry.name);
            if entry.metadata.kind == FileKind::File
                && self.options.mode == Mode::Compress
                && self.suffix_of(&entry.name).is_some()
            {
                // Already compressed: skipped without a word under -r.
                continue;
            }
            if entry.metadata.kind == FileKind::File
                && self.options.mode != Mode::Compress
                && self.suffix_of(&entry.name).is_none()
            {
                continue;
            }
            self.operand(&child).await?;
        }
        Ok(())
    }

    async fn read(&mut self, arg: &str) -> crate::Result<Option<Vec<u8>>> {
        if self.run.path(arg).is_ok_and(|path| is_dev_null(&path)) {
            return Ok(Some(Vec::new()));
        }
        match self.run.read(arg).await {
            Ok(data) => Ok(Some(data)),
            Err(err) => {
                self.run.fail(format!("{arg}: {}", strerror(&err))).await?;
                Ok(None)
            }
        }
    }

    /// Whether a file with other hard links may be replaced (gzip refuses unless `-f`).
    async fn links_ok(&mut self, arg: &str, meta: &Metadata) -> crate::Result<bool> {
        if self.options.stdout || self.options.force || meta.links < 2 {
            return Ok(true);
        }
        let others = meta.links - 1;
        let plural = if others == 1 { "" } else { "s" };
        self.warn(format!(
            "{arg} has {others} other link{plural} -- file ignored"
        ))
        .await?;
        Ok(false)
    }

    async fn compress_file(&mut self, arg: &str, meta: &Metadata) -> crate::Result<()> {
        if let (false, Some((suffix, _))) = (self.options.stdout, self.suffix_of(arg)) {
            if self.options.verbose || (!self.options.recursive && !self.options.quiet) {
                let message = format!("{arg} already has {suffix} suffix -- unchanged");
                self.run.warn(message).await?;
            }
            return Ok(());
        }
        if !self.links_ok(arg, meta).await? {
            return Ok(());
        }
        let Some(data) = self.read(arg).await? else {
            return Ok(());
        };
        let name = (!self.options.no_name).then(|| crate::files::fileops::base_name(arg));
        let mtime = if self.options.no_name {
            0
        } else {
            u32::try_from(meta.modified.as_secs()).unwrap_or(0)
        };
        let gz = format::compress(&data, self.options.level, name, mtime);
        // The header (with the name) and the eight-byte trailer.
        let overhead = 10 + name.map_or(0, |n| n.len() + 1) + 8;
        let summary = ratio(data.len() as u64, gz.len() as u64, overhead);
        if self.options.stdout {
            self.run.out.out(&gz).await?;
            return self
                .verbose_result(arg, &summary, "replaced with stdout")
                .await;
        }
        let out_name = format!("{arg}{}", self.options.suffix);
        if !self
            .write_output(&out_name, gz, meta, meta.modified)
            .await?
        {
            return Ok(());
        }
        let done = if self.options.keep {
            format!("created {out_name}")
        } else {
            self.remove_input(arg).await?;
            format!("replaced with {out_name}")
        };
        self.verbose_result(arg, &summary, &done).await
    }

    async fn verbose_result(&mut self, arg: &str, summary: &str, done: &str) -> crate::Result<()> {
        if self.options.verbose {
            self.run
                .out
                .err(format!("{arg}:\t{summary} -- {done}\n"))
                .await?;
        }
        Ok(())
    }

    /// Writes a result file with the input's mode and times; false when it may not.
    async fn write_output(
        &mut self,
        out_name: &str,
        data: Vec<u8>,
        meta: &Metadata,
        modified: Timestamp,
    ) -> crate::Result<bool> {
        let path = match self.run.path(out_name) {
            Ok(path) => path,
            Err(err) => {
                self.run
                    .fail(format!("{out_name}: {}", strerror(&err)))
                    .await?;
                return Ok(false);
            }
        };
        let mem = self.run.fs().mem();
        if let Ok(existing) = mem.lstat(&path) {
            if !self.options.force {
                self.warn(format!("{out_name} already exists;\tnot overwritten"))
                    .await?;
                return Ok(false);
            }
            let removed = if existing.kind == FileKind::Directory {
                mem.remove_dir(&path)
            } else {
                mem.remove_file(&path)
            };
            if let Err(err) = removed {
                self.run
                    .fail(format!("{out_name}: {}", strerror(&err)))
                    .await?;
                return Ok(false);
            }
        }
        let written = mem
            .write_owned(&path, data)
            .and_then(|()| mem.set_mode(&path, meta.mode))
            .and_then(|()| mem.set_times(&path, Some(meta.accessed), Some(modified)));
        if let Err(err) = written {
            self.run
                .fail(format!("{out_name}: {}", strerror(&err)))
                .await?;
            return Ok(false);
        }
        Ok(true)
    }

    async fn remove_input(&mut self, arg: &str) -> crate::Result<()> {
        let removed = self
            .run
            .path(arg)
            .and_then(|path| self.run.fs().mem().remove_file(&path));
        if let Err(err) = removed {
            self.run.fail(format!("{arg}: {}", strerror(&err))).await?;
        }
        Ok(())
    }

    /// The name `arg` decompresses to (its suffix taken off), if it has a suffix.
    fn output_name(&self, arg: &str) -> Option<String> {
        let (suffix, replacement) = self.suffix_of(arg)?;
        Some(format!("{}{replacement}", &arg[..arg.len() - suffix.len()]))
    }

    /// Decompresses `data`, reporting problems; the output, unless it is unusable.
    async fn decode(&mut self, name: &str, data: &[u8]) -> crate::Result<Option<Vec<u8>>> {
        let decoded = format::decompress(data);
        if decoded.problem == Some(Problem::NotGzip)
            && decoded.data.is_empty()
            && self.options.force
            && self.options.stdout
        {
            // `zcat -f` passes data that is not compressed through unchanged.
            return Ok(Some(data.to_vec()));
        }
        if let Some(problem) = decoded.problem {
            if self.options.stdout && self.options.mode == Mode::Decompress {
                self.run.out.out(&decoded.data).await?;
            }
            self.data_error(name, problem).await?;
            return Ok(None);
        }
        match decoded.trailing {
            Trailing::Garbage => {
                self.warn_data(name, "decompression OK, trailing garbage ignored")
                    .await?;
            }
            Trailing::Zeros if self.options.verbose => {
                self.warn_data(name, "decompression OK, trailing zero bytes ignored")
                    .await?;
            }
            _ => {}
        }
        Ok(Some(decoded.data))
    }

    async fn warn_data(&mut self, name: &str, message: &str) -> crate::Result<()> {
        self.warned = true;
        if !self.options.quiet {
            self.run
                .out
                .err(format!("\ngzip: {name}: {message}\n"))
                .await?;
        }
        Ok(())
    }

    async fn decompress_file(&mut self, arg: &str, meta: &Metadata) -> crate::Result<()> {
        let writes_file = !self.options.stdout && self.options.mode == Mode::Decompress;
        let stripped = self.output_name(arg);
        if writes_file && stripped.is_none() {
            let suffix_hint = "unknown suffix -- ignored";
            return self.warn(format!("{arg}: {suffix_hint}")).await;
        }
        if writes_file && !self.links_ok(arg, meta).await? {
            return Ok(());
        }
        let Some(data) = self.read(arg).await? else {
            return Ok(());
        };
        let Some(output) = self.decode(arg, &data).await? else {
            return Ok(());
        };
        let overhead = format::parse_header(&data).map_or(18, |h| h.len + 8);
        let summary = ratio(output.len() as u64, data.len() as u64, overhead);
        if self.options.mode == Mode::Test {
            if self.options.verbose {
                self.run.out.err(format!("{arg}:\t OK\n")).await?;
            }
            return Ok(());
        }
        if self.options.stdout {
            self.run.out.out(&output).await?;
            return self
                .verbose_result(arg, &summary, "replaced with stdout")
                .await;
        }
        let header = format::parse_header(&data).unwrap_or_default();
        let (out_name, modified) = self.restored(arg, stripped.unwrap_or_default(), &header, meta);
        if !self.write_output(&out_name, output, meta, modified).await? {
            return Ok(());
        }
        let done = if self.options.keep {
            format!("created {out_name}")
        } else {
            self.remove_input(arg).await?;
            format!("replaced with {out_name}")
        };
        self.verbose_result(arg, &summary, &done).await
    }

    /// The output name and modification time: with `-N`, the header's (the name
    /// placed beside the input).
    fn restored(
        &self,
        arg: &str,
        stripped: String,
        header: &format::Header,
        meta: &Metadata,
    ) -> (String, Timestamp) {
        if !self.options.restore_name {
            return (stripped, meta.modified);
        }
        let name = match header.name.as_deref().map(crate::files::fileops::base_name) {
            Some(name) if !name.is_empty() && name != "." && name != ".." && name != "/" => {
                match arg.rfind('/') {
                    Some(slash) => format!("{}{name}", &arg[..=slash]),
                    None => name.to_owned(),
                }
            }
            _ => stripped,
        };
        let modified = if header.mtime != 0 {
            Timestamp(u64::from(header.mtime) * 1_000_000_000)
        } else {
            meta.modified
        };
        (name, modified)
    }

    /// One line of `gzip -l` (and its heading before the first).
    async fn list_one(
        &mut self,
        arg: &str,
        out_name: &str,
        data: &[u8],
        meta: Option<&Metadata>,
    ) -> crate::Result<()> {
        let listing = match format::list(data) {
            Ok(listing) => listing,
            Err(problem) => return self.data_error(arg, problem).await,
        };
        let verbose = self.options.verbose;
        if self.listed.is_empty() {
            let heading = if verbose {
                "method  crc     date  time  "
            } else {
                ""
            };
            self.run
                .out
                .out(format!(
                    "{heading}{:>19} {:>19}  ratio uncompressed_name\n",
                    "compressed", "uncompressed"
                ))
                .await?;
        }
        let overhead = listing.header.len + 8;
        let compressed = data.len() as u64;
        let mut name = out_name.to_owned();
        let mut mtime = meta.map_or(0, |m| m.modified.as_secs());
        if self.options.restore_name {
            if let Some(stored) = &listing.header.name {
                name = stored.clone();
            }
            mtime = u64::from(listing.header.mtime);
        }
        let mut line = String::new();
        if verbose {
            let secs = i64::try_from(mtime).unwrap_or(0);
            line.push_str(&format!(
                "defla {:08x} {} ",
                listing.crc,
                format_month_day_time(secs)
            ));
        }
        line.push_str(&format!(
            "{compressed:>19} {:>19} {} {name}\n",
            listing.uncompressed,
            ratio(listing.uncompressed, compressed, overhead)
        ));
        self.run.out.out(line).await?;
        self.listed
            .push((compressed, listing.uncompressed, overhead));
        Ok(())
    }

    /// `gzip -l`'s totals line, after more than one file.
    async fn list_totals(&mut self) -> crate::Result<()> {
        if self.listed.len() < 2 {
            return Ok(());
        }
        let compressed: u64 = self.listed.iter().map(|l| l.0).sum();
        let uncompressed: u64 = self.listed.iter().map(|l| l.1).sum();
        // GNU uses the last file's header size here too.
        let overhead = self.listed.last().map_or(18, |l| l.2);
        let prefix = if self.options.verbose {
            " ".repeat(28)
        } else {
            String::new()
        };
        let line = format!(
            "{prefix}{compressed:>19} {uncompressed:>19} {} (totals)\n",
            ratio(uncompressed, compressed, overhead)
        );
        self.run.out.out(line).await
    }
}

#[cfg(test)]
mod tests {
    use super::ratio;

    #[test]
    fn ratios_as_gzip_prints_them() {
        assert_eq!(ratio(11, 33, 20), "-18.2%");
        assert_eq!(ratio(101, 29, 22), " 93.1%");
        assert_eq!(ratio(0, 20, 20), "  0.0%");
        assert_eq!(ratio(17, 61, 20), "-141.2%");
    }
}
