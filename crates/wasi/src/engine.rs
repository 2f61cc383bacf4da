//! Compiling guest modules, once: a cache keyed by the SHA-256 of their bytes.

use crate::GuestError;
use crate::prescan::{Facts, prescan};
use crate::start_export::export_start;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The SHA-256 of a module's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleHash(pub [u8; 32]);

impl ModuleHash {
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }
}

impl fmt::Display for ModuleHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

/// A compiled module, ready to run any number of times.
#[derive(Debug, Clone)]
pub struct CompiledModule {
    pub(crate) module: wasmi::Module,
    hash: ModuleHash,
    /// What the runner checks against the limits before instantiating.
    pub(crate) facts: Arc<Facts>,
    /// The export the module's start function was moved to, if it has one.
    pub(crate) start: Option<String>,
    /// Natively: where the module, its growths made host calls, exports its memories
    /// and tables (see `grow_calls`); `None` if it was not rewritten.
    #[cfg(not(target_family = "wasm"))]
    pub(crate) grow: Option<crate::grow_calls::GrowExports>,
}

impl CompiledModule {
    /// The SHA-256 of the module's bytes.
    pub fn hash(&self) -> ModuleHash {
        self.hash
    }

    /// The export the module's start function was moved to, if it has one: a host
    /// runs it before `_start`.
    pub fn start_export(&self) -> Option<&str> {
        self.start.as_deref()
    }
}

/// The import module of sandtab's own host functions (see `grow_calls`); no guest
/// may import from it.
pub(crate) const INTERNAL_MODULE: &str = "sandtab:internal";

/// Refuses a module that imports from [`INTERNAL_MODULE`].
fn check_no_internal_imports(module: &wasmi::Module) -> Result<(), GuestError> {
    match module
        .imports()
        .find(|import| import.module() == INTERNAL_MODULE)
    {
        Some(import) => Err(GuestError::Unsupported(format!(
            "it imports `{}` from `{INTERNAL_MODULE}`, which is sandtab's own",
            import.name()
        ))),
        None => Ok(()),
    }
}

/// How many compiled modules the cache keeps (CPython, QuickJS and a few tools).
const CACHE_SIZE: usize = 16;

/// The interpreter's engine, with its module cache.
#[derive(Debug, Clone)]
pub struct GuestEngine {
    pub(crate) engine: wasmi::Engine,
    call_depth: u64,
    cache: Arc<Mutex<HashMap<ModuleHash, CompiledModule>>>,
    /// Natively: whether growths become host calls (always but in tests comparing).
    #[cfg(not(target_family = "wasm"))]
    rewrite_grows: bool,
}

impl GuestEngine {
    /// An engine whose guests may nest `call_depth` calls (the one limit wasmi sets per
    /// engine rather than per run).
    pub fn new(call_depth: u64) -> Self {
        let mut config = wasmi::Config::default();
        config
            .consume_fuel(true)
            // Functions are checked when the module is compiled (a malformed one is
            // refused then, with a clear error) and translated when first called, so a
            // 26 MB CPython starts at once. Running out of fuel while translating could
            // not be resumed, so translation costs no fuel (bounded by the module's size).
            .compilation_mode(wasmi::CompilationMode::LazyTranslation)
            .fuel_cost(wasmi::CustomFuelCosts {
                bytes_copied_per_fuel: BYTES_COPIED_PER_FUEL,
                fuel_per_bytes_translated: 0,
                fuel_per_bytes_validated: 0,
            })
            .operator_cost(grow_costs_most())
            .set_max_recursion_depth(usize::try_from(call_depth).unwrap_or(usize::MAX));
        Self {
            engine: wasmi::Engine::new(&config),
            call_depth,
            cache: Arc::default(),
            #[cfg(not(target_family = "wasm"))]
            rewrite_grows: true,
        }
    }

    /// An engine that leaves growths as they are, natively too: to compare a rewritten
    /// module with the original.
    #[cfg(all(test, not(target_family = "wasm")))]
    pub(crate) fn without_grow_calls(call_depth: u64) -> Self {
        Self {
            rewrite_grows: false,
            ..Self::new(call_depth)
        }
    }

    /// The nesting depth this engine allows.
    pub fn call_depth(&self) -> u64 {
        self.call_depth
    }

