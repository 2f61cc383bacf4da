//! `join`: lines of two sorted files with equal join fields, merged; GNU's algorithm
//! step for step, so that its order checks (`join: f:2: is not sorted: ...`, then
//! `join: input is not in sorted order` and status 1) fire on the same lines.

use super::{InputError, Inputs, print_and_exit};
use crate::options::{Arg, HELP_VERSION, Parser, Spec, Value, version};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use sandtab_vfs::SandboxFs;
use std::cmp::Ordering;
use std::sync::Arc;

pub(crate) struct Join {
    pub fs: Arc<SandboxFs>,
}

const SPEC: Spec = Spec {
    short: "iza:e:1:2:j:o:t:v:",
    long: &[
        ("ignore-case", Value::No),
        ("check-order", Value::No),
        ("nocheck-order", Value::No),
        ("zero-terminated", Value::No),
        ("header", Value::No),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const HELP: &str = "Usage: join [OPTION]... FILE1 FILE2
For each pair of input lines with identical join fields, write a line to
standard output.  The default join field is the first, delimited by blanks.

When FILE1 or FILE2 (not both) is -, read standard input.

  -a FILENUM        also print unpairable lines from file FILENUM, where
                      FILENUM is 1 or 2, corresponding to FILE1 or FILE2
  -e STRING         replace missing (empty) input fields with STRING;
                      I.e., missing fields specified with '-12jo' options
  -i, --ignore-case  ignore differences in case when comparing fields
  -j FIELD          equivalent to '-1 FIELD -2 FIELD'
  -o FORMAT         obey FORMAT while constructing output line
  -t CHAR           use CHAR as input and output field separator
  -v FILENUM        like -a FILENUM, but suppress joined output lines
  -1 FIELD          join on this FIELD of file 1
  -2 FIELD          join on this FIELD of file 2
      --check-order   check that the input is correctly sorted, even
                      if all input lines are pairable
      --nocheck-order  do not check that the input is correctly sorted
      --header          treat the first line in each file as field headers,
                          print them without trying to pair them
  -z, --zero-terminated     line delimiter is NUL, not newline
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CheckOrder {
    /// Only once an unpairable line has been seen.
    Default,
    Enabled,
    Disabled,
}

/// Where a field of `-o` comes from: the join field (0), or file 1 or 2's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OutField {
    file: u8,
    field: usize,
}

#[derive(Debug)]
struct Options {
    /// 0-based; `None` until given (then the first field).
    join_fields: [Option<usize>; 2],
    unpaired: [bool; 2],
    paired: bool,
    empty: Option<String>,
    outlist: Vec<OutField>,
    autoformat: bool,
    /// `None`: runs of blanks; `Some(b'\n')`: the whole line is the field.
    tab: Option<u8>,
    ignore_case: bool,
    check: CheckOrder,
    header: bool,
    eol: u8,
}

/// An operand, and whether it came right after `-o` (so it may be more of the list).
struct Operand<'a> {
    name: &'a str,
    after_o: bool,
}

enum Parsed<'a> {
    Run(Options, [&'a str; 2]),
    Usage(String),
    Fatal(String),
    Print(String),
}

/// Why a command line is refused: a usage error (with the Try line), or a plain one.
enum Refusal {
    Usage(String),
    Fatal(String),
}

impl From<Refusal> for Parsed<'_> {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Usage(message) => Parsed::Usage(message),
            Refusal::Fatal(message) => Parsed::Fatal(message),
        }
    }
}

