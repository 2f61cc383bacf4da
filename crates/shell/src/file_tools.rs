//! The file tools an agent's model calls directly (`read_file`, `write_file`,
//! `edit_file`), on the sandbox's filesystem. Paths are absolute or relative to
//! [`crate::HOME`]. Each change is saved before it returns.

use crate::{HOME, ShellError};
use sandtab_vfs::{SandboxFs, VfsPath};

/// The largest file `read_file` returns whole (bytes); larger ones need a line range.
pub const MAX_READ_BYTES: usize = 1 << 20;

fn resolve(path: &str) -> Result<VfsPath, ShellError> {
    if path.is_empty() {
        return Err(ShellError::FileTool("the path is empty".into()));
    }
    Ok(VfsPath::parse(HOME)?.join(path)?)
}

async fn text_of(fs: &SandboxFs, path: &VfsPath, shown: &str) -> Result<String, ShellError> {
    fs.load_for_read(path).await?;
    let bytes = fs.mem().read(path)?;
    String::from_utf8(bytes).map_err(|_| {
        ShellError::FileTool(format!(
            "{shown} is not UTF-8 text; use bash (od, base64, file) for binary files"
        ))
    })
}

/// The text of `path`, or of its lines `offset..offset + limit` (counted from 1).
pub async fn read_file(
    fs: &SandboxFs,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
) -> Result<String, ShellError> {
    let resolved = resolve(path)?;
    let text = text_of(fs, &resolved, path).await?;
    if offset.is_none() && limit.is_none() {
        if text.len() > MAX_READ_BYTES {
            return Err(ShellError::FileTool(format!(
                "{path} is {} bytes; read it in parts with offset and limit (lines), or with bash",
                text.len()
            )));
        }
        return Ok(text);
    }
    let first = offset.unwrap_or(1).max(1) - 1;
    let lines: String = text
        .split_inclusive('\n')
        .skip(first)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    Ok(lines)
}

/// Creates or replaces `path` with `content` (directories created); the bytes written.
pub async fn write_file(fs: &SandboxFs, path: &str, content: &str) -> Result<usize, ShellError> {
    let resolved = resolve(path)?;
    if let Some(parent) = resolved.parent() {
        fs.mem().create_dir_all(&parent)?;
    }
    fs.mem().write(&resolved, content.as_bytes())?;
    fs.flush().await?;
    Ok(content.len())
}

/// Replaces `old` by `new` in `path`: `old` must occur exactly once, or at least once
/// with `replace_all`. Changes nothing otherwise. The number of replacements.
pub async fn edit_file(
    fs: &SandboxFs,
    path: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<usize, ShellError> {
    if old.is_empty() {
        return Err(ShellError::FileTool("old_string is empty".into()));
    }
    if old == new {
        return Err(ShellError::FileTool(
            "old_string and new_string are the same".into(),
        ));
    }
    let resolved = resolve(path)?;
    let text = text_of(fs, &resolved, path).await?;
    let count = text.matches(old).count();
    match count {
        0 => {
            return Err(ShellError::FileTool(format!(
                "old_string does not occur in {path} (it must match exactly, whitespace included)"
            )));
        }
        n if n > 1 && !replace_all => {
            return Err(ShellError::FileTool(format!(
                "old_string occurs {n} times in {path}; give more context to make it unique, or set replace_all"
            )));
        }
        _ => {}
    }
    let edited = match replace_all {
        true => text.replace(old, new),
        false => text.replacen(old, new, 1),
    };
    fs.mem().write_owned(&resolved, edited.into_bytes())?;
    fs.flush().await?;
    Ok(count)
}
