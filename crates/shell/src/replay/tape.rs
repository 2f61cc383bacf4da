//! The tape: every nondeterministic input one recorded operation consumed (clock
//! readings, random bytes, what the doors answered), in the order it consumed them.
//! Recording appends what the real sources give; replaying gives back what was
//! recorded, in the same order. Outside an operation the tape passes the real sources
//! through and keeps nothing (the page's own reads are not part of a recording).

use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// Whether the tape is taking inputs down or giving them back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TapeMode {
    /// Real sources, whose values are kept.
    Record,
    /// The recorded values; no real source is asked.
    Replay,
}

/// What a door answered, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "door", rename_all = "snake_case")]
pub enum DoorEvent {
    /// A tool handler's answer (JSON text) or failure message.
    Tool {
        /// The tool.
        name: String,
        /// The arguments it was called with (JSON text).
        args: String,
        /// What it answered.
        answer: Result<String, String>,
    },
    /// A request's response, or why it failed (`CODE: message`).
    Fetch {
        /// The method.
        method: String,
        /// The URL.
        url: String,
        /// The response (body in base64) or the refusal.
        answer: Result<RecordedResponse, RecordedDenial>,
    },
    /// A `ui` action's answer.
    Ui {
        /// `show`, `wait` or `close`.
        action: String,
        /// The event (for `wait`), or the refusal.
        answer: Result<Option<String>, RecordedDenial>,
    },
}

/// An HTTP response on the tape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedResponse {
    /// The status code.
    pub status: u16,
    /// The reason phrase.
    pub status_text: String,
    /// Headers, names lower-case.
    pub headers: Vec<(String, String)>,
    /// Where it came from.
    pub url: String,
    /// Whether redirects were followed.
    pub redirected: bool,
    /// The body, base64.
    pub body: String,
}

/// A refusal on the tape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedDenial {
    /// The stable code (`CAP_NET_FAILED`).
    pub code: String,
    /// The message.
    pub message: String,
}

/// The inputs of one operation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// Wall-clock readings in nanoseconds since the epoch, each as the difference from
    /// the one before (the first from 0): small numbers for a clock read often.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<i64>,
    /// Guests' monotonic clock readings (nanoseconds), as differences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub monotonic: Vec<i64>,
    /// Random bytes, base64, in the order they were drawn.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub random: String,
    /// What the doors answered, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doors: Vec<DoorEvent>,
}

#[derive(Debug, Default)]
struct Playing {
    clock: Vec<i64>,
    clock_at: usize,
    clock_last: i64,
    monotonic: Vec<i64>,
    monotonic_at: usize,
    monotonic_last: i64,
    random: Vec<u8>,
    random_at: usize,
    doors: Vec<DoorEvent>,
    doors_at: usize,
}

#[derive(Debug, Default)]
struct State {
    /// Inside an operation: what it has consumed so far (recording) or is given
    /// (replaying).
    active: Option<Playing>,
    /// The first way the replay went differently from the recording.
    diverged: Option<String>,
}

/// The inputs of the operation under way, shared by every source of a sandbox.
#[derive(Debug)]
pub struct Tape {
    mode: TapeMode,
    state: Mutex<State>,
}

impl Tape {
    /// An idle tape in `mode`.
    pub fn new(mode: TapeMode) -> Self {
        Self {
            mode,
            state: Mutex::default(),
        }
    }

    /// Recording or replaying.
    pub fn mode(&self) -> TapeMode {
        self.mode
    }

    /// Starts an operation: recording, from nothing; replaying, from its `inputs`.
    pub fn begin(&self, inputs: Inputs) {
        let mut state = self.lock();
        let random = base64_decode(&inputs.random).unwrap_or_else(|| {
            state
                .diverged
                .get_or_insert_with(|| "the recording's random bytes are not base64".into());
            Vec::new()
        });
        state.active = Some(match self.mode {
            TapeMode::Record => Playing::default(),
            TapeMode::Replay => Playing {
                clock: inputs.clock,
                monotonic: inputs.monotonic,
                random,
                doors: inputs.doors,
                ..Playing::default()
            },
        });
    }

