//! `wc`: lines, words, characters, bytes and the longest line's width of each input,
//! in GNU's column layout (widths from the total size of the files; at least 7 when
//! an input is not a regular file) with a `total` line for several inputs.

use super::{InputError, Inputs, print_and_exit, utf8_locale};
use crate::options::{Arg, HELP_VERSION, Invocation, Parser, Spec, Value, version};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) struct Wc {
    pub fs: Arc<SandboxFs>,
}

const SPEC: Spec = Spec {
    short: "cmlLw",
    long: &[
        ("bytes", Value::No),
        ("chars", Value::No),
        ("lines", Value::No),
        ("max-line-length", Value::No),
        ("words", Value::No),
        ("files0-from", Value::Required),
        ("total", Value::Required),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const HELP: &str = "Usage: wc [OPTION]... [FILE]...
  or:  wc [OPTION]... --files0-from=F
Print newline, word, and byte counts for each FILE, and a total line if
more than one FILE is specified.  A word is a non-zero-length sequence of
printable characters delimited by white space.

With no FILE, or when FILE is -, read standard input.

The options below may be used to select which counts are printed, always in
the following order: newline, word, character, byte, maximum line length.
  -c, --bytes            print the byte counts
  -m, --chars            print the character counts
  -l, --lines            print the newline counts
      --files0-from=F    read input from the files specified by
                           NUL-terminated names in file F;
                           If F is - then read names from standard input
  -L, --max-line-length  print the maximum display width
  -w, --words            print the word counts
      --total=WHEN       when to print a line with total counts;
                           WHEN can be: auto, always, only, never
";

/// The counts of one input.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max_line: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.words += other.words;
        self.chars += other.chars;
        self.bytes += other.bytes;
        self.max_line = self.max_line.max(other.max_line);
    }
}

/// Which counts to print.
#[derive(Debug, Default, Clone, Copy)]
struct Selected {
    lines: bool,
    words: bool,
    chars: bool,
    bytes: bool,
    max_line: bool,
}

impl Selected {
    fn how_many(self) -> usize {
        [
            self.lines,
            self.words,
            self.chars,
            self.bytes,
            self.max_line,
        ]
        .iter()
        .filter(|on| **on)
        .count()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Total {
    Auto,
    Always,
    Only,
    Never,
}

#[derive(Debug)]
struct Options<'a> {
    selected: Selected,
    total: Total,
    files0_from: Option<&'a str>,
    operands: Vec<&'a str>,
}

#[async_trait::async_trait]
impl crate::Command for Wc {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse(ctx.args) {
            Ok(Invocation::Run(options)) => options,
            Ok(Invocation::Print(text)) => return print_and_exit(&ctx, &text).await,
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        run(&self.fs, &ctx, options).await
    }
}

/// The options, or text to print (`--help`), or a usage error.
fn parse(args: &[String]) -> Result<Invocation<Options<'_>>, String> {
    let mut selected = Selected::default();
    let mut total = Total::Auto;
    let mut files0_from = None;
    let mut operands = Vec::new();
    for arg in Parser::new(&SPEC, args).collect()? {
        match arg {
            Arg::Operand(operand) => operands.push(operand),
            Arg::Short('c', _) | Arg::Long("bytes", _) => selected.bytes = true,
            Arg::Short('m', _) | Arg::Long("chars", _) => selected.chars = true,
            Arg::Short('l', _) | Arg::Long("lines", _) => selected.lines = true,
            Arg::Short('L', _) | Arg::Long("max-line-length", _) => selected.max_line = true,
            Arg::Short('w', _) | Arg::Long("words", _) => selected.words = true,
            Arg::Long("files0-from", value) => files0_from = value,
            Arg::Long("total", value) => total = total_of(value.unwrap_or_default())?,
            Arg::Long("help", _) => return Ok(Invocation::Print(format!("{HELP}{HELP_VERSION}"))),
            Arg::Long("version", _) => return Ok(Invocation::Print(version("wc"))),
            Arg::Short(..) | Arg::Long(..) => {}
        }
    }
    if selected.how_many() == 0 {
        selected = Selected {
            lines: true,
            words: true,
            bytes: true,
            ..Selected::default()
        };
    }
    if files0_from.is_some() && !operands.is_empty() {
        return Err(format!(
            "extra operand {}\nfile operands cannot be combined with --files0-from",
            quote_always(operands[0])
        ));
    }
    Ok(Invocation::Run(Options {
        selected,
        total,
        files0_from,
        operands,
    }))
}

