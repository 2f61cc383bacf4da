//! `rm`: files, and trees with `-r`; `-f`, `-i`/`-I` (answers read from stdin),
//! `-d`, `-v`, and the `/`, `.` and `..` safeguards.

use super::args::{self, Spec, Value};
use super::{HELP, Run, VERSION, child_name, quote_always};
use crate::util::is_missing;
use crate::{Context, Status};
use sandtab_vfs::{FileKind, Metadata, SandboxFs, VfsPath};
use std::sync::Arc;

const NO_PRESERVE_ROOT: char = '\u{e010}';
const PRESERVE_ROOT: char = '\u{e011}';
const INTERACTIVE: char = '\u{e012}';
const ONE_FILE_SYSTEM: char = '\u{e013}';

const SPEC: Spec = Spec {
    short: "dfiIrRv",
    long: &[
        ("dir", Value::No, 'd'),
        ("force", Value::No, 'f'),
        ("interactive", Value::Optional, INTERACTIVE),
        ("one-file-system", Value::No, ONE_FILE_SYSTEM),
        ("no-preserve-root", Value::No, NO_PRESERVE_ROOT),
        ("preserve-root", Value::Optional, PRESERVE_ROOT),
        ("recursive", Value::No, 'r'),
        ("verbose", Value::No, 'v'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Never,
    Once,
    Always,
}

struct Options {
    force: bool,
    prompt: Prompt,
    recursive: bool,
    dirs: bool,
    verbose: bool,
    preserve_root: bool,
}

pub(super) async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let run = Run::new(fs, ctx);
    let parsed = match args::parse(ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let mut options = Options {
        force: false,
        prompt: Prompt::Never,
        recursive: false,
        dirs: false,
        verbose: false,
        preserve_root: true,
    };
    for (key, value) in parsed.options {
        match key {
            'f' => {
                options.force = true;
                options.prompt = Prompt::Never;
            }
            'i' => {
                options.force = false;
                options.prompt = Prompt::Always;
            }
            'I' => {
                options.force = false;
                options.prompt = Prompt::Once;
            }
            INTERACTIVE => match interactive_when(value.as_deref()) {
                Some(prompt) => options.prompt = prompt,
                None => {
                    let value = value.unwrap_or_default();
                    let message = format!(
                        "invalid argument {} for '--interactive'\nValid arguments are:\n  - 'never', 'no', 'none'\n  - 'once'\n  - 'always', 'yes'",
                        quote_always(&value)
                    );
                    return run.usage(&message).await;
                }
            },
            'r' | 'R' => options.recursive = true,
            'd' => options.dirs = true,
            'v' => options.verbose = true,
            NO_PRESERVE_ROOT => options.preserve_root = false,
            PRESERVE_ROOT => options.preserve_root = true,
            HELP => return super::help(ctx, "[OPTION]... [FILE]...").await,
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    if parsed.operands.is_empty() {
        if options.force {
            return run.finish().await;
        }
        return run.usage("missing operand").await;
    }
    let mut run = run;
    if options.prompt == Prompt::Once && !confirm_once(&mut run, &parsed.operands, &options).await?
    {
        return run.finish().await;
    }
    for operand in &parsed.operands {
        remove_operand(&mut run, operand, &options).await?;
    }
    run.finish().await
}

fn interactive_when(value: Option<&str>) -> Option<Prompt> {
    let value = value.unwrap_or("always");
    let choices = [
        ("never", Prompt::Never),
        ("no", Prompt::Never),
        ("none", Prompt::Never),
        ("once", Prompt::Once),
        ("always", Prompt::Always),
        ("yes", Prompt::Always),
    ];
    if let Some((_, prompt)) = choices.iter().find(|(name, _)| *name == value) {
        return Some(*prompt);
    }
    let mut matching = choices.iter().filter(|(name, _)| name.starts_with(value));
    let first = matching.next()?;
    matching
        .all(|(_, prompt)| *prompt == first.1)
        .then_some(first.1)
}

/// `-I`: one question before removing more than three files or any tree.
async fn confirm_once(
    run: &mut Run<'_, '_>,
    operands: &[String],
    options: &Options,
) -> crate::Result<bool> {
    let count = operands.len();
    if !options.recursive && count <= 3 {
        return Ok(true);
    }
    let plural = if count == 1 { "argument" } else { "arguments" };
    let how = if options.recursive {
        " recursively"
    } else {
        ""
    };
    run.ask(&format!("remove {count} {plural}{how}")).await
}

async fn remove_operand(run: &mut Run<'_, '_>, arg: &str, options: &Options) -> crate::Result<()> {
    if options.recursive && matches!(super::base_name(arg), "." | "..") {
        let message = format!(
            "refusing to remove '.' or '..' directory: skipping {}",
            quote_always(arg)
        );
        return run.fail(message).await;
    }
    let path = match run.path(arg) {
        Ok(path) => path,
        Err(err) if options.force && is_missing(&err) => return Ok(()),
        Err(err) => return run.fail_at("cannot remove", arg, &err).await,
    };
    if options.recursive && options.preserve_root && path.is_root() {
        let message = format!(
            "it is dangerous to operate recursively on {}\nrm: use --no-preserve-root to override this failsafe",
            quote_always(arg)
        );
        return run.fail(message).await;
    }
    let meta = match run.lstat_arg(arg) {
        Ok(meta) => meta,
        Err(err) if options.force && is_missing(&err) => return Ok(()),
        Err(err) => return run.fail_at("cannot remove", arg, &err).await,
    };
    if meta.kind == FileKind::Directory && !options.recursive {
        if options.dirs {
            return remove_empty_dir(run, arg, &path, options).await.map(|_| ());
        }
        let message = format!("cannot remove {}: Is a directory", quote_always(arg));
        return run.fail(message).await;
    }
    remove_entry(run, arg, &path, &meta, options)
        .await
        .map(|_| ())
}

/// Removes `path` (a tree if it is a directory); whether it is gone.
async fn remove_entry(
    run: &mut Run<'_, '_>,
    name: &str,
    path: &VfsPath,
    meta: &Metadata,
    options: &Options,
) -> crate::Result<bool> {
    if meta.kind != FileKind::Directory {
        return remove_file(run, name, path, meta, options).await;
    }
    let quick = !options.verbose && options.prompt != Prompt::Always;
    let entries = match run.fs().mem().read_dir(path) {
        Ok(entries) => entries,
        Err(err) => {
            run.fail_at("cannot remove", name, &err).await?;
            return Ok(false);
        }
    };
    if quick {
        return match run.fs().mem().remove_all(path) {
            Ok(()) => Ok(true),
            Err(err) => {
                run.fail_at("cannot remove", name, &err).await?;
                Ok(false)
            }
        };
    }
    if !entries.is_empty() && options.prompt == Prompt::Always {
        let question = format!("descend into directory {}", quote_always(name));
        if !run.ask(&question).await? {
            return Ok(false);
        }
    }
    let mut all_gone = true;
    for entry in entries {
        let child = child_name(name, &entry.name);
        let child_path = match path.join(&entry.name) {
            Ok(child_path) => child_path,
            Err(err) => {
                run.fail_at("cannot remove", &child, &err).await?;
                all_gone = false;
                continue;
            }
        };
        let gone = Box::pin(remove_entry(
            run,
            &child,
            &child_path,
            &entry.metadata,
            options,
        ))
        .await?;
        all_gone &= gone;
    }
    if !all_gone {
        // A child that stays (declined or failed) keeps its parents; say nothing more.
        return Ok(false);
    }
    remove_empty_dir(run, name, path, options).await
}

async fn remove_empty_dir(
    run: &mut Run<'_, '_>,
    name: &str,
    path: &VfsPath,
    options: &Options,
) -> crate::Result<bool> {
    if options.prompt == Prompt::Always {
        let question = format!("remove directory {}", quote_always(name));
        if !run.ask(&question).await? {
            return Ok(false);
        }
    }
    match run.fs().mem().remove_dir(path) {
        Ok(()) => {
            if options.verbose {
                run.say(format!("removed directory {}", quote_always(name)))
                    .await?;
            }
            Ok(true)
        }
        Err(err) => {
            run.fail_at("cannot remove", name, &err).await?;
            Ok(false)
        }
    }
}

async fn remove_file(
    run: &mut Run<'_, '_>,
    name: &str,
    path: &VfsPath,
    meta: &Metadata,
    options: &Options,
) -> crate::Result<bool> {
    if options.prompt == Prompt::Always {
        let question = format!("remove {} {}", describe(meta), quote_always(name));
        if !run.ask(&question).await? {
            return Ok(false);
        }
    }
    match run.fs().mem().remove_file(path) {
        Ok(()) => {
            if options.verbose {
                run.say(format!("removed {}", quote_always(name))).await?;
            }
            Ok(true)
        }
        Err(err) => {
            run.fail_at("cannot remove", name, &err).await?;
            Ok(false)
        }
    }
}

/// What `rm -i` calls a file in its question.
fn describe(meta: &Metadata) -> &'static str {
    match meta.kind {
        FileKind::Symlink => "symbolic link",
        FileKind::Directory => "directory",
        FileKind::File if meta.size == 0 => "regular empty file",
        FileKind::File => "regular file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interactive_values() {
        assert_eq!(interactive_when(None), Some(Prompt::Always));
        assert_eq!(interactive_when(Some("never")), Some(Prompt::Never));
        assert_eq!(interactive_when(Some("o")), Some(Prompt::Once));
        assert_eq!(interactive_when(Some("n")), Some(Prompt::Never));
        assert_eq!(interactive_when(Some("bogus")), None);
    }
}
