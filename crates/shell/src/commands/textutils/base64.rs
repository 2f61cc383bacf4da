//! `base64`: encodes (wrapped at 76 columns, or `-w N`, `-w 0` for none) or decodes
//! (`-d`, newlines skipped, `-i` to skip everything outside the alphabet) standard
//! input or one file, as GNU does: on bad input it writes what decoded before it and
//! fails with `base64: invalid input`.

use super::args::{Arg, HELP_VERSION, Parser, Spec, Value, version};
use super::{InputError, Inputs, print_and_exit};
use crate::commands::util::{Output, quote, usage_error};
use bashkit::{CommandContext, CommandStatus};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) struct Base64 {
    pub fs: Arc<SandboxFs>,
}

const SPEC: Spec = Spec {
    flags: "di",
    valued: "w",
    long: &[
        ("decode", Value::No),
        ("ignore-garbage", Value::No),
        ("wrap", Value::Required),
        ("help", Value::No),
        ("version", Value::No),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const HELP: &str = "Usage: base64 [OPTION]... [FILE]
Base64 encode or decode FILE, or standard input, to standard output.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -d, --decode          decode data
  -i, --ignore-garbage  when decoding, ignore non-alphabet characters
  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).
                          Use 0 to disable line wrapping
";

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[derive(Debug)]
struct Options<'a> {
    decode: bool,
    ignore_garbage: bool,
    wrap: usize,
    operand: &'a str,
}

#[bashkit::async_trait]
impl bashkit::Command for Base64 {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let options = match parse(ctx.args) {
            Ok(Ok(options)) => options,
            Ok(Err(text)) => return print_and_exit(&ctx, &text).await,
            Err(Error::Usage(message)) => return usage_error(&ctx, &message, 1).await,
            Err(Error::Plain(message)) => return fail(&ctx, &message).await,
        };
        let mut inputs = Inputs::new(&self.fs, &ctx);
        let data = match inputs.read(options.operand).await? {
            Ok(data) => data,
            Err(InputError::Open(reason)) => {
                return fail(&ctx, &format!("{}: {reason}", quote(options.operand))).await;
            }
            Err(InputError::Read(reason)) => {
                return fail(&ctx, &format!("read error: {reason}")).await;
            }
        };
        let mut out = Output::new(&ctx);
        if !options.decode {
            out.out(encode(&data, options.wrap)).await?;
            return out.finish(0).await;
        }
        let (decoded, valid) = decode(&data, options.ignore_garbage);
        out.out(decoded).await?;
        if !valid {
            out.err("base64: invalid input\n").await?;
        }
        out.finish(i32::from(!valid)).await
    }
}

enum Error {
    Usage(String),
    Plain(String),
}

async fn fail(ctx: &CommandContext<'_>, message: &str) -> bashkit::Result<CommandStatus> {
    ctx.stderr
        .write_all(format!("base64: {message}\n").as_bytes())
        .await?;
    Ok(CommandStatus::with_code(1))
}

fn parse(args: &[String]) -> Result<Result<Options<'_>, String>, Error> {
    let mut options = Options {
        decode: false,
        ignore_garbage: false,
        wrap: 76,
        operand: "-",
    };
    let mut operands = Vec::new();
    for arg in Parser::new(&SPEC, args).collect().map_err(Error::Usage)? {
        match arg {
            Arg::Operand(operand) => operands.push(operand),
            Arg::Short('d', _) | Arg::Long("decode", _) => options.decode = true,
            Arg::Short('i', _) | Arg::Long("ignore-garbage", _) => options.ignore_garbage = true,
            Arg::Short('w', value) | Arg::Long("wrap", value) => {
                let value = value.unwrap_or_default();
                options.wrap = value
                    .trim_start()
                    .parse()
                    .map_err(|_| Error::Plain(format!("invalid wrap size: {}", quote_c(value))))?;
            }
            Arg::Long("help", _) => return Ok(Err(format!("{HELP}{HELP_VERSION}"))),
            Arg::Long("version", _) => return Ok(Err(version("base64"))),
            Arg::Short(..) | Arg::Long(..) => {}
        }
    }
    if let Some(extra) = operands.get(1) {
        return Err(Error::Usage(format!("extra operand {}", quote_c(extra))));
    }
    if let Some(operand) = operands.first() {
        options.operand = operand;
    }
    Ok(Ok(options))
}

