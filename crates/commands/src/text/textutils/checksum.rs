//! `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`: print
//! digests (`HASH  NAME`, `--tag` for `ALGO (NAME) = HASH`, `-z`), or verify the
//! lines of checksum files (`-c`, with `--quiet`, `--status`, `--strict`, `--warn`,
//! `--ignore-missing`), with GNU's messages and escaping of odd names.

use super::digest::Algorithm;
use super::{InputError, Inputs, print_and_exit};
use crate::options::{Arg, HELP_VERSION, Parser, Spec, Value, version};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Registry, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    [
        ("md5sum", Algorithm::Md5),
        ("sha1sum", Algorithm::Sha1),
        ("sha224sum", Algorithm::Sha224),
        ("sha256sum", Algorithm::Sha256),
        ("sha384sum", Algorithm::Sha384),
        ("sha512sum", Algorithm::Sha512),
    ]
    .into_iter()
    .fold(builder, |builder, (name, algorithm)| {
        builder.command(
            name,
            Checksum {
                fs: fs.clone(),
                algorithm,
            },
        )
    })
}

pub(crate) struct Checksum {
    fs: Arc<SandboxFs>,
    algorithm: Algorithm,
}

const SPEC: Spec = Spec {
    short: "bctwz",
    long: &[
        ("binary", Value::No),
        ("check", Value::No),
        ("tag", Value::No),
        ("text", Value::No),
        ("zero", Value::No),
        ("ignore-missing", Value::No),
        ("quiet", Value::No),
        ("status", Value::No),
        ("strict", Value::No),
        ("warn", Value::No),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

fn help(name: &str, algorithm: Algorithm) -> String {
    let bits = algorithm.hex_len() * 4;
    format!(
        "Usage: {name} [OPTION]... [FILE]...
Print or check {} ({bits}-bit) checksums.

With no FILE, or when FILE is -, read standard input.

  -b, --binary         read in binary mode
  -c, --check          read checksums from the FILEs and check them
      --tag            create a BSD-style checksum
  -t, --text           read in text mode (default)
  -z, --zero           end each output line with NUL, not newline,
                         and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet          don't print OK for each successfully verified file
      --status         don't output anything, status code shows success
      --strict         exit non-zero for improperly formatted checksum lines
  -w, --warn           warn about improperly formatted checksum lines

{HELP_VERSION}",
        algorithm.tag()
    )
}

#[derive(Debug, Default)]
struct Options<'a> {
    check: bool,
    /// `None` unless `-b`/`-t`/`--tag` said.
    binary: Option<bool>,
    tag: bool,
    zero: bool,
    ignore_missing: bool,
    quiet: bool,
    status: bool,
    strict: bool,
    warn: bool,
    operands: Vec<&'a str>,
}

#[async_trait::async_trait]
impl crate::Command for Checksum {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse(ctx.args) {
            Ok(Parsed::Run(options)) => options,
            Ok(Parsed::Help) => return print_and_exit(&ctx, &help(ctx.name, self.algorithm)).await,
            Ok(Parsed::Version) => return print_and_exit(&ctx, &version(ctx.name)).await,
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        let mut inputs = Inputs::new(&self.fs, &ctx);
        let mut out = Output::new(&ctx);
        let operands = if options.operands.is_empty() {
            vec!["-"]
        } else {
            options.operands.clone()
        };
        let mut ok = true;
        let mut checker = Checker {
            algorithm: self.algorithm,
            options: &options,
            name: ctx.name,
            bsd_reversed: None,
        };
        for operand in operands {
            ok &= if options.check {
                checker.check_file(&mut inputs, &mut out, operand).await?
            } else {
                print_digest(&mut inputs, &mut out, &checker, operand).await?
            };
        }
        out.finish(i32::from(!ok)).await
    }
}

enum Parsed<'a> {
    Run(Options<'a>),
    Help,
    Version,
}

fn parse(args: &[String]) -> Result<Parsed<'_>, String> {
    let mut options = Options::default();
    for arg in Parser::new(&SPEC, args).collect()? {
        match arg {
            Arg::Operand(operand) => options.operands.push(operand),
            Arg::Short('b', _) | Arg::Long("binary", _) => options.binary = Some(true),
            Arg::Short('t', _) | Arg::Long("text", _) => options.binary = Some(false),
            Arg::Short('c', _) | Arg::Long("check", _) => options.check = true,
            Arg::Short('w', _) | Arg::Long("warn", _) => options.warn = true,
            Arg::Short('z', _) | Arg::Long("zero", _) => options.zero = true,
            Arg::Long("tag", _) => {
                options.tag = true;
                options.binary = Some(true);
            }
            Arg::Long("ignore-missing", _) => options.ignore_missing = true,
            Arg::Long("quiet", _) => options.quiet = true,
            Arg::Long("status", _) => options.status = true,
            Arg::Long("strict", _) => options.strict = true,
            Arg::Long("help", _) => return Ok(Parsed::Help),
            Arg::Long("version", _) => return Ok(Parsed::Version),
            Arg::Short(..) | Arg::Long(..) => {}
        }
    }
    check_combinations(&options)?;
    Ok(Parsed::Run(options))
}

