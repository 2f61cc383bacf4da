// The runtime's dedicated worker: owns the wasm Sandbox and answers the page's messages.
// Commands and every call that changes or saves files run one at a time in arrival
// order; `cancel` acts on the running command at once (the runtime gives this worker's
// event loop a turn every few milliseconds, so the message is seen even while a
// CPU-bound loop runs), and queries (listDir, usage) answer from memory at once.

import init, { compiledModule, protocolVersion, Sandbox as WasmSandbox } from '../pkg/sandtab_web.js';
import type { NetRequest, NetResponse } from './net-broker.js';
import type { UiAction } from './ui-frame.js';
import { PROTOCOL_VERSION, isQuery, type FromWorker, type Op, type Reply, type ToWorker } from './protocol.js';
import type { ProgramSpec, ProgressEvent, WorkerOptions } from './types.js';

const scope = self as unknown as DedicatedWorkerGlobalScope;
let sandbox: WasmSandbox | null = null;
let queue: Promise<void> = Promise.resolve();
/** Tasks queued or running: with none, the next one runs at once, not a microtask later. */
let queued = 0;

/** How many tasks the queue has taken: a program is compiled ahead of use only after a
 * while in which it took none. (Counted, not timed: while a recording or replaying
 * sandbox runs an operation, the worker's clocks read its tape.) */
let tasksTaken = 0;

/** Runs `task` after those queued before it, one at a time; `fail` gets its error. A
 * task that finishes without waiting finishes here, before the next message is read. */
function enqueue(task: () => void | Promise<void>, fail: (err: unknown) => void): void {
  const done = () => {
    queued--;
  };
  queued++;
  tasksTaken++;
  if (queued > 1) {
    queue = queue.then(task).catch(fail).finally(done);
    return;
  }
  let pending: void | Promise<void>;
  try {
    pending = task();
  } catch (err) {
    pending = Promise.reject(err);
  }
  if (pending instanceof Promise) queue = pending.catch(fail).finally(done);
  else done();
}
/** The op running now, those waiting their turn, and those aborted while they waited. */
let running: number | null = null;
const waiting = new Set<number>();
const aborted = new Set<number>();
/** The runtime's memory, to tell an out-of-memory abort from other crashes. */
let memory: WebAssembly.Memory | null = null;
/** Set once the runtime has crashed: nothing more is done, the worker is ending. */
let crashed = false;

function post(reply: FromWorker, transfer: Transferable[] = []): void {
  scope.postMessage(reply, transfer);
}

function describe(err: unknown): { message: string; code?: string } {
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return { message: err.message, code: typeof code === 'string' ? code : undefined };
  }
  return { message: String(err) };
}

/** A call only debug builds of the runtime have (crates/web/src/crash.rs): the e2e test
 * makes the runtime panic with it. Release builds answer it as an unknown call. */
const DEBUG_PANIC = 'debugPanic';

/** Where the runtime's panic hook leaves the message (crates/web/src/crash.rs). */
const PANIC_GLOBAL = '__sandtabPanic';

function panicMessage(): string | null {
  const message = (scope as unknown as Record<string, unknown>)[PANIC_GLOBAL];
  return typeof message === 'string' ? message : null;
}

/** Whether `err` means the runtime is broken: a trap (a panic aborts with one on
 * wasm32, as do `unreachable` and an allocation that fails) or a recorded panic. Its
 * state may be half-changed, so it must not be called again. */
function isCrash(err: unknown): boolean {
  return err instanceof WebAssembly.RuntimeError || panicMessage() !== null;
}

/** The runtime's memory can grow to 4 GiB at most, and a failed allocation aborts with a
 * bare trap: past this size, a trap most likely means it ran out. (The request that
 * failed is not known: it may have asked for 1 GiB more.) */
const OOM_HINT_BYTES = 2 * 2 ** 30;

/** Poisons this sandbox: tells the page (which fails every pending and later call with
 * SANDBOX_CRASHED and terminates this worker) and ends the worker, releasing the Web
 * Lock, so that opening the same name again gets a fresh runtime and the saved files. */
function crash(cause: unknown): void {
  if (crashed) return;
  crashed = true;
  const panic = panicMessage();
  const what = panic !== null ? `panicked: ${panic}` : `crashed: ${describeCrash(cause)}`;
  const size = memory?.buffer.byteLength ?? 0;
  const oom =
    panic === null && size >= OOM_HINT_BYTES ? ` (its memory had grown to ${Math.round(size / 2 ** 20)} MiB: most likely it ran out)` : '';
  post({
    type: 'crashed',
    message: `the sandbox runtime ${what}${oom}; this Sandbox is closed: create it again to reopen its saved files`,
  });
  scope.close();
}