fn quote_c(value: &str) -> String {
    if value.contains('\'') {
        quote(value)
    } else {
        format!("'{value}'")
    }
}

/// `data` in base64, with a newline after every `wrap` characters and at the end
/// (none at all when `wrap` is 0).
fn encode(data: &[u8], wrap: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                text.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]);
            } else {
                text.push(b'=');
            }
        }
    }
    if wrap == 0 || text.is_empty() {
        return text;
    }
    let mut wrapped = Vec::with_capacity(text.len() + text.len() / wrap + 1);
    for line in text.chunks(wrap) {
        wrapped.extend_from_slice(line);
        wrapped.push(b'\n');
    }
    wrapped
}

/// The value of a base64 character.
fn value_of(c: u8) -> Option<u32> {
    let value = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// The bytes `text` decodes to, and whether all of it was valid. As gnulib decodes:
/// newlines are skipped (and, with `ignore_garbage`, every byte outside the alphabet
/// and `=`); each group of four decodes as far as it is valid.
fn decode(text: &[u8], ignore_garbage: bool) -> (Vec<u8>, bool) {
    let kept: Vec<u8> = text
        .iter()
        .copied()
        .filter(|&c| c != b'\n')
        .filter(|&c| !ignore_garbage || c == b'=' || value_of(c).is_some())
        .collect();
    let mut out = Vec::with_capacity(kept.len() / 4 * 3 + 2);
    for group in kept.chunks(4) {
        if !decode_group(group, &mut out) {
            return (out, false);
        }
    }
    (out, true)
}

/// One group of (up to) four characters into `out`; false where it stops being
/// valid (the bytes decoded before that stay).
fn decode_group(group: &[u8], out: &mut Vec<u8>) -> bool {
    let value = |i: usize| group.get(i).and_then(|&c| value_of(c));
    let (Some(a), Some(b)) = (value(0), value(1)) else {
        return false;
    };
    out.push(((a << 2) | (b >> 4)) as u8);
    match group.get(2) {
        None => return false,
        Some(b'=') => return group.len() == 4 && group[3] == b'=',
        Some(_) => {}
    }
    let Some(c) = value(2) else {
        return false;
    };
    out.push((((b << 4) & 0xf0) | (c >> 2)) as u8);
    match group.get(3) {
        None => false,
        Some(b'=') => true,
        Some(_) => match value(3) {
            Some(d) => {
                out.push((((c << 6) & 0xc0) | d) as u8);
                true
            }
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_wraps() {
        assert_eq!(encode(b"hello world", 76), b"aGVsbG8gd29ybGQ=\n");
        assert_eq!(encode(b"abc", 2), b"YW\nJj\n");
        assert_eq!(encode(b"", 76), b"");
        assert_eq!(encode(b"a", 0), b"YQ==");
    }

    #[test]
    fn decodes_like_gnulib() {
        assert_eq!(
            decode(b"aGVsbG8gd29ybGQ=\n", false),
            (b"hello world".to_vec(), true)
        );
        assert_eq!(decode(b"YQ==YQ==", false), (b"aa".to_vec(), true));
        assert_eq!(decode(b"YWJ", false), (b"ab".to_vec(), false));
        assert_eq!(decode(b"YW Jj", false), (b"a".to_vec(), false));
        assert_eq!(decode(b"YQ=", false), (b"a".to_vec(), false));
        assert_eq!(decode(b"=", false), (Vec::new(), false));
        assert_eq!(decode(b"Y!WJj", true), (b"abc".to_vec(), true));
        assert!(!decode(b"not base64!!\n", false).1);
    }
}
