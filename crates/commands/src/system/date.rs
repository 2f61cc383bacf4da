//! `date`: the time now on the sandbox's clock (the filesystem's, so a recorded sandbox
//! replays the same dates), or the one `-d`, `-f` or `-r` gives, in GNU date's formats
//! (`+FORMAT`, `-I`, `-R`, `--rfc-3339`), in UTC, the sandbox's time zone. Setting the
//! clock (`-s`) is refused.

use crate::calendar::{Instant, format as format_time};
use crate::files::fileops::date::parse_date;
use crate::options::{HELP, Long, Parser, Spec, VERSION, Value};
use crate::util::{Files, Output, print_info, strerror, usage_error};
use crate::{Context, Registry, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("date", Date { fs: fs.clone() })
}

struct Date {
    fs: Arc<SandboxFs>,
}

/// GNU date's default output in the C locale.
const DEFAULT_FORMAT: &str = "%a %b %e %H:%M:%S %Z %Y";

const SPEC: Spec<Long> = Spec {
    short: "d:f:r:s:uRI::",
    long: &[
        ("date", Value::Required, 'd'),
        ("file", Value::Required, 'f'),
        ("iso-8601", Value::Optional, 'I'),
        ("rfc-email", Value::No, 'R'),
        ("rfc-3339", Value::Required, RFC_3339),
        ("reference", Value::Required, 'r'),
        ("set", Value::Required, 's'),
        ("utc", Value::No, 'u'),
        ("universal", Value::No, 'u'),
        ("debug", Value::No, DEBUG),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// Keys of date's long-only options.
const RFC_3339: char = '3';
const DEBUG: char = 'D';

const USAGE: &str = "\
Usage: date [OPTION]... [+FORMAT]
Display the date and time in the given FORMAT (the sandbox's clock, in UTC).

  -d, --date=STRING          display time described by STRING, not 'now'
  -f, --file=DATEFILE        like --date; once for each line of DATEFILE
  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.
                               FMT='date' for date only (the default),
                               'hours', 'minutes', 'seconds', or 'ns'
  -R, --rfc-email            output date and time in RFC 5322 format
      --rfc-3339=FMT         output date/time in RFC 3339 format ('date',
                               'seconds', or 'ns')
  -r, --reference=FILE       display the last modification time of FILE
  -u, --utc, --universal     Coordinated Universal Time (always, in the sandbox)
      --help                 display this help and exit
      --version              output version information and exit
";

/// Where the times come from.
enum Source<'a> {
    Now,
    Date(&'a str),
    File(&'a str),
    Reference(&'a str),
}

struct Options<'a> {
    source: Source<'a>,
    format: Option<String>,
}

enum Parsed<'a> {
    Run(Options<'a>),
    Help,
    Version,
    Set,
}

fn iso_format(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "" | "date" => "%Y-%m-%d",
        "hours" => "%Y-%m-%dT%H%:z",
        "minutes" => "%Y-%m-%dT%H:%M%:z",
        "seconds" => "%Y-%m-%dT%H:%M:%S%:z",
        "ns" => "%Y-%m-%dT%H:%M:%S,%N%:z",
        _ => return None,
    })
}

fn rfc_3339_format(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "date" => "%Y-%m-%d",
        "seconds" => "%Y-%m-%d %H:%M:%S%:z",
        "ns" => "%Y-%m-%d %H:%M:%S.%N%:z",
        _ => return None,
    })
}