fn total_of(value: &str) -> Result<Total, String> {
    let choices = [
        ("auto", Total::Auto),
        ("always", Total::Always),
        ("only", Total::Only),
        ("never", Total::Never),
    ];
    let matching: Vec<_> = choices
        .iter()
        .filter(|(name, _)| !value.is_empty() && name.starts_with(value))
        .collect();
    match matching.as_slice() {
        [(_, total)] => Ok(*total),
        _ => {
            let kind = if matching.is_empty() {
                "invalid"
            } else {
                "ambiguous"
            };
            Err(format!(
                "{kind} argument {} for '--total'\nValid arguments are:\n  - 'auto'\n  - 'always'\n  - 'only'\n  - 'never'",
                quote_always(value)
            ))
        }
    }
}

fn quote_always(value: &str) -> String {
    let quoted = quote(value);
    if quoted.starts_with(['\'', '"']) {
        quoted
    } else {
        format!("'{value}'")
    }
}

async fn run(
    fs: &Arc<SandboxFs>,
    ctx: &Context<'_>,
    options: Options<'_>,
) -> crate::Result<Status> {
    let mut inputs = Inputs::new(fs, ctx);
    let mut out = Output::new(ctx);
    let (operands, named) = match options.files0_from {
        Some(list) => match names_from(&mut inputs, list).await? {
            Ok(names) => (names, true),
            Err(message) => {
                out.err(format!("wc: {message}\n")).await?;
                return out.finish(1).await;
            }
        },
        None if options.operands.is_empty() => (vec!["-".to_owned()], false),
        None => (
            options.operands.iter().map(|o| (*o).to_owned()).collect(),
            true,
        ),
    };
    let selected = options.selected;
    // GNU sizes nothing when it reads the names as it goes (from standard input).
    let width = if options.files0_from.is_some_and(Inputs::is_stdin) {
        1
    } else {
        number_width(&inputs, &operands, selected).await
    };
    let utf8 = utf8_locale(ctx);
    let mut total = Counts::default();
    let mut failed = false;
    for operand in &operands {
        let counts = match inputs.read(operand).await? {
            Ok(data) => count(&data, utf8),
            Err(err) => {
                failed = true;
                out.err(format!("wc: {}: {}\n", quote(operand), err.reason()))
                    .await?;
                // A directory still gets its line of zeros; a missing file none.
                if matches!(err, InputError::Open(_)) {
                    continue;
                }
                Counts::default()
            }
        };
        total.add(&counts);
        if options.total != Total::Only {
            let name = named.then_some(operand.as_str());
            out.out(format_counts(&counts, selected, width, name))
                .await?;
        }
    }
    let total_line = match options.total {
        Total::Auto if operands.len() > 1 => Some((width, Some("total"))),
        Total::Always => Some((width, Some("total"))),
        Total::Only => Some((1, None)),
        Total::Auto | Total::Never => None,
    };
    if let Some((width, name)) = total_line {
        out.out(format_counts(&total, selected, width, name))
            .await?;
    }
    out.finish(i32::from(failed)).await
}

/// The names in the NUL-separated list `list` (`-` for standard input).
async fn names_from(
    inputs: &mut Inputs<'_, '_>,
    list: &str,
) -> crate::Result<Result<Vec<String>, String>> {
    let data = match inputs.read(list).await? {
        Ok(data) => data,
        Err(err) => {
            return Ok(Err(format!(
                "cannot open {} for reading: {}",
                quote_always(list),
                err.reason()
            )));
        }
    };
    let list_items: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let mut names = Vec::new();
    for (i, name) in list_items.iter().enumerate() {
        // Only the empty rest after the last NUL may be empty.
        if name.is_empty() && i + 1 < list_items.len() {
            return Ok(Err(format!(
                "{}:{}: invalid zero-length file name",
                quote(list),
                i + 1
            )));
        }
        if !name.is_empty() {
            names.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    Ok(Ok(names))
}

/// GNU's column width: wide enough for the total size of the regular files, and at
/// least 7 when some input is not a regular file (its size is unknown); 1 when a
/// single count of a single input is printed.
async fn number_width(inputs: &Inputs<'_, '_>, operands: &[String], selected: Selected) -> usize {
    if operands.len() == 1 && selected.how_many() == 1 {
        return 1;
    }
    let mut minimum = 1;
    let mut regular_total: u64 = 0;
    for (i, operand) in operands.iter().enumerate() {
        if !inputs.opens(operand).await {
            if i == 0 {
                return 1;
            }
            continue;
        }
        match inputs.regular_size(operand).await {
            Some(size) => regular_total = regular_total.saturating_add(size),
            None => minimum = 7,
        }
    }
    regular_total.to_string().len().max(minimum)
}

/// One line of output: the selected counts, right-aligned in `width`, and the name.
fn format_counts(counts: &Counts, selected: Selected, width: usize, name: Option<&str>) -> String {
    let values = [
        (selected.lines, counts.lines),
        (selected.words, counts.words),
        (selected.chars, counts.chars),
        (selected.bytes, counts.bytes),
        (selected.max_line, counts.max_line),
    ];
    let mut line = values
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, value)| format!("{value:>width$}"))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(name) = name {
        line.push(' ');
        if name.contains('\n') {
            line.push_str(&quote(name));
        } else {
            line.push_str(name);
        }
    }
    line.push('\n');
    line
}

