//! The engine tier in the worker: the browser's own engine runs a guest metered by
//! `sandtab-meter`, and every import comes back here (see `js/engine_tier.js`).
//!
//! A host call that completes at once answers synchronously. One that must wait, and
//! the end of each fuel slice, suspends the guest (JSPI): the JS side hands this run a
//! promise's `resolve`, the run awaits what the call needs with the command's I/O, then
//! resolves it and the guest goes on. Only this run touches its [`ForeignRun`], and
//! never while the guest runs, since the guest is suspended whenever the run awaits.

use futures::StreamExt;
use futures::channel::mpsc;
use futures::future::{self, Either};
use js_sys::{Uint8Array, WebAssembly};
use sandtab_wasi::foreign::{self, Ended, EngineTier, ForeignRun, HostCall, HostFunction, Import};
use sandtab_wasi::{
    BoxFuture, CompiledModule, GuestError, GuestIo, GuestLimits, GuestMemory, GuestRun, RunOutcome,
};
use send_wrapper::SendWrapper;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/js/engine_tier.js")]
extern "C" {
    #[wasm_bindgen(js_name = engineTierAvailable)]
    fn engine_tier_available() -> bool;
    #[wasm_bindgen(js_name = storedModule)]
    fn stored_module(revision: u32, key: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = compileAndStore)]
    fn compile_and_store(revision: u32, key: &str, bytes: &[u8]) -> js_sys::Promise;
    #[wasm_bindgen(catch)]
    fn instantiate(
        module: &WebAssembly::Module,
        host: &JsValue,
    ) -> Result<WebAssembly::Instance, JsValue>;
    #[wasm_bindgen(js_name = runExport)]
    fn run_export(instance: &WebAssembly::Instance, name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = fuelLeft)]
    fn fuel_left(instance: &WebAssembly::Instance, name: &str) -> f64;
    #[wasm_bindgen(js_name = setFuel)]
    fn set_fuel(instance: &WebAssembly::Instance, name: &str, fuel: f64);
    #[wasm_bindgen(js_name = refusedGrowth)]
    fn refused_growth(instance: &WebAssembly::Instance) -> i32;
    #[wasm_bindgen(js_name = guestMemory)]
    fn guest_memory(instance: &WebAssembly::Instance) -> Option<WebAssembly::Memory>;
}

/// Whether this browser can run the engine tier (it has JSPI).
pub fn available() -> bool {
    engine_tier_available()
}

/// The browser's engine as a guest tier.
#[derive(Debug, Default)]
pub struct WebEngineTier;

impl EngineTier for WebEngineTier {
    fn run<'a>(
        &'a self,
        source: &'a [u8],
        module: &'a CompiledModule,
        run: GuestRun,
        io: &'a mut dyn GuestIo,
    ) -> BoxFuture<'a, RunOutcome> {
        Box::pin(SendWrapper::new(run_guest(source, module, run, io)))
    }
}

async fn compiled(
    source: &[u8],
    module: &CompiledModule,
    limits: &GuestLimits,
) -> Result<WebAssembly::Module, GuestError> {
    // The limits are part of the rewrite: a module per set of them (kept by the page and
    // in Cache Storage, see js/engine_tier.js).
    let revision = sandtab_meter::REVISION;
    let key = format!(
        "{}:{}:{}",
        module.hash(),
        limits.memory_bytes / 65_536,
        limits.table_elements
    );
    let stored = JsFuture::from(stored_module(revision, &key)).await;
    if let Some(found) = stored.ok().and_then(|value| value.dyn_into().ok()) {
        return Ok(found);
    }
    let metered = foreign::metered_module(source, module, limits)?;
    match JsFuture::from(compile_and_store(revision, &key, &metered)).await {
        Ok(compiled) => Ok(compiled.unchecked_into()),
        Err(err) => Err(GuestError::Unsupported(format!(
            "the browser's engine refused it: {}",
            describe(&err)
        ))),
    }
}

/// What the guest's imports ask of the run while it is suspended.
enum Event {
    /// A host call waits; resolve with its result (or `null` to unwind).
    Wait(js_sys::Function),
    /// The fuel slice ran out; resolve to go on (or with `null` to unwind).
    OutOfFuel(js_sys::Function),
}

/// What the imports share with the run.
struct Shared {
    /// `None` while the run awaits on its behalf.
    foreign: Option<ForeignRun>,
    functions: Vec<HostFunction>,
    memory: Option<WebAssembly::Memory>,
    /// Why the guest was unwound, if the host unwound it.
    ended: Option<Ended>,
}

