//! sandtab's browser binding: the one crate that talks to JavaScript.
//!
//! It exports [`Sandbox`] to the runtime's dedicated worker (see `web/src/worker.ts`),
//! which owns it and answers the page's messages. Everything else (filesystem, shell)
//! lives in platform-free crates.

mod options;
mod yielding;

pub use yielding::Yielding;

use js_sys::{Array, Object, Reflect, Uint8Array};
use sandtab_shell::{CancelHandle, ExecOutcome, Shell, Stream, WallClock};
use sandtab_vfs::{FileKind, MemFs, VfsPath};
use send_wrapper::SendWrapper;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// One sandbox: a filesystem and a shell session on it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Sandbox {
    // Shared with the future of a running exec; `exec` is the only mutable borrower.
    shell: Rc<RefCell<Shell>>,
    fs: Arc<MemFs>,
    cancel: CancelHandle,
}

#[wasm_bindgen]
impl Sandbox {
    /// `new Sandbox({ limits: {...}, quota: {...} })`: throws an `Error` naming the bad
    /// field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Sandbox, JsError> {
        let config = options::parse(&options).map_err(js_error)?;
        let fs = Arc::new(MemFs::with_quota(Arc::new(WallClock), config.quota));
        let shell = Shell::new(fs.clone(), config.limits).map_err(js_error)?;
        let cancel = shell.cancel_handle();
        Ok(Sandbox {
            shell: Rc::new(RefCell::new(shell)),
            fs,
            cancel,
        })
    }

    /// Runs `script`; resolves to `{ stdout, stderr, exitCode, stdoutTruncated,
    /// stderrTruncated }` with output as `Uint8Array`s. `onOutput(stream, bytes)` is
    /// called with each chunk as it is written (`stream` is `"stdout"` or `"stderr"`).
    /// Rejects only if another exec is still running in this sandbox.
    // Holding the `RefCell` borrow across the await is the point: it marks the shell busy
    // for the whole exec, and a second exec meanwhile gets a clear error from
    // `try_borrow_mut` instead of a panic. Nothing else borrows the shell.
    #[allow(clippy::await_holding_refcell_ref)]
    pub fn exec(&self, script: String, on_output: Option<js_sys::Function>) -> js_sys::Promise {
        let shell = self.shell.clone();
        wasm_bindgen_futures::future_to_promise(Yielding::new(async move {
            let mut shell = shell.try_borrow_mut().map_err(|_| {
                JsValue::from(JsError::new(
                    "sandbox is busy: another command is still running",
                ))
            })?;
            // The callback is only ever called on this thread; the wrapper satisfies the
            // shell's `Send` bound (it panics if touched from elsewhere, which cannot happen
            // on wasm32's single thread).
            let callback = SendWrapper::new(on_output);
            let mut forward = move |stream: Stream, chunk: &[u8]| {
                if let Some(callback) = callback.as_ref() {
                    let name = match stream {
                        Stream::Stdout => "stdout",
                        Stream::Stderr => "stderr",
                    };
                    // A throwing callback must not stop the command; the page sees its own
                    // exception in the console.
                    let _ = callback.call2(
                        &JsValue::NULL,
                        &JsValue::from_str(name),
                        &Uint8Array::from(chunk),
                    );
                }
            };
            let outcome = shell.exec_streaming(&script, &mut forward).await;
            Ok(outcome_to_js(&outcome))
        }))
    }

    /// Stops the running exec (it ends with exit status 130); files are kept.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Entries of a directory, sorted by name: `[{ name, kind, size }]`, where `kind` is
    /// `"file"`, `"dir"` or `"symlink"`.
    #[wasm_bindgen(js_name = listDir)]
    pub fn list_dir(&self, path: &str) -> Result<Array, JsError> {
        let path = VfsPath::parse(path).map_err(js_error)?;
        let entries = self.fs.read_dir(&path).map_err(js_error)?;
        let list = Array::new();
        for entry in entries {
            let kind = match entry.metadata.kind {
                FileKind::File => "file",
                FileKind::Directory => "dir",
                FileKind::Symlink => "symlink",
            };
            let object = Object::new();
            set(&object, "name", &JsValue::from_str(&entry.name));
            set(&object, "kind", &JsValue::from_str(kind));
            set(
                &object,
                "size",
                &JsValue::from_f64(entry.metadata.size as f64),
            );
            list.push(&object);
        }
        Ok(list)
    }

    /// The bytes of a file.
    #[wasm_bindgen(js_name = readFile)]
    pub fn read_file(&self, path: &str) -> Result<Uint8Array, JsError> {
        let path = VfsPath::parse(path).map_err(js_error)?;
        let data = self.fs.read(&path).map_err(js_error)?;
        Ok(Uint8Array::from(data.as_slice()))
    }

    /// Writes a file (its directory must exist), replacing what was there.
    #[wasm_bindgen(js_name = writeFile)]
    pub fn write_file(&self, path: &str, data: &[u8]) -> Result<(), JsError> {
        let path = VfsPath::parse(path).map_err(js_error)?;
        self.fs.write(&path, data).map_err(js_error)
    }
}

/// A Rust error as a JS `Error` with the same message.
fn js_error(err: impl std::fmt::Display) -> JsError {
    JsError::new(&err.to_string())
}

fn set(object: &Object, key: &str, value: &JsValue) {
    // Setting a data property on a fresh plain object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

fn outcome_to_js(outcome: &ExecOutcome) -> JsValue {
    let object = Object::new();
    set(
        &object,
        "stdout",
        &Uint8Array::from(outcome.stdout.as_slice()),
    );
    set(
        &object,
        "stderr",
        &Uint8Array::from(outcome.stderr.as_slice()),
    );
    set(&object, "exitCode", &JsValue::from(outcome.exit_code));
    set(
        &object,
        "stdoutTruncated",
        &JsValue::from_bool(outcome.stdout_truncated),
    );
    set(
        &object,
        "stderrTruncated",
        &JsValue::from_bool(outcome.stderr_truncated),
    );
    object.into()
}
