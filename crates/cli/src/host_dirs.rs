//! Host directories in and out of the in-memory sandbox: copied in before the run,
//! and afterwards the guest's changes (new, changed and removed entries) written back.
//!
//! The guest is not trusted, so the write-back is careful about what it makes on the
//! host (`--help` says the same to the user):
//! - every entry is written relative to an opened handle of its own parent directory
//!   (`cap_std::fs::Dir`, which refuses any path that would leave it), walked down from
//!   HOST one name at a time; a symlink on the host is never written or walked through;
//! - names a host could read as more than one name (`\`, a drive letter `C:`, NUL, `.`,
//!   `..`) are refused;
//! - a symlink is made only if its target is relative and, read lexically from the
//!   link's own directory, stays inside HOST: `..` only at its start and no more of
//!   them than the link is deep (after a name, `..` could climb out of wherever a
//!   symlink by that name leads);
//! - modes are written with the permission bits only (`& 0o777`): never setuid, setgid
//!   or sticky;
//! - a file is written to a new temporary file beside it, then renamed over it: a failed
//!   write leaves the host's file as it was, and a hard link in HOST is replaced, never
//!   written through (its other names, maybe outside HOST, keep their contents);
//! - a removed directory is removed only with what was copied in from it: what the
//!   guest never saw (FIFOs, sockets, files made on the host during the run) is kept,
//!   and the directory with it;
//! - a read-only mapping is mounted read-only in the sandbox and nothing is written back.
//!
//! A refused or failed entry is reported and left out; the rest is still written back.

use crate::args::DirMap;
use cap_std::fs::Dir;
use sandtab_vfs::{ErrorKind, FileKind, MemFs, VfsPath};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What an entry was, to tell afterwards what the guest changed.
#[derive(Debug, PartialEq, Eq)]
enum Entry {
    Dir { mode: u32 },
    File { contents: Vec<u8>, mode: u32 },
    Symlink(String),
}

/// The entries copied in, by path relative to the mapped directory.
#[derive(Debug, Default)]
pub struct CopiedIn {
    entries: BTreeMap<String, Entry>,
}

/// The permission bits that may be written to the host: no setuid, setgid or sticky.
const HOST_MODE_MASK: u32 = 0o777;

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
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    if meta.is_dir() { 0o755 } else { 0o644 }
}

