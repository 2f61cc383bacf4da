//! Plugs sandtab's VFS into bashkit: bashkit's `FsBackend` over a sandbox's filesystem.
//! Contents still in storage are loaded (awaited) before the call that needs them.
//! bashkit's `PosixFs` wraps this and adds the shell-facing checks (parent exists,
//! no file written over a directory, ...).

use bashkit::time::{SystemTime, UNIX_EPOCH};
use bashkit::{DirEntry, FileType, FsBackend, FsUsage, Metadata};
use sandtab_vfs::{Clock, ErrorKind, FileKind, MemFs, SandboxFs, Timestamp, VfsError, VfsPath};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::program_stubs::{InstalledNames, stub_script};

/// bashkit's storage backend over sandtab's filesystem.
#[derive(Debug, Clone)]
pub(crate) struct VfsBackend {
    sandbox: Arc<SandboxFs>,
    fs: Arc<MemFs>,
    programs: InstalledNames,
}

impl VfsBackend {
    pub(crate) fn new(sandbox: Arc<SandboxFs>, programs: InstalledNames) -> Self {
        let fs = sandbox.mem().clone();
        Self {
            sandbox,
            fs,
            programs,
        }
    }

    /// The stub script of the installed program `path` names, when no real entry is
    /// there (see [`crate::program_stubs`]).
    fn program_stub(&self, path: &Path, vfs: &VfsPath) -> Option<Vec<u8>> {
        let name = self.programs.program_at(path)?;
        (!self.fs.exists(vfs)).then(|| stub_script(&name))
    }
}

/// Wall-clock time for file metadata, through bashkit's clock (which is `Date.now()` in
/// the browser, where `std::time::SystemTime::now` panics).
#[derive(Debug, Default, Clone, Copy)]
pub struct WallClock;

impl Clock for WallClock {
    fn now(&self) -> Timestamp {
        #[allow(clippy::disallowed_methods)] // bashkit's SystemTime is wasm-safe.
        let now = SystemTime::now();
        let since_epoch = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        Timestamp(u64::try_from(since_epoch.as_nanos()).unwrap_or(u64::MAX))
    }
}

fn vfs_path(path: &Path) -> io::Result<VfsPath> {
    let text = path
        .to_str()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path is not valid UTF-8"))?;
    VfsPath::parse(text).map_err(io_error)
}

/// The one mapping from VFS errors to the `std::io` errors bashkit reports.
pub(crate) fn io_error(err: VfsError) -> io::Error {
    let kind = match err.kind() {
        ErrorKind::NotFound => io::ErrorKind::NotFound,
        ErrorKind::AlreadyExists => io::ErrorKind::AlreadyExists,
        ErrorKind::NotADirectory => io::ErrorKind::NotADirectory,
        ErrorKind::IsADirectory => io::ErrorKind::IsADirectory,
        ErrorKind::DirectoryNotEmpty => io::ErrorKind::DirectoryNotEmpty,
        // `FilesystemLoop` is still unstable: the message carries ELOOP's text.
        ErrorKind::TooManyLinks => io::ErrorKind::Other,
        ErrorKind::NameTooLong | ErrorKind::InvalidInput => io::ErrorKind::InvalidInput,
        ErrorKind::Busy => io::ErrorKind::ResourceBusy,
        ErrorKind::QuotaExceeded => io::ErrorKind::QuotaExceeded,
        ErrorKind::FileTooLarge => io::ErrorKind::FileTooLarge,
        ErrorKind::OutOfMemory => io::ErrorKind::OutOfMemory,
        ErrorKind::NotPermitted => io::ErrorKind::PermissionDenied,
        ErrorKind::ReadOnly => io::ErrorKind::ReadOnlyFilesystem,
        ErrorKind::CrossDevice => io::ErrorKind::CrossesDevices,
        _ => io::ErrorKind::Other,
    };
    match err.detail() {
        Some(detail) => io::Error::new(kind, format!("{} ({detail})", err.kind().description())),
        None => io::Error::new(kind, err.kind().description()),
    }
}

fn to_system_time(time: Timestamp) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(time.0)
}

fn to_metadata(meta: sandtab_vfs::Metadata) -> Metadata {
    Metadata {
        file_type: match meta.kind {
            FileKind::File => FileType::File,
            FileKind::Directory => FileType::Directory,
            FileKind::Symlink => FileType::Symlink,
        },
        size: meta.size,
        mode: meta.mode,
        modified: to_system_time(meta.modified),
        created: to_system_time(meta.created),
    }
}

type FsResult<T> = bashkit::Result<T>;

/// The one device the sandbox has: reads are empty, writes vanish. bashkit handles it
/// in redirections; this makes it a file operand too (`awk '...' /dev/null`).
pub(crate) const DEV_NULL: &str = "/dev/null";

fn is_dev_null(path: &Path) -> bool {
    path == Path::new(DEV_NULL)
}

