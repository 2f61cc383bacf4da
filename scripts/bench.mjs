// `./dev bench`: storage benchmarks in headless Chromium, each against a baseline
// measured in the same run and page, printed as ratios (lower is better). Never a
// timed assertion: it prints, it does not fail on a slow machine.
//
//   write  1,000 files of 4 KiB into a sandbox and flush (one tar import, one flush)
//          vs the same bytes put by raw IndexedDB in one transaction
//   read   the same files read back from a freshly opened sandbox (contents load
//          lazily) vs raw IndexedDB gets in one transaction
//   reopen a sandbox of 10,000 files until the first `ls` answers
//          vs an empty sandbox, both from a new worker
//   opfs   a 100 MiB file written (and flushed) and read back through an OPFS sandbox
//          vs raw OPFS sync access handles in a worker, both sent from and to the page;
//          each read runs in a worker started for it (the sandbox's is reopened), and
//          the timer starts once that worker is ready
import { serve } from './serve.mjs';
import { launch } from '../tests/e2e/browsers.mjs';

const ROOT = new URL('../www/dist/', import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

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

async function main() {
  const server = await serve(ROOT);
  const browser = await launch('chromium');
  try {
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
        const rawSource = `
          onmessage = async ({ data }) => {
            const root = await navigator.storage.getDirectory();
            const file = await root.getFileHandle('bench-raw', { create: true });
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
          // 100 MiB through an OPFS sandbox vs raw OPFS.
          const writer = rawWorker();
          await rawCall(writer, { ping: true });
          t = now();
          await rawCall(writer, { write: hundredMiB });
          const rawOpfsWrite = now() - t;
          writer.terminate();
          const reader = rawWorker();
          await rawCall(reader, { ping: true });
          t = now();
          const rawBack = await rawCall(reader, { read: true });
          const rawOpfsRead = now() - t;
          reader.terminate();
          if (rawBack.length !== hundredMiB.length) throw new Error('raw OPFS read failed');
          const opfsName = `bench-opfs-${round}`;
          const opfs = await Sandbox.create({ name: opfsName, storage: 'opfs', quota: { maxFileSize: 200 << 20, maxBytes: 400 << 20 } });
          t = now();
          await opfs.writeFile('/big', hundredMiB);
          const opfsWrite = now() - t;
          opfs.terminate();
          await new Promise((r) => setTimeout(r, 200));
          const opfsAgain = await Sandbox.create({ name: opfsName, storage: 'opfs', quota: { maxFileSize: 200 << 20, maxBytes: 400 << 20 } });
          t = now();
          const back = await opfsAgain.readFile('/big');
          const opfsRead = now() - t;
          opfsAgain.terminate();
          if (back.length !== hundredMiB.length || back[8192] !== hundredMiB[8192]) throw new Error('OPFS sandbox read back wrong bytes');
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
      console.log(
        `${label.padEnd(44)} ${ours.toFixed(1).padStart(8)} ms  vs ${baseline.padEnd(36)} ${base.toFixed(1).padStart(8)} ms  ratio ${ratio.toFixed(2)}x  (goal ${goal})`,
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
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((err) => {
  console.error(`bench failed: ${err.stack ?? err}`);
  process.exit(1);
});
