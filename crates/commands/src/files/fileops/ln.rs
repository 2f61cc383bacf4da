//! `ln`: hard links by default, `-s` symbolic (`-r` relative), `-f`, `-i`, `-n`,
//! `-T`/`-t`, `-v`, and links made into a directory.

use super::args::{self, Spec, Value};
use super::target::check_directory;
use super::{HELP, Run, VERSION, child_name, quote_always};
use crate::util::{quote, strerror};
use crate::{Context, Status};
use sandtab_vfs::{ErrorKind, FileKind, SandboxFs, VfsError, VfsPath};
use std::sync::Arc;

const SPEC: Spec = Spec {
    short: "bdfFiLnPrsSt:Tv",
    long: &[
        ("directory", Value::No, 'd'),
        ("force", Value::No, 'f'),
        ("interactive", Value::No, 'i'),
        ("logical", Value::No, 'L'),
        ("no-dereference", Value::No, 'n'),
        ("no-target-directory", Value::No, 'T'),
        ("physical", Value::No, 'P'),
        ("relative", Value::No, 'r'),
        ("symbolic", Value::No, 's'),
        ("target-directory", Value::Required, 't'),
        ("verbose", Value::No, 'v'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

#[derive(Default)]
struct Options {
    symbolic: bool,
    force: bool,
    interactive: bool,
    no_dereference: bool,
    logical: bool,
    relative: bool,
    verbose: bool,
    target_dir: Option<String>,
    no_target_dir: bool,
}

pub(super) async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let mut run = Run::new(fs, ctx);
    let parsed = match args::parse(ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let mut options = Options::default();
    for (key, value) in parsed.options {
        match key {
            's' => options.symbolic = true,
            'f' => {
                options.force = true;
                options.interactive = false;
            }
            'i' => {
                options.interactive = true;
                options.force = false;
            }
            'n' => options.no_dereference = true,
            'L' => options.logical = true,
            'P' => options.logical = false,
            'r' => options.relative = true,
            'v' => options.verbose = true,
            't' => options.target_dir = value,
            'T' => options.no_target_dir = true,
            HELP => {
                return super::help(ctx, "[OPTION]... [-T] TARGET LINK_NAME\n  or:  ln [OPTION]... TARGET\n  or:  ln [OPTION]... TARGET... DIRECTORY\n  or:  ln [OPTION]... -t DIRECTORY TARGET...").await;
            }
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    if options.relative && !options.symbolic {
        run.fail("cannot do --relative without --symbolic").await?;
        return run.finish().await;
    }
    if let Some(links) = plan(&mut run, &parsed.operands, &options).await? {
        for (target, link) in links {
            make_link(&mut run, &options, &target, &link).await?;
        }
    }
    run.finish().await
}

/// Each target with the name of its link; `None` after reporting a usage problem.
async fn plan(
    run: &mut Run<'_, '_>,
    operands: &[String],
    options: &Options,
) -> crate::Result<Option<Vec<(String, String)>>> {
    let into = |dir: &str, targets: &[String]| -> Vec<(String, String)> {
        targets
            .iter()
            .map(|target| (target.clone(), child_name(dir, super::base_name(target))))
            .collect()
    };
    if let Some(dir) = &options.target_dir {
        if operands.is_empty() {
            run.usage_error("missing file operand").await?;
            return Ok(None);
        }
        return match check_directory(run, dir) {
            Ok(()) => Ok(Some(into(dir, operands))),
            Err(err) if err.kind() == ErrorKind::NotADirectory => {
                run.fail(format!("target {} is not a directory", quote_always(dir)))
                    .await?;
                Ok(None)
            }
            Err(err) => {
                run.fail_at("failed to access", dir, &err).await?;
                Ok(None)
            }
        };
    }
    match operands {
        [] => {
            run.usage_error("missing file operand").await?;
            Ok(None)
        }
        [only] if !options.no_target_dir => Ok(Some(into(".", std::slice::from_ref(only)))),
        [only] => {
            let message = format!(
                "missing destination file operand after {}",
                quote_always(only)
            );
            run.usage_error(&message).await?;
            Ok(None)
        }
        [_, _, extra, ..] if options.no_target_dir => {
            run.usage_error(&format!("extra operand {}", quote_always(extra)))
                .await?;
            Ok(None)
        }
        [target, link] if options.no_target_dir || !is_link_dir(run, link, options) => {
            Ok(Some(vec![(target.clone(), link.clone())]))
        }
        [targets @ .., dir] => match check_directory(run, dir) {
            Ok(()) => Ok(Some(into(dir, targets))),
            Err(err) => {
                let message = format!("target {}: {}", quote_always(dir), strerror(&err));
                run.fail(message).await?;
                Ok(None)
            }
        },
    }
}

/// Whether links go into `arg`: a directory, unless `-n` and it is a symlink.
fn is_link_dir(run: &Run<'_, '_>, arg: &str, options: &Options) -> bool {
    if options.no_dereference
        && run
            .lstat_arg(arg)
            .is_ok_and(|m| m.kind == FileKind::Symlink)
    {
        return false;
    }
    check_directory(run, arg).is_ok()
}

async fn make_link(
    run: &mut Run<'_, '_>,
    options: &Options,
    target: &str,
    link: &str,
) -> crate::Result<()> {
    let (target_path, link_path) = match run.path(target).and_then(|t| Ok((t, run.path(link)?))) {
        Ok(paths) => paths,
        Err(err) => return run.fail_at("failed to access", target, &err).await,
    };
    let mem = run.fs().mem();
    let source = if options.symbolic {
        None
    } else {
        let found = if options.logical {
            mem.stat(&target_path)
        } else {
            run.lstat_arg(target)
        };
        match found {
            Ok(meta) if meta.kind == FileKind::Directory => {
                return run
                    .fail(format!(
                        "{}: hard link not allowed for directory",
                        quote(target)
                    ))
                    .await;
            }
            Ok(meta) => Some(meta),
            Err(err) => return run.fail_at("failed to access", target, &err).await,
        }
    };
    if let Ok(existing) = mem.lstat(&link_path) {
        if source.as_ref().is_some_and(|s| s.ino == existing.ino) && options.force {
            let message = format!(
                "{} and {} are the same file",
                quote_always(target),
                quote_always(link)
            );
            return run.fail(message).await;
        }
        if !may_replace(run, options, link, &link_path, existing.kind).await? {
            return Ok(());
        }
    }
    let result = if options.symbolic {
        let stored = if options.relative {
            relative_target(&target_path, &link_path)
        } else {
            target.to_owned()
        };
        mem.symlink(&stored, &link_path).map(|()| stored)
    } else {
        let existing = if options.logical {
            resolve_symlinks(run, &target_path)
        } else {
            target_path.clone()
        };
        mem.hard_link(&existing, &link_path)
            .map(|()| target.to_owned())
    };
    match result {
        Ok(stored) if options.verbose => {
            let arrow = if options.symbolic { "->" } else { "=>" };
            let line = format!("{} {arrow} {}", quote_always(link), quote_always(&stored));
            run.say(line).await
        }
        Ok(_) => Ok(()),
        Err(err) => report_failure(run, options, target, link, &err).await,
    }
}

/// `-f` removes an existing link name (never a directory); `-i` asks first.
async fn may_replace(
    run: &mut Run<'_, '_>,
    options: &Options,
    link: &str,
    link_path: &VfsPath,
    kind: FileKind,
) -> crate::Result<bool> {
    if options.interactive {
        if !run.ask(&format!("replace {}", quote_always(link))).await? {
            return Ok(false);
        }
    } else if !options.force {
        // Left to the link call, which reports "File exists".
        return Ok(true);
    }
    if kind == FileKind::Directory {
        run.fail(format!(
            "{}: cannot overwrite directory",
            quote_always(link)
        ))
        .await?;
        return Ok(false);
    }
    match run.fs().mem().remove_file(link_path) {
        Ok(()) => Ok(true),
        Err(err) => {
            run.fail_at("cannot remove", link, &err).await?;
            Ok(false)
        }
    }
}

async fn report_failure(
    run: &mut Run<'_, '_>,
    options: &Options,
    target: &str,
    link: &str,
    err: &VfsError,
) -> crate::Result<()> {
    let reason = strerror(err);
    let message = if options.symbolic {
        format!(
            "failed to create symbolic link {}: {reason}",
            quote_always(link)
        )
    } else if matches!(
        err.kind(),
        ErrorKind::AlreadyExists | ErrorKind::QuotaExceeded | ErrorKind::ReadOnly
    ) {
        format!(
            "failed to create hard link {}: {reason}",
            quote_always(link)
        )
    } else {
        format!(
            "failed to create hard link {} => {}: {reason}",
            quote_always(link),
            quote_always(target)
        )
    };
    run.fail(message).await
}

/// `path` with every symlink in it followed (for `-L`), or as is when that fails.
fn resolve_symlinks(run: &Run<'_, '_>, path: &VfsPath) -> VfsPath {
    let mem = run.fs().mem();
    let mut current = path.clone();
    for _ in 0..40 {
        match mem.read_link(&current) {
            Ok(target) => {
                let parent = current.parent().unwrap_or_default();
                match parent.join(&target) {
                    Ok(next) => current = next,
                    Err(_) => break,
                }
            }
            Err(_) => break,
        }
    }
    current
}

/// The target of a symlink at `link` that reaches `target`, relative to the link's
/// directory (`-r`).
fn relative_target(target: &VfsPath, link: &VfsPath) -> String {
    let from = link.parent().unwrap_or_default();
    let from = from.components();
    let to = target.components();
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(to[common..].iter().map(String::as_str));
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::relative_target;
    use sandtab_vfs::VfsPath;

    fn rel(target: &str, link: &str) -> String {
        relative_target(
            &VfsPath::parse(target).unwrap(),
            &VfsPath::parse(link).unwrap(),
        )
    }

    #[test]
    fn relative_targets() {
        assert_eq!(rel("/h/a", "/h/d/q"), "../a");
        assert_eq!(rel("/h/a", "/h/p/q/r"), "../../a");
        assert_eq!(rel("/h/a", "/h/b"), "a");
        assert_eq!(rel("/h/d/x", "/h/l"), "d/x");
    }
}
