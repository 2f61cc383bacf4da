//! Bounds-checked access to a guest's linear memory. Every pointer comes from the guest,
//! so every access is checked and a bad one is EFAULT, never a panic.

use wasi::{ERRNO_FAULT, Errno};

/// A guest's linear memory, for one host call.
pub(super) struct Mem<'a>(pub(super) &'a mut [u8]);

impl Mem<'_> {
    fn range(&self, ptr: u32, len: u32) -> Result<std::ops::Range<usize>, Errno> {
        let start = ptr as usize;
        let end = start.checked_add(len as usize).ok_or(ERRNO_FAULT)?;
        if end > self.0.len() {
            return Err(ERRNO_FAULT);
        }
        Ok(start..end)
    }

    pub(super) fn bytes(&self, ptr: u32, len: u32) -> Result<&[u8], Errno> {
        let range = self.range(ptr, len)?;
        Ok(&self.0[range])
    }

    pub(super) fn bytes_mut(&mut self, ptr: u32, len: u32) -> Result<&mut [u8], Errno> {
        let range = self.range(ptr, len)?;
        Ok(&mut self.0[range])
    }

    pub(super) fn write(&mut self, ptr: u32, data: &[u8]) -> Result<(), Errno> {
        let len = u32::try_from(data.len()).map_err(|_| ERRNO_FAULT)?;
        self.bytes_mut(ptr, len)?.copy_from_slice(data);
        Ok(())
    }

    pub(super) fn u32(&self, ptr: u32) -> Result<u32, Errno> {
        let bytes = self.bytes(ptr, 4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    pub(super) fn u64(&self, ptr: u32) -> Result<u64, Errno> {
        let mut out = [0u8; 8];
        out.copy_from_slice(self.bytes(ptr, 8)?);
        Ok(u64::from_le_bytes(out))
    }

    pub(super) fn u16(&self, ptr: u32) -> Result<u16, Errno> {
        let bytes = self.bytes(ptr, 2)?;
        Ok(u16::from_le_bytes([bytes[0], bytes[1]]))
    }

    pub(super) fn u8(&self, ptr: u32) -> Result<u8, Errno> {
        Ok(self.bytes(ptr, 1)?[0])
    }

    pub(super) fn set_u8(&mut self, ptr: u32, value: u8) -> Result<(), Errno> {
        self.write(ptr, &[value])
    }

    pub(super) fn set_u32(&mut self, ptr: u32, value: u32) -> Result<(), Errno> {
        self.write(ptr, &value.to_le_bytes())
    }

    pub(super) fn set_u64(&mut self, ptr: u32, value: u64) -> Result<(), Errno> {
        self.write(ptr, &value.to_le_bytes())
    }

    /// A UTF-8 string the guest passed (a path, a name).
    pub(super) fn str(&self, ptr: u32, len: u32) -> Result<&str, Errno> {
        // A string longer than all of memory is ENOMEM, not a fault (wasmtime's answer).
        if len as usize > self.0.len() {
            return Err(wasi::ERRNO_NOMEM);
        }
        std::str::from_utf8(self.bytes(ptr, len)?).map_err(|_| wasi::ERRNO_ILSEQ)
    }
}
