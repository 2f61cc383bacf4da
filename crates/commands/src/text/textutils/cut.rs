//! `cut`: selected bytes (`-b`, and `-c`, which GNU treats as bytes too) or
//! delimiter-separated fields (`-f`, `-d`, `-s`) of each line, by lists of positions
//! and ranges (`1,3-5,7-`), or everything else (`--complement`).

use super::{Inputs, print_and_exit};
use crate::options::{Arg, HELP_VERSION, Invocation, Parser, Spec, Value, version};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) struct Cut {
    pub fs: Arc<SandboxFs>,
}

const SPEC: Spec = Spec {
    short: "nszb:c:d:f:",
    long: &[
        ("bytes", Value::Required),
        ("characters", Value::Required),
        ("delimiter", Value::Required),
        ("fields", Value::Required),
        ("only-delimited", Value::No),
        ("zero-terminated", Value::No),
        ("complement", Value::No),
        ("output-delimiter", Value::Required),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const HELP: &str = "Usage: cut OPTION... [FILE]...
Print selected parts of lines from each FILE to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -b, --bytes=LIST        select only these bytes
  -c, --characters=LIST   select only these characters
  -d, --delimiter=DELIM   use DELIM instead of TAB for field delimiter
  -f, --fields=LIST       select only these fields;  also print any line
                            that contains no delimiter character, unless
                            the -s option is specified
  -n                      (ignored)
      --complement        complement the set of selected bytes, characters
                            or fields
  -s, --only-delimited    do not print lines not containing delimiters
      --output-delimiter=STRING  use STRING as the output delimiter
                            the default is to use the input delimiter
  -z, --zero-terminated   line delimiter is NUL, not newline
";

/// An inclusive range of positions, from 1; `hi` is `u64::MAX` for `N-`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    lo: u64,
    hi: u64,
}

/// The selected positions: sorted ranges that do not overlap.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ranges(Vec<Range>);

impl Ranges {
    /// A walk over positions 1, 2, ... of one line.
    fn cursor(&self) -> Cursor<'_> {
        Cursor {
            ranges: &self.0,
            at: 0,
        }
    }
}

/// Answers "is position k selected" for increasing k.
struct Cursor<'r> {
    ranges: &'r [Range],
    at: usize,
}

impl Cursor<'_> {
    /// Whether `k` is selected, and whether a range starts at it.
    fn at(&mut self, k: u64) -> (bool, bool) {
        while self.ranges.get(self.at).is_some_and(|r| r.hi < k) {
            self.at += 1;
        }
        match self.ranges.get(self.at) {
            Some(range) if range.lo <= k => (true, range.lo == k),
            _ => (false, false),
        }
    }
}

#[derive(Debug)]
struct Options<'a> {
    ranges: Ranges,
    fields: bool,
    delim: u8,
    /// `None`: the input delimiter (fields), or nothing between ranges (bytes).
    output_delim: Option<Vec<u8>>,
    only_delimited: bool,
    line_end: u8,
    operands: Vec<&'a str>,
}

#[async_trait::async_trait]
impl crate::Command for Cut {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse(ctx.args) {
            Ok(Invocation::Run(options)) => options,
            Ok(Invocation::Print(text)) => return print_and_exit(&ctx, &text).await,
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        run(&self.fs, &ctx, &options).await
    }
}

/// The options, or text to print (`--help`), or a usage error (checked in GNU's order).
fn parse(args: &[String]) -> Result<Invocation<Options<'_>>, String> {
    let mut list: Option<(&str, bool)> = None;
    let mut delim: Option<u8> = None;
    let mut output_delim = None;
    let mut only_delimited = false;
    let mut complement = false;
    let mut line_end = b'\n';
    let mut operands = Vec::new();
    let mut parser = Parser::new(&SPEC, args);
    while let Some(arg) = parser.next_arg()? {
        match arg {
            Arg::Operand(operand) => operands.push(operand),
            Arg::Short('b' | 'c', Some(value)) | Arg::Long("bytes" | "characters", Some(value)) => {
                set_list(&mut list, value, false)?;
            }
            Arg::Short('f', Some(value)) | Arg::Long("fields", Some(value)) => {
                set_list(&mut list, value, true)?;
            }
            Arg::Short('d', Some(value)) | Arg::Long("delimiter", Some(value)) => {
                if value.len() > 1 {
                    return Err("the delimiter must be a single character".to_owned());
                }
                // `-d ''` is the NUL byte.
                delim = Some(value.bytes().next().unwrap_or(0));
            }
            Arg::Long("output-delimiter", Some(value)) => {
                // GNU takes an empty output delimiter as the NUL byte.
                output_delim = Some(if value.is_empty() {
                    vec![0]
                } else {
                    value.as_bytes().to_vec()
                });
            }
            Arg::Short('s', _) | Arg::Long("only-delimited", _) => only_delimited = true,
            Arg::Short('z', _) | Arg::Long("zero-terminated", _) => line_end = 0,
            Arg::Long("complement", _) => complement = true,
            Arg::Long("help", _) => return Ok(Invocation::Print(format!("{HELP}{HELP_VERSION}"))),
            Arg::Long("version", _) => return Ok(Invocation::Print(version("cut"))),
            Arg::Short(..) | Arg::Long(..) => {}
        }
    }
    let Some((list, fields)) = list else {
        return Err("you must specify a list of bytes, characters, or fields".to_owned());
    };
    if delim.is_some() && !fields {
        return Err("an input delimiter may be specified only when operating on fields".to_owned());
    }
    if only_delimited && !fields {
        return Err(
            "suppressing non-delimited lines makes sense\n\tonly when operating on fields"
                .to_owned(),
        );
    }
    let mut ranges = parse_list(list, fields)?;
    if complement {
        ranges = complement_of(&ranges);
    }
    Ok(Invocation::Run(Options {
        ranges,
        fields,
        delim: delim.unwrap_or(b'\t'),
        output_delim,
        only_delimited,
        line_end,
        operands,
    }))
}