#[async_trait::async_trait]
impl crate::Command for Join {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let (options, names) = match parse(ctx.args) {
            Parsed::Run(options, names) => (options, names),
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Fatal(message) => return fail(&ctx, &message).await,
            Parsed::Print(text) => return print_and_exit(&ctx, &text).await,
        };
        if Inputs::is_stdin(names[0]) && Inputs::is_stdin(names[1]) {
            return fail(&ctx, "both files cannot be standard input").await;
        }
        let mut inputs = Inputs::new(&self.fs, &ctx);
        let first = inputs.read(names[0]).await?;
        let second = inputs.read(names[1]).await?;
        for (name, data) in names.iter().zip([&first, &second]) {
            if let Err(InputError::Open(reason)) = data {
                return fail(&ctx, &format!("{}: {reason}", quote(name))).await;
            }
        }
        let (first, second) = match (first, second) {
            (Ok(first), Ok(second)) => (first, second),
            (Err(err), _) | (_, Err(err)) => {
                return fail(&ctx, &format!("read error: {}", err.reason())).await;
            }
        };
        let mut joiner = Joiner::new(&options, names, [&first, &second]);
        let outcome = joiner.join();
        let mut out = Output::new(&ctx);
        out.out(&joiner.out).await?;
        for message in &joiner.messages {
            out.err(format!("join: {message}\n")).await?;
        }
        let unsorted = joiner.warned.iter().any(|w| *w);
        if outcome.is_ok() && unsorted {
            out.err("join: input is not in sorted order\n").await?;
        }
        out.finish(i32::from(outcome.is_err() || unsorted)).await
    }
}

async fn fail(ctx: &Context<'_>, message: &str) -> crate::Result<Status> {
    ctx.stderr
        .write_all(format!("join: {message}\n").as_bytes())
        .await?;
    Ok(Status::with_code(1))
}

fn parse(args: &[String]) -> Parsed<'_> {
    let mut options = Options {
        join_fields: [None, None],
        unpaired: [false, false],
        paired: true,
        empty: None,
        outlist: Vec::new(),
        autoformat: false,
        tab: None,
        ignore_case: false,
        check: CheckOrder::Default,
        header: false,
        eol: b'\n',
    };
    let mut operands: Vec<Operand<'_>> = Vec::new();
    let mut after_o = false;
    let mut parser = Parser::new(&SPEC, args);
    loop {
        let arg = match parser.next_arg() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(message) => return Parsed::Usage(message.into()),
        };
        let was_after_o = std::mem::replace(&mut after_o, false);
        let applied = match arg {
            Arg::Operand(name) => add_operand(&mut operands, &mut options, name, was_after_o)
                .map(|()| after_o = was_after_o),
            Arg::Short(c, value) => {
                short(&mut options, c, value.unwrap_or_default()).map(|o_list| after_o = o_list)
            }
            Arg::Long("ignore-case", _) => {
                options.ignore_case = true;
                Ok(())
            }
            Arg::Long("check-order", _) => {
                options.check = CheckOrder::Enabled;
                Ok(())
            }
            Arg::Long("nocheck-order", _) => {
                options.check = CheckOrder::Disabled;
                Ok(())
            }
            Arg::Long("zero-terminated", _) => {
                options.eol = 0;
                Ok(())
            }
            Arg::Long("header", _) => {
                options.header = true;
                Ok(())
            }
            Arg::Long("help", _) => return Parsed::Print(format!("{HELP}{HELP_VERSION}")),
            Arg::Long("version", _) => return Parsed::Print(version("join")),
            Arg::Long(..) => Ok(()),
        };
        if let Err(refusal) = applied {
            return refusal.into();
        }
    }
    match operands.as_slice() {
        [] => Parsed::Usage("missing operand".to_owned()),
        [_] => Parsed::Usage(format!(
            "missing operand after {}",
            quote_c(args.last().map_or("", String::as_str))
        )),
        [first, second, ..] => {
            let names = [first.name, second.name];
            Parsed::Run(options, names)
        }
    }
}

/// A file operand; a third one means an operand after `-o` was more of its list.
fn add_operand<'a>(
    operands: &mut Vec<Operand<'a>>,
    options: &mut Options,
    name: &'a str,
    after_o: bool,
) -> Result<(), Refusal> {
    if operands.len() == 2 {
        let Some(index) = operands.iter().position(|o| o.after_o) else {
            return Err(Refusal::Usage(format!("extra operand {}", quote_c(name))));
        };
        let list = operands.remove(index).name;
        add_field_list(options, list).map_err(Refusal::Fatal)?;
    }
    operands.push(Operand { name, after_o });
    Ok(())
}

