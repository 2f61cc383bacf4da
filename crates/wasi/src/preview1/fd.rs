//! A guest's WASI state: arguments, environment, the file descriptor table, buffered
//! standard streams, and its view of time and randomness.

use crate::io::{OutStream, Platform};
use crate::run::{ClockMode, RandomMode};
use sandtab_vfs::{FileHandle, SandboxFs, VfsPath};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use wasi::Errno;

/// Output is handed to the host once this much is buffered (and at every slice).
pub(crate) const FLUSH_AT: usize = 64 * 1024;

/// An open file.
pub(crate) struct OpenFile {
    pub(crate) handle: FileHandle,
    pub(crate) pos: u64,
    pub(crate) append: bool,
    /// `FDFLAGS_NONBLOCK`, kept only to be reported (reads of files never wait).
    pub(crate) nonblock: bool,
    pub(crate) read: bool,
    pub(crate) write: bool,
}

/// An open directory (a preopen, or one the guest opened).
pub(crate) struct OpenDir {
    pub(crate) path: VfsPath,
    /// The listing `fd_readdir` serves cookies from, taken at cookie 0, so entries
    /// removed while the guest reads do not shift the ones after them.
    pub(crate) listing: Option<Vec<(String, u64, sandtab_vfs::FileKind)>>,
    /// The name a preopen is announced by (`fd_prestat_dir_name`).
    pub(crate) preopen: Option<String>,
}

/// One entry of the descriptor table.
pub(crate) enum Fd {
    Stdin,
    Stdout,
    Stderr,
    File(OpenFile),
    Dir(OpenDir),
    Device(super::device::OpenDevice),
}

/// Everything the WASI functions work on, kept in the wasmi store.
pub(crate) struct WasiCtx {
    pub(crate) fs: Arc<SandboxFs>,
    pub(crate) platform: Arc<dyn Platform>,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<String>,
    pub(crate) fds: BTreeMap<u32, Fd>,
    /// The preopened directories' paths, which bound how far `..` may climb.
    preopened: Vec<VfsPath>,
    /// Numbers closed since, handed out again highest first (as wasmtime does).
    free: BTreeSet<u32>,
    pub(crate) stdin: VecDeque<u8>,
    pub(crate) stdin_ended: bool,
    /// An interrupt (Ctrl-C) came while the guest waited for typed input: its next read
    /// of stdin fails with ECANCELED, and stdin goes on after it.
    pub(crate) stdin_interrupted: bool,
    /// Standard input is a terminal: a character device to `fd_fdstat_get`.
    pub(crate) stdin_terminal: bool,
    /// Output not yet handed to the host, in the order it was written.
    pub(crate) output: Vec<(OutStream, Vec<u8>)>,
    pub(crate) output_buffered: usize,
    pub(crate) output_total: u64,
    pub(crate) output_limit: u64,
    clock: ClockMode,
    /// Virtual nanoseconds elapsed (virtual clock only).
    virtual_elapsed: u64,
    random: RandomMode,
    /// When the `poll_oneoff` being retried started, so relative timeouts do not restart.
    pub(crate) poll_started: Option<u64>,
    /// Set once a `sched_yield` has let the event loop run.
    pub(crate) yielded: bool,
    /// A host call's answer, kept until the guest takes it (it may ask again with a
    /// larger buffer): (name, args, answer).
    pub(crate) host_answer: Option<(String, String, Result<String, String>)>,
}

