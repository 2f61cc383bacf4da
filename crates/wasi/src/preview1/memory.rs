//! Bounds-checked access to a guest's linear memory. Every pointer comes from the guest,
//! so every access is checked and a bad one is EFAULT, never a panic.
//!
//! The memory is any [`GuestMemory`]: borrowed where it can lend (wasmi's slice), copied
//! where it cannot (a JS memory). Every range is checked here against the memory's
//! length first, so the errno of a bad pointer never depends on the memory's kind.

use crate::GuestMemory;
use std::borrow::Cow;
use wasi::{ERRNO_FAULT, Errno};

/// A guest's linear memory, for one host call.
pub(crate) struct Mem<'a> {
    backing: Backing<'a>,
    /// The memory's length, fixed while the host call runs.
    len: usize,
}

/// Where the bytes are: lent as a slice (read and written in place, no copies), or
/// reachable only by copying.
enum Backing<'a> {
    Lent(&'a mut [u8]),
    Copied(&'a mut dyn GuestMemory),
}

impl<'a> Mem<'a> {
    /// wasmi's memory: read and written in place.
    #[inline]
    pub(crate) fn lent(bytes: &'a mut [u8]) -> Self {
        let len = bytes.len();
        Self {
            backing: Backing::Lent(bytes),
            len,
        }
    }

    /// Any memory: lent if it can lend, else reached by copies.
    pub(crate) fn new(memory: &'a mut dyn GuestMemory) -> Self {
        // Asked twice, as the borrow checker cannot yet hand back the first answer's
        // borrow in one branch and `memory` in the other. A memory that answers
        // differently the second time is an empty one: every access is EFAULT.
        let backing = if memory.lend().is_some() {
            let bytes = memory.lend().unwrap_or_default();
            Backing::Lent(bytes)
        } else {
            Backing::Copied(memory)
        };
        let len = match &backing {
            Backing::Lent(bytes) => bytes.len(),
            Backing::Copied(memory) => memory.len(),
        };
        Self { backing, len }
    }

    /// `ptr..ptr + len` as an offset, if it lies inside memory (EFAULT if not).
    #[inline]
    fn range(&self, ptr: u32, len: u32) -> Result<std::ops::Range<usize>, Errno> {
        let start = ptr as usize;
        let end = start.checked_add(len as usize).ok_or(ERRNO_FAULT)?;
        if end > self.len {
            return Err(ERRNO_FAULT);
        }
        Ok(start..end)
    }

    /// Checks that the guest's buffer lies inside memory, without reading it.
    #[inline]
    pub(super) fn check(&self, ptr: u32, len: u32) -> Result<(), Errno> {
        self.range(ptr, len).map(|_| ())
    }

    /// The guest's bytes: borrowed if the memory lends them, else copied.
    #[inline]
    pub(super) fn bytes(&self, ptr: u32, len: u32) -> Result<Cow<'_, [u8]>, Errno> {
        let range = self.range(ptr, len)?;
        match &self.backing {
            Backing::Lent(bytes) => Ok(Cow::Borrowed(&bytes[range])),
            Backing::Copied(memory) => Ok(Cow::Owned(copy_out(&**memory, range)?)),
        }
    }

    /// Runs `fill` on the guest's buffer at `ptr..ptr + len`: in place if the memory
    /// lends it, else on a copy written back afterwards, whatever `fill` returned (as
    /// an in-place fill leaves what it did).
    pub(super) fn with_bytes_mut<R>(
        &mut self,
        ptr: u32,
        len: u32,
        fill: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R, Errno> {
        let range = self.range(ptr, len)?;
        match &mut self.backing {
            Backing::Lent(bytes) => Ok(fill(&mut bytes[range])),
            Backing::Copied(memory) => {
                let start = range.start;
                let mut copy = copy_out(&**memory, range)?;
                let result = fill(&mut copy);
                copy_in(&mut **memory, start, &copy)?;
                Ok(result)
            }
        }
    }

    #[inline]
    pub(super) fn write(&mut self, ptr: u32, data: &[u8]) -> Result<(), Errno> {
        let len = u32::try_from(data.len()).map_err(|_| ERRNO_FAULT)?;
        let range = self.range(ptr, len)?;
        match &mut self.backing {
            Backing::Lent(bytes) => bytes[range].copy_from_slice(data),
            Backing::Copied(memory) => copy_in(&mut **memory, range.start, data)?,
        }
        Ok(())
    }

    #[inline]
    fn array<const N: usize>(&self, ptr: u32) -> Result<[u8; N], Errno> {
        let range = self.range(ptr, N as u32)?;
        let mut out = [0u8; N];
        match &self.backing {
            Backing::Lent(bytes) => out.copy_from_slice(&bytes[range]),
            Backing::Copied(memory) => read_into(&**memory, range.start, &mut out)?,
        }
        Ok(out)
    }

    #[inline]
    pub(super) fn u32(&self, ptr: u32) -> Result<u32, Errno> {
        Ok(u32::from_le_bytes(self.array(ptr)?))
    }

    #[inline]
    pub(super) fn u64(&self, ptr: u32) -> Result<u64, Errno> {
        Ok(u64::from_le_bytes(self.array(ptr)?))
    }

    #[inline]
    pub(super) fn u16(&self, ptr: u32) -> Result<u16, Errno> {
        Ok(u16::from_le_bytes(self.array(ptr)?))
    }

    #[inline]
    pub(super) fn u8(&self, ptr: u32) -> Result<u8, Errno> {
        Ok(self.array::<1>(ptr)?[0])
    }

    #[inline]
    pub(super) fn set_u8(&mut self, ptr: u32, value: u8) -> Result<(), Errno> {
        self.write(ptr, &[value])
    }

    #[inline]
    pub(super) fn set_u32(&mut self, ptr: u32, value: u32) -> Result<(), Errno> {
        self.write(ptr, &value.to_le_bytes())
    }

    #[inline]
    pub(super) fn set_u64(&mut self, ptr: u32, value: u64) -> Result<(), Errno> {
        self.write(ptr, &value.to_le_bytes())
    }

    /// A UTF-8 string the guest passed (a path, a name): borrowed if the memory lends it.
    pub(super) fn str(&self, ptr: u32, len: u32) -> Result<Cow<'_, str>, Errno> {
        // A string longer than all of memory is ENOMEM, not a fault (wasmtime's answer).
        if len as usize > self.len {
            return Err(wasi::ERRNO_NOMEM);
        }
        match self.bytes(ptr, len)? {
            Cow::Borrowed(bytes) => std::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|_| wasi::ERRNO_ILSEQ),
            Cow::Owned(bytes) => String::from_utf8(bytes)
                .map(Cow::Owned)
                .map_err(|_| wasi::ERRNO_ILSEQ),
        }
    }
}

// A memory that cannot lend: each access is a call through `GuestMemory`, kept out of
// line so that the lent path above stays small enough to inline into every operation.

#[inline(never)]
fn read_into(memory: &dyn GuestMemory, start: usize, into: &mut [u8]) -> Result<(), Errno> {
    if memory.read(start, into) {
        Ok(())
    } else {
        Err(ERRNO_FAULT)
    }
}

#[inline(never)]
fn copy_out(memory: &dyn GuestMemory, range: std::ops::Range<usize>) -> Result<Vec<u8>, Errno> {
    let mut copy = vec![0u8; range.len()];
    read_into(memory, range.start, &mut copy)?;
    Ok(copy)
}

#[inline(never)]
fn copy_in(memory: &mut dyn GuestMemory, start: usize, data: &[u8]) -> Result<(), Errno> {
    if memory.write(start, data) {
        Ok(())
    } else {
        Err(ERRNO_FAULT)
    }
}