    /// Ends the operation: what it consumed (recording), and whether a replay used
    /// every input it was given (one it left over is a divergence too).
    pub fn end(&self) -> Inputs {
        let mut state = self.lock();
        let Some(playing) = state.active.take() else {
            return Inputs::default();
        };
        if self.mode == TapeMode::Replay && state.diverged.is_none() {
            let left = [
                (
                    playing.clock.len() - playing.clock_at.min(playing.clock.len()),
                    "clock readings",
                ),
                (
                    playing.random.len() - playing.random_at.min(playing.random.len()),
                    "random bytes",
                ),
                (
                    playing.doors.len() - playing.doors_at.min(playing.doors.len()),
                    "door answers",
                ),
            ];
            if let Some((count, what)) = left.iter().find(|(count, _)| *count > 0) {
                state.diverged = Some(format!(
                    "the replay used fewer inputs than were recorded ({count} {what} left over)"
                ));
            }
        }
        match self.mode {
            TapeMode::Record => Inputs {
                clock: playing.clock,
                monotonic: playing.monotonic,
                random: base64_encode(&playing.random),
                doors: playing.doors,
            },
            TapeMode::Replay => Inputs::default(),
        }
    }

    /// The first divergence of a replay, if any.
    pub fn divergence(&self) -> Option<String> {
        self.lock().diverged.clone()
    }

    /// Whether an operation is under way.
    pub fn active(&self) -> bool {
        self.lock().active.is_some()
    }

    /// A wall-clock reading (ns since the epoch): `real`'s, kept; or the recorded one.
    pub fn clock(&self, real: impl FnOnce() -> i64) -> i64 {
        self.reading(
            real,
            |p| (&mut p.clock, &mut p.clock_at, &mut p.clock_last),
            "clock",
        )
    }

    /// A monotonic reading for guests.
    pub fn monotonic(&self, real: impl FnOnce() -> i64) -> i64 {
        self.reading(
            real,
            |p| (&mut p.monotonic, &mut p.monotonic_at, &mut p.monotonic_last),
            "monotonic clock",
        )
    }

    fn reading(
        &self,
        real: impl FnOnce() -> i64,
        stream: impl FnOnce(&mut Playing) -> (&mut Vec<i64>, &mut usize, &mut i64),
        what: &str,
    ) -> i64 {
        let mut state = self.lock();
        let mode = self.mode;
        let State { active, diverged } = &mut *state;
        let Some(playing) = active.as_mut() else {
            drop(state);
            return real();
        };
        let (values, at, last) = stream(playing);
        match mode {
            TapeMode::Record => {
                let value = real();
                values.push(value.wrapping_sub(*last));
                *last = value;
                value
            }
            TapeMode::Replay => match values.get(*at) {
                Some(delta) => {
                    *at += 1;
                    *last = last.wrapping_add(*delta);
                    *last
                }
                None => {
                    diverged.get_or_insert_with(|| {
                        format!("the replay read the {what} more often than the recording did")
                    });
                    // Time still moves, so that waiting loops end.
                    *last = last.wrapping_add(1_000);
                    *last
                }
            },
        }
    }