fn set_list<'a>(
    list: &mut Option<(&'a str, bool)>,
    value: &'a str,
    fields: bool,
) -> Result<(), String> {
    if list.is_some() {
        return Err("only one list may be specified".to_owned());
    }
    *list = Some((value, fields));
    Ok(())
}

/// The words of GNU's list messages, which differ between fields and positions.
struct ListWords {
    fields: bool,
}

impl ListWords {
    fn pick(&self, field: &str, position: &str) -> String {
        if self.fields { field } else { position }.to_owned()
    }
    fn numbered_from_1(&self) -> String {
        self.pick(
            "fields are numbered from 1",
            "byte/character positions are numbered from 1",
        )
    }
}

/// A list such as `1,3-5,7-` (commas or blanks between items), parsed as GNU's
/// `set_fields` does, with its messages.
fn parse_list(list: &str, fields: bool) -> Result<Ranges, String> {
    let words = ListWords { fields };
    let bytes = list.as_bytes();
    let mut ranges = Vec::new();
    let mut value: u64 = 0;
    let mut initial: u64 = 1;
    let (mut lhs, mut rhs, mut dash) = (false, false, false);
    let mut number_start = 0;
    let mut in_digits = false;
    let mut i = 0;
    loop {
        let c = bytes.get(i).copied();
        match c {
            Some(b'-') => {
                in_digits = false;
                if dash {
                    return Err(
                        words.pick("invalid field range", "invalid byte or character range")
                    );
                }
                dash = true;
                if lhs && value == 0 {
                    return Err(words.numbered_from_1());
                }
                initial = if lhs { value } else { 1 };
                value = 0;
            }
            None | Some(b',' | b' ' | b'\t') => {
                in_digits = false;
                if dash {
                    dash = false;
                    if !lhs && !rhs {
                        return Err("invalid range with no endpoint: -".to_owned());
                    }
                    if !rhs {
                        ranges.push(Range {
                            lo: initial,
                            hi: u64::MAX,
                        });
                    } else {
                        if value < initial {
                            return Err("invalid decreasing range".to_owned());
                        }
                        ranges.push(Range {
                            lo: initial,
                            hi: value,
                        });
                    }
                } else {
                    if value == 0 {
                        return Err(words.numbered_from_1());
                    }
                    ranges.push(Range {
                        lo: value,
                        hi: value,
                    });
                }
                value = 0;
                if c.is_none() {
                    break;
                }
                lhs = false;
                rhs = false;
            }
            Some(digit) if digit.is_ascii_digit() => {
                if !in_digits {
                    number_start = i;
                }
                in_digits = true;
                if dash {
                    rhs = true;
                } else {
                    lhs = true;
                }
                value = value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(digit - b'0')))
                    .filter(|v| *v != u64::MAX)
                    .ok_or_else(|| {
                        let len = bytes[number_start..]
                            .iter()
                            .take_while(|b| b.is_ascii_digit())
                            .count();
                        let number = &list[number_start..number_start + len];
                        let what = words.pick("field number", "byte/character offset");
                        format!("{what} '{number}' is too large")
                    })?;
            }
            Some(_) => {
                let what = words.pick("invalid field value", "invalid byte/character position");
                return Err(format!("{what} {}", quote_c(&list[i..])));
            }
        }
        i += 1;
    }
    Ok(merge(ranges))
}

fn quote_c(value: &str) -> String {
    if value.contains('\'') {
        quote(value)
    } else {
        format!("'{value}'")
    }
}

/// Sorted, with overlapping ranges merged (adjacent ones stay apart: GNU prints the
/// output delimiter between them).
fn merge(mut ranges: Vec<Range>) -> Ranges {
    ranges.sort_by_key(|r| (r.lo, r.hi));
    let mut merged: Vec<Range> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.lo <= last.hi => last.hi = last.hi.max(range.hi),
            _ => merged.push(range),
        }
    }
    Ranges(merged)
}

