//! `patch`: GNU patch applying unified, context and normal diffs (git's extended
//! headers too: new, deleted and renamed files, mode changes) to the sandbox's files.
//! Hunks are found where the diff says or nearby (offset), with fuzz, as GNU finds
//! them; a hunk that fails goes to `FILE.rej`, the original to `FILE.orig`. Without a
//! terminal, GNU's questions take their default answers, so the same words appear here.

mod apply;
mod locate;
mod options;
mod parse;
mod reject;

use super::getopt::{self, Arg, HasArg};
use super::util::shell_quote as quote;
use super::util::{Files, Output, read_stdin, strerror};
use apply::*;
use bashkit::{BashBuilder, CommandContext, CommandStatus};
use locate::*;
use options::*;
use parse::*;
use reject::*;
use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use std::sync::Arc;

pub(crate) fn register(builder: BashBuilder, fs: &Arc<SandboxFs>) -> BashBuilder {
    builder.command("patch", Patch { fs: fs.clone() })
}

struct Patch {
    fs: Arc<SandboxFs>,
}

#[bashkit::async_trait]
impl bashkit::Command for Patch {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let opts = match parse_args(ctx.args) {
            Ok(Parsed::Run(opts)) => *opts,
            Ok(Parsed::Help) => return print(&ctx, HELP).await,
            Ok(Parsed::Version) => return print(&ctx, VERSION).await,
            Err(ArgError::Usage(message)) => {
                let text =
                    format!("patch: {message}\npatch: Try 'patch --help' for more information.\n");
                ctx.stderr.write_all(text.as_bytes()).await?;
                return Ok(CommandStatus::with_code(2));
            }
            Err(ArgError::Fatal(message)) => {
                ctx.stderr
                    .write_all(format!("patch: **** {message}\n").as_bytes())
                    .await?;
                return Ok(CommandStatus::with_code(2));
            }
        };
        let mut run = Run::new(&self.fs, &ctx, opts);
        let status = run.main().await?;
        run.out.finish(status).await
    }
}

async fn print(ctx: &CommandContext<'_>, text: &str) -> bashkit::Result<CommandStatus> {
    ctx.stdout.write_all(text.as_bytes()).await?;
    Ok(CommandStatus::with_code(0))
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
    ctx: &'c CommandContext<'a>,
    out: Output<'c, 'a>,
    opts: Options,
    /// Where relative names start (the `-d` directory).
    base: VfsPath,
    /// Messages go to stderr when the patched file goes to stdout (`-o -`).
    to_stderr: bool,
}

