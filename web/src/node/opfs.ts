// The part of the browser's origin private file system (OPFS) that the runtime's OPFS
// store (crates/web/src/opfs_store) uses, over node:fs in a directory on disk, so the
// same append-only log (batch, flush, commit marker; torn tails cut at open) keeps a
// sandbox's files under Node: `navigator.storage.getDirectory()`, directory handles'
// `getDirectoryHandle`/`getFileHandle` (with `{create}`) and `removeEntry`, file
// handles' `createSyncAccessHandle()`, and sync access handles' `read`/`write` (with
// `{at}`), `truncate`, `flush` (an fsync), `getSize` and `close`. The runtime checks the
// handles' classes (`instanceof`), so they are installed as globals under the browser's
// names. Every other method of the browser's API is there too and throws
// `NotSupportedError` naming itself, so nothing is silently skipped.

import * as fs from 'node:fs';
import * as path from 'node:path';

function domError(name: string, message: string): Error {
  return new DOMException(message, name);
}

function notSupported(what: string): never {
  throw domError('NotSupportedError', `sandtab's Node storage does not implement ${what}`);
}

/** A name the browser accepts for an entry: not empty, not `.` or `..`, no separator. */
function checkName(name: unknown): string {
  if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new TypeError(`Name is not allowed: ${JSON.stringify(name)}`);
  }
  return name;
}

/** Makes a new entry in `dir` durable: its name is in the directory on disk. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open or fsync a directory; the file's own fsync
    // still holds its data.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function kindOf(full: string): 'file' | 'directory' | null {
  try {
    const stat = fs.statSync(full);
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Files with a sync access handle open in this thread: the browser allows one at a
 * time per file (other threads and processes are kept out by the sandbox's lock file). */
const openFiles = new Set<string>();

export class FileSystemHandle {
  readonly kind: 'file' | 'directory';
  readonly name: string;
  /** The path on disk. */
  protected readonly path: string;

  constructor(kind: 'file' | 'directory', name: string, full: string) {
    this.kind = kind;
    this.name = name;
    this.path = full;
  }

  async isSameEntry(other: FileSystemHandle): Promise<boolean> {
    return other instanceof FileSystemHandle && other.kind === this.kind && other.path === this.path;
  }

  queryPermission(): never {
    return notSupported('FileSystemHandle.queryPermission()');
  }

  requestPermission(): never {
    return notSupported('FileSystemHandle.requestPermission()');
  }

  remove(): never {
    return notSupported('FileSystemHandle.remove()');
  }

  move(): never {
    return notSupported('FileSystemHandle.move()');
  }
}

export class FileSystemDirectoryHandle extends FileSystemHandle {
  constructor(name: string, full: string) {
    super('directory', name, full);
  }

  async getDirectoryHandle(name: string, options: { create?: boolean } = {}): Promise<FileSystemDirectoryHandle> {
    const full = path.join(this.path, checkName(name));
    const kind = kindOf(full);
    if (kind === 'file') throw domError('TypeMismatchError', `${full} is a file, not a directory`);
    if (kind === null) {
      if (!options?.create) throw domError('NotFoundError', `no directory ${full}`);
      fs.mkdirSync(full);
      syncDirectory(this.path);
    }
    return new FileSystemDirectoryHandle(name, full);
  }

  async getFileHandle(name: string, options: { create?: boolean } = {}): Promise<FileSystemFileHandle> {
    const full = path.join(this.path, checkName(name));
    const kind = kindOf(full);
    if (kind === 'directory') throw domError('TypeMismatchError', `${full} is a directory, not a file`);
    if (kind === null) {
      if (!options?.create) throw domError('NotFoundError', `no file ${full}`);
      fs.closeSync(fs.openSync(full, 'a'));
      syncDirectory(this.path);
    }
    return new FileSystemFileHandle(name, full);
  }

  async removeEntry(name: string, options: { recursive?: boolean } = {}): Promise<void> {
    const full = path.join(this.path, checkName(name));
    const kind = kindOf(full);
    if (kind === null) throw domError('NotFoundError', `no entry ${full}`);
    if (kind === 'directory') {
      if (!options?.recursive && fs.readdirSync(full).length > 0) {
        throw domError('InvalidModificationError', `${full} is not empty`);
      }
      fs.rmSync(full, { recursive: true, force: true });
    } else {
      if (openFiles.has(full)) throw domError('NoModificationAllowedError', `${full} is open`);
      fs.rmSync(full);
    }
    syncDirectory(this.path);
  }

  resolve(): never {
    return notSupported('FileSystemDirectoryHandle.resolve()');
  }

  entries(): never {
    return notSupported('FileSystemDirectoryHandle.entries()');
  }

  keys(): never {
    return notSupported('FileSystemDirectoryHandle.keys()');
  }

  values(): never {
    return notSupported('FileSystemDirectoryHandle.values()');
  }
}

export class FileSystemFileHandle extends FileSystemHandle {
  constructor(name: string, full: string) {
    super('file', name, full);
  }

