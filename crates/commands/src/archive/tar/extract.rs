//! `tar -t` and `tar -x`: the archive read (gzip found by its magic, as GNU tar
//! finds it), members chosen by name, then listed or written out (modes and times
//! restored, directories' last), with GNU tar's messages.

use super::{Compression, Operation, Session};
use crate::archive::gzip::format::{self as gzip, Problem};
use crate::files::fileops::date::format_minutes;
use crate::files::fileops::is_dev_null;
use crate::files::fileops::modes::permission_string;
use crate::util::{read_stdin, strerror};
use crate::wildcard::{self, has_wildcards};
use sandtab_vfs::tar_format::{self as archive, Entry, Kind};
use sandtab_vfs::{ErrorKind, FileKind, Timestamp, VfsError, VfsPath};

/// A directory whose mode and time are set once everything inside it is written.
struct PendingDir {
    path: VfsPath,
    mode: u32,
    mtime: i64,
}

/// A symlink made once every other member is out, as GNU tar makes one whose target
/// is absolute or has `..` in it: until then an empty file (mode 0) holds its place,
/// so no later member is written through it (`s -> /home/agent` then `s/.bashrc`
/// fails with ENOTDIR instead of overwriting `/home/agent/.bashrc`).
struct DelayedLink {
    target: String,
    /// The placeholder's inode: a name still holding it becomes the link.
    ino: u64,
    /// Member names and paths: the symlink's first, then hard links to it.
    sources: Vec<(String, VfsPath)>,
}

/// What is done once every member is out: delayed links, then directories.
#[derive(Default)]
struct Later {
    dirs: Vec<PendingDir>,
    links: Vec<DelayedLink>,
}

/// Whether GNU tar delays a symlink to `target` (when not `--absolute-names`).
fn leads_out(target: &str) -> bool {
    target.starts_with('/') || target.split('/').any(|part| part == "..")
}

/// GNU tar's safe form of a hard link's target: everything up to the last `..` (and
/// any leading `/`) removed. The name left and the prefix removed.
fn link_target_suffix(target: &str) -> (&str, &str) {
    let mut start = 0;
    let mut at = 0;
    for part in target.split('/') {
        let end = at + part.len();
        if part == ".." {
            start = (end + 1).min(target.len());
        }
        at = end + 1;
    }
    let rest = target[start..].trim_start_matches('/');
    let cut = target.len() - rest.len();
    (rest, &target[..cut])
}

/// GNU tar's width for the owner and size columns, which grows with what it shows.
const OWNER_SIZE_WIDTH: usize = 19;

