//! Resolving names as the kernel does: one component at a time, symlinks followed
//! where they stand, loops found.

use sandtab_vfs::{ErrorKind, FileKind, MemFs, VfsPath};
use std::collections::HashSet;

/// Which components of a name must exist .
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Existence {
    /// Every component (`-e`).
    All,
    /// All but the last (`realpath`, `readlink -f`).
    AllButLast,
    /// None, and a file may stand where a directory would (`-m`).
    None,
}

/// How a name is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Resolve {
    pub existence: Existence,
    /// Follow symlinks (false for `realpath -s`).
    pub follow: bool,
    /// Apply `..` to the name as written before following symlinks (`realpath -L`).
    pub logical: bool,
}

/// More symlinks than this in one name is a loop (Linux allows 40).
const MAX_SYMLINKS: usize = 40;

/// Components from a directory down, outermost first.
type Components = Vec<String>;

/// The absolute path `name` (relative to `cwd`) resolves to, as components below `/`;
/// or the error that stops it.
pub(super) fn canonicalize(
    fs: &MemFs,
    cwd: &str,
    name: &str,
    how: Resolve,
) -> Result<Components, ErrorKind> {
    if name.is_empty() {
        return Err(ErrorKind::NotFound);
    }
    let written = if name.starts_with('/') {
        name.to_owned()
    } else {
        format!("{cwd}/{name}")
    };
    if how.logical || !how.follow {
        let lexical = VfsPath::parse(&written).map_err(|err| err.kind())?;
        let mut text = lexical.to_string();
        if name.ends_with('/') && !lexical.is_root() {
            text.push('/'); // A trailing slash still asks for a directory.
        }
        if !how.follow {
            return check_lexical(fs, &lexical, name.ends_with('/'), how.existence);
        }
        return walk(fs, &text, how.existence);
    }
    walk(fs, &written, how.existence)
}

/// `realpath -s`: the name normalised as written, checked for existence as asked.
fn check_lexical(
    fs: &MemFs,
    path: &VfsPath,
    wants_dir: bool,
    existence: Existence,
) -> Result<Components, ErrorKind> {
    let components = path.components().to_vec();
    let must_exist = match existence {
        Existence::None => return Ok(components),
        Existence::All => Some(path.clone()),
        Existence::AllButLast => path.parent(),
    };
    if let Some(must) = must_exist {
        let meta = fs.stat(&must).map_err(|err| err.kind())?;
        let needs_dir = existence == Existence::AllButLast || wants_dir;
        if needs_dir && meta.kind != FileKind::Directory {
            return Err(ErrorKind::NotADirectory);
        }
    }
    Ok(components)
}

/// Follows `path` (absolute) from `/` one component at a time, as gnulib's
/// `canonicalize_filename_mode` does.
fn walk(fs: &MemFs, path: &str, existence: Existence) -> Result<Components, ErrorKind> {
    let mut resolved: Components = Vec::new();
    // What is left to walk, last component first (so the next one pops off the end).
    let mut pending: Vec<String> = split_reversed(path);
    let mut seen: HashSet<(u64, Vec<String>)> = HashSet::new();
    let mut followed = 0;
    while let Some(component) = pending.pop() {
        match component.as_str() {
            "" | "." => continue,
            ".." => {
                resolved.pop();
                continue;
            }
            _ => {}
        }
        let more_follows = pending.iter().any(|rest| !rest.is_empty());
        let anything_follows = !pending.is_empty();
        resolved.push(component);
        let here = to_path(&resolved)?;
        let meta = match fs.lstat(&here) {
            Ok(meta) => meta,
            Err(err) => match (existence, err.kind()) {
                (Existence::None, _) => continue,
                (Existence::AllButLast, ErrorKind::NotFound) if !more_follows => continue,
                (_, kind) => return Err(kind),
            },
        };
        match meta.kind {
            FileKind::Symlink => {
                followed += 1;
                let looped = !seen.insert((meta.ino, pending.clone()));
                if looped || followed > MAX_SYMLINKS {
                    if existence == Existence::None {
                        continue; // -m keeps a looping link as a name.
                    }
                    return Err(ErrorKind::TooManyLinks);
                }
                let target = fs.read_link(&here).map_err(|err| err.kind())?;
                resolved.pop();
                if target.starts_with('/') {
                    resolved.clear();
                }
                pending.extend(split_reversed(&target));
            }
            FileKind::File if anything_follows && existence != Existence::None => {
                return Err(ErrorKind::NotADirectory);
            }
            _ => {}
        }
    }
    Ok(resolved)
}

/// The components of `path` (empty ones kept: they tell a trailing slash), last first.
fn split_reversed(path: &str) -> Vec<String> {
    let relative = path.trim_start_matches('/');
    if relative.is_empty() {
        return Vec::new();
    }
    relative.split('/').rev().map(str::to_owned).collect()
}

pub(super) fn to_path(components: &[String]) -> Result<VfsPath, ErrorKind> {
    VfsPath::parse(&components_text(components)).map_err(|err| err.kind())
}

/// `/a/b` for `["a", "b"]`, `/` for none.
pub(super) fn components_text(components: &[String]) -> String {
    if components.is_empty() {
        return "/".to_owned();
    }
    components.iter().fold(String::new(), |mut text, name| {
        text.push('/');
        text.push_str(name);
        text
    })
}

/// `path` relative to the directory `base` (both absolute, resolved).
pub(super) fn relative(path: &[String], base: &[String]) -> String {
    let common = path.iter().zip(base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; base.len() - common];
    parts.extend(path[common..].iter().map(String::as_str));
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}