/// Copies `map.host` to `map.guest` in `fs`; a read-only mapping is mounted read-only.
pub fn copy_in(fs: &MemFs, map: &DirMap) -> Result<CopiedIn, String> {
    let meta = std::fs::metadata(&map.host)
        .map_err(|err| format!("--dir {}: {err}", map.host.display()))?;
    if !meta.is_dir() {
        return Err(format!("--dir {}: not a directory", map.host.display()));
    }
    let root = guest_path(map, "")?;
    let mut copied = CopiedIn::default();
    if !map.read_only {
        fs.create_dir_all(&root).map_err(|err| err.to_string())?;
        copy_dir(fs, map, &map.host, "", &mut copied)?;
        return Ok(copied);
    }
    if let Some(parent) = root.parent() {
        fs.create_dir_all(&parent).map_err(|err| err.to_string())?;
    }
    // `mount_read_only` mounts an empty volume, takes the files it is given, then seals
    // the volume. The whole tree (directories, symlinks and modes too, which it has no
    // words for) is copied while it takes them: by the iterator, which then gives none.
    let mut copy = None;
    fs.mount_read_only(
        &root,
        std::iter::from_fn(|| {
            if copy.is_none() {
                copy = Some(copy_dir(fs, map, &map.host, "", &mut copied));
            }
            None
        }),
    )
    .map_err(|err| format!("--dir {}: {err}", map.host.display()))?;
    copy.ok_or_else(|| format!("--dir {}: not copied in", map.host.display()))??;
    // The guest must not be able to change it: check rather than trust the above.
    let probe = guest_path(map, ".sandtab-read-only-probe")?;
    match fs.create_dir(&probe) {
        Err(err) if err.kind() == ErrorKind::ReadOnly => Ok(copied),
        _ => Err(format!(
            "--dir {}: could not be mounted read-only at {}",
            map.host.display(),
            map.guest
        )),
    }
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
            let mode = mode_of(&meta);
            fs.create_dir(&target).map_err(fail)?;
            copy_dir(fs, map, &path, &rel, copied)?;
            // Set last, so a directory without write permission can still be filled.
            fs.set_mode(&target, mode).map_err(fail)?;
            copied.entries.insert(rel, Entry::Dir { mode });
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

/// Writes the guest's changes below `map.guest` back to `map.host` (nothing for a
/// read-only mapping). Returns one line for each entry refused or failed, which was
/// left out; an error only when HOST itself cannot be opened.
pub fn write_back(fs: &MemFs, map: &DirMap, before: &CopiedIn) -> Result<Vec<String>, String> {
    if map.read_only {
        return Ok(Vec::new());
    }
    let mut now = BTreeMap::new();
    collect(fs, map, "", &mut now)?;
    let root = Dir::open_ambient_dir(&map.host, cap_std::ambient_authority())
        .map_err(|err| format!("--dir {}: {err}", map.host.display()))?;
    let mut host = Host {
        root,
        base: map.host.clone(),
        problems: Vec::new(),
        left_out: Vec::new(),
    };
    // Removed first (deepest first), so a file replaced by a directory can be made.
    for (rel, entry) in before.entries.iter().rev() {
        if now
            .get(rel)
            .is_some_and(|current| same_kind(current, entry))
        {
            continue;
        }
        host.remove(rel, entry);
    }
    // Directories' modes are set last, deepest first, so they cannot stop their filling.
    let mut dir_modes = Vec::new();
    for (rel, entry) in &now {
        let old = before.entries.get(rel);
        if old == Some(entry) || host.is_left_out(rel) {
            continue;
        }
        match entry {
            Entry::Dir { mode } => {
                if host.make_dir(rel) {
                    dir_modes.push((rel, *mode));
                }
            }
            Entry::File { contents, mode } => host.write_file(rel, contents, *mode),
            Entry::Symlink(target) => host.make_symlink(rel, target),
        }
    }
    for (rel, mode) in dir_modes.into_iter().rev() {
        host.set_dir_mode(rel, mode);
    }
    Ok(host.problems)
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
                out.insert(
                    rel.clone(),
                    Entry::Dir {
                        mode: entry.metadata.mode,
                    },
                );
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

/// Why a name may not be made on the host, if it may not.
fn refused_name(name: &str) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if name.is_empty() || name == "." || name == ".." {
        Some("`.`, `..` and the empty name are no names of their own")
    } else if name.contains('\\') {
        Some("a backslash is a path separator on Windows")
    } else if name.contains('\0') {
        Some("a NUL ends a name on the host")
    } else if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        Some("a drive letter (`C:`) names another place on Windows")
    } else if cfg!(windows) && name.contains(':') {
        Some("a colon names an alternate data stream on Windows")
    } else {
        None
    }
}

/// Why a symlink at `rel` (relative to HOST) to `target` may not be made, if it may not.
fn refused_link_target(rel: &str, target: &str) -> Option<&'static str> {
    let bytes = target.as_bytes();
    if target.is_empty() {
        return Some("an empty target");
    }
    if target.starts_with('/') {
        return Some("an absolute target leaves HOSTDIR");
    }
    if target.contains('\\') || target.contains('\0') {
        return Some("a backslash or NUL in the target");
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("a drive letter in the target leaves HOSTDIR");
    }
    // How many directories the link's own directory is below HOST.
    let mut depth = rel.split('/').count() - 1;
    let mut after_name = false;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." if after_name => {
                return Some("`..` after a name could climb out of HOSTDIR through a symlink");
            }
            ".." => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return Some("the target leads out of HOSTDIR"),
            },
            _ => after_name = true,
        }
    }
    None
}

/// HOST, opened, and what the write-back has left out so far.
struct Host {
    root: Dir,
    base: PathBuf,
    problems: Vec<String>,
    /// Entries refused or failed: their contents are left out without another word.
    left_out: Vec<String>,
}

/// Why an entry was left out.
enum Problem {
    Refused(String),
    Failed(std::io::Error),
    /// A directory to remove still holds what the guest never saw.
    NotEmpty,
}

impl From<std::io::Error> for Problem {
    fn from(err: std::io::Error) -> Self {
        Self::Failed(err)
    }
}

