//! The last words of a runtime that panics. On wasm32 a panic aborts (a trap that
//! nothing unwinds), so the runtime's state is left half-changed and the worker must
//! stop using it. The hook logs the panic (console_error_panic_hook) and hands its
//! message to the worker, which reports it to the page with `SANDBOX_CRASHED` for every
//! pending call and ends (see `web/src/worker.ts`).

use wasm_bindgen::JsValue;

/// The worker global the message is put on: read after the trap, when calling into
/// the broken module again is not safe.
pub const PANIC_GLOBAL: &str = "__sandtabPanic";

/// Installs the hook (once, at start).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // One line for the page: the message, then where.
        let payload = info.payload_as_str().unwrap_or("a panic without a message");
        let message = match info.location() {
            Some(at) => format!("{payload} (at {at})"),
            None => payload.to_owned(),
        };
        // Best effort: a hook that fails must not panic again.
        let _ = js_sys::Reflect::set(
            &js_sys::global(),
            &JsValue::from_str(PANIC_GLOBAL),
            &JsValue::from_str(&message),
        );
    }));
}

/// Test-only: makes the runtime panic with `message`. No known input makes it panic any
/// more, and the e2e test must still see what a panic does (its message reaching the
/// page, the worker ending itself and letting the Web Lock go). Compiled only with debug
/// assertions (`./dev build --quick`, which `./dev test --quick` tests); the release
/// build, the one published, has no such method.
#[cfg(debug_assertions)]
mod test_only {
    use crate::Sandbox;
    use wasm_bindgen::prelude::wasm_bindgen;

    #[wasm_bindgen]
    impl Sandbox {
        #[wasm_bindgen(js_name = debugPanic)]
        pub fn debug_panic(&self, message: &str) {
            panic!("{message}");
        }
    }
}