    /// Fills `buf` with random bytes: `real`'s, kept; or the recorded ones.
    pub fn random(
        &self,
        buf: &mut [u8],
        real: impl FnOnce(&mut [u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut state = self.lock();
        let mode = self.mode;
        let State { active, diverged } = &mut *state;
        let Some(playing) = active.as_mut() else {
            drop(state);
            return real(buf);
        };
        match mode {
            TapeMode::Record => {
                real(buf)?;
                playing.random.extend_from_slice(buf);
                Ok(())
            }
            TapeMode::Replay => {
                let from = playing.random_at;
                let to = from + buf.len();
                match playing.random.get(from..to) {
                    Some(bytes) => {
                        buf.copy_from_slice(bytes);
                        playing.random_at = to;
                    }
                    None => {
                        diverged.get_or_insert_with(|| {
                            "the replay drew more random bytes than the recording did".into()
                        });
                        buf.fill(0);
                    }
                }
                Ok(())
            }
        }
    }

    /// Keeps what a door answered (recording, inside an operation).
    pub fn push_door(&self, event: DoorEvent) {
        if let Some(playing) = self.lock().active.as_mut() {
            playing.doors.push(event);
        }
    }

    /// The next recorded door answer, which must be for the same door, name and
    /// arguments as `matches` checks; otherwise the replay has diverged (`Err`, saying
    /// how).
    pub fn next_door(
        &self,
        expected: &str,
        matches: impl FnOnce(&DoorEvent) -> bool,
    ) -> Result<DoorEvent, String> {
        let mut state = self.lock();
        let State { active, diverged } = &mut *state;
        let Some(playing) = active.as_mut() else {
            return Err(format!("replay: {expected} outside a recorded operation"));
        };
        let found = playing.doors.get(playing.doors_at).cloned();
        match found {
            Some(event) if matches(&event) => {
                playing.doors_at += 1;
                Ok(event)
            }
            other => {
                let why = match other {
                    Some(event) => format!(
                        "replay: the sandbox asked for {expected}, but the recording has {} next",
                        describe(&event)
                    ),
                    None => format!(
                        "replay: the sandbox asked for {expected}, which the recording does not have"
                    ),
                };
                diverged.get_or_insert_with(|| why.clone());
                Err(why)
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A door event in a message.
pub(crate) fn describe(event: &DoorEvent) -> String {
    match event {
        DoorEvent::Tool { name, args, .. } => format!("a call of the tool `{name}` with {args}"),
        DoorEvent::Fetch { method, url, .. } => format!("a request {method} {url}"),
        DoorEvent::Ui { action, .. } => format!("a ui {action}"),
    }
}

pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_come_back_in_order_and_extra_ones_diverge() {
        let tape = Tape::new(TapeMode::Record);
        tape.begin(Inputs::default());
        let mut real = [100_i64, 250, 240].into_iter();
        let seen: Vec<i64> = (0..3)
            .map(|_| tape.clock(|| real.next().unwrap()))
            .collect();
        let mut buf = [0u8; 3];
        tape.random(&mut buf, |b| {
            b.copy_from_slice(&[7, 8, 9]);
            Ok(())
        })
        .unwrap();
        let inputs = tape.end();
        assert_eq!(inputs.clock, [100, 150, -10]);
        assert_eq!(
            tape.clock(|| 5),
            5,
            "outside an operation: the real clock, not kept"
        );

        let replay = Tape::new(TapeMode::Replay);
        replay.begin(inputs.clone());
        let again: Vec<i64> = (0..3)
            .map(|_| replay.clock(|| panic!("not asked")))
            .collect();
        assert_eq!(again, seen);
        let mut buf = [0u8; 3];
        replay.random(&mut buf, |_| panic!("not asked")).unwrap();
        assert_eq!(buf, [7, 8, 9]);
        assert!(replay.divergence().is_none());
        assert_eq!(replay.clock(|| 0), 1_240, "past the end, time still moves");
        assert!(replay.divergence().unwrap().contains("more often"));

        let short = Tape::new(TapeMode::Replay);
        short.begin(inputs);
        short.end();
        assert!(
            short
                .divergence()
                .unwrap()
                .contains("3 clock readings left over")
        );
    }

    #[test]
    fn bad_random_data_is_a_divergence_not_a_panic() {
        let tape = Tape::new(TapeMode::Replay);
        tape.begin(Inputs {
            random: "***".into(),
            ..Inputs::default()
        });
        let mut buf = [1u8; 2];
        tape.random(&mut buf, |_| Ok(())).unwrap();
        assert_eq!(buf, [0, 0]);
        assert!(tape.divergence().is_some());
    }
}
