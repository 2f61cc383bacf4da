//! `curl` and `wget` on the host's fetch, under the network policy. Every request goes
//! through the capability gate (`Gate::fetch`), which checks it, follows redirects
//! (checking each hop) and injects granted headers; these commands only speak curl's
//! and wget's command lines, messages and exit statuses. A refusal is always shown
//! (`curl: CAP_NET_DENIED: ...`, even with `-s`) and exits 126, so that an agent sees
//! why a request did not happen.
//!
//! Not emulated: curl's progress meter (as if stderr were not watched), URL globbing,
//! and connection details (`-v` shows the request and response only).

mod args;
mod fetch;
mod output;
mod request;
mod transfer;
mod url;
mod wget;

use crate::util::{Files, Output};
use crate::{Context, Registry, Status};
use args::CurlArgs;
use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

/// Exit status of a request the policy refused (bash's "cannot execute").
pub(crate) const EXIT_DENIED: i32 = 126;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Registry {
    builder
        .command(
            "curl",
            Curl {
                fs: fs.clone(),
                gate: gate.clone(),
            },
        )
        .command("wget", wget::Wget::new(fs, gate))
}

struct Curl {
    fs: Arc<SandboxFs>,
    gate: Arc<Gate>,
}

#[async_trait::async_trait]
impl crate::Command for Curl {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let mut out = Output::new(&ctx);
        let files = Files::new(&self.fs, &ctx);
        let args = match args::parse(ctx.args) {
            Ok(args) => args,
            Err(err) => return usage(out, &format!("curl: {}\n", err.0)).await,
        };
        if args.help {
            out.out(HELP).await?;
            return out.finish(0).await;
        }
        if args.version {
            out.out(version()).await?;
            return out.finish(0).await;
        }
        if args.urls.is_empty() {
            let message = match ctx.args.is_empty() {
                true => "",
                false => "curl: no URL specified!\n",
            };
            return usage(out, message).await;
        }
        if let Some(problem) = conflicting_methods(&args) {
            if !args.silent {
                out.err(problem).await?;
            }
            return out.finish(2).await;
        }
        let mut sources = request::Sources::new(&files, &ctx);
        let body = request::body(&args.data, &mut sources).await?;
        let headers = request::header_lines(&args, &mut sources).await?;
        let write_out = match &args.write_out {
            Some(format) => match format.strip_prefix('@') {
                Some(name) => sources
                    .read(name)
                    .await?
                    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
                None => Some(format.clone()),
            },
            None => None,
        };
        if !args.silent {
            for warning in std::mem::take(&mut sources.warnings) {
                out.err(warning).await?;
            }
        }
        let mut run = transfer::Run {
            out: &mut out,
            files: &files,
            gate: &self.gate,
            args: &args,
            body: body.as_deref(),
            headers: &headers,
            write_out: write_out.as_deref(),
        };
        let mut code = 0;
        for (index, url) in args.urls.iter().enumerate() {
            code = run.transfer(index, url).await?;
        }
        out.finish(code).await
    }
}

/// curl's answer to a command line it cannot use: `message`, the hint, status 2.
async fn usage(mut out: Output<'_, '_>, message: &str) -> crate::Result<Status> {
    out.err(format!(
        "{message}curl: try 'curl --help' or 'curl --manual' for more information\n"
    ))
    .await?;
    out.finish(2).await
}

/// curl's warning when two options ask for different methods (`-I` with `-d`).
fn conflicting_methods(args: &CurlArgs) -> Option<String> {
    let data = !args.data.is_empty() && !args.get;
    (args.head && data).then(|| {
        "Warning: You can only select one HTTP request method! You asked for both POST \n\
         Warning: (-d, --data) and HEAD (-I, --head).\n"
            .to_owned()
    })
}

fn version() -> String {
    format!(
        "{} (wasm32-sandtab) through the sandbox's network gate\n\
         Protocols: http https\nFeatures: sandtab-capabilities\n",
        request::USER_AGENT.replacen('/', " ", 1)
    )
}

const HELP: &str = "\
Usage: curl [options...] <url>...
Requests go through the sandbox's network policy; a refused one exits 126.
 -d, --data <data>          HTTP POST data (@file: from a file, @-: stdin)
     --data-binary <data>   HTTP POST data, @file read exactly
     --data-raw <data>      HTTP POST data, '@' not special
     --data-urlencode <d>   HTTP POST data, URL-encoded
     --json <data>          HTTP POST JSON
 -D, --dump-header <file>   Write the received headers to <file>
 -e, --referer <URL>        Referrer URL
 -f, --fail                 Fail silently (no output at all) on HTTP errors
     --fail-with-body       Fail on HTTP errors but save the body
 -G, --get                  Put the post data in the URL and use GET
 -H, --header <header/@file> Pass custom header(s) to server
 -h, --help                 Get help for commands
 -i, --include              Include protocol response headers in the output
 -I, --head                 Show document info only
 -L, --location             Follow redirects
     --max-redirs <num>     Maximum number of redirects allowed
 -o, --output <file>        Write to file instead of stdout
     --output-dir <dir>     Directory to save files in
     --create-dirs          Create the directories -o needs
 -O, --remote-name          Write output to a file named as the remote file
     --remote-name-all      Use the remote file name for all URLs
 -s, --silent               Silent mode
 -S, --show-error           Show error even when -s is used
 -u, --user <user:password> Server user and password
 -A, --user-agent <name>    Send User-Agent <name> to server
 -v, --verbose              Make the operation more talkative
 -w, --write-out <format>   Use output FORMAT after completion
 -X, --request <method>     Specify request method to use
 -V, --version              Show version number and quit
Accepted and without effect here: -k, --compressed, -m/--max-time, --connect-timeout,
-g, -N, -#, --no-progress-meter, --http1.1, --http2, -4, -6.
";