function describeCrash(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}

// An error that escapes a handler (a trap while a wasm future runs in a microtask) or
// the worker's own script: nothing can tell what state it left.
scope.addEventListener('error', (event: ErrorEvent) => {
  event.preventDefault();
  crash(event.error ?? event.message);
});
scope.addEventListener('unhandledrejection', (event: PromiseRejectionEvent) => {
  if (!isCrash(event.reason)) return;
  event.preventDefault();
  crash(event.reason);
});

/** How long to wait for a tab (or a terminated worker) that is letting the sandbox go. */
const LOCK_WAIT_MS = 2000;

/** Takes the Web Lock that makes this worker the sandbox's only writer, held until the
 * worker ends. If another tab keeps it past LOCK_WAIT_MS, resolves to false. */
function takeWriterLock(name: string): Promise<boolean> {
  const locks = (scope.navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    locks
      .request(`sandtab:${name}`, { signal: AbortSignal.timeout(LOCK_WAIT_MS) }, () => {
        resolve(true);
        // A promise that never settles keeps the lock for the worker's life.
        return new Promise<never>(() => {});
      })
      .catch(() => resolve(false));
  });
}

/** Host calls waiting for the page's answer, by call id. */
const hostCalls = new Map<number, { resolve: (value: string) => void; reject: (err: Error) => void }>();
let nextHostCall = 1;

/** Asks the page to answer a guest's host call. */
function hostCall(name: string, args: string): Promise<string> {
  const callId = nextHostCall++;
  return new Promise((resolve, reject) => {
    hostCalls.set(callId, { resolve, reject });
    post({ type: 'hostCall', callId, name, args });
  });
}

/** Network requests waiting for the page's answer, by call id. */
const netCalls = new Map<number, { resolve: (value: NetResponse) => void; reject: (err: Error) => void }>();

/** Asks the page to make a request the runtime's gate allowed (see net-broker.ts). */
function netFetch(request: NetRequest): Promise<NetResponse> {
  const callId = nextHostCall++;
  return new Promise((resolve, reject) => {
    netCalls.set(callId, { resolve, reject });
    post({ type: 'netFetch', callId, request });
  });
}

/** ui actions waiting for the page's answer, by call id. */
const uiCalls = new Map<number, { resolve: (value: string | null) => void; reject: (err: Error) => void }>();

/** Asks the page to carry out a ui action the runtime's gate allowed (see ui-frame.ts). */
function uiAction(action: UiAction): Promise<string | null> {
  const callId = nextHostCall++;
  return new Promise((resolve, reject) => {
    uiCalls.set(callId, { resolve, reject });
    post({ type: 'ui', callId, action });
  });
}

/** The programs on their way: how far each is now, and what the page was last told
 * (with whether a command waits for it: the page shows that command the download). */
const onTheirWay = new Map<string, { now: ProgressEvent; told: ProgressEvent | null }>();

function progress(event: ProgressEvent): void {
  const { program, phase } = event;
  if (phase === 'fetch' || phase === 'compile') {
    if (isWaitedFor(program)) event.waiting = true;
    onTheirWay.set(program, { now: event, told: event });
  } else {
    onTheirWay.delete(program);
  }
  post({ type: 'progress', event });
}

/** How far a program is, not yet told (see `watchWaiting`). */
function advanced(event: ProgressEvent): void {
  const entry = onTheirWay.get(event.program);
  if (entry) entry.now = event;
  else onTheirWay.set(event.program, { now: event, told: null });
}

function isWaitedFor(program: string): boolean {
  try {
    return sandbox?.programWaitedFor(program) ?? false;
  } catch {
    return false;
  }
}

/** Every quarter second, tells the page of a program a command has started (or
 * stopped) waiting for, and how far a waited-for one has come since it was last told. */
function watchWaiting(): void {
  const timer = setInterval(() => {
    if (onTheirWay.size === 0) return clearInterval(timer);
    for (const [program, { now, told }] of onTheirWay) {
      const waiting = isWaitedFor(program);
      if (waiting !== (told?.waiting === true) || (waiting && now.loaded !== told?.loaded)) {
        const { waiting: _, ...event } = now;
        progress(event);
      }
    }
  }, 250);
}

/** Cache Storage bucket for program modules: a reload does not fetch 26 MB again. */
const PROGRAM_CACHE = 'sandtab-programs-v1';

