// The coding agent works offline: after one visit, with the static server gone, a reload
// still brings up the page, the runtime and Python from what the service worker and the
// package kept.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, typeLine, waitForScreen } from './screen.mjs';

for (const name of browserNames) {
  describe(`offline use in ${name}`, () => {
    let server;
    let browser;
    let page;

    before(async () => {
      server = await serve(DEMO_ROOT);
      browser = await launch(name);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('a reload with no server left still runs commands and Python', async () => {
      const url = `${server.url}?sandbox=offline-${Date.now()}`;
      ({ page } = await openPage(browser, url));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
      // Installed, its files kept, and Python fetched once (the package keeps it).
      await page.waitForFunction(async () => (await navigator.serviceWorker.ready) && navigator.serviceWorker.controller !== null, { timeout: 30_000 });
      await page.waitForFunction(() => document.getElementById('programs').textContent.includes('python3 ready'), { timeout: 120_000 });
      await server.close();
      server = null;
      await page.reload();
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt, offline', 60_000);
      await typeLine(page, `python3 -c 'print("offline", 6 * 7)'`);
      const rows = await waitForScreen(page, (r) => promptCount(r) === 2, 'python, offline', 120_000);
      assert.ok(rows.includes('offline 42'), rows.join('\n'));
    });
  });
}
