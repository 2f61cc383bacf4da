//! Host directories in and out of the in-memory sandbox: copied in before the run,
//! and afterwards the guest's changes (new, changed and removed entries) written back.

use crate::args::DirMap;
use sandtab_vfs::{FileKind, MemFs, VfsPath};
use std::collections::BTreeMap;
use std::path::Path;

/// What a copied-in entry was, to tell afterwards what the guest changed.
#[derive(Debug, PartialEq, Eq)]
enum Entry {
    Dir,
    File { contents: Vec<u8>, mode: u32 },
    Symlink(String),
}

/// The entries copied in, by path relative to the mapped directory.
#[derive(Debug, Default)]
pub struct CopiedIn {
    entries: BTreeMap<String, Entry>,
}

fn guest_path(map: &DirMap, relative: &str) -> Result<VfsPath, String> {
    let root = VfsPath::parse(&map.guest).map_err(|err| err.to_string())?;
    if relative.is_empty() {
        return Ok(root);
    }
    root.join(relative).map_err(|err| err.to_string())
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o644
}

/// Copies `map.host` to `map.guest` in `fs`.
pub fn copy_in(fs: &MemFs, map: &DirMap) -> Result<CopiedIn, String> {
    let meta = std::fs::metadata(&map.host)
        .map_err(|err| format!("--dir {}: {err}", map.host.display()))?;
    if !meta.is_dir() {
        return Err(format!("--dir {}: not a directory", map.host.display()));
    }
    let mut copied = CopiedIn::default();
    fs.create_dir_all(&guest_path(map, "")?)
        .map_err(|err| err.to_string())?;
    copy_dir(fs, map, &map.host, "", &mut copied)?;
    Ok(copied)
}

fn copy_dir(
    fs: &MemFs,
    map: &DirMap,
    host: &Path,
    relative: &str,
    copied: &mut CopiedIn,
) -> Result<(), String> {
    let read = std::fs::read_dir(host).map_err(|err| format!("{}: {err}", host.display()))?;
    for entry in read {
        let entry = entry.map_err(|err| format!("{}: {err}", host.display()))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|name| format!("{}: the name {name:?} is not UTF-8", host.display()))?;
        let rel = if relative.is_empty() {
            name.clone()
        } else {
            format!("{relative}/{name}")
        };
        let path = entry.path();
        let meta =
            std::fs::symlink_metadata(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let target = guest_path(map, &rel)?;
        let fail = |err: sandtab_vfs::VfsError| format!("{}: {err}", path.display());
        if meta.file_type().is_symlink() {
            let link =
                std::fs::read_link(&path).map_err(|err| format!("{}: {err}", path.display()))?;
            let link = link.to_string_lossy().into_owned();
            fs.symlink(&link, &target).map_err(fail)?;
            copied.entries.insert(rel, Entry::Symlink(link));
        } else if meta.is_dir() {
            fs.create_dir(&target).map_err(fail)?;
            copied.entries.insert(rel.clone(), Entry::Dir);
            copy_dir(fs, map, &path, &rel, copied)?;
        } else if meta.is_file() {
            let contents =
                std::fs::read(&path).map_err(|err| format!("{}: {err}", path.display()))?;
            fs.write(&target, &contents).map_err(fail)?;
            let mode = mode_of(&meta);
            fs.set_mode(&target, mode).map_err(fail)?;
            copied.entries.insert(rel, Entry::File { contents, mode });
        }
        // Devices, sockets and FIFOs have no place in a sandbox: left out.
    }
    Ok(())
}

/// Writes the guest's changes below `map.guest` back to `map.host`.
pub fn write_back(fs: &MemFs, map: &DirMap, before: &CopiedIn) -> Result<(), String> {
    let mut now = BTreeMap::new();
    collect(fs, map, "", &mut now)?;
    // Removed first (deepest first), so a file replaced by a directory can be made.
    for (rel, entry) in before.entries.iter().rev() {
        if now
            .get(rel)
            .is_some_and(|current| same_kind(current, entry))
        {
            continue;
        }
        let path = map.host.join(rel);
        let removed = match entry {
            Entry::Dir => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        match removed {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(format!("{}: {err}", path.display())),
        }
    }
    for (rel, entry) in &now {
        if before.entries.get(rel) == Some(entry) {
            continue;
        }
        let path = map.host.join(rel);
        let io = |err: std::io::Error| format!("{}: {err}", path.display());
        match entry {
            Entry::Dir => std::fs::create_dir_all(&path).map_err(io)?,
            Entry::File { contents, mode } => {
                std::fs::write(&path, contents).map_err(io)?;
                set_mode(&path, *mode).map_err(io)?;
            }
            Entry::Symlink(target) => {
                let _ = std::fs::remove_file(&path);
                make_symlink(target, &path).map_err(io)?;
            }
        }
    }
    Ok(())
}

fn same_kind(a: &Entry, b: &Entry) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn collect(
    fs: &MemFs,
    map: &DirMap,
    relative: &str,
    out: &mut BTreeMap<String, Entry>,
) -> Result<(), String> {
    let dir = guest_path(map, relative)?;
    let Ok(entries) = fs.read_dir(&dir) else {
        return Ok(()); // The guest removed the mapped directory itself.
    };
    for entry in entries {
        let rel = if relative.is_empty() {
            entry.name.clone()
        } else {
            format!("{relative}/{}", entry.name)
        };
        let path = guest_path(map, &rel)?;
        let fail = |err: sandtab_vfs::VfsError| format!("{path}: {err}");
        match entry.metadata.kind {
            FileKind::Directory => {
                out.insert(rel.clone(), Entry::Dir);
                collect(fs, map, &rel, out)?;
            }
            FileKind::File => {
                let contents = fs.read(&path).map_err(fail)?;
                out.insert(
                    rel,
                    Entry::File {
                        contents,
                        mode: entry.metadata.mode,
                    },
                );
            }
            FileKind::Symlink => {
                out.insert(rel, Entry::Symlink(fs.read_link(&path).map_err(fail)?));
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn make_symlink(target: &str, path: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

#[cfg(not(unix))]
fn make_symlink(_target: &str, _path: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "symlinks are written back on Unix only",
    ))
}
