//! The sandbox's nondeterministic sources put behind the tape: the filesystem's clock
//! (which `date`, `ls`, `touch` and every file time read), the clocks and random bytes
//! guests see, and the doors (tools, requests, `ui`) with the clock the gate reads.

use super::tape::{
    DoorEvent, RecordedDenial, RecordedResponse, Tape, TapeMode, base64_decode, base64_encode,
};
use sandtab_caps::{BoxFuture, Code, Denial, DoorRequest, Doors, HttpResponse, UiAction};
use sandtab_vfs::{Clock, Timestamp};
use sandtab_wasi::Platform;
use std::sync::Arc;

/// Milliseconds (`Date.now()`, `performance.now()`) as whole nanoseconds, the whole
/// milliseconds multiplied exactly: a wall-clock reading stays a round number, which a
/// recording keeps exactly even through JavaScript's numbers (a float product is not
/// round, and the page's JSON would move it by up to 128 ns).
pub fn ms_to_nanos(ms: f64) -> i64 {
    let whole = ms.trunc();
    (whole as i64)
        .saturating_mul(1_000_000)
        .saturating_add(((ms - whole) * 1e6).round() as i64)
}

/// The inverse of [`ms_to_nanos`], exact for whole milliseconds.
pub fn nanos_to_ms(nanos: i64) -> f64 {
    (nanos / 1_000_000) as f64 + (nanos % 1_000_000) as f64 / 1e6
}

/// The filesystem's clock through the tape.
pub struct TapeClock {
    tape: Arc<Tape>,
    real: Arc<dyn Clock>,
}

impl std::fmt::Debug for TapeClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TapeClock")
            .field("tape", &self.tape)
            .finish_non_exhaustive()
    }
}

impl TapeClock {
    /// `real` behind `tape`.
    pub fn new(tape: Arc<Tape>, real: Arc<dyn Clock>) -> Self {
        Self { tape, real }
    }
}

impl Clock for TapeClock {
    fn now(&self) -> Timestamp {
        let nanos = self
            .tape
            .clock(|| i64::try_from(self.real.now().0).unwrap_or(i64::MAX));
        Timestamp(u64::try_from(nanos).unwrap_or(0))
    }
}

/// What guests observe (clocks, random bytes) through the tape; the real platform
/// still paces their runs.
pub struct TapePlatform {
    tape: Arc<Tape>,
    real: Arc<dyn Platform>,
}

impl std::fmt::Debug for TapePlatform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TapePlatform")
            .field("tape", &self.tape)
            .finish_non_exhaustive()
    }
}

impl TapePlatform {
    /// `real` behind `tape`.
    pub fn new(tape: Arc<Tape>, real: Arc<dyn Platform>) -> Self {
        Self { tape, real }
    }
}

impl Platform for TapePlatform {
    fn realtime_ns(&self) -> u64 {
        let nanos = self
            .tape
            .clock(|| i64::try_from(self.real.realtime_ns()).unwrap_or(i64::MAX));
        u64::try_from(nanos).unwrap_or(0)
    }

    fn monotonic_ns(&self) -> u64 {
        let nanos = self
            .tape
            .monotonic(|| i64::try_from(self.real.monotonic_ns()).unwrap_or(i64::MAX));
        u64::try_from(nanos).unwrap_or(0)
    }

    fn random(&self, buf: &mut [u8]) -> Result<(), String> {
        self.tape.random(buf, |buf| self.real.random(buf))
    }
}

/// The doors through the tape: recording keeps every answer; replaying gives the
/// recorded answers and never opens a real door (no handler runs, nothing is sent).
pub struct TapeDoors {
    tape: Arc<Tape>,
    real: Arc<dyn Doors>,
}

impl std::fmt::Debug for TapeDoors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TapeDoors")
            .field("tape", &self.tape)
            .finish_non_exhaustive()
    }
}

impl TapeDoors {
    /// `real` behind `tape`.
    pub fn new(tape: Arc<Tape>, real: Arc<dyn Doors>) -> Self {
        Self { tape, real }
    }
}

fn denial_on_tape(denial: &Denial) -> RecordedDenial {
    RecordedDenial {
        code: denial.code.as_str().to_owned(),
        message: denial.message.clone(),
    }
}

fn denial_from_tape(recorded: RecordedDenial) -> Denial {
    Denial::new(
        Code::parse(&recorded.code).unwrap_or(Code::NetFailed),
        recorded.message,
    )
}

