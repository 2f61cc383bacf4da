//! Running modules under wasmi: originals with wasmi's own fuel metering (configured
//! as sandtab's engine configures it), metered modules without it, their fuel kept by
//! the module's global and refilled by a host `out_of_fuel`.
#![allow(dead_code, clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

pub mod generate;

use sandtab_meter::{
    FUEL_EXPORT, FUEL_SET_EXPORT, METER_MODULE, MeterOptions, Metered, OUT_OF_FUEL, instrument,
};
use wasmi::{
    AsContextMut, Caller, Config, Engine, Extern, Func, Instance, Linker, Module, Store, Val,
};

/// The options the tests meter with: 1 GiB of memory, 100,000 table elements.
pub const OPTIONS: MeterOptions = MeterOptions {
    max_memory_pages: 16_384,
    max_table_elements: 100_000,
};

pub fn wat(source: &str) -> Vec<u8> {
    wat::parse_str(source).unwrap()
}

pub fn meter(bytes: &[u8]) -> Vec<u8> {
    let Metered { bytes } = instrument(bytes, &OPTIONS).unwrap();
    bytes
}

/// The host's side of a metered run.
#[derive(Debug, Default)]
pub struct Host {
    /// What `out_of_fuel` puts in the global.
    pub slice: i64,
    /// The call of `out_of_fuel` that traps instead (1-based), if any.
    pub trap_on: Option<u32>,
    /// How many times `out_of_fuel` was called.
    pub calls: u32,
    /// The fuel the refills granted (beyond what was left).
    pub granted: i64,
    /// Host functions the guests import from "env": `add1` and `log`.
    pub logged: Vec<i32>,
}

/// The outcome of one call.
#[derive(Debug)]
pub struct Outcome {
    pub results: Result<Vec<String>, String>,
    /// Fuel the call spent.
    pub spent: u64,
    pub out_of_fuel_calls: u32,
    pub logged: Vec<i32>,
}

fn env<T: 'static>(linker: &mut Linker<T>, log: fn(&mut T, i32)) {
    linker
        .func_wrap("env", "add1", |x: i32| x.wrapping_add(1))
        .unwrap();
    linker
        .func_wrap("env", "log", move |mut caller: Caller<'_, T>, x: i32| {
            log(caller.data_mut(), x)
        })
        .unwrap();
}

fn results_for(func: &wasmi::Func, store: &impl wasmi::AsContext) -> Vec<Val> {
    func.ty(store)
        .results()
        .iter()
        .map(|ty| Val::default_for_ty(*ty))
        .collect()
}

/// Results as text, to compare (a `Val` is not `PartialEq`).
fn values(results: &[Val]) -> Vec<String> {
    results.iter().map(|value| format!("{value:?}")).collect()
}

/// An engine configured like sandtab's (crates/wasi/src/engine.rs), with fuel.
pub fn fuel_engine() -> Engine {
    let mut config = Config::default();
    config
        .consume_fuel(true)
        .fuel_cost(wasmi::CustomFuelCosts {
            bytes_copied_per_fuel: 64,
            fuel_per_bytes_translated: 0,
            fuel_per_bytes_validated: 0,
        })
        .operator_cost(wasmi::OperatorCost {
            memory_grow: 255,
            table_grow: 255,
            ..wasmi::OperatorCost::default()
        });
    Engine::new(&config)
}

/// Calls `name` of the original module under wasmi's own fuel metering.
pub fn run_original(bytes: &[u8], name: &str, args: &[Val]) -> Outcome {
    let engine = fuel_engine();
    let module = Module::new(&engine, bytes).unwrap();
    let mut store = Store::new(&engine, Vec::<i32>::new());
    store.set_fuel(u64::MAX / 2).unwrap();
    let mut linker = Linker::new(&engine);
    env(&mut linker, |logged: &mut Vec<i32>, x| logged.push(x));
    let instance = linker.instantiate_and_start(&mut store, &module).unwrap();
    let func = instance.get_func(&store, name).unwrap();
    let mut results = results_for(&func, &store);
    let before = store.get_fuel().unwrap();
    let outcome = func.call(&mut store, args, &mut results);
    let spent = before - store.get_fuel().unwrap();
    Outcome {
        results: outcome
            .map(|()| values(&results))
            .map_err(|err| err.to_string()),
        spent,
        out_of_fuel_calls: 0,
        logged: store.data().clone(),
    }
}

/// Instantiates a metered module under wasmi without fuel; `out_of_fuel` refills.
pub fn instantiate_metered(bytes: &[u8], host: Host) -> (Store<Host>, Instance) {
    let engine = Engine::default();
    let module = Module::new(&engine, bytes).unwrap();
    let mut store = Store::new(&engine, host);
    let mut linker = Linker::new(&engine);
    env(&mut linker, |host: &mut Host, x| host.logged.push(x));
    linker
        .func_wrap(METER_MODULE, OUT_OF_FUEL, |mut caller: Caller<'_, Host>| {
            caller.data_mut().calls += 1;
            let host = caller.data();
            if host.trap_on == Some(host.calls) {
                return Err(wasmi::Error::new("out of fuel"));
            }
            let slice = host.slice;
            let (get, set) = accessors_of(|name| caller.get_export(name));
            let left = fuel_left(&mut caller, get);
            caller.data_mut().granted += slice - left;
            set_fuel(&mut caller, set, slice);
            Ok(())
        })
        .unwrap();
    let instance = linker.instantiate_and_start(&mut store, &module).unwrap();
    (store, instance)
}

/// Calls `name` of a metered module with `initial` fuel in the global.
pub fn run_metered(bytes: &[u8], name: &str, args: &[Val], initial: i64, host: Host) -> Outcome {
    let (mut store, instance) = instantiate_metered(bytes, host);
    let (get, set) = accessors(&store, &instance);
    set_fuel(&mut store, set, initial);
    store.data_mut().granted = 0;
    store.data_mut().calls = 0;
    let func = instance.get_func(&store, name).unwrap();
    let mut results = results_for(&func, &store);
    let outcome = func.call(&mut store, args, &mut results);
    let left = fuel_left(&mut store, get);
    let spent = initial + store.data().granted - left;
    Outcome {
        results: outcome
            .map(|()| values(&results))
            .map_err(|err| err.to_string()),
        spent: u64::try_from(spent).unwrap(),
        out_of_fuel_calls: store.data().calls,
        logged: store.data().logged.clone(),
    }
}

/// A metered module's fuel reader and setter, from `export` (an instance's or a
/// caller's exports).
pub fn accessors_of(mut export: impl FnMut(&str) -> Option<Extern>) -> (Func, Func) {
    let mut func = |name| export(name).and_then(Extern::into_func).expect(name);
    (func(FUEL_EXPORT), func(FUEL_SET_EXPORT))
}

/// `instance`'s fuel reader and setter.
pub fn accessors<T>(store: &Store<T>, instance: &Instance) -> (Func, Func) {
    accessors_of(|name| instance.get_export(store, name))
}

/// The fuel left, read through the module's reader.
pub fn fuel_left(ctx: impl AsContextMut, get: Func) -> i64 {
    let mut out = [Val::I64(0)];
    get.call(ctx, &[], &mut out).unwrap();
    match out {
        [Val::I64(left)] => left,
        other => panic!("the fuel reader gave {other:?}"),
    }
}

/// Sets the fuel through the module's setter.
pub fn set_fuel(ctx: impl AsContextMut, set: Func, fuel: i64) {
    set.call(ctx, &[Val::I64(fuel)], &mut []).unwrap();
}
