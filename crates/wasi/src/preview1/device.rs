//! Device files: `/dev/sandtab/NAME`, opened by a guest that cannot import host
//! functions (CPython, any libc program) to ask its host for something. Each open is
//! one exchange: the guest writes its request, and its first read waits while the
//! host ([`crate::GuestIo::device`]) answers; then it reads the answer to its end.
//! The shell answers `http` (a request through the capability gate); what a request
//! and an answer hold is the host's to define.

use super::{Block, Fail};
use sandtab_vfs::VfsPath;

/// Where device files are.
pub(crate) const DEVICE_DIR: &str = "/dev/sandtab";
/// The directory guests are given (as a preopen) to reach them.
pub(crate) const DEVICE_PARENT: &str = "/dev";
/// The most the requests of a guest's open devices may hold together (a request body
/// included).
pub(crate) const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// An open device file.
pub(crate) struct OpenDevice {
    pub(crate) name: String,
    pub(crate) request: Vec<u8>,
    pub(crate) state: Exchange,
}

/// Where a device's one exchange stands.
pub(crate) enum Exchange {
    /// The guest is writing its request.
    Writing,
    /// The request went to the host; no answer yet.
    Asked,
    /// The answer, read up to `pos`.
    Answered { answer: Vec<u8>, pos: usize },
    /// The host had no answer (no such device, or it failed).
    Failed,
}

impl OpenDevice {
    /// The device `path` names (`/dev/sandtab/NAME`), if it names one.
    pub(crate) fn named(path: &VfsPath) -> Option<OpenDevice> {
        let text = path.to_string();
        let name = text.strip_prefix(DEVICE_DIR)?.strip_prefix('/')?;
        if name.is_empty() || name.contains('/') {
            return None;
        }
        Some(OpenDevice {
            name: name.to_owned(),
            request: Vec::new(),
            state: Exchange::Writing,
        })
    }

    /// Appends to the request; a write after the first read is EBADF (the exchange
    /// is over), a request past [`MAX_REQUEST_BYTES`] EFBIG (the caller checks the
    /// bound over all open devices).
    pub(crate) fn write(&mut self, data: &[u8]) -> Result<(), Fail> {
        if !matches!(self.state, Exchange::Writing) {
            return Err(wasi::ERRNO_BADF.into());
        }
        if self.request.len() + data.len() > MAX_REQUEST_BYTES {
            return Err(wasi::ERRNO_FBIG.into());
        }
        self.request.extend_from_slice(data);
        Ok(())
    }

    /// Up to `want` bytes of the answer; the first read sends the request (`fd` is
    /// this device's descriptor, for the block).
    pub(crate) fn read(&mut self, fd: u32, want: usize) -> Result<Vec<u8>, Fail> {
        match &mut self.state {
            Exchange::Writing | Exchange::Asked => Err(Fail::Block(Block::Device { fd })),
            Exchange::Answered { answer, pos } => {
                let take = want.min(answer.len() - *pos);
                let data = answer[*pos..*pos + take].to_vec();
                *pos += take;
                Ok(data)
            }
            Exchange::Failed => Err(wasi::ERRNO_IO.into()),
        }
    }

    /// The request, taken to be sent (`None` if it was already).
    pub(crate) fn take_request(&mut self) -> Option<(String, Vec<u8>)> {
        match self.state {
            Exchange::Writing => {
                self.state = Exchange::Asked;
                Some((self.name.clone(), std::mem::take(&mut self.request)))
            }
            _ => None,
        }
    }

    /// Keeps the host's answer.
    pub(crate) fn answer(&mut self, answer: Result<Vec<u8>, String>) {
        self.state = match answer {
            Ok(answer) => Exchange::Answered { answer, pos: 0 },
            Err(_) => Exchange::Failed,
        };
    }

    /// Whether a read would not wait.
    pub(crate) fn readable(&self) -> bool {
        matches!(self.state, Exchange::Answered { .. } | Exchange::Failed)
    }
}
