//! `patch`: GNU patch applying unified, context and normal diffs (git's extended
//! headers too: new, deleted and renamed files, mode changes) to the sandbox's files.
//! Hunks are found where the diff says or nearby (offset), with fuzz, as GNU finds
//! them; a hunk that fails goes to `FILE.rej`, the original to `FILE.orig`. Without a
//! terminal, GNU's questions take their default answers, so the same words appear here.

mod apply;
mod choose;
mod headers;
mod locate;
mod options;
mod parse;
mod reject;
mod store;

use crate::util::shell_quote as quote;
use crate::util::{Files, Output, read_stdin, strerror};
use crate::{Context, Registry, Status};
use apply::*;
use headers::*;
use locate::*;
use options::*;
use parse::*;
use reject::*;
use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("patch", Patch { fs: fs.clone() })
}

struct Patch {
    fs: Arc<SandboxFs>,
}

#[async_trait::async_trait]
impl crate::Command for Patch {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let opts = match parse_args(ctx.args) {
            Ok(Parsed::Run(opts)) => *opts,
            Ok(Parsed::Help) => return print(&ctx, HELP).await,
            Ok(Parsed::Version) => return print(&ctx, VERSION).await,
            Err(ArgError::Usage(message)) => {
                let text =
                    format!("patch: {message}\npatch: Try 'patch --help' for more information.\n");
                ctx.stderr.write_all(text.as_bytes()).await?;
                return Ok(Status::with_code(2));
            }
            Err(ArgError::Fatal(message)) => {
                ctx.stderr
                    .write_all(format!("patch: **** {message}\n").as_bytes())
                    .await?;
                return Ok(Status::with_code(2));
            }
        };
        let mut run = Run::new(&self.fs, &ctx, opts);
        let status = run.main().await?;
        run.out.finish(status).await
    }
}

async fn print(ctx: &Context<'_>, text: &str) -> crate::Result<Status> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(Status::with_code(0))
}

/// The reply GNU's questions get without a terminal: their default, after the question.
enum Verdict {
    Reverse,
    ApplyAnyway,
    Skip,
}

/// What became of one file's hunks.
#[derive(Default)]
struct Applied {
    output: Vec<u8>,
    /// The rejected hunks, as the `.rej` file shows them.
    failed: Vec<Vec<u8>>,
    total: usize,
    mismatch: bool,
    skipped: bool,
}

/// One `patch` invocation.
struct Run<'r, 'c, 'a> {
    fs: &'r Arc<SandboxFs>,
    ctx: &'c Context<'a>,
    out: Output<'c, 'a>,
    opts: Options,
    /// Where relative names start (the `-d` directory).
    base: VfsPath,
    /// Messages go to stderr when the patched file goes to stdout (`-o -`).
    to_stderr: bool,
}

impl<'r, 'c, 'a> Run<'r, 'c, 'a> {
    fn new(fs: &'r Arc<SandboxFs>, ctx: &'c Context<'a>, opts: Options) -> Self {
        let base = Files::new(fs, ctx).cwd;
        let to_stderr = opts.output.as_deref() == Some("-");
        Self {
            fs,
            ctx,
            out: Output::new(ctx),
            opts,
            base,
            to_stderr,
        }
    }

