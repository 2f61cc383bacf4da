//! The limits every guest runs under. Always on; the host may change them per sandbox
//! and per command.

use crate::GuestError;

/// Limits for one guest run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuestLimits {
    /// wasmi fuel the run may use. wasmi charges a block's instructions when the block
    /// is entered, and a `br_table` by its size, so fuel is not a count of executed
    /// instructions: CPython's interpreter loop burns about 10^11 per second.
    pub fuel: u64,
    /// Bytes of linear memory the run may hold, all its memories together.
    pub memory_bytes: u64,
    /// Table elements the run may hold, all its tables together.
    pub table_elements: u64,
    /// Instances, memories and tables the run may create (each counted on its own).
    pub instances: u64,
    /// Nested calls before the guest is stopped (deep recursion).
    pub call_depth: u64,
    /// Wall-clock milliseconds the run may take, waiting on input included.
    pub deadline_ms: u64,
    /// Bytes the guest may write to stdout and stderr together.
    pub output_bytes: u64,
}

impl Default for GuestLimits {
    /// Generous for agent work; a runaway guest is stopped by the deadline (or a
    /// cancel) long before the default fuel runs out, and a host that wants an
    /// instruction budget sets one.
    fn default() -> Self {
        Self {
            fuel: 1_000_000_000_000_000,
            memory_bytes: 1 << 30,
            table_elements: 100_000,
            instances: 16,
            call_depth: 10_000,
            deadline_ms: 10 * 60 * 1000,
            output_bytes: 256 << 20,
        }
    }
}

impl GuestLimits {
    /// Refuses limits that make no sense (zero fuel, memory past wasm32's 4 GiB).
    pub fn validate(&self) -> Result<(), GuestError> {
        let invalid = |what: &str| Err(GuestError::InvalidOption(what.to_owned()));
        if self.fuel == 0 {
            return invalid("fuel must be at least 1");
        }
        if self.memory_bytes > 4 << 30 {
            return invalid("memory_bytes is at most 4 GiB (wasm32)");
        }
        if self.call_depth == 0 || self.call_depth > 1_000_000 {
            return invalid("call_depth must be between 1 and 1000000");
        }
        if self.instances == 0 {
            return invalid("instances must be at least 1");
        }
        Ok(())
    }
}
