//! Path resolution beneath a directory, as a WASI host does it (wasmtime on Linux:
//! `openat2` with `RESOLVE_BENEATH`): component by component, `..` never above the
//! boundary, symlinks followed by hand and refused when they lead out (`..` past the
//! boundary, or an absolute target unless the boundary is the sandbox's root), a trailing
//! slash demanding a directory.
//! The result is a canonical sandbox path without symlinks (but the last component when
//! it is not followed), so the VFS's own resolution has nothing left to do.

use sandtab_vfs::{FileKind, MemFs, VfsPath};
use std::collections::VecDeque;
use wasi::Errno;

/// Linux's SYMLOOP_MAX.
const MAX_SYMLINKS: usize = 40;
/// Linux's NAME_MAX.
const MAX_NAME: usize = 255;

/// Where a guest's path leads.
pub(crate) struct Resolved {
    /// The canonical path; for a last component not followed, the link itself.
    pub(crate) path: VfsPath,
    /// The path ended in `/` (or `/.`-like components), so it must be a directory.
    pub(crate) must_be_dir: bool,
    /// The path named the starting directory itself or went through `..` at its end
    /// (`.`, `a/..`): there is no last name to create or remove.
    pub(crate) is_base: bool,
}

/// Resolves `path` from directory `start`, never above `base` (an ancestor of `start`, or
/// `start` itself). `follow_last`: follow a symlink in the last component.
pub(crate) fn resolve(
    fs: &MemFs,
    base: &VfsPath,
    start: &VfsPath,
    path: &str,
    follow_last: bool,
) -> Result<Resolved, Errno> {
    if path.is_empty() {
        return Err(wasi::ERRNO_NOENT);
    }
    if path.contains('\0') {
        return Err(wasi::ERRNO_INVAL);
    }
    if path.starts_with('/') {
        return Err(wasi::ERRNO_PERM);
    }
    let must_be_dir = path.ends_with('/');
    let mut queue: VecDeque<String> = components(path)?;
    // Names beneath `base`, each an existing directory but perhaps the last.
    let mut stack: Vec<String> = start.components()[base.components().len()..].to_vec();
    let mut links = 0;
    let mut last_was_name = false;
    while let Some(part) = queue.pop_front() {
        let last = queue.is_empty();
        match part.as_str() {
            "." => {
                last_was_name = false;
            }
            ".." => {
                if stack.pop().is_none() {
                    return Err(wasi::ERRNO_PERM);
                }
                last_was_name = false;
            }
            name => {
                let here = join(base, &stack, name)?;
                let meta = fs.lstat(&here);
                let follow = !last || follow_last || must_be_dir;
                match meta {
                    Ok(meta) if meta.kind == FileKind::Symlink && follow => {
                        links += 1;
                        if links > MAX_SYMLINKS {
                            return Err(wasi::ERRNO_LOOP);
                        }
                        let target = fs
                            .read_link(&here)
                            .map_err(|e| super::errno::errno_of(&e))?;
                        if target.starts_with('/') {
                            // Inside the root preopen an absolute target is a sandbox path.
                            if !base.is_root() {
                                return Err(wasi::ERRNO_PERM);
                            }
                            stack.clear();
                        }
                        if target.is_empty() {
                            return Err(wasi::ERRNO_NOENT);
                        }
                        let mut spliced = components(&target)?;
                        if target.ends_with('/') && last {
                            spliced.push_back(".".to_owned());
                        }
                        spliced.extend(queue.drain(..));
                        queue = spliced;
                        continue;
                    }
                    Ok(meta) if !last && meta.kind != FileKind::Directory => {
                        return Err(wasi::ERRNO_NOTDIR);
                    }
                    Ok(meta) if last && must_be_dir && meta.kind == FileKind::File => {
                        return Err(wasi::ERRNO_NOTDIR);
                    }
                    Err(err) if !last => return Err(super::errno::errno_of(&err)),
                    _ => {}
                }
                stack.push(name.to_owned());
                last_was_name = true;
            }
        }
        // A `.` or `..` after a name needs that name to be a directory: checked when the
        // name was not last (it is then a directory, or an error was returned above).
    }
    let path = stack
        .iter()
        .try_fold(base.clone(), |path, name| path.join(name))
        .map_err(|e| super::errno::errno_of(&e))?;
    Ok(Resolved {
        path,
        must_be_dir,
        is_base: !last_was_name,
    })
}

/// The components of a relative path: empty ones dropped, `.` kept where it tests
/// that what precedes it is a directory.
fn components(path: &str) -> Result<VecDeque<String>, Errno> {
    let mut out = VecDeque::new();
    for part in path.split('/') {
        if part.is_empty() {
            continue;
        }
        if part.len() > MAX_NAME {
            return Err(wasi::ERRNO_NAMETOOLONG);
        }
        out.push_back(part.to_owned());
    }
    if out.is_empty() {
        // "/" alone is refused before; only "//"-like spellings of "." get here.
        out.push_back(".".to_owned());
    }
    Ok(out)
}

fn join(base: &VfsPath, stack: &[String], name: &str) -> Result<VfsPath, Errno> {
    let mut path = base.clone();
    for part in stack.iter().map(String::as_str).chain([name]) {
        path = path.join(part).map_err(|e| super::errno::errno_of(&e))?;
    }
    Ok(path)
}
