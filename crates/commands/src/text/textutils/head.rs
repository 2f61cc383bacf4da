//! `head`: the first lines or bytes of each input, or all but the last (`-n -N`,
//! `-c -N`), with `==> name <==` headers between several inputs. Standard input is
//! read only as far as needed, so `yes | head -n 3` ends.

use super::{InputError, Inputs, print_and_exit};
use crate::options::{Arg, HELP_VERSION, Parser, Spec, Value, version};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) struct Head {
    pub fs: Arc<SandboxFs>,
}

const SPEC: Spec = Spec {
    short: "qvz0123456789c:n:",
    long: &[
        ("bytes", Value::Required),
        ("lines", Value::Required),
        ("quiet", Value::No),
        ("silent", Value::No),
        ("verbose", Value::No),
        ("zero-terminated", Value::No),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const HELP: &str = "Usage: head [OPTION]... [FILE]...
Print the first 10 lines of each FILE to standard output.
With more than one FILE, precede each with a header giving the file name.

With no FILE, or when FILE is -, read standard input.

  -c, --bytes=[-]NUM       print the first NUM bytes of each file;
                             with the leading '-', print all but the last
                             NUM bytes of each file
  -n, --lines=[-]NUM       print the first NUM lines instead of the first 10;
                             with the leading '-', print all but the last
                             NUM lines of each file
  -q, --quiet, --silent    never print headers giving file names
  -v, --verbose            always print headers giving file names
  -z, --zero-terminated    line delimiter is NUL, not newline
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Headers {
    Auto,
    Always,
    Never,
}

/// What to print of each input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Amount {
    count: u64,
    lines: bool,
    /// All but the last `count` units.
    all_but: bool,
}

#[derive(Debug)]
struct Options<'a> {
    amount: Amount,
    headers: Headers,
    delim: u8,
    operands: Vec<&'a str>,
}

/// How a command line ends before any input is read.
enum Parsed<'a> {
    Run(Options<'a>),
    Usage(String),
    Fatal(String),
    Print(String),
}

#[async_trait::async_trait]
impl crate::Command for Head {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Fatal(message) => {
                ctx.stderr
                    .write_all(format!("head: {message}\n").as_bytes())
                    .await?;
                return Ok(Status::with_code(1));
            }
            Parsed::Print(text) => return print_and_exit(&ctx, &text).await,
        };
        run(&self.fs, &ctx, &options).await
    }
}

fn parse(args: &[String]) -> Parsed<'_> {
    let mut amount = Amount {
        count: 10,
        lines: true,
        all_but: false,
    };
    let mut headers = Headers::Auto;
    let mut delim = b'\n';
    let mut rest = args;
    // The obsolete `head -5`, `head -3c` form, only as the first argument.
    if let Some(first) = args.first().filter(|a| is_obsolete_count(a)) {
        match obsolete(first, &mut amount, &mut headers, &mut delim) {
            Ok(()) => rest = &args[1..],
            Err(parsed) => return parsed,
        }
    }
    let parsed = match Parser::new(&SPEC, rest).collect() {
        Ok(parsed) => parsed,
        Err(message) => return Parsed::Usage(message.into()),
    };
    let mut operands = Vec::new();
    for arg in parsed {
        let (lines, value) = match arg {
            Arg::Operand(operand) => {
                operands.push(operand);
                continue;
            }
            Arg::Short('c', value) | Arg::Long("bytes", value) => (false, value),
            Arg::Short('n', value) | Arg::Long("lines", value) => (true, value),
            Arg::Short('q', _) | Arg::Long("quiet" | "silent", _) => {
                headers = Headers::Never;
                continue;
            }
            Arg::Short('v', _) | Arg::Long("verbose", _) => {
                headers = Headers::Always;
                continue;
            }
            Arg::Short('z', _) | Arg::Long("zero-terminated", _) => {
                delim = 0;
                continue;
            }
            Arg::Long("help", _) => return Parsed::Print(format!("{HELP}{HELP_VERSION}")),
            Arg::Long("version", _) => return Parsed::Print(version("head")),
            Arg::Short(c, _) => return Parsed::Usage(format!("invalid trailing option -- {c}")),
            Arg::Long(..) => continue,
        };
        match amount_of(value.unwrap_or_default(), lines) {
            Ok(parsed) => amount = parsed,
            Err(message) => return Parsed::Fatal(message),
        }
    }
    Parsed::Run(Options {
        amount,
        headers,
        delim,
        operands,
    })
}

