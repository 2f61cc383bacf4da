//! `tar -c` (and `-r`, `-u`): members read from the filesystem, directories
//! recursively in name order, hard links kept, the archive written last.

use super::{Compression, Member, Operation, Session};
use crate::archive::gzip::format as gzip;
use crate::files::fileops::{child_name, is_dev_null};
use crate::util::{is_missing, strerror};
use sandtab_vfs::tar_format::{self as archive, Entry, Kind, Writer};
use sandtab_vfs::{ErrorKind, FileKind, Metadata, VfsError, VfsPath};
use std::collections::HashMap;

/// The sandbox's user, as archive headers record owners.
const USER: (u64, &str) = (1000, "agent");

/// An archive being built: the writer, where the archive file is (so it is not
/// archived into itself), the names of multiply-linked files already stored, and
/// the members archived so far (for `-u`: what the archive already holds).
struct Building {
    writer: Writer,
    archive_path: Option<VfsPath>,
    compressed: bool,
    linked: HashMap<u64, String>,
    existing: HashMap<String, i64>,
}

impl Session<'_, '_, '_> {
    pub(super) async fn create(&mut self) -> crate::Result<i32> {
        let operation = self.options.operation;
        if self.options.members.is_empty() && operation == Some(Operation::Create) {
            let message = "Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.";
            self.run.warn(message).await?;
            return Ok(2);
        }
        let compression = self.compression_for_writing();
        if let Compression::Missing(program) = compression {
            return self.missing_program(program).await;
        }
        let Some(mut building) = self.start_archive(compression).await? else {
            return Ok(2);
        };
        let members = std::mem::take(&mut self.options.members);
        for member in &members {
            if let Some(status) = self.add_member(&mut building, member).await? {
                return Ok(status);
            }
        }
        let mut data = building.writer.finish();
        if compression == Compression::Gzip {
            data = gzip::compress(&data, 6, None, 0);
        }
        if self.options.archive == "-" {
            self.run.out.out(data).await?;
            return Ok(0);
        }
        let archive = self.options.archive.clone();
        let written = match self.run.path(&archive) {
            Ok(path) if is_dev_null(&path) => Ok(()),
            Ok(path) => self.run.fs().mem().write_owned(&path, data),
            Err(err) => Err(err),
        };
        if let Err(err) = written {
            let message = format!("{archive}: Cannot write: {}", strerror(&err));
            return self.fatal(message).await;
        }
        Ok(0)
    }

    /// `z`, or with `-a` what the archive's name asks for.
    fn compression_for_writing(&self) -> Compression {
        if !self.options.auto_compress || self.options.compression != Compression::None {
            return self.options.compression;
        }
        let name = self.options.archive.as_str();
        let suffixes = [
            (".tar.gz", Compression::Gzip),
            (".tgz", Compression::Gzip),
            (".taz", Compression::Gzip),
            (".tar.bz2", Compression::Missing("bzip2")),
            (".tbz2", Compression::Missing("bzip2")),
            (".tbz", Compression::Missing("bzip2")),
            (".tar.xz", Compression::Missing("xz")),
            (".txz", Compression::Missing("xz")),
            (".tar.zst", Compression::Missing("zstd")),
            (".tar.Z", Compression::Missing("compress")),
        ];
        suffixes
            .iter()
            .find(|(suffix, _)| name.ends_with(suffix))
            .map_or(Compression::None, |(_, compression)| *compression)
    }

    /// What GNU tar says when the compression program cannot run.
    pub(super) async fn missing_program(&mut self, program: &str) -> crate::Result<i32> {
        let message = format!(
            "tar (child): {program}: Cannot exec: No such file or directory\ntar (child): Error is not recoverable: exiting now\ntar: Child returned status 2\ntar: Error is not recoverable: exiting now\n"
        );
        self.run.out.err(message).await?;
        Ok(2)
    }

    /// Opens the archive: a new empty one (created at once, as GNU does), or for
    /// `-r`/`-u` the existing one without its end blocks; `None` after a fatal error.
    async fn start_archive(&mut self, compression: Compression) -> crate::Result<Option<Building>> {
        let archive = self.options.archive.clone();
        let mut building = Building {
            writer: Writer::new(Vec::new()),
            archive_path: None,
            compressed: compression != Compression::None,
            linked: HashMap::new(),
            existing: HashMap::new(),
        };
        if archive == "-" || self.run.path(&archive).is_ok_and(|path| is_dev_null(&path)) {
            return Ok(Some(building));
        }
        let path = match self.run.path(&archive) {
            Ok(path) => path,
            Err(err) => {
                self.fatal(format!("{archive}: Cannot open: {}", strerror(&err)))
                    .await?;
                return Ok(None);
            }
        };
        let mem = self.run.fs().mem();
        if self.options.operation != Some(Operation::Create) && mem.exists(&path) {
            let Some(existing) = self.existing_archive(&archive, compression).await? else {
                return Ok(None);
            };
            building.existing = existing.1;
            building.writer = Writer::new(existing.0);
        } else if let Err(err) = mem.write(&path, &[]) {
            self.fatal(format!("{archive}: Cannot open: {}", strerror(&err)))
                .await?;
            return Ok(None);
        }
        building.archive_path = Some(path);
        Ok(Some(building))
    }

    /// The archive `-r`/`-u` add to, up to its end blocks, and its members' times.
    async fn existing_archive(
        &mut self,
        archive: &str,
        compression: Compression,
    ) -> crate::Result<Option<(Vec<u8>, HashMap<String, i64>)>> {
        let data = match self.run.read(archive).await {
            Ok(data) => data,
            Err(err) => {
                self.fatal(format!("{archive}: Cannot open: {}", strerror(&err)))
                    .await?;
                return Ok(None);
            }
        };
        if compression != Compression::None || data.starts_with(&[0x1f, 0x8b]) {
            self.fatal("Cannot update compressed archives").await?;
            return Ok(None);
        }
        let contents = archive::read(&data);
        let times = contents
            .entries
            .iter()
            .map(|(entry, _)| (entry.name.clone(), entry.mtime))
            .collect();
        let mut kept = data;
        kept.truncate(contents.end);
        Ok(Some((kept, times)))
    }

    /// Archives one command-line member; `Some(status)` after a fatal error.
    async fn add_member(
        &mut self,
        building: &mut Building,
        member: &Member,
    ) -> crate::Result<Option<i32>> {
        let mut base = self.run.files.cwd.clone();
        for dir in &member.dirs {
            let next = base.join(dir).ok().filter(|next| {
                self.run
                    .fs()
                    .mem()
                    .stat(next)
                    .is_ok_and(|meta| meta.kind == FileKind::Directory)
            });
            match next {
                Some(next) => base = next,
                None => {
                    let message = format!("{dir}: Cannot open: No such file or directory");
                    return self.fatal(message).await.map(Some);
                }
            }
        }
        let joined = if member.name.is_empty() {
            Err(VfsError::new(ErrorKind::NotFound, ""))
        } else {
            base.join(&member.name)
        };
        let path = match joined {
            Ok(path) => path,
            Err(err) => {
                let message = format!("{}: Cannot stat: {}", member.name, strerror(&err));
                self.error(message).await?;
                return Ok(None);
            }
        };
        let name = self.safe_name(&member.name, "member names").await?;
        let name = if name.is_empty() {
            "./".to_owned()
        } else {
            name
        };
        self.add_path(building, &member.name, &name, &path, true)
            .await?;
        Ok(None)
    }

    /// Archives `path` under `name` (and, for a directory, what it holds).
    async fn add_path(
        &mut self,
        building: &mut Building,
        shown: &str,
        name: &str,
        path: &VfsPath,
        top: bool,
    ) -> crate::Result<()> {
        let mem = self.run.fs().mem();
        let found = if self.options.dereference {
            mem.stat(path)
        } else {
            mem.lstat(path)
        };
        let meta = match found {
            Ok(meta) => meta,
            Err(err) => {
                let message = format!("{shown}: Cannot stat: {}", strerror(&err));
                return self.error(message).await;
            }
        };
        if self.excluded(name) {
            return Ok(());
        }
        if building.archive_path.as_ref() == Some(path) {
            if building.compressed {
                // GNU tar writes a compressed archive through a pipe, and its
                // directory scan is done before the file appears: it is not there.
                return Ok(());
            }
            let message = format!("{shown}: file is the archive; not dumped");
            return self.run.warn(message).await;
        }
        if meta.links > 1 && meta.kind != FileKind::Directory && top {
            self.safe_name(shown, "hard link targets").await?;
        }
        if self.options.operation == Some(Operation::Update)
            && meta.kind != FileKind::Directory
            && building.existing.get(name).is_some_and(|&stored| {
                stored >= i64::try_from(meta.modified.as_secs()).unwrap_or(0)
            })
        {
            return Ok(());
        }
        match meta.kind {
            FileKind::Directory => {
                Box::pin(self.add_directory(building, shown, name, path, &meta)).await
            }
            FileKind::Symlink => {
                let target = match mem.read_link(path) {
                    Ok(target) => target,
                    Err(err) => {
                        let message = format!("{shown}: Cannot readlink: {}", strerror(&err));
                        return self.error(message).await;
                    }
                };
                let mut entry = self.entry(name, Kind::Symlink, &meta);
                entry.link = target;
                self.store(building, &entry, &[]).await?;
                self.remove_added(path, false).await
            }
            FileKind::File => self.add_file(building, shown, name, path, &meta).await,
        }
    }

    async fn add_directory(
        &mut self,
        building: &mut Building,
        shown: &str,
        name: &str,
        path: &VfsPath,
        meta: &Metadata,
    ) -> crate::Result<()> {
        let dir_name = if name.ends_with('/') {
            name.to_owned()
        } else {
            format!("{name}/")
        };
        let entry = self.entry(&dir_name, Kind::Directory, meta);
        self.store(building, &entry, &[]).await?;
        if !self.options.recursion {
            return Ok(());
        }
        let entries = match self.run.fs().mem().read_dir(path) {
            Ok(entries) => entries,
            Err(err) => {
                let message = format!("{shown}: Cannot open: {}", strerror(&err));
                return self.error(message).await;
            }
        };
        for child in entries {
            let Ok(child_path) = path.join(&child.name) else {
                continue;
            };
            let child_shown = child_name(shown, &child.name);
            let child_archived = child_name(name, &child.name);
            self.add_path(building, &child_shown, &child_archived, &child_path, false)
                .await?;
        }
        self.remove_added(path, true).await
    }

    async fn add_file(
        &mut self,
        building: &mut Building,
        shown: &str,
        name: &str,
        path: &VfsPath,
        meta: &Metadata,
    ) -> crate::Result<()> {
        if meta.links > 1 {
            if let Some(first) = building.linked.get(&meta.ino).cloned() {
                let mut entry = self.entry(name, Kind::HardLink, meta);
                entry.link = first;
                self.store(building, &entry, &[]).await?;
                return self.remove_added(path, false).await;
            }
            building.linked.insert(meta.ino, name.to_owned());
        }
        let fs = self.run.fs();
        let data = match fs.load_for_read(path).await {
            Ok(()) => fs.mem().read(path),
            Err(err) => Err(err),
        };
        let data = match data {
            Ok(data) => data,
            Err(err) if is_missing(&err) => {
                let message = format!("{shown}: Cannot stat: {}", strerror(&err));
                return self.error(message).await;
            }
            Err(err) => {
                let message = format!("{shown}: Cannot open: {}", strerror(&err));
                return self.error(message).await;
            }
        };
        let entry = self.entry(name, Kind::File, meta);
        self.store(building, &entry, &data).await?;
        self.remove_added(path, false).await
    }

    /// The header fields for a member from its metadata (and `--owner` & co.).
    fn entry(&self, name: &str, kind: Kind, meta: &Metadata) -> Entry {
        let (uid, user) = match &self.options.owner {
            Some(owner) => owner_id(owner),
            None => (USER.0, USER.1.to_owned()),
        };
        let (gid, group) = match &self.options.group {
            Some(group) => owner_id(group),
            None => (USER.0, USER.1.to_owned()),
        };
        let numeric = self.options.numeric_owner;
        Entry {
            name: name.to_owned(),
            kind,
            link: String::new(),
            mode: meta.mode,
            mtime: self
                .options
                .mtime
                .unwrap_or_else(|| i64::try_from(meta.modified.as_secs()).unwrap_or(0)),
            uid,
            gid,
            user: if numeric { String::new() } else { user },
            group: if numeric { String::new() } else { group },
            size: meta.size,
        }
    }

    async fn store(
        &mut self,
        building: &mut Building,
        entry: &Entry,
        data: &[u8],
    ) -> crate::Result<()> {
        building.writer.append(entry, data);
        match self.options.verbose {
            0 => Ok(()),
            1 => self.list_line(&entry.name).await,
            _ => {
                let mut entry = entry.clone();
                entry.size = data.len() as u64;
                let line = self.long_line(&entry);
                self.list_line(&line).await
            }
        }
    }

    /// `--remove-files`: the file (or emptied directory) goes once archived.
    async fn remove_added(&mut self, path: &VfsPath, dir: bool) -> crate::Result<()> {
        if !self.options.remove_files {
            return Ok(());
        }
        let mem = self.run.fs().mem();
        let removed = if dir {
            mem.remove_dir(path)
        } else {
            mem.remove_file(path)
        };
        if let Err(err) = removed {
            let message = format!("{path}: Cannot remove: {}", strerror(&err));
            self.error(message).await?;
        }
        Ok(())
    }
}

/// `--owner=NAME[:ID]` or a number.
fn owner_id(spec: &str) -> (u64, String) {
    let spec = spec.trim_start_matches('+');
    match spec.split_once(':') {
        Some((name, id)) => (id.parse().unwrap_or(0), name.to_owned()),
        None => match spec.parse() {
            Ok(id) => (id, String::new()),
            Err(_) if spec == USER.1 => (USER.0, spec.to_owned()),
            Err(_) => (0, spec.to_owned()),
        },
    }
}
