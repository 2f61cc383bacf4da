//! `basename` and `dirname` (gnulib's `last_component`, `base_name`, `dir_len`).

use super::Parsed;
use crate::options::{HELP, Long, Parser, Spec, VERSION, Value};
use crate::util::usage_error;
use crate::{Context, Status};

/// Where the last component of `name` starts (after any leading slashes).
fn last_component(name: &str) -> usize {
    let bytes = name.as_bytes();
    let mut base = bytes.iter().take_while(|b| **b == b'/').count();
    let mut after_slash = false;
    for (i, &byte) in bytes.iter().enumerate().skip(base) {
        if byte == b'/' {
            after_slash = true;
        } else if after_slash {
            base = i;
            after_slash = false;
        }
    }
    base
}

/// `basename`'s answer for `name`, without `suffix` if given and not the whole name.
pub(super) fn base_name(name: &str, suffix: Option<&str>) -> String {
    let start = last_component(name);
    let base = &name[start..];
    let mut result = if base.is_empty() {
        // Only slashes (or nothing): the root stays.
        if name.is_empty() { "" } else { "/" }.to_owned()
    } else {
        base.trim_end_matches('/').to_owned()
    };
    if let Some(suffix) = suffix
        && !result.starts_with('/')
        && result.len() > suffix.len()
        && result.ends_with(suffix)
    {
        result.truncate(result.len() - suffix.len());
    }
    result
}

/// `dirname`'s answer for `name`.
pub(super) fn dir_name(name: &str) -> &str {
    let bytes = name.as_bytes();
    let prefix = usize::from(bytes.first() == Some(&b'/'));
    let mut length = last_component(name);
    while prefix < length && bytes[length - 1] == b'/' {
        length -= 1;
    }
    if length == 0 { "." } else { &name[..length] }
}

#[derive(Debug)]
pub(super) struct Basename;

const BASENAME_SPEC: Spec<Long> = Spec {
    short: "as:z",
    long: &[
        ("multiple", Value::No, 'a'),
        ("suffix", Value::Required, 's'),
        ("zero", Value::No, 'z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    // basename's getopt string begins with `+`.
    stop_at_operand: true,
    negative_numbers: false,
};

const DIRNAME_SPEC: Spec<Long> = Spec {
    short: "z",
    long: &[
        ("zero", Value::No, 'z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const BASENAME_HELP: &str = "Usage: basename NAME [SUFFIX]
  or:  basename OPTION... NAME...
Print NAME with any leading directory components removed.
If specified, also remove a trailing SUFFIX.

Mandatory arguments to long options are mandatory for short options too.
  -a, --multiple       support multiple arguments and treat each as a NAME
  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a
  -z, --zero           end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

Examples:
  basename /usr/bin/sort          -> \"sort\"
  basename include/stdio.h .h     -> \"stdio\"
  basename -s .h include/stdio.h  -> \"stdio\"
  basename -a any/str1 any/str2   -> \"str1\" followed by \"str2\"
";

#[derive(Debug, Default)]
struct BasenameOptions {
    multiple: bool,
    suffix: Option<String>,
    zero: bool,
    operands: Vec<String>,
}

fn parse_basename(args: &[String]) -> Parsed<BasenameOptions> {
    let mut options = BasenameOptions::default();
    let mut parser = Parser::new(&BASENAME_SPEC, args);
    loop {
        let (key, value) = match parser.next_option(&mut options.operands) {
            Ok(Some(option)) => option,
            Ok(None) => break,
            Err(err) => return Parsed::Usage(err.into()),
        };
        match key {
            'a' => options.multiple = true,
            'z' => options.zero = true,
            's' => {
                options.multiple = true;
                options.suffix = value.map(str::to_owned);
            }
            HELP => return Parsed::Text(BASENAME_HELP),
            _ => return Parsed::Text("basename (GNU coreutils) 9.1\n"),
        }
    }
    match options.operands.len() {
        0 => Parsed::Usage("missing operand".into()),
        n if n > 2 && !options.multiple => {
            Parsed::Usage(format!("extra operand {}", quote_gnu(&options.operands[2])))
        }
        _ => Parsed::Run(options),
    }
}

/// GNU's `quote()` in the C locale: always in single quotes.
fn quote_gnu(text: &str) -> String {
    crate::files::stat::quote_always(text)
}

#[async_trait::async_trait]
impl crate::Command for Basename {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse_basename(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
        };
        let end = if options.zero { '\0' } else { '\n' };
        let mut text = String::new();
        if options.multiple {
            for name in &options.operands {
                text.push_str(&base_name(name, options.suffix.as_deref()));
                text.push(end);
            }
        } else {
            let suffix = options.operands.get(1).map(String::as_str);
            text.push_str(&base_name(&options.operands[0], suffix));
            text.push(end);
        }
        ctx.stdout.write_all(text.as_bytes()).await?;
        Ok(Status::with_code(0))
    }
}

#[derive(Debug)]
pub(super) struct Dirname;

const DIRNAME_HELP: &str = "Usage: dirname [OPTION] NAME...
Output each NAME with its last non-slash component and trailing slashes
removed; if NAME contains no /'s, output '.' (meaning the current directory).

  -z, --zero     end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit

Examples:
  dirname /usr/bin/          -> \"/usr\"
  dirname dir1/str dir2/str  -> \"dir1\" followed by \"dir2\"
  dirname stdio.h            -> \".\"
";

fn parse_dirname(args: &[String]) -> Parsed<(bool, Vec<String>)> {
    let mut zero = false;
    let mut operands = Vec::new();
    let mut parser = Parser::new(&DIRNAME_SPEC, args);
    loop {
        match parser.next_option(&mut operands) {
            Ok(Some(('z', _))) => zero = true,
            Ok(Some((HELP, _))) => return Parsed::Text(DIRNAME_HELP),
            Ok(Some(_)) => return Parsed::Text("dirname (GNU coreutils) 9.1\n"),
            Ok(None) => break,
            Err(err) => return Parsed::Usage(err.into()),
        }
    }
    if operands.is_empty() {
        return Parsed::Usage("missing operand".into());
    }
    Parsed::Run((zero, operands))
}

#[async_trait::async_trait]
impl crate::Command for Dirname {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let (zero, operands) = match parse_dirname(ctx.args) {
            Parsed::Run(parsed) => parsed,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
        };
        let end = if zero { '\0' } else { '\n' };
        let text: String = operands
            .iter()
            .map(|name| format!("{}{end}", dir_name(name)))
            .collect();
        ctx.stdout.write_all(text.as_bytes()).await?;
        Ok(Status::with_code(0))
    }
}
