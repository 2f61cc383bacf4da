//! sandtab's browser binding: the one crate that talks to JavaScript.
//!
//! It exports [`Sandbox`] to the runtime's dedicated worker (see `web/src/worker.ts`):
//! the platform-free `sandtab_runtime::Sandbox` over the browser's [`WebPlatform`]
//! (IndexedDB and OPFS stores, the page's doors, real clocks), answering the protocol's
//! ops converted with serde-wasm-bindgen.

mod convert;
mod crash;
mod doors;
pub mod engine_tier;
mod guest_host;
pub mod idb_store;
mod now_or_later;
pub mod opfs_store;
mod platform;
mod shell_sources;
mod yielding;

pub use yielding::Yielding;

use convert::{ArraySink, from_js, js_error, to_js};
use idb_store::IdbStore;
use js_sys::Uint8Array;
use platform::WebPlatform;
use sandtab_runtime::{Op, PROTOCOL_VERSION, Reply, RuntimeError, SandboxOptions};
use sandtab_shell::Stream;
use sandtab_vfs::storage::records::PACK_MAX_FILE;
use sandtab_vfs::{SandboxFs, VfsPath};
use send_wrapper::SendWrapper;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    crash::install_panic_hook();
}

/// This runtime's compiled `WebAssembly.Module`, which the page hands to the next worker
/// it starts so that worker instantiates it without compiling it again.
#[wasm_bindgen(js_name = compiledModule)]
pub fn compiled_module() -> JsValue {
    wasm_bindgen::module()
}

/// The protocol version this runtime speaks (`PROTOCOL_VERSION` in the generated types).
#[wasm_bindgen(js_name = protocolVersion)]
pub fn protocol_version() -> u32 {
    PROTOCOL_VERSION
}

/// One sandbox, as the worker holds it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Sandbox {
    inner: Rc<sandtab_runtime::Sandbox>,
    platform: Rc<WebPlatform>,
}

#[wasm_bindgen]
impl Sandbox {
    /// `Sandbox.open(options, doors)`: opens the sandbox `options` name (a
    /// `SandboxOptions` object), creating it if new, with the page's `doors`
    /// (`{ hostCall?, netFetch?, uiAction? }`). Rejects with an `Error` whose `code` is
    /// `EINVAL` for bad options, the errno name for storage errors.
    pub async fn open(options: JsValue, doors: JsValue) -> Result<Sandbox, JsValue> {
        let options: SandboxOptions = match options.is_undefined() || options.is_null() {
            true => SandboxOptions::default(),
            false => convert::options_from_js(&convert::replay_as_text(options)?, "options")?,
        };
        let doors = doors::WebDoors::from_js(&doors).map_err(js_error)?;
        let engine_tier = match options.guest_tier {
            None => engine_tier::available(),
            Some(sandtab_runtime::GuestTier::Interpreter) => false,
            Some(sandtab_runtime::GuestTier::Engine) if engine_tier::available() => true,
            Some(sandtab_runtime::GuestTier::Engine) => {
                return Err(js_error(RuntimeError::invalid(
                    "guestTier \"engine\" needs JSPI (WebAssembly.Suspending), which this browser lacks",
                )));
            }
        };
        let platform = Rc::new(WebPlatform::new(doors, engine_tier));
        let inner = sandtab_runtime::Sandbox::open(options, platform.clone())
            .await
            .map_err(js_error)?;
        Ok(Sandbox {
            inner: Rc::new(inner),
            platform,
        })
    }

    /// Deletes the stored sandbox `name` (its IndexedDB database). Close it first.
    #[wasm_bindgen(js_name = deleteStored)]
    pub async fn delete_stored(name: String) -> Result<(), JsValue> {
        IdbStore::delete(&name)
            .await
            .map_err(|err| js_error(err.into()))
    }

    /// Answers an op (`{ op: "exec", script, ... }`, see `Op` in the generated types)
    /// with its reply (`{ reply: "exec", ... }`): at once when the op never had to wait
    /// (most commands in memory), else a `Promise` of it. An exec's output goes to
    /// `onOutput(stream, bytes)` as it is written. An error is a rejected `Promise` of an
    /// `Error` whose `code` says why.
    pub fn run(&self, op: JsValue, on_output: Option<js_sys::Function>) -> JsValue {
        let inner = self.inner.clone();
        let platform = self.platform.clone();
        now_or_later::now_or_later(Yielding::new(async move {
            let op: Op = from_js(op, "op")?;
            if let Op::ReadFile { path } = &op {
                return read_file(&inner, &platform, path).await;
            }
            // The callback is only ever called on this thread; the wrapper satisfies the
            // shell's `Send` bound.
            let callback = SendWrapper::new(on_output);
            let mut forward = move |stream: Stream, chunk: &[u8]| {
                if let Some(callback) = callback.as_ref() {
                    let name = match stream {
                        Stream::Stdout => "stdout",
                        Stream::Stderr => "stderr",
                    };
                    // A throwing callback must not stop the command.
                    let _ = callback.call2(
                        &JsValue::NULL,
                        &JsValue::from_str(name),
                        &Uint8Array::from(chunk),
                    );
                }
            };
            let reply = inner.run(op, &mut forward).await.map_err(js_error)?;
            convert::reply_to_js(&reply)
        }))
        .into_js()
    }

