//! Time for file metadata. The filesystem never reads the system clock itself (that panics
//! on wasm32-unknown-unknown); its owner passes a clock in.

use std::sync::atomic::{AtomicU64, Ordering};

/// A point in time, in nanoseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Whole seconds since the epoch.
    pub fn as_secs(self) -> u64 {
        self.0 / 1_000_000_000
    }
}

/// A source of the current time.
pub trait Clock: Send + Sync {
    /// The time now.
    fn now(&self) -> Timestamp;
}

/// A clock that only moves when told to: deterministic tests and replays.
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: AtomicU64,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Timestamp) -> Self {
        Self {
            nanos: AtomicU64::new(start.0),
        }
    }

    /// Moves the clock forward by `nanos`.
    pub fn advance(&self, nanos: u64) {
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.nanos.load(Ordering::Relaxed))
    }
}
