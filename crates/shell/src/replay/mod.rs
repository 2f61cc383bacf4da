//! Deterministic record and replay. A recording sandbox puts its nondeterministic
//! sources behind a [`Tape`] (the filesystem's clock, which `date` and file times read;
//! what guests observe of time and randomness; `$RANDOM`'s seed; the doors' answers;
//! and, handed over by the browser binding, the shell interpreter's own clocks and
//! random draws: `$SECONDS`, `time`, history times, `$SRANDOM`),
//! and keeps each operation with the inputs it consumed and its outcome
//! ([`Recording`]). Replaying gives a fresh sandbox the recorded inputs instead, with
//! no door open, and checks that every outcome and the final file tree are the same.
//!
//! What is not on the tape: when a time limit stops a command (the wall clock paces
//! runs), and natively, the interpreter's own clocks and random draws (no native host
//! records).

mod recording;
mod sources;
mod tape;

pub use recording::{
    MAX_OPS, OLDEST_RECORDING_VERSION, Op, Outcome, OutputDigest, RECORDING_FORMAT,
    RECORDING_VERSION, RecordedOp, Recording, tree_digest, tree_digest_without,
};
pub use sources::{TapeClock, TapeDoors, TapePlatform, ms_to_nanos, nanos_to_ms};
pub use tape::{DoorEvent, Inputs, RecordedDenial, RecordedResponse, ShellClock, Tape, TapeMode};