    /// Answers a query (`listDir`, `usage`, `info`, `snapshots`, `auditLog`,
    /// `toolDefinitions`) at once, even while a command runs.
    pub fn query(&self, op: JsValue) -> Result<JsValue, JsValue> {
        let op: Op = from_js(op, "op")?;
        let reply = self.inner.query(&op).map_err(js_error)?;
        convert::reply_to_js(&reply)
    }

    /// Installs a WebAssembly (WASI) program as the commands `names`, for example
    /// CPython as `["python3", "python"]`. With `sha256` (hex), a module whose hash
    /// differs refuses to run. Compiling happens here; throws for a module that is not
    /// valid WebAssembly.
    #[wasm_bindgen(js_name = installProgram)]
    pub fn install_program(
        &self,
        names: Vec<String>,
        module: Vec<u8>,
        sha256: Option<String>,
    ) -> Result<(), JsValue> {
        self.inner
            .install_program(&names, module, sha256)
            .map_err(js_error)
    }

    /// Installs the program `names` before its module comes: the names are commands
    /// at once, and a command that runs one waits for `provideProgram` (see the
    /// runtime's `Sandbox::expect_program`).
    #[wasm_bindgen(js_name = expectProgram)]
    pub fn expect_program(
        &self,
        names: Vec<String>,
        sha256: Option<String>,
    ) -> Result<(), JsValue> {
        self.inner.expect_program(&names, sha256).map_err(js_error)
    }

    /// The module of the expected program `name` (its first name) has come: a command
    /// waiting for it goes on. Not compiled here (see `precompileProgram`).
    #[wasm_bindgen(js_name = provideProgram)]
    pub fn provide_program(&self, name: String, module: Vec<u8>) -> Result<(), JsValue> {
        self.inner.provide_program(&name, module).map_err(js_error)
    }

    /// Compiles the module of the expected program `name` ahead of its first use (the
    /// worker calls it when idle). Throws for a module that is not valid WebAssembly.
    #[wasm_bindgen(js_name = precompileProgram)]
    pub fn precompile_program(&self, name: String) -> Result<(), JsValue> {
        self.inner.precompile_program(&name).map_err(js_error)
    }

    /// The module of the expected program `name` will not come, because of `reason`.
    #[wasm_bindgen(js_name = programFailed)]
    pub fn program_failed(&self, name: String, reason: String) -> Result<(), JsValue> {
        self.inner.program_failed(&name, reason).map_err(js_error)
    }

    /// Whether a command is waiting for the expected program `name` now.
    #[wasm_bindgen(js_name = programWaitedFor)]
    pub fn program_waited_for(&self, name: String) -> Result<bool, JsValue> {
        self.inner.program_waited_for(&name).map_err(js_error)
    }

    /// Appends `data` to stdin stream `stream` (an exec's `stdinStream`), whether its
    /// exec runs, waits or has ended; throws past the bound of bytes not yet read.
    #[wasm_bindgen(js_name = writeStdin)]
    pub fn write_stdin(&self, stream: u32, data: Vec<u8>) -> Result<(), JsValue> {
        self.inner.write_stdin(stream, data).map_err(js_error)
    }

    /// Ends stdin stream `stream`: its reader sees end of file after the rest.
    #[wasm_bindgen(js_name = endStdin)]
    pub fn end_stdin(&self, stream: u32) {
        self.inner.end_stdin(stream);
    }

    /// Stops the running exec (it ends with exit status 130); files are kept.
    pub fn cancel(&self) {
        self.inner.cancel();
    }

    /// Stops the running exec because its own `timeoutMs` (`ms`) passed: it ends with
    /// exit status 126 and says so (the worker arms the timer when the exec starts).
    #[wasm_bindgen(js_name = timeOut)]
    pub fn time_out(&self, ms: f64) {
        self.inner.time_out(ms as u64);
    }

    /// As Ctrl-C in a terminal: interrupts a program waiting for typed input that takes
    /// interrupts, or else cancels the running exec. True if it was interrupted.
    pub fn interrupt(&self) -> bool {
        self.inner.interrupt()
    }
}

/// `readFile` straight from storage into one JS array: a file not yet loaded is neither
/// loaded into the runtime's memory nor copied twice; a large one in the OPFS log is
/// read in one run.
async fn read_file(
    sandbox: &sandtab_runtime::Sandbox,
    platform: &WebPlatform,
    path: &str,
) -> Result<JsValue, JsValue> {
    let fail = |err: sandtab_vfs::VfsError| js_error(RuntimeError::from(err));
    let path = VfsPath::parse(path).map_err(fail)?;
    let fs = sandbox.fs();
    let opfs = platform.opfs.borrow().clone();
    let data = match (&opfs, fs.stored_location(&path)) {
        (Some(opfs), Some(stored)) if stored.offset == 0 && stored.size > PACK_MAX_FILE as u64 => {
            opfs.read_blob(stored.blob, stored.size)
                .map_err(|err| fail(SandboxFs::read_failed(&path, &err)))?
                .into()
        }
        _ => {
            let mut sink = ArraySink::default();
            fs.read_into(&path, &mut sink).await.map_err(fail)?;
            sink.into_array()
        }
    };
    let reply = to_js(&Reply::Done)?;
    convert::set(&reply, "reply", &JsValue::from_str("bytes"));
    convert::set(&reply, "data", &data);
    Ok(reply)
}