/// Every count of `data`; characters and widths as UTF-8 when `utf8`, else bytes.
fn count(data: &[u8], utf8: bool) -> Counts {
    let mut counts = Counts {
        bytes: data.len() as u64,
        ..Counts::default()
    };
    let mut in_word = false;
    let mut position: u64 = 0;
    let mut step = |c: Option<char>, byte: u8, counts: &mut Counts| {
        let (space, width) = match c {
            Some(c) => (c.is_whitespace(), char_width(c)),
            None => (false, 0),
        };
        match byte {
            b'\n' | b'\r' | b'\x0c' => {
                counts.max_line = counts.max_line.max(position);
                position = 0;
                counts.lines += u64::from(byte == b'\n');
            }
            b'\t' => position += 8 - position % 8,
            _ => position += width,
        }
        if space {
            in_word = false;
        } else if !in_word {
            in_word = true;
            counts.words += 1;
        }
    };
    if utf8 {
        for chunk in data.utf8_chunks() {
            for c in chunk.valid().chars() {
                counts.chars += 1;
                step(Some(c), u8::try_from(c).unwrap_or(0x80), &mut counts);
            }
            for &byte in chunk.invalid() {
                step(None, byte, &mut counts);
            }
        }
    } else {
        counts.chars = counts.bytes;
        for &byte in data {
            let c = if byte.is_ascii() {
                Some(char::from(byte))
            } else {
                None
            };
            step(c, byte, &mut counts);
        }
    }
    counts.max_line = counts.max_line.max(position);
    counts
}

/// Columns `c` takes on a terminal (as wcwidth: 0 for controls and combining marks,
/// 2 for wide East Asian characters and emoji).
fn char_width(c: char) -> u64 {
    let code = u32::from(c);
    match code {
        0..=0x1f | 0x7f..=0x9f => 0,
        0x300..=0x36f | 0x483..=0x489 | 0x591..=0x5bd | 0x200b..=0x200f | 0x20d0..=0x20ff => 0,
        0xfe00..=0xfe0f => 0,
        0x1100..=0x115f
        | 0x2e80..=0x303e
        | 0x3041..=0x33ff
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xa000..=0xa4cf
        | 0xac00..=0xd7a3
        | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f
        | 0xff00..=0xff60
        | 0xffe0..=0xffe6
        | 0x1f300..=0x1f64f
        | 0x1f900..=0x1f9ff
        | 0x20000..=0x3fffd => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_words_bytes() {
        let counts = count(b"hello world\nsecond line here\n", false);
        assert_eq!(
            (counts.lines, counts.words, counts.bytes, counts.max_line),
            (2, 5, 29, 16)
        );
        assert_eq!(count(b"a\nb", false).lines, 1);
        assert_eq!(count(b"a\x01b c\x01", false).words, 2);
    }

    #[test]
    fn widths_of_lines() {
        assert_eq!(count(b"a\tb\n", false).max_line, 9);
        assert_eq!(count(b"ab\rc\n", false).max_line, 2);
        assert_eq!(count(b"a\x01b c\x01\x80\n", false).max_line, 4);
        assert_eq!(count("h\u{e9}llo\n".as_bytes(), true).max_line, 5);
        assert_eq!(count("h\u{e9}llo\n".as_bytes(), true).chars, 6);
        assert_eq!(count("h\u{e9}llo\n".as_bytes(), false).chars, 7);
    }

    #[test]
    fn formats_columns() {
        let counts = Counts {
            lines: 2,
            words: 5,
            bytes: 29,
            ..Counts::default()
        };
        let selected = Selected {
            lines: true,
            words: true,
            bytes: true,
            ..Selected::default()
        };
        assert_eq!(
            format_counts(&counts, selected, 2, Some("a.txt")),
            " 2  5 29 a.txt\n"
        );
        assert_eq!(
            format_counts(&counts, selected, 7, None),
            "      2       5      29\n"
        );
    }
}
