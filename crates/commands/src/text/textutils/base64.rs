//! `base64`: encodes (wrapped at 76 columns, or `-w N`, `-w 0` for none) or decodes
//! (`-d`, newlines skipped, `-i` to skip everything outside the alphabet) standard
//! input or one file, as GNU does: on bad input it writes what decoded before it and
//! fails with `base64: invalid input`.

use super::{InputError, Inputs, print_and_exit};
use crate::options::{Arg, HELP_VERSION, Invocation, Parser, Spec, Value, version};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) struct Base64 {
    pub fs: Arc<SandboxFs>,
}

const SPEC: Spec = Spec {
    short: "diw:",
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

#[derive(Debug)]
struct Options<'a> {
    decode: bool,
    ignore_garbage: bool,
    wrap: usize,
    operand: &'a str,
}

#[async_trait::async_trait]
impl crate::Command for Base64 {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse(ctx.args) {
            Ok(Invocation::Run(options)) => options,
            Ok(Invocation::Print(text)) => return print_and_exit(&ctx, &text).await,
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

async fn fail(ctx: &Context<'_>, message: &str) -> crate::Result<Status> {
    ctx.stderr
        .write_all(format!("base64: {message}\n").as_bytes())
        .await?;
    Ok(Status::with_code(1))
}

fn parse(args: &[String]) -> Result<Invocation<Options<'_>>, Error> {
    let mut options = Options {
        decode: false,
        ignore_garbage: false,
        wrap: 76,
        operand: "-",
    };
    let mut operands = Vec::new();
    for arg in Parser::new(&SPEC, args)
        .collect()
        .map_err(|err| Error::Usage(err.into()))?
    {
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
            Arg::Long("help", _) => return Ok(Invocation::Print(format!("{HELP}{HELP_VERSION}"))),
            Arg::Long("version", _) => return Ok(Invocation::Print(version("base64"))),
            Arg::Short(..) | Arg::Long(..) => {}
        }
    }
    if let Some(extra) = operands.get(1) {
        return Err(Error::Usage(format!("extra operand {}", quote_c(extra))));
    }
    if let Some(operand) = operands.first() {
        options.operand = operand;
    }
    Ok(Invocation::Run(options))
}

fn quote_c(value: &str) -> String {
    if value.contains('\'') {
        quote(value)
    } else {
        format!("'{value}'")
    }
}

/// The codec: the standard alphabet, and (as gnulib) the unused low bits of a last
/// character need not be zero.
const CODEC: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// `data` in base64, with a newline after every `wrap` characters and at the end
/// (none at all when `wrap` is 0).
fn encode(data: &[u8], wrap: usize) -> Vec<u8> {
    let text = CODEC.encode(data).into_bytes();
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

fn in_alphabet(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
}

/// The bytes `text` decodes to, and whether all of it was valid. As gnulib decodes:
/// newlines are skipped (and, with `ignore_garbage`, every byte outside the alphabet
/// and `=`); each group of four decodes as far as it is valid.
fn decode(text: &[u8], ignore_garbage: bool) -> (Vec<u8>, bool) {
    let kept: Vec<u8> = text
        .iter()
        .copied()
        .filter(|&c| c != b'\n')
        .filter(|&c| !ignore_garbage || c == b'=' || in_alphabet(c))
        .collect();
    let mut out = Vec::with_capacity(kept.len() / 4 * 3 + 2);
    for group in kept.chunks(4) {
        if !decode_group(group, &mut out) {
            return (out, false);
        }
    }
    (out, true)
}

/// One group of (up to) four characters into `out`; false where it stops being valid
/// (the bytes its valid start decodes to stay, as gnulib leaves them).
fn decode_group(group: &[u8], out: &mut Vec<u8>) -> bool {
    let letters = group.iter().take_while(|&&c| in_alphabet(c)).count();
    let padding = &group[letters..];
    // Whole: four letters, or two or three with `=` up to four.
    let whole = group.len() == 4 && letters >= 2 && padding.iter().all(|&c| c == b'=');
    // A single letter decodes to nothing (the codec calls it an invalid length).
    if letters >= 2 {
        match CODEC.decode(&group[..letters]) {
            Ok(bytes) => out.extend_from_slice(&bytes),
            Err(_) => return false,
        }
    }
    whole
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
        // The low bits of a last character need not be zero; `=` mid-stream ends a group.
        assert_eq!(decode(b"YR==", false), (b"a".to_vec(), true));
        assert_eq!(decode(b"YQ=x", false), (b"a".to_vec(), false));
        assert_eq!(decode(b"Y===", false), (Vec::new(), false));
    }
}