impl<'r, 'c, 'a> Run<'r, 'c, 'a> {
    fn new(fs: &'r Arc<SandboxFs>, ctx: &'c CommandContext<'a>, opts: Options) -> Self {
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

    async fn say(&mut self, text: impl AsRef<str>) -> bashkit::Result<()> {
        if self.to_stderr {
            self.out.err(text).await
        } else {
            self.out.out(text.as_ref()).await
        }
    }

    async fn fatal(&mut self, message: &str) -> bashkit::Result<i32> {
        self.out.err(format!("patch: **** {message}\n")).await?;
        Ok(2)
    }

    async fn main(&mut self) -> bashkit::Result<i32> {
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
    async fn introduce(&mut self, patch: &FilePatch, first: bool) -> bashkit::Result<()> {
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
    async fn read_patch(&mut self) -> bashkit::Result<Result<Vec<u8>, String>> {
        match self.opts.input.clone() {
            Some(name) if name != "-" => Ok(self
                .files()
                .read(&name)
                .await
                .map_err(|err| format!("Can't open patch file {name} : {}", strerror(&err)))),
            _ => Ok(Ok(read_stdin(self.ctx).await?)),
        }
    }

    fn exists(&self, name: &str) -> bool {
        self.files()
            .stat(name)
            .is_ok_and(|m| m.kind == FileKind::File)
    }

    /// The file a patch is for, chosen as GNU chooses; `None` if there is none.
    fn choose_file(&self, patch: &FilePatch) -> Option<(String, String)> {
        if let Some(target) = &self.opts.target {
            return Some((target.clone(), target.clone()));
        }
        let strip = |name: &Option<String>| {
            name.as_ref()
                .filter(|n| n.as_str() != "/dev/null")
                .and_then(|n| strip_name(n, self.opts.strip))
        };
        if let Some(git) = &patch.git {
            let old = strip(&Some(git.old.clone()));
            let new = strip(&Some(git.new.clone()));
            let (old, new) = match (old, new) {
                (Some(old), Some(new)) => (old, new),
                (Some(name), None) | (None, Some(name)) => (name.clone(), name),
                (None, None) => return None,
            };
            let (input, output) = if self.opts.reverse {
                (new, old)
            } else {
                (old, new)
            };
            let (creates, deletes) = self.directed_null_sides(patch);
            return (creates || deletes || self.exists(&input)).then_some((input, output));
        }
        let mut candidates: Vec<String> = [strip(&patch.old_name), strip(&patch.new_name)]
            .into_iter()
            .flatten()
            .collect();
        if candidates.is_empty() {
            candidates.extend(strip(&patch.index_name));
        }
        let existing: Vec<String> = candidates
            .iter()
            .filter(|n| self.exists(n))
            .cloned()
            .collect();
        if let Some(best) = best_name(&existing) {
            return Some((best.clone(), best.clone()));
        }
        // No such file: fine for a patch that creates one, and a deletion is told
        // that its file is gone.
        let (_, deletes) = self.directed_null_sides(patch);
        let name = if self.is_creation(patch) {
            strip(&patch.new_name).or_else(|| strip(&patch.old_name))?
        } else if deletes {
            strip(&patch.old_name)?
        } else {
            return None;
        };
        Some((name.clone(), name))
    }

    /// Whether the patch, in the current direction, creates and deletes its file.
    fn directed_null_sides(&self, patch: &FilePatch) -> (bool, bool) {
        let (old_null, new_null) = self.null_sides(patch);
        if self.opts.reverse {
            (new_null, old_null)
        } else {
            (old_null, new_null)
        }
    }

    /// Whether the patch (in the current direction) makes a new file.
    fn is_creation(&self, patch: &FilePatch) -> bool {
        let (old_null, new_null) = self.null_sides(patch);
        let old_empty = !patch.hunks.is_empty()
            && patch
                .hunks
                .iter()
                .all(|h| h.old_len == 0 && h.old_first <= 1);
        if self.opts.reverse {
            new_null
        } else {
            old_null || old_empty
        }
    }

    /// Whether the old and new sides are `/dev/null` (git: new or deleted file).
    fn null_sides(&self, patch: &FilePatch) -> (bool, bool) {
        let git_new = patch.git.as_ref().is_some_and(|g| g.new_file);
        let git_deleted = patch.git.as_ref().is_some_and(|g| g.deleted);
        // `diff -N` dates an absent file at the epoch.
        (
            is_dev_null(&patch.old_name) || git_new || is_epoch(&patch.old_rest),
            is_dev_null(&patch.new_name) || git_deleted || is_epoch(&patch.new_rest),
        )
    }

    async fn cant_find(&mut self, patch: &FilePatch) -> bashkit::Result<i32> {
        let hint = if self.opts.strip.is_some() {
            "used the wrong"
        } else {
            "should have used the"
        };
        let mut text = format!(
            "can't find file to patch at input line {}\nPerhaps you {hint} -p or --strip option?\n",
            patch.first_hunk_line
        );
        text.push_str(&leading_text_block(&patch.leading_text));
        if self.opts.force || self.opts.batch {
            text.push_str("No file to patch.  Skipping patch.\n");
        } else {
            text.push_str("File to patch: \nSkip this patch? [y] \nSkipping patch.\n");
        }
        let count = patch.hunks.len();
        text.push_str(&format!(
            "{count} out of {count} hunk{} ignored\n",
            plural(count)
        ));
        self.say(text).await?;
        Ok(1)
    }

    /// What to do with a patch that looks reversed.
    async fn ask_reverse(&mut self, message: &str) -> bashkit::Result<Verdict> {
        let reverse = self.opts.reverse;
        let (verdict, tail) = if self.opts.forward {
            (Verdict::Skip, "  Skipping patch.\n")
        } else if self.opts.force {
            (Verdict::ApplyAnyway, "  Applying it anyway.\n")
        } else if self.opts.batch {
            (
                Verdict::Reverse,
                if reverse {
                    "  Ignoring -R.\n"
                } else {
                    "  Assuming -R.\n"
                },
            )
        } else if reverse {
            (
                Verdict::Skip,
                "  Ignore -R? [n] \nApply anyway? [n] \nSkipping patch.\n",
            )
        } else {
            (
                Verdict::Skip,
                "  Assume -R? [n] \nApply anyway? [n] \nSkipping patch.\n",
            )
        };
        self.say(format!("{message}{tail}")).await?;
        Ok(verdict)
    }

    /// Applies the part of the patch for one file; its exit status.
    async fn apply_file(&mut self, patch: &FilePatch) -> bashkit::Result<i32> {
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
    ) -> bashkit::Result<i32> {
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
    ) -> bashkit::Result<Option<i32>> {
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

    async fn apply_hunks(&mut self, patch: &FilePatch, data: &[u8]) -> bashkit::Result<Applied> {
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
    ) -> bashkit::Result<Option<(usize, usize)>> {
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
    ) -> bashkit::Result<()> {
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

    /// Writes `data` to `name`, creating its directory; failures are reported.
    async fn write_file(&mut self, name: &str, data: &[u8]) -> bool {
        let files = self.files();
        let Ok(path) = files.path(name) else {
            return false;
        };
        if let Some(parent) = path.parent() {
            let _ = self.fs.mem().create_dir_all(&parent);
        }
        match files.write(name, data).await {
            Ok(()) => true,
            Err(err) => {
                let message = format!(
                    "patch: **** Can't create file {name} : {}\n",
                    strerror(&err)
                );
                let _ = self.out.err(message).await;
                false
            }
        }
    }

    /// Puts the patched contents in place: the output file, a backup, a removed file
    /// for a deletion, a rename or a mode change from git's headers.
    async fn store(
        &mut self,
        patch: &FilePatch,
        input_name: &str,
        output_name: &str,
        original: Option<&[u8]>,
        output: &[u8],
        backup: bool,
    ) -> bashkit::Result<()> {
        if let Some(target) = self.opts.output.clone() {
            return self.store_output(&target, output).await;
        }
        let input_mode = self.files().stat(input_name).ok().map(|meta| meta.mode);
        if let (true, Some(data)) = (backup, original) {
            self.back_up(input_name, data, input_mode).await;
        }
        let (_, deletes) = self.directed_null_sides(patch);
        if output.is_empty() && (deletes || self.opts.remove_empty) {
            self.remove(input_name);
            if output_name != input_name {
                self.remove(output_name);
            }
            return Ok(());
        }
        let renamed = patch.git.as_ref().is_some_and(|g| g.rename) && input_name != output_name;
        if !self.write_file(output_name, output).await {
            return Ok(());
        }
        if renamed {
            self.remove(input_name);
        }
        // Git's mode for the result; otherwise a renamed or copied file keeps its mode.
        let git_mode = patch.git.as_ref().and_then(|g| {
            if self.opts.reverse {
                g.old_mode
            } else {
                g.new_mode
            }
        });
        let mode = git_mode.or(input_mode.filter(|_| output_name != input_name));
        if let (Some(mode), Ok(path)) = (mode, self.files().path(output_name)) {
            let _ = self.fs.mem().set_mode(&path, mode & 0o7777);
        }
        Ok(())
    }

    /// `-o FILE` (`-` for stdout): the result goes there instead.
    async fn store_output(&mut self, target: &str, output: &[u8]) -> bashkit::Result<()> {
        if target == "-" {
            return self.out.out(output).await;
        }
        let fresh = self.files().lstat(target).is_err();
        let written = self.write_file(target, output).await;
        // GNU makes a new output file private to its owner.
        if let (true, true, Ok(path)) = (written, fresh, self.files().path(target)) {
            let _ = self.fs.mem().set_mode(&path, 0o600);
        }
        Ok(())
    }

    /// Saves the original as `FILE.orig` (or as `-z` and `-B` say), with its mode.
    async fn back_up(&mut self, input_name: &str, data: &[u8], mode: Option<u32>) {
        // A prefix alone replaces the suffix.
        let name = match (&self.opts.prefix, &self.opts.suffix) {
            (Some(prefix), suffix) => {
                format!("{prefix}{input_name}{}", suffix.as_deref().unwrap_or(""))
            }
            (None, suffix) => format!("{input_name}{}", suffix.as_deref().unwrap_or(".orig")),
        };
        let written = self.write_file(&name, data).await;
        if let (true, Some(mode), Ok(path)) = (written, mode, self.files().path(&name)) {
            let _ = self.fs.mem().set_mode(&path, mode);
        }
    }

    /// Removes a file and the directories it leaves empty (as GNU does for deletions).
    fn remove(&self, name: &str) {
        let Ok(path) = self.files().path(name) else {
            return;
        };
        let mem = self.fs.mem();
        if mem.remove_file(&path).is_err() {
            return;
        }
        let mut dir = path.parent();
        while let Some(current) = dir {
            if current == self.base || !current.starts_with(&self.base) {
                break;
            }
            if !mem
                .read_dir(&current)
                .is_ok_and(|entries| entries.is_empty())
                || mem.remove_dir(&current).is_err()
            {
                break;
            }
            dir = current.parent();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(text: &str) -> Hunk {
        let files = Parser::new(text.as_bytes()).parse();
        files[0].hunks[0].clone()
    }

    #[test]
    fn parses_unified_files_and_hunks() {
        let files = Parser::new(
            b"diff --git a/x b/x\nindex 1..2\n--- a/x\t2020-01-01\n+++ b/x\n@@ -1,2 +1,2 @@ fn\n a\n-b\n+c\n\\ No newline at end of file\n",
        )
        .parse();
        assert_eq!(files.len(), 1);
        let file = &files[0];
        assert_eq!(file.old_name.as_deref(), Some("a/x"));
        assert_eq!(file.old_rest, "\t2020-01-01");
        assert_eq!(file.first_hunk_line, 5);
        let hunk = &file.hunks[0];
        assert_eq!(hunk.suffix, " fn");
        assert_eq!(hunk.lines.last(), Some(&HunkLine::Insert(b"c".to_vec())));
    }

    #[test]
    fn parses_context_and_normal_hunks() {
        let context =
            hunk("*** a\n--- b\n***************\n*** 1,2 ****\n  x\n! y\n--- 1,2 ----\n  x\n! z\n");
        assert_eq!(
            context.lines,
            [
                HunkLine::Context(b"x\n".to_vec()),
                HunkLine::Delete(b"y\n".to_vec()),
                HunkLine::Insert(b"z\n".to_vec())
            ]
        );
        let normal = hunk("3a4\n> four\n");
        assert_eq!(
            (normal.old_first, normal.old_len, normal.new_len),
            (4, 0, 1)
        );
    }

    #[test]
    fn strips_names() {
        assert_eq!(strip_name("a/src/x.c", Some(1)).as_deref(), Some("src/x.c"));
        assert_eq!(strip_name("a/src/x.c", None).as_deref(), Some("x.c"));
        assert_eq!(strip_name("x.c", Some(1)), None);
        assert_eq!(
            split_header_name("f 2024-01-01 10:00"),
            ("f".into(), " 2024-01-01 10:00".into())
        );
    }

    #[test]
    fn locates_with_offset_and_fuzz() {
        let file: Vec<&[u8]> = vec![b"extra\n", b"hello\n", b"world\n"];
        let mut locator = Locator {
            file: &file,
            in_offset: 0,
            last_frozen: 0,
            loose: false,
        };
        let h = hunk("--- f\n+++ f\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n");
        assert_eq!(locator.locate(&h, 0), Some(2));
        assert_eq!(locator.in_offset, 1);
    }

    #[test]
    fn rejects_are_unified() {
        let h = hunk("--- f\n+++ f\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n");
        assert_eq!(
            reject_hunk(&h, 0, RejectStyle::Unified),
            b"@@ -1,2 +1,2 @@\n hello\n-world\n+there\n"
        );
        assert_eq!(
            success_message(1, 3, 0, 2),
            "Hunk #1 succeeded at 3 (offset 2 lines).\n"
        );
    }

    #[test]
    fn hunks_apply_with_context_from_the_file() {
        let file: Vec<&[u8]> = vec![b"a\n", b"B\n", b"c\n", b"d\n"];
        let h = hunk("--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n");
        let mut out = Vec::new();
        // The trailing context stays uncopied, free for the next hunk.
        assert_eq!(apply_at(&file, &h, 1, 0, &mut out), 2);
        assert_eq!(out, b"a\nb\n");
    }

    #[test]
    fn swapping_keeps_deletions_first() {
        let h = hunk("--- f\n+++ f\n@@ -1,2 +1,2 @@\n x\n-old\n+new\n");
        let lines = h.swapped().lines;
        assert_eq!(lines[1], HunkLine::Delete(b"new\n".to_vec()));
        assert_eq!(lines[2], HunkLine::Insert(b"old\n".to_vec()));
    }

    #[test]
    fn epoch_times_mean_absent_files() {
        assert!(is_epoch("\t1970-01-01 00:00:00.000000000 +0000"));
        assert!(!is_epoch("\t2024-01-01 00:00:00.000000000 +0000"));
    }

    #[test]
    fn bad_arguments() {
        let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(
            matches!(parse_args(&args(&["-px"])), Err(ArgError::Fatal(m)) if m == "strip count x is not a number")
        );
        assert!(
            matches!(parse_args(&args(&["a", "b", "c"])), Err(ArgError::Usage(m)) if m == "c: extra operand")
        );
    }
}