/// GNU's refusals of options that do not go together.
fn check_combinations(options: &Options<'_>) -> Result<(), String> {
    if options.tag && options.binary == Some(false) {
        return Err("--tag does not support --text mode".to_owned());
    }
    if options.zero && options.check {
        return Err("the --zero option is not supported when verifying checksums".to_owned());
    }
    if options.tag && options.check {
        return Err("the --tag option is meaningless when verifying checksums".to_owned());
    }
    if options.binary.is_some() && options.check {
        return Err(
            "the --binary and --text options are meaningless when verifying checksums".to_owned(),
        );
    }
    let only_checking = [
        (options.ignore_missing, "ignore-missing"),
        (options.status, "status"),
        (options.warn, "warn"),
        (options.quiet, "quiet"),
        (options.strict, "strict"),
    ];
    for (given, name) in only_checking {
        if given && !options.check {
            return Err(format!(
                "the --{name} option is meaningful only when verifying checksums"
            ));
        }
    }
    Ok(())
}

/// Whether a name must be escaped in output lines (GNU then starts them with `\`).
fn needs_escape(name: &str) -> bool {
    name.contains(['\\', '\n', '\r'])
}

fn escape(name: &str) -> String {
    name.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

/// The digest line of one input; false when it could not be read.
async fn print_digest(
    inputs: &mut Inputs<'_, '_>,
    out: &mut Output<'_, '_>,
    checker: &Checker<'_>,
    operand: &str,
) -> crate::Result<bool> {
    let data = match inputs.read(operand).await? {
        Ok(data) => data,
        Err(err) => {
            out.err(format!(
                "{}: {}: {}\n",
                checker.name,
                quote(operand),
                err.reason()
            ))
            .await?;
            return Ok(false);
        }
    };
    let options = checker.options;
    let hash = checker.algorithm.hex(&data);
    let escaped = !options.zero && needs_escape(operand);
    let name = if escaped {
        escape(operand)
    } else {
        operand.to_owned()
    };
    let lead = if escaped { "\\" } else { "" };
    let end = if options.zero { '\0' } else { '\n' };
    let line = if options.tag {
        format!("{lead}{} ({name}) = {hash}{end}", checker.algorithm.tag())
    } else {
        let mode = if options.binary == Some(true) {
            '*'
        } else {
            ' '
        };
        format!("{lead}{hash} {mode}{name}{end}")
    };
    out.out(line).await?;
    Ok(true)
}

/// A checksum line: the expected digest and the file it is for.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    digest: String,
    file: String,
}

/// The check of checksum files, one after another.
struct Checker<'o> {
    algorithm: Algorithm,
    options: &'o Options<'o>,
    name: &'o str,
    /// Whether lines are `HASH NAME` (one space, as `md5 -r`): decided by the first.
    bsd_reversed: Option<bool>,
}

/// What one checksum file found.
#[derive(Debug, Default)]
struct Tally {
    formatted: bool,
    misformatted: u64,
    unreadable: u64,
    mismatched: u64,
    matched: u64,
}

