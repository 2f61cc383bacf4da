//! `mkdir` (`-p`, `-m MODE`, `-v`) and `rmdir` (`-p`, `-v`,
//! `--ignore-fail-on-non-empty`).

use super::args::{self, Spec, Value};
use super::modes::{self, ModeChange, UMASK};
use super::{HELP, Run, VERSION, quote_always};
use crate::{Context, Status};
use sandtab_vfs::{ErrorKind, FileKind, SandboxFs, VfsError};
use std::sync::Arc;

const MKDIR: Spec = Spec {
    short: "m:pvZ::",
    long: &[
        ("mode", Value::Required, 'm'),
        ("parents", Value::No, 'p'),
        ("verbose", Value::No, 'v'),
        ("context", Value::Optional, 'Z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

struct MkdirOptions {
    parents: bool,
    verbose: bool,
    /// The mode of the directories the operands name.
    mode: u32,
}

pub(super) async fn mkdir(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let run = Run::new(fs, ctx);
    let parsed = match args::parse(ctx.args, &MKDIR) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let mut options = MkdirOptions {
        parents: false,
        verbose: false,
        mode: 0o777 & !UMASK,
    };
    let mut mode_text = None;
    for (key, value) in parsed.options {
        match key {
            'p' => options.parents = true,
            'v' => options.verbose = true,
            'm' => mode_text = value,
            HELP => return super::help(ctx, "[OPTION]... DIRECTORY...").await,
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    let mut run = run;
    if parsed.operands.is_empty() {
        return run.usage("missing operand").await;
    }
    if let Some(text) = mode_text {
        // `-m` is relative to a=rwx, not to the umask's default.
        match ModeChange::parse(&text) {
            Some(change) => options.mode = modes::mkdir_mode(&change),
            None => {
                run.fail(format!("invalid mode {}", quote_always(&text)))
                    .await?;
                return run.finish().await;
            }
        }
    }
    for operand in &parsed.operands {
        make_one(&mut run, operand, &options).await?;
    }
    run.finish().await
}

async fn make_one(run: &mut Run<'_, '_>, arg: &str, options: &MkdirOptions) -> crate::Result<()> {
    if options.parents {
        for prefix in ancestors(arg) {
            if !make_ancestor(run, prefix, options.verbose).await? {
                return Ok(());
            }
        }
    }
    let result = run.path(arg).and_then(|path| {
        let mem = run.fs().mem();
        match mem.stat(&path) {
            Ok(meta) if options.parents && meta.kind == FileKind::Directory => Ok(false),
            _ => {
                mem.create_dir(&path)?;
                mem.set_mode(&path, options.mode)?;
                Ok(true)
            }
        }
    });
    match result {
        Ok(true) if options.verbose => {
            run.say(format!("mkdir: created directory {}", quote_always(arg)))
                .await
        }
        Ok(_) => Ok(()),
        Err(err) => run.fail_at("cannot create directory", arg, &err).await,
    }
}

/// Makes the parent directory `prefix` for `-p` if it is missing; false when the
/// operand cannot be made.
async fn make_ancestor(run: &mut Run<'_, '_>, prefix: &str, verbose: bool) -> crate::Result<bool> {
    let result = run.path(prefix).and_then(|path| {
        let mem = run.fs().mem();
        match mem.stat(&path) {
            Ok(meta) if meta.kind == FileKind::Directory => Ok(false),
            Ok(_) => Err(VfsError::new(ErrorKind::NotADirectory, prefix)),
            Err(err) if err.kind() == ErrorKind::NotFound => {
                mem.create_dir(&path)?;
                Ok(true)
            }
            Err(err) => Err(err),
        }
    });
    match result {
        Ok(created) => {
            if created && verbose {
                run.say(format!("mkdir: created directory {}", quote_always(prefix)))
                    .await?;
            }
            Ok(true)
        }
        Err(err) => {
            run.fail_at("cannot create directory", prefix, &err).await?;
            Ok(false)
        }
    }
}

/// The parents of `arg` as the user spelled them: `a`, `a/b` for `a/b/c`, leaving
/// out `.` and `..` steps.
fn ancestors(arg: &str) -> Vec<&str> {
    let trimmed = arg.trim_end_matches('/');
    let mut prefixes = Vec::new();
    for (at, _) in trimmed.match_indices('/') {
        let prefix = &trimmed[..at];
        let last = prefix.rsplit('/').next().unwrap_or(prefix);
        if !matches!(last, "" | "." | "..") {
            prefixes.push(prefix);
        }
    }
    prefixes
}

const RMDIR: Spec = Spec {
    short: "pv",
    long: &[
        ("parents", Value::No, 'p'),
        ("verbose", Value::No, 'v'),
        ("ignore-fail-on-non-empty", Value::No, 'i'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

struct RmdirOptions {
    parents: bool,
    verbose: bool,
    ignore_non_empty: bool,
}

pub(super) async fn rmdir(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let mut run = Run::new(fs, ctx);
    let parsed = match args::parse(ctx.args, &RMDIR) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let mut options = RmdirOptions {
        parents: false,
        verbose: false,
        ignore_non_empty: false,
    };
    for (key, _) in parsed.options {
        match key {
            'p' => options.parents = true,
            'v' => options.verbose = true,
            'i' => options.ignore_non_empty = true,
            HELP => return super::help(ctx, "[OPTION]... DIRECTORY...").await,
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    if parsed.operands.is_empty() {
        return run.usage("missing operand").await;
    }
    for operand in &parsed.operands {
        if remove_dir(&mut run, operand, &options, "failed to remove").await? && options.parents {
            remove_parents(&mut run, operand, &options).await?;
        }
    }
    run.finish().await
}

/// Removes the empty directory `arg`; whether it is gone (or the failure ignored).
async fn remove_dir(
    run: &mut Run<'_, '_>,
    arg: &str,
    options: &RmdirOptions,
    what: &str,
) -> crate::Result<bool> {
    if options.verbose {
        run.say(format!("rmdir: removing directory, {}", quote_always(arg)))
            .await?;
    }
    let result = match super::base_name(arg) {
        // The kernel refuses these names whatever the directory holds.
        "." => Err(VfsError::new(ErrorKind::InvalidInput, arg)),
        ".." => Err(VfsError::new(ErrorKind::DirectoryNotEmpty, arg)),
        _ => run
            .path(arg)
            .and_then(|path| run.fs().mem().remove_dir(&path)),
    };
    match result {
        Ok(()) => Ok(true),
        Err(err)
            if options.ignore_non_empty
                && matches!(
                    err.kind(),
                    ErrorKind::DirectoryNotEmpty | ErrorKind::AlreadyExists
                ) =>
        {
            Ok(false)
        }
        Err(err) => {
            run.fail_at(what, arg, &err).await?;
            Ok(false)
        }
    }
}

/// `-p`: removes `a/b` and then `a` after `a/b/c`, stopping at the first failure.
async fn remove_parents(
    run: &mut Run<'_, '_>,
    arg: &str,
    options: &RmdirOptions,
) -> crate::Result<()> {
    let mut dir = arg.trim_end_matches('/');
    while let Some(slash) = dir.rfind('/') {
        dir = dir[..slash].trim_end_matches('/');
        if dir.is_empty() {
            break;
        }
        let is_dir = run
            .path(dir)
            .and_then(|path| run.fs().mem().lstat(&path))
            .is_ok_and(|meta| meta.kind == FileKind::Directory);
        let what = if is_dir {
            "failed to remove directory"
        } else {
            "failed to remove"
        };
        if !remove_dir(run, dir, options, what).await? {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ancestors;

    #[test]
    fn ancestors_as_spelled() {
        assert_eq!(ancestors("a/b/c"), vec!["a", "a/b"]);
        assert_eq!(ancestors("x/y/"), vec!["x"]);
        assert_eq!(ancestors("./a/b"), vec!["./a"]);
        assert_eq!(ancestors("/tmp/q"), vec!["/tmp"]);
        assert!(ancestors("a").is_empty());
    }
}