fn diverged(why: String) -> Denial {
    Denial::new(Code::NetFailed, why)
}

impl Doors for TapeDoors {
    fn call_tool(&self, name: &str, args: &str) -> BoxFuture<'static, Result<String, String>> {
        let tape = self.tape.clone();
        let (name, args) = (name.to_owned(), args.to_owned());
        if tape.mode() == TapeMode::Replay {
            let found = tape.next_door(&format!("a call of the tool `{name}` with {args}"), |event| {
                matches!(event, DoorEvent::Tool { name: n, args: a, .. } if *n == name && *a == args)
            });
            return Box::pin(async move {
                match found? {
                    DoorEvent::Tool { answer, .. } => answer,
                    _ => Err("replay: not a tool answer".to_owned()),
                }
            });
        }
        let call = self.real.call_tool(&name, &args);
        Box::pin(async move {
            let answer = call.await;
            tape.push_door(DoorEvent::Tool {
                name,
                args,
                answer: answer.clone(),
            });
            answer
        })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let tape = self.tape.clone();
        let (method, url) = (request.method.clone(), request.url.clone());
        if tape.mode() == TapeMode::Replay {
            let found = tape.next_door(&format!("a request {method} {url}"), |event| {
                matches!(event, DoorEvent::Fetch { method: m, url: u, .. } if *m == method && *u == url)
            });
            return Box::pin(async move {
                match found.map_err(diverged)? {
                    DoorEvent::Fetch { answer: Ok(r), .. } => Ok(HttpResponse {
                        status: r.status,
                        status_text: r.status_text,
                        headers: r.headers,
                        url: r.url,
                        redirected: r.redirected,
                        body: base64_decode(&r.body).ok_or_else(|| {
                            diverged("replay: a recorded body is not base64".into())
                        })?,
                    }),
                    DoorEvent::Fetch { answer: Err(d), .. } => Err(denial_from_tape(d)),
                    _ => Err(diverged("replay: not a response".into())),
                }
            });
        }
        let call = self.real.fetch(request);
        Box::pin(async move {
            let answer = call.await;
            tape.push_door(DoorEvent::Fetch {
                method,
                url,
                answer: match &answer {
                    Ok(r) => Ok(RecordedResponse {
                        status: r.status,
                        status_text: r.status_text.clone(),
                        headers: r.headers.clone(),
                        url: r.url.clone(),
                        redirected: r.redirected,
                        body: base64_encode(&r.body),
                    }),
                    Err(denial) => Err(denial_on_tape(denial)),
                },
            });
            answer
        })
    }

    fn now_ms(&self) -> f64 {
        nanos_to_ms(self.tape.clock(|| ms_to_nanos(self.real.now_ms())))
    }

    fn ui(&self, action: UiAction) -> BoxFuture<'static, Result<Option<String>, Denial>> {
        let tape = self.tape.clone();
        let name = match &action {
            UiAction::Show { .. } => "show",
            UiAction::Wait { .. } => "wait",
            UiAction::Close => "close",
        }
        .to_owned();
        if tape.mode() == TapeMode::Replay {
            let found = tape.next_door(
                &format!("a ui {name}"),
                |event| matches!(event, DoorEvent::Ui { action, .. } if *action == name),
            );
            return Box::pin(async move {
                match found.map_err(diverged)? {
                    DoorEvent::Ui { answer, .. } => answer.map_err(denial_from_tape),
                    _ => Err(diverged("replay: not a ui answer".into())),
                }
            });
        }
        let call = self.real.ui(action);
        Box::pin(async move {
            let answer = call.await;
            tape.push_door(DoorEvent::Ui {
                action: name,
                answer: answer.clone().map_err(|denial| denial_on_tape(&denial)),
            });
            answer
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_become_round_nanoseconds_and_back() {
        let now = 1_796_190_593_066.0; // a Date.now() of 2026
        assert_eq!(ms_to_nanos(now), 1_796_190_593_066_000_000);
        assert_ne!(
            (now * 1e6) as i64,
            1_796_190_593_066_000_000,
            "the float product is not round"
        );
        assert_eq!(nanos_to_ms(ms_to_nanos(now)), now);
        assert_eq!(ms_to_nanos(1234.5), 1_234_500_000);
        assert_eq!(nanos_to_ms(1_234_500_000), 1234.5);
    }
}
