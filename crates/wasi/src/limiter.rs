//! wasmi's resource limiter for one run: memories and tables counted together.
//!
//! wasmi asks per memory (and per table), so with multi-memory each of 16 memories
//! could take the whole limit. Here `memory_bytes` caps the sum of every linear
//! memory's size, and `table_elements` the sum of every table's elements (each costs
//! the host one 8-byte reference, so tables stay far below the memory limit).

use crate::{GuestLimits, Limit};
use wasmi::ResourceLimiter;
use wasmi::errors::{MemoryError, TableError};
use wasmi_core::LimiterError;

/// The largest memory wasm32 can represent: there wasmi refuses a growth to 4 GiB
/// before asking the limiter, so it is refused here the same way everywhere (the
/// guest's `memory.grow` gets -1; it is not the memory limit).
const MAX_MEMORY_BYTES: u64 = u32::MAX as u64;

/// Records which limit refused a growth, and what the run holds.
pub(crate) struct Limiter {
    limits: GuestLimits,
    pub(crate) hit: Option<Limit>,
    memory_bytes: u64,
    table_elements: u64,
    /// The last growth allowed, taken back if wasmi then fails it.
    memory_pending: u64,
    table_pending: u64,
}

impl Limiter {
    pub(crate) fn new(limits: GuestLimits) -> Self {
        Self {
            limits,
            hit: None,
            memory_bytes: 0,
            table_elements: 0,
            memory_pending: 0,
            table_pending: 0,
        }
    }
}

/// The total after growing one item from `current` to `desired`, if within `limit`.
fn grown(total: u64, current: usize, desired: usize, limit: u64) -> Option<(u64, u64)> {
    let added = (desired as u64).saturating_sub(current as u64);
    let total = total.saturating_add(added);
    (total <= limit).then_some((total, added))
}

// Natively only: the growths made host calls ask first (see `grow_calls`).
#[cfg(not(target_family = "wasm"))]
impl Limiter {
    /// Whether a memory growth from `current` to `desired` bytes would be allowed
    /// (changes nothing).
    pub(crate) fn allows_memory(&self, current: u64, desired: u64) -> bool {
        desired <= MAX_MEMORY_BYTES
            && self
                .memory_bytes
                .saturating_add(desired.saturating_sub(current))
                <= self.limits.memory_bytes
    }

    /// Whether a table growth from `current` to `desired` elements would be allowed.
    pub(crate) fn allows_table(&self, current: u64, desired: u64) -> bool {
        self.table_elements
            .saturating_add(desired.saturating_sub(current))
            <= self.limits.table_elements
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, LimiterError> {
        self.memory_pending = 0;
        if desired as u64 > MAX_MEMORY_BYTES {
            return Ok(false);
        }
        match grown(
            self.memory_bytes,
            current,
            desired,
            self.limits.memory_bytes,
        ) {
            Some((total, added)) => {
                self.memory_bytes = total;
                self.memory_pending = added;
                Ok(true)
            }
            None => {
                // memory.grow returns -1, as when a real allocator runs out; the guest
                // may cope. If it then fails, the run reports this limit.
                self.hit = Some(Limit::Memory(self.limits.memory_bytes));
                Ok(false)
            }
        }
    }

    fn memory_grow_failed(&mut self, _error: &MemoryError) -> Result<(), LimiterError> {
        self.memory_bytes -= self.memory_pending;
        self.memory_pending = 0;
        Ok(())
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, LimiterError> {
        self.table_pending = 0;
        match grown(
            self.table_elements,
            current,
            desired,
            self.limits.table_elements,
        ) {
            Some((total, added)) => {
                self.table_elements = total;
                self.table_pending = added;
                Ok(true)
            }
            None => {
                self.hit = Some(Limit::Table(self.limits.table_elements));
                Ok(false)
            }
        }
    }

    fn table_grow_failed(&mut self, _error: &TableError) -> Result<(), LimiterError> {
        self.table_elements -= self.table_pending;
        self.table_pending = 0;
        Ok(())
    }

    fn instances(&self) -> usize {
        usize::try_from(self.limits.instances).unwrap_or(usize::MAX)
    }

    fn tables(&self) -> usize {
        usize::try_from(self.limits.instances).unwrap_or(usize::MAX)
    }

    fn memories(&self) -> usize {
        usize::try_from(self.limits.instances).unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_share_one_limit() {
        let mut limiter = Limiter::new(GuestLimits {
            memory_bytes: 100,
            ..GuestLimits::default()
        });
        assert!(limiter.memory_growing(0, 60, None).unwrap());
        assert!(limiter.memory_growing(0, 30, None).unwrap());
        assert!(!limiter.memory_growing(30, 50, None).unwrap());
        assert_eq!(limiter.hit, Some(Limit::Memory(100)));
        assert!(limiter.memory_growing(60, 70, None).unwrap());
        // A growth wasmi then fails is given back.
        limiter
            .memory_grow_failed(&MemoryError::OutOfBoundsGrowth)
            .unwrap();
        assert!(limiter.memory_growing(30, 40, None).unwrap());
    }

    #[test]
    fn tables_share_one_limit() {
        let mut limiter = Limiter::new(GuestLimits {
            table_elements: 10,
            ..GuestLimits::default()
        });
        assert!(limiter.table_growing(0, 6, None).unwrap());
        assert!(!limiter.table_growing(0, 5, None).unwrap());
        assert_eq!(limiter.hit, Some(Limit::Table(10)));
        assert!(limiter.table_growing(0, 4, None).unwrap());
    }

    #[test]
    fn four_gib_is_out_of_bounds_not_the_limit() {
        let mut limiter = Limiter::new(GuestLimits {
            memory_bytes: 4 << 30,
            ..GuestLimits::default()
        });
        assert!(!limiter.memory_growing(0, 1 << 32, None).unwrap());
        assert_eq!(limiter.hit, None);
    }
}