fn is_obsolete_count(arg: &str) -> bool {
    let bytes = arg.as_bytes();
    bytes.len() > 1 && bytes[0] == b'-' && bytes[1].is_ascii_digit()
}

/// `-NUM[bkm][cqvlz]...`: the count, then letters that say what it counts.
fn obsolete<'a>(
    arg: &str,
    amount: &mut Amount,
    headers: &mut Headers,
    delim: &mut u8,
) -> Result<(), Parsed<'a>> {
    let digits_end = arg[1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(arg.len(), |i| i + 1);
    let mut number = arg[1..digits_end].to_owned();
    let mut lines = true;
    let mut multiplier = None;
    for c in arg[digits_end..].chars() {
        match c {
            'c' => (lines, multiplier) = (false, None),
            'b' | 'k' | 'm' => (lines, multiplier) = (false, Some(c)),
            'l' => lines = true,
            'q' => *headers = Headers::Never,
            'v' => *headers = Headers::Always,
            'z' => *delim = 0,
            _ => return Err(Parsed::Usage(format!("invalid trailing option -- {c}"))),
        }
    }
    number.extend(multiplier);
    *amount = amount_of(&number, lines).map_err(Parsed::Fatal)?;
    Ok(())
}

/// `[-]NUM` of `-n` or `-c`, or GNU's message for it.
fn amount_of(value: &str, lines: bool) -> Result<Amount, String> {
    let (all_but, number) = match value.strip_prefix('-') {
        Some(number) => (true, number),
        None => (false, value),
    };
    let what = if lines { "lines" } else { "bytes" };
    match parse_count(number) {
        Ok(count) => Ok(Amount {
            count,
            lines,
            all_but,
        }),
        Err(CountError::Invalid) => Err(format!("invalid number of {what}: {}", quote_c(value))),
        Err(CountError::Overflow) => Err(format!(
            "invalid number of {what}: {}: Value too large for defined data type",
            quote_c(value)
        )),
    }
}

/// A value quoted as GNU's `quote` does in the C locale: always in single quotes.
fn quote_c(value: &str) -> String {
    if value.contains('\'') {
        quote(value)
    } else {
        format!("'{value}'")
    }
}

#[derive(Debug, PartialEq, Eq)]
enum CountError {
    Invalid,
    Overflow,
}

/// A count with GNU's multiplier suffixes: `b` (512), `K`/`k` `M` `G` `T` `P` `E` `Z`
/// `Y` `R` `Q` (powers of 1024, or of 1000 when followed by `B`; `KiB` is 1024).
fn parse_count(text: &str) -> Result<u64, CountError> {
    let text = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let text = text.strip_prefix('+').unwrap_or(text);
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, suffix) = text.split_at(digits);
    // GNU takes a lone suffix as one unit of it (`-c K` is 1024).
    let value = if number.is_empty() {
        if !suffix.starts_with(|c: char| "bkKmMGTPEZYRQ".contains(c)) {
            return Err(CountError::Invalid);
        }
        Some(1)
    } else {
        number.parse::<u64>().ok()
    };
    // A bad suffix is reported as such even when the number overflows too.
    let scaled = scale(value.unwrap_or(u64::MAX), suffix)?;
    value.and(scaled).ok_or(CountError::Overflow)
}

