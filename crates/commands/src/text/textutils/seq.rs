//! `seq`: numbers from FIRST (1) by INCREMENT (1) to LAST, with GNU's choice of
//! precision and width from how the operands are written (`seq 0 0.25 1` prints
//! `0.00`), `-w` padding, `-s` separators and `-f` printf formats.

use super::float_format::FloatSpec;
use super::print_and_exit;
use crate::options::{Arg, HELP_VERSION, Invocation, Parser, Spec, Value, version};
use crate::printf::Field;
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};

pub(crate) struct Seq;

const SPEC: Spec = Spec {
    short: "wf:s:",
    long: &[
        ("format", Value::Required),
        ("separator", Value::Required),
        ("equal-width", Value::No),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: true,
    negative_numbers: true,
};

const HELP: &str = "Usage: seq [OPTION]... LAST
  or:  seq [OPTION]... FIRST LAST
  or:  seq [OPTION]... FIRST INCREMENT LAST
Print numbers from FIRST to LAST, in steps of INCREMENT.

Mandatory arguments to long options are mandatory for short options too.
  -f, --format=FORMAT      use printf style floating-point FORMAT
  -s, --separator=STRING   use STRING to separate numbers (default: \\n)
  -w, --equal-width        equalize width by padding with leading zeroes
";

/// An operand, with the width and precision its spelling implies.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Operand {
    value: f64,
    width: usize,
    /// Digits after the point; `None` when unknown (hex floats: `%g` is used).
    precision: Option<usize>,
}

const ONE: Operand = Operand {
    value: 1.0,
    width: 1,
    precision: Some(0),
};

/// How a run ends early: a usage error (with the Try line) or a plain one.
enum Failure {
    Usage(String),
    Plain(String),
}

/// A `-f` format: text around one floating-point directive.
#[derive(Debug, Clone, PartialEq)]
struct Format {
    prefix: String,
    spec: FloatSpec,
    suffix: String,
}

impl Format {
    fn render(&self, value: f64) -> String {
        format!("{}{}{}", self.prefix, self.spec.format(value), self.suffix)
    }

    /// `%.{precision}f`, zero-padded to `width` when given.
    fn fixed(precision: usize, width: Option<usize>) -> Self {
        Self::bare(FloatSpec {
            field: Field {
                zero: width.is_some(),
                width: width.unwrap_or(0),
                precision: Some(precision),
                ..Field::default()
            },
            conversion: 'f',
        })
    }

    fn bare(spec: FloatSpec) -> Self {
        Self {
            prefix: String::new(),
            spec,
            suffix: String::new(),
        }
    }
}

#[derive(Debug)]
struct Options<'a> {
    format: Option<&'a str>,
    separator: &'a str,
    equal_width: bool,
    operands: Vec<&'a str>,
}

#[async_trait::async_trait]
impl crate::Command for Seq {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse(ctx.args) {
            Ok(Invocation::Run(options)) => options,
            Ok(Invocation::Print(text)) => return print_and_exit(&ctx, &text).await,
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        match plan(&options) {
            Ok(plan) => run(&ctx, &options, plan).await,
            Err(Failure::Usage(message)) => usage_error(&ctx, &message, 1).await,
            Err(Failure::Plain(message)) => {
                ctx.stderr
                    .write_all(format!("seq: {message}\n").as_bytes())
                    .await?;
                Ok(Status::with_code(1))
            }
        }
    }
}

fn parse(args: &[String]) -> Result<Invocation<Options<'_>>, String> {
    let mut options = Options {
        format: None,
        separator: "\n",
        equal_width: false,
        operands: Vec::new(),
    };
    for arg in Parser::new(&SPEC, args).collect()? {
        match arg {
            Arg::Operand(operand) => options.operands.push(operand),
            Arg::Short('f', value) | Arg::Long("format", value) => options.format = value,
            Arg::Short('s', value) | Arg::Long("separator", value) => {
                options.separator = value.unwrap_or_default();
            }
            Arg::Short('w', _) | Arg::Long("equal-width", _) => options.equal_width = true,
            Arg::Long("help", _) => return Ok(Invocation::Print(format!("{HELP}{HELP_VERSION}"))),
            Arg::Long("version", _) => return Ok(Invocation::Print(version("seq"))),
            Arg::Short(..) | Arg::Long(..) => {}
        }
    }
    Ok(Invocation::Run(options))
}

/// What to print.
enum Plan {
    /// Non-negative integers, exactly (GNU's fast path handles any size).
    Integers { first: u128, step: u128, last: u128 },
    Floats {
        first: f64,
        step: f64,
        last: f64,
        format: Format,
    },
}