fn dev_null_metadata() -> Metadata {
    Metadata {
        file_type: FileType::File,
        size: 0,
        mode: 0o666,
        modified: UNIX_EPOCH,
        created: UNIX_EPOCH,
    }
}

fn run<T>(op: impl FnOnce() -> Result<T, VfsError>) -> FsResult<T> {
    op().map_err(|err| io_error(err).into())
}

#[bashkit::async_trait]
impl FsBackend for VfsBackend {
    async fn read(&self, path: &Path) -> FsResult<Vec<u8>> {
        if is_dev_null(path) {
            return Ok(Vec::new());
        }
        let vfs = vfs_path(path)?;
        if let Some(stub) = self.program_stub(path, &vfs) {
            return Ok(stub);
        }
        self.sandbox.load_for_read(&vfs).await.map_err(io_error)?;
        run(|| self.fs.read(&vfs))
    }

    async fn write(&self, path: &Path, content: &[u8]) -> FsResult<()> {
        if is_dev_null(path) {
            return Ok(());
        }
        let path = vfs_path(path)?;
        run(|| self.fs.write(&path, content))
    }

    async fn append(&self, path: &Path, content: &[u8]) -> FsResult<()> {
        if is_dev_null(path) {
            return Ok(());
        }
        let path = vfs_path(path)?;
        self.sandbox.load_for_write(&path).await.map_err(io_error)?;
        run(|| self.fs.append(&path, content))
    }

    async fn mkdir(&self, path: &Path, recursive: bool) -> FsResult<()> {
        let path = vfs_path(path)?;
        run(|| {
            if recursive {
                self.fs.create_dir_all(&path)
            } else {
                self.fs.create_dir(&path)
            }
        })
    }

    async fn remove(&self, path: &Path, recursive: bool) -> FsResult<()> {
        let path = vfs_path(path)?;
        run(|| {
            if recursive {
                return self.fs.remove_all(&path);
            }
            match self.fs.lstat(&path)?.kind {
                FileKind::Directory => self.fs.remove_dir(&path),
                FileKind::File | FileKind::Symlink => self.fs.remove_file(&path),
            }
        })
    }

    async fn stat(&self, path: &Path) -> FsResult<Metadata> {
        // Like bashkit's own backends, report the entry itself: bashkit's symlink layer
        // decides when to follow.
        if is_dev_null(path) {
            return Ok(dev_null_metadata());
        }
        let vfs = vfs_path(path)?;
        if let Some(stub) = self.program_stub(path, &vfs) {
            return Ok(Metadata {
                file_type: FileType::File,
                size: stub.len() as u64,
                mode: 0o555,
                modified: UNIX_EPOCH,
                created: UNIX_EPOCH,
            });
        }
        run(|| self.fs.lstat(&vfs).map(to_metadata))
    }

    async fn read_dir(&self, path: &Path) -> FsResult<Vec<DirEntry>> {
        let path = vfs_path(path)?;
        run(|| {
            Ok(self
                .fs
                .read_dir(&path)?
                .into_iter()
                .map(|entry| DirEntry {
                    name: entry.name,
                    metadata: to_metadata(entry.metadata),
                })
                .collect())
        })
    }

    async fn exists(&self, path: &Path) -> FsResult<bool> {
        if is_dev_null(path) {
            return Ok(true);
        }
        let vfs = vfs_path(path)?;
        Ok(self.fs.exists(&vfs) || self.programs.program_at(path).is_some())
    }

    async fn rename(&self, from: &Path, to: &Path) -> FsResult<()> {
        let (from, to) = (vfs_path(from)?, vfs_path(to)?);
        run(|| self.fs.rename(&from, &to))
    }

    async fn copy(&self, from: &Path, to: &Path) -> FsResult<()> {
        let (from, to) = (vfs_path(from)?, vfs_path(to)?);
        self.sandbox.load_for_read(&from).await.map_err(io_error)?;
        run(|| self.fs.copy(&from, &to))
    }

    async fn symlink(&self, target: &Path, link: &Path) -> FsResult<()> {
        let link = vfs_path(link)?;
        let target = target.to_str().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "symlink target is not valid UTF-8",
            )
        })?;
        run(|| self.fs.symlink(target, &link))
    }

    async fn read_link(&self, path: &Path) -> FsResult<PathBuf> {
        let path = vfs_path(path)?;
        run(|| self.fs.read_link(&path).map(PathBuf::from))
    }

    async fn chmod(&self, path: &Path, mode: u32) -> FsResult<()> {
        let path = vfs_path(path)?;
        run(|| self.fs.set_mode(&path, mode))
    }

    async fn set_modified_time(&self, path: &Path, time: SystemTime) -> FsResult<()> {
        let path = vfs_path(path)?;
        let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
        let stamp = Timestamp(u64::try_from(since_epoch.as_nanos()).unwrap_or(u64::MAX));
        run(|| self.fs.set_modified(&path, stamp))
    }

    fn usage(&self) -> FsUsage {
        let usage = self.fs.usage();
        FsUsage::new(usage.bytes, usage.files, usage.dirs)
    }
}
