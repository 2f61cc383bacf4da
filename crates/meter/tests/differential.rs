//! wasm-smith modules run both ways under wasmi: the original with wasmi's fuel, the
//! metered one with the meter's. Every export that finishes within wasmi's budget
//! must give the same results metered, for fuel close to wasmi's.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

mod support;

use sandtab_meter::{METER_MODULE, MeterOptions, OUT_OF_FUEL, instrument};
use support::{accessors, accessors_of, fuel_engine, fuel_left, generate::smith, set_fuel};
use wasmi::TrapCode;
use wasmi::{
    Caller, Engine, Instance, Linker, Module, Store, StoreLimits, StoreLimitsBuilder, Val,
};

const OPTIONS: MeterOptions = MeterOptions {
    max_memory_pages: 12,
    max_table_elements: 1_000,
};

/// wasmi's fuel for the original's exports, together.
const BUDGET: u64 = 2_000_000;

struct State {
    limits: StoreLimits,
    /// Metered only: whether `out_of_fuel` traps (after instantiation) or refills.
    trap: bool,
}

fn limits() -> StoreLimits {
    StoreLimitsBuilder::new()
        .memory_size(12 << 16)
        .table_elements(1_000)
        .build()
}

fn linker(engine: &Engine, store: &mut Store<State>) -> Linker<State> {
    let mut linker = Linker::new(engine);
    linker.func_wrap("env", "f0", || {}).unwrap();
    linker
        .func_wrap("env", "f1", |x: i32| x.wrapping_add(1))
        .unwrap();
    linker.func_wrap("env", "f2", |_: i64, _: i32| {}).unwrap();
    let global = wasmi::Global::new(&mut *store, Val::I32(0), wasmi::Mutability::Var);
    linker.define("env", "g", global).unwrap();
    let ty = wasmi::TableType::new(wasmi::RefType::Func, 1, Some(10));
    let table = wasmi::Table::new(&mut *store, ty, wasmi::Ref::null(wasmi::RefType::Func)).unwrap();
    linker.define("env", "t", table).unwrap();
    linker
        .func_wrap(
            METER_MODULE,
            OUT_OF_FUEL,
            |mut caller: Caller<'_, State>| {
                if caller.data().trap {
                    return Err(wasmi::Error::new("metered: out of fuel"));
                }
                let (_, set) = accessors_of(|name| caller.get_export(name));
                set_fuel(&mut caller, set, i64::MAX / 2);
                Ok(())
            },
        )
        .unwrap();
    linker
}

fn instantiate(engine: &Engine, bytes: &[u8], fuel: bool) -> Option<(Store<State>, Instance)> {
    let module = Module::new(engine, bytes).unwrap();
    let state = State {
        limits: limits(),
        trap: false,
    };
    let mut store = Store::new(engine, state);
    store.limiter(|state| &mut state.limits);
    if fuel {
        store.set_fuel(BUDGET).unwrap();
    }
    let linker = linker(engine, &mut store);
    let instance = linker.instantiate_and_start(&mut store, &module).ok()?;
    Some((store, instance))
}

fn exports(module: &Module) -> Vec<String> {
    module
        .exports()
        .filter(|export| export.ty().func().is_some())
        .map(|export| export.name().to_owned())
        .collect()
}

/// Calls `name` with zeroes: its results as text, or `None` if it trapped.
fn call(
    store: &mut Store<State>,
    instance: &Instance,
    name: &str,
) -> Result<Vec<String>, wasmi::Error> {
    let func = instance.get_func(&*store, name).unwrap();
    let ty = func.ty(&*store);
    let args: Vec<Val> = ty
        .params()
        .iter()
        .map(|ty| Val::default_for_ty(*ty))
        .collect();
    let mut results: Vec<Val> = ty
        .results()
        .iter()
        .map(|ty| Val::default_for_ty(*ty))
        .collect();
    func.call(&mut *store, &args, &mut results)?;
    Ok(results.iter().map(|value| format!("{value:?}")).collect())
}

#[test]
fn metered_smith_modules_behave_like_the_originals() {
    let (mut compared, mut wasmi_fuel, mut metered_fuel) = (0u32, 0u64, 0u64);
    let mut worst = (f64::MAX, f64::MIN);
    let mut most_over = 0i64;
    for seed in 0..300 {
        let Some(original) = smith(seed) else {
            continue;
        };
        let Ok(metered) = instrument(&original, &OPTIONS) else {
            continue;
        };
        let fuel_engine = fuel_engine();
        let Some((mut store, instance)) = instantiate(&fuel_engine, &original, true) else {
            continue;
        };
        let plain = Engine::default();
        let (mut mstore, minstance) =
            instantiate(&plain, &metered.bytes, false).expect("the metered module instantiates");
        mstore.data_mut().trap = true;
        let (get, set) = accessors(&mstore, &minstance);
        let names = exports(&Module::new(&fuel_engine, &original[..]).unwrap());
        for name in names {
            let before = store.get_fuel().unwrap();
            let expected = call(&mut store, &instance, &name);
            let spent = before - store.get_fuel().unwrap();
            if let Err(err) = &expected
                && err.as_trap_code() == Some(TrapCode::OutOfFuel)
            {
                break; // the rest would run on a different state
            }
            set_fuel(&mut mstore, set, 1 << 40);
            let got = call(&mut mstore, &minstance, &name);
            let left = fuel_left(&mut mstore, get);
            let mspent = (1u64 << 40) - left as u64;
            match (&expected, &got) {
                (Ok(expected), Ok(got)) => assert_eq!(got, expected, "seed {seed} `{name}`"),
                (Err(expected), Err(got)) => assert_eq!(
                    expected.as_trap_code(),
                    got.as_trap_code(),
                    "seed {seed} `{name}`: {expected} / {got}"
                ),
                _ => panic!("seed {seed} `{name}`: {expected:?} / {got:?}"),
            }
            compared += 1;
            wasmi_fuel += spent;
            metered_fuel += mspent;
            if std::env::var_os("METER_DEBUG").is_some() {
                println!("seed {seed} `{name}`: wasmi {spent}, metered {mspent}, {expected:?}");
            }
            most_over = most_over.max(mspent as i64 - spent as i64);
            if spent >= 1_000 {
                let ratio = mspent as f64 / spent as f64;
                worst = (worst.0.min(ratio), worst.1.max(ratio));
            }
        }
    }
    let ratio = metered_fuel as f64 / wasmi_fuel as f64;
    println!(
        "{compared} calls compared: wasmi {wasmi_fuel} fuel, metered {metered_fuel} ({ratio:.3}); \
         per call of 1,000+ fuel, ratios {:.3}..{:.3}; most over wasmi: {most_over}",
        worst.0, worst.1
    );
    assert!(compared >= 60, "only {compared} calls compared");
    // The meter charges wasmi's fuel frames, dead code included. It can charge less where
    // wasmi folds a constant condition (its `if` then opens no frame of its own, and a
    // skipped arm is charged to the enclosing one); only a bulk operation that traps out
    // of bounds could cost the meter more.
    assert_eq!(most_over, 0, "the meter charged more than wasmi");
    assert!(ratio > 0.99, "the meter charged {ratio:.3} of wasmi's fuel");
}
