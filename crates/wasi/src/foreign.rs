//! The host side of a guest that another engine runs: the engine tier.
//!
//! In the browser the page's own WebAssembly engine can run a guest far faster than
//! wasmi, but it counts no fuel and knows nothing of sandtab. So the module is rewritten
//! first ([`metered_module`]: its start function exported, as for wasmi, then metered by
//! `sandtab-meter`), and the engine calls back into a [`ForeignRun`] for everything
//! else: each WASI function ([`ForeignRun::call`]), the end of a fuel slice
//! ([`ForeignRun::out_of_fuel`]) and the end of the run ([`ForeignRun::finish`]).
//!
//! The WASI functions are the interpreter's, on the same [`WasiCtx`], through a
//! [`GuestMemory`] that copies; a call that must wait ([`HostCall::Wait`]) is finished
//! by [`ForeignRun::wait`] while the engine holds the guest suspended (JSPI in the
//! browser). Fuel is counted in the interpreter's units, so a limit means the same on
//! both tiers (see `sandtab-meter` for where they can differ).

use crate::engine::CompiledModule;
use crate::io::{BoxFuture, GuestIo};
use crate::preview1::{self, Fail, HostFn, Mem, Pending, Retried, WasiCtx};
use crate::run::{Runner, check_declared_sizes, check_imports, flush_wasi, stopped, wasi_ctx};
use crate::start_export::export_start;
use crate::{GuestError, GuestLimits, GuestMemory, GuestRun, Limit, RunOutcome};

/// An engine that runs guests instead of the interpreter (the browser's own, with
/// JSPI): it rewrites `source` with [`metered_module`] and serves it a [`ForeignRun`].
pub trait EngineTier: Send + Sync {
    /// Runs `module` (compiled from `source`) as the interpreter's [`crate::run`] would.
    fn run<'a>(
        &'a self,
        source: &'a [u8],
        module: &'a CompiledModule,
        run: GuestRun,
        io: &'a mut dyn GuestIo,
    ) -> BoxFuture<'a, RunOutcome>;
}

/// The outcome of a run that could not start, explained on the guest's stderr as the
/// interpreter explains it.
pub async fn refused(program: &str, error: GuestError, io: &mut dyn GuestIo) -> RunOutcome {
    let message = format!("sandtab: {program}: {error}\n");
    let _ = io
        .write(crate::OutStream::Stderr, message.into_bytes())
        .await;
    RunOutcome {
        exit_code: error.exit_status(),
        error: Some(error),
        fuel_used: 0,
    }
}

/// Bytes of one 64 KiB page.
const PAGE: u64 = 65_536;

/// `source` as the engine tier runs it under `limits`: the start function (if any)
/// exported as the interpreter's is (so it runs under fuel, when the host calls it),
/// then fuel-metered, with memory and table maximums clamped to the limits.
pub fn metered_module(
    source: &[u8],
    module: &CompiledModule,
    limits: &GuestLimits,
) -> Result<Vec<u8>, GuestError> {
    let started;
    let bytes = match module.start {
        Some(_) => {
            started = export_start(source, &module.facts).ok_or_else(|| {
                GuestError::Unsupported("its start function could not be exported".into())
            })?;
            &started.0[..]
        }
        None => source,
    };
    let options = sandtab_meter::MeterOptions {
        max_memory_pages: limits.memory_bytes / PAGE,
        max_table_elements: limits.table_elements,
    };
    match sandtab_meter::instrument(bytes, &options) {
        Ok(metered) => Ok(metered.bytes),
        Err(err) => Err(GuestError::Unsupported(format!(
            "it could not be metered for the engine tier: {err}"
        ))),
    }
}

/// What the engine links an import of the metered module to.
#[derive(Debug, Clone, Copy)]
pub enum Import {
    /// A WASI (or `sandtab`) function: call [`ForeignRun::call`] with it.
    Host(HostFunction),
    /// `proc_exit`: the run ends with the status the guest passed.
    Exit,
    /// The meter's `out_of_fuel`: call [`ForeignRun::out_of_fuel`].
    OutOfFuel,
}

/// A host function, as [`ForeignRun::call`] takes it.
#[derive(Clone, Copy)]
pub struct HostFunction {
    call: HostFn,
    name: &'static str,
    may_wait: bool,
}

