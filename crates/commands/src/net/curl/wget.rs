//! `wget` through the same gate: `wget URL` saves to the URL's last path segment (or
//! `index.html`; `name.1`, `name.2`, ... when taken), `-O FILE` (truncated first, as
//! wget does, so an error leaves it empty), `-O -` to stdout, `-q`, `-nv`, `-S`,
//! `-P DIR`, `--header`, `--post-data`, `--post-file`, `--method`/`--body-data`,
//! `-U`, `--max-redirect`. Redirects are followed. Exit statuses as wget's: 8 for an
//! HTTP error, 4 for a network failure, 3 for a file that cannot be written, 126 for
//! a refusal (which is always shown, even with `-q`).

mod format;

use super::EXIT_DENIED;
use super::fetch::{self, Failure, Follow};
use super::url;
use crate::files::fileops::args::{Spec, Value, parse};
use crate::files::fileops::is_dev_null;
use crate::util::{Files, Output, strerror};
use crate::{Context, Status};
use format::{human, rate, reason};
use sandtab_caps::{Gate, HttpRequest, HttpResponse};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

const USER_AGENT: &str = concat!("Wget/1.21.3 sandtab/", env!("CARGO_PKG_VERSION"));

const HEADER: char = '\u{e070}';
const POST_DATA: char = '\u{e071}';
const POST_FILE: char = '\u{e072}';
const METHOD: char = '\u{e073}';
const BODY_DATA: char = '\u{e074}';
const MAX_REDIRECT: char = '\u{e075}';
const NO_VERBOSE: char = '\u{e076}';
const IGNORED: char = '\u{e077}';

