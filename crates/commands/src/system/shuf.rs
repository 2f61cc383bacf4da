//! `shuf` (GNU coreutils): lines of a file or stdin (`-e ARG...`: the arguments; `-i
//! LO-HI`: the numbers) in random order; `-n COUNT` of them, `-r` drawing with
//! replacement, `-z` for NUL-ended lines, `-o FILE`, and `--random-source=FILE` for
//! reproducible orders. Otherwise the bytes come from the sandbox's source (so a replay
//! gives the same order).

use crate::entropy::Entropy;
use crate::options::{HELP, Long, Parser, Spec, VERSION, Value};
use crate::util::{Files, Output, print_info, read_stdin, strerror, usage_error};
use crate::{Context, Registry, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, entropy: &Arc<Entropy>) -> Registry {
    builder.command(
        "shuf",
        Shuf {
            fs: fs.clone(),
            entropy: entropy.clone(),
        },
    )
}

struct Shuf {
    fs: Arc<SandboxFs>,
    entropy: Arc<Entropy>,
}

/// The most lines `-r` prints (GNU prints forever without `-n`; a sandbox stops).
const MAX_REPEATS: u64 = 1_000_000;
/// The most numbers `-i` shuffles (each is held in memory).
const MAX_RANGE: u64 = 10_000_000;

