//! One URL from request to exit status: the request built, sent through the gate, the
//! response written where `-o`/`-O` say (headers too with `-i`/`-I`), `-f` judged, and
//! the `-w` report printed (also after a failure, as curl does).

use super::EXIT_DENIED;
use super::args::{CurlArgs, Target};
use super::fetch::{self, Failure, Follow};
use super::output::{self, Report, Stream};
use super::{request, url};
use crate::files::fileops::is_dev_null;
use crate::util::{Files, Output, strerror};
use sandtab_caps::Gate;
use sandtab_vfs::VfsError;

/// Where one URL's output goes.
enum Dest {
    Stdout,
    Discard,
    /// A file, by the name as curl shows it.
    File(String),
}

/// What every transfer of one curl command shares.
pub(crate) struct Run<'r, 'c, 'a> {
    pub out: &'r mut Output<'c, 'a>,
    pub files: &'r Files<'r>,
    pub gate: &'r Gate,
    pub args: &'r CurlArgs,
    pub body: Option<&'r [u8]>,
    pub headers: &'r [String],
    pub write_out: Option<&'r str>,
}

impl Run<'_, '_, '_> {
    /// Whether `-s` hides error messages (unless `-S`).
    fn show_errors(&self) -> bool {
        !self.args.silent || self.args.show_error
    }

    async fn error(&mut self, message: String) -> crate::Result<()> {
        if self.show_errors() {
            self.out.err(message).await?;
        }
        Ok(())
    }

    async fn warn(&mut self, message: String) -> crate::Result<()> {
        if !self.args.silent {
            self.out.err(message).await?;
        }
        Ok(())
    }

    /// Fetches the `index`th URL, `raw_url`; gives curl's exit status for it.
    pub async fn transfer(&mut self, index: usize, raw_url: &str) -> crate::Result<i32> {
        let request = request::build(self.args, raw_url, self.body, self.headers);
        let dest = match self.dest(index, &request.url) {
            Some(dest) => dest,
            None => {
                self.warn("curl: Remote file name has no length!\n".into())
                    .await?;
                self.error("curl: (23) Failed writing received data to disk/application\n".into())
                    .await?;
                return Ok(23);
            }
        };
        if self.args.verbose {
            self.out.err(output::verbose_request(&request)).await?;
        }
        let policy_max = self.gate.capabilities().network.max_redirects;
        let follow = Follow::choose(self.args.location, self.args.max_redirs, policy_max);
        let mut report = Report {
            url: &request.url,
            method: &request.method,
            size_upload: request.body.as_ref().map_or(0, Vec::len),
            filename: match &dest {
                Dest::File(name) => name,
                _ => "",
            },
            ..Report::default()
        };
        let started = self.gate.now_ms();
        let sent = fetch::send(self.gate, request.clone(), follow).await;
        report.seconds = (self.gate.now_ms() - started).max(0.0) / 1000.0;
        let fetched = match sent {
            Ok(fetched) => fetched,
            Err(failure) => {
                let (code, message) = self.failure(&request.url, failure).await?;
                report.exit_code = code;
                report.error = &message;
                self.report(&report).await?;
                return Ok(code);
            }
        };
        let response = &fetched.response;
        if self.args.verbose {
            if fetched.redirects != Some(0) {
                self.out
                    .err(format!("* Redirects followed to {}\n", response.url))
                    .await?;
            }
            self.out.err(output::verbose_response(response)).await?;
        }
        let failed = (self.args.fail || self.args.fail_with_body) && response.status >= 400;
        let block = output::header_block(response);
        let mut data = Vec::new();
        if self.args.include || self.args.head {
            data.extend_from_slice(block.as_bytes());
        }
        if !self.args.head && (!failed || self.args.fail_with_body) {
            data.extend_from_slice(&response.body);
        }
        let mut code = 0;
        if let Some(name) = &self.args.dump_header
            && let Err(err) = self.write(&self.dest_named(name), block.as_bytes()).await?
        {
            code = self.write_failed(name, &err).await?;
        }
        // A failed transfer writes no file unless it has something to put in it.
        if code == 0
            && !(failed && data.is_empty())
            && let Err(err) = self.write(&dest, &data).await?
        {
            let name = match &dest {
                Dest::File(name) => name.clone(),
                _ => String::new(),
            };
            code = self.write_failed(&name, &err).await?;
        }
        let mut message = String::new();
        if code == 0 && failed {
            message = format!("The requested URL returned error: {}", response.status);
            self.error(format!("curl: (22) {message}\n")).await?;
            code = 22;
        }
        report.response = Some(response);
        report.redirects = fetched.redirects;
        report.size_header = block.len();
        report.exit_code = code;
        report.error = &message;
        self.report(&report).await?;
        Ok(code)
    }

    /// Where the `index`th URL's output goes; `None` for `-O` on a URL whose path
    /// names no file.
    fn dest(&self, index: usize, url: &str) -> Option<Dest> {
        let target = match self.args.targets.get(index) {
            Some(target) => Some(target.clone()),
            None => self.args.remote_name_all.then_some(Target::Remote),
        };
        match target {
            None => Some(Dest::Stdout),
            Some(Target::File(name)) => Some(self.dest_named(&name)),
            Some(Target::Remote) => {
                let name = url::last_segment(url);
                (!name.is_empty()).then(|| self.dest_named(&name))
            }
        }
    }

    /// The destination a file name given to curl means (`-`: stdout), under
    /// `--output-dir` when it is relative.
    fn dest_named(&self, name: &str) -> Dest {
        if name == "-" {
            return Dest::Stdout;
        }
        let name = match &self.args.output_dir {
            Some(dir) if !dir.is_empty() && !name.starts_with('/') => {
                format!("{}/{name}", dir.trim_end_matches('/'))
            }
            _ => name.to_owned(),
        };
        match self.files.path(&name) {
            Ok(path) if is_dev_null(&path) => Dest::Discard,
            _ => Dest::File(name),
        }
    }

    /// Writes `data` to `dest`; a file's error is given back to be reported.
    async fn write(&mut self, dest: &Dest, data: &[u8]) -> crate::Result<Result<(), VfsError>> {
        match dest {
            Dest::Stdout => self.out.out(data).await.map(Ok),
            Dest::Discard => Ok(Ok(())),
            Dest::File(name) => {
                if self.args.create_dirs
                    && let Ok(path) = self.files.path(name)
                    && let Some(parent) = path.parent()
                    && let Err(err) = self.files.fs.mem().create_dir_all(&parent)
                {
                    return Ok(Err(err));
                }
                Ok(self.files.write(name, data).await)
            }
        }
    }

    async fn write_failed(&mut self, name: &str, err: &VfsError) -> crate::Result<i32> {
        self.warn(format!(
            "Warning: Failed to open the file {name}: {}\n",
            strerror(err)
        ))
        .await?;
        self.error("curl: (23) Failure writing output to destination\n".into())
            .await?;
        Ok(23)
    }

    /// Reports a transfer that got no response; gives its exit status and message.
    async fn failure(&mut self, url: &str, failure: Failure) -> crate::Result<(i32, String)> {
        match failure {
            Failure::Gate(denial) if denial.code.is_refusal() => {
                // Refusals are shown whatever `-s` says: they are the policy speaking.
                self.out.err(format!("curl: {denial}\n")).await?;
                Ok((EXIT_DENIED, denial.to_string()))
            }
            Failure::Gate(denial) => {
                let (host, port) = url::host_port(url);
                let message = format!(
                    "Failed to connect to {host} port {port}: {}",
                    denial.message
                );
                self.error(format!("curl: (7) {message}\n")).await?;
                Ok((7, message))
            }
            Failure::TooManyRedirects(max) => {
                let message = format!("Maximum ({max}) redirects followed");
                self.error(format!("curl: (47) {message}\n")).await?;
                Ok((47, message))
            }
        }
    }

    /// Prints the `-w` report, if one was asked for.
    async fn report(&mut self, report: &Report<'_>) -> crate::Result<()> {
        let Some(format) = self.write_out else {
            return Ok(());
        };
        let expanded = output::write_out(format, report);
        for warning in expanded.warnings {
            self.out.err(warning).await?;
        }
        for (stream, text) in expanded.pieces {
            match stream {
                Stream::Out => self.out.out(text).await?,
                Stream::Err => self.out.err(text).await?,
            }
        }
        Ok(())
    }
}