fn parse_args<'a>(args: &'a [String]) -> Result<Parsed<'a>, String> {
    let mut source = Source::Now;
    let mut format: Option<String> = None;
    let mut operands: Vec<&str> = Vec::new();
    let mut parser = Parser::new(&SPEC, args);
    let set_format = |value: &'static str, format: &mut Option<String>| {
        if format.is_some() {
            return Err("multiple output formats specified".to_owned());
        }
        *format = Some(value.to_owned());
        Ok(())
    };
    while let Some((key, value)) = parser.next_option(&mut operands)? {
        let value = value.unwrap_or("");
        match key {
            'd' => source = Source::Date(value),
            'f' => source = Source::File(value),
            'r' => source = Source::Reference(value),
            's' => return Ok(Parsed::Set),
            'R' => set_format("%a, %d %b %Y %H:%M:%S %z", &mut format)?,
            'I' => {
                // `-I` takes its format only when attached (`-Iseconds`, `--iso-8601=ns`).
                let chosen = iso_format(value)
                    .ok_or_else(|| format!("invalid argument '{value}' for '--iso-8601'"))?;
                set_format(chosen, &mut format)?;
            }
            RFC_3339 => {
                let chosen = rfc_3339_format(value)
                    .ok_or_else(|| format!("invalid argument '{value}' for '--rfc-3339'"))?;
                set_format(chosen, &mut format)?;
            }
            HELP => return Ok(Parsed::Help),
            VERSION => return Ok(Parsed::Version),
            _ => {}
        }
    }
    match operands.as_slice() {
        [] => {}
        [word] if word.starts_with('+') => {
            if format.is_some() {
                return Err("multiple output formats specified".to_owned());
            }
            format = Some(word[1..].to_owned());
        }
        [word] => return Err(format!("invalid date '{word}'")),
        [_, extra, ..] => return Err(format!("extra operand '{extra}'")),
    }
    Ok(Parsed::Run(Options { source, format }))
}

#[async_trait::async_trait]
impl crate::Command for Date {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse_args(ctx.args) {
            Ok(Parsed::Run(options)) => options,
            Ok(Parsed::Help) => return print_info(&ctx, USAGE).await,
            Ok(Parsed::Version) => return print_info(&ctx, "date (sandtab) 1.0\n").await,
            Ok(Parsed::Set) => {
                ctx.stderr
                    .write_all(b"date: cannot set date: Operation not permitted\n")
                    .await?;
                return Ok(Status::with_code(1));
            }
            Err(message) if message.starts_with("invalid date") => {
                ctx.stderr
                    .write_all(format!("date: {message}\n").as_bytes())
                    .await?;
                return Ok(Status::with_code(1));
            }
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        let format = options.format.as_deref().unwrap_or(DEFAULT_FORMAT);
        let now = Instant::from_nanos(self.fs.mem().now().0);
        let files = Files::new(&self.fs, &ctx);
        let mut out = Output::new(&ctx);
        match options.source {
            Source::Now => out.out(format_time(format, now) + "\n").await?,
            Source::Date(text) => match parse_date(text, now) {
                Some(time) => out.out(format_time(format, time) + "\n").await?,
                None => {
                    out.err(format!("date: invalid date '{text}'\n")).await?;
                    return out.finish(1).await;
                }
            },
            Source::Reference(name) => match files.stat(name) {
                Ok(meta) => {
                    let time = Instant::from_nanos(meta.modified.0);
                    out.out(format_time(format, time) + "\n").await?;
                }
                Err(err) => {
                    out.err(format!("date: {name}: {}\n", strerror(&err)))
                        .await?;
                    return out.finish(1).await;
                }
            },
            Source::File(name) => {
                let data = match name {
                    "-" => crate::util::read_stdin(&ctx).await?,
                    _ => match files.read(name).await {
                        Ok(data) => data,
                        Err(err) => {
                            out.err(format!("date: {name}: {}\n", strerror(&err)))
                                .await?;
                            return out.finish(1).await;
                        }
                    },
                };
                let mut status = 0;
                for line in String::from_utf8_lossy(&data).lines() {
                    match parse_date(line, now) {
                        Some(time) => out.out(format_time(format, time) + "\n").await?,
                        None => {
                            out.err(format!("date: invalid date '{line}'\n")).await?;
                            status = 1;
                        }
                    }
                }
                return out.finish(status).await;
            }
        }
        out.finish(0).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(matches!(parse_args(&args(&["-s", "x"])), Ok(Parsed::Set)));
        let both = args(&["-R", "+%s"]);
        assert_eq!(
            parse_args(&both).err().unwrap(),
            "multiple output formats specified"
        );
        let bad = args(&["--iso-8601=weeks"]);
        let message = parse_args(&bad).err().unwrap();
        assert!(message.contains("invalid argument 'weeks'"), "{message}");
        let operand = args(&["tomorrow"]);
        assert_eq!(
            parse_args(&operand).err().unwrap(),
            "invalid date 'tomorrow'"
        );
    }
}
