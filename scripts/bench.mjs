// `./dev bench [guests|storage|shell|weight]`: benchmarks in headless Chromium, each
// against a baseline measured in the same run, printed as ratios. Never a timed
// assertion: it prints, it does not fail on a slow machine. With no part named, all run
// (weight, storage, guests, shell). BENCH_ROUNDS (default 5) sets the rounds; medians
// are printed. Weight (`weight`): the demo's bytes on a first visit and a reload, and
// the runtime's size (scripts/bench-weight.mjs).
//
// Shell (`shell`): sandtab's shell vs just-bash and rust-bash in the same page, with the
// per-command round trip and the agent mix (scripts/bench-shell.mjs), in each browser of
// BENCH_BROWSERS (default `chromium,firefox`; Firefox with its timer precision not
// reduced, so per-exec times are not rounded to 1 ms). Storage and guests: Chromium.
//
// Guests (`guests`): the same WASI programs run four ways (see the guest part below):
//   sha256   SHA-256 over 16 MiB of generated data (target/guests/c/sha256.wasm)
//   cpuloop  a CoreMark-style CPU loop, BENCH_CPULOOP iterations (default 20,000)
//   python   `python3 -c pass`, CPython's start-up, with the module already cached
//   sum      `python3 -c 'print(sum(range(10**6)))'`
//   each in sandtab on its engine tier (the browser's engine, metered, with JSPI) and on
//   its interpreter (wasmi in the runtime's worker), vs the browser's own engine unmetered
//   through scripts/wasi-shim.mjs in a worker (the speed limit) vs wasmi natively
//   (`target/release/sandtab run`, built here if stale), whose start-up floor is shown too.
//   Goals (issue 21): engine tier / unmetered engine <= 2x for sha256, <= 2.5x for sum,
//   <= 1.5x and <= 150 ms for python3 -c pass; interpreter / native wasmi <= 2.5x on the
//   CPU loops. CPython's first run on each tier (compiling included) is shown too.
//
// Storage (`storage`):
//   write  1,000 files of 4 KiB into a sandbox and flush (one tar import, one flush)
//          vs the same bytes put by raw IndexedDB in one transaction
//   read   the same files read back from a freshly opened sandbox (contents load
//          lazily) vs raw IndexedDB gets in one transaction
//   reopen a sandbox of 10,000 files until the first `ls` answers
//          vs an empty sandbox, both from a new worker
//   opfs   a 100 MiB file written (and flushed) and read back through an OPFS sandbox
//          vs raw OPFS sync access handles in a worker, both sent from and to the page;
//          each read runs in a worker started for it (the sandbox's is reopened), and
//          the timer starts once that worker is ready; the two go first in turn, and
//          each round keeps the median of three reads a side
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { serve } from './serve.mjs';
import { launch } from '../tests/e2e/browsers.mjs';
import { shellBench } from './bench-shell.mjs';
import { weightBench } from './bench-weight.mjs';

