//! `readlink`.

use super::resolve::{Existence, Resolve, canonicalize, components_text, to_path};
use super::{Parsed, cwd_of};
use crate::options::{HELP, Long, Parser, Spec, VERSION, Value};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use sandtab_vfs::{ErrorKind, MemFs, SandboxFs};
use std::sync::Arc;

#[derive(Debug)]
pub(super) struct Readlink {
    pub(super) fs: Arc<SandboxFs>,
}

#[derive(Debug, Default)]
struct ReadlinkOptions {
    /// `-f`, `-e`, `-m`: canonicalize instead of reading the link.
    canonicalize: Option<Existence>,
    no_newline: bool,
    verbose: bool,
    zero: bool,
    operands: Vec<String>,
}

const READLINK_SPEC: Spec<Long> = Spec {
    short: "femnqsvz",
    long: &[
        ("canonicalize", Value::No, 'f'),
        ("canonicalize-existing", Value::No, 'e'),
        ("canonicalize-missing", Value::No, 'm'),
        ("no-newline", Value::No, 'n'),
        ("quiet", Value::No, 'q'),
        ("silent", Value::No, 's'),
        ("verbose", Value::No, 'v'),
        ("zero", Value::No, 'z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const READLINK_HELP: &str = "Usage: readlink [OPTION]... FILE...
Print value of a symbolic link or canonical file name

  -f, --canonicalize            canonicalize by following every symlink in
                                every component of the given name recursively;
                                all but the last component must exist
  -e, --canonicalize-existing   canonicalize by following every symlink in
                                every component of the given name recursively,
                                all components must exist
  -m, --canonicalize-missing    canonicalize by following every symlink in
                                every component of the given name recursively,
                                without requirements on components existence
  -n, --no-newline              do not output the trailing delimiter
  -q, --quiet
  -s, --silent                  suppress most error messages (on by default)
  -v, --verbose                 report error messages
  -z, --zero                    end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
";

fn parse_readlink(args: &[String]) -> Parsed<ReadlinkOptions> {
    let mut options = ReadlinkOptions::default();
    let mut parser = Parser::new(&READLINK_SPEC, args);
    loop {
        let key = match parser.next_option(&mut options.operands) {
            Ok(Some((key, _))) => key,
            Ok(None) => break,
            Err(err) => return Parsed::Usage(err.into()),
        };
        match key {
            'f' => options.canonicalize = Some(Existence::AllButLast),
            'e' => options.canonicalize = Some(Existence::All),
            'm' => options.canonicalize = Some(Existence::None),
            'n' => options.no_newline = true,
            'q' | 's' => options.verbose = false,
            'v' => options.verbose = true,
            'z' => options.zero = true,
            HELP => return Parsed::Text(READLINK_HELP),
            _ => return Parsed::Text("readlink (GNU coreutils) 9.1\n"),
        }
    }
    if options.operands.is_empty() {
        return Parsed::Usage("missing operand".into());
    }
    Parsed::Run(options)
}

/// The target the symlink `name` stores (its directory resolved first, as the kernel
/// does).
pub(super) fn read_link(fs: &MemFs, cwd: &str, name: &str) -> Result<String, ErrorKind> {
    let trimmed = name.trim_end_matches('/');
    let (dir, base) = match trimmed.rsplit_once('/') {
        Some((dir, base)) => (if dir.is_empty() { "/" } else { dir }, base),
        None => (".", trimmed),
    };
    let how = Resolve {
        existence: Existence::All,
        follow: true,
        logical: false,
    };
    let mut path = canonicalize(fs, cwd, dir, how)?;
    if trimmed.len() != name.len() || matches!(base, "" | "." | "..") {
        // With a trailing slash (or `.`, `..`) the name is a directory, not a link.
        canonicalize(fs, cwd, name, how)?;
        return Err(ErrorKind::InvalidInput);
    }
    path.push(base.to_owned());
    fs.read_link(&to_path(&path)?).map_err(|err| err.kind())
}

#[async_trait::async_trait]
impl crate::Command for Readlink {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let mut options = match parse_readlink(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
        };
        let mut out = Output::new(&ctx);
        if options.no_newline && options.operands.len() > 1 {
            out.err("readlink: ignoring --no-newline with multiple arguments\n")
                .await?;
            options.no_newline = false;
        }
        let fs = self.fs.mem();
        let cwd = cwd_of(&ctx);
        let end = match (options.no_newline, options.zero) {
            (true, _) => "",
            (false, true) => "\0",
            (false, false) => "\n",
        };
        let mut code = 0;
        for operand in &options.operands {
            let result = match options.canonicalize {
                Some(existence) => {
                    let how = Resolve {
                        existence,
                        follow: true,
                        logical: false,
                    };
                    canonicalize(fs, &cwd, operand, how).map(|path| components_text(&path))
                }
                None => read_link(fs, &cwd, operand),
            };
            match result {
                Ok(text) => out.out(format!("{text}{end}")).await?,
                Err(kind) => {
                    if options.verbose {
                        out.err(format!(
                            "readlink: {}: {}\n",
                            quote(operand),
                            kind.description()
                        ))
                        .await?;
                    }
                    code = 1;
                }
            }
        }
        out.finish(code).await
    }
}
