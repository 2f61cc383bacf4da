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

/// One of the shell interpreter's own clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellClock {
    /// Wall-clock time (`Date.now()` in the browser).
    Wall,
    /// Monotonic time (`performance.now()` in the browser).
    Monotonic,
}

/// Which of an operation's reading streams a clock uses: its values, how far a replay
/// has read, and the last value (the base of the next difference).
type Stream = fn(&mut Playing) -> (&mut Vec<i64>, &mut usize, &mut i64);

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
    /// The shell interpreter's own wall-clock readings (history times), in nanoseconds
    /// since the epoch, as differences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shell_clock: Vec<i64>,
    /// The shell interpreter's own monotonic readings (`$SECONDS`, `time`, its
    /// deadlines), in nanoseconds, as differences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shell_monotonic: Vec<i64>,
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
    shell_clock: Vec<i64>,
    shell_clock_at: usize,
    shell_clock_last: i64,
    shell_monotonic: Vec<i64>,
    shell_monotonic_at: usize,
    shell_monotonic_last: i64,
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
                shell_clock: inputs.shell_clock,
                shell_monotonic: inputs.shell_monotonic,
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
                    playing.shell_clock.len()
                        - playing.shell_clock_at.min(playing.shell_clock.len()),
                    "shell clock readings",
                ),
                (
                    playing.shell_monotonic.len()
                        - playing
                            .shell_monotonic_at
                            .min(playing.shell_monotonic.len()),
                    "shell monotonic readings",
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
                shell_clock: playing.shell_clock,
                shell_monotonic: playing.shell_monotonic,
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

    /// A reading of the shell interpreter's own clock `which`. The interpreter reads
    /// it where the sandbox's sources cannot reach, so its host hands every reading
    /// here. Never waits: a reading taken while the tape is busy (one of its own
    /// sources reading that clock) is the real one, and is not kept.
    pub fn shell_reading(&self, which: ShellClock, real: impl FnOnce() -> i64) -> i64 {
        let Some(mut state) = self.try_lock() else {
            return real();
        };
        let (stream, what): (Stream, _) = match which {
            ShellClock::Wall => (
                |p| {
                    (
                        &mut p.shell_clock,
                        &mut p.shell_clock_at,
                        &mut p.shell_clock_last,
                    )
                },
                "shell's clock",
            ),
            ShellClock::Monotonic => (
                |p| {
                    (
                        &mut p.shell_monotonic,
                        &mut p.shell_monotonic_at,
                        &mut p.shell_monotonic_last,
                    )
                },
                "shell's monotonic clock",
            ),
        };
        Self::reading_in(&mut state, self.mode, real, stream, what)
    }

    fn reading(&self, real: impl FnOnce() -> i64, stream: Stream, what: &str) -> i64 {
        let mut state = self.lock();
        Self::reading_in(&mut state, self.mode, real, stream, what)
    }

    fn reading_in(
        state: &mut State,
        mode: TapeMode,
        real: impl FnOnce() -> i64,
        stream: Stream,
        what: &str,
    ) -> i64 {
        let State { active, diverged } = state;
        let Some(playing) = active.as_mut() else {
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
        Self::random_in(&mut state, self.mode, buf, real)
    }

    /// Random bytes the shell interpreter draws where the sandbox's sources cannot
    /// reach (`$SRANDOM`), handed here by its host; like [`Tape::random`], but never
    /// waits: bytes drawn while the tape is busy are the real ones, not kept.
    pub fn shell_random(
        &self,
        buf: &mut [u8],
        real: impl FnOnce(&mut [u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        match self.try_lock() {
            Some(mut state) => Self::random_in(&mut state, self.mode, buf, real),
            None => real(buf),
        }
    }

    fn random_in(
        state: &mut State,
        mode: TapeMode,
        buf: &mut [u8],
        real: impl FnOnce(&mut [u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let State { active, diverged } = state;
        let Some(playing) = active.as_mut() else {
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

    fn try_lock(&self) -> Option<std::sync::MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
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
    fn the_shells_clocks_are_streams_of_their_own() {
        let tape = Tape::new(TapeMode::Record);
        tape.begin(Inputs::default());
        assert_eq!(tape.shell_reading(ShellClock::Monotonic, || 5_000), 5_000);
        assert_eq!(tape.clock(|| 1_000_000), 1_000_000);
        assert_eq!(tape.shell_reading(ShellClock::Monotonic, || 7_500), 7_500);
        assert_eq!(
            tape.shell_reading(ShellClock::Wall, || 9_000_000),
            9_000_000
        );
        let mut srandom = [0u8; 4];
        tape.shell_random(&mut srandom, |b| {
            b.copy_from_slice(&[1, 2, 3, 4]);
            Ok(())
        })
        .unwrap();
        let inputs = tape.end();
        assert_eq!(inputs.shell_monotonic, [5_000, 2_500]);
        assert_eq!(inputs.shell_clock, [9_000_000]);
        assert_eq!(inputs.clock, [1_000_000], "the sandbox's clock is apart");
        assert_eq!(base64_decode(&inputs.random).unwrap(), [1, 2, 3, 4]);

        let replay = Tape::new(TapeMode::Replay);
        replay.begin(inputs.clone());
        let never = || panic!("a replay asks no real clock");
        assert_eq!(replay.shell_reading(ShellClock::Monotonic, never), 5_000);
        assert_eq!(replay.clock(never), 1_000_000);
        assert_eq!(replay.shell_reading(ShellClock::Monotonic, never), 7_500);
        assert_eq!(replay.shell_reading(ShellClock::Wall, never), 9_000_000);
        let mut again = [0u8; 4];
        replay
            .shell_random(&mut again, |_| panic!("not asked"))
            .unwrap();
        assert_eq!(again, [1, 2, 3, 4]);
        replay.end();
        assert!(replay.divergence().is_none());

        let short = Tape::new(TapeMode::Replay);
        short.begin(inputs);
        short.shell_reading(ShellClock::Monotonic, never);
        short.clock(never);
        short.shell_reading(ShellClock::Wall, never);
        short.random(&mut again, |_| panic!("not asked")).unwrap();
        short.end();
        let why = short.divergence().unwrap();
        assert!(
            why.contains("1 shell monotonic readings left over"),
            "{why}"
        );
    }

    #[test]
    fn a_busy_tape_gives_the_real_source_instead_of_waiting() {
        let tape = Tape::new(TapeMode::Record);
        tape.begin(Inputs::default());
        // A source of the tape itself reading the shell's clock: the tape is locked.
        let nested = tape.clock(|| tape.shell_reading(ShellClock::Wall, || 42) + 1);
        assert_eq!(nested, 43);
        let mut buf = [0u8; 2];
        tape.random(&mut buf, |b| {
            tape.shell_random(b, |inner| {
                inner.fill(9);
                Ok(())
            })
        })
        .unwrap();
        assert_eq!(buf, [9, 9]);
        let inputs = tape.end();
        assert_eq!(inputs.clock, [43]);
        assert!(
            inputs.shell_clock.is_empty(),
            "the nested reading is not kept"
        );
        assert_eq!(base64_decode(&inputs.random).unwrap(), [9, 9]);
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