async fn run_guest(
    source: &[u8],
    module: &CompiledModule,
    run: GuestRun,
    io: &mut dyn GuestIo,
) -> RunOutcome {
    let program = run.args.first().cloned().unwrap_or_else(|| "guest".into());
    let limits = run.limits;
    // Checked first (limits, imports, declared sizes), as the interpreter checks them.
    let foreign = match ForeignRun::new(module, run) {
        Ok(foreign) => foreign,
        Err(err) => return foreign::refused(&program, err, io).await,
    };
    let compiled = match compiled(source, module, &limits).await {
        Ok(compiled) => compiled,
        Err(err) => return foreign::refused(&program, err, io).await,
    };
    let shared = Rc::new(RefCell::new(Shared {
        foreign: Some(foreign),
        functions: Vec::new(),
        memory: None,
        ended: None,
    }));
    let (events, mut next_event) = mpsc::unbounded::<Event>();
    let host = Host::new(&shared, events);
    let instance = match instantiate(&compiled, &host.object) {
        Ok(instance) => instance,
        Err(err) => {
            let foreign = shared.borrow_mut().foreign.take();
            let error =
                GuestError::Trap(format!("it could not be instantiated: {}", describe(&err)));
            return match foreign {
                Some(foreign) => foreign.finish(Ended::Stopped(error), 0, 0, io).await,
                None => foreign::refused(&program, error, io).await,
            };
        }
    };
    shared.borrow_mut().memory = guest_memory(&instance);
    let fuel = sandtab_meter::FUEL_EXPORT;
    if let Some(foreign) = shared.borrow_mut().foreign.as_mut() {
        set_fuel(
            &instance,
            sandtab_meter::FUEL_SET_EXPORT,
            foreign.first_fuel() as f64,
        );
    }
    let mut entries: Vec<String> = module
        .start_export()
        .map(str::to_owned)
        .into_iter()
        .collect();
    entries.push("_start".to_owned());
    let mut ended = Ended::Returned;
    for entry in entries {
        let mut done = JsFuture::from(run_export(&instance, &entry));
        let outcome = loop {
            match future::select(&mut done, next_event.next()).await {
                Either::Left((outcome, _)) => {
                    break outcome
                        .ok()
                        .and_then(|value| value.as_string())
                        .unwrap_or_default();
                }
                Either::Right((Some(event), _)) => serve(event, &shared, &instance, io).await,
                // The senders live in `host`, which outlives this loop.
                Either::Right((None, _)) => {}
            }
        };
        ended = match outcome.as_str() {
            "returned" => continue,
            "unwound" => shared
                .borrow_mut()
                .ended
                .take()
                .unwrap_or_else(|| Ended::Trap("unwound without a cause".into())),
            "stack" => Ended::StackExhausted,
            other => Ended::Trap(other.strip_prefix("trap: ").unwrap_or(other).to_owned()),
        };
        break;
    }
    let left = fuel_left(&instance, fuel) as i64;
    let refused = refused_growth(&instance);
    let foreign = shared.borrow_mut().foreign.take();
    drop(host);
    match foreign {
        Some(foreign) => foreign.finish(ended, left, refused, io).await,
        None => {
            foreign::refused(
                &program,
                GuestError::Trap("the run lost its state".into()),
                io,
            )
            .await
        }
    }
}

/// Serves one suspended import: waits for what it needs, then resumes the guest.
async fn serve(
    event: Event,
    shared: &Rc<RefCell<Shared>>,
    instance: &WebAssembly::Instance,
    io: &mut dyn GuestIo,
) {
    let (foreign, memory) = {
        let mut shared = shared.borrow_mut();
        (shared.foreign.take(), shared.memory.clone())
    };
    let Some(mut foreign) = foreign else {
        return;
    };
    let (resolve, answer) = match event {
        Event::Wait(resolve) => {
            let mut memory = JsMemory::new(memory.as_ref());
            let answer = match foreign.wait(&mut memory, io).await {
                HostCall::Return(value) => Ok(JsValue::from(value)),
                HostCall::Stop(err) => Err(Ended::Stopped(err)),
                HostCall::Wait => Err(Ended::Trap("a host call waited twice".into())),
            };
            (resolve, answer)
        }
        Event::OutOfFuel(resolve) => {
            let left = fuel_left(instance, sandtab_meter::FUEL_EXPORT) as i64;
            let answer = match foreign.out_of_fuel(left, io).await {
                Ok(fuel) => {
                    set_fuel(instance, sandtab_meter::FUEL_SET_EXPORT, fuel as f64);
                    Ok(JsValue::UNDEFINED)
                }
                Err(err) => Err(Ended::Stopped(err)),
            };
            (resolve, answer)
        }
    };
    let mut shared = shared.borrow_mut();
    shared.foreign = Some(foreign);
    let value = match answer {
        Ok(value) => value,
        Err(ended) => {
            shared.ended = Some(ended);
            JsValue::NULL
        }
    };
    drop(shared);
    let _ = resolve.call1(&JsValue::NULL, &value);
}

/// The `host` object the JS side links the guest's imports through; its closures live
/// as long as the run.
struct Host {
    object: JsValue,
    _closures: Vec<Box<dyn std::any::Any>>,
}