impl Checker<'_> {
    /// Checks every line of the checksum file `operand`; true when all is well.
    async fn check_file(
        &mut self,
        inputs: &mut Inputs<'_, '_>,
        out: &mut Output<'_, '_>,
        operand: &str,
    ) -> crate::Result<bool> {
        let display = if operand == "-" {
            quote("standard input")
        } else {
            quote(operand)
        };
        let data = match inputs.read(operand).await? {
            Ok(data) => data,
            Err(InputError::Open(reason)) => {
                out.err(format!("{}: {display}: {reason}\n", self.name))
                    .await?;
                return Ok(false);
            }
            Err(InputError::Read(_)) => {
                out.err(format!("{}: {display}: read error\n", self.name))
                    .await?;
                return Ok(false);
            }
        };
        let mut tally = Tally::default();
        let body = data.strip_suffix(b"\n").unwrap_or(&data);
        for (number, line) in body.split(|&b| b == b'\n').enumerate() {
            if data.is_empty() {
                break;
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = String::from_utf8_lossy(line);
            if line.starts_with('#') {
                continue;
            }
            match self.parse_line(&line) {
                Some(entry) => {
                    tally.formatted = true;
                    self.verify(inputs, out, &entry, &mut tally).await?;
                }
                None => {
                    tally.misformatted += 1;
                    if self.options.warn {
                        out.err(format!(
                            "{}: {display}: {}: improperly formatted {} checksum line\n",
                            self.name,
                            number + 1,
                            self.algorithm.tag()
                        ))
                        .await?;
                    }
                }
            }
        }
        self.report(out, &display, &tally).await?;
        let options = self.options;
        Ok(tally.formatted
            && tally.mismatched == 0
            && tally.unreadable == 0
            && (!options.strict || tally.misformatted == 0)
            && (!options.ignore_missing || tally.matched > 0))
    }

    /// One file of a checksum file, read and compared.
    async fn verify(
        &self,
        inputs: &mut Inputs<'_, '_>,
        out: &mut Output<'_, '_>,
        entry: &Entry,
        tally: &mut Tally,
    ) -> crate::Result<()> {
        // Here GNU escapes only names with line breaks (`b\x: OK` stays as it is).
        let shown = if entry.file.contains(['\n', '\r']) {
            format!("\\{}", escape(&entry.file))
        } else {
            entry.file.clone()
        };
        let options = self.options;
        let data = match inputs.read(&entry.file).await? {
            Ok(data) => data,
            Err(InputError::Open(_)) if options.ignore_missing => return Ok(()),
            Err(err) => {
                tally.unreadable += 1;
                out.err(format!(
                    "{}: {}: {}\n",
                    self.name,
                    quote(&entry.file),
                    err.reason()
                ))
                .await?;
                if !options.status {
                    out.out(format!("{shown}: FAILED open or read\n")).await?;
                }
                return Ok(());
            }
        };
        if self
            .algorithm
            .hex(&data)
            .eq_ignore_ascii_case(&entry.digest)
        {
            tally.matched += 1;
            if !options.status && !options.quiet {
                out.out(format!("{shown}: OK\n")).await?;
            }
        } else {
            tally.mismatched += 1;
            if !options.status {
                out.out(format!("{shown}: FAILED\n")).await?;
            }
        }
        Ok(())
    }

    /// GNU's warnings at the end of a checksum file.
    async fn report(
        &self,
        out: &mut Output<'_, '_>,
        display: &str,
        tally: &Tally,
    ) -> crate::Result<()> {
        let name = self.name;
        if !tally.formatted {
            return out
                .err(format!(
                    "{name}: {display}: no properly formatted checksum lines found\n"
                ))
                .await;
        }
        if self.options.status {
            return Ok(());
        }
        let plural = |n: u64, one: &str, many: &str| {
            format!("{name}: WARNING: {n} {}\n", if n == 1 { one } else { many })
        };
        if tally.misformatted > 0 {
            out.err(plural(
                tally.misformatted,
                "line is improperly formatted",
                "lines are improperly formatted",
            ))
            .await?;
        }
        if tally.unreadable > 0 {
            out.err(plural(
                tally.unreadable,
                "listed file could not be read",
                "listed files could not be read",
            ))
            .await?;
        }
        if tally.mismatched > 0 {
            out.err(plural(
                tally.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ))
            .await?;
        }
        if self.options.ignore_missing && tally.matched == 0 {
            out.err(format!("{name}: {display}: no file was verified\n"))
                .await?;
        }
        Ok(())
    }

    /// A line of a checksum file, as GNU's `split_3` reads it: `HASH  NAME`,
    /// `HASH *NAME`, `HASH NAME`, or `ALGO (NAME) = HASH`; `\` first when the name
    /// is escaped.
    fn parse_line(&mut self, line: &str) -> Option<Entry> {
        let mut rest = line.trim_start_matches([' ', '\t']);
        let escaped = rest.starts_with('\\');
        if escaped {
            rest = &rest[1..];
        }
        let tag = self.algorithm.tag();
        if let Some(tagged) = rest.strip_prefix(tag) {
            let tagged = tagged.strip_prefix(' ').unwrap_or(tagged);
            return self.parse_tagged(tagged.strip_prefix('(')?, escaped);
        }
        let hex_len = self.algorithm.hex_len();
        let digest = rest.get(..hex_len)?;
        if !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let after = rest[hex_len..].strip_prefix([' ', '\t'])?;
        let standard = after.len() > 1 && after.starts_with([' ', '*']);
        let file = if !standard {
            if self.bsd_reversed == Some(false) {
                return None;
            }
            self.bsd_reversed = Some(true);
            after
        } else if self.bsd_reversed == Some(true) {
            after
        } else {
            self.bsd_reversed = Some(false);
            &after[1..]
        };
        if file.is_empty() {
            return None;
        }
        let file = if escaped {
            unescape(file)?
        } else {
            file.to_owned()
        };
        Some(Entry {
            digest: digest.to_owned(),
            file,
        })
    }

    /// `NAME) = HASH` of a tagged line.
    fn parse_tagged(&self, text: &str, escaped: bool) -> Option<Entry> {
        let close = text.rfind(')')?;
        let name = &text[..close];
        let rest = text[close + 1..].trim_start_matches([' ', '\t']);
        let digest = rest.strip_prefix('=')?.trim_start_matches([' ', '\t']);
        let valid = digest.len() == self.algorithm.hex_len()
            && digest.bytes().all(|b| b.is_ascii_hexdigit());
        if !valid {
            return None;
        }
        let file = if escaped {
            unescape(name)?
        } else {
            name.to_owned()
        };
        Some(Entry {
            digest: digest.to_owned(),
            file,
        })
    }
}