/// The numbers and their format, with GNU's checks in GNU's order.
fn plan(options: &Options<'_>) -> Result<Plan, Failure> {
    let operands = &options.operands;
    match operands.len() {
        0 => return Err(Failure::Usage("missing operand".to_owned())),
        1..=3 => {}
        _ => {
            return Err(Failure::Usage(format!(
                "extra operand {}",
                quote_c(operands[3])
            )));
        }
    }
    let format = options.format.map(parse_format).transpose()?;
    if format.is_some() && options.equal_width {
        return Err(Failure::Usage(
            "format string may not be specified when printing equal width strings".to_owned(),
        ));
    }
    let mut scanned = Vec::with_capacity(3);
    for (i, text) in operands.iter().enumerate() {
        let operand = scan(text)?;
        if i == 1 && operands.len() == 3 && operand.value == 0.0 {
            return Err(Failure::Usage(format!(
                "invalid Zero increment value: {}",
                quote_c(text)
            )));
        }
        scanned.push(operand);
    }
    let (first, step, last) = match scanned.as_slice() {
        [last] => (ONE, ONE, *last),
        [first, last] => (*first, ONE, *last),
        [first, step, last] => (*first, *step, *last),
        _ => return Err(Failure::Usage("missing operand".to_owned())),
    };
    if format.is_none()
        && !options.equal_width
        && let Some(plan) = integers(operands)
    {
        return Ok(plan);
    }
    let format = format.unwrap_or_else(|| default_format(first, step, last, options.equal_width));
    Ok(Plan::Floats {
        first: first.value,
        step: step.value,
        last: last.value,
        format,
    })
}

/// Operands that are all plain digits (and a positive step), as exact integers.
fn integers(operands: &[&str]) -> Option<Plan> {
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !operands.iter().all(|s| all_digits(s)) {
        return None;
    }
    let values: Vec<u128> = operands
        .iter()
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    let (first, step, last) = match values.as_slice() {
        [last] => (1, 1, *last),
        [first, last] => (*first, 1, *last),
        [first, step, last] => (*first, *step, *last),
        _ => return None,
    };
    (step > 0).then_some(Plan::Integers { first, step, last })
}

/// GNU's default: as many decimals as FIRST and INCREMENT have (`%.Nf`), zero-padded
/// to the widest of FIRST and LAST with `-w`; `%g` when a precision is unknown.
fn default_format(first: Operand, step: Operand, last: Operand, equal_width: bool) -> Format {
    let general = Format::bare(FloatSpec {
        conversion: 'g',
        ..FloatSpec::default()
    });
    let (Some(first_precision), Some(step_precision), Some(last_precision)) =
        (first.precision, step.precision, last.precision)
    else {
        return general;
    };
    let precision = first_precision.max(step_precision);
    if !equal_width {
        return Format::fixed(precision, None);
    }
    let mut first_width = first.width.saturating_add(precision - first_precision);
    let mut last_width = last
        .width
        .saturating_add(precision)
        .saturating_sub(last_precision);
    if last_precision > 0 && precision == 0 {
        last_width = last_width.saturating_sub(1);
    }
    if last_precision == 0 && precision > 0 {
        last_width = last_width.saturating_add(1);
    }
    if first_precision == 0 && precision > 0 {
        first_width = first_width.saturating_add(1);
    }
    let width = first_width.max(last_width);
    if width > i32::MAX as usize {
        return general;
    }
    Format::fixed(precision, Some(width))
}

/// An operand as GNU seq reads it: the value, and the width and precision
/// its spelling implies (`1.50` has 2 decimals, `1e-3` has 3, `-.5` is as wide as
/// `-0.5`).
fn scan(text: &str) -> Result<Operand, Failure> {
    let Some(value) = parse_float(text) else {
        return Err(Failure::Usage(format!(
            "invalid floating point argument: {}",
            quote_c(text)
        )));
    };
    if value.is_nan() {
        return Err(Failure::Usage(format!(
            "invalid 'not-a-number' argument: {}",
            quote_c(text)
        )));
    }
    let arg = text.trim_start_matches(|c: char| is_c_space(c) || c == '+');
    let point = arg.find('.');
    let mut precision = if point.is_none() && !arg.contains('p') {
        Some(0)
    } else {
        None
    };
    let mut width = 0;
    if !arg.contains(['x', 'X']) && value.is_finite() {
        let bytes = arg.as_bytes();
        width = arg.len() as i64;
        let mut fraction_len = 0;
        if let Some(point) = point {
            fraction_len = arg[point + 1..]
                .find(['e', 'E'])
                .unwrap_or(arg.len() - point - 1);
            precision = Some(fraction_len);
            width += if fraction_len == 0 {
                -1
            } else {
                i64::from(point == 0 || !bytes[point - 1].is_ascii_digit())
            };
        }
        if let Some(e) = arg.find(['e', 'E']) {
            let exponent: i64 = leading_integer(&arg[e + 1..]);
            let current = precision.unwrap_or(0) as i64;
            let adjusted = if exponent < 0 {
                current.saturating_sub(exponent)
            } else {
                current - current.min(exponent)
            };
            precision = Some(usize::try_from(adjusted).unwrap_or(0));
            width -= (arg.len() - e) as i64;
            let mut exponent = exponent;
            if exponent < 0 {
                match point {
                    Some(point) if e == point + 1 => width += 1,
                    Some(_) => {}
                    None => width += 1,
                }
                exponent = exponent.saturating_neg();
            } else {
                if point.is_some() && precision == Some(0) && fraction_len > 0 {
                    width -= 1;
                }
                exponent -= exponent.min(fraction_len as i64);
            }
            width = width.saturating_add(exponent);
        }
    }
    Ok(Operand {
        value,
        width: usize::try_from(width).unwrap_or(0),
        precision,
    })
}