impl Session<'_, '_, '_> {
    pub(super) async fn extract(&mut self) -> crate::Result<i32> {
        let extracting = self.options.operation == Some(Operation::Extract);
        let base = if extracting {
            match self.extraction_dir() {
                Ok(base) => base,
                Err(dir) => {
                    let message = format!("{dir}: Cannot open: No such file or directory");
                    return self.fatal(message).await;
                }
            }
        } else {
            self.run.files.cwd.clone()
        };
        let data = match self.read_archive().await? {
            Ok(data) => data,
            Err(status) => return Ok(status),
        };
        let contents = archive::read(&data);
        if contents.not_an_archive {
            self.error("This does not look like a tar archive").await?;
        }
        for _ in 0..contents.skipped {
            self.error("Skipping to next header").await?;
        }
        let operands: Vec<String> = self
            .options
            .members
            .iter()
            .map(|m| m.name.clone())
            .collect();
        let mut matched = vec![false; operands.len()];
        let mut later = Later::default();
        let count = contents.entries.len();
        for (index, (entry, body)) in contents.entries.iter().enumerate() {
            if !self.selected(&entry.name, &operands, &mut matched) {
                continue;
            }
            let truncated = contents.truncated && index + 1 == count;
            if extracting {
                self.extract_entry(&base, entry, body, truncated, &mut later)
                    .await?;
            } else {
                self.list_entry(entry).await?;
            }
        }
        // Made even when the archive is cut short, as GNU tar makes them.
        self.apply_delayed_links(std::mem::take(&mut later.links))
            .await?;
        if contents.truncated {
            return self.fatal("Unexpected EOF in archive").await;
        }
        self.finish_dirs(later.dirs).await;
        self.report_unmatched(&operands, &matched).await?;
        Ok(0)
    }

    /// The directory `-C` names (each relative to the one before); `Err` with the
    /// name that is not a directory.
    fn extraction_dir(&self) -> Result<VfsPath, String> {
        let mut base = self.run.files.cwd.clone();
        for dir in &self.options.dirs {
            let next = base.join(dir).ok().filter(|next| {
                self.run
                    .fs()
                    .mem()
                    .stat(next)
                    .is_ok_and(|meta| meta.kind == FileKind::Directory)
            });
            base = next.ok_or_else(|| dir.clone())?;
        }
        Ok(base)
    }

    /// The archive's bytes, decompressed; `Err` with the status after a fatal error.
    async fn read_archive(&mut self) -> crate::Result<Result<Vec<u8>, i32>> {
        let archive = self.options.archive.clone();
        let data = if archive == "-" {
            read_stdin(self.run.ctx()).await?
        } else if self.run.path(&archive).is_ok_and(|path| is_dev_null(&path)) {
            Vec::new()
        } else {
            match self.run.read(&archive).await {
                Ok(data) => data,
                Err(err) => {
                    let message = format!("{archive}: Cannot open: {}", strerror(&err));
                    return self.fatal(message).await.map(Err);
                }
            }
        };
        let gzipped = data.starts_with(&[0x1f, 0x8b]);
        let missing = match self.options.compression {
            Compression::Missing(program) => Some(program),
            _ if data.starts_with(b"BZh") => Some("bzip2"),
            _ if data.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) => Some("xz"),
            _ if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) => Some("zstd"),
            _ => None,
        };
        if let Some(program) = missing {
            return self.missing_program(program).await.map(Err);
        }
        if !gzipped && self.options.compression != Compression::Gzip {
            return Ok(Ok(data));
        }
        let decoded = gzip::decompress(&data);
        match decoded.problem {
            None => Ok(Ok(decoded.data)),
            Some(problem) => {
                let problem = if problem == Problem::NotGzip || data.is_empty() {
                    Problem::NotGzip
                } else {
                    problem
                };
                let message = format!(
                    "\ngzip: stdin: {}\ntar: Child returned status 1\ntar: Error is not recoverable: exiting now\n",
                    problem.message()
                );
                self.run.out.err(message).await?;
                Ok(Err(2))
            }
        }
    }

    /// Whether the member `name` is wanted (all are when none are named).
    fn selected(&self, name: &str, operands: &[String], matched: &mut [bool]) -> bool {
        if operands.is_empty() {
            return true;
        }
        let name = name.trim_end_matches('/');
        let wildcards = self.options.wildcards == Some(true);
        let mut any = false;
        for (operand, seen) in operands.iter().zip(matched.iter_mut()) {
            let wanted = operand.trim_end_matches('/');
            let hit = if wildcards && has_wildcards(wanted) {
                wildcard::matches(wanted, name)
                    || name
                        .match_indices('/')
                        .any(|(at, _)| wildcard::matches(wanted, &name[..at]))
            } else {
                name == wanted
                    || name
                        .strip_prefix(wanted)
                        .is_some_and(|rest| rest.starts_with('/'))
                    || wanted.is_empty()
            };
            if hit {
                *seen = true;
                any = true;
            }
        }
        any
    }

    async fn report_unmatched(
        &mut self,
        operands: &[String],
        matched: &[bool],
    ) -> crate::Result<()> {
        let mut warned_patterns = false;
        for (operand, seen) in operands.iter().zip(matched) {
            if *seen {
                continue;
            }
            if !warned_patterns && self.options.wildcards.is_none() && has_wildcards(operand) {
                warned_patterns = true;
                self.run
                    .warn("Pattern matching characters used in file names")
                    .await?;
                self.run
                    .warn("Use --wildcards to enable pattern matching, or --no-wildcards to suppress this warning")
                    .await?;
            }
            self.error(format!("{operand}: Not found in archive"))
                .await?;
        }
        Ok(())
    }

    async fn list_entry(&mut self, entry: &Entry) -> crate::Result<()> {
        let line = if self.options.verbose > 0 {
            self.long_line(entry)
        } else {
            entry.name.clone()
        };
        self.list_line(&line).await
    }

    /// `tar -tv`'s line: `-rw-r--r-- user/group  size YYYY-MM-DD HH:MM name`.
    pub(super) fn long_line(&self, entry: &Entry) -> String {
        let user = if entry.user.is_empty() {
            entry.uid.to_string()
        } else {
            entry.user.clone()
        };
        let group = if entry.group.is_empty() {
            entry.gid.to_string()
        } else {
            entry.group.clone()
        };
        let size = entry.size.to_string();
        let pad = user.len() + 1 + group.len() + 1 + size.len();
        let width = OWNER_SIZE_WIDTH.max(pad) - pad + size.len();
        let mut line = format!(
            "{}{} {user}/{group} {size:>width$} {} {}",
            entry.kind.letter(),
            permission_string(entry.mode),
            format_minutes(entry.mtime),
            entry.name
        );
        match entry.kind {
            Kind::Symlink => line.push_str(&format!(" -> {}", entry.link)),
            Kind::HardLink => line.push_str(&format!(" link to {}", entry.link)),
            _ => {}
        }
        line
    }

    /// `name` less `--strip-components` leading parts; `None` when nothing is left.
    fn stripped<'n>(&self, name: &'n str) -> Option<&'n str> {
        let mut rest = name;
        for _ in 0..self.options.strip {
            let trimmed = rest.trim_start_matches('/');
            let slash = trimmed.find('/')?;
            rest = &trimmed[slash + 1..];
        }
        let rest = rest.trim_start_matches('/');
        (!rest.trim_end_matches('/').is_empty()).then_some(rest)
    }

    async fn extract_entry(
        &mut self,
        base: &VfsPath,
        entry: &Entry,
        body: &[u8],
        truncated: bool,
        later: &mut Later,
    ) -> crate::Result<()> {
        let Some(stripped) = self.stripped(&entry.name) else {
            return Ok(());
        };
        let name = self.safe_name(stripped, "member names").await?;
        if name.is_empty() || name.split('/').any(|part| part == "..") {
            let message = format!("{}: Member name contains '..'", entry.name);
            return self.error(message).await;
        }
        if self.options.verbose > 1 {
            let line = self.long_line(entry);
            self.list_line(&line).await?;
        } else if self.options.verbose == 1 {
            self.list_line(&entry.name).await?;
        }
        if self.options.to_stdout {
            if entry.kind == Kind::File {
                self.run.out.out(body).await?;
            }
            return Ok(());
        }
        let path = match base.join(&name) {
            Ok(path) => path,
            Err(err) => return self.cannot("open", &name, &err).await,
        };
        if let Some(parent) = path.parent()
            && let Err(err) = self.run.fs().mem().create_dir_all(&parent)
        {
            return self.cannot("open", &name, &err).await;
        }
        match entry.kind {
            Kind::Directory => self.extract_dir(&name, &path, entry, &mut later.dirs).await,
            Kind::File => {
                self.extract_file(&name, &path, entry, body, truncated)
                    .await
            }
            Kind::Symlink => {
                if !self.clear_way(&name, &path).await? {
                    return Ok(());
                }
                if !self.options.absolute_names && leads_out(&entry.link) {
                    return self.placeholder(&name, &path, entry, later).await;
                }
                if let Err(err) = self.run.fs().mem().symlink(&entry.link, &path) {
                    return self.cannot("create symlink to", &name, &err).await;
                }
                Ok(())
            }
            Kind::HardLink => {
                self.extract_hard_link(base, &name, &path, entry, later)
                    .await
            }
            Kind::Other(_) => {
                let err = VfsError::new(ErrorKind::NotPermitted, name.as_str());
                self.cannot("mknod", &name, &err).await
            }
        }
    }

    /// `tar: NAME: Cannot WHAT: strerror`, a non-fatal error.
    async fn cannot(&mut self, what: &str, name: &str, err: &VfsError) -> crate::Result<()> {
        self.error(format!("{name}: Cannot {what}: {}", strerror(err)))
            .await
    }

    /// Makes room for a new non-directory at `path`: `-k` refuses, `--skip-old-files`
    /// skips, otherwise what is there is removed. Whether to go on.
    async fn clear_way(&mut self, name: &str, path: &VfsPath) -> crate::Result<bool> {
        let mem = self.run.fs().mem();
        let Ok(existing) = mem.lstat(path) else {
            return Ok(true);
        };
        if self.options.skip_old {
            return Ok(false);
        }
        if self.options.keep_old {
            let err = VfsError::new(ErrorKind::AlreadyExists, name);
            self.cannot("open", name, &err).await?;
            return Ok(false);
        }
        let removed = if existing.kind == FileKind::Directory {
            mem.remove_dir(path)
        } else {
            mem.remove_file(path)
        };
        match removed {
            Ok(()) => Ok(true),
            Err(err) => {
                self.cannot("open", name, &err).await?;
                Ok(false)
            }
        }
    }

    async fn extract_dir(
        &mut self,
        name: &str,
        path: &VfsPath,
        entry: &Entry,
        pending: &mut Vec<PendingDir>,
    ) -> crate::Result<()> {
        let mem = self.run.fs().mem();
        match mem.lstat(path) {
            Ok(meta) if meta.kind == FileKind::Directory => {}
            Ok(_) => {
                if !self.clear_way(name, path).await? {
                    return Ok(());
                }
                if let Err(err) = mem.create_dir(path) {
                    return self.cannot("mkdir", name, &err).await;
                }
            }
            Err(_) => {
                if let Err(err) = mem.create_dir(path) {
                    return self.cannot("mkdir", name, &err).await;
                }
            }
        }
        pending.push(PendingDir {
            path: path.clone(),
            mode: entry.mode,
            mtime: entry.mtime,
        });
        Ok(())
    }

    async fn extract_file(
        &mut self,
        name: &str,
        path: &VfsPath,
        entry: &Entry,
        body: &[u8],
        truncated: bool,
    ) -> crate::Result<()> {
        if !self.clear_way(name, path).await? {
            return Ok(());
        }
        let mem = self.run.fs().mem();
        let written = mem
            .write(path, body)
            .and_then(|()| mem.set_mode(path, entry.mode));
        if let Err(err) = written {
            return self.cannot("open", name, &err).await;
        }
        if truncated {
            // GNU tar notices the short file as it writes it, then again reading on.
            return self.run.warn("Unexpected EOF in archive").await;
        }
        self.set_mtime(path, entry.mtime);
        Ok(())
    }

    /// The empty file that holds a delayed symlink's place (GNU tar's placeholder).
    async fn placeholder(
        &mut self,
        name: &str,
        path: &VfsPath,
        entry: &Entry,
        later: &mut Later,
    ) -> crate::Result<()> {
        let mem = self.run.fs().mem();
        let made = mem
            .write(path, b"")
            .and_then(|()| mem.set_mode(path, 0))
            .and_then(|()| mem.lstat(path));
        match made {
            Ok(meta) => {
                later.links.push(DelayedLink {
                    target: entry.link.clone(),
                    ino: meta.ino,
                    sources: vec![(name.to_owned(), path.clone())],
                });
                Ok(())
            }
            Err(err) => self.cannot("open", name, &err).await,
        }
    }

    /// Turns each placeholder still standing into its symlink (and the hard links
    /// to it), the last made first, as GNU tar does.
    async fn apply_delayed_links(&mut self, links: Vec<DelayedLink>) -> crate::Result<()> {
        let mem = self.run.fs().mem().clone();
        for link in links.into_iter().rev() {
            let mut made: Option<VfsPath> = None;
            for (name, source) in &link.sources {
                let standing = mem
                    .lstat(source)
                    .is_ok_and(|meta| meta.kind == FileKind::File && meta.ino == link.ino);
                if !standing {
                    continue;
                }
                if let Err(err) = mem.remove_file(source) {
                    self.cannot("unlink", name, &err).await?;
                    continue;
                }
                let result = match &made {
                    Some(first) => mem.hard_link(first, source),
                    None => mem.symlink(&link.target, source),
                };
                match result {
                    Ok(()) => {
                        made.get_or_insert_with(|| source.clone());
                    }
                    Err(err) => {
                        let message = format!(
                            "{name}: Cannot create symlink to '{}': {}",
                            link.target,
                            strerror(&err)
                        );
                        self.error(message).await?;
                    }
                }
            }
        }
        Ok(())
    }

    async fn extract_hard_link(
        &mut self,
        base: &VfsPath,
        name: &str,
        path: &VfsPath,
        entry: &Entry,
        later: &mut Later,
    ) -> crate::Result<()> {
        let link = self.stripped(&entry.link).unwrap_or(&entry.link).to_owned();
        let target_name = if self.options.absolute_names {
            link.clone()
        } else {
            // Nothing above the directory extracted into: GNU tar's safe suffix.
            let (rest, prefix) = link_target_suffix(&link);
            self.removing_prefix(prefix, "hard link targets").await?;
            rest.to_owned()
        };
        let target = match base.join(&target_name) {
            Ok(target) => target,
            Err(err) => return self.cannot("hard link to", name, &err).await,
        };
        if target == *path {
            return Ok(());
        }
        let mem = self.run.fs().mem().clone();
        // A link to a placeholder waits for its symlink, and then links to that.
        let target_meta = mem.lstat(&target);
        if !later.links.is_empty()
            && let Err(err) = &target_meta
            && err.kind() != ErrorKind::NotFound
        {
            let message = format!("{target_name}: Cannot stat: {}", strerror(err));
            self.error(message).await?;
        }
        let delayed = target_meta.ok().and_then(|meta| {
            later
                .links
                .iter()
                .position(|link| meta.kind == FileKind::File && link.ino == meta.ino)
        });
        if !self.clear_way(name, path).await? {
            return Ok(());
        }
        if let Err(err) = mem.hard_link(&target, path) {
            let message = format!(
                "{name}: Cannot hard link to '{target_name}': {}",
                strerror(&err)
            );
            return self.error(message).await;
        }
        if let Some(at) = delayed {
            later.links[at]
                .sources
                .push((name.to_owned(), path.clone()));
        }
        Ok(())
    }

    fn set_mtime(&self, path: &VfsPath, mtime: i64) {
        if self.options.touch {
            return;
        }
        let nanos = u64::try_from(mtime)
            .unwrap_or(0)
            .saturating_mul(1_000_000_000);
        let _ = self
            .run
            .fs()
            .mem()
            .set_times(path, None, Some(Timestamp(nanos)));
    }

    /// Directories' modes and times, innermost first, once their contents are in.
    async fn finish_dirs(&mut self, pending: Vec<PendingDir>) {
        for dir in pending.iter().rev() {
            let _ = self.run.fs().mem().set_mode(&dir.path, dir.mode);
            self.set_mtime(&dir.path, dir.mtime);
        }
    }
}