  async createSyncAccessHandle(): Promise<FileSystemSyncAccessHandle> {
    if (openFiles.has(this.path)) {
      throw domError('NoModificationAllowedError', `${this.path} already has an open sync access handle`);
    }
    let fd: number;
    try {
      fd = fs.openSync(this.path, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw domError('NotFoundError', `no file ${this.path}`);
      throw err;
    }
    openFiles.add(this.path);
    return new FileSystemSyncAccessHandle(fd, this.path);
  }

  getFile(): never {
    return notSupported('FileSystemFileHandle.getFile()');
  }

  createWritable(): never {
    return notSupported('FileSystemFileHandle.createWritable()');
  }
}

type Buffer = ArrayBuffer | ArrayBufferView;

function bytesOf(buffer: Buffer): Uint8Array {
  if (buffer instanceof ArrayBuffer) return new Uint8Array(buffer);
  if (ArrayBuffer.isView(buffer)) return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  throw new TypeError('expected an ArrayBuffer or a view of one');
}

function offsetOf(options: { at?: number } | undefined, cursor: number): number {
  const at = options?.at;
  if (at === undefined) return cursor;
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0) throw new TypeError(`bad offset ${String(at)}`);
  return at;
}

export class FileSystemSyncAccessHandle {
  #fd: number | null;
  readonly #path: string;
  /** The file position used when `at` is not given, as in the browser. */
  #cursor = 0;

  constructor(fd: number, full: string) {
    this.#fd = fd;
    this.#path = full;
  }

  #open(what: string): number {
    if (this.#fd === null) throw domError('InvalidStateError', `${what}: the access handle of ${this.#path} is closed`);
    return this.#fd;
  }

  /** Reads into `buffer` from `at` (or the cursor); the number of bytes read (fewer at
   * the end of the file). */
  read(buffer: Buffer, options?: { at?: number }): number {
    const fd = this.#open('read');
    const bytes = bytesOf(buffer);
    let at = offsetOf(options, this.#cursor);
    let done = 0;
    while (done < bytes.length) {
      const got = fs.readSync(fd, bytes, done, bytes.length - done, at);
      if (got === 0) break;
      done += got;
      at += got;
    }
    this.#cursor = at;
    return done;
  }

  /** Writes all of `buffer` at `at` (or the cursor); the number of bytes written. */
  write(buffer: Buffer, options?: { at?: number }): number {
    const fd = this.#open('write');
    const bytes = bytesOf(buffer);
    let at = offsetOf(options, this.#cursor);
    let done = 0;
    try {
      while (done < bytes.length) {
        const put = fs.writeSync(fd, bytes, done, bytes.length - done, at);
        done += put;
        at += put;
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') throw domError('QuotaExceededError', `${this.#path}: the disk is full`);
      throw err;
    }
    this.#cursor = at;
    return done;
  }

  truncate(size: number): void {
    const fd = this.#open('truncate');
    if (!Number.isSafeInteger(size) || size < 0) throw new TypeError(`bad size ${String(size)}`);
    fs.ftruncateSync(fd, size);
    if (this.#cursor > size) this.#cursor = size;
  }

  /** Puts what was written on the disk (fsync): the log's commit marker is only
   * written once the batch before it is flushed. */
  flush(): void {
    fs.fsyncSync(this.#open('flush'));
  }

  getSize(): number {
    return fs.fstatSync(this.#open('getSize')).size;
  }

  close(): void {
    if (this.#fd === null) return;
    const fd = this.#fd;
    this.#fd = null;
    openFiles.delete(this.#path);
    fs.closeSync(fd);
  }
}

export class StorageManager {
  readonly #root: string | null;

  /** `root`: the directory on disk that is the origin's private file system; null when
   * the sandbox was opened without one (then `getDirectory` says so). */
  constructor(root: string | null) {
    this.#root = root;
  }

  async getDirectory(): Promise<FileSystemDirectoryHandle> {
    if (this.#root === null) {
      throw domError('NotSupportedError', 'in Node, storage "opfs" keeps the files in a directory on disk: give Sandbox.create a `directory`');
    }
    fs.mkdirSync(this.#root, { recursive: true });
    return new FileSystemDirectoryHandle('', this.#root);
  }

  persist(): never {
    return notSupported('StorageManager.persist()');
  }

  persisted(): never {
    return notSupported('StorageManager.persisted()');
  }

  estimate(): never {
    return notSupported('StorageManager.estimate()');
  }
}

/** Installs the classes as globals (the runtime checks handles with `instanceof`) and
 * `navigator.storage` rooted at `root`, in this thread (the runtime's worker). */
export function installOpfs(root: string | null): void {
  const scope = globalThis as Record<string, unknown>;
  const classes = { FileSystemHandle, FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemSyncAccessHandle, StorageManager };
  for (const [name, value] of Object.entries(classes)) {
    Object.defineProperty(scope, name, { value, configurable: true, writable: true });
  }
  // Node 21+ has a `navigator` of its own (without `storage`; its getters check their
  // receiver, so its plain values are copied); Node 20 has none.
  const existing = (scope.navigator ?? {}) as Record<string, unknown>;
  const navigator: Record<string, unknown> = {};
  for (const key of ['userAgent', 'language', 'languages', 'platform', 'hardwareConcurrency']) {
    if (existing[key] !== undefined) navigator[key] = existing[key];
  }
  navigator.storage = new StorageManager(root);
  Object.defineProperty(scope, 'navigator', { value: navigator, configurable: true, writable: true });
}
