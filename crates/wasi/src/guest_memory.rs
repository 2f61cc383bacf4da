//! A guest's linear memory as the WASI host sees it: whatever it is backed by.
//!
//! Two tiers run guests. In the interpreter tier (wasmi) the memory is a Rust slice the
//! host may borrow. In a browser-engine tier the memory is a JS `WebAssembly.Memory`
//! that Rust can only reach by copying ranges in and out. Every `wasi_snapshot_preview1`
//! operation is written once, against [`GuestMemory`], and behaves the same on both:
//! a memory that can lend its bytes ([`GuestMemory::lend`]) saves the copies, one
//! that cannot is read and written through [`GuestMemory::read`] and
//! [`GuestMemory::write`].
//!
//! Bounds are the host's job: the operations check every range the guest names against
//! [`GuestMemory::len`] (EFAULT, never a panic) before they read or write it.

use std::cell::Cell;

/// A guest's linear memory, for the duration of one host call.
///
/// The length does not change while a host call runs (the guest is stopped in it).
pub trait GuestMemory {
    /// The memory's size in bytes: every guest pointer is checked against it, so a bad
    /// one is EFAULT (or ENOMEM for a string longer than memory) before any access.
    fn len(&self) -> usize;

    /// Whether the memory has no bytes at all (a module without a memory).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies `into.len()` bytes at `offset` out of the memory: how the host reads
    /// what the guest passed (iovecs, strings, subscriptions, data to write). `false`
    /// if the range is not all inside the memory (nothing is then guaranteed of `into`).
    fn read(&self, offset: usize, into: &mut [u8]) -> bool;

    /// Copies `data` into the memory at `offset`: how every result reaches the guest.
    /// `false`, and nothing written, if the range is not all inside the memory.
    fn write(&mut self, offset: usize, data: &[u8]) -> bool;

    /// The whole memory as a Rust slice, for a memory that is one (wasmi's): the host
    /// then reads and writes it in place, as fast as before there were two tiers, and
    /// borrows the guest's bytes (the data of an `fd_write`) instead of copying them.
    /// `None` for a memory that cannot lend (a JS memory): every access then goes
    /// through [`read`](Self::read) and [`write`](Self::write). Asked when a host call
    /// starts (twice: see `Mem::new`); it must give the same answer each time.
    fn lend(&mut self) -> Option<&mut [u8]> {
        None
    }
}