/// An escaped name: `\\`, `\n` and `\r` stand for themselves; other escapes are bad.
fn unescape(text: &str) -> Option<String> {
    let mut name = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            name.push(c);
            continue;
        }
        match chars.next()? {
            '\\' => name.push('\\'),
            'n' => name.push('\n'),
            'r' => name.push('\r'),
            _ => return None,
        }
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker<'a>(options: &'a Options<'a>) -> Checker<'a> {
        Checker {
            algorithm: Algorithm::Md5,
            options,
            name: "md5sum",
            bsd_reversed: None,
        }
    }

    fn entry(digest: &str, file: &str) -> Option<Entry> {
        Some(Entry {
            digest: digest.to_owned(),
            file: file.to_owned(),
        })
    }

    const HASH: &str = "60b725f10c9c85c70d97880dfe8191b3";

    #[test]
    fn checksum_lines() {
        let options = Options::default();
        let mut check = checker(&options);
        assert_eq!(
            check.parse_line(&format!("{HASH}  a.txt")),
            entry(HASH, "a.txt")
        );
        assert_eq!(
            check.parse_line(&format!("{HASH} *a b")),
            entry(HASH, "a b")
        );
        assert_eq!(check.parse_line(&format!("  {HASH}\t a")), entry(HASH, "a"));
        assert_eq!(
            check.parse_line(&format!("MD5 (a.txt) = {HASH}")),
            entry(HASH, "a.txt")
        );
        assert_eq!(
            check.parse_line(&format!("\\{HASH}  a\\nb")),
            entry(HASH, "a\nb")
        );
        assert_eq!(check.parse_line("garbage"), None);
        assert_eq!(check.parse_line(HASH), None);
        assert_eq!(check.parse_line(&format!("{}  a", &HASH[1..])), None);
        assert_eq!(check.parse_line(&format!("SHA1 (a) = {HASH}")), None);
    }

    #[test]
    fn reversed_lines_are_not_mixed_with_standard_ones() {
        let options = Options::default();
        let mut check = checker(&options);
        assert_eq!(
            check.parse_line(&format!("{HASH} a.txt")),
            entry(HASH, "a.txt")
        );
        assert_eq!(check.parse_line(&format!("{HASH}  b")), entry(HASH, " b"));
        let mut check = checker(&options);
        assert_eq!(check.parse_line(&format!("{HASH}  b")), entry(HASH, "b"));
        assert_eq!(check.parse_line(&format!("{HASH} a.txt")), None);
    }
}