/** The SHA-256 of `bytes`, in hex. */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The bytes of a program module, fetched with progress, or the copy kept in Cache
 * Storage: that copy is asked about again (`If-None-Match` / `If-Modified-Since`), so a
 * changed file at the same address is picked up and an unchanged one costs a 304; it is
 * dropped if its SHA-256 is not the one asked for, and used as it is while offline. */
async function fetchProgram(spec: ProgramSpec, program: string): Promise<Uint8Array> {
  const cache = 'caches' in scope ? await scope.caches.open(PROGRAM_CACHE).catch(() => null) : null;
  const cached = await cache?.match(spec.url);
  let kept: Uint8Array | null = cached ? new Uint8Array(await cached.arrayBuffer()) : null;
  if (kept && spec.sha256 && (await sha256Hex(kept)) !== spec.sha256.toLowerCase()) {
    await cache?.delete(spec.url).catch(() => false);
    kept = null;
  }
  const validators: Record<string, string> = {};
  const etag = kept && cached?.headers.get('etag');
  const modified = kept && cached?.headers.get('last-modified');
  if (etag) validators['if-none-match'] = etag;
  else if (modified) validators['if-modified-since'] = modified;
  const keptCopy = (bytes: Uint8Array) => {
    progress({ program, phase: 'fetch', loaded: bytes.length, total: bytes.length });
    return bytes;
  };
  // A kept copy with nothing to ask about (the server gives no validators) is used as is.
  if (kept && Object.keys(validators).length === 0) return keptCopy(kept);
  let response: Response;
  try {
    // `no-store`: the answer to this question, not the HTTP cache's.
    response = await fetch(spec.url, kept ? { headers: validators, cache: 'no-store' } : undefined);
  } catch (err) {
    if (kept) return keptCopy(kept);
    throw err;
  }
  if (kept && response.status === 304) return keptCopy(kept);
  if (!response.ok) {
    if (kept) return keptCopy(kept);
    throw new Error(`fetching ${spec.url}: HTTP ${response.status}`);
  }
  const total = Number(response.headers.get('content-length')) || 0;
  progress({ program, phase: 'fetch', loaded: 0, total });
  const parts: Uint8Array[] = [];
  let loaded = 0;
  let shown = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    // About every 1 MiB, so the page can show a moving bar without a flood of messages
    // (and four times a second while a command waits for it: `watchWaiting`).
    if (loaded - shown >= 1 << 20) {
      shown = loaded;
      progress({ program, phase: 'fetch', loaded, total });
    } else {
      advanced({ program, phase: 'fetch', loaded, total });
    }
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  progress({ program, phase: 'fetch', loaded, total: total || loaded });
  const headers: Record<string, string> = { 'content-type': 'application/wasm' };
  for (const name of ['etag', 'last-modified']) {
    const value = response.headers.get(name);
    if (value) headers[name] = value;
  }
  // Best effort: a full cache only means the next load fetches again.
  await cache?.put(spec.url, new Response(bytes, { headers })).catch(() => {});
  return bytes;
}

/** Fetches the programs side by side, beside the queue: their names are commands from
 * the start (`expectProgram`), every other command runs meanwhile, and one that runs a
 * program waits for its module. One that fails is reported, and running it says why. */
function fetchPrograms(box: WasmSandbox, programs: ProgramSpec[]): void {
  for (const spec of programs) {
    const program = spec.names[0] ?? '?';
    advanced({ program, phase: 'fetch', loaded: 0, total: 0 });
    void (async () => {
      let bytes: Uint8Array;
      try {
        bytes = await fetchProgram(spec, program);
      } catch (err) {
        const message = describe(err).message;
        box.programFailed(program, message);
        progress({ program, phase: 'error', loaded: 0, total: 0, message });
        return;
      }
      try {
        progress({ program, phase: 'compile', loaded: bytes.length, total: bytes.length });
        box.provideProgram(program, bytes);
        progress({ program, phase: 'ready', loaded: bytes.length, total: bytes.length });
      } catch (err) {
        if (isCrash(err)) return crash(err);
        progress({ program, phase: 'error', loaded: 0, total: 0, message: describe(err).message });
        return;
      }
      precompileWhenIdle(box, program);
    })();
  }
}

/** How long the queue must have taken no task before a program is compiled ahead of its
 * first use: compiling CPython holds the worker for about 0.2 s, which a command sent
 * just as the page loads (the first prompt, a reload) should not wait for. */
const PRECOMPILE_AFTER_IDLE_MS = 300;

/** Compiles `program` once the queue has taken no task for a while (a command that runs
 * it first compiles it itself). A module that does not compile is reported. */
