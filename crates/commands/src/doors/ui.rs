//! `ui`: shows HTML to the user in the page's sandboxed frame and reads their events,
//! through the capability gate (the document must grant `ui`).
//!
//! ```text
//! ui show FILE [--title TEXT] [--wait [--timeout SECONDS]]
//! ui wait [--timeout SECONDS]     the next event as one JSON line; exit 124 on timeout
//! ui close
//! ```

use crate::options::{Keyed, Long, Parser, Spec, Value};
use crate::util::{Files, Output, usage_error};
use crate::{Context, Registry, Status};
use sandtab_caps::{Gate, UiAction, Via};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

/// How long `ui wait` waits unless told (seconds).
const DEFAULT_TIMEOUT_S: f64 = 300.0;
/// The largest HTML file `ui show` takes.
const MAX_HTML: usize = 8 << 20;
/// Exit status when no event came in time (as `timeout`'s).
const EXIT_TIMEOUT: i32 = 124;
const EXIT_DENIED: i32 = 126;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Registry {
    builder.command(
        "ui",
        Ui {
            fs: fs.clone(),
            gate: gate.clone(),
        },
    )
}

struct Ui {
    fs: Arc<SandboxFs>,
    gate: Arc<Gate>,
}

#[derive(Debug, Default)]
struct Args {
    sub: String,
    file: Option<String>,
    title: Option<String>,
    wait: bool,
    timeout_s: Option<f64>,
}

/// `ui`'s options, after its subcommand.
const SPEC: Spec<Long> = Spec {
    short: "t:",
    long: &[
        ("title", Value::Required, TITLE),
        ("wait", Value::No, WAIT),
        ("timeout", Value::Required, 't'),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// Keys of ui's long-only options.
const TITLE: char = 'T';
const WAIT: char = 'w';

fn parse(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args::default();
    let (sub, options) = args
        .split_first()
        .ok_or("missing subcommand: show, wait or close")?;
    parsed.sub = sub.clone();
    if !matches!(parsed.sub.as_str(), "show" | "wait" | "close") {
        return Err(format!(
            "unknown subcommand '{}': show, wait or close",
            parsed.sub
        ));
    }
    let mut parser = Parser::new(&SPEC, options);
    while let Some(arg) = parser.next_keyed()? {
        match arg {
            Keyed::Option(TITLE, value) => parsed.title = value.map(str::to_owned),
            Keyed::Option(WAIT, _) => parsed.wait = true,
            Keyed::Option(_, value) => {
                let text = value.unwrap_or_default();
                let seconds: f64 = text
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or(format!("invalid timeout '{text}': give seconds"))?;
                parsed.timeout_s = Some(seconds);
            }
            Keyed::Operand(file) if parsed.file.is_none() && parsed.sub == "show" => {
                parsed.file = Some(file.to_owned())
            }
            Keyed::Operand(extra) => return Err(format!("unexpected argument '{extra}'")),
        }
    }
    if parsed.sub == "show" && parsed.file.is_none() {
        return Err("ui show needs an HTML file ('-' for stdin)".into());
    }
    Ok(parsed)
}

#[async_trait::async_trait]
impl crate::Command for Ui {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let args = match parse(ctx.args) {
            Ok(args) => args,
            Err(message) => return usage_error(&ctx, &message, 2).await,
        };
        let mut out = Output::new(&ctx);
        if args.sub == "show" {
            let file = args.file.as_deref().unwrap_or("-");
            let files = Files::new(&self.fs, &ctx);
            let bytes = match file {
                "-" => crate::util::read_stdin(&ctx).await?,
                path => match files.read(path).await {
                    Ok(bytes) => bytes,
                    Err(err) => {
                        out.err(format!("ui: {path}: {}\n", crate::util::strerror(&err)))
                            .await?;
                        return out.finish(1).await;
                    }
                },
            };
            if bytes.len() > MAX_HTML {
                out.err(format!("ui: {file}: larger than {MAX_HTML} bytes\n"))
                    .await?;
                return out.finish(1).await;
            }
            let html = String::from_utf8_lossy(&bytes).into_owned();
            let title = args.title.clone().unwrap_or_else(|| file.to_owned());
            if let Err(denial) = self
                .gate
                .ui(UiAction::Show { html, title }, Via::Shell)
                .await
            {
                out.err(format!("ui: {denial}\n")).await?;
                return out.finish(EXIT_DENIED).await;
            }
            if !args.wait {
                return out.finish(0).await;
            }
        }
        let action = match args.sub.as_str() {
            "close" => UiAction::Close,
            _ => UiAction::Wait {
                timeout_ms: (args.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S) * 1000.0) as u64,
            },
        };
        match self.gate.ui(action, Via::Shell).await {
            Ok(Some(event)) => {
                out.out(event).await?;
                out.out("\n").await?;
                out.finish(0).await
            }
            Ok(None) if args.sub == "close" => out.finish(0).await,
            Ok(None) => {
                out.err("ui: no event before the timeout\n").await?;
                out.finish(EXIT_TIMEOUT).await
            }
            Err(denial) => {
                out.err(format!("ui: {denial}\n")).await?;
                let code = if denial.code.is_refusal() {
                    EXIT_DENIED
                } else {
                    1
                };
                out.finish(code).await
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Args, String> {
        let args: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        parse(&args)
    }

    #[test]
    fn subcommand_then_options_anywhere() {
        let args = parse_words(&[
            "show",
            "--title",
            "Plot",
            "page.html",
            "--wait",
            "-t",
            "2.5",
        ])
        .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(args.sub, "show");
        assert_eq!(args.file.as_deref(), Some("page.html"));
        assert_eq!(args.title.as_deref(), Some("Plot"));
        assert!(args.wait);
        assert_eq!(args.timeout_s, Some(2.5));
        let args = parse_words(&["wait", "--timeout=3"]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(args.timeout_s, Some(3.0));
        let stdin = parse_words(&["show", "-"]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(stdin.file.as_deref(), Some("-"));
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        for (words, want) in [
            (&[][..], "missing subcommand"),
            (&["open"], "unknown subcommand 'open'"),
            (&["show"], "needs an HTML file"),
            (
                &["show", "a.html", "b.html"],
                "unexpected argument 'b.html'",
            ),
            (&["wait", "--bogus"], "unrecognized option '--bogus'"),
            (&["wait", "-t"], "option requires an argument -- 't'"),
            (&["wait", "-t", "soon"], "invalid timeout 'soon'"),
        ] {
            let err = parse_words(words).err().unwrap_or_default();
            assert!(err.contains(want), "{words:?}: {err}");
        }
    }
}