/// The integer at the start of `text` (strtol's reading of an exponent).
fn leading_integer(text: &str) -> i64 {
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '+' || c == '-'))))
        .map_or(text.len(), |(i, _)| i);
    let digits = &text[..end];
    // strtol saturates (and GNU then keeps the exponent above -LONG_MAX).
    digits.parse().unwrap_or(if digits.starts_with('-') {
        -i64::MAX
    } else if digits.bytes().any(|b| b.is_ascii_digit()) {
        i64::MAX
    } else {
        0
    })
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// A number as `strtold` reads it, all of `text`: decimal or hex, `inf`, `nan`.
pub(super) fn parse_float(text: &str) -> Option<f64> {
    let text = text.trim_start_matches(is_c_space);
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if unsigned.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = match unsigned.get(..2) {
        Some(prefix) if prefix.eq_ignore_ascii_case("0x") => parse_hex(&unsigned[2..])?,
        _ if unsigned.to_ascii_lowercase().starts_with("nan") => {
            let rest = &unsigned[3..];
            let payload = rest.is_empty()
                || (rest.starts_with('(')
                    && rest.ends_with(')')
                    && rest[1..rest.len() - 1]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_'));
            payload.then_some(f64::NAN)?
        }
        _ => unsigned.parse::<f64>().ok()?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The digits of a hex float after `0x`: `1f`, `1.8`, `1p-3`.
fn parse_hex(text: &str) -> Option<f64> {
    let (mantissa, exponent) = match text.find(['p', 'P']) {
        Some(p) => (&text[..p], Some(&text[p + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut value = 0.0f64;
    for c in whole.chars() {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in fraction.chars() {
        value += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    if let Some(exponent) = exponent {
        let valid = !exponent.is_empty()
            && exponent
                .trim_start_matches(['+', '-'])
                .bytes()
                .all(|b| b.is_ascii_digit())
            && exponent.trim_start_matches(['+', '-']).len() + 1 >= exponent.len();
        if !valid {
            return None;
        }
        let power: i32 = exponent.parse().unwrap_or(if exponent.starts_with('-') {
            i32::MIN
        } else {
            i32::MAX
        });
        value *= 2f64.powi(power);
    }
    Some(value)
}

/// A `-f` format, checked as GNU seq checks it.
fn parse_format(text: &str) -> Result<Format, Failure> {
    let plain = |message: String| Failure::Plain(message);
    let bytes = text.as_bytes();
    let mut prefix = String::new();
    let mut i = 0;
    // Text up to the directive; `%%` is a literal percent sign.
    loop {
        match bytes.get(i) {
            None => {
                return Err(plain(format!(
                    "format {} has no % directive",
                    quote_c(text)
                )));
            }
            Some(b'%') if bytes.get(i + 1) == Some(&b'%') => {
                prefix.push('%');
                i += 2;
            }
            Some(b'%') => break,
            Some(_) => {
                let c = text[i..].chars().next().unwrap_or('\u{fffd}');
                prefix.push(c);
                i += c.len_utf8();
            }
        }
    }
    let (field, next) = Field::parse(bytes, i + 1);
    let mut spec = FloatSpec {
        field,
        ..FloatSpec::default()
    };
    i = next;
    if bytes.get(i) == Some(&b'L') {
        i += 1;
    }
    let Some(conversion) = text[i..].chars().next() else {
        return Err(plain(format!("format {} ends in %", quote_c(text))));
    };
    if !"efgaEFGA".contains(conversion) {
        return Err(plain(format!(
            "format {} has unknown %{conversion} directive",
            quote_c(text)
        )));
    }
    spec.conversion = conversion;
    i += conversion.len_utf8();
    let mut suffix = String::new();
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if bytes.get(i + 1) != Some(&b'%') {
                return Err(plain(format!(
                    "format {} has too many % directives",
                    quote_c(text)
                )));
            }
            suffix.push('%');
            i += 2;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or('\u{fffd}');
        suffix.push(c);
        i += c.len_utf8();
    }
    Ok(Format {
        prefix,
        spec,
        suffix,
    })
}

/// `value` quoted as GNU seq quotes a format in its messages.
fn quote_c(value: &str) -> String {
    if value.contains('\'') {
        quote(value)
    } else {
        format!("'{value}'")
    }
}

async fn run(ctx: &Context<'_>, options: &Options<'_>, plan: Plan) -> crate::Result<Status> {
    let mut out = Output::new(ctx);
    let separator = options.separator;
    let mut printed = false;
    match plan {
        Plan::Integers { first, step, last } => {
            let mut x = Some(first);
            while let Some(value) = x.filter(|v| *v <= last) {
                if printed {
                    out.out(separator).await?;
                }
                out.out(value.to_string()).await?;
                printed = true;
                x = value.checked_add(step);
            }
        }
        Plan::Floats {
            first,
            step,
            last,
            format,
        } => {
            let past = |x: f64| if step < 0.0 { x < last } else { last < x };
            let mut x = first;
            let mut i = 1.0f64;
            while !past(x) {
                if printed {
                    out.out(separator).await?;
                }
                out.out(format.render(x)).await?;
                printed = true;
                let previous = x;
                x = first + i * step;
                i += 1.0;
                if past(x) && prints_as_last(&format, x, previous, last) {
                    out.out(separator).await?;
                    out.out(format.render(x)).await?;
                    break;
                }
            }
        }
    }
    if printed {
        out.out("\n").await?;
    }
    out.finish(0).await
}

/// GNU prints one number past LAST when rounding makes it print as LAST and unlike the
/// number before it (`seq 0 0.1 0.3` must end with 0.3).
fn prints_as_last(format: &Format, x: f64, previous: f64, last: f64) -> bool {
    let number = format.spec.format(x);
    parse_float(&number) == Some(last) && number != format.spec.format(previous)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> (usize, Option<usize>) {
        match scan(text) {
            Ok(op) => (op.width, op.precision),
            Err(_) => (usize::MAX, None),
        }
    }

    #[test]
    fn operand_shapes() {
        assert_eq!(shape("10"), (2, Some(0)));
        assert_eq!(shape("0.25"), (4, Some(2)));
        assert_eq!(shape("-.5"), (4, Some(1)));
        assert_eq!(shape("1."), (1, Some(0)));
        assert_eq!(shape("1e3"), (4, Some(0)));
        assert_eq!(shape("1.5e-3"), (6, Some(4)));
        assert_eq!(shape("+5"), (1, Some(0)));
        assert_eq!(shape("0x1.8"), (0, None));
    }

    #[test]
    fn floats_as_strtold() {
        assert_eq!(parse_float(" 5"), Some(5.0));
        assert_eq!(parse_float("0x10"), Some(16.0));
        assert_eq!(parse_float("0x1.8p1"), Some(3.0));
        assert_eq!(parse_float("-inf"), Some(f64::NEG_INFINITY));
        assert!(parse_float("nan").is_some_and(f64::is_nan));
        assert_eq!(parse_float("1e"), None);
        assert_eq!(parse_float("x"), None);
        assert_eq!(parse_float("--1"), None);
        assert_eq!(parse_float(""), None);
    }

    #[test]
    fn formats() {
        let format = parse_format("file%03g.txt").ok();
        assert_eq!(
            format.map(|f| f.render(7.0)),
            Some("file007.txt".to_owned())
        );
        assert!(
            matches!(parse_format("%d"), Err(Failure::Plain(m)) if m == "format '%d' has unknown %d directive")
        );
        assert!(
            matches!(parse_format("a%%"), Err(Failure::Plain(m)) if m == "format 'a%%' has no % directive")
        );
        assert!(
            matches!(parse_format("%g%g"), Err(Failure::Plain(m)) if m == "format '%g%g' has too many % directives")
        );
        assert!(matches!(parse_format("%"), Err(Failure::Plain(m)) if m == "format '%' ends in %"));
        let percent = parse_format("%g%%").ok();
        assert_eq!(percent.map(|f| f.render(5.0)), Some("5%".to_owned()));
    }
}
