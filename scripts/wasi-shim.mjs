// A minimal WASI preview1 host in plain JavaScript, for `./dev bench guests`: it runs a
// guest on the JavaScript engine's own WebAssembly compiler (V8's Liftoff and TurboFan in
// Chromium), which is the speed limit sandtab's interpreter is measured against.
//
// Enough for programs that compute and print: arguments and environment, stdout and stderr
// kept in memory, an empty stdin, clocks, random bytes, exit via `proc_exit`. No files: no
// directory is preopened (`fd_prestat_get` says EBADF), so wasi-libc fails every path
// itself and never asks the host. Stdio looks like sandtab's (a character device that
// cannot seek). Every other import answers ENOSYS.
//
// Usable from Node (`runWasi(module, ...)`) and as a dedicated worker: the bench loads
// this file's text as a module worker, which answers
//   { type: 'compile', key, bytes }        -> { ok: true } (the module kept under `key`)
//   { type: 'run', key, args, env }        -> { exitCode, stdout, stderr, ms, instantiateMs }
// where `ms` times the `_start` call alone (the module is compiled beforehand and
// instantiated outside the timer, as sandtab's module cache keeps it compiled).

const ERRNO = { SUCCESS: 0, BADF: 8, INVAL: 28, NOSYS: 52, SPIPE: 70 };
const FILETYPE_CHARACTER_DEVICE = 2;
const RIGHTS_FD_READ = 1n << 1n;
const RIGHTS_FD_WRITE = 1n << 6n;
const RIGHTS_POLL_FD_READWRITE = 1n << 27n;
const EVENTTYPE_CLOCK = 0;
const EVENTTYPE_FD_READ = 1;
const EVENTRWFLAGS_HANGUP = 1;

/** What `proc_exit` throws to unwind out of `_start`. */
class Exit {
  constructor(code) {
    this.code = code;
  }
}

/** The `wasi_snapshot_preview1` imports for one instance. `memory()` gives the guest's
 * memory once it is instantiated; output is collected in `out[1]` and `out[2]`. */
