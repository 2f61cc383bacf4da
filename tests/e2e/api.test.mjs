// End to end, the package API by the conventions its users know (just-bash, WebContainer,
// Node's fs): per-exec env, cwd, timeoutMs and an AbortSignal that cancels one exec
// (queued or running); spawn with streams; file operations with their errno codes and a
// change event; close() that saves and lets the name go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';

for (const name of browserNames) {
  describe(`package API in ${name}`, () => {
    let server;
    let browser;
    let page;
    let errors;

    before(async () => {
      server = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${server.url}?sandbox=api-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
      await page.evaluate(async () => {
        window.box = await window.sandtab.Sandbox.create({ name: 'api', storage: 'memory' });
      });
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** Runs `fn` in the page with the sandbox as `box`; errors come back as { code, message }. */
    const inPage = (fn, ...args) => page.evaluate(fn, ...args);

    test('env and cwd hold for one exec; the session is as it was afterwards', async () => {
      const r = await inPage(async () => {
        await box.exec('mkdir -p /work/app; GREETING=session');
        const once = await box.exec('pwd; echo "$GREETING $EXTRA"; printenv EXTRA', { env: { GREETING: 'hello', EXTRA: 'there' }, cwd: '/work/app' });
        const after = await box.exec('pwd; echo "[$GREETING] [${EXTRA-unset}]"');
        const bad = await box.exec('true', { env: { 'NOT-A-NAME': '1' } }).catch((e) => ({ code: e.code, message: e.message }));
        const missing = await box.exec('true', { cwd: '/nowhere' }).catch((e) => ({ code: e.code, message: e.message }));
        return { once: once.stdout, after: after.stdout, bad, missing };
      });
      assert.equal(r.once, '/work/app\nhello there\nthere\n');
      assert.equal(r.after, '/home/agent\n[session] [unset]\n');
      assert.equal(r.bad.code, 'EINVAL');
      assert.match(r.bad.message, /NOT-A-NAME/);
      assert.equal(r.missing.code, 'ENOENT');
    });

    test('timeoutMs stops one exec as a limit, counted from when it starts', async () => {
      const r = await inPage(async () => {
        const loop = await box.exec('while true; do :; done', { timeoutMs: 300 });
        // The second waits about a second behind the first: its 400 ms are its own.
        const [slow, quick] = await Promise.all([box.exec('sleep 1; echo slept'), box.exec('echo quick', { timeoutMs: 400 })]);
        const tooLong = await box.exec('true', { timeoutMs: 10 ** 9 }).catch((e) => e.code);
        const next = await box.exec('echo next');
        return { loop: [loop.exitCode, loop.stderr], slow: slow.stdout, quick: [quick.exitCode, quick.stdout], tooLong, next: next.stdout };
      });
      assert.equal(r.loop[0], 126, r.loop[1]);
      assert.match(r.loop[1], /timeout of 300 ms passed \[timeoutMs\]/);
      assert.equal(r.slow, 'slept\n');
      assert.deepEqual(r.quick, [0, 'quick\n']);
      assert.equal(r.tooLong, 'EINVAL');
      assert.equal(r.next, 'next\n');
    });

    test('an AbortSignal cancels its exec only: queued, running, or aborted already', async () => {
      const r = await inPage(async () => {
        const queuedSignal = new AbortController();
        const first = box.exec('sleep 0.5; echo first');
        const queued = box.exec('touch /tmp/never', { signal: queuedSignal.signal }).then(
          () => 'ran',
          (e) => e.code,
        );
        queuedSignal.abort();
        const later = box.exec('echo later');
        const results = [(await first).stdout, await queued, (await later).stdout, await box.exists('/tmp/never')];
        const running = new AbortController();
        setTimeout(() => running.abort(), 300);
        const stopped = await box.exec('while true; do :; done', { signal: running.signal });
        const already = await box.exec('touch /tmp/never', { signal: AbortSignal.abort() }).catch((e) => e.code);
        return { results, stopped: [stopped.exitCode, stopped.stderr], already, never: await box.exists('/tmp/never') };
      });
      assert.deepEqual(r.results, ['first\n', 'ECANCELED', 'later\n', false]);
      assert.equal(r.stopped[0], 130, r.stopped[1]);
      assert.equal(r.already, 'ECANCELED');
      assert.equal(r.never, false);
    });

    test('spawn gives streams: stdout and stderr as written, stdin while it runs, kill', async () => {
      const r = await inPage(async () => {
        const text = (stream) => new Response(stream).text();
        const p = box.spawn('read name; echo "hi $name"; echo oops >&2; exit 4');
        const out = text(p.stdout);
        const err = text(p.stderr);
        const writer = p.stdin.getWriter();
        await writer.write('sandtab\n');
        await writer.close();
        const exit = await p.exit;
        const looping = box.spawn('while true; do :; done');
        setTimeout(() => looping.kill(), 200);
        return { out: await out, err: await err, exit, killed: await looping.exit };
      });
      assert.deepEqual(r, { out: 'hi sandtab\n', err: 'oops\n', exit: 4, killed: 130 });
    });

    test('file operations: mkdir, writeFile(s), stat, exists, rename, rm, with errno codes', async () => {
      const r = await inPage(async () => {
        const code = (promise) => promise.then(() => 'ok', (e) => e.code);
        const out = {};
        await box.mkdir('/proj/src/lib', { recursive: true });
        out.mkdirAgain = await code(box.mkdir('/proj/src/lib', { recursive: true }));
        out.mkdirExists = await code(box.mkdir('/proj/src'));
        out.mkdirNoParent = await code(box.mkdir('/nope/deeper'));
        out.writeNoParent = await code(box.writeFile('/proj/docs/a.md', '# a'));
        await box.writeFile('/proj/docs/a.md', '# a', { createParents: true });
        await box.writeFiles({ '/proj/src/main.py': 'print(1)\n', '/proj/src/lib/util.py': new Uint8Array([120, 10]), '/proj/new/x.txt': 'x' }, { createParents: true });
        const stat = await box.stat('/proj/src/main.py');
        out.stat = [stat.kind, stat.size, typeof stat.modified, (await box.stat('/proj/src')).kind];
        out.statMissing = await code(box.stat('/proj/missing'));
        out.exists = [await box.exists('/proj/src/lib/util.py'), await box.exists('/proj/missing'), await box.exists('/proj/src/main.py/under')];
        await box.rename('/proj/new', '/proj/moved');
        out.moved = (await box.exec('cat /proj/moved/x.txt /proj/src/lib/util.py /proj/docs/a.md')).stdout;
        out.rmFull = await code(box.rm('/proj/src'));
        out.rmMissing = await code(box.rm('/proj/missing'));
        out.rmForce = await code(box.rm('/proj/missing', { force: true }));
        await box.rm('/proj/src', { recursive: true });
        out.after = (await box.listDir('/proj')).map((e) => e.name);
        return out;
      });
      assert.deepEqual(r, {
        mkdirAgain: 'ok',
        mkdirExists: 'EEXIST',
        mkdirNoParent: 'ENOENT',
        writeNoParent: 'ENOENT',
        stat: ['file', 9, 'number', 'dir'],
        statMissing: 'ENOENT',
        exists: [true, false, false],
        moved: 'xx\n# a',
        rmFull: 'ENOTEMPTY',
        rmMissing: 'ENOENT',
        rmForce: 'ok',
        after: ['docs', 'moved'],
      });
    });

    test('a change event follows each exec that changed files and each file operation', async () => {
      const events = await inPage(async () => {
        const seen = [];
        const listener = (event) => seen.push([event.detail.cause, event.detail.paths]);
        box.addEventListener('change', listener);
        await box.exec('echo a > /tmp/c1');
        await box.exec('cat /tmp/c1; ls /');
        await box.writeFile('/tmp/c2', 'b');
        await box.mkdir('/tmp/cd');
        await box.rename('/tmp/c2', '/tmp/cd/c2');
        await box.rm('/tmp/cd', { recursive: true });
        const result = await box.exec('rm /tmp/c1');
        box.removeEventListener('change', listener);
        await box.exec('echo unseen > /tmp/c3');
        return { seen, flag: result.filesChanged };
      });
      assert.deepEqual(events.seen, [
        ['exec', []],
        ['writeFile', ['/tmp/c2']],
        ['mkdir', ['/tmp/cd']],
        ['rename', ['/tmp/c2', '/tmp/cd/c2']],
        ['rm', ['/tmp/cd']],
        ['exec', []],
      ]);
      assert.equal(events.flag, true);
    });

    test('close() saves and lets the name go; later calls reject with ECLOSED', async () => {
      const r = await inPage(async () => {
        const { Sandbox } = window.sandtab;
        const name = `closing-${Date.now()}`;
        const first = await Sandbox.create({ name, storage: 'indexeddb' });
        await first.exec('echo kept > /home/agent/k');
        await first.close();
        await first.close();
        const later = await first.exec('true').catch((e) => e.code);
        // The lock is released at once: the same name opens again, with the file.
        const second = await Sandbox.create({ name, storage: 'indexeddb' });
        const kept = (await second.exec('cat /home/agent/k')).stdout;
        await second[Symbol.asyncDispose]();
        const disposed = await second.exec('true').catch((e) => e.code);
        await Sandbox.deleteStored(name);
        return { later, kept, disposed };
      });
      assert.deepEqual(r, { later: 'ECLOSED', kept: 'kept\n', disposed: 'ECLOSED' });
    });

    test('no page errors', () => {
      assert.deepEqual(errors, []);
    });
  });
}
