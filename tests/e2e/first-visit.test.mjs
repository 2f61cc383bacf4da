// A new visitor and a returning one, counted by the demo's server: on a fresh profile
// nothing is fetched whole twice (the service worker's copies revalidate), bodies come
// compressed, a reload transfers no body at all (every file answers 304), and the editor's
// code waits until the editor opens. The prompt shows while the programs' downloads are
// held, so it does not wait for them, and the bytes before it are the page's and the
// runtime's alone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';

/** Resolves once the server has had no request for `quiet` ms. */
async function settled(server, quiet = 2000) {
  let seen = -1;
  let since = Date.now();
  while (Date.now() - since < quiet) {
    await new Promise((r) => setTimeout(r, 100));
    if (server.requests.length !== seen) {
      seen = server.requests.length;
      since = Date.now();
    }
  }
}

for (const name of browserNames) {
  describe(`the first visit in ${name}`, () => {
    let server;
    let browser;
    let page;
    let errors;

    // Released once the first prompt shows.
    let releasePrograms;
    const programsHeld = new Promise((resolve) => (releasePrograms = resolve));

    before(async () => {
      server = await serve(DEMO_ROOT, 0, { hold: (path) => (path.startsWith('/guests/') ? programsHeld : undefined) });
      browser = await launch(name);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('nothing is fetched whole twice, and text and wasm come compressed', async () => {
      ({ page, errors } = await openPage(browser, server.url));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt, the programs held', 60_000);
      const beforePrompt = [...server.requests];
      releasePrograms();
      assert.deepEqual(
        beforePrompt.filter((r) => r.path.startsWith('/guests/')),
        [],
        'a program was downloaded before the prompt',
      );
      // What the prompt costs: the page's code and the runtime, each sent once, brotli 11
      // as the build wrote it (the runtime's .br), not more.
      const sent = beforePrompt.reduce((total, r) => total + r.bytes, 0);
      const runtime = beforePrompt.find((r) => r.path === '/sandtab_web_bg.wasm');
      assert.equal(runtime?.encoding, 'br');
      // A --quick build leaves its unoptimised runtime to the server to compress.
      const ahead = join(DEMO_ROOT, 'sandtab_web_bg.wasm.br');
      if (existsSync(ahead)) assert.equal(runtime.bytes, statSync(ahead).size, 'the runtime as precompressed');
      assert.ok(sent - runtime.bytes < 600_000, `${sent - runtime.bytes} bytes besides the runtime: ${JSON.stringify(beforePrompt)}`);
      await settled(server);
      const whole = server.requests.filter((r) => r.status === 200);
      const counts = new Map();
      for (const r of whole) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
      const twice = [...counts].filter(([, n]) => n > 1);
      assert.deepEqual(twice, [], JSON.stringify(server.requests));
      for (const path of ['/', '/main.js', '/worker.js', '/sandtab_web_bg.wasm']) {
        const answer = whole.find((r) => r.path === path);
        assert.ok(answer, `${path} was not fetched: ${JSON.stringify(server.requests)}`);
        assert.equal(answer.encoding, 'br', path);
      }
    });

    test('a reload transfers no body: every file revalidates with a 304', async () => {
      const from = server.requests.length;
      await page.reload();
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the prompt after the reload', 60_000);
      await settled(server);
      const reload = server.requests.slice(from);
      assert.ok(reload.length > 0, 'the reload asked the server for nothing');
      assert.deepEqual(reload.filter((r) => r.status !== 304), [], JSON.stringify(reload));
      assert.deepEqual(errors, []);
    });

    test('the editor (CodeMirror) is loaded by the page only when it opens', async () => {
      // What the page itself loaded (the service worker's own fetches are not in it).
      const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname));
      const editorChunk = (paths) => paths.filter((path) => /^\/chunks\/code-editor-.*\.js$/.test(path));
      assert.deepEqual(editorChunk(await loaded()), [], 'the editor loaded before it was opened');
      await page.click('#tab-editor');
      await page.waitForSelector('#editor-panel .cm-editor', { timeout: 30_000 });
      assert.equal(editorChunk(await loaded()).length, 1);
      assert.deepEqual(errors, []);
    });
  });
}
