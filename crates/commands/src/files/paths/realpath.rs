//! `realpath`.

use super::resolve::{Existence, Resolve, canonicalize, components_text, relative};
use super::{Parsed, cwd_of};
use crate::options::{HELP, Long, Parser, Spec, VERSION, Value};
use crate::util::{Output, quote, usage_error};
use crate::{Context, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

#[derive(Debug)]
pub(super) struct Realpath {
    pub(super) fs: Arc<SandboxFs>,
}

#[derive(Debug)]
struct RealpathOptions {
    how: Resolve,
    quiet: bool,
    zero: bool,
    relative_to: Option<String>,
    relative_base: Option<String>,
    operands: Vec<String>,
}

const REALPATH_SPEC: Spec<Long> = Spec {
    short: "emLPqsz",
    long: &[
        ("canonicalize-existing", Value::No, 'e'),
        ("canonicalize-missing", Value::No, 'm'),
        ("logical", Value::No, 'L'),
        ("physical", Value::No, 'P'),
        ("quiet", Value::No, 'q'),
        ("relative-to", Value::Required, RELATIVE_TO),
        ("relative-base", Value::Required, RELATIVE_BASE),
        ("strip", Value::No, 's'),
        ("no-symlinks", Value::No, 's'),
        ("zero", Value::No, 'z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// Keys of realpath's long-only options.
const RELATIVE_TO: char = 't';
const RELATIVE_BASE: char = 'b';

const REALPATH_HELP: &str = "Usage: realpath [OPTION]... FILE...
Print the resolved absolute file name;
all but the last component must exist

  -e, --canonicalize-existing  all components of the path must exist
  -m, --canonicalize-missing   no path components need exist or be a directory
  -L, --logical                resolve '..' components before symlinks
  -P, --physical               resolve symlinks as encountered (default)
  -q, --quiet                  suppress most error messages
      --relative-to=DIR        print the resolved path relative to DIR
      --relative-base=DIR      print absolute paths unless paths below DIR
  -s, --strip, --no-symlinks   don't expand symlinks
  -z, --zero                   end each output line with NUL, not newline
      --help        display this help and exit
      --version     output version information and exit
";

fn parse_realpath(args: &[String]) -> Parsed<RealpathOptions> {
    let mut options = RealpathOptions {
        how: Resolve {
            existence: Existence::AllButLast,
            follow: true,
            logical: false,
        },
        quiet: false,
        zero: false,
        relative_to: None,
        relative_base: None,
        operands: Vec::new(),
    };
    let mut parser = Parser::new(&REALPATH_SPEC, args);
    loop {
        let (key, value) = match parser.next_option(&mut options.operands) {
            Ok(Some((key, value))) => (key, value.map(str::to_owned)),
            Ok(None) => break,
            Err(err) => return Parsed::Usage(err.into()),
        };
        match key {
            'e' => options.how.existence = Existence::All,
            'm' => options.how.existence = Existence::None,
            'L' => options.how.logical = true,
            'P' => options.how.logical = false,
            'q' => options.quiet = true,
            's' => options.how.follow = false,
            'z' => options.zero = true,
            RELATIVE_TO => options.relative_to = value,
            RELATIVE_BASE => options.relative_base = value,
            HELP => return Parsed::Text(REALPATH_HELP),
            _ => return Parsed::Text("realpath (GNU coreutils) 9.1\n"),
        }
    }
    if options.operands.is_empty() {
        return Parsed::Usage("missing operand".into());
    }
    Parsed::Run(options)
}

#[async_trait::async_trait]
impl crate::Command for Realpath {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse_realpath(ctx.args) {
            Parsed::Run(options) => options,
            Parsed::Usage(message) => return usage_error(&ctx, &message, 1).await,
            Parsed::Text(text) => {
                ctx.stdout.write_all(text.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
        };
        let fs = self.fs.mem();
        let cwd = cwd_of(&ctx);
        let mut out = Output::new(&ctx);
        let resolve_dir = |dir: &Option<String>| match dir {
            Some(dir) => canonicalize(fs, &cwd, dir, options.how)
                .map(Some)
                .map_err(|kind| format!("realpath: {}: {}\n", quote(dir), kind.description())),
            None => Ok(None),
        };
        let (mut relative_to, mut relative_base) = match (
            resolve_dir(&options.relative_to),
            resolve_dir(&options.relative_base),
        ) {
            (Ok(to), Ok(base)) => (to, base),
            (Err(message), _) | (_, Err(message)) => {
                out.err(message).await?;
                return out.finish(1).await;
            }
        };
        if relative_to.is_none() {
            relative_to.clone_from(&relative_base);
        }
        // A base the directory is not below makes every path absolute.
        if let (Some(to), Some(base)) = (&relative_to, &relative_base)
            && !to.starts_with(base)
        {
            relative_to = None;
            relative_base = None;
        }
        let end = if options.zero { '\0' } else { '\n' };
        let mut code = 0;
        for operand in &options.operands {
            match canonicalize(fs, &cwd, operand, options.how) {
                Ok(path) => {
                    let text = match (&relative_to, &relative_base) {
                        (Some(to), Some(base)) if path.starts_with(base) => relative(&path, to),
                        (Some(to), None) => relative(&path, to),
                        _ => components_text(&path),
                    };
                    out.out(format!("{text}{end}")).await?;
                }
                Err(kind) => {
                    if !options.quiet {
                        out.err(format!(
                            "realpath: {}: {}\n",
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