/// `value` times the multiplier `suffix` names; `None` when it overflows.
fn scale(value: u64, suffix: &str) -> Result<Option<u64>, CountError> {
    let mut chars = suffix.chars();
    let Some(unit) = chars.next() else {
        return Ok(Some(value));
    };
    let power = match unit {
        'b' => {
            return if chars.as_str().is_empty() {
                Ok(value.checked_mul(512))
            } else {
                Err(CountError::Invalid)
            };
        }
        'k' | 'K' => 1,
        'm' | 'M' => 2,
        'G' => 3,
        'T' => 4,
        'P' => 5,
        'E' => 6,
        'Z' => 7,
        'Y' => 8,
        'R' => 9,
        'Q' => 10,
        _ => return Err(CountError::Invalid),
    };
    let (base, rest): (u64, &str) = match chars.as_str() {
        "" => (1024, ""),
        rest if rest.starts_with("iB") => (1024, &rest[2..]),
        rest if rest.starts_with('B') || rest.starts_with('D') => (1000, &rest[1..]),
        rest => (1024, rest),
    };
    if !rest.is_empty() {
        return Err(CountError::Invalid);
    }
    let factor = base.checked_pow(power);
    Ok(factor.and_then(|factor| value.checked_mul(factor)))
}

async fn run(
    fs: &Arc<SandboxFs>,
    ctx: &Context<'_>,
    options: &Options<'_>,
) -> crate::Result<Status> {
    let mut inputs = Inputs::new(fs, ctx);
    let mut out = Output::new(ctx);
    let operands = if options.operands.is_empty() {
        vec!["-"]
    } else {
        options.operands.clone()
    };
    let headers = match options.headers {
        Headers::Auto => operands.len() > 1,
        Headers::Always => true,
        Headers::Never => false,
    };
    let mut first = true;
    let mut failed = false;
    for operand in operands {
        let name = if operand == "-" {
            "standard input"
        } else {
            operand
        };
        let header = |first: bool| format!("{}==> {name} <==\n", if first { "" } else { "\n" });
        if Inputs::is_stdin(operand) {
            if headers {
                out.out(header(first)).await?;
                first = false;
            }
            head_stdin(&mut inputs, &mut out, options).await?;
            continue;
        }
        let data = inputs.read_file(operand).await;
        if headers && !matches!(data, Err(InputError::Open(_))) {
            out.out(header(first)).await?;
            first = false;
        }
        match data {
            Ok(data) if operand == "/dev/zero" => zeros(&mut out, options.amount, &data).await?,
            Ok(data) => {
                out.out(select(&data, options.amount, options.delim))
                    .await?
            }
            Err(InputError::Open(reason)) => {
                failed = true;
                out.err(format!(
                    "head: cannot open {} for reading: {reason}\n",
                    quote_c(operand)
                ))
                .await?;
            }
            Err(InputError::Read(reason)) => {
                failed = true;
                out.err(format!(
                    "head: error reading {}: {reason}\n",
                    quote_c(operand)
                ))
                .await?;
            }
        }
    }
    out.finish(i32::from(failed)).await
}

/// `/dev/zero` is endless: `head -c N` gets all N bytes of it.
async fn zeros(out: &mut Output<'_, '_>, amount: Amount, data: &[u8]) -> crate::Result<()> {
    if amount.lines || amount.all_but {
        return out.out(select(data, amount, b'\n')).await;
    }
    let mut left = amount.count;
    let block = [0u8; 8192];
    while left > 0 {
        let n = usize::try_from(left).unwrap_or(usize::MAX).min(block.len());
        out.out(&block[..n]).await?;
        left -= n as u64;
    }
    Ok(())
}

/// Standard input: read only as far as the first lines or bytes need.
async fn head_stdin(
    inputs: &mut Inputs<'_, '_>,
    out: &mut Output<'_, '_>,
    options: &Options<'_>,
) -> crate::Result<()> {
    let amount = options.amount;
    if amount.all_but {
        let data = inputs.stdin().await?;
        return out.out(select(&data, amount, options.delim)).await;
    }
    if inputs.stdin_consumed() {
        return Ok(());
    }
    let mut left = amount.count;
    while left > 0 {
        let Some(chunk) = inputs.ctx.stdin.read_chunk().await? else {
            break;
        };
        let take = if amount.lines {
            prefix_lines(&chunk, &mut left, options.delim)
        } else {
            let take = usize::try_from(left).unwrap_or(usize::MAX).min(chunk.len());
            left -= take as u64;
            take
        };
        out.out(&chunk[..take]).await?;
    }
    Ok(())
}