const ROOT = new URL('../www/dist/', import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SHELL_BROWSERS = (process.env.BENCH_BROWSERS ?? 'chromium,firefox').split(',').map((b) => b.trim()).filter(Boolean);
// `node scripts/bench.mjs [guests|storage|shell|weight]`: one part, or all.
const PART = process.argv[2] ?? 'all';

const pageTools = () => {
function tar(files) {
  // A minimal ustar writer, enough for regular files with short names.
  const blocks = [];
  const enc = new TextEncoder();
  for (const [name, data] of files) {
    const header = new Uint8Array(512);
    const put = (text, offset, length) => header.set(enc.encode(text).slice(0, length), offset);
    put(name, 0, 100);
    put('0000644\0', 100, 8);
    put('0000000\0', 108, 8);
    put('0000000\0', 116, 8);
    put(data.length.toString(8).padStart(11, '0') + '\0', 124, 12);
    put('00000000000\0', 136, 12);
    put('        ', 148, 8);
    header[156] = 0x30;
    put('ustar\0', 257, 6);
    put('00', 263, 2);
    let sum = 0;
    for (const byte of header) sum += byte;
    put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
    blocks.push(header, data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) blocks.push(new Uint8Array(pad));
  }
  blocks.push(new Uint8Array(1024));
  const total = blocks.reduce((n, b) => n + b.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const block of blocks) {
    out.set(block, at);
    at += block.length;
  }
  return out;
}

function filesOf(count, size) {
  const files = [];
  for (let i = 0; i < count; i++) {
    const data = new Uint8Array(size);
    for (let j = 0; j < size; j++) data[j] = (i * 31 + j) & 0xff;
    files.push([`f${i}`, data]);
  }
  return files;
}

window.benchTools = { tar, filesOf };
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The storage part: a page of its own, rounds of the five cases, then the table. */
async function storageBench(browser, server) {
  const page = await browser.newPage();
  page.on('console', (message) => {
    if (message.text().startsWith('bench: ')) console.log(`  ${message.text().slice(7)}...`);
  });
  page.on('pageerror', (err) => console.log(`  page error: ${err.message}`));
  await page.goto(`${server.url}?sandbox=bench-page`);
  await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });
  await page.evaluate(pageTools);
  const results = { write: [], read: [], reopen: [], opfsWrite: [], opfsRead: [] };
  for (let round = 0; round < ROUNDS; round++) {
    process.stdout.write(`round ${round + 1} of ${ROUNDS}...\n`);
    const one = await page.evaluate(
    async (round) => {
      const { tar, filesOf } = window.benchTools;
      const smallTar = tar(filesOf(1000, 4096));
      const manyTar = tar(filesOf(10_000, 16));
      const { Sandbox } = window.sandtab;
      const now = () => performance.now();
      const idb = (name) =>
        new Promise((resolve, reject) => {
          const req = indexedDB.open(name, 1);
          req.onupgradeneeded = () => req.result.createObjectStore('files');
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
      const done = (tx) => new Promise((resolve, reject) => ((tx.oncomplete = resolve), (tx.onerror = tx.onabort = () => reject(tx.error))));
      const rows = { write: [], read: [], reopen: [], opfsWrite: [], opfsRead: [] };
      // The raw OPFS baseline: a worker that writes and reads one file with a sync
      // access handle, receiving and returning the bytes by postMessage like the sandbox.
      // Each round writes a new file, as each round's sandbox is new.
      const rawSource = `
        onmessage = async ({ data }) => {
          const root = await navigator.storage.getDirectory();
          const file = await root.getFileHandle(data.file, { create: true });
          if (data.ping) {
            postMessage('ready');
            return;
          }
          const handle = await file.createSyncAccessHandle();
          if (data.write) {
            handle.truncate(0);
            handle.write(data.write, { at: 0 });
            handle.flush();
            handle.close();
            postMessage('written');
          } else {
            const out = new Uint8Array(handle.getSize());
            handle.read(out, { at: 0 });
            handle.close();
            postMessage(out, [out.buffer]);
          }
        };`;
      // A fresh worker for each measured read, as the sandbox's reopened worker is fresh.
      const rawWorker = () =>
        new Worker(URL.createObjectURL(new Blob([rawSource], { type: 'text/javascript' })));
      const rawCall = (worker, message) =>
        new Promise((resolve, reject) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => reject(new Error(`raw OPFS worker: ${event.message}`));
          worker.postMessage(message);
        });
      const phase = (text) => console.log(`bench: ${text}`);
      const hundredMiB = new Uint8Array(100 << 20);
      for (let i = 0; i < hundredMiB.length; i += 4096) hundredMiB[i] = (i >> 12) & 0xff;
      const smallBytes = smallTar;
      {
        phase('raw IndexedDB');
        // Raw IndexedDB: 1,000 puts of 4 KiB in one transaction, then read back.
        const db = await idb(`bench-raw-${round}`);
        const data = [];
        for (let i = 0; i < 1000; i++) data.push(smallBytes.slice(512 + i * 4608, 512 + i * 4608 + 4096));
        let t = now();
        const tx = db.transaction('files', 'readwrite');
        data.forEach((bytes, i) => tx.objectStore('files').put(bytes, `f${i}`));
        await done(tx);
        const rawWrite = now() - t;
        t = now();
        const rtx = db.transaction('files');
        const gets = data.map((_, i) => rtx.objectStore('files').get(`f${i}`));
        await done(rtx);
        const rawRead = now() - t;
        if (gets[999].result.length !== 4096) throw new Error('raw read failed');
        db.close();

        phase('sandbox write and read');
        // The sandbox: import the same 1,000 files (written and flushed), then read
        // them back from a freshly opened sandbox.
        const name = `bench-vfs-${round}`;
        const sandbox = await Sandbox.create({ name });
        t = now();
        await sandbox.importTar(smallBytes, '/bench');
        const vfsWrite = now() - t;
        sandbox.terminate();
        await new Promise((r) => setTimeout(r, 100));
        const reopened = await Sandbox.create({ name });
        t = now();
        const archive = await reopened.exportTar('/bench');
        const vfsRead = now() - t;
        if (archive.length < 1000 * 4096) throw new Error('sandbox read back too little');
        reopened.terminate();
        rows.write.push([vfsWrite, rawWrite]);
        rows.read.push([vfsRead, rawRead]);

        phase('10,000 files');
        // Reopen: 10,000 files vs an empty sandbox, each from a new worker.
        const bigName = `bench-many-${round}`;
        const big = await Sandbox.create({ name: bigName });
        await big.importTar(manyTar, '/many');
        big.terminate();
        const emptyName = `bench-empty-${round}`;
        (await Sandbox.create({ name: emptyName })).terminate();
        await new Promise((r) => setTimeout(r, 200));
        const openAndList = async (which, path) => {
          const start = now();
          const box = await Sandbox.create({ name: which });
          const result = await box.exec(`ls ${path} | head -n 1`);
          const elapsed = now() - start;
          box.terminate();
          if (result.exitCode !== 0) throw new Error(result.stderr);
          return elapsed;
        };
        const manyMs = await openAndList(bigName, '/many');
        const emptyMs = await openAndList(emptyName, '/');
        rows.reopen.push([manyMs, emptyMs]);

        phase('OPFS');
        // 100 MiB through an OPFS sandbox vs raw OPFS. The two go first in turn from round
        // to round, so neither always pays for the other's garbage or disk writeback.
        const file = `bench-raw-${round}`;
        const opfsName = `bench-opfs-${round}`;
        const options = { name: opfsName, storage: 'opfs', quota: { maxFileSize: 200 << 20, maxBytes: 400 << 20 } };
        const rawOpfsWriteOnce = async () => {
          const writer = rawWorker();
          await rawCall(writer, { ping: true, file });
          const start = now();
          await rawCall(writer, { write: hundredMiB, file });
          const elapsed = now() - start;
          writer.terminate();
          return elapsed;
        };
        const sandboxWrite = async () => {
          const opfs = await Sandbox.create(options);
          const start = now();
          await opfs.writeFile('/big', hundredMiB);
          const elapsed = now() - start;
          opfs.terminate();
          return elapsed;
        };
        const rawOpfsReadOnce = async () => {
          const reader = rawWorker();
          await rawCall(reader, { ping: true, file });
          const start = now();
          const back = await rawCall(reader, { read: true, file });
          const elapsed = now() - start;
          reader.terminate();
          if (back.length !== hundredMiB.length) throw new Error('raw OPFS read failed');
          return elapsed;
        };
        const sandboxRead = async () => {
          const opfsAgain = await Sandbox.create(options);
          const start = now();
          const back = await opfsAgain.readFile('/big');
          const elapsed = now() - start;
          opfsAgain.terminate();
          if (back.length !== hundredMiB.length || back[8192] !== hundredMiB[8192]) throw new Error('OPFS sandbox read back wrong bytes');
          return elapsed;
        };
        const settle = () => new Promise((r) => setTimeout(r, 200));
        // Writes: one each, the first in turn from round to round. Reads: three each, every
        // one from a new worker, taking turns, and the round keeps each side's median.
        let opfsWrite, rawOpfsWrite;
        if (round % 2 === 0) {
          opfsWrite = await sandboxWrite();
          await settle();
          rawOpfsWrite = await rawOpfsWriteOnce();
        } else {
          rawOpfsWrite = await rawOpfsWriteOnce();
          await settle();
          opfsWrite = await sandboxWrite();
        }
        await settle();
        const reads = { ours: [], raw: [] };
        for (let k = 0; k < 3; k++) {
          if ((k + round) % 2 === 0) {
            reads.raw.push(await rawOpfsReadOnce());
            reads.ours.push(await sandboxRead());
          } else {
            reads.ours.push(await sandboxRead());
            reads.raw.push(await rawOpfsReadOnce());
          }
        }
        const middle = (values) => [...values].sort((a, b) => a - b)[1];
        const opfsRead = middle(reads.ours);
        const rawOpfsRead = middle(reads.raw);
        rows.opfsWrite.push([opfsWrite, rawOpfsWrite]);
        rows.opfsRead.push([opfsRead, rawOpfsRead]);
      }
      return rows;
    },
    round,
  );
    for (const key of Object.keys(results)) results[key].push(...one[key]);
  }
  const line = (label, pairs, goal, baseline) => {
    const ours = median(pairs.map((p) => p[0]));
    const base = median(pairs.map((p) => p[1]));
    const ratio = ours / base;
    // Each round's own ratio, lowest to highest: how much one run can tell.
    const each = pairs.map(([a, b]) => a / b).sort((a, b) => a - b);
    const spread = `rounds ${each[0].toFixed(2)}-${each[each.length - 1].toFixed(2)}x`;
    console.log(
      `${label.padEnd(44)} ${ours.toFixed(1).padStart(8)} ms  vs ${baseline.padEnd(36)} ${base.toFixed(1).padStart(8)} ms  ratio ${ratio.toFixed(2)}x  ${spread}  (goal ${goal})`,
    );
  };
  console.log(`sandtab storage benchmark, headless Chromium, median of ${ROUNDS} rounds`);
  line('write+flush 1,000 x 4 KiB (tar import)', results.write, '<= 1.5x', 'raw IndexedDB, one transaction');
  line('read back 1,000 x 4 KiB (reopened, lazy)', results.read, '<= 1.5x', 'raw IndexedDB gets, one transaction');
  line('reopen 10,000 files to first ls (new worker)', results.reopen, 'first ls < 100 ms', 'empty sandbox, new worker');
  line('write+flush 100 MiB file, OPFS sandbox', results.opfsWrite, '<= 1.3x', 'raw OPFS sync access handle');
  line('read back 100 MiB file, OPFS sandbox', results.opfsRead, '<= 1.3x', 'raw OPFS sync access handle');
  const extra = median(results.reopen.map(([many, empty]) => many - empty));
  console.log(`time the 10,000 files add to opening: ${extra.toFixed(1)} ms`);
  // The reopen's goal is a time: every round's, lowest to highest.
  const reopens = results.reopen.map(([many]) => many).sort((a, b) => a - b);
  const slowest = reopens[reopens.length - 1];
  console.log(
    `reopen of 10,000 files to first ls, each round: ${reopens.map((ms) => ms.toFixed(0)).join(', ')} ms (${slowest < 100 ? 'all' : 'not all'} under 100 ms)`,
  );
  await page.close();
}

// ---- The guest part ----
//
// Each case runs the same .wasm bytes, with the same arguments, three ways:
//   (a) sandtab: written into the page's sandbox and run by `sandbox.exec` (wasmi inside
//       the runtime's worker), timed in the page around the exec call;
//   (b) the browser's own engine: scripts/wasi-shim.mjs in a dedicated worker of the same
//       page, timed in the worker around the `_start` call;
//   (c) native wasmi: `target/release/sandtab run`, timed by Node around the process.
// Each way runs every case once before the rounds (module caches filled, V8 tiered up), and
// each output is checked against the native one (and sha256's against the expected file).

const GUEST_DIR = new URL('../target/guests/', import.meta.url).pathname;
const NATIVE_BIN = new URL('../target/release/sandtab', import.meta.url).pathname;
const SHIM = new URL('./wasi-shim.mjs', import.meta.url).pathname;
// About 1-3 s in sandtab with the chosen wasmi build (2,000 take ~10 ms natively).
const CPULOOP_ITERATIONS = Number(process.env.BENCH_CPULOOP ?? 20_000);

const GUEST_CASES = [
  {
    label: 'sha256 over 16 MiB',
    file: 'c/sha256.wasm',
    args: ['16'],
    expected: readFileSync(new URL('../tests/guests/c/expected/sha256.default.stdout', import.meta.url), 'utf8'),
    cpu: true,
    goal: 2,
  },
  {
    label: `CoreMark-style loop, ${CPULOOP_ITERATIONS.toLocaleString('en')} iterations`,
    file: 'c/cpuloop.wasm',
    args: [String(CPULOOP_ITERATIONS)],
    cpu: true,
  },
  // The demo installs CPython as `python3` from www/dist/guests/python.wasm (the same bytes as
  // target/guests/python.wasm); the shim fetches it from there too.
  { label: 'python3 -c pass (start-up)', file: 'python.wasm', args: ['-c', 'pass'], expected: '', python: true, goal: 1.5, goalMs: 150 },
  {
    label: "python3 -c 'print(sum(range(10**6)))'",
    file: 'python.wasm',
    args: ['-c', 'print(sum(range(10**6)))'],
    expected: '499999500000\n',
    python: true,
    goal: 2.5,
  },
];

/** A shell word for `text`. */
const quote = (text) => (/^[\w.,=/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** The wasmi dependency line of the root Cargo.toml: which build is being measured. */
function wasmiLine() {
  const toml = readFileSync(new URL('../Cargo.toml', import.meta.url), 'utf8');
  return toml.split('\n').find((l) => l.startsWith('wasmi ')) ?? 'wasmi: not found in Cargo.toml';
}

/** Builds the native runner; cargo itself decides whether it is missing or stale. */
function buildNative() {
  console.log('building the native runner (cargo build --release -p sandtab-cli; quick when up to date)...');
  const built = spawnSync('cargo', ['build', '--release', '--quiet', '-p', 'sandtab-cli'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('cargo build --release -p sandtab-cli failed');
}

/** One native run: the process's wall time, start-up and exit included. */
function runNative(file, args) {
  const start = performance.now();
  const run = spawnSync(NATIVE_BIN, ['run', GUEST_DIR + file, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = performance.now() - start;
  return { ms, stdout: run.stdout, stderr: run.stderr, exitCode: run.status };
}

/** Throws unless `result` exited 0 with `expected` on stdout. */
function check(way, guestCase, result, expected) {
  if (result.exitCode !== 0 || result.stdout !== expected) {
    throw new Error(
      `${guestCase.label} (${way}): exit ${result.exitCode}, stdout ${JSON.stringify(result.stdout.slice(0, 300))}` +
        ` (expected ${JSON.stringify(expected.slice(0, 300))}), stderr ${JSON.stringify(result.stderr.slice(0, 300))}`,
    );
  }
}

async function guestBench(browser, server, browserName = 'chromium') {
  const page = await browser.newPage();
  page.on('pageerror', (err) => console.log(`  page error: ${err.message}`));
  await page.goto(`${server.url}?sandbox=bench-guests`);
  await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });

  // The shim's worker, made from the file's text (a module worker from a blob URL).
  await page.evaluate((source) => {
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const worker = new Worker(url, { type: 'module', name: 'wasi-shim' });
    const call = (message) =>
      new Promise((resolve, reject) => {
        worker.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data));
        worker.onerror = (event) => reject(new Error(`wasi-shim worker: ${event.message}`));
        worker.postMessage(message);
      });
    window.benchShim = { call };
  }, readFileSync(SHIM, 'utf8'));

  // The two tiers: the demo's sandbox (the engine tier, the default where the browser has
  // JSPI) and one forced onto the interpreter, both with CPython installed. A new sandbox
  // of each also times CPython's first run, compiling included.
  const tiers = await page.evaluate(async () => {
    const programs = [{ names: ['python3', 'python'], url: 'guests/python.wasm' }];
    const { Sandbox } = window.sandtab;
    const first = {};
    for (const tier of ['engine', 'interpreter']) {
      const fresh = await Sandbox.create({ name: `bench-first-${tier}`, storage: 'memory', guestTier: tier, programs });
      const start = performance.now();
      const r = await fresh.exec('python3 -c pass');
      first[tier] = { ms: performance.now() - start, exitCode: r.exitCode, stderr: r.stderr };
      fresh.terminate();
    }
    window.benchTiers = {
      engine: window.sandtab.sandbox,
      interpreter: await Sandbox.create({ name: 'bench-interpreter', storage: 'memory', guestTier: 'interpreter', programs }),
    };
    return { first, engine: (await window.benchTiers.engine.info()).guestTier, interpreter: (await window.benchTiers.interpreter.info()).guestTier };
  });
  if (tiers.engine !== 'engine' || tiers.interpreter !== 'interpreter') {
    throw new Error(`the sandboxes run guests on ${tiers.engine} and ${tiers.interpreter}, not engine and interpreter`);
  }
  for (const [tier, run] of Object.entries(tiers.first)) {
    if (run.exitCode !== 0) throw new Error(`CPython's first run on the ${tier} tier: exit ${run.exitCode}: ${run.stderr}`);
  }

  // Put each guest where every way in the page finds it: the C guests are sent from here
  // (base64; they are small) into both sandboxes' homes and the shim; CPython is already
  // installed in the sandboxes, and the shim fetches the same file from the demo server.
  for (const guestCase of GUEST_CASES) {
    const name = guestCase.file.split('/').pop();
    const base64 = guestCase.python ? null : readFileSync(GUEST_DIR + guestCase.file).toString('base64');
    await page.evaluate(
      async (name, base64) => {
        const bytes = base64
          ? Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
          : new Uint8Array(await (await fetch('guests/python.wasm')).arrayBuffer());
        if (base64) for (const box of Object.values(window.benchTiers)) await box.writeFile(`/home/agent/${name}`, bytes);
        await window.benchShim.call({ type: 'compile', key: name, bytes });
      },
      name,
      base64,
    );
    const args = guestCase.args.map(quote).join(' ');
    guestCase.command = guestCase.python ? `python3 ${args}` : `./${name} ${args}`;
    guestCase.key = name;
    guestCase.argv = [guestCase.python ? 'python3' : name, ...guestCase.args];
  }

  const inSandtab = (tier, command) =>
    page.evaluate(
      async (tier, command) => {
        const start = performance.now();
        const r = await window.benchTiers[tier].exec(command);
        return { ms: performance.now() - start, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      },
      tier,
      command,
    );
  const inShim = (key, args) => page.evaluate((key, args) => window.benchShim.call({ type: 'run', key, args, env: {} }), key, args);

  // One measurement of every way for a case; `shimBroken` records why the shim could not
  // run a guest (then that case has no browser-engine baseline).
  const results = new Map(GUEST_CASES.map((c) => [c, { engine: [], interpreter: [], shim: [], instantiate: [], native: [], shimBroken: null }]));
  const once = async (guestCase, record) => {
    const times = results.get(guestCase);
    const native = runNative(guestCase.file, guestCase.args);
    const expected = guestCase.expected ?? native.stdout;
    check('native wasmi', guestCase, native, expected);
    const engine = await inSandtab('engine', guestCase.command);
    check('sandtab, engine tier', guestCase, engine, expected);
    const interpreter = await inSandtab('interpreter', guestCase.command);
    check('sandtab, interpreter', guestCase, interpreter, expected);
    let shim = null;
    if (times.shimBroken === null) {
      try {
        shim = await inShim(guestCase.key, guestCase.argv);
        check('browser engine', guestCase, shim, expected);
      } catch (err) {
        times.shimBroken = String(err.message ?? err).split('\n')[0];
        shim = null;
      }
    }
    if (record) {
      times.engine.push(engine.ms);
      times.interpreter.push(interpreter.ms);
      times.native.push(native.ms);
      if (shim) {
        // Instantiating is part of a run (sandtab instantiates on every exec too); compiling is not.
        times.shim.push(shim.ms + shim.instantiateMs);
        times.instantiate.push(shim.instantiateMs);
      }
    }
  };
  for (const guestCase of GUEST_CASES) {
    console.log(`  warming up: ${guestCase.label}...`);
    await once(guestCase, false);
  }
  // Cancel: a CPU-bound guest (CPython spinning) is cancelled after 300 ms; the time from
  // `cancel()` until its exec resolves (exit 130). Goal (issue 21): <= 50 ms.
  const cancelTimes = { engine: [], interpreter: [] };
  const cancelOnce = (tier) =>
    page.evaluate(async (tier) => {
      const box = window.benchTiers[tier];
      const running = box.exec(`python3 -c 'while True: pass'`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const start = performance.now();
      box.cancel();
      const r = await running;
      if (r.exitCode !== 130) throw new Error(`cancelled guest on ${tier}: exit ${r.exitCode}: ${r.stderr}`);
      return performance.now() - start;
    }, tier);
  const floor = [];
  for (let round = 0; round < ROUNDS; round++) {
    process.stdout.write(`round ${round + 1} of ${ROUNDS}...\n`);
    for (const guestCase of GUEST_CASES) await once(guestCase, true);
    for (const tier of ['engine', 'interpreter']) cancelTimes[tier].push(await cancelOnce(tier));
    const hello = runNative('c/hello.wasm', []);
    if (hello.exitCode !== 0) throw new Error(`native hello.wasm: exit ${hello.exitCode}: ${hello.stderr}`);
    floor.push(hello.ms);
  }
  await page.close();

  // The table: medians, the two ratios against their goals, python's absolute goal.
  const ms = (value) => (value === null ? 'n/a' : `${value.toFixed(1)} ms`).padStart(12);
  const ratio = (ours, base, goal) => {
    if (base === null) return 'n/a'.padEnd(22);
    const r = ours / base;
    const verdict = goal === undefined ? 'no goal' : `goal <= ${goal}x ${r <= goal ? 'met' : 'MISSED'}`;
    return `${r.toFixed(2).padStart(6)}x (${verdict})`.padEnd(22);
  };
  const row = (label, ...cells) => console.log(`${label.padEnd(40)} ${cells.join(' ')}`.trimEnd());
  console.log(`sandtab guest benchmark in ${browserName}, median of ${ROUNDS} rounds (after one warm-up run of each)`);
  console.log(`  ${wasmiLine()}`);
  row('case', ...['engine tier', 'interpreter', 'browser eng.', 'native wasmi'].map((h) => h.padStart(12)), ' engine tier/browser engine'.padEnd(30), 'interpreter/native wasmi');
  const missed = [];
  const notes = [];
  for (const guestCase of GUEST_CASES) {
    const times = results.get(guestCase);
    const engine = median(times.engine);
    const interpreter = median(times.interpreter);
    const shim = times.shim.length ? median(times.shim) : null;
    const native = median(times.native);
    const nativeGoal = guestCase.cpu ? 2.5 : undefined;
    row(guestCase.label, ms(engine), ms(interpreter), ms(shim), ms(native), '', ratio(engine, shim, guestCase.goal), ratio(interpreter, native, nativeGoal));
    if (shim !== null && guestCase.goal !== undefined && engine / shim > guestCase.goal) {
      missed.push(`${guestCase.label}: engine tier/browser engine ${(engine / shim).toFixed(2)}x > ${guestCase.goal}x`);
    }
    if (nativeGoal !== undefined && interpreter / native > nativeGoal) {
      missed.push(`${guestCase.label}: interpreter/native wasmi ${(interpreter / native).toFixed(2)}x > ${nativeGoal}x`);
    }
    if (guestCase.goalMs !== undefined) {
      row(`  goal: <= ${guestCase.goalMs} ms on the engine tier`, `${engine <= guestCase.goalMs ? 'met' : `MISSED by ${(engine - guestCase.goalMs).toFixed(0)} ms`}`);
      if (engine > guestCase.goalMs) missed.push(`${guestCase.label} ${engine.toFixed(0)} ms > ${guestCase.goalMs} ms`);
    }
    if (times.shimBroken) notes.push(`no browser-engine baseline for ${guestCase.label}: the shim failed: ${times.shimBroken}`);
    if (times.instantiate.length) notes.push(`browser engine, of which instantiation: ${guestCase.label} ${median(times.instantiate).toFixed(1)} ms`);
  }
  const cancelMs = { engine: median(cancelTimes.engine), interpreter: median(cancelTimes.interpreter) };
  row('cancel of a CPython CPU loop (goal <= 50 ms)', ms(cancelMs.engine), ms(cancelMs.interpreter), '', '', '', cancelMs.engine <= 50 ? 'met' : 'MISSED');
  if (cancelMs.engine > 50) missed.push(`cancel on the engine tier ${cancelMs.engine.toFixed(0)} ms > 50 ms`);
  row('native start-up floor (hello.wasm)', '-'.padStart(12), '-'.padStart(12), '-'.padStart(12), ms(median(floor)));
  row("CPython's first run in a new sandbox", ms(tiers.first.engine.ms), ms(tiers.first.interpreter.ms));
  console.log(
    '  sandtab: sandbox.exec timed in the page (guest module cached); browser engine: scripts/wasi-shim.mjs in a\n' +
      '  dedicated worker, instantiation and _start (compiled beforehand); native wasmi: `sandtab run` process wall\n' +
      "  time (nothing subtracted). CPython's first run: a new sandbox's first `python3 -c pass`, the module from\n" +
      '  Cache Storage, compiled (and on the engine tier metered) before it runs.',
  );
  for (const note of notes) console.log(`  ${note}`);
  if (missed.length) console.log(`goals missed: ${missed.join('; ')}`);
}

async function main() {
  if (!['all', 'guests', 'storage', 'shell', 'weight'].includes(PART)) {
    throw new Error(`unknown part '${PART}' (guests, storage, shell, weight, or nothing for all)`);
  }
  // Before the browser starts: cargo should have the machine to itself.
  if (PART === 'all' || PART === 'guests') buildNative();
  // First, on a server of its own (a fresh one: nothing compressed ahead of the visitor).
  if (PART === 'all' || PART === 'weight') await weightBench(ROOT, SHELL_BROWSERS);
  const server = await serve(ROOT);
  try {
    if (PART === 'all' || PART === 'storage') {
      const browser = await launch('chromium');
      try {
        await storageBench(browser, server);
      } finally {
        await browser.close();
      }
    }
    if (PART === 'all' || PART === 'guests') {
      // Issue 21's goals hold in each browser: the guests run in every one of BENCH_BROWSERS.
      for (const name of SHELL_BROWSERS) {
        const browser = await launch(name, { firefoxPrefs: { 'privacy.reduceTimerPrecision': false } });
        try {
          await guestBench(browser, server, name);
        } finally {
          await browser.close();
        }
      }
    }
    if (PART === 'all' || PART === 'shell') {
      for (const name of SHELL_BROWSERS) {
        const browser = await launch(name, { firefoxPrefs: { 'privacy.reduceTimerPrecision': false } });
        try {
          await shellBench(browser, server, ROOT, ROUNDS, name);
        } finally {
          await browser.close();
        }
      }
    }
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  console.error(`bench failed: ${err.stack ?? err}`);
  process.exit(1);
});
