//! Running a WASI command: `_start` in fuel slices, with every wait awaited.

use crate::engine::{CompiledModule, GuestEngine};
use crate::io::{GuestIo, OutStream, Platform};
use crate::limiter::Limiter;
use crate::preview1::{self, Block, Blocked, Pending, Retried, Stop, WasiCtx};
use crate::{GuestError, GuestLimits, Limit};
use sandtab_vfs::{SandboxFs, VfsPath};
use std::sync::Arc;
use wasmi::{ResumableCall, Store, Val};

/// The guest's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockMode {
    /// The platform's clocks.
    #[default]
    Real,
    /// A deterministic clock: starts at `start_ns` (since the epoch), advances one
    /// microsecond per reading, and a sleep advances it without waiting.
    Virtual {
        /// Wall-clock time at the start of the run.
        start_ns: u64,
    },
}

/// The guest's randomness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RandomMode {
    /// The platform's secure random source.
    #[default]
    Real,
    /// A reproducible sequence from this seed (not for secrets).
    Seeded(u64),
}

/// One run of a command module.
pub struct GuestRun {
    /// `argv`, the program's name first.
    pub args: Vec<String>,
    /// Environment variables, in order.
    pub env: Vec<(String, String)>,
    /// The sandbox's files.
    pub fs: Arc<SandboxFs>,
    /// Preopened directories: (name the guest sees, sandbox path). Read-only mounts stay
    /// read-only through the VFS.
    pub preopens: Vec<(String, VfsPath)>,
    /// The limits of this run.
    pub limits: GuestLimits,
    /// Real or virtual clocks.
    pub clock: ClockMode,
    /// Real or seeded randomness.
    pub random: RandomMode,
    /// Time and randomness from the platform; it also paces the run (fuel slices,
    /// the deadline).
    pub platform: Arc<dyn Platform>,
    /// The time and randomness the guest observes when they are not the platform's
    /// (a recording or a replay of the sandbox); `None`: the platform's.
    pub observed: Option<Arc<dyn Platform>>,
    /// Standard input is a terminal (the guest's `isatty(0)` is true, so CPython, say,
    /// starts its interactive prompt), as wasmtime reports a terminal's stdin.
    pub stdin_terminal: bool,
}

