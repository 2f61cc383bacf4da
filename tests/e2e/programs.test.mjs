// Installed programs on their way: while a program's module downloads, its name is a
// command and every other command runs; a command that runs it waits for the module,
// and a program whose download fails says why when run. The module comes from a server
// on 127.0.0.1 that holds it until the test lets it go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';

const HELLO = readFileSync(new URL('../../target/guests/c/hello.wasm', import.meta.url));
const UPPER = readFileSync(new URL('../../target/guests/c/stdin_upper.wasm', import.meta.url));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Serves /held.wasm once `release()` is called; half of /trickle.wasm at once and the
 * rest once `releaseTrickle()` is called; /versioned.wasm as `versioned.body`
 * with ETag `versioned.etag`, answering 304 to a matching If-None-Match (each request
 * logged in `versioned.asked`); 404 for anything else. Cross-origin, as a CDN would. */
async function heldServer() {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  let releaseTrickle;
  const trickled = new Promise((resolve) => (releaseTrickle = resolve));
  const versioned = { body: HELLO, etag: '"a"', asked: [] };
  const server = createServer(async (req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'if-none-match, if-modified-since',
      'access-control-expose-headers': 'etag',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    if (req.url === '/versioned.wasm') {
      const asked = req.headers['if-none-match'] ?? null;
      const status = asked === versioned.etag ? 304 : 200;
      versioned.asked.push({ asked, status });
      if (status === 304) res.writeHead(304, { ...cors, etag: versioned.etag }).end();
      else res.writeHead(200, { ...cors, etag: versioned.etag, 'content-type': 'application/wasm' }).end(versioned.body);
      return;
    }
    if (req.url === '/trickle.wasm') {
      // Half the module at once, the rest when the test lets it go.
      const half = Math.floor(HELLO.length / 2);
      res.writeHead(200, { ...cors, 'content-type': 'application/wasm', 'content-length': HELLO.length });
      res.write(HELLO.subarray(0, half));
      await trickled;
      res.end(HELLO.subarray(half));
      return;
    }
    if (req.url !== '/held.wasm') {
      res.writeHead(404, cors).end('not here');
      return;
    }
    await released;
    res.writeHead(200, { ...cors, 'content-type': 'application/wasm', 'content-length': HELLO.length }).end(HELLO);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, release, releaseTrickle, versioned, close: () => new Promise((r) => server.close(r)) };
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

    test('a kept program is asked about again: a 304 reuses it, a changed file is picked up, a wrong hash drops it', async () => {
      const run = (script, spec) =>
        page.evaluate(
          async (s, program) => {
            const box = await window.sandtab.Sandbox.create({ name: `v-${Date.now()}`, storage: 'memory', programs: [program] });
            try {
              const r = await box.exec(s);
              return r.stdout;
            } finally {
              box.terminate();
            }
          },
          script,
          { names: ['ver'], url: `${held.url}/versioned.wasm`, ...spec },
        );
      const versioned = held.versioned;
      assert.equal(await run('ver'), 'argv[0]=ver\nGREETING unset\n');
      assert.equal(await run('ver'), 'argv[0]=ver\nGREETING unset\n');
      versioned.body = UPPER;
      versioned.etag = '"b"';
      assert.equal(await run('echo hi | ver 2>/dev/null'), 'HI\n');
      assert.deepEqual(versioned.asked, [
        { asked: null, status: 200 },
        { asked: '"a"', status: 304 },
        { asked: '"a"', status: 200 },
      ]);
      // The page now asks for the first module by its hash: the kept copy (the second
      // module, ETag "b") is dropped, not asked about, and the first fetched again (the
      // browser's own HTTP cache may ask with what it has, "a").
      versioned.body = HELLO;
      versioned.etag = '"a2"';
      assert.equal(await run('ver', { sha256: sha256(HELLO) }), 'argv[0]=ver\nGREETING unset\n');
      const last = versioned.asked.at(-1);
      assert.equal(last.status, 200);
      assert.notEqual(last.asked, '"b"', 'the dropped copy was asked about');
    });

    test('a command waiting for a program shows its download on the terminal line', async () => {
      const rows = () =>
        page.$$eval('#trickle-terminal .xterm-rows > div', (divs) => divs.map((d) => d.textContent.replace(/\u00a0/g, ' ').trimEnd()));
      const until = async (predicate, what) => {
        let seen = [];
        for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
          seen = await rows();
          if (predicate(seen)) return seen;
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.fail(`timed out waiting for ${what}; the terminal shows:\n${seen.filter(Boolean).join('\n')}`);
      };
      await page.evaluate(async (base) => {
        window.waits = [];
        const box = await window.sandtab.Sandbox.create({
          name: `trickle-${Date.now()}`,
          storage: 'memory',
          programs: [{ names: ['trickle'], url: `${base}/trickle.wasm` }],
        });
        box.addEventListener('progress', (event) => window.waits.push(event.detail));
        const term = document.createElement('sandtab-terminal');
        term.id = 'trickle-terminal';
        term.style.height = '240px';
        term.sandbox = box;
        document.body.append(term);
        await term.ready;
        window.trickleBox = box;
        window.trickleRun = term.run('echo other commands run; trickle');
      }, held.url);
      // Half the bytes have come: the line says so, under the output before it.
      const share = `${Math.floor((Math.floor(HELLO.length / 2) / HELLO.length) * 100)}%`;
      const line = new RegExp(`^trickle: downloading [\\d.]+ of [\\d.]+ MB █+░+ ${share}$`);
      const waiting = await until((r) => r.some((row) => line.test(row)), 'the download line');
      const at = waiting.findIndex((row) => row.startsWith('trickle: downloading'));
      assert.equal(waiting[at - 1], 'other commands run');
      const said = await page.evaluate(() => window.waits.filter((e) => e.program === 'trickle').map((e) => `${e.phase}${e.waiting ? ':waiting' : ''}`));
      assert.ok(said.includes('fetch:waiting'), said.join(' '));
      held.releaseTrickle();
      assert.equal(await page.evaluate(() => window.trickleRun), 0);
      // The program's output takes the line's place, and the line is gone.
      const done = await until((r) => r.includes('argv[0]=trickle'), 'the program output');
      assert.equal(done[at], 'argv[0]=trickle', done.join('\n'));
      assert.ok(!done.some((row) => row.includes('downloading')), done.join('\n'));
      await page.evaluate(() => {
        document.getElementById('trickle-terminal').remove();
        window.trickleBox.terminate();
      });
    });

    test('nothing was logged as an error', async () => {
      await page.evaluate(() => window.box.terminate());
      assert.deepEqual(errors, []);
    });
  });
}