/// The interpreter tier: wasmi's memory is a slice, lent without copies.
impl GuestMemory for [u8] {
    #[inline]
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    #[inline]
    fn read(&self, offset: usize, into: &mut [u8]) -> bool {
        let Some(end) = offset.checked_add(into.len()) else {
            return false;
        };
        match self.get(offset..end) {
            Some(bytes) => {
                into.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn write(&mut self, offset: usize, data: &[u8]) -> bool {
        let Some(end) = offset.checked_add(data.len()) else {
            return false;
        };
        match self.get_mut(offset..end) {
            Some(bytes) => {
                bytes.copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn lend(&mut self) -> Option<&mut [u8]> {
        Some(self)
    }
}

/// A borrowed memory is a memory: `&mut data` (with `data: &mut [u8]`) is then a
/// `&mut dyn GuestMemory`, which an unsized `[u8]` cannot be made directly.
impl<T: GuestMemory + ?Sized> GuestMemory for &mut T {
    #[inline]
    fn len(&self) -> usize {
        (**self).len()
    }

    #[inline]
    fn read(&self, offset: usize, into: &mut [u8]) -> bool {
        (**self).read(offset, into)
    }

    #[inline]
    fn write(&mut self, offset: usize, data: &[u8]) -> bool {
        (**self).write(offset, data)
    }

    #[inline]
    fn lend(&mut self) -> Option<&mut [u8]> {
        (**self).lend()
    }
}

/// A memory that will not lend its bytes: every read and write copies, as with a JS
/// `WebAssembly.Memory`. For tests: the runner wraps wasmi's memory in it when asked
/// ([`testing::with_non_lending_memory`]), so the WASI behaviour tests show that every
/// operation works through [`GuestMemory::read`] and [`GuestMemory::write`] alone.
#[doc(hidden)]
#[derive(Debug)]
pub struct NonLending<M> {
    inner: M,
}

impl<M: GuestMemory> NonLending<M> {
    pub fn new(inner: M) -> Self {
        Self { inner }
    }
}

impl<M: GuestMemory> GuestMemory for NonLending<M> {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn read(&self, offset: usize, into: &mut [u8]) -> bool {
        testing::count(|counts| {
            counts.reads += 1;
            counts.bytes_read += into.len() as u64;
        });
        self.inner.read(offset, into)
    }

    fn write(&mut self, offset: usize, data: &[u8]) -> bool {
        testing::count(|counts| {
            counts.writes += 1;
            counts.bytes_written += data.len() as u64;
        });
        self.inner.write(offset, data)
    }
    // `lend`: the default, which never lends.
}

/// Running guests with a memory that cannot lend (see [`NonLending`]). Hidden: for
/// sandtab's own tests.
#[doc(hidden)]
pub mod testing {
    use super::Cell;

    /// The copies a [`NonLending`](super::NonLending) memory made.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct CopyCounts {
        pub reads: u64,
        pub writes: u64,
        pub bytes_read: u64,
        pub bytes_written: u64,
    }

    thread_local! {
        static NON_LENDING: Cell<bool> = const { Cell::new(false) };
        static COUNTS: Cell<CopyCounts> = const {
            Cell::new(CopyCounts { reads: 0, writes: 0, bytes_read: 0, bytes_written: 0 })
        };
    }

    /// Runs `f` with every guest run *started* on this thread during it giving its
    /// host calls a non-lending memory; returns what `f` returned and the copies made.
    pub fn with_non_lending_memory<R>(f: impl FnOnce() -> R) -> (R, CopyCounts) {
        let was = NON_LENDING.replace(true);
        let before = COUNTS.replace(CopyCounts::default());
        let result = f();
        NON_LENDING.set(was);
        let counts = COUNTS.replace(before);
        (result, counts)
    }

    /// Whether a run starting now gives its host calls a non-lending memory.
    pub(crate) fn non_lending() -> bool {
        NON_LENDING.get()
    }

    pub(super) fn count(update: impl FnOnce(&mut CopyCounts)) {
        let mut counts = COUNTS.get();
        update(&mut counts);
        COUNTS.set(counts);
    }
}

#[cfg(test)]
mod tests {
    use super::{GuestMemory, NonLending};

    #[test]
    fn a_slice_lends_and_checks_bounds() {
        let mut bytes = [0u8; 8];
        let mut slice = &mut bytes[..];
        let memory: &mut dyn GuestMemory = &mut slice;
        assert_eq!(memory.len(), 8);
        assert!(memory.write(6, &[1, 2]));
        assert!(!memory.write(7, &[1, 2]));
        assert!(!memory.write(usize::MAX, &[1]));
        let mut two = [0u8; 2];
        assert!(memory.read(6, &mut two));
        assert_eq!(two, [1, 2]);
        assert!(!memory.read(7, &mut two));
        assert!(!memory.read(usize::MAX, &mut two));
        assert_eq!(memory.lend().map(|bytes| bytes[7]), Some(2));
    }

    #[test]
    fn a_non_lending_memory_never_lends() {
        let mut bytes = [0u8; 8];
        let mut memory = NonLending::new(&mut bytes[..]);
        assert!(memory.lend().is_none());
        assert!(memory.write(0, &[9]));
        let mut one = [0u8];
        assert!(memory.read(0, &mut one));
        assert_eq!(one, [9]);
        assert!(!memory.read(8, &mut one));
    }
}