impl std::fmt::Debug for GuestRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuestRun")
            .field("args", &self.args)
            .field("preopens", &self.preopens)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl GuestRun {
    /// The usual preopens, chosen for how wasi-libc picks one: it matches a path
    /// against the preopen names by longest prefix, and `/` and `.` both count as the
    /// empty prefix (a tie the one announced last wins). So: `/`, then every directory
    /// at the top of the tree and every mount under its own absolute name (absolute
    /// paths match those), then the working directory as `.`, which takes every other
    /// path, relative ones included. The price: a relative path whose first name is
    /// also a top-level directory (`tmp/x` while in `/home/agent`) means the absolute
    /// one, and a file directly in `/` is reached relative to the working directory.
    pub fn default_preopens(fs: &SandboxFs, cwd: &VfsPath) -> Vec<(String, VfsPath)> {
        let mut preopens = vec![("/".to_owned(), VfsPath::root())];
        if !cwd.is_root() {
            let mut named: Vec<VfsPath> = fs
                .mem()
                .read_dir(&VfsPath::root())
                .unwrap_or_default()
                .into_iter()
                .filter(|entry| {
                    VfsPath::root()
                        .join(&entry.name)
                        .ok()
                        .and_then(|path| fs.mem().stat(&path).ok())
                        .is_some_and(|meta| meta.kind == sandtab_vfs::FileKind::Directory)
                })
                .filter_map(|entry| VfsPath::root().join(&entry.name).ok())
                .collect();
            named.extend(fs.mount_paths().filter(|path| !path.is_root()).cloned());
            // The device files (`/dev/sandtab/NAME`) are reached through `/dev`,
            // whether or not the sandbox has such a directory.
            named.extend(VfsPath::parse(crate::preview1::DEVICE_PARENT).ok());
            named.sort();
            named.dedup();
            preopens.extend(named.into_iter().map(|path| (path.to_string(), path)));
        }
        preopens.push((".".to_owned(), cwd.clone()));
        preopens
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// The exit status: the guest's own, or 137 for a limit, 130 for a cancel, 134 for
    /// a crash, 126 for a module that cannot run.
    pub exit_code: i32,
    /// Why it ended other than by exiting, if it did (also written to stderr).
    pub error: Option<GuestError>,
    /// Instructions executed.
    pub fuel_used: u64,
}

/// What wasmi keeps for a run: the WASI state and the limiter.
pub(crate) struct GuestState {
    pub(crate) wasi: WasiCtx,
    pub(crate) limiter: Limiter,
    pub(crate) pending: Option<Pending>,
    /// Host calls see the memory through a copying, non-lending adapter (tests only:
    /// `testing::with_non_lending_memory`; always `false` otherwise).
    pub(crate) non_lending: bool,
    /// The instance's exported memory, once instantiated.
    memory: Option<wasmi::Memory>,
    /// Natively: the memories and tables the growth host calls grow (`grow_calls`).
    #[cfg(not(target_family = "wasm"))]
    pub(crate) grow: crate::grow_calls::GrowTargets,
}

/// Fuel per slice: adapted so that a slice takes about this long between yields.
const SLICE_TARGET_NS: u64 = 8_000_000;
const SLICE_MIN: u64 = 100_000;
const SLICE_MAX: u64 = 256_000_000;

/// The most fuel one wasmi call (a `call_resumable` or a `resume`) is given, unless
/// the block it stops at needs more; a slice is run as several calls, resumed at once
/// without yielding.
///
/// It once bounded the host's stack: natively, wasmi's `memory.grow` and `table.grow`
/// handlers leave a host frame each until the wasmi call returns, and a call could pay
/// for at most 2^20 / `GROW_FUEL` of them. Natively they are now host calls (see
/// `grow_calls`), which leave none, and the browser's loop dispatch never did; so a
/// block that needs more than this at once (4,200 growths, or one `memory.grow` of
/// more than 1,024 pages, whose bytes wasmi charges as it grows) gets it in one call.
/// Resuming costs about as much as a few hundred instructions, once per 2^20 fuel.
pub(crate) const CALL_FUEL_MAX: u64 = 1 << 20;

/// Runs `module`'s `_start`. Never fails: every way a run ends is a [`RunOutcome`], and
/// anything other than an exit is also explained on the guest's stderr.
pub async fn run(
    engine: &GuestEngine,
    module: &CompiledModule,
    run: GuestRun,
    io: &mut dyn GuestIo,
) -> RunOutcome {
    let program = run
        .args
        .first()
        .cloned()
        .unwrap_or_else(|| "guest".to_owned());
    let mut runner = Runner::new(run.platform.clone(), run.limits);
    let result = runner.run(engine, module, run, io).await;
    let fuel_used = runner.fuel_used;
    match result {
        Ok(exit_code) => RunOutcome {
            exit_code,
            error: None,
            fuel_used,
        },
        Err(error) => {
            let message = format!("sandtab: {program}: {error}\n");
            // The message is best effort: the output may be what failed.
            let _ = io.write(OutStream::Stderr, message.into_bytes()).await;
            RunOutcome {
                exit_code: error.exit_status(),
                error: Some(error),
                fuel_used,
            }
        }
    }
}

pub(crate) struct Runner {
    pub(crate) platform: Arc<dyn Platform>,
    pub(crate) limits: GuestLimits,
    pub(crate) started_ns: u64,
    pub(crate) fuel_used: u64,
    pub(crate) slice: u64,
    pub(crate) slice_started_ns: u64,
    /// Fuel of the current slice not yet handed to wasmi.
    pub(crate) slice_left: u64,
    /// Fuel the store held when last counted (see `count_fuel`).
    pub(crate) given: u64,
}

impl Runner {
    pub(crate) fn new(platform: Arc<dyn Platform>, limits: GuestLimits) -> Self {
        let started_ns = platform.monotonic_ns();
        Self {
            platform,
            limits,
            started_ns,
            fuel_used: 0,
            slice: 1_000_000,
            slice_started_ns: started_ns,
            slice_left: 1_000_000,
            given: 0,
        }
    }

    async fn run(
        &mut self,
        engine: &GuestEngine,
        module: &CompiledModule,
        run: GuestRun,
        io: &mut dyn GuestIo,
    ) -> Result<i32, GuestError> {
        run.limits.validate()?;
        if run.limits.call_depth != engine.call_depth() {
            return Err(GuestError::InvalidOption(format!(
                "call_depth {} differs from the engine's {}",
                run.limits.call_depth,
                engine.call_depth()
            )));
        }
        check_imports(module)?;
        let wasi = wasi_ctx(&run);
        let mut store = Store::new(
            &engine.engine,
            GuestState {
                wasi,
                limiter: Limiter::new(run.limits),
                pending: None,
                non_lending: crate::testing::non_lending(),
                memory: None,
                #[cfg(not(target_family = "wasm"))]
                grow: crate::grow_calls::GrowTargets::default(),
            },
        );
        store.limiter(|state| &mut state.limiter);
        let result = self.start(engine, module, &mut store, io).await;
        // Whatever happened, what the guest wrote before is delivered.
        let flushed = flush(&mut store, io).await;
        let limit_hit = store.data().limiter.hit;
        match result {
            Ok(code) => {
                flushed?;
                match limit_hit {
                    // A guest that failed after a refused growth failed because of it.
                    Some(limit) if code != 0 => Err(GuestError::Limit(limit)),
                    _ => Ok(code),
                }
            }
            Err(GuestError::Trap(_)) if limit_hit.is_some() => {
                Err(GuestError::Limit(limit_hit.unwrap_or(Limit::Memory(0))))
            }
            Err(err) => Err(err),
        }
    }

    async fn start(
        &mut self,
        engine: &GuestEngine,
        module: &CompiledModule,
        store: &mut Store<GuestState>,
        io: &mut dyn GuestIo,
    ) -> Result<i32, GuestError> {
        check_declared_sizes(module, &self.limits)?;
        let mut linker = wasmi::Linker::new(&engine.engine);
        preview1::add_to_linker(&mut linker)
            .map_err(|err| GuestError::Io(format!("linking the WASI functions: {err}")))?;
        #[cfg(not(target_family = "wasm"))]
        crate::grow_calls::add_to_linker(&mut linker, &module.module)
            .map_err(|err| GuestError::Io(format!("linking the growth functions: {err}")))?;
        self.refuel(store, 1)?;
        // The module has no start section left (see `start_export`): this only
        // creates the instance.
        let instance = linker
            .instantiate_and_start(&mut *store, &module.module)
            .map_err(|err| self.classify(err, store))?;
        store.data_mut().memory = instance.get_memory(&*store, "memory");
        #[cfg(not(target_family = "wasm"))]
        if let Some(exports) = &module.grow {
            store.data_mut().grow = crate::grow_calls::targets(exports, &instance, store);
        }
        if let Some(name) = &module.start {
            let start = instance
                .get_func(&*store, name)
                .ok_or_else(|| GuestError::Trap("the start function went missing".into()))?;
            // An exit from the start function ends the program, as from `_start`.
            if let Some(code) = self.call(start, store, io).await? {
                return Ok(code);
            }
        }
        let start = instance
            .get_func(&*store, "_start")
            .ok_or_else(|| GuestError::NotACommand(String::new()))?;
        Ok(self.call(start, store, io).await?.unwrap_or(0))
    }

    /// Runs `func` in fuel slices until it returns (`None`) or the guest exits.
    async fn call(
        &mut self,
        func: wasmi::Func,
        store: &mut Store<GuestState>,
        io: &mut dyn GuestIo,
    ) -> Result<Option<i32>, GuestError> {
        let mut call = func
            .call_resumable(&mut *store, &[], &mut [])
            .map_err(|err| self.classify(err, store));
        loop {
            match call? {
                ResumableCall::Finished => return Ok(None),
                ResumableCall::OutOfFuel(paused) => {
                    self.fuel_for(paused.required_fuel(), store, io).await?;
                    call = paused
                        .resume(&mut *store, &mut [])
                        .map_err(|err| self.classify(err, store));
                }
                ResumableCall::HostTrap(paused) => {
                    let error = paused.host_error();
                    if let Some(code) = error.i32_exit_status() {
                        self.count_fuel(store);
                        return Ok(Some(code));
                    }
                    if let Some(stop) = error.downcast_ref::<Stop>() {
                        self.count_fuel(store);
                        return Err(stopped(*stop));
                    }
                    // Natively: a growth the store lacked the fuel for (see `grow_calls`),
                    // done once the call has it, as wasmi's own growth would be.
                    #[cfg(not(target_family = "wasm"))]
                    if let Some(needs) = error.downcast_ref::<crate::grow_calls::NeedsFuel>() {
                        let (growth, params) = (needs.growth, needs.params.clone());
                        self.fuel_for(needs.required, store, io).await?;
                        let value = crate::grow_calls::grow(&mut *store, growth, &params)
                            .map_err(|err| self.classify(err, store))?;
                        call = paused
                            .resume(&mut *store, &[value], &mut [])
                            .map_err(|err| self.classify(err, store));
                        continue;
                    }
                    if error.downcast_ref::<Blocked>().is_none() {
                        return Err(GuestError::Trap(error.to_string()));
                    }
                    let errno = self.complete_blocked(store, io).await?;
                    call = paused
                        .resume(&mut *store, &[Val::I32(errno)], &mut [])
                        .map_err(|err| self.classify(err, store));
                }
            }
        }
    }

    /// Counts the fuel used, and gives the store at least `required` for its next wasmi
    /// call (the block, or the growth, wasmi stopped at), yielding first if the slice
    /// has less left; a fuel limit if the budget has less left.
    async fn fuel_for(
        &mut self,
        required: u64,
        store: &mut Store<GuestState>,
        io: &mut dyn GuestIo,
    ) -> Result<(), GuestError> {
        self.count_fuel(store);
        let left = self.limits.fuel.saturating_sub(self.fuel_used);
        if required > left {
            return Err(GuestError::Limit(Limit::Fuel(self.limits.fuel)));
        }
        if self.slice_left < required {
            self.between_slices(&mut store.data_mut().wasi, io).await?;
        }
        // Within the slice: a new wasmi call, at once (see CALL_FUEL_MAX).
        self.refuel(store, required)
    }

    /// Resolves the block a host call is waiting on, then runs the call again, until
    /// it completes; returns the errno the guest gets.
    async fn complete_blocked(
        &mut self,
        store: &mut Store<GuestState>,
        io: &mut dyn GuestIo,
    ) -> Result<i32, GuestError> {
        let Some(mut pending) = store.data_mut().pending.take() else {
            return Err(GuestError::Trap(
                "a host call blocked without saying on what".into(),
            ));
        };
        loop {
            // A load that leaves the same contents unloaded would block forever: the
            // guest gets EIO instead.
            let loaded = match &pending.block {
                Block::Load { path, .. } => Some(path.clone()),
                _ => None,
            };
            self.resolve(pending.block, &mut store.data_mut().wasi, io)
                .await?;
            self.check_time_and_cancel(io)?;
            let memory = memory_of(store);
            let retried = match memory {
                Some(memory) => {
                    let (data, state) = memory.data_and_store_mut(&mut *store);
                    preview1::on_memory(data, state.non_lending, |memory| {
                        preview1::retry(memory, &mut state.wasi, pending.operation)
                    })
                }
                None => {
                    let state = store.data_mut();
                    preview1::on_memory(&mut [], state.non_lending, |memory| {
                        preview1::retry(memory, &mut state.wasi, pending.operation)
                    })
                }
            };
            match retried {
                Retried::Done(errno) => return Ok(i32::from(errno.raw())),
                Retried::Blocked(Block::Load { path, .. }, _) if loaded.as_ref() == Some(&path) => {
                    return Ok(i32::from(wasi::ERRNO_IO.raw()));
                }
                Retried::Blocked(block, operation) => {
                    // Let the event loop run between waits that complete at once.
                    io.yield_now().await;
                    pending = Pending { block, operation }
                }
                Retried::Stop(stop) => return Err(stopped(stop)),
                Retried::Trap(message) => return Err(GuestError::Trap(message)),
            }
        }
    }

    pub(crate) async fn resolve(
        &mut self,
        block: Block,
        wasi: &mut WasiCtx,
        io: &mut dyn GuestIo,
    ) -> Result<(), GuestError> {
        match block {
            Block::Load { path, for_write } => {
                let fs = wasi.fs.clone();
                // A load that fails is retried by the operation, which then reports EIO.
                let loaded = if for_write {
                    fs.load_for_write(&path).await
                } else {
                    fs.load_for_read(&path).await
                };
                if let Err(err) = loaded {
                    return Err(GuestError::Io(format!(
                        "reading {path} from storage: {err}"
                    )));
                }
            }
            Block::Stdin => {
                flush_wasi(wasi, io).await?;
                match io.read_stdin().await.map_err(GuestError::Io)? {
                    Some(bytes) if !bytes.is_empty() => wasi.stdin.extend(bytes),
                    _ if io.take_interrupt() => wasi.stdin_interrupted = true,
                    _ => wasi.stdin_ended = true,
                }
            }
            Block::Flush => flush_wasi(wasi, io).await?,
            Block::Sleep { until_ns } => {
                flush_wasi(wasi, io).await?;
                if !wasi.virtual_clock() {
                    let deadline = self.deadline_ns();
                    let now = self.platform.monotonic_ns();
                    let wait = until_ns.min(deadline).saturating_sub(now);
                    if wait > 0 {
                        io.sleep(wait).await;
                    }
                }
            }
            Block::Yield => {
                io.yield_now().await;
                wasi.yielded = true;
            }
            Block::HostCall { name, args } => {
                flush_wasi(wasi, io).await?;
                let answer = io.host_call(name.clone(), args.clone()).await;
                wasi.host_answer = Some((name, args, answer));
            }
            Block::Device { fd } => {
                flush_wasi(wasi, io).await?;
                let request = match wasi.fds.get_mut(&fd) {
                    Some(preview1::Fd::Device(device)) => device.take_request(),
                    _ => None,
                };
                if let Some((name, request)) = request {
                    let answer = io.device(name, request).await;
                    if let Some(preview1::Fd::Device(device)) = wasi.fds.get_mut(&fd) {
                        device.answer(answer);
                    }
                }
            }
        }
        Ok(())
    }

    pub(crate) async fn between_slices(
        &mut self,
        wasi: &mut WasiCtx,
        io: &mut dyn GuestIo,
    ) -> Result<(), GuestError> {
        if self.fuel_used >= self.limits.fuel {
            return Err(GuestError::Limit(Limit::Fuel(self.limits.fuel)));
        }
        // Adapt the slice so that one takes about SLICE_TARGET_NS: long enough that
        // yielding costs little, short enough that the page stays responsive.
        let took = self
            .platform
            .monotonic_ns()
            .saturating_sub(self.slice_started_ns);
        if took < SLICE_TARGET_NS / 2 {
            self.slice = (self.slice * 2).min(SLICE_MAX);
        } else if took > SLICE_TARGET_NS * 2 {
            self.slice = (self.slice / 2).max(SLICE_MIN);
        }
        flush_wasi(wasi, io).await?;
        self.check_time_and_cancel(io)?;
        io.yield_now().await;
        self.check_time_and_cancel(io)?;
        self.slice_left = self.slice;
        self.slice_started_ns = self.platform.monotonic_ns();
        Ok(())
    }

    /// Gives the store the fuel for its next wasmi call: what the slice has left, at
    /// least `required` (the block wasmi stopped at), at most [`CALL_FUEL_MAX`] (or
    /// `required`, if more) and what the budget has left.
    fn refuel(&mut self, store: &mut Store<GuestState>, required: u64) -> Result<(), GuestError> {
        let fuel = self
            .slice_left
            .max(required)
            .min(CALL_FUEL_MAX.max(required))
            .min(self.limits.fuel.saturating_sub(self.fuel_used))
            .max(1);
        self.slice_left = self.slice_left.saturating_sub(fuel);
        self.given = fuel;
        store.set_fuel(fuel).map_err(trap)
    }

    /// Adds the fuel used since the store was last refuelled or counted.
    fn count_fuel(&mut self, store: &Store<GuestState>) {
        let left = store.get_fuel().unwrap_or(0);
        self.fuel_used = self
            .fuel_used
            .saturating_add(self.given.saturating_sub(left));
        self.given = left;
    }

    pub(crate) fn deadline_ns(&self) -> u64 {
        self.started_ns
            .saturating_add(self.limits.deadline_ms.saturating_mul(1_000_000))
    }

    pub(crate) fn check_time_and_cancel(&self, io: &dyn GuestIo) -> Result<(), GuestError> {
        if io.cancelled() {
            return Err(GuestError::Cancelled);
        }
        if self.platform.monotonic_ns() >= self.deadline_ns() {
            return Err(GuestError::Limit(Limit::Deadline(self.limits.deadline_ms)));
        }
        Ok(())
    }

    /// What a non-resumable wasmi error means for the run.
    fn classify(&self, err: wasmi::Error, store: &Store<GuestState>) -> GuestError {
        if let Some(code) = err.i32_exit_status() {
            // Not an error: the guest exited (from a start function).
            return GuestError::Trap(format!("exit {code} during start-up"));
        }
        if let Some(stop) = err.downcast_ref::<Stop>() {
            return stopped(*stop);
        }
        if let wasmi::errors::ErrorKind::Translation(_)
        | wasmi::errors::ErrorKind::ImplementationLimits(_)
        | wasmi::errors::ErrorKind::Ir(_) = err.kind()
        {
            // A function wasmi validated but cannot translate (translation is lazy).
            return GuestError::Unsupported(err.to_string());
        }
        if let wasmi::errors::ErrorKind::Instantiation(
            wasmi::errors::InstantiationError::TooManyInstances
            | wasmi::errors::InstantiationError::TooManyTables
            | wasmi::errors::InstantiationError::TooManyMemories,
        ) = err.kind()
        {
            return GuestError::Limit(Limit::Instances(self.limits.instances));
        }
        match err.as_trap_code() {
            Some(wasmi::TrapCode::StackOverflow) => {
                GuestError::Limit(Limit::CallDepth(self.limits.call_depth))
            }
            Some(wasmi::TrapCode::OutOfFuel) => GuestError::Limit(Limit::Fuel(self.limits.fuel)),
            _ => match store.data().limiter.hit {
                Some(limit) => GuestError::Limit(limit),
                None => GuestError::Trap(err.to_string()),
            },
        }
    }
}

/// The WASI state a run starts with.
pub(crate) fn wasi_ctx(run: &GuestRun) -> WasiCtx {
    let env = run.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let preopens = run
        .preopens
        .iter()
        .map(|(name, path)| {
            let writable = run.fs.mem().check_writable(path).is_ok();
            (name.clone(), path.clone(), writable)
        })
        .collect();
    let mut ctx = WasiCtx::new(
        run.fs.clone(),
        run.observed.clone().unwrap_or_else(|| run.platform.clone()),
        run.args.clone(),
        env,
        preopens,
        run.clock,
        run.random,
        run.limits.output_bytes,
    );
    ctx.stdin_terminal = run.stdin_terminal;
    ctx
}

pub(crate) fn stopped(stop: Stop) -> GuestError {
    match stop {
        Stop::Limit(limit) => GuestError::Limit(limit),
    }
}

fn trap(err: wasmi::Error) -> GuestError {
    GuestError::Trap(err.to_string())
}

fn memory_of(store: &Store<GuestState>) -> Option<wasmi::Memory> {
    store.data().memory
}

/// Hands buffered output to the host, in order.
async fn flush(store: &mut Store<GuestState>, io: &mut dyn GuestIo) -> Result<(), GuestError> {
    flush_wasi(&mut store.data_mut().wasi, io).await
}

/// Hands the output `wasi` buffered to the host, in order.
pub(crate) async fn flush_wasi(wasi: &mut WasiCtx, io: &mut dyn GuestIo) -> Result<(), GuestError> {
    for (stream, bytes) in wasi.take_output() {
        io.write(stream, bytes).await.map_err(GuestError::Io)?;
    }
    Ok(())
}

/// Refuses a module whose memories or tables start larger than the limits allow, before
/// wasmi allocates them. A single memory of 4 GiB is refused too: wasm32 cannot hold it
/// (wasmi would fail there before asking the limiter, with a different error).
pub(crate) fn check_declared_sizes(
    module: &CompiledModule,
    limits: &GuestLimits,
) -> Result<(), GuestError> {
    let facts = &module.facts;
    if facts.memory_min_bytes > limits.memory_bytes
        || facts.largest_memory_bytes > u64::from(u32::MAX)
    {
        return Err(GuestError::Limit(Limit::Memory(limits.memory_bytes)));
    }
    if facts.table_min_elements > limits.table_elements {
        return Err(GuestError::Limit(Limit::Table(limits.table_elements)));
    }
    Ok(())
}

/// Refuses a module that imports anything this runtime does not provide, naming all
/// of it, or that is not a command.
pub(crate) fn check_imports(module: &CompiledModule) -> Result<(), GuestError> {
    let unknown: Vec<String> = module
        .module
        .imports()
        .filter(|import| {
            !(matches!(import.ty(), wasmi::ExternType::Func(_))
                && (preview1::is_provided(import.module(), import.name())
                    // The growths made host calls (compiling refuses guests' own).
                    || import.module() == crate::engine::INTERNAL_MODULE))
        })
        .map(|import| format!("{}.{}", import.module(), import.name()))
        .collect();
    if !unknown.is_empty() {
        return Err(GuestError::UnknownImports(unknown));
    }
    let has_start = module.module.exports().any(|export| {
        export.name() == "_start" && matches!(export.ty(), wasmi::ExternType::Func(_))
    });
    if !has_start {
        let reactor = module
            .module
            .exports()
            .any(|export| export.name() == "_initialize");
        return Err(GuestError::NotACommand(if reactor {
            " (it is a reactor: it exports `_initialize`, for a JavaScript host to drive)".into()
        } else {
            String::new()
        }));
    }
    Ok(())
}
