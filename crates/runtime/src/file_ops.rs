//! The page's file operations (`writeFile`, `writeFiles`, `mkdir`, `rm`, `rename`,
//! `stat`): each checks its paths before it changes anything, and saves what it changed
//! before it answers, failed or not, so nothing done is left unsaved.

use crate::error::{RuntimeError, RuntimeResult};
use crate::protocol::{FileStat, FileToWrite};
use sandtab_vfs::{ErrorKind, FileKind, SandboxFs, VfsPath, VfsResult};

/// Saves what `result`'s operation changed, then answers with its outcome (a failed save
/// is the answer when the operation itself succeeded).
async fn saved<T>(fs: &SandboxFs, result: RuntimeResult<T>) -> RuntimeResult<T> {
    let flushed = fs.flush().await;
    let value = result?;
    flushed?;
    Ok(value)
}

/// Writes `files` in order, making their directories first when `parents`.
pub(crate) async fn write_files(
    fs: &SandboxFs,
    files: Vec<FileToWrite>,
    parents: bool,
) -> RuntimeResult<()> {
    let total = files.len();
    let parsed = files
        .into_iter()
        .map(|file| Ok((VfsPath::parse(&file.path)?, file.data.0)))
        .collect::<RuntimeResult<Vec<_>>>()?;
    let mem = fs.mem();
    let mut result = Ok(());
    for (written, (path, data)) in parsed.into_iter().enumerate() {
        let write = || -> VfsResult<()> {
            if parents && let Some(parent) = path.parent() {
                mem.create_dir_all(&parent)?;
            }
            mem.write_owned(&path, data)
        };
        if let Err(err) = write() {
            let mut err = RuntimeError::from(err);
            if total > 1 {
                err.message = format!(
                    "{} (writeFiles stopped there: {written} of {total} files were written)",
                    err.message
                );
            }
            result = Err(err);
            break;
        }
    }
    saved(fs, result).await
}

/// Makes the directory `path` (and those above it when `parents`).
pub(crate) async fn mkdir(fs: &SandboxFs, path: &str, parents: bool) -> RuntimeResult<()> {
    let path = VfsPath::parse(path)?;
    let made = if parents {
        fs.mem().create_dir_all(&path)
    } else {
        fs.mem().create_dir(&path)
    };
    saved(fs, made.map_err(Into::into)).await
}

/// Removes `path`: a directory only when empty, unless `recursive`; a missing one is
/// fine when `force`.
pub(crate) async fn remove(
    fs: &SandboxFs,
    path: &str,
    recursive: bool,
    force: bool,
) -> RuntimeResult<()> {
    let path = VfsPath::parse(path)?;
    if path.is_root() {
        return Err(RuntimeError::invalid("rm: refusing to remove '/'"));
    }
    let mem = fs.mem();
    let removed = match mem.lstat(&path) {
        Err(err) if force && err.kind() == ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
        Ok(meta) if meta.kind == FileKind::Directory && recursive => mem.remove_all(&path),
        Ok(meta) if meta.kind == FileKind::Directory => mem.remove_dir(&path),
        Ok(_) => mem.remove_file(&path),
    };
    saved(fs, removed.map_err(Into::into)).await
}

/// Renames `from` to `to`.
pub(crate) async fn rename(fs: &SandboxFs, from: &str, to: &str) -> RuntimeResult<()> {
    let (from, to) = (VfsPath::parse(from)?, VfsPath::parse(to)?);
    saved(fs, fs.mem().rename(&from, &to).map_err(Into::into)).await
}

/// What is at `path`, following symlinks.
pub(crate) fn stat(fs: &SandboxFs, path: &str) -> RuntimeResult<FileStat> {
    let metadata = fs.mem().stat(&VfsPath::parse(path)?)?;
    Ok(FileStat {
        kind: match metadata.kind {
            FileKind::Directory => "dir",
            _ => "file",
        }
        .to_owned(),
        size: metadata.size,
        mode: metadata.mode,
        // Nanoseconds to milliseconds with a fraction, as `listDir` gives them.
        modified: metadata.modified.0 as f64 / 1e6,
        created: metadata.created.0 as f64 / 1e6,
    })
}
