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

    await page.reload();
    // The programs did not fit in the 10 MiB either: the reload fetches and compiles
    // CPython again before the first prompt, which takes a while on a busy machine.
    await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the prompt after the reload', 120_000);
    const after = await page.evaluate(async () => {
      const { sandbox } = window.sandtab;
      const files = await sandbox.exec('cat keep.txt later.txt; ls');
      return { files, fsck: await sandbox.fsck() };
    });
    assert.equal(after.files.stdout, 'precious\nlater\nkeep.txt\nlater.txt\n', after.files.stderr);
    assert.equal(after.fsck.clean, true, JSON.stringify(after.fsck));
    await page.close();
    assert.deepEqual(errors, []);
  });
});