impl HostFunction {
    /// Whether a call can answer [`HostCall::Wait`]. One that cannot may be linked
    /// without a way to suspend the guest; should it need to wait all the same, the
    /// call stops the guest with an error rather than answer `Wait`.
    pub fn may_wait(&self) -> bool {
        self.may_wait
    }
}

impl std::fmt::Debug for HostFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostFunction")
            .field("name", &self.name)
            .field("may_wait", &self.may_wait)
            .finish()
    }
}

/// What the host gives the engine for `module.name`, if it provides it.
pub fn import(module: &str, name: &str) -> Option<Import> {
    if module == sandtab_meter::METER_MODULE && name == sandtab_meter::OUT_OF_FUEL {
        return Some(Import::OutOfFuel);
    }
    if module == "wasi_snapshot_preview1" && name == "proc_exit" {
        return Some(Import::Exit);
    }
    let (call, name) = preview1::host_fn(module, name)?;
    Some(Import::Host(HostFunction {
        call,
        name,
        may_wait: preview1::may_wait(module, name),
    }))
}

/// How a host function call went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostCall {
    /// The guest goes on with this result (an errno).
    Return(i32),
    /// The call must wait: suspend the guest and finish it with [`ForeignRun::wait`].
    Wait,
    /// The guest must stop: unwind it and pass this to [`ForeignRun::finish`].
    Stop(GuestError),
}

/// How the engine's call of the guest ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// `_start` returned.
    Returned,
    /// The guest called `proc_exit`.
    Exit(i32),
    /// The host stopped it ([`HostCall::Stop`], or an error from `out_of_fuel`).
    Stopped(GuestError),
    /// The engine's stack ran out (deep recursion).
    StackExhausted,
    /// It trapped; the engine's message.
    Trap(String),
}

/// The host side of one guest run on the engine tier.
pub struct ForeignRun {
    runner: Runner,
    wasi: WasiCtx,
    pending: Option<Pending>,
    program: String,
    /// What the fuel global held when the host last set it.
    given: i64,
}

impl std::fmt::Debug for ForeignRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForeignRun")
            .field("program", &self.program)
            .field("fuel_used", &self.runner.fuel_used)
            .finish_non_exhaustive()
    }
}

impl ForeignRun {
    /// A run of `module` (checked as the interpreter checks it: limits, imports,
    /// declared sizes).
    pub fn new(module: &CompiledModule, run: GuestRun) -> Result<Self, GuestError> {
        run.limits.validate()?;
        check_imports(module)?;
        check_declared_sizes(module, &run.limits)?;
        // As the interpreter's limiter counts them: memories and tables each against
        // `instances` (this module's own; it imports neither).
        let facts = &module.facts;
        if u64::from(facts.memories.max(facts.tables)) > run.limits.instances {
            return Err(GuestError::Limit(Limit::Instances(run.limits.instances)));
        }
        let program = run
            .args
            .first()
            .cloned()
            .unwrap_or_else(|| "guest".to_owned());
        Ok(Self {
            runner: Runner::new(run.platform.clone(), run.limits),
            wasi: wasi_ctx(&run),
            pending: None,
            program,
            given: 0,
        })
    }

    /// The fuel to put in the guest's fuel global before it starts.
    pub fn first_fuel(&mut self) -> i64 {
        self.refill()
    }

    /// Calls a host function with the guest's arguments (each widened to `i64`).
    pub fn call(
        &mut self,
        function: HostFunction,
        args: &[i64],
        memory: &mut dyn GuestMemory,
    ) -> HostCall {
        let call = function.call;
        match call(&mut Mem::new(memory), &mut self.wasi, args) {
            Ok(()) => HostCall::Return(0),
            Err(Fail::Errno(errno)) if errno == wasi::ERRNO_FAULT => {
                HostCall::Stop(GuestError::Trap(
                    "a host call was given a pointer outside the guest's memory".into(),
                ))
            }
            Err(Fail::Errno(errno)) => HostCall::Return(i32::from(errno.raw())),
            Err(Fail::Trap(message)) => HostCall::Stop(GuestError::Trap(message)),
            Err(Fail::Stop(stop)) => HostCall::Stop(stopped(stop)),
            Err(Fail::Block(block)) if !function.may_wait => {
                HostCall::Stop(GuestError::Trap(format!(
                    "sandtab: `{}` had to wait ({block:?}), which it never should",
                    function.name
                )))
            }
            Err(Fail::Block(block)) => {
                let args = args.to_vec();
                self.pending = Some(Pending {
                    block,
                    operation: Box::new(move |memory, ctx| call(memory, ctx, &args)),
                });
                HostCall::Wait
            }
        }
    }

