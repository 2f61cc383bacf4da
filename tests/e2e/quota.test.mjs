// End to end, a full disk as the browser reports it: Firefox with a small fixed storage
// limit refuses a large save with a real QuotaExceededError. The sandbox must turn it
// into EDQUOT, keep the unsaved changes in memory (consistent, and saved by the next
// flush that fits), report it on every command until then, and lose nothing that was
// saved before. (Chromium has no switch that shrinks an origin's quota.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';

// In KiB: every origin then gets at most a fifth of it (at least 10 MiB).
const FIXED_LIMIT_KIB = 50 * 1024;

describe('the browser refuses a save (firefox, small storage limit)', { skip: !browserNames.includes('firefox') }, () => {
  let server;
  let browser;

  before(async () => {
    server = await serve(DEMO_ROOT);
    browser = await launch('firefox', {
      firefoxPrefs: { 'dom.quotaManager.temporaryStorage.fixedLimit': FIXED_LIMIT_KIB },
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('QuotaExceededError becomes EDQUOT, and nothing saved or unsaved is lost', async () => {
    const { page, errors } = await openPage(browser, `${server.url}?sandbox=full`);
    await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    const outcome = await page.evaluate(async () => {
      // The origin's 10 MiB are for the sandbox: the demo's offline copy of the site
      // (about 10 MiB of runtime, compressed) fits in them or not by a few KiB depending
      // on the build, and would decide the test. It goes, with its service worker.
      for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
      for (const key of await caches.keys()) if (key.startsWith('sandtab-site-')) await caches.delete(key);
      const { sandbox } = window.sandtab;
      const saved = await sandbox.exec('echo precious > keep.txt');
      // 16 MiB (over the 10 MiB this origin gets) that do not compress: Firefox
      // compresses IndexedDB values.
      const big = new Uint8Array(16 << 20);
      for (let at = 0; at < big.length; at += 65536) crypto.getRandomValues(big.subarray(at, at + 65536));
      let writeError = null;
      try {
        await sandbox.writeFile('/home/agent/big.bin', big);
      } catch (err) {
        writeError = { code: err.code, message: err.message };
      }
      const pending = await sandbox.exec('ls -l big.bin; echo later > later.txt');
      const freed = await sandbox.exec('rm big.bin; ls');
      return { saved, writeError, pending, freed };
    });
    assert.equal(outcome.saved.saveError, null);
    assert.equal(outcome.writeError?.code, 'EDQUOT', JSON.stringify(outcome.writeError));
    assert.match(outcome.writeError.message, /storage quota is full/);
    // Still in memory, still unsaved, and every command says so.
    assert.match(outcome.pending.stdout, new RegExp(` ${16 << 20} .*big\\.bin`), outcome.pending.stderr);
    assert.equal(outcome.pending.saveError?.code, 'EDQUOT');
    assert.match(outcome.pending.stderr, /file changes not saved/);
    // Once the big file is gone the rest fits, and is saved.
    assert.equal(outcome.freed.saveError, null, JSON.stringify(outcome.freed.saveError));
    assert.equal(outcome.freed.stdout, 'keep.txt\nlater.txt\n');

    // A full origin must still open, or the person could not reach the files to free
    // space: fill what is left, so every write at start-up (the page's project list,
    // the service worker's copy of the site, the programs' cache) is refused.
    const full = await page.evaluate(async () => {
      const put = (key, value) =>
        new Promise((resolve) => {
          const request = indexedDB.open('quota-filler');
          request.onupgradeneeded = () => request.result.createObjectStore('chunks');
          request.onerror = (event) => {
            event.preventDefault();
            resolve(false);
          };
          request.onsuccess = () => {
            const db = request.result;
            const tx = db.transaction('chunks', 'readwrite');
            tx.objectStore('chunks').put(value, key);
            tx.oncomplete = () => (db.close(), resolve(true));
            tx.onabort = () => (db.close(), resolve(false));
          };
        });
      let bytes = 0;
      for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8]) {
        for (;;) {
          const chunk = new Uint8Array(size);
          for (let at = 0; at < size; at += 65536) crypto.getRandomValues(chunk.subarray(at, Math.min(size, at + 65536)));
          if (!(await put(`chunk-${bytes}`, chunk))) break;
          bytes += size;
        }
      }
      return !(await put('tiny', new Uint8Array(64)));
    });
    assert.ok(full, 'the origin is full: a 64-byte write is refused');

    await page.reload();
    // The programs do not fit either: the reload fetches and compiles CPython again
    // before the first prompt, which takes a while on a busy machine.
    await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the prompt after the reload', 120_000).catch((err) => {
      throw new Error(`${err.message}\npage errors: ${JSON.stringify(errors)}`);
    });
    const after = await page.evaluate(async () => {
      const { sandbox } = window.sandtab;
      const files = await sandbox.exec('cat keep.txt later.txt; ls');
      const full = await sandbox.exec('echo more > more.txt');
      const fsck = await sandbox.fsck();
      // Free the space: the filler, and the programs' cached copies.
      await new Promise((resolve, reject) => {
        const request = indexedDB.deleteDatabase('quota-filler');
        request.onsuccess = resolve;
        request.onerror = () => reject(request.error);
      });
      for (const key of await caches.keys()) await caches.delete(key);
      const freed = await sandbox.exec('echo again >> more.txt; cat more.txt');
      return { files, full, fsck, freed };
    });
    assert.equal(after.files.stdout, 'precious\nlater\nkeep.txt\nlater.txt\n', after.files.stderr);
    assert.equal(after.fsck.clean, true, JSON.stringify(after.fsck));
    // While full, a change is saved if the browser finds room, or kept in memory and
    // said to be unsaved (never an error); once space is freed, it is saved.
    assert.ok([undefined, 'EDQUOT'].includes(after.full.saveError?.code), JSON.stringify(after.full));
    assert.equal(after.freed.saveError, null, JSON.stringify(after.freed.saveError));
    assert.equal(after.freed.stdout, 'more\nagain\n');
    await page.close();
    assert.deepEqual(errors, []);
  });
});