const SPEC: Spec<Long> = Spec {
    short: "erzi:n:o:",
    long: &[
        ("echo", Value::No, 'e'),
        ("input-range", Value::Required, 'i'),
        ("head-count", Value::Required, 'n'),
        ("output", Value::Required, 'o'),
        ("random-source", Value::Required, RANDOM_SOURCE),
        ("repeat", Value::No, 'r'),
        ("zero-terminated", Value::No, 'z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// The key of `--random-source`, which has no short letter.
const RANDOM_SOURCE: char = 'R';

const USAGE: &str = "\
Usage: shuf [OPTION]... [FILE]
  or:  shuf -e [OPTION]... [ARG]...
  or:  shuf -i LO-HI [OPTION]...
Write a random permutation of the input lines to standard output.

  -e, --echo                treat each ARG as an input line
  -i, --input-range=LO-HI   treat each number LO through HI as an input line
  -n, --head-count=COUNT    output at most COUNT lines
  -o, --output=FILE         write result to FILE instead of standard output
      --random-source=FILE  get random bytes from FILE
  -r, --repeat              output lines can be repeated
  -z, --zero-terminated     line delimiter is NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
";

#[derive(Default)]
struct Options<'a> {
    echo: bool,
    range: Option<(u64, u64)>,
    count: Option<u64>,
    output: Option<&'a str>,
    random_source: Option<&'a str>,
    repeat: bool,
    zero: bool,
    operands: Vec<&'a str>,
}

enum Parsed<'a> {
    Run(Options<'a>),
    Help,
    Version,
}

fn parse_range(text: &str) -> Result<(u64, u64), String> {
    let bad = |part: &str| format!("invalid input range: '{part}'");
    let (lo, hi) = text.split_once('-').ok_or_else(|| bad(text))?;
    let (lo, hi) = (
        lo.parse::<u64>().map_err(|_| bad(lo))?,
        hi.parse::<u64>().map_err(|_| bad(hi))?,
    );
    if hi.checked_add(1).is_none() || lo > hi + 1 {
        return Err(bad(text));
    }
    Ok((lo, hi))
}

fn parse_args(args: &[String]) -> Result<Parsed<'_>, String> {
    let mut options = Options::default();
    let count = |text: &str| {
        text.parse::<u64>()
            .map_err(|_| format!("invalid line count: '{text}'"))
    };
    let mut parser = Parser::new(&SPEC, args);
    while let Some((key, value)) = parser.next_option(&mut options.operands)? {
        let value = value.unwrap_or_default();
        match key {
            'e' => options.echo = true,
            'r' => options.repeat = true,
            'z' => options.zero = true,
            'i' => options.range = Some(parse_range(value)?),
            'n' => options.count = Some(count(value)?.min(options.count.unwrap_or(u64::MAX))),
            'o' => options.output = Some(value),
            RANDOM_SOURCE => options.random_source = Some(value),
            HELP => return Ok(Parsed::Help),
            _ => return Ok(Parsed::Version),
        }
    }
    if options.echo && options.range.is_some() {
        return Err("cannot combine -e and -i options".into());
    }
    if options.range.is_some() && !options.operands.is_empty() {
        return Err(format!("extra operand '{}'", options.operands[0]));
    }
    if !options.echo && options.operands.len() > 1 {
        return Err(format!("extra operand '{}'", options.operands[1]));
    }
    Ok(Parsed::Run(options))
}

/// Random numbers from the sandbox's source, or from the bytes of `--random-source`.
enum Source<'a> {
    Sandbox(&'a Entropy),
    Bytes(Vec<u8>, usize),
}

impl Source<'_> {
    fn below(&mut self, bound: u64) -> Result<u64, String> {
        match self {
            Source::Sandbox(entropy) => entropy.below(bound),
            Source::Bytes(bytes, at) => {
                let zone = u64::MAX - (u64::MAX % bound);
                loop {
                    let Some(chunk) = bytes.get(*at..*at + 8) else {
                        return Err("end of file".into());
                    };
                    *at += 8;
                    let n = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
                    if n < zone {
                        return Ok(n % bound);
                    }
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl crate::Command for Shuf {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse_args(ctx.args) {
            Ok(Parsed::Run(options)) => options,
            Ok(Parsed::Help) => return print_info(&ctx, USAGE).await,
            Ok(Parsed::Version) => return print_info(&ctx, "shuf (sandtab) 1.0\n").await,
            Err(message) if message.starts_with("invalid") && !message.contains("option") => {
                ctx.stderr
                    .write_all(format!("shuf: {message}\n").as_bytes())
                    .await?;
                return Ok(Status::with_code(1));
            }
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        let files = Files::new(&self.fs, &ctx);
        let mut out = Output::new(&ctx);
        let end = if options.zero { b'\0' } else { b'\n' };
        let mut items: Vec<Vec<u8>> = if let Some((lo, hi)) = options.range {
            if hi.saturating_sub(lo) >= MAX_RANGE {
                out.err(format!(
                    "shuf: input range too large: the sandbox shuffles at most {MAX_RANGE} numbers\n"
                ))
                .await?;
                return out.finish(1).await;
            }
            (lo..=hi).map(|n| n.to_string().into_bytes()).collect()
        } else if options.echo {
            options
                .operands
                .iter()
                .map(|a| a.as_bytes().to_vec())
                .collect()
        } else {
            let data = match options.operands.first() {
                None | Some(&"-") => read_stdin(&ctx).await?,
                Some(name) => match files.read(name).await {
                    Ok(data) => data,
                    Err(err) => {
                        out.err(format!("shuf: {name}: {}\n", strerror(&err)))
                            .await?;
                        return out.finish(1).await;
                    }
                },
            };
            let mut lines: Vec<Vec<u8>> = data.split(|b| *b == end).map(<[u8]>::to_vec).collect();
            if data.last() == Some(&end) || data.is_empty() {
                lines.pop();
            }
            lines
        };
        let mut source = match options.random_source {
            None => Source::Sandbox(&self.entropy),
            Some(name) => match files.read(name).await {
                Ok(bytes) => Source::Bytes(bytes, 0),
                Err(err) => {
                    out.err(format!("shuf: {name}: {}\n", strerror(&err)))
                        .await?;
                    return out.finish(1).await;
                }
            },
        };
        let mut chosen: Vec<Vec<u8>> = Vec::new();
        let failed = |why: String| {
            format!(
                "shuf: {}: {why}\n",
                options.random_source.unwrap_or("random source")
            )
        };
        if options.repeat {
            if !items.is_empty() {
                let count = options.count.unwrap_or(MAX_REPEATS);
                if count > MAX_REPEATS {
                    out.err(format!(
                        "shuf: -n {count} with -r: the sandbox repeats at most {MAX_REPEATS} lines\n"
                    ))
                    .await?;
                    return out.finish(1).await;
                }
                for _ in 0..count {
                    match source.below(items.len() as u64) {
                        Ok(i) => chosen.push(items[i as usize].clone()),
                        Err(why) => {
                            out.err(failed(why)).await?;
                            return out.finish(1).await;
                        }
                    }
                }
            } else if options.count.is_some_and(|n| n > 0) {
                out.err("shuf: no lines to repeat\n").await?;
                return out.finish(1).await;
            }
        } else {
            // Fisher-Yates, stopping after the `-n` lines wanted.
            let wanted = options
                .count
                .map_or(items.len(), |n| (n as usize).min(items.len()));
            for i in 0..wanted {
                match source.below((items.len() - i) as u64) {
                    Ok(j) => items.swap(i, i + j as usize),
                    Err(why) => {
                        out.err(failed(why)).await?;
                        return out.finish(1).await;
                    }
                }
            }
            items.truncate(wanted);
            chosen = items;
        }
        let mut text = Vec::new();
        for item in chosen {
            text.extend_from_slice(&item);
            text.push(end);
        }
        match options.output {
            Some(name) => {
                if let Err(err) = files.write(name, &text).await {
                    out.err(format!("shuf: {name}: {}\n", strerror(&err)))
                        .await?;
                    return out.finish(1).await;
                }
            }
            None => out.out(text).await?,
        }
        out.finish(0).await
    }
}
