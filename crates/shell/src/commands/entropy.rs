//! Where sandtab's own commands get random bytes (`uuidgen`, `shuf`): the host's
//! secure source, or the tape of a recording or replaying sandbox, so that a replay
//! draws the same bytes.

use crate::replay::Tape;
use sandtab_wasi::Platform;
use std::sync::{Arc, Mutex};

/// The random source of one shell session's commands.
pub(crate) struct Entropy {
    host: Arc<dyn Platform>,
    tape: Mutex<Option<Arc<Tape>>>,
}

impl Entropy {
    pub(crate) fn new(host: Arc<dyn Platform>) -> Arc<Self> {
        Arc::new(Self {
            host,
            tape: Mutex::default(),
        })
    }

    /// Draws from `tape` from now on.
    pub(crate) fn set_tape(&self, tape: Arc<Tape>) {
        *self.tape.lock().unwrap_or_else(|e| e.into_inner()) = Some(tape);
    }

    /// Fills `buf`; a source that fails is an error message for the command to print.
    pub(crate) fn fill(&self, buf: &mut [u8]) -> Result<(), String> {
        let tape = self.tape.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match tape {
            Some(tape) => tape.random(buf, |buf| self.host.random(buf)),
            None => self.host.random(buf),
        }
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
