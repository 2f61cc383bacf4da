//! `pip` (and `pip3`, `python3 -m pip`): installs pure-Python packages for sandtab's
//! CPython from a package index, through the capability gate (the page grants the
//! index's origins; nothing is fetched otherwise). Wheels are checked against the
//! index's SHA-256 and unpacked into site-packages with their `.dist-info`, so
//! `importlib.metadata` sees them. `install`, `uninstall`, `list`, `freeze`, `show`.

mod index;
mod resolve;
mod site;
mod wheel;

use crate::options::{Keyed, Long, Parser, Spec, UsageError, Value};
use crate::util::{Files, Output};
use crate::{Context, Registry, Status};
use resolve::{Progress, ResolveError};
use sandtab_caps::Gate;
use sandtab_vfs::{SandboxFs, VfsPath};
use std::sync::Arc;

/// Where `pip` installs packages (and CPython's `sitecustomize` finds them).
pub const SITE_PACKAGES: &str = "/opt/sandtab/lib/python3.12/site-packages";

/// `pip install`'s options (pip, like getopt, takes unambiguous prefixes of long names).
const INSTALL_SPEC: Spec<Long> = Spec {
    short: "Ui:r:e:",
    long: &[
        ("upgrade", Value::No, 'U'),
        ("force-reinstall", Value::No, FORCE_REINSTALL),
        ("no-deps", Value::No, NO_DEPS),
        ("pre", Value::No, PRE),
        ("index-url", Value::Required, 'i'),
        ("requirement", Value::Required, 'r'),
        ("editable", Value::Required, 'e'),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// Keys of pip's long-only options.
const FORCE_REINSTALL: char = 'F';
const NO_DEPS: char = 'N';
const PRE: char = 'P';

/// A refused command line in pip's words.
fn pip_usage(err: &UsageError) -> String {
    match err {
        UsageError::InvalidShort(c) => format!("no such option: -{c}"),
        UsageError::Unrecognized(word) => {
            format!("no such option: {}", word.split('=').next().unwrap_or(word))
        }
        UsageError::Ambiguous { given, candidates } => {
            let names: Vec<String> = candidates.iter().map(|name| format!("--{name}")).collect();
            format!("{given} option is ambiguous ({})", names.join(", "))
        }
        UsageError::ShortNeedsValue(c) => format!("-{c} option requires 1 argument"),
        UsageError::LongNeedsValue(name) => format!("--{name} option requires 1 argument"),
        UsageError::LongTakesNoValue(name) => format!("--{name} option does not take a value"),
    }
}

const VERSION: &str = "24.0";

const HELP: &str = "Usage:
  pip install [options] <requirement specifier> ...
  pip install [options] -r <requirements file> ...
  pip uninstall [-y] <package> ...
  pip list | pip freeze | pip show <package> ...

sandtab's pip installs pure-Python wheels (py3-none-any) for its CPython 3.12 from a
package index, through the sandbox's network grants, into
/opt/sandtab/lib/python3.12/site-packages.

Install options:
  -r, --requirement <file>  install from the given requirements file (repeatable)
  -U, --upgrade             upgrade the named packages to the newest version
  --force-reinstall         reinstall the named packages even if up to date
  --no-deps                 do not install dependencies
  --pre                     include pre-release versions
  -i, --index-url <url>     the simple API's base URL (default: $PIP_INDEX_URL, or
                            https://pypi.org/simple)

General options:
  -h, --help                show this help
  -V, --version             show the version
  -q, --quiet               print less
";

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Registry {
    let pip = || Pip {
        fs: fs.clone(),
        gate: gate.clone(),
    };
    builder.command("pip", pip()).command("pip3", pip())
}

pub struct Pip {
    fs: Arc<SandboxFs>,
    gate: Arc<Gate>,
}

impl std::fmt::Debug for Pip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pip").finish_non_exhaustive()
    }
}

impl Pip {
    pub fn new(fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Pip {
        Pip {
            fs: fs.clone(),
            gate: gate.clone(),
        }
    }
}

#[async_trait::async_trait]
impl crate::Command for Pip {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let args = ctx.args.to_vec();
        // Boxed: resolving is a large future, and the shell's own is already deep.
        Box::pin(self.run(&ctx, &args)).await
    }
}

/// What `pip install` was asked.
#[derive(Default)]
struct InstallArgs {
    specs: Vec<String>,
    upgrade: bool,
    force_reinstall: bool,
    no_deps: bool,
    pre: bool,
    index: Option<String>,
}

/// Prints progress lines as they come.
struct Lines<'o, 'c, 'a> {
    out: &'o mut Output<'c, 'a>,
    quiet: bool,
}