function precompileWhenIdle(box: WasmSandbox, program: string): void {
  let seen = tasksTaken;
  const attempt = () => {
    if (crashed) return;
    if (queued > 0 || tasksTaken !== seen) {
      seen = tasksTaken;
      setTimeout(attempt, PRECOMPILE_AFTER_IDLE_MS);
      return;
    }
    try {
      box.precompileProgram(program);
    } catch (err) {
      if (isCrash(err)) return crash(err);
      progress({ program, phase: 'error', loaded: 0, total: 0, message: describe(err).message });
    }
  };
  setTimeout(attempt, PRECOMPILE_AFTER_IDLE_MS);
}

/** Where the runtime's engine tier (crates/web/src/js/engine_tier.js) keeps the guest
 * modules it compiled, and whom it tells of a new one. */
interface EngineModuleCache {
  __sandtabEngineModules?: Map<string, WebAssembly.Module>;
  __sandtabOnEngineModule?: (key: string, module: WebAssembly.Module) => void;
}

/** Shares engine-tier modules with the page: those it has, and each one compiled here. */
function shareEngineModules(known: [string, WebAssembly.Module][] = []): void {
  const cache = scope as unknown as EngineModuleCache;
  cache.__sandtabEngineModules = new Map(known.filter(([, module]) => module instanceof WebAssembly.Module));
  cache.__sandtabOnEngineModule = (key, module) => post({ type: 'engineModule', key, module });
}

async function start(options: WorkerOptions, module?: WebAssembly.Module, withHostCall = false): Promise<void> {
  // A module compiled by an earlier worker only needs instantiating (compiling the
  // runtime is most of a worker's start-up).
  try {
    memory = (await init(module ? { module_or_path: module } : undefined)).memory;
  } catch (err) {
    // A module from before the site was updated does not fit this worker's glue.
    if (!module) throw err;
    memory = (await init()).memory;
  }
  if (protocolVersion() !== PROTOCOL_VERSION) {
    post({
      type: 'initError',
      code: 'EPROTO',
      message: `this worker speaks sandtab protocol ${PROTOCOL_VERSION} but its runtime ${protocolVersion()}: reload the page (a cached copy is out of date)`,
    });
    return;
  }
  const storage = options.storage ?? ('indexedDB' in scope ? 'indexeddb' : 'memory');
  const name = options.name ?? 'default';
  if (storage !== 'memory' && !(await takeWriterLock(name))) {
    post({
      type: 'initError',
      code: 'EBUSY',
      message: `sandbox "${name}" is already open in another tab or window; close it there, or open another name`,
    });
    return;
  }
  const { programs = [], ...sandboxOptions } = options;
  sandbox = await WasmSandbox.open({ ...sandboxOptions, storage }, { netFetch, uiAction, ...(withHostCall ? { hostCall } : {}) });
  // The programs' names are commands from the first exec on; only a command that runs
  // one waits for it. A spec with bad names is reported and left out.
  const expected = programs.filter((spec) => {
    try {
      sandbox!.expectProgram(spec.names, spec.sha256);
      return true;
    } catch (err) {
      progress({ program: spec.names[0] ?? '?', phase: 'error', loaded: 0, total: 0, message: describe(err).message });
      return false;
    }
  });
  post({ type: 'ready', module: compiledModule() as WebAssembly.Module });
  fetchPrograms(sandbox, expected);
  if (expected.length > 0) watchWaiting();
}

/** Bytes made for an answer (readFile, exportTar, an exec's output) move to the page,
 * not copied. */
function transferables(reply: Reply): Transferable[] {
  switch (reply.reply) {
    case 'bytes':
      return [reply.data.buffer];
    case 'exec':
      return [reply.stdout.buffer, reply.stderr.buffer];
    case 'fetched':
      return [reply.body.buffer];
    default:
      return [];
  }
}

