//! `cp`: files, trees with `-r`, `-a`/`-p` (modes, times, hard links kept), `-n`,
//! `-i`, `-u`, `-f`, `-l`/`-s` (links instead of copies), `-P`/`-L`/`-H`, `-t`/`-T`,
//! `--parents` and `-v`, with GNU's messages.

use super::args::{self, Spec, Value};
use super::modes::UMASK;
use super::target::{self, Target};
use super::{HELP, Run, Stop, VERSION, child_name, dev_null_metadata, is_dev_null, quote_always};
use crate::util::{quote, strerror};
use crate::{Context, Status};
use sandtab_vfs::{ErrorKind, FileKind, Metadata, SandboxFs, VfsError, VfsPath};
use std::collections::HashMap;
use std::sync::Arc;

const PRESERVE: char = '\u{e020}';
const NO_PRESERVE: char = '\u{e021}';
const PARENTS: char = '\u{e022}';
const REMOVE_DESTINATION: char = '\u{e023}';
const IGNORED_WITH_VALUE: char = '\u{e024}';
const IGNORED: char = '\u{e025}';
const UPDATE: char = '\u{e026}';

const SPEC: Spec = Spec {
    short: "abdfHilLnprst:TuvxRPZ",
    long: &[
        ("archive", Value::No, 'a'),
        ("attributes-only", Value::No, IGNORED),
        ("dereference", Value::No, 'L'),
        ("force", Value::No, 'f'),
        ("interactive", Value::No, 'i'),
        ("link", Value::No, 'l'),
        ("no-clobber", Value::No, 'n'),
        ("no-dereference", Value::No, 'P'),
        ("no-preserve", Value::Required, NO_PRESERVE),
        ("no-target-directory", Value::No, 'T'),
        ("one-file-system", Value::No, 'x'),
        ("parents", Value::No, PARENTS),
        ("preserve", Value::Optional, PRESERVE),
        ("recursive", Value::No, 'R'),
        ("reflink", Value::Optional, IGNORED_WITH_VALUE),
        ("remove-destination", Value::No, REMOVE_DESTINATION),
        ("sparse", Value::Required, IGNORED_WITH_VALUE),
        ("strip-trailing-slashes", Value::No, IGNORED),
        ("symbolic-link", Value::No, 's'),
        ("target-directory", Value::Required, 't'),
        ("update", Value::Optional, UPDATE),
        ("verbose", Value::No, 'v'),
        ("context", Value::Optional, 'Z'),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

/// When symlinks among the sources are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deref {
    Never,
    CommandLine,
    Always,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overwrite {
    Yes,
    Never,
    Ask,
}

#[derive(Debug, Default, Clone, Copy)]
struct Preserve {
    mode: bool,
    times: bool,
    links: bool,
}

struct Options {
    recursive: bool,
    deref: Option<Deref>,
    preserve: Preserve,
    overwrite: Overwrite,
    update: bool,
    verbose: bool,
    force: bool,
    remove_destination: bool,
    hard_link: bool,
    symbolic: bool,
    parents: bool,
    target_dir: Option<String>,
    no_target_dir: bool,
}

/// A copy in progress: the options, and where each multiply-linked source went
/// (so that `-a` keeps hard links).
struct Copier {
    options: Options,
    deref: Deref,
    copied_inodes: HashMap<u64, VfsPath>,
    /// The first directory this operand's copy made (GNU records only it): met
    /// again as a source, the copy is going into itself.
    first_created: Option<u64>,
    /// The operand being copied, and where to, for the "into itself" message.
    top: (String, String),
    /// Set once the copy went into itself: the rest of that operand is skipped.
    into_itself: bool,
}

pub(super) async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let run = Run::new(fs, ctx);
    let parsed = match args::parse(ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let options = match read_options(parsed.options) {
        Ok(options) => options,
        Err(Stop::Usage(message)) => return run.usage(&message).await,
        Err(Stop::Help) => {
            return super::help(ctx, "[OPTION]... [-T] SOURCE DEST\n  or:  cp [OPTION]... SOURCE... DIRECTORY\n  or:  cp [OPTION]... -t DIRECTORY SOURCE...").await;
        }
        Err(Stop::Version) => return super::version(ctx).await,
    };
    let deref = options.deref.unwrap_or(if options.recursive {
        Deref::Never
    } else {
        Deref::Always
    });
    let mut run = run;
    let found = target::resolve(
        &mut run,
        &parsed.operands,
        &options.target_dir,
        options.no_target_dir,
    )
    .await?;
    let Some(target) = found else {
        return run.finish().await;
    };
    let mut copier = Copier {
        options,
        deref,
        copied_inodes: HashMap::new(),
        first_created: None,
        top: (String::new(), String::new()),
        into_itself: false,
    };
    match target {
        Target::File { source, dest } => copier.copy_top(&mut run, &source, &dest).await?,
        Target::Directory { sources, dir } => {
            for source in &sources {
                let dest = if copier.options.parents {
                    match copier.make_parents(&mut run, source, &dir).await? {
                        Some(dest) => dest,
                        None => continue,
                    }
                } else {
                    child_name(&dir, super::base_name(source))
                };
                copier.copy_top(&mut run, source, &dest).await?;
            }
        }
    }
    run.finish().await
}

fn read_options(given: Vec<(char, Option<String>)>) -> Result<Options, Stop> {
    let mut options = Options {
        recursive: false,
        deref: None,
        preserve: Preserve::default(),
        overwrite: Overwrite::Yes,
        update: false,
        verbose: false,
        force: false,
        remove_destination: false,
        hard_link: false,
        symbolic: false,
        parents: false,
        target_dir: None,
        no_target_dir: false,
    };
    const ALL: Preserve = Preserve {
        mode: true,
        times: true,
        links: true,
    };
    for (key, value) in given {
        match key {
            'a' => {
                options.recursive = true;
                options.deref = Some(Deref::Never);
                options.preserve = ALL;
            }
            'd' => {
                options.deref = Some(Deref::Never);
                options.preserve.links = true;
            }
            'f' => options.force = true,
            'H' => options.deref = Some(Deref::CommandLine),
            'i' => options.overwrite = Overwrite::Ask,
            'l' => options.hard_link = true,
            'L' => options.deref = Some(Deref::Always),
            'n' => options.overwrite = Overwrite::Never,
            'P' => options.deref = Some(Deref::Never),
            'p' => {
                options.preserve.mode = true;
                options.preserve.times = true;
            }
            'r' | 'R' => options.recursive = true,
            's' => options.symbolic = true,
            't' => options.target_dir = value,
            'T' => options.no_target_dir = true,
            'u' | UPDATE => options.update = value.as_deref() != Some("all"),
            'v' => options.verbose = true,
            PARENTS => options.parents = true,
            REMOVE_DESTINATION => options.remove_destination = true,
            PRESERVE | NO_PRESERVE => {
                let list = value.as_deref().unwrap_or("mode,ownership,timestamps");
                set_preserve(&mut options.preserve, list, key == PRESERVE).map_err(Stop::Usage)?;
            }
            HELP => return Err(Stop::Help),
            VERSION => return Err(Stop::Version),
            _ => {}
        }
    }
    Ok(options)
}

/// Applies `--preserve=LIST` (or `--no-preserve=LIST` when `on` is false).
fn set_preserve(preserve: &mut Preserve, list: &str, on: bool) -> Result<(), String> {
    for item in list.split(',') {
        match item {
            "mode" => preserve.mode = on,
            "timestamps" => preserve.times = on,
            "links" => preserve.links = on,
            "ownership" | "context" | "xattr" => {}
            "all" => {
                *preserve = Preserve {
                    mode: on,
                    times: on,
                    links: on,
                };
            }
            _ => {
                let option = if on { "--preserve" } else { "--no-preserve" };
                return Err(format!(
                    "invalid argument {} for '{option}'\nValid arguments are:\n  - 'mode'\n  - 'timestamps'\n  - 'ownership'\n  - 'links'\n  - 'context'\n  - 'xattr'\n  - 'all'",
                    quote_always(item)
                ));
            }
        }
    }
    Ok(())
}

impl Copier {
    /// `--parents`: makes `dir/a/b` for the source `a/b/c`; the destination name.
    async fn make_parents(
        &self,
        run: &mut Run<'_, '_>,
        source: &str,
        dir: &str,
    ) -> crate::Result<Option<String>> {
        let relative = source.trim_start_matches('/');
        let mut made = dir.to_owned();
        let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
        let mut source_prefix = String::new();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            made = child_name(&made, part);
            source_prefix = if source_prefix.is_empty() {
                (*part).to_owned()
            } else {
                format!("{source_prefix}/{part}")
            };
            let result = run.path(&made).and_then(|path| {
                let mem = run.fs().mem();
                match mem.stat(&path) {
                    Ok(meta) if meta.kind == FileKind::Directory => Ok(false),
                    Ok(_) => Err(VfsError::new(ErrorKind::NotADirectory, made.as_str())),
                    Err(_) => mem.create_dir(&path).map(|()| true),
                }
            });
            match result {
                Ok(true) if self.options.verbose => {
                    run.say(format!("{source_prefix} -> {made}")).await?;
                }
                Ok(_) => {}
                Err(err) => {
                    run.fail_at("cannot make directory", &made, &err).await?;
                    return Ok(None);
                }
            }
        }
        Ok(Some(child_name(dir, relative)))
    }

    async fn copy_top(
        &mut self,
        run: &mut Run<'_, '_>,
        source: &str,
        dest: &str,
    ) -> crate::Result<()> {
        self.first_created = None;
        self.into_itself = false;
        self.top = (source.to_owned(), dest.to_owned());
        let follow = self.deref != Deref::Never;
        let found = run.path(source).and_then(|path| {
            if is_dev_null(&path) {
                return Ok((path, dev_null_metadata()));
            }
            let meta = if follow {
                run.fs().mem().stat(&path)?
            } else {
                run.lstat_arg(source)?
            };
            Ok((path, meta))
        });
        let (source_path, meta) = match found {
            Ok(found) => found,
            Err(err) => return run.fail_at("cannot stat", source, &err).await,
        };
        let dest_path = match run.path(dest) {
            Ok(path) => path,
            Err(err) => return run.fail_at("cannot create regular file", dest, &err).await,
        };
        if is_dev_null(&dest_path) && meta.kind == FileKind::File {
            // Written to the null device: nothing to keep.
            return Ok(());
        }
        self.copy_entry(run, source, &source_path, &meta, dest, &dest_path)
            .await
    }

    async fn copy_entry(
        &mut self,
        run: &mut Run<'_, '_>,
        source: &str,
        source_path: &VfsPath,
        meta: &Metadata,
        dest: &str,
        dest_path: &VfsPath,
    ) -> crate::Result<()> {
        if meta.kind == FileKind::Directory && !self.options.recursive {
            let message = format!(
                "-r not specified; omitting directory {}",
                quote_always(source)
            );
            return run.fail(message).await;
        }
        if let Ok(existing) = run.fs().mem().stat(dest_path) {
            let same = run
                .fs()
                .mem()
                .stat(source_path)
                .is_ok_and(|followed| followed.ino == existing.ino);
            if same && !(meta.kind == FileKind::Symlink && self.options.symbolic) {
                let message = format!(
                    "{} and {} are the same file",
                    quote_always(source),
                    quote_always(dest)
                );
                return run.fail(message).await;
            }
        }
        match meta.kind {
            FileKind::Directory => {
                Box::pin(self.copy_dir(run, source, source_path, meta, dest, dest_path)).await
            }
            FileKind::Symlink => {
                self.copy_symlink(run, source, source_path, dest, dest_path)
                    .await
            }
            FileKind::File => {
                self.copy_file(run, source, source_path, meta, dest, dest_path)
                    .await
            }
        }
    }

    async fn copy_dir(
        &mut self,
        run: &mut Run<'_, '_>,
        source: &str,
        source_path: &VfsPath,
        meta: &Metadata,
        dest: &str,
        dest_path: &VfsPath,
    ) -> crate::Result<()> {
        if self.first_created == Some(meta.ino) {
            self.into_itself = true;
            let message = format!(
                "cannot copy a directory, {}, into itself, {}",
                quote_always(&self.top.0),
                quote_always(&self.top.1)
            );
            return run.fail(message).await;
        }
        let mem = run.fs().mem();
        match mem.stat(dest_path) {
            Ok(existing) if existing.kind != FileKind::Directory => {
                let message = format!(
                    "cannot overwrite non-directory {} with directory {}",
                    quote_always(dest),
                    quote_always(source)
                );
                return run.fail(message).await;
            }
            Ok(_) => {}
            Err(_) => {
                let created = mem
                    .create_dir(dest_path)
                    .and_then(|()| mem.set_mode(dest_path, meta.mode & !UMASK));
                if let Err(err) = created {
                    return run.fail_at("cannot create directory", dest, &err).await;
                }
                if self.first_created.is_none() {
                    self.first_created = mem.stat(dest_path).ok().map(|made| made.ino);
                }
                if self.options.verbose {
                    run.say(format!(
                        "{} -> {}",
                        quote_always(source),
                        quote_always(dest)
                    ))
                    .await?;
                }
            }
        }
        let entries = match mem.read_dir(source_path) {
            Ok(entries) => entries,
            Err(err) => return run.fail_at("cannot access", source, &err).await,
        };
        for entry in entries {
            if self.into_itself {
                return Ok(());
            }
            let child_source = child_name(source, &entry.name);
            let child_dest = child_name(dest, &entry.name);
            let paths = source_path
                .join(&entry.name)
                .and_then(|s| dest_path.join(&entry.name).map(|d| (s, d)));
            let (child_source_path, child_dest_path) = match paths {
                Ok(paths) => paths,
                Err(err) => {
                    run.fail_at("cannot stat", &child_source, &err).await?;
                    continue;
                }
            };
            let child_meta = if self.deref == Deref::Always {
                match mem.stat(&child_source_path) {
                    Ok(meta) => meta,
                    Err(err) => {
                        run.fail_at("cannot stat", &child_source, &err).await?;
                        continue;
                    }
                }
            } else {
                entry.metadata
            };
            self.copy_entry(
                run,
                &child_source,
                &child_source_path,
                &child_meta,
                &child_dest,
                &child_dest_path,
            )
            .await?;
        }
        self.keep_attributes(run, meta, dest, dest_path).await
    }

    /// `-p`: the source's mode and times on the copy.
    async fn keep_attributes(
        &self,
        run: &mut Run<'_, '_>,
        meta: &Metadata,
        dest: &str,
        dest_path: &VfsPath,
    ) -> crate::Result<()> {
        let mem = run.fs().mem();
        let preserve = self.options.preserve;
        let mut result = Ok(());
        if preserve.times {
            result = mem.set_times(dest_path, Some(meta.accessed), Some(meta.modified));
        }
        if preserve.mode && result.is_ok() {
            result = mem.set_mode(dest_path, meta.mode);
        }
        match result {
            Ok(()) => Ok(()),
            Err(err) => run.fail_at("preserving times for", dest, &err).await,
        }
    }

    /// Whether an existing `dest` may be replaced by a non-directory; `Err` after
    /// reporting why not.
    async fn may_replace(
        &self,
        run: &mut Run<'_, '_>,
        source_meta: Option<&Metadata>,
        dest: &str,
        dest_path: &VfsPath,
    ) -> crate::Result<Option<bool>> {
        let mem = run.fs().mem();
        let Ok(existing) = mem.lstat(dest_path) else {
            return Ok(Some(false));
        };
        let followed = mem.stat(dest_path);
        if followed
            .as_ref()
            .is_ok_and(|m| m.kind == FileKind::Directory)
        {
            let message = format!(
                "cannot overwrite directory {} with non-directory",
                quote_always(dest)
            );
            run.fail(message).await?;
            return Ok(None);
        }
        match self.options.overwrite {
            Overwrite::Never => return Ok(None),
            Overwrite::Ask => {
                if !run
                    .ask(&format!("overwrite {}", quote_always(dest)))
                    .await?
                {
                    return Ok(None);
                }
            }
            Overwrite::Yes => {}
        }
        if let (true, Some(source), Ok(current)) = (self.options.update, source_meta, &followed)
            && current.modified >= source.modified
        {
            return Ok(None);
        }
        if existing.kind == FileKind::Symlink && followed.is_err() && !self.replaces_links() {
            let message = format!(
                "not writing through dangling symlink {}",
                quote_always(dest)
            );
            run.fail(message).await?;
            return Ok(None);
        }
        Ok(Some(true))
    }

    /// Whether the copy replaces the destination's name rather than writing into it.
    fn replaces_links(&self) -> bool {
        self.options.hard_link
            || self.options.symbolic
            || self.options.remove_destination
            || self.deref == Deref::Never
    }

    async fn copy_symlink(
        &mut self,
        run: &mut Run<'_, '_>,
        source: &str,
        source_path: &VfsPath,
        dest: &str,
        dest_path: &VfsPath,
    ) -> crate::Result<()> {
        let Some(exists) = self.may_replace(run, None, dest, dest_path).await? else {
            return Ok(());
        };
        let mem = run.fs().mem();
        let target = match mem.read_link(source_path) {
            Ok(target) => target,
            Err(err) => return run.fail_at("cannot read symbolic link", source, &err).await,
        };
        if exists && let Err(err) = mem.remove_file(dest_path) {
            return run.fail_at("cannot remove", dest, &err).await;
        }
        if let Err(err) = mem.symlink(&target, dest_path) {
            return run.fail_at("cannot create symbolic link", dest, &err).await;
        }
        if self.options.verbose {
            run.say(format!(
                "{} -> {}",
                quote_always(source),
                quote_always(dest)
            ))
            .await?;
        }
        Ok(())
    }

    async fn copy_file(
        &mut self,
        run: &mut Run<'_, '_>,
        source: &str,
        source_path: &VfsPath,
        meta: &Metadata,
        dest: &str,
        dest_path: &VfsPath,
    ) -> crate::Result<()> {
        let Some(exists) = self.may_replace(run, Some(meta), dest, dest_path).await? else {
            return Ok(());
        };
        let linked = if self.options.hard_link || self.options.symbolic {
            self.link_instead(run, source, source_path, dest, dest_path, exists)
                .await?
        } else if let Some(first) = self.earlier_copy(meta) {
            self.relink(run, &first, dest, dest_path, exists).await?
        } else {
            self.copy_contents(run, source, source_path, meta, dest, dest_path, exists)
                .await?
        };
        if linked && self.options.verbose {
            run.say(format!(
                "{} -> {}",
                quote_always(source),
                quote_always(dest)
            ))
            .await?;
        }
        Ok(())
    }

    /// Where an earlier name of this multiply-linked file was copied to (`-a`).
    fn earlier_copy(&self, meta: &Metadata) -> Option<VfsPath> {
        if !self.options.preserve.links || meta.links < 2 {
            return None;
        }
        self.copied_inodes.get(&meta.ino).cloned()
    }

    async fn relink(
        &self,
        run: &mut Run<'_, '_>,
        first: &VfsPath,
        dest: &str,
        dest_path: &VfsPath,
        exists: bool,
    ) -> crate::Result<bool> {
        let mem = run.fs().mem();
        let result = if exists {
            mem.remove_file(dest_path)
        } else {
            Ok(())
        }
        .and_then(|()| mem.hard_link(first, dest_path));
        match result {
            Ok(()) => Ok(true),
            Err(err) => {
                run.fail_at("cannot create hard link", dest, &err).await?;
                Ok(false)
            }
        }
    }

    /// `-l` and `-s`: a hard or symbolic link to the source instead of a copy.
    async fn link_instead(
        &self,
        run: &mut Run<'_, '_>,
        source: &str,
        source_path: &VfsPath,
        dest: &str,
        dest_path: &VfsPath,
        exists: bool,
    ) -> crate::Result<bool> {
        let kind = if self.options.symbolic {
            "symbolic link"
        } else {
            "hard link"
        };
        if self.options.symbolic && !source.starts_with('/') && !in_working_dir(run, dest_path) {
            let message = format!(
                "{}: can make relative symbolic links only in current directory",
                quote(dest)
            );
            run.fail(message).await?;
            return Ok(false);
        }
        let mem = run.fs().mem();
        let mut result = Ok(());
        if exists {
            result = if self.options.force || self.options.remove_destination {
                mem.remove_file(dest_path)
            } else {
                Err(VfsError::new(ErrorKind::AlreadyExists, dest))
            };
        }
        let result = result.and_then(|()| {
            if self.options.symbolic {
                mem.symlink(source, dest_path)
            } else {
                mem.hard_link(source_path, dest_path)
            }
        });
        match result {
            Ok(()) => Ok(true),
            Err(err) => {
                let message = format!(
                    "cannot create {kind} {} to {}: {}",
                    quote_always(dest),
                    quote_always(source),
                    strerror(&err)
                );
                run.fail(message).await?;
                Ok(false)
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // The names and paths of both ends.
    async fn copy_contents(
        &mut self,
        run: &mut Run<'_, '_>,
        source: &str,
        source_path: &VfsPath,
        meta: &Metadata,
        dest: &str,
        dest_path: &VfsPath,
        exists: bool,
    ) -> crate::Result<bool> {
        let fs = run.fs();
        let data = if is_dev_null(source_path) {
            Ok(Vec::new())
        } else {
            match fs.load_for_read(source_path).await {
                Ok(()) => fs.mem().read(source_path),
                Err(err) => Err(err),
            }
        };
        let data = match data {
            Ok(data) => data,
            Err(err) => {
                run.fail_at("cannot open", source, &err).await?;
                return Ok(false);
            }
        };
        let mem = fs.mem();
        let mut replaced = exists;
        if exists && (self.options.remove_destination || self.deref == Deref::Never) {
            // A symlink in the way is replaced, not written through.
            if mem
                .lstat(dest_path)
                .is_ok_and(|m| m.kind == FileKind::Symlink)
                || self.options.remove_destination
            {
                if let Err(err) = mem.remove_file(dest_path) {
                    run.fail_at("cannot remove", dest, &err).await?;
                    return Ok(false);
                }
                replaced = false;
            }
        }
        if let Err(err) = mem.write_owned(dest_path, data) {
            let what = if replaced {
                "cannot open"
            } else {
                "cannot create regular file"
            };
            run.fail_at(what, dest, &err).await?;
            return Ok(false);
        }
        if !replaced {
            // A new file gets the source's permissions less the umask (no set-id bits).
            let _ = mem.set_mode(dest_path, meta.mode & 0o777 & !UMASK);
        }
        self.keep_attributes(run, meta, dest, dest_path).await?;
        if self.options.preserve.links && meta.links > 1 {
            self.copied_inodes.insert(meta.ino, dest_path.clone());
        }
        Ok(true)
    }
}

/// Whether `path` names an entry of the working directory.
fn in_working_dir(run: &Run<'_, '_>, path: &VfsPath) -> bool {
    path.parent().is_some_and(|parent| parent == run.files.cwd)
}
