//! How `cp` and `mv` read their operands: `SOURCE DEST`, `SOURCE... DIRECTORY`,
//! `-t DIRECTORY SOURCE...` or `-T SOURCE DEST`.

use super::{Run, quote_always};
use crate::util::strerror;
use sandtab_vfs::{ErrorKind, FileKind, VfsError};

pub(crate) enum Target {
    /// Copy or move `source` to the name `dest`.
    File { source: String, dest: String },
    /// Copy or move each source into `dir`.
    Directory { sources: Vec<String>, dir: String },
}

/// The operation `operands` ask for; `None` after reporting why there is none.
pub(crate) async fn resolve(
    run: &mut Run<'_, '_>,
    operands: &[String],
    target_dir: &Option<String>,
    no_target_dir: bool,
) -> crate::Result<Option<Target>> {
    if target_dir.is_some() && no_target_dir {
        run.usage_error("cannot combine --target-directory (-t) and --no-target-directory (-T)")
            .await?;
        return Ok(None);
    }
    if let Some(dir) = target_dir {
        if operands.is_empty() {
            run.usage_error("missing file operand").await?;
            return Ok(None);
        }
        if let Err(err) = check_directory(run, dir) {
            let message = format!("target directory {}: {}", quote_always(dir), strerror(&err));
            run.fail(message).await?;
            return Ok(None);
        }
        return Ok(Some(Target::Directory {
            sources: operands.to_vec(),
            dir: dir.clone(),
        }));
    }
    let (dest, sources) = match operands {
        [] => {
            run.usage_error("missing file operand").await?;
            return Ok(None);
        }
        [only] => {
            let message = format!(
                "missing destination file operand after {}",
                quote_always(only)
            );
            run.usage_error(&message).await?;
            return Ok(None);
        }
        [sources @ .., dest] => (dest, sources),
    };
    if let (true, [_, _, extra, ..]) = (no_target_dir, operands) {
        run.usage_error(&format!("extra operand {}", quote_always(extra)))
            .await?;
        return Ok(None);
    }
    let is_dir = !no_target_dir && check_directory(run, dest).is_ok();
    if let ([source], false) = (sources, is_dir) {
        return Ok(Some(Target::File {
            source: source.clone(),
            dest: dest.clone(),
        }));
    }
    if let Err(err) = check_directory(run, dest) {
        let message = format!("target {}: {}", quote_always(dest), strerror(&err));
        run.fail(message).await?;
        return Ok(None);
    }
    Ok(Some(Target::Directory {
        sources: sources.to_vec(),
        dir: dest.clone(),
    }))
}

/// Ok if `arg` names a directory (following symlinks).
pub(crate) fn check_directory(run: &Run<'_, '_>, arg: &str) -> Result<(), VfsError> {
    let meta = run.path(arg).and_then(|path| run.fs().mem().stat(&path))?;
    if meta.kind == FileKind::Directory {
        Ok(())
    } else {
        Err(VfsError::new(ErrorKind::NotADirectory, arg))
    }
}
