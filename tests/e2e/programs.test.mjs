// Installed programs on their way: while a program's module downloads, its name is a
// command and every other command runs; a command that runs it waits for the module,
// and a program whose download fails says why when run. The module comes from a server
// on 127.0.0.1 that holds it until the test lets it go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';

const HELLO = readFileSync(new URL('../../target/guests/c/hello.wasm', import.meta.url));

/** Serves /held.wasm once `release()` is called, and 404 for anything else. */
async function heldServer() {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const server = createServer(async (req, res) => {
    const cors = { 'access-control-allow-origin': '*' };
    if (req.url !== '/held.wasm') {
      res.writeHead(404, cors).end('not here');
      return;
    }
    await released;
    res.writeHead(200, { ...cors, 'content-type': 'application/wasm', 'content-length': HELLO.length }).end(HELLO);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, release, close: () => new Promise((r) => server.close(r)) };
}

for (const name of browserNames) {
  describe(`programs on their way in ${name}`, () => {
    let server;
    let held;
    let browser;
    let page;
    let errors;

    before(async () => {
      server = await serve(DEMO_ROOT);
      held = await heldServer();
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${server.url}?sandbox=programs-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    });

    after(async () => {
      await browser?.close();
      await held?.close();
      await server?.close();
    });

    test('other commands run while a program downloads; running it waits for it', async () => {
      await page.evaluate(async (base) => {
        const { Sandbox } = window.sandtab;
        window.progress = [];
        window.box = await Sandbox.create({
          name: `held-${Date.now()}`,
          storage: 'memory',
          programs: [
            { names: ['held'], url: `${base}/held.wasm` },
            { names: ['gone'], url: `${base}/gone.wasm` },
          ],
          onProgress: (event) => window.progress.push(`${event.program}:${event.phase}`),
        });
      }, held.url);
      const first = await page.evaluate(async () => {
        const r = await window.box.exec('echo at-once; type -t held; command -v held');
        return { stdout: r.stdout, exitCode: r.exitCode };
      });
      assert.deepEqual(first, { stdout: 'at-once\nfile\n/usr/bin/held\n', exitCode: 0 });
      await page.evaluate(() => {
        window.running = window.box.exec('held; echo after').then((r) => ({ stdout: r.stdout, exitCode: r.exitCode }));
        window.settled = false;
        window.running.then(() => (window.settled = true));
      });
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await page.evaluate(() => window.settled), false, 'it ran before its module came');
      held.release();
      const out = await page.evaluate(() => window.running);
      assert.deepEqual(out, { stdout: 'argv[0]=held\nGREETING unset\nafter\n', exitCode: 0 });
    });

    test('a program whose download failed says why when run', async () => {
      const out = await page.evaluate(async () => {
        const r = await window.box.exec('gone; echo status=$?');
        return { stdout: r.stdout, stderr: r.stderr, progress: window.progress };
      });
      assert.equal(out.stdout, 'status=126\n');
      assert.match(out.stderr, /^bash: gone: the program could not be loaded: fetching .*\/gone\.wasm: HTTP 404\n$/);
      assert.ok(out.progress.includes('gone:error'), out.progress.join(' '));
      assert.ok(out.progress.includes('held:ready'), out.progress.join(' '));
    });

    test('nothing was logged as an error', async () => {
      await page.evaluate(() => window.box.terminate());
      assert.deepEqual(errors, []);
    });
  });
}
