//! `chmod`: octal and symbolic modes (`-w` too), `-R`, `-v`/`-c`, `-f`,
//! `--reference`, with GNU's messages (and its warning when the umask kept a bit
//! that `-w`-style modes meant to clear).

use super::args::{self, Spec, Value};
use super::modes::{ModeChange, UMASK, permission_string};
use super::{HELP, Run, VERSION, child_name, quote_always};
use crate::util::{is_missing, quote, strerror};
use crate::{Context, Status};
use sandtab_vfs::{FileKind, Metadata, SandboxFs, VfsPath};
use std::sync::Arc;

const REFERENCE: char = '\u{e050}';
const PRESERVE_ROOT: char = '\u{e051}';
const NO_PRESERVE_ROOT: char = '\u{e052}';

const SPEC: Spec = Spec {
    short: "cfvRHLP",
    long: &[
        ("changes", Value::No, 'c'),
        ("silent", Value::No, 'f'),
        ("quiet", Value::No, 'f'),
        ("verbose", Value::No, 'v'),
        ("recursive", Value::No, 'R'),
        ("reference", Value::Required, REFERENCE),
        ("preserve-root", Value::No, PRESERVE_ROOT),
        ("no-preserve-root", Value::No, NO_PRESERVE_ROOT),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Report {
    Quiet,
    Changes,
    All,
}

struct Options {
    report: Report,
    silent: bool,
    recursive: bool,
    preserve_root: bool,
    /// The mode came as an option (`-w`): warn when the umask changes its effect.
    diagnose_surprises: bool,
}

/// What a mode operand becomes: a change, or a reference file's mode.
enum NewMode {
    Change(ModeChange),
    Exactly(u32),
}

pub(super) async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let mut run = Run::new(fs, ctx);
    let (mode_options, rest) = split_mode_options(ctx.args);
    let parsed = match args::parse(&rest, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let mut options = Options {
        report: Report::Quiet,
        silent: false,
        recursive: false,
        preserve_root: false,
        diagnose_surprises: !mode_options.is_empty(),
    };
    let mut reference = None;
    for (key, value) in parsed.options {
        match key {
            'c' => options.report = Report::Changes,
            'v' => options.report = Report::All,
            'f' => options.silent = true,
            'R' => options.recursive = true,
            REFERENCE => reference = value,
            PRESERVE_ROOT => options.preserve_root = true,
            NO_PRESERVE_ROOT => options.preserve_root = false,
            HELP => {
                return super::help(ctx, "[OPTION]... MODE[,MODE]... FILE...\n  or:  chmod [OPTION]... OCTAL-MODE FILE...\n  or:  chmod [OPTION]... --reference=RFILE FILE...").await;
            }
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    if reference.is_some() && !mode_options.is_empty() {
        return run
            .usage("cannot combine mode and --reference options")
            .await;
    }
    let from_operand = mode_options.is_empty() && reference.is_none();
    let mut operands = parsed.operands.as_slice();
    let mode_text = if !mode_options.is_empty() {
        Some(mode_options.join(","))
    } else if let (true, Some((first, rest))) = (from_operand, operands.split_first()) {
        operands = rest;
        Some(first.clone())
    } else {
        None
    };
    if operands.is_empty() {
        let message = match (&mode_text, from_operand) {
            (Some(mode), true) => format!("missing operand after {}", quote_always(mode)),
            _ => "missing operand".to_owned(),
        };
        return run.usage(&message).await;
    }
    let new_mode = match (mode_text, reference) {
        (Some(text), _) => match ModeChange::parse(&text) {
            Some(change) => NewMode::Change(change),
            None => {
                return run
                    .usage(&format!("invalid mode: {}", quote_always(&text)))
                    .await;
            }
        },
        (None, Some(file)) => match run.stat(&file) {
            Ok(meta) => NewMode::Exactly(meta.mode),
            Err(err) => {
                run.fail_at("failed to get attributes of", &file, &err)
                    .await?;
                return run.finish().await;
            }
        },
        (None, None) => return run.usage("missing operand").await,
    };
    for operand in operands {
        change_operand(&mut run, &options, &new_mode, operand).await?;
    }
    run.finish().await
}

/// The arguments before `--` that are modes spelled like options (`-w`, `-rx`,
/// `-x,+r`), and the others.
fn split_mode_options(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut modes = Vec::new();
    let mut rest = Vec::new();
    let mut ended = false;
    for arg in args {
        let is_mode = !ended
            && arg.len() > 1
            && arg.starts_with('-')
            && !arg.starts_with("--")
            && arg[1..]
                .chars()
                .all(|c| "rwxXstugoa,+-=01234567".contains(c));
        if arg == "--" {
            ended = true;
        }
        if is_mode {
            modes.push(arg.clone());
        } else {
            rest.push(arg.clone());
        }
    }
    (modes, rest)
}

async fn change_operand(
    run: &mut Run<'_, '_>,
    options: &Options,
    new_mode: &NewMode,
    arg: &str,
) -> crate::Result<()> {
    let path = match run.path(arg) {
        Ok(path) => path,
        Err(err) => return not_accessible(run, options, arg, &err).await,
    };
    if options.recursive && options.preserve_root && path.is_root() {
        let message = format!(
            "it is dangerous to operate recursively on {}\nchmod: use --no-preserve-root to override this failsafe",
            quote_always(arg)
        );
        return run.fail(message).await;
    }
    let mem = run.fs().mem();
    let meta = match mem.stat(&path) {
        Ok(meta) => meta,
        Err(err) if is_missing(&err) && mem.lstat(&path).is_ok() => {
            run.status = 1;
            if !options.silent {
                let message = format!("cannot operate on dangling symlink {}", quote_always(arg));
                run.warn(message).await?;
            }
            return Ok(());
        }
        Err(err) => return not_accessible(run, options, arg, &err).await,
    };
    // A symlink named on the command line is followed, into its tree with -R.
    change_tree(run, options, new_mode, arg, &path, meta).await
}

async fn not_accessible(
    run: &mut Run<'_, '_>,
    options: &Options,
    arg: &str,
    err: &sandtab_vfs::VfsError,
) -> crate::Result<()> {
    run.status = 1;
    if !options.silent {
        let message = format!("cannot access {}: {}", quote_always(arg), strerror(err));
        run.warn(message).await?;
    }
    if options.report == Report::All {
        run.say(format!("{} could not be accessed", quote_always(arg)))
            .await?;
    }
    Ok(())
}

/// Changes `path` and, with `-R`, everything below it (symlinks there are left
/// alone, as GNU's default `-P` does).
async fn change_tree(
    run: &mut Run<'_, '_>,
    options: &Options,
    new_mode: &NewMode,
    name: &str,
    path: &VfsPath,
    meta: Metadata,
) -> crate::Result<()> {
    change_one(run, options, new_mode, name, path, &meta).await?;
    if !options.recursive || meta.kind != FileKind::Directory {
        return Ok(());
    }
    let entries = match run.fs().mem().read_dir(path) {
        Ok(entries) => entries,
        Err(err) => return not_accessible(run, options, name, &err).await,
    };
    for entry in entries {
        let child = child_name(name, &entry.name);
        let Ok(child_path) = path.join(&entry.name) else {
            continue;
        };
        if entry.metadata.kind == FileKind::Symlink {
            if options.report == Report::All {
                let line = format!(
                    "neither symbolic link {} nor referent has been changed",
                    quote_always(&child)
                );
                run.say(line).await?;
            }
            continue;
        }
        Box::pin(change_tree(
            run,
            options,
            new_mode,
            &child,
            &child_path,
            entry.metadata,
        ))
        .await?;
    }
    Ok(())
}

async fn change_one(
    run: &mut Run<'_, '_>,
    options: &Options,
    new_mode: &NewMode,
    name: &str,
    path: &VfsPath,
    meta: &Metadata,
) -> crate::Result<()> {
    let old = meta.mode & 0o7777;
    let dir = meta.kind == FileKind::Directory;
    let new = match new_mode {
        NewMode::Change(change) => change.apply(old, dir, UMASK),
        NewMode::Exactly(mode) => mode & 0o7777,
    };
    if new != old
        && let Err(err) = run.fs().mem().set_mode(path, new)
    {
        run.status = 1;
        if !options.silent {
            let message = format!(
                "changing permissions of {}: {}",
                quote_always(name),
                strerror(&err)
            );
            run.warn(message).await?;
        }
        return Ok(());
    }
    report_change(run, options, name, old, new).await?;
    if let (true, NewMode::Change(change)) = (options.diagnose_surprises, new_mode) {
        let naive = change.apply(old, dir, 0);
        if new & !naive != 0 {
            let message = format!(
                "{}: new permissions are {}, not {}",
                quote(name),
                permission_string(new),
                permission_string(naive)
            );
            run.fail(message).await?;
        }
    }
    Ok(())
}

async fn report_change(
    run: &mut Run<'_, '_>,
    options: &Options,
    name: &str,
    old: u32,
    new: u32,
) -> crate::Result<()> {
    let line = match options.report {
        Report::Quiet => return Ok(()),
        Report::Changes if old == new => return Ok(()),
        _ if old == new => format!(
            "mode of {} retained as {old:04o} ({})",
            quote_always(name),
            permission_string(old)
        ),
        _ => format!(
            "mode of {} changed from {old:04o} ({}) to {new:04o} ({})",
            quote_always(name),
            permission_string(old),
            permission_string(new)
        ),
    };
    run.say(line).await
}

#[cfg(test)]
mod tests {
    use super::split_mode_options;

    #[test]
    fn modes_spelled_as_options() {
        let args: Vec<String> = ["-R", "-w", "a", "-x,+r", "--", "-r"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let (modes, rest) = split_mode_options(&args);
        assert_eq!(modes, vec!["-w", "-x,+r"]);
        assert_eq!(rest, vec!["-R", "a", "--", "-r"]);
    }
}
