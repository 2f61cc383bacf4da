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
        // Best effort: a hook that fails must not panic again.
        let _ = js_sys::Reflect::set(
            &js_sys::global(),
            &JsValue::from_str(PANIC_GLOBAL),
            &JsValue::from_str(&info.to_string()),
        );
    }));
}
