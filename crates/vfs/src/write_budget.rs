//! A bound on the bytes written to files while one command runs, whoever writes them
//! (the shell's commands, redirections, guest programs): a runaway `>>` loop is stopped
//! long before it fills the quota with churn. Outside a command there is no bound.

use crate::error::{ErrorKind, VfsError, VfsResult};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The bytes one command may still write, shared by everything that writes.
#[derive(Debug)]
pub struct WriteBudget {
    limit: AtomicU64,
    written: AtomicU64,
    exceeded: AtomicBool,
    /// Set when the budget runs out, so the command stops (the shell's cancel flag).
    stop: Mutex<Option<Arc<AtomicBool>>>,
}

impl Default for WriteBudget {
    fn default() -> Self {
        Self {
            limit: AtomicU64::new(u64::MAX),
            written: AtomicU64::new(0),
            exceeded: AtomicBool::new(false),
            stop: Mutex::new(None),
        }
    }
}

impl WriteBudget {
    /// A command starts: `limit` bytes from now on; `stop` is raised when they run out.
    pub fn start(&self, limit: u64, stop: Arc<AtomicBool>) {
        self.written.store(0, Ordering::SeqCst);
        self.exceeded.store(false, Ordering::SeqCst);
        self.limit.store(limit, Ordering::SeqCst);
        *self.stop.lock().unwrap_or_else(|p| p.into_inner()) = Some(stop);
    }

    /// The command ended: writes are unbounded again. Whether it ran out.
    pub fn finish(&self) -> bool {
        self.limit.store(u64::MAX, Ordering::SeqCst);
        *self.stop.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.exceeded.load(Ordering::SeqCst)
    }

    /// The bound of the running command.
    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::SeqCst)
    }

    /// Takes `bytes` about to be written to `path`, or refuses them (EFBIG) when they
    /// do not fit, raising the stop flag.
    pub(crate) fn charge(&self, bytes: u64, path: &str) -> VfsResult<()> {
        let limit = self.limit();
        if limit == u64::MAX {
            return Ok(());
        }
        let before = self.written.fetch_add(bytes, Ordering::SeqCst);
        if before.saturating_add(bytes) <= limit {
            return Ok(());
        }
        self.exceeded.store(true, Ordering::SeqCst);
        if let Some(stop) = &*self.stop.lock().unwrap_or_else(|p| p.into_inner()) {
            stop.store(true, Ordering::SeqCst);
        }
        Err(VfsError::new(ErrorKind::FileTooLarge, path)
            .with_detail(format!("this command may write {limit} bytes to files")))
    }
}
