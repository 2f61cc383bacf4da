//! The browser's side of guest programs: clocks, `crypto.getRandomValues`, a macrotask
//! tick to let the worker's event loop run between fuel slices, `setTimeout` for
//! sleeps. (Guests' tool calls go through the capability gate to [`crate::doors`].)

use sandtab_wasi::{BoxFuture, GuestHost, Platform};
use send_wrapper::SendWrapper;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: f64) -> JsValue;
}

/// The worker's platform for guests.
#[derive(Debug, Default)]
pub struct WebHost {
    /// The engine tier, when the sandbox chose it.
    engine: Option<crate::engine_tier::WebEngineTier>,
}

impl WebHost {
    pub fn new(engine_tier: bool) -> Self {
        Self {
            engine: engine_tier.then_some(crate::engine_tier::WebEngineTier),
        }
    }
}

impl Platform for WebHost {
    fn realtime_ns(&self) -> u64 {
        u64::try_from(sandtab_shell::replay::ms_to_nanos(
            crate::shell_sources::real_date_now(),
        ))
        .unwrap_or(0)
    }

    fn monotonic_ns(&self) -> u64 {
        u64::try_from(sandtab_shell::replay::ms_to_nanos(
            crate::shell_sources::real_now(),
        ))
        .unwrap_or(0)
    }

    fn random(&self, buf: &mut [u8]) -> Result<(), String> {
        crate::shell_sources::real_random(buf)
    }
}

impl GuestHost for WebHost {
    fn engine_tier(&self) -> Option<&dyn sandtab_wasi::foreign::EngineTier> {
        self.engine
            .as_ref()
            .map(|tier| tier as &dyn sandtab_wasi::foreign::EngineTier)
    }

    fn yield_now(&self) -> BoxFuture<'static, ()> {
        Box::pin(MacrotaskTick { posted: false })
    }

    fn sleep(&self, nanos: u64) -> BoxFuture<'static, ()> {
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            set_timeout(&resolve, nanos as f64 / 1e6);
        });
        let wait = SendWrapper::new(JsFuture::from(promise));
        Box::pin(async move {
            let _ = wait.await;
        })
    }
}

/// Ready after one macrotask: pending messages (a cancel) are delivered first.
struct MacrotaskTick {
    posted: bool,
}

impl Future for MacrotaskTick {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.posted {
            return Poll::Ready(());
        }
        self.posted = true;
        crate::yielding::wake_after_macrotask(cx.waker().clone());
        Poll::Pending
    }
}
