// The page-side handle of a sandbox. The runtime itself lives in a dedicated Web Worker,
// so the page stays responsive while commands run, and `terminate()` can always stop it.

import type { Reply, Request } from './protocol.js';
import type { DirEntry, ExecOptions, ExecResult, SandboxOptions } from './types.js';

/** Thrown for requests the sandbox could not carry out (bad options, missing file, a
 * dead worker). A command that fails is not an error: see `ExecResult.exitCode`. */
export class SandboxError extends Error {
  override name = 'SandboxError';
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  onOutput?: (stream: 'stdout' | 'stderr', data: Uint8Array) => void;
}

interface RawResult {
  stdout: Uint8Array;
  stderr: Uint8Array;
  exitCode: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

export class Sandbox {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: SandboxError | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  /** Starts a runtime worker and a sandbox in it. Rejects with a `SandboxError` for bad
   * options (naming the field) or a worker that cannot start. */
  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    const url = options.workerUrl ?? new URL('./worker.js', import.meta.url);
    const worker = new Worker(url, { type: 'module', name: 'sandtab-runtime' });
    const sandbox = new Sandbox(worker);
    await new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<Reply>) => {
        const reply = event.data;
        if (reply.type === 'ready') {
          worker.onmessage = (e: MessageEvent<Reply>) => sandbox.#receive(e.data);
          resolve();
        } else if (reply.type === 'initError') {
          worker.terminate();
          reject(new SandboxError(reply.message));
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        worker.terminate();
        reject(new SandboxError(`the sandtab worker failed to start: ${event.message || 'unknown error'}`));
      };
      const init: Request = { type: 'init', limits: options.limits, quota: options.quota };
      worker.postMessage(init);
    });
    worker.onerror = (event: ErrorEvent) => {
      sandbox.#fail(new SandboxError(`the sandtab worker crashed: ${event.message || 'unknown error'}`));
    };
    return sandbox;
  }

  /** Runs a shell script. Output streams to the callbacks while it runs; the promise
   * resolves when it ends. Commands in one sandbox run one after another, and state
   * (`cd`, variables, functions) carries over from one to the next. */
  async exec(script: string, options: ExecOptions = {}): Promise<ExecResult> {
    const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    const onOutput = (stream: 'stdout' | 'stderr', data: Uint8Array) => {
      options.onOutput?.(stream, data);
      const handler = stream === 'stdout' ? options.onStdout : options.onStderr;
      if (handler) handler(decoders[stream].decode(data, { stream: true }));
    };
    const raw = (await this.#request({ type: 'exec', id: 0, script }, onOutput)) as RawResult;
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return {
      stdout: text(raw.stdout),
      stderr: text(raw.stderr),
      exitCode: raw.exitCode,
      stdoutBytes: raw.stdout,
      stderrBytes: raw.stderr,
      stdoutTruncated: raw.stdoutTruncated,
      stderrTruncated: raw.stderrTruncated,
    };
  }

  /** Stops the running command (it ends with exit status 130). Files and the session
   * survive; the sandbox stays usable. */
  cancel(): void {
    if (this.#dead === null) this.#worker.postMessage({ type: 'cancel' } satisfies Request);
  }

  /** The entries of a directory, sorted by name. */
  async listDir(path: string): Promise<DirEntry[]> {
    return (await this.#request({ type: 'listDir', id: 0, path })) as DirEntry[];
  }

  /** The bytes of a file. */
  async readFile(path: string): Promise<Uint8Array> {
    return (await this.#request({ type: 'readFile', id: 0, path })) as Uint8Array;
  }

  /** Writes a file (its directory must exist); a string is stored as UTF-8. */
  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    await this.#request({ type: 'writeFile', id: 0, path, data: bytes });
  }

  /** Stops the worker at once, whatever it is doing. The sandbox cannot be used after. */
  terminate(): void {
    this.#worker.terminate();
    this.#fail(new SandboxError('the sandbox was terminated'));
  }

  #request(request: Request & { id: number }, onOutput?: Pending['onOutput']): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onOutput });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #receive(reply: Reply): void {
    if (reply.type === 'ready' || reply.type === 'initError') return;
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    switch (reply.type) {
      case 'output':
        pending.onOutput?.(reply.stream, reply.data);
        return;
      case 'result':
        this.#pending.delete(reply.id);
        pending.resolve(reply.value);
        return;
      case 'error':
        this.#pending.delete(reply.id);
        pending.reject(new SandboxError(reply.message));
        return;
    }
  }

  #fail(err: SandboxError): void {
    this.#dead = err;
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