    fn files(&self) -> Files<'r> {
        Files {
            fs: self.fs,
            cwd: self.base.clone(),
        }
    }

    async fn say(&mut self, text: impl AsRef<str>) -> crate::Result<()> {
        if self.to_stderr {
            self.out.err(text).await
        } else {
            self.out.out(text.as_ref()).await
        }
    }

    async fn fatal(&mut self, message: &str) -> crate::Result<i32> {
        self.out.err(format!("patch: **** {message}\n")).await?;
        Ok(2)
    }

    async fn main(&mut self) -> crate::Result<i32> {
        let dir = self.opts.directory.clone();
        if let Some(Err(message)) = dir.map(|dir| self.enter_directory(&dir)) {
            return self.fatal(&message).await;
        }
        let data = match self.read_patch().await? {
            Ok(data) => data,
            Err(message) => return self.fatal(&message).await,
        };
        let data = match self.opts.binary {
            false if crlf_headers(&data) => {
                self.say("(Stripping trailing CRs from patch; use --binary to disable.)\n")
                    .await?;
                strip_crs(&data)
            }
            _ => data,
        };
        let patches = Parser::new(&data).parse();
        // A normal diff names no file: without one on the command line GNU finds
        // nothing it can use.
        let nameless =
            |p: &FilePatch| p.old_name.is_none() && p.git.is_none() && p.index_name.is_none();
        if patches.is_empty() || (self.opts.target.is_none() && patches.iter().all(nameless)) {
            if data.iter().all(u8::is_ascii_whitespace) {
                return Ok(0);
            }
            return self
                .fatal("Only garbage was found in the patch input.")
                .await;
        }
        let mut status = 0;
        for (index, patch) in patches.iter().enumerate() {
            if self.opts.verbose {
                self.introduce(patch, index == 0).await?;
            }
            let code = self.apply_file(patch).await?;
            status = status.max(code);
            if code == 2 {
                return Ok(code);
            }
        }
        if self.opts.verbose {
            self.say("done\n").await?;
        }
        Ok(status)
    }

    /// `--verbose`: what GNU says it found before each file's part.
    async fn introduce(&mut self, patch: &FilePatch, first: bool) -> crate::Result<()> {
        let which = if first {
            "Looks"
        } else {
            "The next patch looks"
        };
        let mut text = format!("Hmm...  {which} like a {} diff to me...\n", patch.kind);
        text.push_str(&leading_text_block(&patch.leading_text));
        self.say(text).await
    }

    /// `-d DIR`: names are taken from there.
    fn enter_directory(&mut self, dir: &str) -> Result<(), String> {
        let target = self.files().path(dir).map_err(|e| strerror(&e).to_owned());
        let meta = target
            .clone()
            .and_then(|p| self.fs.mem().stat(&p).map_err(|e| strerror(&e).to_owned()));
        match (target, meta) {
            (Ok(path), Ok(meta)) if meta.kind == FileKind::Directory => {
                self.base = path;
                Ok(())
            }
            (_, Err(why)) => Err(format!("Can't change to directory {dir} : {why}")),
            _ => Err(format!("Can't change to directory {dir} : Not a directory")),
        }
    }

    /// The patch, from `-i FILE` (or the second operand) or stdin.
    async fn read_patch(&mut self) -> crate::Result<Result<Vec<u8>, String>> {
        match self.opts.input.clone() {
            Some(name) if name != "-" => Ok(self
                .files()
                .read(&name)
                .await
                .map_err(|err| format!("Can't open patch file {name} : {}", strerror(&err)))),
            _ => Ok(Ok(read_stdin(self.ctx).await?)),
        }
    }

    /// Applies the part of the patch for one file; its exit status.
    async fn apply_file(&mut self, patch: &FilePatch) -> crate::Result<i32> {
        let Some((input_name, output_name)) = self.choose_file(patch) else {
            return self.cant_find(patch).await;
        };
        if patch.git.as_ref().is_some_and(|g| g.binary) {
            let text = format!(
                "File {}: git binary diffs are not supported.\n",
                quote(&output_name)
            );
            self.say(text).await?;
            return Ok(1);
        }
        let saved_reverse = self.opts.reverse;
        let status = self.apply_named(patch, &input_name, &output_name).await;
        self.opts.reverse = saved_reverse;
        status
    }

    async fn apply_named(
        &mut self,
        patch: &FilePatch,
        input_name: &str,
        output_name: &str,
    ) -> crate::Result<i32> {
        let exists = self.exists(input_name);
        let original = if exists {
            match self.files().read(input_name).await {
                Ok(data) => Some(data),
                Err(err) => {
                    return self
                        .fatal(&format!(
                            "Can't open file {input_name} : {}",
                            strerror(&err)
                        ))
                        .await;
                }
            }
        } else {
            None
        };
        if let Some(code) = self
            .check_create_delete(patch, output_name, original.as_deref())
            .await?
        {
            return Ok(code);
        }
        let shown = self
            .opts
            .output
            .clone()
            .unwrap_or_else(|| output_name.to_owned());
        let verb = if self.opts.dry_run {
            "checking"
        } else {
            "patching"
        };
        let mut header = format!("{verb} file {}", quote(&shown));
        if self.opts.output.is_some() {
            header.push_str(&format!(" (read from {})", quote(input_name)));
        } else if let Some(git) = patch
            .git
            .as_ref()
            .filter(|g| (g.rename || g.copy) && input_name != output_name)
        {
            let how = if git.rename { "renamed" } else { "copied" };
            header.push_str(&format!(" ({how} from {})", quote(input_name)));
        }
        if !self.opts.silent {
            self.say(format!("{header}\n")).await?;
        }
        if self.opts.verbose {
            self.say("Using Plan A...\n").await?;
        }
        if let Some(error) = &patch.error {
            return self.fatal(error).await;
        }
        let data = original.clone().unwrap_or_default();
        let applied = self.apply_hunks(patch, &data).await?;
        let rej_name = self
            .opts
            .reject_file
            .clone()
            .unwrap_or_else(|| format!("{output_name}.rej"));
        if !applied.failed.is_empty() {
            let (failed, total) = (applied.failed.len(), applied.total);
            let what = if applied.skipped { "ignored" } else { "FAILED" };
            let mut text = format!("{failed} out of {total} hunk{} {what}", plural(total));
            if !self.opts.dry_run {
                text.push_str(&format!(" -- saving rejects to file {}", quote(&rej_name)));
            }
            self.say(format!("{text}\n")).await?;
        }
        if self.opts.dry_run {
            return Ok(i32::from(!applied.failed.is_empty()));
        }
        if !applied.failed.is_empty() && rej_name != "-" {
            let rej = self.reject_text(patch, &applied.failed);
            self.write_file(&rej_name, &rej).await;
        }
        if applied.skipped {
            return Ok(1);
        }
        let backup = self.opts.backup || (self.opts.backup_if_mismatch && applied.mismatch);
        self.store(
            patch,
            input_name,
            output_name,
            original.as_deref(),
            &applied.output,
            backup,
        )
        .await?;
        Ok(i32::from(!applied.failed.is_empty()))
    }

    /// GNU's checks that a patch creating a file finds none there, and one deleting a
    /// file finds it. `Some(status)` if the patch is skipped.
    async fn check_create_delete(
        &mut self,
        patch: &FilePatch,
        name: &str,
        original: Option<&[u8]>,
    ) -> crate::Result<Option<i32>> {
        let (creates, deletes) = self.directed_null_sides(patch);
        let message = match original {
            Some(data) if creates && !data.is_empty() => "create",
            None if deletes => "delete",
            _ => return Ok(None),
        };
        let which = if message == "create" {
            "already exists"
        } else {
            "does not exist"
        };
        let text = format!(
            "The next patch would {message} the file {},\nwhich {which}!",
            quote(name)
        );
        match self.ask_reverse(&text).await? {
            Verdict::Reverse => {
                self.opts.reverse = !self.opts.reverse;
                Ok(None)
            }
            Verdict::ApplyAnyway => Ok(None),
            Verdict::Skip => {
                let count = patch.hunks.len();
                self.say(format!(
                    "{count} out of {count} hunk{} ignored\n",
                    plural(count)
                ))
                .await?;
                Ok(Some(1))
            }
        }
    }

    async fn apply_hunks(&mut self, patch: &FilePatch, data: &[u8]) -> crate::Result<Applied> {
        let file = lines_of(data);
        let mut locator = Locator {
            file: &file,
            in_offset: 0,
            last_frozen: 0,
            loose: self.opts.ignore_whitespace,
        };
        let mut applied = Applied {
            total: patch.hunks.len(),
            ..Applied::default()
        };
        let mut out_offset: isize = 0;
        for (index, original) in patch.hunks.iter().enumerate() {
            let number = index + 1;
            let mut hunk = if self.opts.reverse {
                original.swapped()
            } else {
                original.clone()
            };
            let found = if applied.skipped {
                None
            } else {
                self.find_place(&mut locator, &mut hunk, number, &mut applied)
                    .await?
            };
            let Some((at, fuzz)) = found else {
                let line = hunk.old_first as isize + out_offset;
                self.report_unapplied(&file, &hunk, number, line, applied.skipped)
                    .await?;
                applied
                    .failed
                    .push(reject_hunk(&hunk, out_offset, patch.reject_style()));
                applied.mismatch = true;
                continue;
            };
            let inexact = fuzz > 0 || locator.in_offset != 0;
            applied.mismatch |= inexact;
            if self.opts.verbose || (inexact && !self.opts.silent) {
                let line = at as isize + out_offset;
                let message = success_message(number, line, fuzz, locator.in_offset);
                self.say(message).await?;
            }
            locator.last_frozen =
                apply_at(&file, &hunk, at, locator.last_frozen, &mut applied.output);
            out_offset += hunk.new_len as isize - hunk.old_len as isize;
        }
        if !applied.skipped {
            let rest = file.get(locator.last_frozen..).unwrap_or_default();
            applied.output.extend(rest.concat());
        }
        Ok(applied)
    }

    /// Where `hunk` applies, and with what fuzz: GNU tries each fuzz in turn and, for
    /// the first hunk, whether the patch looks reversed (then `hunk` may be swapped,
    /// or the rest of the file's patch skipped).
    async fn find_place(
        &mut self,
        locator: &mut Locator<'_>,
        hunk: &mut Hunk,
        number: usize,
        applied: &mut Applied,
    ) -> crate::Result<Option<(usize, usize)>> {
        let max_fuzz = self
            .opts
            .fuzz
            .min(hunk.prefix_context().max(hunk.suffix_context()));
        for fuzz in 0..=max_fuzz {
            if let Some(at) = locator.locate(hunk, fuzz) {
                return Ok(Some((at, fuzz)));
            }
            // GNU backs the file up whenever a first try missed.
            applied.mismatch = true;
            if number > 1 || self.opts.force {
                continue;
            }
            let swapped = hunk.swapped();
            let saved = locator.in_offset;
            let Some(at) = locator.locate(&swapped, fuzz) else {
                continue;
            };
            let message = if self.opts.reverse {
                "Unreversed patch detected!"
            } else {
                "Reversed (or previously applied) patch detected!"
            };
            match self.ask_reverse(message).await? {
                Verdict::Reverse => {
                    self.opts.reverse = !self.opts.reverse;
                    *hunk = swapped;
                    return Ok(Some((at, fuzz)));
                }
                Verdict::ApplyAnyway => locator.in_offset = saved,
                Verdict::Skip => {
                    locator.in_offset = saved;
                    applied.skipped = true;
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }

    /// `Hunk #N FAILED at L.` (or, verbosely, `ignored` when the patch is skipped).
    async fn report_unapplied(
        &mut self,
        file: &[&[u8]],
        hunk: &Hunk,
        number: usize,
        line: isize,
        skipped: bool,
    ) -> crate::Result<()> {
        if skipped {
            if self.opts.verbose {
                self.say(format!("Hunk #{number} ignored at {line}.\n"))
                    .await?;
            }
            return Ok(());
        }
        if self.opts.silent {
            return Ok(());
        }
        let why = if endings_differ(file, hunk, line) {
            " (different line endings)"
        } else {
            ""
        };
        self.say(format!("Hunk #{number} FAILED at {line}{why}.\n"))
            .await
    }

    /// The `.rej` file: the patch's headers for the file (its names stripped as for
    /// finding the file), then each rejected hunk.
    fn reject_text(&self, patch: &FilePatch, hunks: &[Vec<u8>]) -> Vec<u8> {
        let name = |name: &Option<String>| match name.as_deref() {
            None | Some("/dev/null") => "/dev/null".to_owned(),
            Some(name) => strip_name(name, self.opts.strip).unwrap_or_else(|| name.to_owned()),
        };
        let mut old = (name(&patch.old_name), patch.old_rest.as_str());
        let mut new = (name(&patch.new_name), patch.new_rest.as_str());
        if self.opts.reverse {
            std::mem::swap(&mut old, &mut new);
        }
        let (old_tag, new_tag) = match patch.reject_style() {
            RejectStyle::Unified => ("---", "+++"),
            _ => ("***", "---"),
        };
        let mut text = format!(
            "{old_tag} {}{}\n{new_tag} {}{}\n",
            old.0, old.1, new.0, new.1
        )
        .into_bytes();
        for hunk in hunks {
            text.extend_from_slice(hunk);
        }
        text
    }
}

#[cfg(test)]
mod tests;