    /// Compiles `bytes`, or takes the module from the cache. With `expected` (a
    /// SHA-256 in hex), a module whose hash differs is refused before it is compiled.
    pub fn compile(
        &self,
        bytes: &[u8],
        expected: Option<&str>,
    ) -> Result<CompiledModule, GuestError> {
        let hash = ModuleHash::of(bytes);
        if let Some(expected) = expected {
            let actual = hash.to_string();
            if !expected.trim().eq_ignore_ascii_case(&actual) {
                return Err(GuestError::HashMismatch {
                    expected: expected.to_owned(),
                    actual,
                });
            }
        }
        if let Some(module) = self.cached(&hash) {
            return Ok(module);
        }
        let facts = prescan(bytes)?;
        let malformed = |err: wasmi::Error| GuestError::Malformed(err.to_string());
        #[cfg(not(target_family = "wasm"))]
        let (grown, grow) = match self.rewrite_grows {
            true => match crate::grow_calls::rewrite(bytes) {
                Ok(Some((rewritten, exports))) => (Some(rewritten), Some(exports)),
                Ok(None) => (None, None),
                // Judged as given: an invalid module is refused for what it is.
                Err(err) => {
                    wasmi::Module::validate(&self.engine, bytes).map_err(malformed)?;
                    return Err(err);
                }
            },
            false => (None, None),
        };
        #[cfg(target_family = "wasm")]
        let grown: Option<Vec<u8>> = None;
        let given = grown.as_deref().unwrap_or(bytes);
        // The start section moved in the rewritten bytes, if they are.
        let start_facts = match &grown {
            Some(rewritten) if facts.start.is_some() => prescan(rewritten)?,
            _ => facts.clone(),
        };
        let started = match start_facts.start {
            None => None,
            Some(_) => match export_start(given, &start_facts) {
                Some(started) => Some(started),
                None => {
                    wasmi::Module::validate(&self.engine, bytes).map_err(malformed)?;
                    return Err(GuestError::Unsupported(
                        "its start function could not be exported".into(),
                    ));
                }
            },
        };
        let start = started.as_ref().map(|(_, name)| name.clone());
        let module = match (&started, &grown) {
            (None, None) => wasmi::Module::new(&self.engine, bytes).map_err(malformed)?,
            _ => {
                let rewritten = started.as_ref().map_or(given, |(bytes, _)| bytes);
                match wasmi::Module::new(&self.engine, rewritten) {
                    Ok(module) => module,
                    // The module is judged as given: its own error, if it has one.
                    Err(err) => {
                        wasmi::Module::validate(&self.engine, bytes).map_err(malformed)?;
                        return Err(GuestError::Unsupported(format!(
                            "rewritten for the interpreter, it failed: {err}"
                        )));
                    }
                }
            }
        };
        #[cfg(not(target_family = "wasm"))]
        if grow.is_none() {
            check_no_internal_imports(&module)?;
        }
        #[cfg(target_family = "wasm")]
        check_no_internal_imports(&module)?;
        let compiled = CompiledModule {
            module,
            hash,
            facts: Arc::new(facts),
            start,
            #[cfg(not(target_family = "wasm"))]
            grow,
        };
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if cache.len() >= CACHE_SIZE
            && let Some(evict) = cache.keys().next().copied()
        {
            cache.remove(&evict);
        }
        cache.insert(hash, compiled.clone());
        Ok(compiled)
    }

    /// The cached module with this hash, if any.
    pub fn cached(&self, hash: &ModuleHash) -> Option<CompiledModule> {
        let cache = self
            .cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.get(hash).cloned()
    }
}

/// Bytes wasmi copies (or a growth adds) per unit of fuel.
pub(crate) const BYTES_COPIED_PER_FUEL: u32 = 64;

/// Fuel of one `memory.grow` or `table.grow`: the most wasmi allows for an operator.
pub(crate) const GROW_FUEL: u8 = u8::MAX;

/// wasmi's operator costs, but a `memory.grow` or `table.grow` costs [`GROW_FUEL`].
///
/// Natively wasmi dispatches by tail calls, but its `memory_grow` and `table_grow`
/// handlers call the next handler without one (they pass the address of a local to
/// the store; wasmi 2.0 says so in its PR #1946): each one executed leaves a host
/// stack frame (176 and 160 bytes on x86_64) until the wasmi call returns. The price
/// once bounded the frames a wasmi call could pay for; but growths paid for before a
/// call began (on the way back up from a deep recursion) were not bounded, so natively
/// every growth is now a host call (`grow_calls`), which wasmi tail-calls, and the
/// host function charges the same fuel. The price stays so that a growth costs the
/// same everywhere. Real programs grow rarely (a growth that succeeds adds at least a
/// page: at most 16,384 of them under the default 1 GiB), so it is nothing they notice.
fn grow_costs_most() -> wasmi::OperatorCost {
    wasmi::OperatorCost {
        memory_grow: GROW_FUEL,
        table_grow: GROW_FUEL,
        ..wasmi::OperatorCost::default()
    }
}

impl Default for GuestEngine {
    fn default() -> Self {
        Self::new(crate::GuestLimits::default().call_depth)
    }
}