impl Progress for Lines<'_, '_, '_> {
    async fn line(&mut self, text: String) {
        if !self.quiet {
            let _ = self.out.out(format!("{text}\n")).await;
            let _ = self.out.flush().await;
        }
    }
}

impl Pip {
    /// Runs `pip ARGS` (also what `python3 -m pip ARGS` runs).
    pub async fn run(&self, ctx: &Context<'_>, args: &[String]) -> crate::Result<Status> {
        let mut out = Output::new(ctx);
        let mut rest: Vec<&str> = Vec::new();
        let mut quiet = false;
        for arg in args {
            match arg.as_str() {
                "-q" | "--quiet" => quiet = true,
                "--disable-pip-version-check"
                | "--no-cache-dir"
                | "--no-input"
                | "--no-color"
                | "--user"
                | "--break-system-packages" => {}
                other => rest.push(other),
            }
        }
        let Some((command, rest)) = rest.split_first() else {
            out.out(HELP).await?;
            return out.finish(0).await;
        };
        match *command {
            "-h" | "--help" | "help" => {
                out.out(HELP).await?;
                out.finish(0).await
            }
            "-V" | "--version" => {
                out.out(format!(
                    "pip {VERSION} (sandtab: pure-Python wheels) from {SITE_PACKAGES} (python 3.12)\n"
                ))
                .await?;
                out.finish(0).await
            }
            "install" => Box::pin(self.install(ctx, out, rest, quiet)).await,
            "uninstall" => Box::pin(self.uninstall(ctx, out, rest)).await,
            "list" => Box::pin(self.list(out, false)).await,
            "freeze" => Box::pin(self.list(out, true)).await,
            "show" => Box::pin(self.show(out, rest)).await,
            other => {
                out.err(format!("ERROR: unknown command \"{other}\"\n"))
                    .await?;
                out.finish(1).await
            }
        }
    }

    fn site(&self) -> VfsPath {
        VfsPath::parse(SITE_PACKAGES).unwrap_or_else(|_| VfsPath::root())
    }

    async fn install(
        &self,
        ctx: &Context<'_>,
        mut out: Output<'_, '_>,
        args: &[&str],
        quiet: bool,
    ) -> crate::Result<Status> {
        let files = Files::new(&self.fs, ctx);
        let mut asked = InstallArgs::default();
        let words: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let mut parser = Parser::new(&INSTALL_SPEC, &words);
        loop {
            let outcome = match parser.next_keyed() {
                Ok(None) => break,
                Ok(Some(Keyed::Operand(spec))) => {
                    asked.specs.push(spec.to_owned());
                    Ok(())
                }
                Ok(Some(Keyed::Option(key, value))) => {
                    let value = value.unwrap_or_default().to_owned();
                    match key {
                        'r' => read_requirements(&files, &value, &mut asked, 0).await,
                        'e' => Err("editable installs (-e) are not supported".into()),
                        flag => {
                            match flag {
                                'U' => asked.upgrade = true,
                                FORCE_REINSTALL => asked.force_reinstall = true,
                                NO_DEPS => asked.no_deps = true,
                                PRE => asked.pre = true,
                                _ => asked.index = Some(value),
                            }
                            Ok(())
                        }
                    }
                }
                Err(err) => Err(pip_usage(&err)),
            };
            if let Err(message) = outcome {
                out.err(format!("ERROR: {message}\n")).await?;
                return out.finish(2).await;
            }
        }
        if asked.specs.is_empty() {
            out.err("ERROR: You must give at least one requirement to install (see \"pip help install\")\n")
                .await?;
            return out.finish(1).await;
        }
        let index = asked
            .index
            .clone()
            .or_else(|| ctx.env.get("PIP_INDEX_URL").cloned())
            .unwrap_or_else(|| index::DEFAULT_INDEX.to_owned());
        let site = self.site();
        let installed = site::installed(&self.fs, &site).await;
        let request = resolve::Request {
            gate: &self.gate,
            index: &index,
            installed: &installed,
            site: SITE_PACKAGES,
            upgrade: asked.upgrade,
            force_reinstall: asked.force_reinstall,
            no_deps: asked.no_deps,
            pre: asked.pre,
        };
        let chosen = {
            let mut lines = Lines {
                out: &mut out,
                quiet,
            };
            Box::pin(resolve::resolve(&request, &asked.specs, &mut lines)).await
        };
        let chosen = match chosen {
            Ok(chosen) => chosen,
            Err(err) => {
                let message = match err {
                    ResolveError::Message(message) => message,
                    ResolveError::Index(index::IndexError::Gate(denial)) => format!(
                        "{denial}\nThe package index is reached through the sandbox's network grants: the page must grant {} (for PyPI, https://pypi.org and https://files.pythonhosted.org).",
                        origin(&index)
                    ),
                    ResolveError::Index(index::IndexError::NotFound) => {
                        format!("{index}: not found")
                    }
                    ResolveError::Index(index::IndexError::Other(message)) => message,
                };
                out.err(format!("ERROR: {message}\n")).await?;
                return out.finish(1).await;
            }
        };
        if chosen.is_empty() {
            return out.finish(0).await;
        }
        let names: Vec<&str> = chosen.iter().map(|c| c.name.as_str()).collect();
        if !quiet {
            out.out(format!(
                "Installing collected packages: {}\n",
                names.join(", ")
            ))
            .await?;
        }
        for dist in &chosen {
            if let Some(old) = &dist.replaces {
                if !quiet {
                    out.out(format!(
                        "  Attempting uninstall: {0}\n    Found existing installation: {0} {1}\n    Uninstalling {0}-{1}:\n      Successfully uninstalled {0}-{1}\n",
                        old.meta.name, old.meta.version
                    ))
                    .await?;
                }
                if let Err(err) = site::remove(&self.fs, &site, old).await {
                    out.err(format!("ERROR: uninstalling {}: {err}\n", old.meta.name))
                        .await?;
                    return out.finish(1).await;
                }
            }
            if let Err(err) = self.fs.mem().create_dir_all(&site) {
                out.err(format!("ERROR: {SITE_PACKAGES}: {err}\n")).await?;
                return out.finish(1).await;
            }
            if let Err(err) = wheel::unpack(&self.fs, &site, &dist.wheel) {
                out.err(format!(
                    "ERROR: installing {} {}: {}\n",
                    dist.name, dist.version, err.0
                ))
                .await?;
                return out.finish(1).await;
            }
        }
        let mut done: Vec<String> = chosen
            .iter()
            .map(|c| format!("{}-{}", c.name, c.version))
            .collect();
        done.sort_by_key(|name| name.to_ascii_lowercase());
        if !quiet {
            out.out(format!("Successfully installed {}\n", done.join(" ")))
                .await?;
        }
        out.finish(0).await
    }

