/// <reference lib="esnext.disposable" preserve="true" />
// The page-side handle of a sandbox. The runtime itself lives in a dedicated Web Worker,
// so the page stays responsive while commands run, and `terminate()` can always stop it.

import { sandboxHost } from './host.js';
import { PROTOCOL_VERSION, type FromWorker, type Op, type Reply, type ReplyOf, type ToWorker } from './protocol.js';
import { SandboxError, CRASHED, aborted } from './errors.js';
import { compiledRuntimes, engineModules, keepEngineModule } from './compiled-modules.js';
import { openInPage, pageKey, asksOnlyNameAndStorage } from './page-shares.js';
import { PageDoors, withoutSecrets } from './page-doors.js';
import { StdinPump } from './stdin-pump.js';
import { spawnProcess } from './process.js';
import { execRequest, execResult, outputListener, type OutputListener } from './exec-io.js';
import { deleteStored, requestPersistence, storageEstimate } from './stored.js';
import type {
  ProgressEvent,
  DirEntry,
  ExecOptions,
  FileChange,
  FileStat,
  ReplayReport,
  SandboxProcess,
  SpawnOptions,
  SandboxHandoff,
  SandboxRecording,
  ExecResult,
  FsckReport,
  ImportResult,
  SandboxOptions,
  SnapshotInfo,
  StorageKind,
  GuestTier,
  Usage,
  WorkerOptions,
} from './types.js';

export { SandboxError } from './errors.js';
export type { StdinSource } from './stdin-pump.js';

/** Fired on a `Sandbox` (`change`) after an exec or a file operation changed files. */
export type SandboxChangeEvent = CustomEvent<FileChange>;

/** Fired on a `Sandbox` (`progress`) as a program downloads and compiles (as
 * `onProgress` is called). */
export type SandboxProgressEvent = CustomEvent<ProgressEvent>;

interface Pending {
  resolve: (value: Reply) => void;
  reject: (err: Error) => void;
  onOutput?: OutputListener;
}

/** A string as UTF-8 bytes; bytes as they are. */
function bytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}

export class Sandbox extends EventTarget {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  /** The number of the next exec's stdin stream, and the pumps of those running. */
  #nextStdin = 1;
  #stdinPumps = new Map<number, StdinPump>();
  #dead: SandboxError | null = null;
  /** Where its files are kept (as asked), its key in `openInPage`, and how many
   * `create` calls of this page share it. */
  #storage: StorageKind = 'indexeddb';
  #pageKey: string | null = null;
  #holders = 1;

  readonly #onProgress?: (event: ProgressEvent) => void;
  readonly #doors: PageDoors;