impl WasiCtx {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        fs: Arc<SandboxFs>,
        platform: Arc<dyn Platform>,
        args: Vec<String>,
        env: Vec<String>,
        // (name, path, writable): read-only mounts answer EROFS through the VFS itself.
        preopens: Vec<(String, VfsPath, bool)>,
        clock: ClockMode,
        random: RandomMode,
        output_limit: u64,
    ) -> Self {
        let mut fds = BTreeMap::from([(0, Fd::Stdin), (1, Fd::Stdout), (2, Fd::Stderr)]);
        let preopened = preopens.iter().map(|(_, path, _)| path.clone()).collect();
        for (fd, (name, path, _writable)) in (3..).zip(preopens) {
            fds.insert(
                fd,
                Fd::Dir(OpenDir {
                    path,
                    listing: None,
                    preopen: Some(name),
                }),
            );
        }
        Self {
            fs,
            platform,
            args,
            env,
            fds,
            preopened,
            free: BTreeSet::new(),
            stdin: VecDeque::new(),
            stdin_ended: false,
            stdin_interrupted: false,
            stdin_terminal: false,
            output: Vec::new(),
            output_buffered: 0,
            output_total: 0,
            output_limit,
            clock,
            virtual_elapsed: 0,
            random,
            poll_started: None,
            yielded: false,
            host_answer: None,
        }
    }

    pub(crate) fn fd(&self, fd: u32) -> Result<&Fd, Errno> {
        self.fds.get(&fd).ok_or(wasi::ERRNO_BADF)
    }

    pub(crate) fn fd_mut(&mut self, fd: u32) -> Result<&mut Fd, Errno> {
        self.fds.get_mut(&fd).ok_or(wasi::ERRNO_BADF)
    }

    /// An open file: any other descriptor is EBADF (wasmtime's answer for a
    /// directory or a standard stream given to a file-only call).
    pub(crate) fn file(&mut self, fd: u32) -> Result<&mut OpenFile, Errno> {
        match self.fd_mut(fd)? {
            Fd::File(file) => Ok(file),
            _ => Err(wasi::ERRNO_BADF),
        }
    }

    /// A file whose offset can move: a standard stream is ESPIPE, a directory EBADF.
    pub(crate) fn seekable(&mut self, fd: u32) -> Result<&mut OpenFile, Errno> {
        match self.fd_mut(fd)? {
            Fd::File(file) => Ok(file),
            Fd::Stdin | Fd::Stdout | Fd::Stderr | Fd::Device(_) => Err(wasi::ERRNO_SPIPE),
            Fd::Dir(_) => Err(wasi::ERRNO_BADF),
        }
    }

    /// A directory descriptor, for the `path_*` calls: anything else is EBADF.
    pub(crate) fn dir(&self, fd: u32) -> Result<&OpenDir, Errno> {
        match self.fd(fd)? {
            Fd::Dir(dir) => Ok(dir),
            _ => Err(wasi::ERRNO_BADF),
        }
    }

    /// Where a guest's `path` leads from directory `fd` (see `resolve`). It may climb
    /// with `..` up to the widest preopen holding that directory, not further: with only
    /// `/sandbox` preopened that is the descriptor's own preopen, as in wasmtime; with the
    /// sandbox's root preopened (every shell run) `../in.txt` from the working directory
    /// works, since the root preopen grants that file anyway.
    pub(crate) fn resolve(
        &self,
        fd: u32,
        path: &str,
        follow_last: bool,
    ) -> Result<super::resolve::Resolved, Errno> {
        let base = self.dir(fd)?.path.clone();
        let boundary = self.boundary(&base);
        super::resolve::resolve(self.fs.mem(), &boundary, &base, path, follow_last)
    }

    /// The widest preopen holding `dir` (or `dir` itself, if none does).
    fn boundary(&self, dir: &VfsPath) -> VfsPath {
        self.preopened
            .iter()
            .filter(|preopen| dir.starts_with(preopen))
            .min_by_key(|preopen| preopen.components().len())
            .unwrap_or(dir)
            .clone()
    }

    /// Whether paths from directory `fd` may reach the whole sandbox (the root is
    /// preopened above it), so that an absolute symlink target names a sandbox path.
    pub(crate) fn reaches_root(&self, fd: u32) -> Result<bool, Errno> {
        Ok(self.boundary(&self.dir(fd)?.path).is_root())
    }

    /// A new descriptor's number: the highest one closed before, or one past the
    /// highest in use (wasmtime's order, which guests may print).
    pub(crate) fn insert(&mut self, entry: Fd) -> Result<u32, Errno> {
        let fd = match self.free.pop_last() {
            Some(fd) => fd,
            None => match self.fds.last_key_value() {
                Some((&last, _)) => match last.checked_add(1) {
                    Some(next) => next,
                    None => (0..u32::MAX)
                        .rev()
                        .find(|n| !self.fds.contains_key(n))
                        .ok_or(wasi::ERRNO_NFILE)?,
                },
                None => 0,
            },
        };
        self.fds.insert(fd, entry);
        Ok(fd)
    }

    /// Closes descriptor `fd`.
    pub(crate) fn close(&mut self, fd: u32) -> Result<(), Errno> {
        let entry = self.fds.remove(&fd).ok_or(wasi::ERRNO_BADF)?;
        self.free.insert(fd);
        self.release(entry);
        Ok(())
    }

    /// Moves descriptor `from` to `to`, which must be open (wasmtime 50), closing it.
    pub(crate) fn renumber(&mut self, from: u32, to: u32) -> Result<(), Errno> {
        if !self.fds.contains_key(&from) || !self.fds.contains_key(&to) {
            return Err(wasi::ERRNO_BADF);
        }
        if from != to {
            let entry = self.fds.remove(&from).ok_or(wasi::ERRNO_BADF)?;
            self.free.insert(from);
            if let Some(old) = self.fds.insert(to, entry) {
                self.release(old);
            }
        }
        Ok(())
    }

    fn release(&self, entry: Fd) {
        if let Fd::File(file) = entry {
            self.fs.mem().close(file.handle);
        }
    }

    /// Nanoseconds since the epoch, as the guest sees them.
    pub(crate) fn realtime_ns(&mut self) -> u64 {
        match self.clock {
            ClockMode::Real => self.platform.realtime_ns(),
            ClockMode::Virtual { start_ns } => start_ns.saturating_add(self.tick()),
        }
    }

    /// The monotonic clock, as the guest sees it.
    pub(crate) fn monotonic_ns(&mut self) -> u64 {
        match self.clock {
            ClockMode::Real => self.platform.monotonic_ns(),
            ClockMode::Virtual { .. } => self.tick(),
        }
    }

    /// Whether the guest's clocks are virtual (sleeping then advances them, no waiting).
    pub(crate) fn virtual_clock(&self) -> bool {
        matches!(self.clock, ClockMode::Virtual { .. })
    }

    /// Moves a virtual clock forward (a sleep on a virtual clock takes no time).
    pub(crate) fn advance_virtual(&mut self, nanos: u64) {
        self.virtual_elapsed = self.virtual_elapsed.saturating_add(nanos);
    }

    /// A virtual clock advances by one microsecond at every reading, so that loops
    /// waiting for time to pass end, and every run reads the same times.
    fn tick(&mut self) -> u64 {
        self.virtual_elapsed = self.virtual_elapsed.saturating_add(1_000);
        self.virtual_elapsed
    }

    /// Random bytes: the platform's, or a seeded sequence for reproducible runs.
    pub(crate) fn fill_random(&mut self, buf: &mut [u8]) -> Result<(), Errno> {
        match &mut self.random {
            RandomMode::Real => self.platform.random(buf).map_err(|_| wasi::ERRNO_IO),
            RandomMode::Seeded(state) => {
                for chunk in buf.chunks_mut(8) {
                    // SplitMix64: tiny and well distributed; not for secrets, by design.
                    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = *state;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    z ^= z >> 31;
                    chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
                }
                Ok(())
            }
        }
    }

    /// Takes the output not yet handed to the host.
    pub(crate) fn take_output(&mut self) -> Vec<(OutStream, Vec<u8>)> {
        self.output_buffered = 0;
        std::mem::take(&mut self.output)
    }
}

impl Drop for WasiCtx {
    fn drop(&mut self) {
        // Open handles keep unlinked files alive: release them with the guest.
        for (_, fd) in std::mem::take(&mut self.fds) {
            if let Fd::File(file) = fd {
                self.fs.mem().close(file.handle);
            }
        }
    }
}