    async fn uninstall(
        &self,
        ctx: &Context<'_>,
        mut out: Output<'_, '_>,
        args: &[&str],
    ) -> crate::Result<Status> {
        let files = Files::new(&self.fs, ctx);
        let mut names = Vec::new();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match *arg {
                // Nothing asks: an agent cannot answer a prompt.
                "-y" | "--yes" => {}
                "-r" | "--requirement" => {
                    let mut asked = InstallArgs::default();
                    let path = args.next().copied().unwrap_or_default();
                    if let Err(message) = read_requirements(&files, path, &mut asked, 0).await {
                        out.err(format!("ERROR: {message}\n")).await?;
                        return out.finish(1).await;
                    }
                    names.extend(asked.specs);
                }
                flag if flag.starts_with('-') => {
                    out.err(format!("ERROR: no such option: {flag}\n")).await?;
                    return out.finish(2).await;
                }
                name => names.push(name.to_owned()),
            }
        }
        if names.is_empty() {
            out.err("ERROR: You must give at least one requirement to uninstall (see \"pip help uninstall\")\n")
                .await?;
            return out.finish(1).await;
        }
        let site = self.site();
        let installed = site::installed(&self.fs, &site).await;
        for name in names {
            let bare = name
                .split(|c: char| "<>=!~;[ ".contains(c))
                .next()
                .unwrap_or_default();
            let key = site::normalize(bare);
            let Some(dist) = installed.iter().find(|dist| dist.key() == key) else {
                out.err(format!(
                    "WARNING: Skipping {bare} as it is not installed.\n"
                ))
                .await?;
                continue;
            };
            out.out(format!(
                "Found existing installation: {0} {1}\nUninstalling {0}-{1}:\n",
                dist.meta.name, dist.meta.version
            ))
            .await?;
            if let Err(err) = site::remove(&self.fs, &site, dist).await {
                out.err(format!("ERROR: {err}\n")).await?;
                return out.finish(1).await;
            }
            out.out(format!(
                "  Successfully uninstalled {}-{}\n",
                dist.meta.name, dist.meta.version
            ))
            .await?;
        }
        out.finish(0).await
    }

    async fn list(&self, mut out: Output<'_, '_>, freeze: bool) -> crate::Result<Status> {
        let installed = site::installed(&self.fs, &self.site()).await;
        if freeze {
            for dist in &installed {
                out.out(format!("{}=={}\n", dist.meta.name, dist.meta.version))
                    .await?;
            }
            return out.finish(0).await;
        }
        let width = installed
            .iter()
            .map(|d| d.meta.name.len())
            .chain(["Package".len()])
            .max()
            .unwrap_or(7);
        let vwidth = installed
            .iter()
            .map(|d| d.meta.version.len())
            .chain(["Version".len()])
            .max()
            .unwrap_or(7);
        out.out(format!("{:width$} {}\n", "Package", "Version"))
            .await?;
        out.out(format!("{} {}\n", "-".repeat(width), "-".repeat(vwidth)))
            .await?;
        for dist in &installed {
            out.out(format!("{:width$} {}\n", dist.meta.name, dist.meta.version))
                .await?;
        }
        out.finish(0).await
    }

    async fn show(&self, mut out: Output<'_, '_>, names: &[&str]) -> crate::Result<Status> {
        if names.is_empty() {
            out.err("ERROR: Please provide a package name or names.\n")
                .await?;
            return out.finish(1).await;
        }
        let installed = site::installed(&self.fs, &self.site()).await;
        let env = resolve::environment();
        let requires = |dist: &site::Installed| -> Vec<String> {
            let mut names: Vec<String> = dist
                .meta
                .requires_dist
                .iter()
                .filter_map(|text| text.parse::<pep508_rs::Requirement>().ok())
                .filter(|req| req.marker.evaluate(&env, &[]))
                .map(|req| req.name.to_string())
                .collect();
            names.sort();
            names.dedup();
            names
        };
        let mut found = false;
        for name in names {
            let key = site::normalize(name);
            let Some(dist) = installed.iter().find(|dist| dist.key() == key) else {
                continue;
            };
            if found {
                out.out("---\n").await?;
            }
            found = true;
            let required_by: Vec<String> = installed
                .iter()
                .filter(|other| requires(other).contains(&key))
                .map(|other| other.meta.name.clone())
                .collect();
            let meta = &dist.meta;
            out.out(format!(
                "Name: {}\nVersion: {}\nSummary: {}\nHome-page: {}\nAuthor: {}\nAuthor-email: {}\nLicense: {}\nLocation: {SITE_PACKAGES}\nRequires: {}\nRequired-by: {}\n",
                meta.name,
                meta.version,
                meta.summary,
                meta.home_page,
                meta.author,
                meta.author_email,
                meta.license,
                requires(dist).join(", "),
                required_by.join(", "),
            ))
            .await?;
        }
        if !found {
            out.err(format!(
                "WARNING: Package(s) not found: {}\n",
                names.join(", ")
            ))
            .await?;
            return out.finish(1).await;
        }
        out.finish(0).await
    }
}

