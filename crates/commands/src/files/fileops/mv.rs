//! `mv`: renames, moves into a directory, `-f`/`-i`/`-n`, `-u`, `-t`/`-T`, `-v`;
//! across mounts it copies and then removes, as `rename` cannot.

use super::args::{self, Spec, Value};
use super::target::{self, Target};
use super::{HELP, Run, VERSION, child_name, quote_always};
use crate::util::{is_missing, strerror};
use crate::{Context, Status};
use sandtab_vfs::{ErrorKind, FileKind, Metadata, SandboxFs, VfsError, VfsPath};
use std::sync::Arc;

const IGNORED: char = '\u{e030}';
const UPDATE: char = '\u{e031}';

const SPEC: Spec = Spec {
    short: "fint:TuvZ",
    long: &[
        ("force", Value::No, 'f'),
        ("interactive", Value::No, 'i'),
        ("no-clobber", Value::No, 'n'),
        ("no-target-directory", Value::No, 'T'),
        ("strip-trailing-slashes", Value::No, IGNORED),
        ("target-directory", Value::Required, 't'),
        ("update", Value::Optional, UPDATE),
        ("verbose", Value::No, 'v'),
        ("context", Value::No, 'Z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overwrite {
    Yes,
    Never,
    Ask,
}

struct Options {
    overwrite: Overwrite,
    update: bool,
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
    let mut options = Options {
        overwrite: Overwrite::Yes,
        update: false,
        verbose: false,
        target_dir: None,
        no_target_dir: false,
    };
    for (key, value) in parsed.options {
        match key {
            'f' => options.overwrite = Overwrite::Yes,
            'i' => options.overwrite = Overwrite::Ask,
            'n' => options.overwrite = Overwrite::Never,
            't' => options.target_dir = value,
            'T' => options.no_target_dir = true,
            'u' | UPDATE => options.update = value.as_deref() != Some("all"),
            'v' => options.verbose = true,
            HELP => {
                return super::help(ctx, "[OPTION]... [-T] SOURCE DEST\n  or:  mv [OPTION]... SOURCE... DIRECTORY\n  or:  mv [OPTION]... -t DIRECTORY SOURCE...").await;
            }
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    let found = target::resolve(
        &mut run,
        &parsed.operands,
        &options.target_dir,
        options.no_target_dir,
    )
    .await?;
    match found {
        None => {}
        Some(Target::File { source, dest }) => {
            move_one(&mut run, &options, &source, &dest).await?;
        }
        Some(Target::Directory { sources, dir }) => {
            for source in &sources {
                let dest = child_name(&dir, super::base_name(source));
                move_one(&mut run, &options, source, &dest).await?;
            }
        }
    }
    run.finish().await
}

async fn move_one(
    run: &mut Run<'_, '_>,
    options: &Options,
    source: &str,
    dest: &str,
) -> crate::Result<()> {
    let found = run
        .lstat_arg(source)
        .and_then(|meta| Ok((meta, run.path(source)?, run.path(dest)?)));
    let (meta, source_path, dest_path) = match found {
        Ok(found) => found,
        Err(err) => return run.fail_at("cannot stat", source, &err).await,
    };
    if dest.ends_with('/') && meta.kind != FileKind::Directory {
        // `b/` names a directory: a file cannot become one.
        return match run.lstat_arg(dest) {
            Err(err) if !is_missing(&err) => run.fail_at("cannot stat", dest, &err).await,
            _ => {
                let message = format!(
                    "cannot move {} to {}: Not a directory",
                    quote_always(source),
                    quote_always(dest)
                );
                run.fail(message).await
            }
        };
    }
    if meta.kind == FileKind::Directory
        && dest_path != source_path
        && dest_path.starts_with(&source_path)
    {
        let message = format!(
            "cannot move {} to a subdirectory of itself, {}",
            quote_always(source),
            quote_always(dest)
        );
        return run.fail(message).await;
    }
    if let Ok(existing) = run.fs().mem().lstat(&dest_path)
        && !may_replace(run, options, source, &meta, dest, &existing).await?
    {
        return Ok(());
    }
    let mut result = run.fs().mem().rename(&source_path, &dest_path);
    if result
        .as_ref()
        .is_err_and(|err| err.kind() == ErrorKind::CrossDevice)
    {
        result = move_across(run, &source_path, &dest_path).await;
    }
    match result {
        Ok(()) if options.verbose => {
            let line = format!("renamed {} -> {}", quote_always(source), quote_always(dest));
            run.say(line).await
        }
        Ok(()) => Ok(()),
        Err(err) => {
            let message = format!(
                "cannot move {} to {}: {}",
                quote_always(source),
                quote_always(dest),
                strerror(&err)
            );
            run.fail(message).await
        }
    }
}

/// Whether the existing `dest` may be replaced by `source` (reporting why not).
async fn may_replace(
    run: &mut Run<'_, '_>,
    options: &Options,
    source: &str,
    meta: &Metadata,
    dest: &str,
    existing: &Metadata,
) -> crate::Result<bool> {
    if existing.ino == meta.ino {
        let message = format!(
            "{} and {} are the same file",
            quote_always(source),
            quote_always(dest)
        );
        run.fail(message).await?;
        return Ok(false);
    }
    let source_dir = meta.kind == FileKind::Directory;
    let dest_dir = existing.kind == FileKind::Directory;
    if source_dir != dest_dir {
        let message = if source_dir {
            format!(
                "cannot overwrite non-directory {} with directory {}",
                quote_always(dest),
                quote_always(source)
            )
        } else {
            format!(
                "cannot overwrite directory {} with non-directory",
                quote_always(dest)
            )
        };
        run.fail(message).await?;
        return Ok(false);
    }
    if options.update && existing.modified >= meta.modified {
        return Ok(false);
    }
    match options.overwrite {
        Overwrite::Yes => Ok(true),
        Overwrite::Never => Ok(false),
        Overwrite::Ask => run.ask(&format!("overwrite {}", quote_always(dest))).await,
    }
}

/// A move between mounts: copy everything (modes and times kept), then remove the
/// source.
async fn move_across(run: &mut Run<'_, '_>, from: &VfsPath, to: &VfsPath) -> Result<(), VfsError> {
    let mem = run.fs().mem();
    if let Ok(existing) = mem.lstat(to) {
        if existing.kind == FileKind::Directory {
            mem.remove_dir(to)?;
        } else {
            mem.remove_file(to)?;
        }
    }
    let mut pending = vec![(from.clone(), to.clone())];
    let mut dirs = Vec::new();
    while let Some((from, to)) = pending.pop() {
        let meta = mem.lstat(&from)?;
        match meta.kind {
            FileKind::Symlink => mem.symlink(&mem.read_link(&from)?, &to)?,
            FileKind::File => {
                run.fs().load_for_read(&from).await?;
                mem.write_owned(&to, mem.read(&from)?)?;
                mem.set_mode(&to, meta.mode)?;
                mem.set_times(&to, Some(meta.accessed), Some(meta.modified))?;
            }
            FileKind::Directory => {
                mem.create_dir(&to)?;
                for entry in mem.read_dir(&from)? {
                    pending.push((from.join(&entry.name)?, to.join(&entry.name)?));
                }
                dirs.push((to, meta));
            }
        }
    }
    // Directory times last, as adding entries changed them.
    for (dir, meta) in dirs.iter().rev() {
        mem.set_mode(dir, meta.mode)?;
        mem.set_times(dir, Some(meta.accessed), Some(meta.modified))?;
    }
    mem.remove_all(from)
}