function preview1(memory, { args, env }) {
  const enc = new TextEncoder();
  const argBytes = args.map((arg) => enc.encode(`${arg}\0`));
  const envBytes = Object.entries(env).map(([k, v]) => enc.encode(`${k}=${v}\0`));
  const out = { 1: [], 2: [] };
  const view = () => new DataView(memory().buffer);
  const bytes = () => new Uint8Array(memory().buffer);

  // args_get / environ_get: an array of pointers into one buffer of NUL-ended strings.
  const putStrings = (list, ptrs, buf) => {
    const v = view();
    const m = bytes();
    for (const [i, item] of list.entries()) {
      v.setUint32(ptrs + i * 4, buf, true);
      m.set(item, buf);
      buf += item.length;
    }
    return ERRNO.SUCCESS;
  };
  const putSizes = (list, countPtr, sizePtr) => {
    const v = view();
    v.setUint32(countPtr, list.length, true);
    v.setUint32(sizePtr, list.reduce((n, item) => n + item.length, 0), true);
    return ERRNO.SUCCESS;
  };
  const isStdio = (fd) => fd >= 0 && fd <= 2;

  const imports = {
    args_get: (ptrs, buf) => putStrings(argBytes, ptrs, buf),
    args_sizes_get: (count, size) => putSizes(argBytes, count, size),
    environ_get: (ptrs, buf) => putStrings(envBytes, ptrs, buf),
    environ_sizes_get: (count, size) => putSizes(envBytes, count, size),

    fd_write(fd, iovs, iovsLen, nwritten) {
      if (fd !== 1 && fd !== 2) return ERRNO.BADF;
      const v = view();
      let total = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        // A copy: the guest reuses its buffers.
        out[fd].push(bytes().slice(ptr, ptr + len));
        total += len;
      }
      v.setUint32(nwritten, total, true);
      return ERRNO.SUCCESS;
    },
    fd_read(fd, _iovs, _iovsLen, nread) {
      if (fd !== 0) return ERRNO.BADF;
      view().setUint32(nread, 0, true); // stdin is empty: end of file at once
      return ERRNO.SUCCESS;
    },
    fd_fdstat_get(fd, ptr) {
      if (!isStdio(fd)) return ERRNO.BADF;
      const v = view();
      v.setUint8(ptr, FILETYPE_CHARACTER_DEVICE);
      v.setUint16(ptr + 2, 0, true);
      const rights = (fd === 0 ? RIGHTS_FD_READ : RIGHTS_FD_WRITE) | RIGHTS_POLL_FD_READWRITE;
      v.setBigUint64(ptr + 8, rights, true);
      v.setBigUint64(ptr + 16, 0n, true);
      return ERRNO.SUCCESS;
    },
    fd_filestat_get(fd, ptr) {
      if (!isStdio(fd)) return ERRNO.BADF;
      bytes().fill(0, ptr, ptr + 64);
      const v = view();
      v.setUint8(ptr + 16, FILETYPE_CHARACTER_DEVICE);
      v.setBigUint64(ptr + 24, 1n, true); // nlink
      return ERRNO.SUCCESS;
    },
    fd_fdstat_set_flags: (fd) => (isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF),
    fd_prestat_get: () => ERRNO.BADF, // no preopens: the list ends at once
    fd_prestat_dir_name: () => ERRNO.BADF,
    fd_close: (fd) => (isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF),
    fd_seek: (fd) => (isStdio(fd) ? ERRNO.SPIPE : ERRNO.BADF),
    fd_tell: (fd) => (isStdio(fd) ? ERRNO.SPIPE : ERRNO.BADF),
    fd_sync: (fd) => (isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF),

    clock_res_get(_id, ptr) {
      view().setBigUint64(ptr, 1000n, true);
      return ERRNO.SUCCESS;
    },
    clock_time_get(id, _precision, ptr) {
      // 0: realtime; 1 (monotonic), 2 and 3 (CPU time): the page's monotonic clock.
      const ns =
        id === 0
          ? BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6))
          : BigInt(Math.round(performance.now() * 1e6));
      view().setBigUint64(ptr, ns, true);
      return ERRNO.SUCCESS;
    },
    random_get(ptr, len) {
      // getRandomValues takes at most 64 KiB at a time.
      for (let at = 0; at < len; at += 65536) {
        crypto.getRandomValues(new Uint8Array(memory().buffer, ptr + at, Math.min(65536, len - at)));
      }
      return ERRNO.SUCCESS;
    },
    sched_yield: () => ERRNO.SUCCESS,
    poll_oneoff(inPtr, outPtr, nsubs, neventsPtr) {
      // Minimal: stdin is always at end of file and stdout/stderr always writable, so
      // every fd subscription is ready at once; a clock subscription is waited out by
      // spinning (only when nothing else is ready), then reported.
      const v = view();
      let events = 0;
      const clocks = [];
      for (let i = 0; i < nsubs; i++) {
        const sub = inPtr + i * 48;
        const userdata = v.getBigUint64(sub, true);
        const tag = v.getUint8(sub + 8);
        if (tag === EVENTTYPE_CLOCK) {
          const timeout = Number(v.getBigUint64(sub + 24, true)) / 1e6;
          const absolute = (v.getUint16(sub + 40, true) & 1) === 1;
          const until = absolute ? timeout : performance.now() + timeout;
          clocks.push({ userdata, until });
          continue;
        }
        const fd = v.getUint32(sub + 16, true);
        const ev = outPtr + events++ * 32;
        bytes().fill(0, ev, ev + 32);
        v.setBigUint64(ev, userdata, true);
        v.setUint16(ev + 8, isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF, true);
        v.setUint8(ev + 10, tag);
        if (tag === EVENTTYPE_FD_READ && fd === 0) v.setUint16(ev + 24, EVENTRWFLAGS_HANGUP, true);
      }
      if (events === 0 && clocks.length > 0) {
        const first = clocks.reduce((a, b) => (a.until <= b.until ? a : b));
        while (performance.now() < first.until) {
          // spin: a worker without SharedArrayBuffer has no synchronous sleep
        }
        const ev = outPtr;
        bytes().fill(0, ev, ev + 32);
        v.setBigUint64(ev, first.userdata, true);
        v.setUint8(ev + 10, EVENTTYPE_CLOCK);
        events = 1;
      }
      v.setUint32(neventsPtr, events, true);
      return ERRNO.SUCCESS;
    },
    proc_exit(code) {
      throw new Exit(code);
    },
  };
  return { imports, out };
}

/** Instantiates `module` and runs its `_start`. Resolves to { exitCode, stdout, stderr,
 * ms, instantiateMs }: the output as text, the time `_start` took, and the time
 * instantiation took before it (memory and data segments set up). */
export async function runWasi(module, { args = ['guest'], env = {} } = {}) {
  let instance;
  const { imports, out } = preview1(() => instance.exports.memory, { args, env });
  const wasi = {};
  // Every import the module names: ours, or ENOSYS for the rest (sockets, files).
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'wasi_snapshot_preview1' || imp.kind !== 'function') {
      throw new Error(`wasi-shim: unsupported import ${imp.module}.${imp.name}`);
    }
    wasi[imp.name] = imports[imp.name] ?? (() => ERRNO.NOSYS);
  }
  const instantiating = performance.now();
  instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi });
  const instantiateMs = performance.now() - instantiating;
  let exitCode = 0;
  const start = performance.now();
  try {
    instance.exports._start();
  } catch (err) {
    if (!(err instanceof Exit)) throw err;
    exitCode = err.code;
  }
  const ms = performance.now() - start;
  const text = (chunks) => {
    const dec = new TextDecoder();
    return chunks.map((c) => dec.decode(c, { stream: true })).join('') + dec.decode();
  };
  return { exitCode, stdout: text(out[1]), stderr: text(out[2]), ms, instantiateMs };
}

// As a dedicated worker: compile modules on request and run them.
if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  const modules = new Map();
  globalThis.onmessage = async ({ data }) => {
    try {
      if (data.type === 'compile') {
        modules.set(data.key, await WebAssembly.compile(data.bytes));
        postMessage({ ok: true });
      } else if (data.type === 'run') {
        postMessage(await runWasi(modules.get(data.key), data));
      }
    } catch (err) {
      postMessage({ error: String(err?.stack ?? err) });
    }
  };
}