/// A short option; whether it was `-o` with a field list (operands may continue it).
fn short(options: &mut Options, c: char, value: &str) -> Result<bool, Refusal> {
    match c {
        'a' | 'v' => {
            if c == 'v' {
                options.paired = false;
            }
            match value.trim_start().parse::<i64>() {
                Ok(1) => options.unpaired[0] = true,
                Ok(2) => options.unpaired[1] = true,
                _ => {
                    return Err(Refusal::Fatal(format!(
                        "invalid field number: {}",
                        quote_c(value)
                    )));
                }
            }
        }
        'e' => {
            if options.empty.as_deref().is_some_and(|e| e != value) {
                return Err(Refusal::Fatal(
                    "conflicting empty-field replacement strings".to_owned(),
                ));
            }
            options.empty = Some(value.to_owned());
        }
        'i' => options.ignore_case = true,
        'z' => options.eol = 0,
        '1' | '2' | 'j' => {
            let field = join_field(value).map_err(Refusal::Fatal)?;
            let files: &[usize] = match c {
                '1' => &[0],
                '2' => &[1],
                _ => &[0, 1],
            };
            for &file in files {
                set_join_field(&mut options.join_fields[file], field).map_err(Refusal::Fatal)?;
            }
        }
        'o' => {
            if value == "auto" {
                options.autoformat = true;
            } else {
                add_field_list(options, value).map_err(Refusal::Fatal)?;
                return Ok(true);
            }
        }
        't' => set_tab(options, value).map_err(Refusal::Fatal)?,
        _ => {}
    }
    Ok(false)
}

fn set_tab(options: &mut Options, value: &str) -> Result<(), String> {
    let bytes = value.as_bytes();
    let tab = match bytes {
        [] => b'\n', // `-t ''`: the whole line is the field.
        [one] => *one,
        _ if value == "\\0" => 0,
        _ => return Err(format!("multi-character tab {}", quote_c(value))),
    };
    if options.tab.is_some_and(|old| old != tab) {
        return Err("incompatible tabs".to_owned());
    }
    options.tab = Some(tab);
    Ok(())
}

/// A 1-based field number as a 0-based index (huge numbers saturate).
fn join_field(text: &str) -> Result<usize, String> {
    let digits = text.trim_start();
    let digits = digits.strip_prefix('+').unwrap_or(digits);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("invalid field number: {}", quote_c(text)));
    }
    match digits.parse::<usize>() {
        Ok(0) => Err(format!("invalid field number: {}", quote_c(text))),
        Ok(n) => Ok(n - 1),
        Err(_) => Ok(usize::MAX - 1),
    }
}

fn set_join_field(slot: &mut Option<usize>, field: usize) -> Result<(), String> {
    match *slot {
        Some(old) if old != field => Err(format!(
            "incompatible join fields {}, {}",
            old.saturating_add(1),
            field.saturating_add(1)
        )),
        _ => {
            *slot = Some(field);
            Ok(())
        }
    }
}

/// `-o` items (`0`, `1.3`, `2.1`) separated by commas or blanks.
fn add_field_list(options: &mut Options, list: &str) -> Result<(), String> {
    for item in list.split([',', ' ', '\t']) {
        let spec = match item.as_bytes() {
            [b'0'] => OutField { file: 0, field: 0 },
            [b'0', ..] => return Err(format!("invalid field specifier: {}", quote_c(item))),
            [file @ (b'1' | b'2'), b'.', ..] => OutField {
                file: file - b'0',
                field: join_field(&item[2..])?,
            },
            [b'1' | b'2', ..] => {
                return Err(format!("invalid field specifier: {}", quote_c(item)));
            }
            _ => {
                return Err(format!(
                    "invalid file number in field spec: {}",
                    quote_c(item)
                ));
            }
        };
        options.outlist.push(spec);
    }
    Ok(())
}

