// The runtime's dedicated worker: owns the wasm Sandbox and answers the page's messages.
// Commands run one at a time in arrival order; `cancel` acts on the running one at once
// (the runtime gives this worker's event loop a turn every few milliseconds, so the
// message is seen even while a CPU-bound loop runs).

import init, { Sandbox as WasmSandbox } from '../pkg/sandtab_web.js';
import type { Reply, Request } from './protocol.js';

const scope = self as unknown as DedicatedWorkerGlobalScope;
let sandbox: WasmSandbox | null = null;
let queue: Promise<void> = Promise.resolve();

function post(reply: Reply, transfer: Transferable[] = []): void {
  scope.postMessage(reply, transfer);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function handle(request: Request): Promise<void> {
  if (request.type === 'init') {
    try {
      await init();
      const options: Record<string, unknown> = {};
      if (request.limits !== undefined) options.limits = request.limits;
      if (request.quota !== undefined) options.quota = request.quota;
      sandbox = new WasmSandbox(options);
      post({ type: 'ready' });
    } catch (err) {
      post({ type: 'initError', message: message(err) });
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
  try {
    switch (request.type) {
      case 'exec': {
        const id = request.id;
        const run = async () => {
          const value = await box.exec(request.script, (stream: 'stdout' | 'stderr', data: Uint8Array) => {
            post({ type: 'output', id, stream, data }, [data.buffer]);
          });
          post({ type: 'result', id, value });
        };
        // One command at a time, but keep reading messages (cancel) meanwhile.
        queue = queue.then(run).catch((err) => post({ type: 'error', id, message: message(err) }));
        return;
      }
      case 'listDir':
        post({ type: 'result', id: request.id, value: box.listDir(request.path) });
        return;
      case 'readFile':
        post({ type: 'result', id: request.id, value: box.readFile(request.path) });
        return;
      case 'writeFile':
        box.writeFile(request.path, request.data);
        post({ type: 'result', id: request.id, value: null });
        return;
    }
  } catch (err) {
    post({ type: 'error', id: request.id, message: message(err) });
  }
}

scope.onmessage = (event: MessageEvent<Request>) => {
  void handle(event.data);
};
