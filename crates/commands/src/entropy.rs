//! Where the commands get random bytes (`uuidgen`, `shuf`, `openssl rand`): a source
//! the shell provides, so that a recording sandbox can record the bytes and a replay
//! draw the same ones.

use std::sync::Arc;

/// A source of random bytes; a source that fails says why, for the command to print.
pub trait RandomSource: Send + Sync {
    fn fill(&self, buf: &mut [u8]) -> Result<(), String>;
}

/// The random source of one shell session's commands.
#[derive(Clone)]
pub struct Entropy {
    source: Arc<dyn RandomSource>,
}

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entropy").finish_non_exhaustive()
    }
}

impl Entropy {
    pub fn new(source: Arc<dyn RandomSource>) -> Arc<Self> {
        Arc::new(Self { source })
    }

    /// Fills `buf`.
    pub(crate) fn fill(&self, buf: &mut [u8]) -> Result<(), String> {
        self.source.fill(buf)
    }

    /// A uniformly drawn number below `bound` (which must be above 0).
    pub(crate) fn below(&self, bound: u64) -> Result<u64, String> {
        // Rejection sampling: no bias toward small numbers.
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let mut bytes = [0u8; 8];
            self.fill(&mut bytes)?;
            let n = u64::from_le_bytes(bytes);
            if n < zone {
                return Ok(n % bound);
            }
        }
    }
}
