//! Keeps the worker responsive while Rust work runs.
//!
//! bashkit yields (`Poll::Pending` with an immediate wake) every few dozen commands, but
//! wasm-bindgen-futures re-polls such a future from a microtask, and microtasks never let
//! the worker's event loop deliver messages. A cancel message would wait for the whole
//! command. [`Yielding`] therefore hands control back to the event loop through a
//! `MessageChannel` macrotask (not `setTimeout`, which browsers clamp to 4 ms) whenever the
//! inner future has been polled for more than [`SLICE_MS`] without a break.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// How long Rust work may hold the worker before the event loop gets a turn.
pub const SLICE_MS: f64 = 8.0;

/// Wraps a future so that it gives the event loop a turn every [`SLICE_MS`].
pub struct Yielding<F> {
    inner: Pin<Box<F>>,
    slice_start: f64,
    resumed_from_yield: bool,
}

impl<F> std::fmt::Debug for Yielding<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Yielding")
            .field("slice_start", &self.slice_start)
            .finish_non_exhaustive()
    }
}

impl<F: Future> Yielding<F> {
    /// Wraps `inner`.
    pub fn new(inner: F) -> Self {
        Self {
            inner: Box::pin(inner),
            slice_start: crate::shell_sources::real_date_now(),
            resumed_from_yield: false,
        }
    }
}

impl<F: Future> Future for Yielding<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let now = crate::shell_sources::real_date_now();
        if std::mem::take(&mut self.resumed_from_yield) {
            self.slice_start = now;
        } else if now - self.slice_start >= SLICE_MS {
            self.resumed_from_yield = true;
            wake_after_macrotask(cx.waker().clone());
            return Poll::Pending;
        }
        self.inner.as_mut().poll(cx)
    }
}

struct MacrotaskQueue {
    // Kept alive for as long as the channel is in use.
    _on_message: Closure<dyn FnMut()>,
    port: web_sys::MessagePort,
    waiting: Vec<Waker>,
    posted: bool,
}

thread_local! {
    static QUEUE: RefCell<Option<MacrotaskQueue>> = const { RefCell::new(None) };
}

/// Wakes `waker` from a fresh macrotask, after pending messages have been delivered.
pub(crate) fn wake_after_macrotask(waker: Waker) {
    QUEUE.with(|queue| {
        let mut queue = queue.borrow_mut();
        let queue = match &mut *queue {
            Some(queue) => queue,
            None => match MacrotaskQueue::new() {
                Ok(created) => queue.insert(created),
                // No MessageChannel (should not happen in a browser): wake at once rather
                // than never.
                Err(_) => return waker.wake(),
            },
        };
        queue.waiting.push(waker);
        if !queue.posted && queue.port.post_message(&JsValue::UNDEFINED).is_ok() {
            queue.posted = true;
        }
    });
}

impl MacrotaskQueue {
    fn new() -> Result<Self, JsValue> {
        let channel = web_sys::MessageChannel::new()?;
        let on_message = Closure::<dyn FnMut()>::new(|| {
            let ready = QUEUE.with(|queue| match &mut *queue.borrow_mut() {
                Some(queue) => {
                    queue.posted = false;
                    std::mem::take(&mut queue.waiting)
                }
                None => Vec::new(),
            });
            for waker in ready {
                waker.wake();
            }
        });
        channel
            .port1()
            .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(Self {
            _on_message: on_message,
            port: channel.port2(),
            waiting: Vec::new(),
            posted: false,
        })
    }
}