/// How much of `data` holds up to `*left` lines; counts them off `*left`.
fn prefix_lines(data: &[u8], left: &mut u64, delim: u8) -> usize {
    for (i, _) in data.iter().enumerate().filter(|(_, b)| **b == delim) {
        *left -= 1;
        if *left == 0 {
            return i + 1;
        }
    }
    data.len()
}

/// The part of a whole input that `amount` selects.
fn select(data: &[u8], amount: Amount, delim: u8) -> &[u8] {
    let count = usize::try_from(amount.count).unwrap_or(usize::MAX);
    match (amount.lines, amount.all_but) {
        (false, false) => &data[..count.min(data.len())],
        (false, true) => &data[..data.len().saturating_sub(count)],
        (true, false) => {
            let mut left = amount.count;
            if left == 0 {
                return &[];
            }
            &data[..prefix_lines(data, &mut left, delim)]
        }
        (true, true) => all_but_last_lines(data, count, delim),
    }
}

/// `data` without its last `count` lines (a last line without its delimiter counts).
fn all_but_last_lines(data: &[u8], count: usize, delim: u8) -> &[u8] {
    if count == 0 {
        return data;
    }
    let delimited = data.iter().filter(|&&b| b == delim).count();
    let unterminated = usize::from(data.last().is_some_and(|&b| b != delim));
    let keep = (delimited + unterminated).saturating_sub(count);
    if keep == 0 {
        return &[];
    }
    // The kept lines all end with a delimiter: `keep` is below the line count.
    let end = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == delim)
        .nth(keep - 1)
        .map_or(data.len(), |(i, _)| i + 1);
    &data[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(count: u64, all_but: bool) -> Amount {
        Amount {
            count,
            lines: true,
            all_but,
        }
    }

    #[test]
    fn counts_with_suffixes() {
        assert_eq!(parse_count("10"), Ok(10));
        assert_eq!(parse_count("1K"), Ok(1024));
        assert_eq!(parse_count("1kB"), Ok(1000));
        assert_eq!(parse_count("1KiB"), Ok(1024));
        assert_eq!(parse_count("2b"), Ok(1024));
        assert_eq!(parse_count("1M"), Ok(1 << 20));
        assert_eq!(parse_count("K"), Ok(1024));
        assert_eq!(parse_count("1x"), Err(CountError::Invalid));
        assert_eq!(parse_count(""), Err(CountError::Invalid));
        assert_eq!(parse_count("-1"), Err(CountError::Invalid));
        assert_eq!(
            parse_count("99999999999999999999999"),
            Err(CountError::Overflow)
        );
        assert_eq!(parse_count("1Q"), Err(CountError::Overflow));
    }

    #[test]
    fn selects_lines_and_bytes() {
        let data = b"1\n2\n3\n4\n5\n";
        assert_eq!(select(data, lines(3, false), b'\n'), b"1\n2\n3\n");
        assert_eq!(select(data, lines(2, true), b'\n'), b"1\n2\n3\n");
        assert_eq!(select(data, lines(0, false), b'\n'), b"");
        assert_eq!(select(data, lines(9, true), b'\n'), b"");
        assert_eq!(select(data, lines(0, true), b'\n'), data);
        assert_eq!(select(b"a\nb", lines(1, true), b'\n'), b"a\n");
        assert_eq!(select(b"a\nb", lines(2, true), b'\n'), b"");
        assert_eq!(select(b"a\nb\n\n", lines(1, true), b'\n'), b"a\nb\n");
        let bytes = Amount {
            count: 3,
            lines: false,
            all_but: true,
        };
        assert_eq!(select(b"abcdef", bytes, b'\n'), b"abc");
    }
}
