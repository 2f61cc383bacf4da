// The runtime's dedicated worker: owns the wasm Sandbox and answers the page's messages.
// Commands and every call that changes or saves files run one at a time in arrival
// order; `cancel` acts on the running command at once (the runtime gives this worker's
// event loop a turn every few milliseconds, so the message is seen even while a
// CPU-bound loop runs), and queries (listDir, usage) answer from memory at once.

import init, { compiledModule, Sandbox as WasmSandbox } from '../pkg/sandtab_web.js';
import { CALLS, QUERIES, type Reply, type Request } from './protocol.js';
import type { WorkerOptions } from './types.js';

const scope = self as unknown as DedicatedWorkerGlobalScope;
let sandbox: WasmSandbox | null = null;
let queue: Promise<void> = Promise.resolve();

function post(reply: Reply, transfer: Transferable[] = []): void {
  scope.postMessage(reply, transfer);
}

function describe(err: unknown): { message: string; code?: string } {
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return { message: err.message, code: typeof code === 'string' ? code : undefined };
  }
  return { message: String(err) };
}

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

async function start(options: WorkerOptions, module?: WebAssembly.Module): Promise<void> {
  // A module compiled by an earlier worker only needs instantiating (compiling the
  // runtime is most of a worker's start-up).
  try {
    await init(module ? { module_or_path: module } : undefined);
  } catch (err) {
    // A module from before the site was updated does not fit this worker's glue.
    if (!module) throw err;
    await init();
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
  sandbox = await WasmSandbox.open({ ...options, storage });
  post({ type: 'ready', module: compiledModule() as WebAssembly.Module });
}

async function handle(request: Request): Promise<void> {
  if (request.type === 'init') {
    try {
      await start(request.options, request.module);
    } catch (err) {
      post({ type: 'initError', ...describe(err) });
    }
    return;
  }
  if (request.type === 'cancel') {
    sandbox?.cancel();
    return;
  }
  const box = sandbox;
  if (box === null) {
    post({ type: 'error', id: request.id, message: 'sandbox is not initialised' });
    return;
  }
  const id = request.id;
  const fail = (err: unknown) => post({ type: 'error', id, ...describe(err) });
  switch (request.type) {
    case 'exec': {
      const run = async () => {
        const value = await box.exec(request.script, (stream: 'stdout' | 'stderr', data: Uint8Array) => {
          post({ type: 'output', id, stream, data }, [data.buffer]);
        });
        post({ type: 'result', id, value });
      };
      // One command at a time, but keep reading messages (cancel) meanwhile.
      queue = queue.then(run).catch(fail);
      return;
    }
    case 'call': {
      if (!(CALLS as readonly string[]).includes(request.method)) {
        fail(new Error(`unknown call ${request.method}`));
        return;
      }
      const run = async () => {
        const method = (box as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[request.method];
        const value = await method.apply(box, request.args);
        // Bytes made for this answer (readFile, exportTar) move to the page, not copied.
        post({ type: 'result', id, value }, value instanceof Uint8Array ? [value.buffer] : []);
      };
      queue = queue.then(run).catch(fail);
      return;
    }
    case 'query': {
      if (!(QUERIES as readonly string[]).includes(request.method)) {
        fail(new Error(`unknown query ${request.method}`));
        return;
      }
      try {
        const method = (box as unknown as Record<string, (...args: unknown[]) => unknown>)[request.method];
        post({ type: 'result', id, value: method.apply(box, request.args) });
      } catch (err) {
        fail(err);
      }
      return;
    }
  }
}

scope.onmessage = (event: MessageEvent<Request>) => {
  void handle(event.data);
};