  private constructor(worker: Worker, options: SandboxOptions, secrets: Map<string, string>[]) {
    super();
    this.#worker = worker;
    this.#onProgress = options.onProgress;
    this.#doors = new PageDoors(options, secrets, (answer, transfer = []) => {
      if (this.#dead === null) this.#worker.postMessage(answer, transfer);
    });
  }

  /** Starts a runtime worker and opens the sandbox `options.name` in it: from
   * IndexedDB (created if new) unless `storage: 'memory'`. Only metadata is read at
   * start; file contents load when first used. The first sandbox of a page compiles the
   * runtime; later ones reuse the compiled module. Rejects with a `SandboxError` for bad
   * options (naming the field), a sandbox open in another tab (`EBUSY`), stored data
   * this version cannot read (`ENOTSUP`, `EUCLEAN`), a granted MCP server that cannot
   * be reached (naming it), or a worker that cannot start.
   *
   * In one page, a name is one sandbox: a `create` that asks for nothing but `name`
   * and `storage` of a sandbox this page has open (or is opening: a
   * `<sandtab-terminal>`'s, say) resolves to that same `Sandbox`, and each `close()`
   * lets go of one share (the worker ends with the last). Asking for more (limits,
   * programs, capabilities) of a name already open here is `EBUSY`. */
  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    const key = pageKey(options);
    const open = key === null ? undefined : openInPage.get(key);
    if (open !== undefined) {
      if (!asksOnlyNameAndStorage(options)) {
        throw new SandboxError(
          `sandbox "${key}" is already open in this page: create it once with these options and share that Sandbox (for <sandtab-terminal>, its \`sandbox\` property), or close() it first`,
          'EBUSY',
        );
      }
      const shared = await open;
      if (shared.#storage !== (options.storage ?? shared.#storage)) {
        throw new SandboxError(`sandbox "${key}" is already open in this page, kept in ${shared.#storage}`, 'EBUSY');
      }
      shared.#holders++;
      return shared;
    }
    const starting = Sandbox.#start(options);
    if (key === null) return starting;
    openInPage.set(key, starting);
    try {
      const sandbox = await starting;
      sandbox.#pageKey = key;
      return sandbox;
    } catch (err) {
      if (openInPage.get(key) === starting) openInPage.delete(key);
      throw err;
    }
  }

  static async #start(options: SandboxOptions): Promise<Sandbox> {
    const { document: capabilities, secrets } = withoutSecrets(options.capabilities);
    // The default is written exactly in this form so that bundlers (Vite, webpack 5,
    // Parcel, esbuild with a plugin) see the worker and bundle it with its wasm.
    // Outside a browser (Node) the host starts its own kind of worker.
    const worker = sandboxHost ? await sandboxHost.startWorker(options) : options.workerUrl
      ? new Worker(options.workerUrl, { type: 'module', name: 'sandtab-runtime' })
      : new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'sandtab-runtime' });
    const runtimeKey = String(options.workerUrl ?? 'bundled');
    const sandbox = new Sandbox(worker, options, secrets);
    sandbox.#storage = options.storage ?? 'indexeddb';
    await new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const reply = event.data;
        if (reply.type === 'ready') {
          if (reply.module instanceof WebAssembly.Module) compiledRuntimes.set(runtimeKey, reply.module);
          worker.onmessage = (e: MessageEvent<FromWorker>) => sandbox.#receive(e.data);
          resolve();
        } else if (reply.type === 'initError') {
          worker.terminate();
          reject(new SandboxError(reply.message, reply.code));
        } else if (reply.type === 'crashed') {
          worker.terminate();
          reject(new SandboxError(reply.message, CRASHED));
        } else {
          // Opening may already use the doors: MCP servers are connected to first.
          sandbox.#receive(reply);
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        worker.terminate();
        reject(new SandboxError(`the sandtab worker failed to start: ${event.message || 'unknown error'}`, CRASHED));
      };
      worker.onmessageerror = () => {
        worker.terminate();
        reject(new SandboxError('the sandtab worker sent a message that could not be read', CRASHED));
      };
      const { workerUrl: _, onProgress: _p, hostCall: _h, tools: _t, capabilities: _c, ui: _u, uiScripts: _s, ...rest } = options;
      const workerOptions: WorkerOptions = capabilities ? { ...rest, capabilities } : rest;
      // Program URLs are relative to the page, not to the worker script.
      const programs = workerOptions.programs?.map((spec) => ({ ...spec, url: sandboxHost?.programUrl(spec.url) ?? new URL(spec.url, globalThis.location?.href).href }));
      const init: ToWorker = {
        type: 'init',
        v: PROTOCOL_VERSION,
        options: { ...workerOptions, ...(programs ? { programs } : {}) } satisfies WorkerOptions,
        module: compiledRuntimes.get(runtimeKey),
        engineModules: [...engineModules],
        hostCall: options.hostCall !== undefined || options.tools !== undefined,
      };
      worker.postMessage(init);
    });
    // The worker's script failed outside anything it caught (it reports the runtime's
    // own crashes as `crashed`): the same end.
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      sandbox.#crash(`the sandtab worker failed: ${event.message || 'unknown error'}`);
    };
    worker.onmessageerror = () => sandbox.#crash('the sandtab worker sent a message that could not be read');
    return sandbox;
  }

  /** Runs a shell script. Output streams to the callbacks while it runs; the promise
   * resolves when it ends. Commands in one sandbox run one after another; within a
   * session (`options.session`, default `"main"`) state (`cd`, variables, functions,
   * aliases, `set` options) carries over from one to the next. Rejects with a
   * `SandboxError` for bad options. */
  async exec(script: string, options: ExecOptions = {}): Promise<ExecResult> {
    if (options.signal?.aborted) throw aborted();
    const request = execRequest(script, options);
    const { stdin } = options;
    let pump: StdinPump | undefined;
    if (stdin !== undefined && stdin !== null && typeof stdin !== 'string' && !(stdin instanceof Uint8Array)) {
      const stream = this.#nextStdin++;
      request.stdinStream = stream;
      pump = new StdinPump(stream, stdin, (message) => {
        if (this.#dead === null) this.#worker.postMessage(message);
      });
      this.#stdinPumps.set(stream, pump);
    }
    let raw: ReplyOf<'exec'>;
    try {
      const running = this.#run({ op: 'exec', ...request }, 'exec', outputListener(options), options.signal);
      pump?.start();
      raw = await running;
    } finally {
      pump?.stop();
      if (pump) this.#stdinPumps.delete(pump.stream);
    }
    if (pump?.error) throw pump.error;
    if (raw.filesChanged) this.#changed('exec');
    return execResult(raw);
  }

  /** Starts a script as a process with streams (as WebContainer's `spawn`): its
   * output comes on `stdout`/`stderr` as it is written, its input is written to
   * `stdin` while it runs, `exit` resolves to its status. It queues behind earlier
   * commands as `exec` does, and runs as `exec` with a `stdin` stream does: as the
   * last stage of a pipeline, so its `cd` and variables do not stay in the session.
   * A sandbox that records refuses it (it takes stdin only whole). */
  spawn(script: string, options: SpawnOptions = {}): SandboxProcess {
    return spawnProcess((text, execOptions) => this.exec(text, execOptions), script, options);
  }

  /** Calls tool `name` with `args` as an agent's model would: sandtab's own tools
   * (`bash`, `read_file`, `write_file`, `edit_file`, `fetch`; see `toolDefinitions`)
   * or a granted one, which goes through the same check as the shell's `tool` command
   * and guests' calls (schema, constraints, `max_calls`, rate limit). Resolves to the
   * answer (for `bash`: `{ stdout, stderr, exit_code }`). Rejects with a
   * `SandboxError` whose `code` says why (`CAP_DENIED`, `CAP_CONSTRAINT`, `CAP_BAD_ARGS`,
   * `ENOENT`, `EINVAL` for an edit that does not match, ...). sandtab's own tools are
   * checked too (the document's `builtins` may deny them or keep the file tools to some
   * paths) and every call is in the audit log. Runs after the commands queued before it. */
  async callTool(name: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const str = (key: string, optional = false): string | undefined => {
      const value = args[key];
      if (value === undefined && optional) return undefined;
      if (typeof value !== 'string') throw new SandboxError(`${name}: \`${key}\` must be a string`, 'CAP_BAD_ARGS');
      return value;
    };
    switch (name) {
      case 'fetch': {
        const headers = args.headers ?? {};
        const response = await this.fetch(str('url')!, {
          method: str('method', true) ?? 'GET',
          headers: headers as Record<string, string>,
          body: str('body', true),
          follow: true,
        });
        return {
          status: response.status,
          url: response.url,
          headers: Object.fromEntries(response.headers),
          body: new TextDecoder().decode(response.body),
        };
      }
      case 'ui': {
        const path = str('path', true);
        // The file is read as the `ui` door's own input (that door is checked by its own
        // grant), not as a `read_file` call the model did not make.
        const file = path === undefined ? undefined : path.startsWith('/') ? path : `/home/agent/${path}`;
        const html = file === undefined ? str('html', true) : new TextDecoder().decode(await this.readFile(file));
        if (html !== undefined) await this.#run({ op: 'ui', request: { action: 'show', html, title: 'sandbox ui' } }, 'uiEvent');
        if (args.wait === false) return { shown: html !== undefined };
        const seconds = typeof args.timeout_seconds === 'number' ? args.timeout_seconds : 300;
        const { event } = await this.#run({ op: 'ui', request: { action: 'wait', timeoutMs: Math.max(0, Math.round(seconds * 1000)) } }, 'uiEvent');
        return { event: event === null ? null : (JSON.parse(event) as unknown) };
      }
      // sandtab's own tools: the runtime checks them at the gate (the document's
      // `builtins`, their schemas and limits) and logs them, like granted tools.
      case 'bash':
      case 'read_file':
      case 'write_file':
      case 'edit_file':
      default: {
        const { text } = await this.#run({ op: 'callTool', name, args: JSON.stringify(args) }, 'text');
        return JSON.parse(text) as unknown;
      }
    }
  }

  /** The sandbox's tools for a model: its own (`bash`, `read_file`, `write_file`,
   * `edit_file`, and `fetch` when an origin is granted), then the granted ones, in the
   * OpenAI (`tools` of chat completions), Anthropic (`tools` of messages) or MCP
   * (`tools/list`) format. */
  async toolDefinitions(format: 'openai' | 'anthropic' | 'mcp' = 'openai'): Promise<unknown[]> {
    const { text } = await this.#run({ op: 'toolDefinitions', format }, 'text');
    return JSON.parse(text) as unknown[];
  }

  /** An HTTP request through the sandbox's network policy (the same check as `curl`'s:
   * granted origins, paths and methods, every redirect hop, the size cap; injected
   * headers added on the page). Rejects with a `SandboxError` whose `code` is
   * `CAP_NET_...` when refused. */
  async fetch(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array; follow?: boolean } = {},
  ): Promise<{ status: number; statusText: string; headers: [string, string][]; url: string; redirected: boolean; body: Uint8Array }> {
    const headers = Object.entries(init.headers ?? {}) as [string, string][];
    for (const [name, value] of headers) {
      if (typeof value !== 'string') throw new SandboxError(`fetch: header \`${name}\` must be a string`, 'EINVAL');
    }
    const body = typeof init.body === 'string' ? new TextEncoder().encode(init.body) : init.body;
    const request = { url, headers, ...(init.method === undefined ? {} : { method: init.method }), ...(body == null ? {} : { body }), ...(init.follow === undefined ? {} : { follow: init.follow }) };
    const { reply: _, ...response } = await this.#run({ op: 'fetch', request }, 'fetched');
    return response;
  }

  /** The recording so far of a sandbox created with `record: true`: every exec,
   * `callTool`, `writeFile`, file tool and `fetch`, with the clock readings, random
   * bytes and door answers each consumed, its outcome, and the file tree's digest. JSON:
   * keep it, download it, replay it with `Sandbox.replay`. */
  async recording(): Promise<SandboxRecording> {
    return (await this.#run({ op: 'recording' }, 'json')).value as SandboxRecording;
  }

  /** Replays `recording` in a new sandbox in memory: every operation again, with the
   * recorded clock, random bytes and tool, network and ui answers, and no door open (no
   * handler runs, nothing is sent). `options` adds what the recording does not hold: the
   * same `programs` and `mounts` if it used them. Resolves to the report (`ok` when
   * every outcome and the final file tree are the same, bit for bit) and the replayed
   * sandbox, to look at (terminate it when done). */
  static async replay(
    recording: SandboxRecording,
    options: Pick<SandboxOptions, 'programs' | 'mounts' | 'workerUrl' | 'onProgress' | 'guestTier'> = {},
  ): Promise<{ report: ReplayReport; sandbox: Sandbox }> {
    if (recording?.format !== 'sandtab-recording') {
      throw new SandboxError('Sandbox.replay needs a recording from sandbox.recording()', 'EINVAL');
    }
    const sandbox = await Sandbox.create({ ...recording.options, ...options, storage: 'memory', replay: recording });
    try {
      const report = (await sandbox.#run({ op: 'replay' }, 'json')).value as ReplayReport;
      return { report, sandbox };
    } catch (err) {
      sandbox.terminate();
      throw err;
    }
  }

  /** Saves, then takes this sandbox down to hand to another host: every file with its
   * mode and times, each session's state (`cd`, variables, functions, options) and the
   * options it carries on (capabilities without the secrets this page keeps). Resume it
   * with `Sandbox.create({ resume })` here, under Node, or with `sandtab sh --resume
   * FILE`; runs after the commands queued before it. */
  async handoff(): Promise<SandboxHandoff> {
    return (await this.#run({ op: 'handoff' }, 'json')).value as SandboxHandoff;
  }

  /** The audit log as JSON Lines: every exec, tool call, network request and denial,
   * with its time, arguments (secrets redacted) and result size, oldest first (the
   * last 10,000). Answered at once, even while a command runs. */
  async auditLog(): Promise<string> {
    return (await this.#run({ op: 'auditLog' }, 'text')).text;
  }

  /** Stops the running command (it ends with exit status 130), and ends a pending `ui`
   * wait with no event. Files and the session survive; the sandbox stays usable. */
  cancel(): void {
    if (this.#dead === null) this.#worker.postMessage({ type: 'cancel' } satisfies ToWorker);
    this.#doors.stopWaiting();
  }

  /** As Ctrl-C in a terminal. A program waiting for typed input on a `tty` exec's
   * stdin that takes interrupts gets one and goes on: sandtab's CPython raises
   * `KeyboardInterrupt` there (its REPL shows a new prompt, a script can catch it).
   * Anything else (a program computing, a shell command) is cancelled as by `cancel()`. */
  interrupt(): void {
    if (this.#dead === null) this.#worker.postMessage({ type: 'interrupt' } satisfies ToWorker);
    this.#doors.stopWaiting();
  }

  /** Tab completion, as `<sandtab-terminal>` does it: what may complete the last word
   * of `before` (a line up to its cursor) in session `session` (default `"main"`):
   * command names where a command stands (builtins, programs, functions, aliases,
   * executables on `PATH`), variables after `$`, paths otherwise (directories end with
   * `/`, names escaped as they would be typed). `word` is that last word as typed; each
   * candidate replaces it. Rejects with `EBUSY` while a command runs. */
  async complete(before: string, options: { session?: string } = {}): Promise<{ word: string; candidates: string[] }> {
    const op: Op = { op: 'complete', before };
    if (options.session !== undefined) op.session = options.session;
    const { word, candidates } = await this.#run(op, 'completion');
    return { word, candidates };
  }

  /** Whether `script` is a whole command, or one more lines would continue (an open
   * quote, `for` without `done`, a line ending in `|` or `&&`): a terminal shows `> `
   * for the next line then, as bash does. True for a whole command and for a mistake
   * no further line could mend (running it reports the error). */
  async isComplete(script: string): Promise<boolean> {
    return (await this.#run({ op: 'isComplete', script }, 'flag')).value;
  }

  /** The entries of a directory, sorted by name (answered even while a command runs). */
  async listDir(path: string): Promise<DirEntry[]> {
    return (await this.#run({ op: 'listDir', path }, 'entries')).entries;
  }

  /** The bytes of a file. */
  async readFile(path: string): Promise<Uint8Array> {
    return (await this.#run({ op: 'readFile', path }, 'bytes')).data;
  }

  /** Writes a file and saves it; a string is stored as UTF-8. Its directory must exist,
   * unless `createParents` (then those missing are made). */
  async writeFile(path: string, data: Uint8Array | string, options: { createParents?: boolean } = {}): Promise<void> {
    const op: Op = { op: 'writeFile', path, data: bytes(data) };
    if (options.createParents === true) op.parents = true;
    await this.#run(op, 'done');
    this.#changed('writeFile', [path]);
  }

  /** Writes many files in order (`{ path: contents }`) and saves them together; with
   * `createParents`, their missing directories are made. One that fails stops the rest
   * (the error says how many were written, and those stay saved). */
  async writeFiles(files: Record<string, Uint8Array | string>, options: { createParents?: boolean } = {}): Promise<void> {
    const list = Object.entries(files).map(([path, data]) => ({ path, data: bytes(data) }));
    const op: Op = { op: 'writeFiles', files: list };
    if (options.createParents === true) op.parents = true;
    try {
      await this.#run(op, 'done');
    } finally {
      // Those before a failure were written too.
      this.#changed('writeFiles', list.map((file) => file.path));
    }
  }

  /** Makes a directory; with `recursive`, those above it too, and one that exists is
   * no error (else `EEXIST`). */
  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    const op: Op = { op: 'mkdir', path };
    if (options.recursive === true) op.parents = true;
    await this.#run(op, 'done');
    this.#changed('mkdir', [path]);
  }

  /** Removes a file, a symlink or an empty directory; with `recursive`, a directory and
   * everything below it; with `force`, a path that does not exist is no error. */
  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    const op: Op = { op: 'remove', path };
    if (options.recursive === true) op.recursive = true;
    if (options.force === true) op.force = true;
    await this.#run(op, 'done');
    this.#changed('rm', [path]);
  }

  /** Renames (moves) a file or a directory; a file at `to` is replaced. */
  async rename(from: string, to: string): Promise<void> {
    await this.#run({ op: 'rename', from, to }, 'done');
    this.#changed('rename', [from, to]);
  }

  /** What is at `path` (symlinks followed); rejects with `ENOENT` if nothing is.
   * Answered at once, even while a command runs. */
  async stat(path: string): Promise<FileStat> {
    const { reply: _, ...stat } = await this.#run({ op: 'stat', path }, 'stat');
    return stat;
  }

  /** Whether something is at `path` (symlinks followed). */
  async exists(path: string): Promise<boolean> {
    try {
      await this.stat(path);
      return true;
    } catch (err) {
      if (err instanceof SandboxError && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return false;
      throw err;
    }
  }

  /** Listens for `change`: after each exec and file operation that changed files; and
   * for `progress`: a program downloading and compiling. */
  override addEventListener(
    type: 'change',
    listener: (event: SandboxChangeEvent) => void,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: 'progress',
    listener: (event: SandboxProgressEvent) => void,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(type: string, listener: never, options?: boolean | AddEventListenerOptions): void {
    super.addEventListener(type, listener, options);
  }

  override removeEventListener(
    type: 'change',
    listener: (event: SandboxChangeEvent) => void,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(
    type: 'progress',
    listener: (event: SandboxProgressEvent) => void,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(type: string, listener: never, options?: boolean | EventListenerOptions): void {
    super.removeEventListener(type, listener, options);
  }

  #changed(cause: FileChange['cause'], paths: string[] = []): void {
    this.dispatchEvent(new CustomEvent<FileChange>('change', { detail: { cause, paths } }));
  }

  /** The sandbox's name, where its files are kept, and the engine its guest programs
   * run on (`engine`: the browser's own, metered; `interpreter`: wasmi). */
  async info(): Promise<{ name: string; storage: StorageKind; guestTier: GuestTier }> {
    const { name, storage, guestTier } = await this.#run({ op: 'info' }, 'info');
    return { name, storage, guestTier };
  }

  /** Bytes, files and directories in use, with the quota. */
  async usage(): Promise<Usage> {
    const { reply: _, ...usage } = await this.#run({ op: 'usage' }, 'usage');
    return usage;
  }

  /** Ends the shell session `name` (its `cd`, variables, functions, aliases and
   * options); the files stay. Resolves to whether there was one. Runs after the
   * commands queued before it. */
  async closeSession(name: string): Promise<boolean> {
    return (await this.#run({ op: 'closeSession', name }, 'flag')).value;
  }

  /** The names of the shell sessions that exist, sorted (after the queued commands). */
  async sessionNames(): Promise<string[]> {
    return (await this.#run({ op: 'sessionNames' }, 'names')).names;
  }

  /** Saves every change not yet saved (commands and `writeFile` save on their own). */
  async flush(): Promise<{ records: number; bytes: number }> {
    const { records, bytes } = await this.#run({ op: 'flush' }, 'flushed');
    return { records, bytes };
  }

  /** Saves, then keeps the current files as a snapshot. Cheap: contents are shared with
   * the live files, not copied. Needs IndexedDB storage. */
  async snapshot(label = ''): Promise<SnapshotInfo> {
    const { reply: _, ...info } = await this.#run({ op: 'snapshot', label }, 'snapshot');
    return info;
  }

  /** The snapshots kept, oldest first. */
  async snapshots(): Promise<SnapshotInfo[]> {
    return (await this.#run({ op: 'snapshots' }, 'snapshots')).snapshots;
  }

  /** Makes the files exactly those of snapshot `id`; later changes are discarded. */
  async restore(id: number): Promise<void> {
    await this.#run({ op: 'restore', id }, 'done');
    this.#changed('restore', ['/']);
  }

  /** Deletes a snapshot and the contents only it kept. */
  async deleteSnapshot(id: number): Promise<void> {
    await this.#run({ op: 'deleteSnapshot', id }, 'done');
  }

  /** Copies the files (or snapshot `snapshotId`'s) into a new stored sandbox `name`,
   * which must not exist yet; open it with `Sandbox.create({ name })`. */
  async fork(name: string, snapshotId?: number): Promise<void> {
    await this.#run({ op: 'fork', newName: name, ...(snapshotId === undefined ? {} : { snapshotId }) }, 'done');
  }

  /** A tar archive of the files below `path` (default `/`); mounts are left out. */
  async exportTar(path = '/'): Promise<Uint8Array> {
    return (await this.#run({ op: 'exportTar', path }, 'bytes')).data;
  }

  /** Unpacks a tar archive below `path` (default `/`) and saves. Paths cannot climb
   * out of `path`. */
  async importTar(archive: Uint8Array, path = '/'): Promise<ImportResult> {
    try {
      const { reply: _, ...stats } = await this.#run({ op: 'importTar', data: archive, path }, 'imported');
      return stats;
    } finally {
      // What came before a failure was kept too.
      this.#changed('importTar', [path]);
    }
  }

  /** Saves, then reads back and checks every stored record (checksums, the tree, every
   * file's contents). */
  async fsck(): Promise<FsckReport> {
    const { reply: _, ...report } = await this.#run({ op: 'fsck' }, 'fsck');
    return report;
  }

  /** Deletes the stored sandbox `name`: its IndexedDB database and its OPFS files. Fails
   * with `EBUSY` while a tab has it open (a sandbox this page just terminated is waited
   * for, up to 3 s). */
  static async deleteStored(name: string): Promise<void> {
    return deleteStored(name);
  }

  /** Asks the browser to keep this origin's storage under pressure (`navigator.storage
   * .persist()`); resolves to whether it agreed. */
  static async requestPersistence(): Promise<boolean> {
    return requestPersistence();
  }

  /** The browser's storage use and quota for this origin, in bytes. */
  static async storageEstimate(): Promise<{ usage: number; quota: number } | null> {
    return storageEstimate();
  }

  /** Stops the worker at once, whatever it is doing, for every share of it. The sandbox
   * cannot be used after. */
  terminate(): void {
    this.#worker.terminate();
    this.#fail(new SandboxError('the sandbox was terminated', 'ECLOSED'));
  }

  /** Closes the sandbox: waits for the commands queued before it, saves what is not
   * saved yet, then ends the worker and lets go of the sandbox's name (another tab or
   * `Sandbox.create` may open it). Later calls reject with `ECLOSED`. Calling it again
   * is fine. Also `await using sandbox = await Sandbox.create()`. */
  async close(): Promise<void> {
    if (this.#dead !== null) return;
    if (--this.#holders > 0) return;
    // At once, so that a `create` from here on starts anew instead of sharing this.
    this.#leavePage();
    try {
      await this.flush();
    } finally {
      this.#worker.terminate();
      this.#fail(new SandboxError('the sandbox was closed', 'ECLOSED'));
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Sends `op` to the worker (queued there unless it is a query) and resolves to its
   * reply, which must be of kind `kind`. */
  async #run<K extends Reply['reply']>(
    op: Op,
    kind: K,
    onOutput?: OutputListener,
    signal?: AbortSignal,
  ): Promise<ReplyOf<K>> {
    if (this.#dead) throw this.#dead;
    const id = this.#nextId++;
    const abort = () => {
      if (this.#dead === null) this.#worker.postMessage({ type: 'abort', id } satisfies ToWorker);
    };
    signal?.addEventListener('abort', abort, { once: true });
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onOutput });
      const message: ToWorker = { type: 'op', v: PROTOCOL_VERSION, id, op };
      if (onOutput) message.stream = true;
      this.#worker.postMessage(message);
    }).finally(() => signal?.removeEventListener('abort', abort));
    if (reply.reply !== kind) {
      throw new SandboxError(`the runtime answered ${op.op} with a ${reply.reply} reply, not ${kind}`, 'EPROTO');
    }
    return reply as ReplyOf<K>;
  }

  #receive(reply: FromWorker): void {
    if (reply.type === 'ready' || reply.type === 'initError') return;
    if (reply.type === 'stdinError') {
      this.#stdinPumps.get(reply.stream)?.fail(new SandboxError(reply.message, reply.code ?? 'EINVAL'));
      return;
    }
    if (reply.type === 'crashed') {
      this.#crash(reply.message);
      return;
    }
    if (reply.type === 'engineModule') {
      if (reply.module instanceof WebAssembly.Module) keepEngineModule(reply.key, reply.module);
      return;
    }
    if (reply.type === 'progress') {
      this.#onProgress?.(reply.event);
      this.dispatchEvent(new CustomEvent<ProgressEvent>('progress', { detail: reply.event }));
      return;
    }
    if (reply.type === 'hostCall') {
      void this.#doors.answerHostCall(reply.callId, reply.name, reply.args);
      return;
    }
    if (reply.type === 'netFetch') {
      void this.#doors.answerNetFetch(reply.callId, reply.request);
      return;
    }
    if (reply.type === 'ui') {
      void this.#doors.answerUi(reply.callId, reply.action);
      return;
    }
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
        pending.reject(new SandboxError(reply.message, reply.code));
        return;
    }
  }

  /** The runtime is broken: no call may reach it again. Terminating the worker (if it
   * has not ended itself) releases the sandbox's Web Lock, so it can be opened again. */
  #crash(message: string): void {
    this.#worker.terminate();
    this.#fail(new SandboxError(message, CRASHED));
  }

  #leavePage(): void {
    if (this.#pageKey !== null) openInPage.delete(this.#pageKey);
    this.#pageKey = null;
  }

  #fail(err: SandboxError): void {
    // The first cause stays: a later terminate() must not hide a crash.
    if (this.#dead !== null) return;
    this.#dead = err;
    this.#leavePage();
    this.#doors.close();
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