const SPEC: Spec = Spec {
    short: "O:qU:SP:T:t:hV",
    long: &[
        ("body-data", Value::Required, BODY_DATA),
        ("directory-prefix", Value::Required, 'P'),
        ("header", Value::Required, HEADER),
        ("help", Value::No, 'h'),
        ("max-redirect", Value::Required, MAX_REDIRECT),
        ("method", Value::Required, METHOD),
        ("no-check-certificate", Value::No, IGNORED),
        ("no-verbose", Value::No, NO_VERBOSE),
        ("output-document", Value::Required, 'O'),
        ("post-data", Value::Required, POST_DATA),
        ("post-file", Value::Required, POST_FILE),
        ("quiet", Value::No, 'q'),
        ("server-response", Value::No, 'S'),
        ("timeout", Value::Required, 'T'),
        ("tries", Value::Required, 't'),
        ("user-agent", Value::Required, 'U'),
        ("version", Value::No, 'V'),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

pub(crate) struct Wget {
    fs: Arc<SandboxFs>,
    gate: Arc<Gate>,
}

impl Wget {
    pub fn new(fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Self {
        Self {
            fs: fs.clone(),
            gate: gate.clone(),
        }
    }
}

#[derive(Default)]
struct Options {
    output: Option<String>,
    quiet: bool,
    brief: bool,
    server_response: bool,
    prefix: Option<String>,
    headers: Vec<(String, String)>,
    user_agent: Option<String>,
    method: Option<String>,
    body: Option<Vec<u8>>,
    max_redirect: Option<i64>,
}

#[async_trait::async_trait]
impl crate::Command for Wget {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let mut out = Output::new(&ctx);
        let files = Files::new(&self.fs, &ctx);
        // wget's two-letter `-nv` is one option.
        let words: Vec<String> = ctx
            .args
            .iter()
            .map(|a| {
                if a == "-nv" {
                    "--no-verbose".into()
                } else {
                    a.clone()
                }
            })
            .collect();
        let parsed = match parse(&words, &SPEC) {
            Ok(parsed) => parsed,
            Err(message) => return usage(out, &format!("wget: {message}\n")).await,
        };
        let mut opts = Options::default();
        for (key, value) in parsed.options {
            let value = value.unwrap_or_default();
            match key {
                'O' => opts.output = Some(value),
                'q' => opts.quiet = true,
                NO_VERBOSE => opts.brief = true,
                'S' => opts.server_response = true,
                'P' => opts.prefix = Some(value),
                'U' => opts.user_agent = Some(value),
                HEADER => match value.split_once(':') {
                    Some((name, v)) if !name.trim().is_empty() => {
                        opts.headers.push((name.trim().into(), v.trim().into()));
                    }
                    _ => {
                        out.err(format!("wget: --header: Invalid header '{value}'.\n"))
                            .await?;
                        return out.finish(2).await;
                    }
                },
                POST_DATA | BODY_DATA => opts.body = Some(value.into_bytes()),
                POST_FILE => match files.read(&value).await {
                    Ok(data) => opts.body = Some(data),
                    Err(err) => {
                        out.err(format!("wget: {value}: {}\n", strerror(&err)))
                            .await?;
                        return out.finish(3).await;
                    }
                },
                METHOD => opts.method = Some(value.to_ascii_uppercase()),
                MAX_REDIRECT => match value.trim().parse() {
                    Ok(n) => opts.max_redirect = Some(n),
                    Err(_) => {
                        let message = format!("wget: --max-redirect: Invalid number '{value}'.\n");
                        return usage(out, &message).await;
                    }
                },
                'h' => {
                    out.out(HELP).await?;
                    return out.finish(0).await;
                }
                'V' => {
                    out.out(format!("{}\n", USER_AGENT.replacen('/', " ", 1)))
                        .await?;
                    return out.finish(0).await;
                }
                _ => {}
            }
        }
        if parsed.operands.is_empty() {
            return usage(out, "wget: missing URL\n").await;
        }
        // `-O FILE` is one file for every URL, emptied before anything is fetched.
        if let Some(name) = opts.output.as_deref().filter(|n| *n != "-")
            && !discards(&files, name)
            && let Err(err) = files.write(name, b"").await
        {
            out.err(format!("{name}: {}\n", strerror(&err))).await?;
            return out.finish(1).await;
        }
        let mut saved = Vec::new();
        let mut code = 0;
        for raw in &parsed.operands {
            let status = self.get(&mut out, &files, &opts, raw, &mut saved).await?;
            code = combine(code, status);
        }
        out.finish(code).await
    }
}

impl Wget {
    /// Fetches one URL; gives wget's exit status for it. `saved` collects what `-O
    /// FILE` holds so far (each document appended).
    async fn get(
        &self,
        out: &mut Output<'_, '_>,
        files: &Files<'_>,
        opts: &Options,
        raw: &str,
        saved: &mut Vec<u8>,
    ) -> crate::Result<i32> {
        let verbose = !opts.quiet && !opts.brief;
        let (shown_url, credentials) = url::take_userinfo(&url::with_scheme(raw));
        if verbose {
            out.err(format!("--{}--  {shown_url}\n", self.stamp()))
                .await?;
        }
        let mut headers = vec![
            (
                "User-Agent".to_owned(),
                opts.user_agent.clone().unwrap_or_else(|| USER_AGENT.into()),
            ),
            ("Accept".to_owned(), "*/*".to_owned()),
        ];
        if let Some(credentials) = credentials {
            headers.push((
                "Authorization".into(),
                format!("Basic {}", url::base64(credentials.as_bytes())),
            ));
        }
        if opts.body.is_some() {
            headers.push((
                "Content-Type".into(),
                "application/x-www-form-urlencoded".into(),
            ));
        }
        headers.retain(|(n, _)| !opts.headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n)));
        headers.extend(opts.headers.iter().cloned());
        let method = match (&opts.method, &opts.body) {
            (Some(method), _) => method.clone(),
            (None, Some(_)) => "POST".into(),
            (None, None) => "GET".into(),
        };
        let request = HttpRequest {
            method,
            url: shown_url.clone(),
            headers,
            body: opts.body.clone(),
            follow_redirects: true,
        };
        let policy_max = self.gate.capabilities().network.max_redirects;
        let follow = Follow::choose(true, opts.max_redirect, policy_max);
        let started = self.gate.now_ms();
        let response = match fetch::send(&self.gate, request, follow).await {
            Ok(fetched) => fetched.response,
            Err(Failure::Gate(denial)) if denial.code.is_refusal() => {
                out.err(format!("wget: {denial}\n")).await?;
                return Ok(EXIT_DENIED);
            }
            Err(Failure::Gate(denial)) => {
                if !opts.quiet {
                    let (host, port) = url::host_port(&shown_url);
                    let connecting = if verbose {
                        format!("Connecting to {host}:{port}... ")
                    } else {
                        String::new()
                    };
                    out.err(format!("{connecting}failed: {}.\n", denial.message))
                        .await?;
                }
                return Ok(4);
            }
            Err(Failure::TooManyRedirects(max)) => {
                if !opts.quiet {
                    out.err(format!("{max} redirections exceeded.\n")).await?;
                }
                return Ok(8);
            }
        };
        let seconds = ((self.gate.now_ms() - started) / 1000.0).max(0.001);
        let reason = reason(&response);
        if verbose {
            let mut text = "HTTP request sent, awaiting response... ".to_owned();
            match opts.server_response {
                true => {
                    text.push('\n');
                    for line in super::output::header_block(&response)
                        .split("\r\n")
                        .filter(|l| !l.is_empty())
                    {
                        text.push_str(&format!("  {line}\n"));
                    }
                }
                false => text.push_str(&format!("{} {reason}\n", response.status)),
            }
            out.err(text).await?;
        }
        if response.status >= 400 {
            if !opts.quiet {
                let lead = if opts.brief {
                    format!("{shown_url}:\n")
                } else {
                    String::new()
                };
                out.err(format!(
                    "{lead}{} ERROR {}: {reason}.\n",
                    self.stamp(),
                    response.status
                ))
                .await?;
                if verbose {
                    out.err("\n").await?;
                }
            }
            return Ok(8);
        }
        let n = response.body.len();
        let (name, to_stdout) = match &opts.output {
            Some(name) if name == "-" => ("-".to_owned(), true),
            Some(name) => (name.clone(), false),
            None => (self.free_name(files, opts, raw).await, false),
        };
        if verbose {
            let kind = response
                .header("content-type")
                .map(|t| format!(" [{t}]"))
                .unwrap_or_default();
            let shown = if to_stdout { "STDOUT" } else { name.as_str() };
            out.err(format!(
                "Length: {n}{}{kind}\nSaving to: '{shown}'\n\n",
                human(n)
            ))
            .await?;
        }
        let written = match (to_stdout, &opts.output) {
            (true, _) => out.out(&response.body).await.map(|_| Ok(())),
            (false, _) if discards(files, &name) => Ok(Ok(())),
            (false, Some(_)) => {
                saved.extend_from_slice(&response.body);
                Ok(files.write(&name, saved).await)
            }
            (false, None) => Ok(files.write(&name, &response.body).await),
        };
        if let Err(err) = written? {
            out.err(format!("Cannot write to '{name}' ({}).\n", strerror(&err)))
                .await?;
            return Ok(3);
        }
        if verbose {
            let what = if to_stdout {
                "written to stdout".to_owned()
            } else {
                format!("'{name}' saved")
            };
            let line = format!(
                "{} ({}) - {what} [{n}/{n}]\n\n",
                self.stamp(),
                rate(n, seconds)
            );
            out.err(line).await?;
        } else if opts.brief {
            let line = format!(
                "{} URL:{} [{n}/{n}] -> \"{name}\" [1]\n",
                self.stamp(),
                final_url(&response, &shown_url)
            );
            out.err(line).await?;
        }
        Ok(0)
    }

    /// The file name for `raw`: its last path segment (or `index.html`) under `-P`,
    /// with `.1`, `.2`, ... added while the name is taken.
    async fn free_name(&self, files: &Files<'_>, opts: &Options, raw: &str) -> String {
        let segment = url::percent_decode(&url::last_segment(&url::with_scheme(raw)));
        let base = match segment.is_empty() || segment.contains('/') {
            true => "index.html".to_owned(),
            false => segment,
        };
        let base = match &opts.prefix {
            Some(dir) if !dir.is_empty() => {
                if let Ok(path) = files.path(dir) {
                    // wget makes the prefix directory; a failure shows when writing.
                    let _ = files.fs.mem().create_dir_all(&path);
                }
                format!("{}/{base}", dir.trim_end_matches('/'))
            }
            _ => base,
        };
        let taken = |name: &str| files.lstat(name).is_ok();
        if !taken(&base) {
            return base;
        }
        (1u32..)
            .map(|i| format!("{base}.{i}"))
            .find(|name| !taken(name))
            .unwrap_or(base)
    }

    /// wget's time stamp for now.
    fn stamp(&self) -> String {
        format::stamp(self.gate.now_ms())
    }
}

