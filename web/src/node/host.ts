// The page's parts under Node (see ../host.ts): the runtime's worker is a worker_threads
// Worker running node/worker.js, wrapped to look like a DOM Worker to Sandbox; a stored
// sandbox is kept in a directory on disk, one process and one Sandbox at a time (a lock
// file, as the browser's Web Lock); requests go out through Node's fetch (./net.ts);
// there is no ui door; program URLs may be paths.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker as ThreadWorker } from 'node:worker_threads';
import { SandboxError } from '../errors.js';
import type { SandboxHost, UiDoor } from '../host.js';
import type { FromWorker, ToWorker } from '../protocol.js';
import type { SandboxOptions } from '../types.js';
import { NodeNetBroker } from './net.js';

const WORKER_URL = new URL('./worker.js', import.meta.url);

/** How long to wait for a sandbox this process is letting go (as worker.ts's Web Lock). */
const LOCK_WAIT_MS = 2000;

/** Lock files this process holds, by path. */
const heldLocks = new Set<string>();

// A process that ends with sandboxes open lets them go (one killed leaves its lock
// file, which the next process takes over: its pid is gone).
process.on('exit', () => {
  for (const file of heldLocks) fs.rmSync(file, { force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `DIRECTORY/sandtab/NAME.lock` for this process: a file holding its pid, made
 * with O_EXCL; one whose process is gone is taken over. Resolves to a release function,
 * or rejects with EBUSY when another Sandbox or process keeps it past LOCK_WAIT_MS. */
async function takeLock(directory: string, name: string): Promise<() => void> {
  const dir = path.join(directory, 'sandtab');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.lock`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if (!heldLocks.has(file)) {
      try {
        fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
        heldLocks.add(file);
        return () => {
          heldLocks.delete(file);
          fs.rmSync(file, { force: true });
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
        // Left by a process that ended without letting go, or by this one's earlier life.
        if (!Number.isInteger(pid) || pid === process.pid || !alive(pid)) {
          fs.rmSync(file, { force: true });
          continue;
        }
      }
    }
    if (Date.now() >= deadline) {
      throw new SandboxError(
        `sandbox "${name}" in ${directory} is already open (in this process or another); terminate it there, or open another name`,
        'EBUSY',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Handler<E> = ((event: E) => void) | null;

/** A worker_threads Worker as Sandbox uses a DOM Worker. It keeps the process alive only
 * while a call waits for an answer, so a script that forgets `terminate()` still ends. */
class NodeWorker {
  onmessage: Handler<{ data: FromWorker }> = null;
  onerror: Handler<{ message: string; error?: unknown; preventDefault(): void }> = null;
  onmessageerror: Handler<unknown> = null;
  readonly #thread: ThreadWorker;
  /** Calls waiting for an answer: op ids, and -1 for the start. */
  readonly #waiting = new Set<number>();
  #ended = false;
  #crashed = false;

  constructor(directory: string | null, release: () => void) {
    this.#thread = new ThreadWorker(WORKER_URL, { name: 'sandtab-runtime', workerData: { directory } });
    this.#thread.unref();
    this.#thread.on('message', (data: FromWorker) => {
      this.#settle(data);
      this.onmessage?.({ data });
    });
    this.#thread.on('messageerror', (error) => this.onmessageerror?.({ error }));
    this.#thread.on('error', (error: Error) => {
      this.onerror?.({ message: error.message, error, preventDefault() {} });
    });
    this.#thread.on('exit', (code) => {
      release();
      // Messages the worker posted before it ended come first.
      setImmediate(() => {
        if (this.#ended || this.#crashed) return;
        this.#ended = true;
        this.onerror?.({ message: `the worker ended (exit code ${code})`, preventDefault() {} });
      });
    });
  }

  postMessage(message: ToWorker, transfer: Transferable[] = []): void {
    if (message.type === 'init') this.#wait(-1);
    else if (message.type === 'op') this.#wait(message.id);
    this.#thread.postMessage(message, transfer as never);
  }

  terminate(): void {
    this.#ended = true;
    this.#waiting.clear();
    void this.#thread.terminate();
  }

  #wait(id: number): void {
    if (this.#waiting.size === 0) this.#thread.ref();
    this.#waiting.add(id);
  }

  #settle(reply: FromWorker): void {
    if (reply.type === 'ready' || reply.type === 'initError') this.#waiting.delete(-1);
    else if (reply.type === 'result' || reply.type === 'error') this.#waiting.delete(reply.id);
    else if (reply.type === 'crashed') {
      this.#crashed = true;
      this.#waiting.clear();
    }
    if (this.#waiting.size === 0) this.#thread.unref();
  }
}

/** Refuses the `ui` door: Node has no page to show it in. */
class NoUi implements UiDoor {
  async run(): Promise<string | null> {
    throw Object.assign(new Error('the ui door needs a browser page: under Node there is no user interface to show'), { code: 'CAP_DENIED' });
  }

  stopWaiting(): void {}

  close(): void {}
}

/** The options' storage checked for Node: its kind and directory (absolute). */
function storageOf(options: SandboxOptions): { storage: 'memory' | 'opfs'; directory: string | null } {
  const { storage, directory } = options;
  if (directory !== undefined && (typeof directory !== 'string' || directory === '')) {
    throw new SandboxError('`directory` must be the path of a directory', 'EINVAL');
  }
  if (directory !== undefined) {
    if (storage !== undefined && storage !== 'opfs') {
      throw new SandboxError(`\`directory\` keeps the files on disk in the OPFS log format: leave \`storage\` out or make it "opfs", not "${storage}"`, 'EINVAL');
    }
    return { storage: 'opfs', directory: path.resolve(directory) };
  }
  if (storage === 'opfs') {
    throw new SandboxError('in Node, storage "opfs" keeps the files in a directory on disk: give `directory` too', 'EINVAL');
  }
  if (storage === 'indexeddb') {
    throw new SandboxError('Node has no IndexedDB: use storage "memory" (the default) or a `directory` on disk', 'ENOTSUP');
  }
  return { storage: 'memory', directory: null };
}

/** A URL, or a path (relative to the working directory) as a `file:` URL. */
function programUrl(url: string): string {
  // A scheme of two letters or more (one letter is a Windows drive).
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(url)) return new URL(url).href;
  return pathToFileURL(path.resolve(url)).href;
}

export const nodeHost: SandboxHost = {
  async startWorker(options: SandboxOptions): Promise<Worker> {
    if (options.workerUrl !== undefined) {
      throw new SandboxError('`workerUrl` is for browsers: under Node the runtime runs in a worker_threads Worker of its own', 'EINVAL');
    }
    if (options.ui !== undefined) throw new SandboxError('`ui` needs a browser page: Node has no user interface to show', 'EINVAL');
    const { storage, directory } = storageOf(options);
    const name = options.name ?? 'default';
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
      throw new SandboxError(`\`name\` ${JSON.stringify(name)} cannot name a sandbox on disk`, 'EINVAL');
    }
    const release = storage === 'opfs' && directory !== null ? await takeLock(directory, name) : () => {};
    try {
      return new NodeWorker(directory, release) as unknown as Worker;
    } catch (err) {
      release();
      throw err;
    }
  },
  net: (secrets) => new NodeNetBroker(secrets),
  ui: () => new NoUi(),
  programUrl,
};
