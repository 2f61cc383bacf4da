//! Answers an op at once when it never has to wait.
//!
//! Most of an agent's commands (`cd`, `cat`, `echo x > f` in memory) finish on their
//! first poll. Handing every one to `future_to_promise` costs a `Promise`, a task on
//! wasm-bindgen-futures' queue and microtasks to settle it: in Chromium more than half the
//! time of the command itself, in Firefox more than all of it. [`now_or_later`] polls the
//! future once here and only hands it over when it is still pending.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use wasm_bindgen::JsValue;

/// What an op gave: its answer now, or a `Promise` of it.
#[derive(Debug)]
pub enum NowOrLater {
    Now(Result<JsValue, JsValue>),
    Later(js_sys::Promise),
}

impl NowOrLater {
    /// The answer as JavaScript sees it: the value, or a `Promise` (rejected for an error
    /// found at once, so that callers handle every error in one place).
    pub fn into_js(self) -> JsValue {
        match self {
            NowOrLater::Now(Ok(value)) => value,
            NowOrLater::Now(Err(err)) => js_sys::Promise::reject(&err).into(),
            NowOrLater::Later(promise) => promise.into(),
        }
    }
}

type Op = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// Polls `future` once; if it is pending, a `Promise` carries it on.
pub fn now_or_later(
    future: impl Future<Output = Result<JsValue, JsValue>> + 'static,
) -> NowOrLater {
    let forward = Arc::new(ForwardingWaker::default());
    let waker = Waker::from(forward.clone());
    let mut future: Op = Box::pin(future);
    match future.as_mut().poll(&mut Context::from_waker(&waker)) {
        Poll::Ready(answer) => NowOrLater::Now(answer),
        Poll::Pending => NowOrLater::Later(wasm_bindgen_futures::future_to_promise(Forwarded {
            future,
            forward,
            waker,
        })),
    }
}

/// The waker the op sees for its whole life: it wakes whichever task polls it now. A
/// wake before the promise's task first polls goes nowhere, and needs not: that first
/// poll polls the op anyway.
#[derive(Debug, Default)]
struct ForwardingWaker {
    target: Mutex<Option<Waker>>,
}

impl ForwardingWaker {
    fn target(&self) -> std::sync::MutexGuard<'_, Option<Waker>> {
        // Single-threaded: a poisoned lock only means a panic, which aborts on wasm32.
        self.target
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Wake for ForwardingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let target = self.target().clone();
        if let Some(target) = target {
            target.wake();
        }
    }
}

/// The pending op, as the promise's task polls it.
struct Forwarded {
    future: Op,
    forward: Arc<ForwardingWaker>,
    waker: Waker,
}

impl Future for Forwarded {
    type Output = Result<JsValue, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        *this.forward.target() = Some(cx.waker().clone());
        this.future
            .as_mut()
            .poll(&mut Context::from_waker(&this.waker))
    }
}