/// Every position that `ranges` leaves out.
fn complement_of(ranges: &Ranges) -> Ranges {
    let mut result = Vec::new();
    let mut next = 1u64;
    for range in &ranges.0 {
        if range.lo > next {
            result.push(Range {
                lo: next,
                hi: range.lo - 1,
            });
        }
        next = range.hi.saturating_add(1);
        if range.hi == u64::MAX {
            return Ranges(result);
        }
    }
    result.push(Range {
        lo: next,
        hi: u64::MAX,
    });
    Ranges(result)
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
    let mut failed = false;
    for operand in operands {
        match inputs.read(operand).await? {
            Ok(data) => out.out(cut(&data, options)).await?,
            Err(err) => {
                failed = true;
                out.err(format!("cut: {}: {}\n", quote(operand), err.reason()))
                    .await?;
            }
        }
    }
    out.finish(i32::from(failed)).await
}

/// The output for one whole input.
fn cut(data: &[u8], options: &Options<'_>) -> Vec<u8> {
    let end = options.line_end;
    let mut out = Vec::with_capacity(data.len());
    if options.fields && options.delim == end {
        // Every line end but the last separates fields of one single record.
        let record = data.strip_suffix(&[end]).unwrap_or(data);
        if !data.is_empty() {
            cut_fields(record, options, &mut out);
        }
        return out;
    }
    let body = data.strip_suffix(&[end]).unwrap_or(data);
    if data.is_empty() {
        return out;
    }
    for line in body.split(|&b| b == end) {
        if options.fields {
            cut_fields(line, options, &mut out);
        } else {
            cut_bytes(line, options, &mut out);
        }
    }
    out
}

fn cut_bytes(line: &[u8], options: &Options<'_>, out: &mut Vec<u8>) {
    let mut cursor = options.ranges.cursor();
    let mut started = false;
    for (i, &byte) in line.iter().enumerate() {
        let (selected, range_start) = cursor.at(i as u64 + 1);
        if !selected {
            continue;
        }
        if let Some(delim) = &options.output_delim {
            if started && range_start {
                out.extend_from_slice(delim);
            }
            started = true;
        }
        out.push(byte);
    }
    out.push(options.line_end);
}

fn cut_fields(line: &[u8], options: &Options<'_>, out: &mut Vec<u8>) {
    if !line.contains(&options.delim) {
        if !options.only_delimited {
            out.extend_from_slice(line);
            out.push(options.line_end);
        }
        return;
    }
    let output_delim = options
        .output_delim
        .as_deref()
        .unwrap_or(std::slice::from_ref(&options.delim));
    let mut cursor = options.ranges.cursor();
    let mut any = false;
    for (i, field) in line.split(|&b| b == options.delim).enumerate() {
        if !cursor.at(i as u64 + 1).0 {
            continue;
        }
        if any {
            out.extend_from_slice(output_delim);
        }
        any = true;
        out.extend_from_slice(field);
    }
    out.push(options.line_end);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(list: &str) -> Result<Vec<(u64, u64)>, String> {
        parse_list(list, true).map(|r| r.0.iter().map(|r| (r.lo, r.hi)).collect())
    }

    #[test]
    fn lists() {
        assert_eq!(ranges("1,3-"), Ok(vec![(1, 1), (3, u64::MAX)]));
        assert_eq!(ranges("-2"), Ok(vec![(1, 2)]));
        assert_eq!(ranges("5,1-3,2-4"), Ok(vec![(1, 4), (5, 5)]));
        assert_eq!(ranges("1 2"), Ok(vec![(1, 1), (2, 2)]));
        assert_eq!(ranges("0"), Err("fields are numbered from 1".to_owned()));
        assert_eq!(ranges(""), Err("fields are numbered from 1".to_owned()));
        assert_eq!(ranges("3-1"), Err("invalid decreasing range".to_owned()));
        assert_eq!(
            ranges("-"),
            Err("invalid range with no endpoint: -".to_owned())
        );
        assert_eq!(ranges("1-2-3"), Err("invalid field range".to_owned()));
        assert_eq!(ranges("1,x,3"), Err("invalid field value 'x,3'".to_owned()));
        assert_eq!(
            ranges("99999999999999999999999"),
            Err("field number '99999999999999999999999' is too large".to_owned())
        );
    }

    #[test]
    fn complements() {
        let all = parse_list("2,4-5", true).map(|r| complement_of(&r));
        assert_eq!(
            all.map(|r| r.0),
            Ok(vec![
                Range { lo: 1, hi: 1 },
                Range { lo: 3, hi: 3 },
                Range {
                    lo: 6,
                    hi: u64::MAX
                }
            ])
        );
        let none = parse_list("1-", true).map(|r| complement_of(&r).0);
        assert_eq!(none, Ok(vec![]));
    }
}
