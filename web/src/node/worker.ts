// The runtime's worker under Node: a `worker_threads` thread that gives the browser
// worker's script (../worker.ts, unchanged) the few globals it and the runtime use —
// `self`, `postMessage`, `onmessage`, `close`, `error` and `unhandledrejection` events,
// `navigator.storage` (OPFS on a directory, ./opfs.ts), `fetch` of `file:` URLs (for
// programs) — then loads it. The runtime's module is compiled here from
// ../../pkg/sandtab_web_bg.wasm unless the page side passes one an earlier worker
// compiled.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { installOpfs } from './opfs.js';
import type { ToWorker } from '../protocol.js';

const port = parentPort;
if (!port) throw new Error('sandtab: node/worker.js runs in a worker_threads Worker (started by Sandbox.create)');

const WASM_URL = new URL('../../pkg/sandtab_web_bg.wasm', import.meta.url);
const scope = globalThis as unknown as Record<string, unknown>;
const data = (workerData ?? {}) as { directory?: string | null };

// ---- events: what a dedicated worker's global scope dispatches ----

type Listener = (event: Record<string, unknown>) => void;
const listeners = new Map<string, Listener[]>();

/** Dispatches an event to the listeners; whether one called preventDefault. */
function dispatch(type: string, fields: Record<string, unknown>): boolean {
  let prevented = false;
  const event = { type, ...fields, preventDefault: () => (prevented = true) };
  for (const listener of listeners.get(type) ?? []) listener(event);
  return prevented;
}

scope.self = globalThis;
scope.addEventListener = (type: string, listener: Listener) => {
  listeners.set(type, [...(listeners.get(type) ?? []), listener]);
};
scope.removeEventListener = (type: string, listener: Listener) => {
  listeners.set(type, (listeners.get(type) ?? []).filter((l) => l !== listener));
};
process.on('uncaughtException', (error) => {
  if (!dispatch('error', { error, message: error instanceof Error ? error.message : String(error) })) {
    console.error('sandtab worker: uncaught', error);
    process.exit(1);
  }
});
process.on('unhandledRejection', (reason) => {
  if (!dispatch('unhandledrejection', { reason })) console.error('sandtab worker: unhandled rejection', reason);
});

// ---- messages ----

scope.postMessage = (message: unknown, transfer?: Transferable[]) => {
  port.postMessage(message, (transfer ?? []) as never);
};
// The worker ends itself after a crash (having posted `crashed`): let that go first.
scope.close = () => setImmediate(() => process.exit(0));

let onmessage: ((event: { data: unknown }) => void) | null = null;
Object.defineProperty(scope, 'onmessage', {
  configurable: true,
  get: () => onmessage,
  set: (handler: typeof onmessage) => {
    onmessage = handler;
  },
});

// ---- yielding ----

/** A MessagePort whose messages arrive in a `setImmediate`. The runtime yields to the
 * event loop by posting to itself over a MessageChannel (crates/web/src/yielding.rs);
 * Node's ports deliver the messages posted while one is handled in the same turn (up to
 * a thousand), so a CPU-bound command would starve the page's messages (`cancel`).
 * `setImmediate` runs after the turn's I/O, messages from the page included. */
class ImmediatePort {
  onmessage: ((event: { data: unknown }) => void) | null = null;
  other: ImmediatePort | null = null;
  #closed = false;

  postMessage(message: unknown): void {
    const target = this.other;
    if (this.#closed || !target) return;
    setImmediate(() => {
      if (!target.#closed) target.onmessage?.({ data: message });
    });
  }

  start(): void {}

  close(): void {
    this.#closed = true;
  }
}

class ImmediateChannel {
  readonly port1 = new ImmediatePort();
  readonly port2 = new ImmediatePort();

  constructor() {
    this.port1.other = this.port2;
    this.port2.other = this.port1;
  }
}

scope.MessageChannel = ImmediateChannel;

// ---- storage and programs ----

installOpfs(data.directory ?? null);

/** `fetch` as the browser's, and also of `file:` URLs (programs on disk). */
const networkFetch = globalThis.fetch.bind(globalThis);
scope.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!url.startsWith('file:')) return networkFetch(input, init);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(fileURLToPath(url));
  } catch (err) {
    throw new TypeError(`fetch ${url}: ${(err as Error).message}`);
  }
  const headers: Record<string, string> = { 'content-length': String(bytes.length) };
  if (url.endsWith('.wasm')) headers['content-type'] = 'application/wasm';
  return new Response(bytes as Uint8Array<ArrayBuffer>, { headers });
};

let compiled: Promise<WebAssembly.Module> | null = null;

/** The runtime's module, compiled once in this thread. */
function runtimeModule(): Promise<WebAssembly.Module> {
  compiled ??= readFile(WASM_URL).then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}

await import('../worker.js');

/** Messages wait while the init message is readied (the module compiled). */
let ready: Promise<void> = Promise.resolve();

port.on('message', (message: ToWorker) => {
  if (message?.type === 'init') {
    // `directory` is this host's option, not the runtime's: it means OPFS storage.
    const { directory: _, ...options } = message.options as typeof message.options & { directory?: string };
    if (data.directory) options.storage = 'opfs';
    const init: ToWorker = { ...message, options };
    ready = ready.then(async () => {
      if (!init.module) {
        try {
          init.module = await runtimeModule();
        } catch (err) {
          port.postMessage({
            type: 'initError',
            message: `could not load the sandtab runtime from ${fileURLToPath(WASM_URL)}: ${(err as Error).message}`,
          });
          return;
        }
      }
      onmessage?.({ data: init });
    });
    return;
  }
  void ready.then(() => onmessage?.({ data: message }));
});