impl Host {
    fn new(shared: &Rc<RefCell<Shared>>, events: mpsc::UnboundedSender<Event>) -> Self {
        let object = js_sys::Object::new();
        let mut closures: Vec<Box<dyn std::any::Any>> = Vec::new();
        let set = |name: &str, value: &JsValue| {
            let _ = js_sys::Reflect::set(&object, &JsValue::from_str(name), value);
        };

        let linked = shared.clone();
        let link = Closure::<dyn FnMut(String, String) -> i32>::new(
            move |module: String, name: String| match foreign::import(&module, &name) {
                Some(Import::Host(function)) => {
                    let mut shared = linked.borrow_mut();
                    shared.functions.push(function);
                    i32::try_from(shared.functions.len() - 1).unwrap_or(-3)
                }
                Some(Import::Exit) => -1,
                Some(Import::OutOfFuel) => -2,
                None => -3,
            },
        );
        set("link", link.as_ref());
        closures.push(Box::new(link));

        let asked = shared.clone();
        let may_wait = Closure::<dyn FnMut(u32) -> bool>::new(move |id: u32| {
            asked
                .borrow()
                .functions
                .get(id as usize)
                .is_none_or(|function| function.may_wait())
        });
        set("mayWait", may_wait.as_ref());
        closures.push(Box::new(may_wait));

        let called = shared.clone();
        let call =
            Closure::<dyn FnMut(u32, Vec<i64>) -> JsValue>::new(move |id: u32, args: Vec<i64>| {
                let mut shared = called.borrow_mut();
                let shared = &mut *shared;
                let Some(function) = shared.functions.get(id as usize).copied() else {
                    shared.ended = Some(Ended::Trap(format!("no host function {id}")));
                    return JsValue::NULL;
                };
                let Some(foreign) = shared.foreign.as_mut() else {
                    shared.ended = Some(Ended::Trap("a host call while another waited".into()));
                    return JsValue::NULL;
                };
                let mut memory = JsMemory::new(shared.memory.as_ref());
                match foreign.call(function, &args, &mut memory) {
                    HostCall::Return(value) => JsValue::from(value),
                    HostCall::Wait => JsValue::UNDEFINED,
                    HostCall::Stop(err) => {
                        shared.ended = Some(Ended::Stopped(err));
                        JsValue::NULL
                    }
                }
            });
        set("call", call.as_ref());
        closures.push(Box::new(call));

        // `wait` and `outOfFuel`: a promise the run resolves once it has served the event.
        for (name, event) in [
            ("wait", Event::Wait as fn(js_sys::Function) -> Event),
            ("outOfFuel", Event::OutOfFuel),
        ] {
            let events = events.clone();
            let suspend = Closure::<dyn FnMut() -> js_sys::Promise>::new(move || {
                js_sys::Promise::new(&mut |resolve, _reject| {
                    let _ = events.unbounded_send(event(resolve));
                })
            });
            set(name, suspend.as_ref());
            closures.push(Box::new(suspend));
        }

        let exited = shared.clone();
        let exit = Closure::<dyn FnMut(i32)>::new(move |code: i32| {
            exited.borrow_mut().ended = Some(Ended::Exit(code));
        });
        set("exit", exit.as_ref());
        closures.push(Box::new(exit));

        Self {
            object: object.into(),
            _closures: closures,
        }
    }
}

/// The guest's `WebAssembly.Memory`, reached by copies (a view made per host call:
/// a growth replaces the buffer).
struct JsMemory {
    view: Option<Uint8Array>,
    len: usize,
}

impl JsMemory {
    fn new(memory: Option<&WebAssembly::Memory>) -> Self {
        let view = memory.map(|memory| Uint8Array::new(&memory.buffer()));
        let len = view.as_ref().map_or(0, |view| view.length() as usize);
        Self { view, len }
    }

    fn range(&self, offset: usize, len: usize) -> Option<(u32, u32)> {
        let end = offset.checked_add(len)?;
        if end > self.len {
            return None;
        }
        Some((u32::try_from(offset).ok()?, u32::try_from(end).ok()?))
    }
}

impl GuestMemory for JsMemory {
    fn len(&self) -> usize {
        self.len
    }

    fn read(&self, offset: usize, into: &mut [u8]) -> bool {
        match (&self.view, self.range(offset, into.len())) {
            (Some(view), Some((start, end))) => {
                view.subarray(start, end).copy_to(into);
                true
            }
            (_, Some(_)) if into.is_empty() => true,
            _ => false,
        }
    }

    fn write(&mut self, offset: usize, data: &[u8]) -> bool {
        match (&self.view, self.range(offset, data.len())) {
            (Some(view), Some((start, end))) => {
                view.subarray(start, end).copy_from(data);
                true
            }
            (_, Some(_)) if data.is_empty() => true,
            _ => false,
        }
    }
}

fn describe(err: &JsValue) -> String {
    err.dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .unwrap_or_else(|| format!("{err:?}"))
}
