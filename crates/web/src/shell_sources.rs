//! The shell interpreter's own clocks and random draws, put on a recording's tape.
//!
//! bashkit reads time through web-time (`performance.now()`, `Date.now()`: `$SECONDS`,
//! `time`, history times, its deadlines) and draws `$SRANDOM` through getrandom's
//! browser backend (`crypto.getRandomValues()`), and lets an embedder replace none of
//! them (getrandom's own custom backend does not build beside the browser backend
//! bashkit turns on). So while a recording or replaying sandbox is open in this worker,
//! `js/shell_sources.js` sends those three functions through its [`Tape`]. Outside an
//! operation, and in every sandbox that does not record, they give the real sources.
//! The runtime's own readings use [`real_now`], [`real_date_now`] and [`real_random`],
//! which no hook touches.

use js_sys::Uint8Array;
use sandtab_shell::replay::{ShellClock, Tape, ms_to_nanos, nanos_to_ms};
use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/js/shell_sources.js")]
extern "C" {
    /// `performance.now()`, whatever the hooks do.
    #[wasm_bindgen(js_name = realNow)]
    pub fn real_now() -> f64;
    /// `Date.now()`, whatever the hooks do.
    #[wasm_bindgen(js_name = realDateNow)]
    pub fn real_date_now() -> f64;
    #[wasm_bindgen(js_name = realRandom, catch)]
    fn real_get_random_values(buf: &mut [u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(js_name = setHooks)]
    fn set_hooks(clock: &JsValue, random: &JsValue, memory: &JsValue);
    #[wasm_bindgen(js_name = clearHooks)]
    fn clear_hooks();
}

struct Hooks {
    _clock: Closure<dyn Fn(u32, f64) -> f64>,
    _random: Closure<dyn Fn(u32) -> Result<Uint8Array, JsValue>>,
}

thread_local! {
    static TAPE: RefCell<Option<Arc<Tape>>> = const { RefCell::new(None) };
    static HOOKS: RefCell<Option<Hooks>> = const { RefCell::new(None) };
}

/// Keeps the shell's sources on a tape until dropped.
#[derive(Debug)]
pub struct OnTape {
    tape: Arc<Tape>,
}

/// Puts the shell's clocks and random draws behind `tape`. The worker holds one
/// sandbox; where a page of tests holds several, the last one opened has them.
pub fn put_on(tape: Arc<Tape>) -> OnTape {
    TAPE.with(|slot| *slot.borrow_mut() = Some(tape.clone()));
    HOOKS.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            let clock = Closure::<dyn Fn(u32, f64) -> f64>::new(clock_reading);
            let random = Closure::<dyn Fn(u32) -> Result<Uint8Array, JsValue>>::new(random_bytes);
            set_hooks(clock.as_ref(), random.as_ref(), &wasm_bindgen::memory());
            *slot = Some(Hooks {
                _clock: clock,
                _random: random,
            });
        }
    });
    OnTape { tape }
}

impl Drop for OnTape {
    fn drop(&mut self) {
        let ours = TAPE.with(|slot| {
            let mut slot = slot.borrow_mut();
            let ours = slot.as_ref().is_some_and(|t| Arc::ptr_eq(t, &self.tape));
            if ours {
                *slot = None;
            }
            ours
        });
        if ours {
            clear_hooks();
            HOOKS.with(|slot| slot.borrow_mut().take());
        }
    }
}

fn current() -> Option<Arc<Tape>> {
    TAPE.with(|slot| slot.borrow().clone())
}

/// A clock reading: kind 0 is `performance.now()`, 1 `Date.now()`; milliseconds, kept
/// as nanoseconds, so that a replay gives back the very same number.
fn clock_reading(kind: u32, real: f64) -> f64 {
    let Some(tape) = current() else {
        return real;
    };
    let which = match kind {
        0 => ShellClock::Monotonic,
        _ => ShellClock::Wall,
    };
    let nanos = tape.shell_reading(which, || ms_to_nanos(real));
    nanos_to_ms(nanos)
}

/// `len` random bytes (at most 65,536, as `crypto.getRandomValues` gives).
fn random_bytes(len: u32) -> Result<Uint8Array, JsValue> {
    let mut buf = vec![0u8; len as usize];
    match current() {
        Some(tape) => tape.shell_random(&mut buf, real_random),
        None => real_random(&mut buf),
    }
    .map_err(|err| JsValue::from(JsError::new(&err)))?;
    Ok(Uint8Array::from(buf.as_slice()))
}

/// The real `crypto.getRandomValues`, which fills at most 65,536 bytes per call.
pub fn real_random(buf: &mut [u8]) -> Result<(), String> {
    for chunk in buf.chunks_mut(65_536) {
        real_get_random_values(chunk).map_err(|err| format!("crypto.getRandomValues: {err:?}"))?;
    }
    Ok(())
}

/// The sandbox's clock (file times, `date`): the real `Date.now()`. A recording puts it
/// on its tape through `TapeClock`, apart from the shell's own readings.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealClock;

impl sandtab_vfs::Clock for RealClock {
    fn now(&self) -> sandtab_vfs::Timestamp {
        sandtab_vfs::Timestamp(u64::try_from(ms_to_nanos(real_date_now())).unwrap_or(0))
    }
}