    /// Finishes the call that answered [`HostCall::Wait`]: waits for what it needs
    /// (storage, stdin, the reader of stdout, a sleep, a host call), then runs it
    /// again; `memory` is the guest's, still suspended. Never [`HostCall::Wait`].
    pub async fn wait(&mut self, memory: &mut dyn GuestMemory, io: &mut dyn GuestIo) -> HostCall {
        let Some(mut pending) = self.pending.take() else {
            return HostCall::Stop(GuestError::Trap(
                "a host call waited without saying on what".into(),
            ));
        };
        loop {
            // A load that leaves the same contents unloaded would wait forever: EIO.
            let loaded = match &pending.block {
                preview1::Block::Load { path, .. } => Some(path.clone()),
                _ => None,
            };
            if let Err(err) = self.runner.resolve(pending.block, &mut self.wasi, io).await {
                return HostCall::Stop(err);
            }
            if let Err(err) = self.runner.check_time_and_cancel(io) {
                return HostCall::Stop(err);
            }
            match preview1::retry(&mut Mem::new(memory), &mut self.wasi, pending.operation) {
                Retried::Done(errno) => return HostCall::Return(i32::from(errno.raw())),
                Retried::Blocked(preview1::Block::Load { path, .. }, _)
                    if loaded.as_ref() == Some(&path) =>
                {
                    return HostCall::Return(i32::from(wasi::ERRNO_IO.raw()));
                }
                Retried::Blocked(block, operation) => {
                    io.yield_now().await;
                    pending = Pending { block, operation };
                }
                Retried::Stop(stop) => return HostCall::Stop(stopped(stop)),
                Retried::Trap(message) => return HostCall::Stop(GuestError::Trap(message)),
            }
        }
    }

    /// The guest's fuel global fell below zero (it holds `left`): counts what the slice
    /// used, lets the event loop run (output delivered, cancel and deadline checked),
    /// and gives the fuel for the next slice; an error stops the guest.
    pub async fn out_of_fuel(
        &mut self,
        left: i64,
        io: &mut dyn GuestIo,
    ) -> Result<i64, GuestError> {
        self.count(left);
        let limit = self.runner.limits.fuel;
        if self.runner.fuel_used >= limit {
            return Err(GuestError::Limit(Limit::Fuel(limit)));
        }
        self.runner.between_slices(&mut self.wasi, io).await?;
        Ok(self.refill())
    }

    /// How the run ended, once the engine's call is over: output delivered, errors
    /// explained on stderr as the interpreter explains them. `left` is the fuel global's
    /// value, `refused` the refused-growth global's (`sandtab_meter::GROW_REFUSED_EXPORT`).
    pub async fn finish(
        mut self,
        ended: Ended,
        left: i64,
        refused_growth: i32,
        io: &mut dyn GuestIo,
    ) -> RunOutcome {
        self.count(left);
        let limits = self.runner.limits;
        // As the interpreter reports it: a guest that failed after a growth was
        // refused failed because of the limit.
        let limit_hit = match refused_growth {
            sandtab_meter::REFUSED_MEMORY => Some(Limit::Memory(limits.memory_bytes)),
            sandtab_meter::REFUSED_TABLE => Some(Limit::Table(limits.table_elements)),
            _ => None,
        };
        // The meter checks the fuel at function entries and loop headers only: a guest
        // that overdrew its budget after the last check (growths on the way back up
        // from a recursion) broke the limit all the same, as the interpreter finds.
        let overdrawn = self.runner.fuel_used > limits.fuel;
        let result = match (ended, limit_hit) {
            (Ended::Stopped(err), _) => Err(err),
            _ if overdrawn => Err(GuestError::Limit(Limit::Fuel(limits.fuel))),
            (Ended::Returned, _) => Ok(0),
            (Ended::Exit(code), Some(limit)) if code != 0 => Err(GuestError::Limit(limit)),
            (Ended::Exit(code), _) => Ok(code),
            (Ended::StackExhausted, _) => Err(GuestError::Limit(Limit::EngineStack)),
            (Ended::Trap(_), Some(limit)) => Err(GuestError::Limit(limit)),
            (Ended::Trap(message), _) => Err(GuestError::Trap(message)),
        };
        let flushed = flush_wasi(&mut self.wasi, io).await;
        let result = match (result, flushed) {
            (Ok(code), Ok(())) => Ok(code),
            (Ok(_), Err(err)) | (Err(err), _) => Err(err),
        };
        let fuel_used = self.runner.fuel_used;
        match result {
            Ok(exit_code) => RunOutcome {
                exit_code,
                error: None,
                fuel_used,
            },
            Err(error) => RunOutcome {
                fuel_used,
                ..refused(&self.program, error, io).await
            },
        }
    }