/// The origin of `url` (`https://pypi.org`), for messages.
fn origin(url: &str) -> String {
    url::Url::parse(url)
        .map(|url| url.origin().ascii_serialization())
        .unwrap_or_else(|_| url.to_owned())
}

/// Reads a requirements file into `asked`: one requirement per line, `#` comments,
/// `\` continuations, `-r` (relative to the file), `-i`/`--index-url`.
async fn read_requirements(
    files: &Files<'_>,
    path: &str,
    asked: &mut InstallArgs,
    depth: usize,
) -> Result<(), String> {
    if depth > 8 {
        return Err(format!(
            "{path}: requirements files include each other too deeply"
        ));
    }
    let bytes = files.read(path).await.map_err(|err| {
        format!(
            "Could not open requirements file: [Errno 2] {}: '{path}'",
            crate::util::strerror(&err)
        )
    })?;
    let text = String::from_utf8_lossy(&bytes).replace("\\\n", " ");
    let dir = path.rsplit_once('/').map(|(dir, _)| dir.to_owned());
    for line in text.lines() {
        let line = match line.find(" #") {
            Some(at) => &line[..at],
            None => line,
        }
        .trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (option, value) = match line.split_once([' ', '=']) {
            Some((option, value)) if option.starts_with('-') => (option, value.trim()),
            _ => (line, ""),
        };
        match option {
            "-r" | "--requirement" => {
                let nested = match (&dir, value.starts_with('/')) {
                    (Some(dir), false) => format!("{dir}/{value}"),
                    _ => value.to_owned(),
                };
                Box::pin(read_requirements(files, &nested, asked, depth + 1)).await?;
            }
            "-i" | "--index-url" => asked.index = Some(value.to_owned()),
            "--extra-index-url" | "-f" | "--find-links" | "--trusted-host" | "--no-binary"
            | "--only-binary" | "--prefer-binary" => {
                return Err(format!("{path}: {option} is not supported"));
            }
            "-e" | "--editable" => {
                return Err(format!("{path}: editable installs (-e) are not supported"));
            }
            option if option.starts_with('-') => {
                return Err(format!("{path}: unknown option {option}"));
            }
            _ => asked.specs.push(line.to_owned()),
        }
    }
    Ok(())
}
