//! Where sandtab's own commands get random bytes (`uuidgen`, `shuf`): the host's
//! secure source, or the tape of a recording or replaying sandbox, so that a replay
//! draws the same bytes.

use crate::replay::Tape;
use sandtab_commands::RandomSource;
use sandtab_wasi::Platform;
use std::sync::{Arc, Mutex};

/// The random source of one shell session's commands.
pub(crate) struct SessionRandom {
    host: Arc<dyn Platform>,
    tape: Mutex<Option<Arc<Tape>>>,
}

impl SessionRandom {
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
}

impl RandomSource for SessionRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), String> {
        let tape = self.tape.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match tape {
            Some(tape) => tape.random(buf, |buf| self.host.random(buf)),
            None => self.host.random(buf),
        }
    }
}