    /// Adds the fuel spent since the global was last set (it may have overdrawn).
    fn count(&mut self, left: i64) {
        let spent = self.given.saturating_sub(left).max(0);
        self.runner.fuel_used = self.runner.fuel_used.saturating_add(spent.unsigned_abs());
        self.given = left;
    }

    /// Sets the next slice's fuel: the adapted slice, at most what the budget has left.
    fn refill(&mut self) -> i64 {
        let left = self
            .runner
            .limits
            .fuel
            .saturating_sub(self.runner.fuel_used);
        let fuel = self.runner.slice.min(left).max(1);
        self.runner.slice_started_ns = self.runner.platform.monotonic_ns();
        self.given = i64::try_from(fuel).unwrap_or(i64::MAX);
        self.given
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

    use super::*;
    use crate::{ClockMode, GuestEngine, NativeHost, RandomMode};
    use sandtab_vfs::{ManualClock, Quota, SandboxFs, Timestamp};
    use std::sync::Arc;

    fn host(name: &str) -> HostFunction {
        match import("wasi_snapshot_preview1", name) {
            Some(Import::Host(function)) => function,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn foreign_run() -> ForeignRun {
        let wasm =
            wat::parse_str(r#"(module (memory (export "memory") 1) (func (export "_start")))"#);
        let module = GuestEngine::new(100).compile(&wasm.unwrap(), None).unwrap();
        let clock = Arc::new(ManualClock::new(Timestamp(1_700_000_000_000_000_000)));
        let fs = Arc::new(SandboxFs::in_memory(clock, Quota::UNLIMITED, Vec::new()).unwrap());
        let run = GuestRun {
            args: vec!["t".into()],
            env: Vec::new(),
            fs,
            preopens: Vec::new(),
            limits: GuestLimits::default(),
            clock: ClockMode::Real,
            random: RandomMode::Real,
            platform: Arc::new(NativeHost::default()),
            observed: None,
            stdin_terminal: false,
        };
        ForeignRun::new(&module, run).unwrap()
    }

    /// A guest memory of plain bytes.
    struct Bytes<'a>(&'a mut [u8]);

    impl GuestMemory for Bytes<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn read(&self, offset: usize, into: &mut [u8]) -> bool {
            self.0.read(offset, into)
        }
        fn write(&mut self, offset: usize, from: &[u8]) -> bool {
            self.0.write(offset, from)
        }
    }

    #[test]
    fn the_functions_that_can_wait_are_marked() {
        for name in [
            "fd_read",
            "fd_write",
            "fd_pwrite",
            "path_open",
            "poll_oneoff",
            "sched_yield",
        ] {
            assert!(host(name).may_wait(), "{name}");
        }
        for name in [
            "clock_time_get",
            "environ_get",
            "fd_seek",
            "path_filestat_get",
            "random_get",
        ] {
            assert!(!host(name).may_wait(), "{name}");
        }
        match import("sandtab", "tool_call") {
            Some(Import::Host(function)) => assert!(function.may_wait()),
            other => panic!("tool_call: {other:?}"),
        }
    }

    #[test]
    fn a_wait_where_none_was_expected_stops_the_guest() {
        let mut run = foreign_run();
        let mut memory = [0u8; 64];
        let mut memory = Bytes(&mut memory);
        // `sched_yield` always waits for the event loop: as it is linked, it says so ...
        assert_eq!(
            run.call(host("sched_yield"), &[], &mut memory),
            HostCall::Wait
        );
        // ... and linked as if it never waited, it stops the guest instead of hanging it.
        let never = HostFunction {
            may_wait: false,
            ..host("sched_yield")
        };
        match run.call(never, &[], &mut memory) {
            HostCall::Stop(GuestError::Trap(message)) => {
                assert!(message.contains("`sched_yield` had to wait"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
