// The engine tier's JavaScript side (see engine_tier.rs): the browser's own engine runs
// a metered guest module; every import calls back into the runtime, and a call that
// must wait suspends the guest with JSPI (`WebAssembly.Suspending`) until the runtime
// answers it. The guest's entry points run under `WebAssembly.promising`.

/** Thrown through the guest to unwind it: the host ended the run (exit, limit, trap). */
class GuestUnwind extends Error {
  constructor() {
    super('sandtab: guest unwound by its host');
  }
}

/** Whether this engine can suspend a guest (JSPI). */
export function engineTierAvailable() {
  return typeof WebAssembly.Suspending === 'function' && typeof WebAssembly.promising === 'function';
}

/** Compiled metered modules by key (module hash and limits), shared with the page: the
 * worker script fills it with the page's (`__sandtabEngineModules`) and hears of each
 * new one (`__sandtabOnEngineModule`), so every sandbox of the page compiles a module
 * once. Without a worker script (tests), a cache of this worker's own. */
function cache() {
  return (globalThis.__sandtabEngineModules ??= new Map());
}

/** How many compiled modules a worker keeps (CPython, QuickJS, a few tools). */
const KEPT = 8;

function remember(key, module) {
  const modules = cache();
  modules.delete(key);
  modules.set(key, module);
  for (const oldest of modules.keys()) {
    if (modules.size <= KEPT) break;
    modules.delete(oldest);
  }
  globalThis.__sandtabOnEngineModule?.(key, module);
}

/** Cache Storage keeps the metered bytes across page loads, under the meter's revision
 * (older revisions' caches are deleted), so a reload skips the rewrite, and the browser
 * may keep its compiled code for a module compiled from a stored response. */
const STORE_PREFIX = 'sandtab-engine-r';

function storeName(revision) {
  return `${STORE_PREFIX}${revision}`;
}

function storeUrl(key) {
  return new URL(`/.sandtab-engine/${encodeURIComponent(key)}.wasm`, globalThis.location?.href ?? 'http://localhost/').href;
}

/** The module for `key`: from this page, else from Cache Storage; `undefined` if neither. */
export async function storedModule(revision, key) {
  const known = cache().get(key);
  if (known) return known;
  if (!('caches' in globalThis)) return undefined;
  try {
    const store = await caches.open(storeName(revision));
    const response = await store.match(storeUrl(key));
    if (!response) return undefined;
    const module = await WebAssembly.compileStreaming(response);
    remember(key, module);
    return module;
  } catch {
    // A stored copy that does not compile (or storage that refuses): meter again.
    return undefined;
  }
}

/** Compiles the metered `bytes` (a view of the runtime's memory: copied at once), keeps
 * the module for this page and the bytes in Cache Storage (best effort: a full store
 * only means the next load meters again). */
export async function compileAndStore(revision, key, bytes) {
  const copy = bytes.slice();
  const module = await WebAssembly.compile(copy);
  remember(key, module);
  if ('caches' in globalThis) {
    try {
      for (const name of await caches.keys()) {
        if (name.startsWith(STORE_PREFIX) && name !== storeName(revision)) await caches.delete(name);
      }
      const store = await caches.open(storeName(revision));
      await store.put(storeUrl(key), new Response(copy, { headers: { 'content-type': 'application/wasm' } }));
    } catch {
      // Best effort, as above.
    }
  }
  return module;
}

/**
 * Instantiates `module`, linking each import through `host`:
 * - `host.link(module, name)`: the import's id (>= 0), or -1 for `proc_exit`, -2 for the
 *   meter's `out_of_fuel`, -3 for what the host does not provide;
 * - `host.mayWait(id)`: whether that function can wait: only those are linked as
 *   `WebAssembly.Suspending` (each such import makes instantiating slower, in Firefox
 *   by about 0.2 ms);
 * - `host.call(id, args)`: a host function's result, or `undefined` if it must wait;
 * - `host.wait()`: a promise of the waiting call's result;
 * - `host.exit(code)`, `host.outOfFuel()`: the run ends, or a promise that settles when
 *   the next fuel slice may start.
 * Any of them returning `null` means: unwind the guest (the host knows why).
 */
export function instantiate(module, host) {
  const imports = {};
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== 'function') throw new Error(`the module imports a ${kind}, ${from}.${name}`);
    const id = host.link(from, name);
    let fn;
    if (id >= 0 && host.mayWait(id)) {
      fn = new WebAssembly.Suspending((...args) => {
        const result = host.call(id, BigInt64Array.from(args, BigInt));
        if (result === undefined) return host.wait().then(orUnwind);
        return orUnwind(result);
      });
    } else if (id >= 0) {
      // The host never answers such a function with "wait" (it stops the guest instead).
      fn = (...args) => orUnwind(host.call(id, BigInt64Array.from(args, BigInt)) ?? null);
    } else if (id === -1) {
      fn = (code) => {
        host.exit(code);
        throw new GuestUnwind();
      };
    } else if (id === -2) {
      fn = new WebAssembly.Suspending(() => host.outOfFuel().then(orUnwind));
    } else {
      throw new Error(`the module imports ${from}.${name}, which sandtab does not provide`);
    }
    (imports[from] ??= {})[name] = fn;
  }
  return new WebAssembly.Instance(module, imports);
}

function orUnwind(result) {
  if (result === null) throw new GuestUnwind();
  return result;
}

/**
 * Runs the export `name` of `instance` under JSPI. Resolves to "returned", "unwound"
 * (the host ended it), "stack" (the engine's stack ran out) or `trap: <message>`.
 */
export async function runExport(instance, name) {
  try {
    await WebAssembly.promising(instance.exports[name])();
    return 'returned';
  } catch (err) {
    if (err instanceof GuestUnwind) return 'unwound';
    // Chromium: RangeError "Maximum call stack size exceeded"; Firefox: InternalError
    // "too much recursion".
    if (err instanceof Error && /maximum call stack|too much recursion/i.test(err.message)) return 'stack';
    return `trap: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** The guest's fuel, through the meter's reader `exportName` (sandtab_meter::FUEL_EXPORT):
 * a number (the fuel is an i64 under 2^53). */
export function fuelLeft(instance, exportName) {
  return Number(instance.exports[exportName]());
}

/** Sets the guest's fuel through the meter's setter (sandtab_meter::FUEL_SET_EXPORT). */
export function setFuel(instance, exportName, fuel) {
  instance.exports[exportName](BigInt(fuel));
}

/** The meter's refused-growth global (sandtab_meter::GROW_REFUSED_EXPORT). */
export function refusedGrowth(instance) {
  return instance.exports['sandtab:grow_refused'].value;
}

/** The guest's memory, or `undefined` for a module without one. */
export function guestMemory(instance) {
  const memory = instance.exports.memory;
  return memory instanceof WebAssembly.Memory ? memory : undefined;
}