fn quote_c(value: &str) -> String {
    if value.contains('\'') {
        quote(value)
    } else {
        format!("'{value}'")
    }
}

/// One input line and its fields.
#[derive(Debug, Clone, Default)]
struct Line<'d> {
    text: &'d [u8],
    fields: Vec<&'d [u8]>,
    /// The stand-in for the missing side of an unpairable line (no fields).
    blank: bool,
}

impl Line<'_> {
    fn blank() -> Self {
        Self {
            blank: true,
            ..Self::default()
        }
    }
}

/// Lines of one input, read in order, with the number of the last one.
struct Reader<'d> {
    data: &'d [u8],
    pos: usize,
    line_no: u64,
    /// The line read before, which the next is checked against.
    previous: Option<Line<'d>>,
}

/// The check failed with `--check-order`: join stops there.
#[derive(Debug)]
struct Unsorted;

/// The state of one join.
struct Joiner<'o, 'd> {
    options: &'o Options,
    names: [&'o str; 2],
    readers: [Reader<'d>; 2],
    join_fields: [usize; 2],
    autocounts: [usize; 2],
    seen_unpairable: bool,
    warned: [bool; 2],
    out: Vec<u8>,
    messages: Vec<String>,
}

impl<'o, 'd> Joiner<'o, 'd> {
    fn new(options: &'o Options, names: [&'o str; 2], data: [&'d [u8]; 2]) -> Self {
        let reader = |data| Reader {
            data,
            pos: 0,
            line_no: 0,
            previous: None,
        };
        Self {
            options,
            names,
            readers: [reader(data[0]), reader(data[1])],
            join_fields: options.join_fields.map(|f| f.unwrap_or(0)),
            autocounts: [0, 0],
            seen_unpairable: false,
            warned: [false, false],
            out: Vec::new(),
            messages: Vec::new(),
        }
    }

    /// The join: pairs of equal keys, unpairable lines where asked for, and the
    /// rest of each input read to check its order.
    fn join(&mut self) -> Result<(), Unsorted> {
        let mut seq = [Vec::new(), Vec::new()];
        for (file, lines) in seq.iter_mut().enumerate() {
            self.advance(file, lines, true)?;
        }
        if self.options.autoformat {
            self.autocounts =
                [0, 1].map(|f| seq[f].first().map_or(0, |l: &Line<'_>| l.fields.len()));
        }
        if self.options.header && (!seq[0].is_empty() || !seq[1].is_empty()) {
            let blank = Line::blank();
            let first = seq[0].first().unwrap_or(&blank).clone();
            let second = seq[1].first().unwrap_or(&blank).clone();
            self.print(&first, &second);
            for (file, lines) in seq.iter_mut().enumerate() {
                self.readers[file].previous = None;
                if !lines.is_empty() {
                    self.advance(file, lines, true)?;
                }
            }
        }
        while !seq[0].is_empty() && !seq[1].is_empty() {
            self.join_step(&mut seq)?;
        }
        self.check_tails(&mut seq)
    }

    /// One step of the merge: an unpairable line skipped, or the lines of one key.
    fn join_step(&mut self, seq: &mut [Vec<Line<'d>>; 2]) -> Result<(), Unsorted> {
        let blank = Line::blank();
        match self.compare(&seq[0][0], &seq[1][0]) {
            Ordering::Less => {
                if self.options.unpaired[0] {
                    let line = seq[0][0].clone();
                    self.print(&line, &blank);
                }
                self.advance(0, &mut seq[0], true)?;
                self.seen_unpairable = true;
                return Ok(());
            }
            Ordering::Greater => {
                if self.options.unpaired[1] {
                    let line = seq[1][0].clone();
                    self.print(&blank, &line);
                }
                self.advance(1, &mut seq[1], true)?;
                self.seen_unpairable = true;
                return Ok(());
            }
            Ordering::Equal => {}
        }
        // All lines of each file with this key (and the next line after them).
        let mut eof = [false, false];
        for file in 0..2 {
            loop {
                if !self.advance(file, &mut seq[file], false)? {
                    eof[file] = true;
                    break;
                }
                let last = seq[file].len() - 1;
                let same = if file == 0 {
                    self.compare(&seq[0][last], &seq[1][0])
                } else {
                    self.compare(&seq[0][0], &seq[1][last])
                };
                if same != Ordering::Equal {
                    break;
                }
            }
        }
        let matched = [0, 1].map(|f| seq[f].len() - usize::from(!eof[f]));
        if self.options.paired {
            for i in 0..matched[0] {
                for j in 0..matched[1] {
                    let (first, second) = (seq[0][i].clone(), seq[1][j].clone());
                    self.print(&first, &second);
                }
            }
        }
        for file in 0..2 {
            if eof[file] {
                seq[file].clear();
            } else {
                let next = seq[file].pop();
                seq[file].clear();
                seq[file].extend(next);
            }
        }
        Ok(())
    }

    /// After the merge: the unpairable rest of each file, read also (unless both
    /// warned already) so that its order is checked.
    fn check_tails(&mut self, seq: &mut [Vec<Line<'d>>; 2]) -> Result<(), Unsorted> {
        let check_tail =
            self.options.check != CheckOrder::Disabled && !(self.warned[0] && self.warned[1]);
        let blank = Line::blank();
        for file in 0..2 {
            let unpaired = self.options.unpaired[file];
            if !(unpaired || check_tail) || seq[file].is_empty() {
                continue;
            }
            if unpaired {
                let line = seq[file][0].clone();
                self.print_unpaired(file, &line, &blank);
            }
            if !seq[1 - file].is_empty() {
                self.seen_unpairable = true;
            }
            while let Some(line) = self.next_line(file)? {
                if unpaired {
                    self.print_unpaired(file, &line, &blank);
                }
                if self.warned[file] && !unpaired {
                    break;
                }
            }
        }
        Ok(())
    }

    fn print_unpaired(&mut self, file: usize, line: &Line<'d>, blank: &Line<'d>) {
        if file == 0 {
            self.print(line, blank);
        } else {
            self.print(blank, line);
        }
    }

    /// Reads the next line of `file` onto `seq` (emptied first when `first`).
    fn advance(
        &mut self,
        file: usize,
        seq: &mut Vec<Line<'d>>,
        first: bool,
    ) -> Result<bool, Unsorted> {
        if first {
            seq.clear();
        }
        match self.next_line(file)? {
            Some(line) => {
                seq.push(line);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The next line of `file`, checked against the one before it.
    fn next_line(&mut self, file: usize) -> Result<Option<Line<'d>>, Unsorted> {
        let eol = self.options.eol;
        let reader = &mut self.readers[file];
        if reader.pos >= reader.data.len() {
            return Ok(None);
        }
        let rest = &reader.data[reader.pos..];
        let len = rest.iter().position(|&b| b == eol);
        let text = &rest[..len.unwrap_or(rest.len())];
        reader.pos += len.map_or(rest.len(), |l| l + 1);
        reader.line_no += 1;
        let line = Line {
            text,
            fields: split_fields(text, self.options.tab),
            blank: false,
        };
        if let Some(previous) = self.readers[file].previous.take() {
            self.check_order(file, &previous, &line)?;
        }
        self.readers[file].previous = Some(line.clone());
        Ok(Some(line))
    }

    fn check_order(
        &mut self,
        file: usize,
        previous: &Line<'d>,
        line: &Line<'d>,
    ) -> Result<(), Unsorted> {
        let check = self.options.check;
        let active =
            check == CheckOrder::Enabled || (check == CheckOrder::Default && self.seen_unpairable);
        if !active || self.warned[file] {
            return Ok(());
        }
        let field = self.join_fields[file];
        if self.compare_fields(previous, field, line, field) != Ordering::Greater {
            return Ok(());
        }
        self.messages.push(format!(
            "{}:{}: is not sorted: {}",
            self.names[file],
            self.readers[file].line_no,
            String::from_utf8_lossy(line.text)
        ));
        if check == CheckOrder::Enabled {
            return Err(Unsorted);
        }
        self.warned[file] = true;
        Ok(())
    }

    fn compare(&self, first: &Line<'_>, second: &Line<'_>) -> Ordering {
        self.compare_fields(first, self.join_fields[0], second, self.join_fields[1])
    }

    /// Key order: a missing or empty key sorts first; bytes, or ASCII case-folded.
    fn compare_fields(&self, a: &Line<'_>, fa: usize, b: &Line<'_>, fb: usize) -> Ordering {
        let key_a = a.fields.get(fa).copied().unwrap_or_default();
        let key_b = b.fields.get(fb).copied().unwrap_or_default();
        match (key_a.is_empty(), key_b.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        if self.options.ignore_case {
            let upper = |k: &[u8]| k.iter().map(u8::to_ascii_uppercase).collect::<Vec<_>>();
            upper(key_a).cmp(&upper(key_b))
        } else {
            key_a.cmp(key_b)
        }
    }

    /// An output line for a pair (either side may be the blank line).
    fn print(&mut self, first: &Line<'_>, second: &Line<'_>) {
        let separator = self.options.tab.unwrap_or(b' ');
        let (key_line, key_field) = if first.blank {
            (second, self.join_fields[1])
        } else {
            (first, self.join_fields[0])
        };
        if self.options.outlist.is_empty() {
            self.field(key_line, key_field);
            for (file, line) in [first, second].into_iter().enumerate() {
                let count = if self.options.autoformat {
                    self.autocounts[file]
                } else {
                    line.fields.len()
                };
                let join_field = self.join_fields[file];
                for i in (0..count).filter(|i| *i != join_field) {
                    self.out.push(separator);
                    self.field(line, i);
                }
            }
        } else {
            for (i, spec) in self.options.outlist.iter().enumerate() {
                if i > 0 {
                    self.out.push(separator);
                }
                let (line, field) = match spec.file {
                    0 => (key_line, key_field),
                    1 => (first, spec.field),
                    _ => (second, spec.field),
                };
                self.field(line, field);
            }
        }
        self.out.push(self.options.eol);
    }

    /// A field, or the `-e` text when it is missing or empty.
    fn field(&mut self, line: &Line<'_>, index: usize) {
        match line.fields.get(index) {
            Some(field) if !field.is_empty() => self.out.extend_from_slice(field),
            _ => {
                if let Some(empty) = &self.options.empty {
                    self.out.extend_from_slice(empty.as_bytes());
                }
            }
        }
    }
}

/// Fields split at `tab`, or at runs of blanks (leading ones
/// skipped, a trailing run leaving an empty last field); `\n` keeps the line whole.
fn split_fields(text: &[u8], tab: Option<u8>) -> Vec<&[u8]> {
    if text.is_empty() {
        return Vec::new();
    }
    match tab {
        Some(b'\n') => vec![text],
        Some(tab) => text.split(|&b| b == tab).collect(),
        None => {
            let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n');
            let mut fields = Vec::new();
            let mut start = match text.iter().position(|b| !blank(b)) {
                Some(start) => start,
                None => return fields,
            };
            loop {
                let end = text[start..]
                    .iter()
                    .position(blank)
                    .map_or(text.len(), |i| start + i);
                fields.push(&text[start..end]);
                if end == text.len() {
                    return fields;
                }
                match text[end..].iter().position(|b| !blank(b)) {
                    Some(i) => start = end + i,
                    None => {
                        fields.push(&text[text.len()..]);
                        return fields;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