fn discards(files: &Files<'_>, name: &str) -> bool {
    files.path(name).is_ok_and(|path| is_dev_null(&path))
}

fn final_url(response: &HttpResponse, requested: &str) -> String {
    match response.url.is_empty() {
        true => requested.to_owned(),
        false => response.url.clone(),
    }
}

/// Exit statuses of several URLs: apart from 0 and 1, the lower one wins (wget's rule).
fn combine(a: i32, b: i32) -> i32 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (1, b) => b,
        (a, 1) => a,
        (a, b) => a.min(b),
    }
}

async fn usage(mut out: Output<'_, '_>, message: &str) -> crate::Result<Status> {
    out.err(format!(
        "{message}Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n"
    ))
    .await?;
    out.finish(if message.contains("missing URL") {
        1
    } else {
        2
    })
    .await
}

const HELP: &str = "\
Usage: wget [OPTION]... [URL]...
Requests go through the sandbox's network policy; a refused one exits 126.
  -O,  --output-document=FILE    write documents to FILE ('-': stdout)
  -P,  --directory-prefix=PREFIX save files to PREFIX/
  -q,  --quiet                   quiet (no output)
  -nv, --no-verbose              one line per file
  -S,  --server-response         print the server's response headers
  -U,  --user-agent=AGENT        identify as AGENT
       --header=STRING           insert STRING among the headers
       --post-data=STRING        use the POST method; send STRING as the data
       --post-file=FILE          use the POST method; send contents of FILE
       --method=HTTPMethod       use method \"HTTPMethod\" in the request
       --body-data=STRING        send STRING as data (with --method)
       --max-redirect=NUM        maximum redirections allowed per page
Accepted and without effect here: -T/--timeout, -t/--tries, --no-check-certificate.
";

#[cfg(test)]
mod tests {
    use super::combine;

    #[test]
    fn the_lower_status_wins() {
        assert_eq!(combine(0, 8), 8);
        assert_eq!(combine(8, 4), 4);
        assert_eq!(combine(1, 8), 8);
    }
}