impl Host {
    fn is_left_out(&self, rel: &str) -> bool {
        self.left_out.iter().any(|out| {
            rel.strip_prefix(out.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }

    fn leave_out(&mut self, rel: &str, problem: Problem) {
        let path = self.base.join(rel);
        self.problems.push(match problem {
            Problem::Refused(why) => format!("refused {}: {why}", path.display()),
            Problem::Failed(err) => format!("{}: {err}", path.display()),
            Problem::NotEmpty => format!(
                "refused {}: it holds what the sandbox never had (made on the host during \
                 the run, or a FIFO, socket or device): left in place",
                path.display()
            ),
        });
        self.left_out.push(rel.to_owned());
    }

    /// The opened parent directory of `rel` and its last name, walked down from HOST
    /// one checked name at a time and never through a symlink.
    fn parent<'a>(&self, rel: &'a str) -> Result<(Dir, &'a str), Problem> {
        let mut names = rel.split('/').peekable();
        let mut dir = self.root.try_clone()?;
        let mut walked = PathBuf::new();
        while let Some(name) = names.next() {
            if let Some(why) = refused_name(name) {
                return Err(Problem::Refused(format!("the name `{name}`: {why}")));
            }
            if names.peek().is_none() {
                return Ok((dir, name));
            }
            walked.push(name);
            let meta = dir.symlink_metadata(name)?;
            if meta.is_symlink() {
                return Err(Problem::Refused(format!(
                    "{} is a symlink on the host: not written through",
                    self.base.join(&walked).display()
                )));
            }
            dir = dir.open_dir(name)?;
        }
        Err(Problem::Refused("an empty path".to_owned()))
    }

    /// What is at `name` in `dir` on the host now, without following a symlink.
    fn existing(dir: &Dir, name: &str) -> Result<Option<cap_std::fs::Metadata>, Problem> {
        match dir.symlink_metadata(name) {
            Ok(meta) => Ok(Some(meta)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    fn not_through_symlink() -> Problem {
        Problem::Refused("a symlink on the host is not written through".to_owned())
    }

    /// Whether something below `rel` (not `rel` itself) was left out.
    fn left_out_below(&self, rel: &str) -> bool {
        self.left_out.iter().any(|out| {
            out.strip_prefix(rel)
                .is_some_and(|rest| rest.starts_with('/'))
        })
    }

    /// Removes `rel`, copied in as `copied`. A directory's copied-in entries are removed
    /// before it (deepest first), and it is removed only if that left it empty: nothing
    /// the guest never saw goes with it.
    fn remove(&mut self, rel: &str, copied: &Entry) {
        let result = (|| {
            let (dir, name) = self.parent(rel)?;
            match Self::existing(&dir, name)? {
                None => {}
                Some(meta) if meta.is_dir() => {
                    if !matches!(copied, Entry::Dir { .. }) {
                        return Err(Problem::Refused(
                            "a directory made on the host during the run is in the way: \
                             left in place"
                                .to_owned(),
                        ));
                    }
                    match dir.remove_dir(name) {
                        Err(err) if err.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                            return Err(Problem::NotEmpty);
                        }
                        other => other?,
                    }
                }
                Some(_) => dir.remove_file(name)?,
            }
            Ok(())
        })();
        match result {
            Ok(()) => {}
            // What was left out below it keeps it, and has said so already.
            Err(Problem::NotEmpty) if self.left_out_below(rel) => {
                self.left_out.push(rel.to_owned());
            }
            Err(problem) => self.leave_out(rel, problem),
        }
    }

    /// Makes the directory `rel` if missing; false if it was left out.
    fn make_dir(&mut self, rel: &str) -> bool {
        let result = (|| {
            let (dir, name) = self.parent(rel)?;
            match Self::existing(&dir, name)? {
                None => dir.create_dir(name)?,
                Some(meta) if meta.is_symlink() => return Err(Self::not_through_symlink()),
                Some(meta) if meta.is_dir() => {}
                Some(_) => {
                    return Err(Problem::Refused(
                        "a file on the host is in the way".to_owned(),
                    ));
                }
            }
            Ok(())
        })();
        match result {
            Ok(()) => true,
            Err(problem) => {
                self.leave_out(rel, problem);
                false
            }
        }
    }

    fn write_file(&mut self, rel: &str, contents: &[u8], mode: u32) {
        let result = (|| {
            let (dir, name) = self.parent(rel)?;
            match Self::existing(&dir, name)? {
                Some(meta) if meta.is_symlink() => return Err(Self::not_through_symlink()),
                Some(meta) if meta.is_dir() => {
                    return Err(Problem::Refused(
                        "a directory on the host is in the way".to_owned(),
                    ));
                }
                _ => {}
            }
            // A new file, renamed over the old one when complete: the old one is kept if
            // anything fails, and a hard link there is replaced, not written through.
            let (temp, mut file) = temp_file(&dir)?;
            let written = (|| {
                file.write_all(contents)?;
                set_file_mode(&file, mode)?;
                file.sync_all()?;
                drop(file);
                dir.rename(&temp, &dir, name)
            })();
            if let Err(err) = written {
                let _ = dir.remove_file(&temp);
                return Err(err.into());
            }
            Ok(())
        })();
        if let Err(problem) = result {
            self.leave_out(rel, problem);
        }
    }

    fn make_symlink(&mut self, rel: &str, target: &str) {
        let result = (|| {
            if let Some(why) = refused_link_target(rel, target) {
                return Err(Problem::Refused(format!("symlink to `{target}`: {why}")));
            }
            let (dir, name) = self.parent(rel)?;
            match Self::existing(&dir, name)? {
                None => {}
                Some(meta) if meta.is_dir() => {
                    return Err(Problem::Refused(
                        "a directory on the host is in the way".to_owned(),
                    ));
                }
                // A symlink or file there is replaced, not written through.
                Some(_) => dir.remove_file(name)?,
            }
            symlink(&dir, target, name)?;
            Ok(())
        })();
        if let Err(problem) = result {
            self.leave_out(rel, problem);
        }
    }

    fn set_dir_mode(&mut self, rel: &str, mode: u32) {
        let result = (|| {
            let (dir, name) = self.parent(rel)?;
            match Self::existing(&dir, name)? {
                Some(meta) if meta.is_dir() && !meta.is_symlink() => {
                    set_mode(&dir, name, mode)?;
                    Ok(())
                }
                _ => Err(Self::not_through_symlink()),
            }
        })();
        if let Err(problem) = result {
            self.leave_out(rel, problem);
        }
    }
}

/// A new, empty file in `dir` under a name no other file there has
/// (`.sandtab-tmp-<pid>-<n>`), readable and writable by its owner only.
fn temp_file(dir: &Dir) -> std::io::Result<(String, cap_std::fs::File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut options = cap_std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!(".sandtab-tmp-{}-{n}", std::process::id());
        match dir.open_with(&name, &options) {
            Ok(file) => return Ok((name, file)),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(err),
        }
    }
}

#[cfg(unix)]
fn set_file_mode(file: &cap_std::fs::File, mode: u32) -> std::io::Result<()> {
    use cap_std::fs::{Permissions, PermissionsExt};
    file.set_permissions(Permissions::from_mode(mode & HOST_MODE_MASK))
}

#[cfg(not(unix))]
fn set_file_mode(_file: &cap_std::fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn set_mode(dir: &Dir, name: &str, mode: u32) -> std::io::Result<()> {
    use cap_std::fs::{Permissions, PermissionsExt};
    dir.set_permissions(name, Permissions::from_mode(mode & HOST_MODE_MASK))
}

#[cfg(not(unix))]
fn set_mode(_dir: &Dir, _name: &str, _mode: u32) -> std::io::Result<()> {
    let _ = HOST_MODE_MASK;
    Ok(())
}

#[cfg(unix)]
fn symlink(dir: &Dir, target: &str, name: &str) -> Result<(), Problem> {
    Ok(dir.symlink(target, name)?)
}

#[cfg(not(unix))]
fn symlink(_dir: &Dir, _target: &str, _name: &str) -> Result<(), Problem> {
    Err(Problem::Refused(
        "symlinks are written back on Unix only".to_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_mean_more_on_some_host_are_refused() {
        for name in ["", ".", "..", "a\\b", "C:", "c:x", "a\0b"] {
            assert!(refused_name(name).is_some(), "{name:?}");
        }
        for name in ["a", "...", ".hidden", "ab:c", "é"] {
            assert_eq!(refused_name(name), None, "{name:?}");
        }
    }

    #[test]
    fn a_symlink_target_must_stay_inside_host_lexically() {
        for (rel, target) in [
            ("x", "/etc/shadow"),
            ("x", ".."),
            ("x", "../x"),
            ("a/x", "../../x"),
            ("a/b/x", "../../../x"),
            ("x", "a/../b"),
            ("a/x", "b/../../x"),
            ("x", "C:/x"),
            ("x", "a\\..\\..\\x"),
            ("x", ""),
        ] {
            assert!(
                refused_link_target(rel, target).is_some(),
                "{rel} -> {target}"
            );
        }
        for (rel, target) in [
            ("x", "y"),
            ("x", "./y/z"),
            ("a/x", ".."),
            ("a/x", "../y"),
            ("a/b/x", "../../y/z"),
            ("x", "."),
        ] {
            assert_eq!(refused_link_target(rel, target), None, "{rel} -> {target}");
        }
    }
}