async function handle(request: ToWorker): Promise<void> {
  if (crashed) return;
  switch (request.type) {
    case 'init':
      if (request.v !== PROTOCOL_VERSION) {
        post({
          type: 'initError',
          code: 'EPROTO',
          message: `the page speaks sandtab protocol ${request.v} and this worker ${PROTOCOL_VERSION}: reload the page (a cached copy is out of date)`,
        });
        return;
      }
      shareEngineModules(request.engineModules);
      try {
        await start(request.options, request.module, request.hostCall);
      } catch (err) {
        if (isCrash(err)) crash(err);
        else post({ type: 'initError', ...describe(err) });
      }
      return;
    case 'cancel':
      sandbox?.cancel();
      return;
    case 'interrupt':
      sandbox?.interrupt();
      return;
    case 'abort':
      // The exec's AbortSignal: cancel it if it runs, or drop it when its turn comes.
      if (running === request.id) sandbox?.cancel();
      else if (waiting.has(request.id)) aborted.add(request.id);
      return;
    case 'stdin':
      // Beside the queue, like cancel: the exec may be reading already.
      try {
        if (request.data !== undefined) sandbox?.writeStdin(request.stream, request.data);
        if (request.end === true) sandbox?.endStdin(request.stream);
      } catch (err) {
        // More than the bound written and not read: the page ends the stream and its
        // exec rejects with this, so no input is cut off silently.
        post({ type: 'stdinError', stream: request.stream, ...describe(err) });
      }
      return;
    case 'hostCallResult': {
      const waiting = hostCalls.get(request.callId);
      hostCalls.delete(request.callId);
      if (request.error !== undefined) waiting?.reject(new Error(request.error));
      else waiting?.resolve(request.value ?? '');
      return;
    }
    case 'uiResult': {
      const waiting = uiCalls.get(request.callId);
      uiCalls.delete(request.callId);
      if (request.error !== undefined) {
        waiting?.reject(Object.assign(new Error(request.error.message), { code: request.error.code }));
      } else {
        waiting?.resolve(request.value ?? null);
      }
      return;
    }
    case 'netFetchResult': {
      const waiting = netCalls.get(request.callId);
      netCalls.delete(request.callId);
      if (request.error !== undefined) {
        waiting?.reject(Object.assign(new Error(request.error.message), { code: request.error.code }));
      } else if (request.value !== undefined) {
        waiting?.resolve(request.value);
      }
      return;
    }
    case 'op':
      return runOp(request.id, request.v, request.op, request.stream === true);
  }
}

function runOp(id: number, version: number, op: Op, stream: boolean): void {
  const fail = (err: unknown) => (isCrash(err) ? crash(err) : post({ type: 'error', id, ...describe(err) }));
  if (version !== PROTOCOL_VERSION) {
    post({ type: 'error', id, code: 'EPROTO', message: `a message of sandtab protocol ${version}; this worker speaks ${PROTOCOL_VERSION}` });
    return;
  }
  const box = sandbox;
  if (box === null) {
    post({ type: 'error', id, message: 'sandbox is not initialised' });
    return;
  }
  // A call only debug builds of the runtime have: the e2e test makes it panic with it.
  if ((op.op as string) === DEBUG_PANIC) {
    const debugPanic = (box as unknown as Record<string, ((message: string) => void) | undefined>)[DEBUG_PANIC];
    if (debugPanic === undefined) fail(new Error(`unknown op ${DEBUG_PANIC}`));
    else enqueue(() => debugPanic.call(box, (op as unknown as { message: string }).message), fail);
    return;
  }
  if (isQuery(op)) {
    try {
      post({ type: 'result', id, value: box.query(op) as Reply });
    } catch (err) {
      fail(err);
    }
    return;
  }
  const onOutput =
    stream && op.op === 'exec'
      ? (which: 'stdout' | 'stderr', data: Uint8Array) => post({ type: 'output', id, stream: which, data }, [data.buffer])
      : undefined;
  const reply = (value: Reply) => post({ type: 'result', id, value }, transferables(value));
  waiting.add(id);
  // One at a time, but keep reading messages (cancel) meanwhile. Most commands are
  // answered at once (crates/web/src/now_or_later.rs); the others come as a Promise.
  enqueue(() => {
    waiting.delete(id);
    if (aborted.delete(id)) {
      post({ type: 'error', id, code: 'ECANCELED', message: 'the exec was aborted (its AbortSignal) before it started' });
      return;
    }
    running = id;
    // An exec's own timeout counts from when it starts, not while it waits its turn.
    const ms = op.op === 'exec' ? op.timeoutMs : undefined;
    const timer = ms === undefined ? undefined : setTimeout(() => running === id && box.timeOut(ms), ms);
    const finished = () => {
      if (running === id) running = null;
      clearTimeout(timer);
    };
    let answer: Reply | Promise<Reply>;
    try {
      answer = box.run(op, onOutput) as Reply | Promise<Reply>;
    } catch (err) {
      finished();
      throw err;
    }
    if (answer instanceof Promise) return answer.then(reply).finally(finished);
    finished();
    return reply(answer);
  }, fail);
}

scope.onmessage = (event: MessageEvent<ToWorker>) => {
  void handle(event.data);
};
