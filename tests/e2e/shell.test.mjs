// End to end, the shell as the package's users meet it: named sessions that keep their
// state from one exec to the next and share the files, fresh sessions, results cut at
// maxOutputBytes with a note and the total size, and clear errors for bad options.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, waitForScreen } from './screen.mjs';

for (const name of browserNames) {
  describe(`shell sessions and output in ${name}`, () => {
    let server;
    let browser;
    let page;
    let errors;

    before(async () => {
      server = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${server.url}?sandbox=shell-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    const exec = (script, options) =>
      page.evaluate(
        async (s, o) => {
          const r = await window.sandtab.sandbox.exec(s, o);
          return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, stdoutTotal: r.stdoutTotal, stdoutTruncated: r.stdoutTruncated, kept: r.stdoutBytes.length };
        },
        script,
        options,
      );

    test('named sessions keep cd, variables, functions and options, and share files', async () => {
      await exec('mkdir -p /tmp/w && cd /tmp/w; V=agent-a; greet() { echo "hi $1"; }; set -o pipefail; echo shared > note', { session: 'a' });
      await exec('V=agent-b', { session: 'b' });
      const a = await exec('pwd; echo $V; greet x; false | true; echo $?', { session: 'a' });
      assert.equal(a.stdout, '/tmp/w\nagent-a\nhi x\n1\n', a.stderr);
      const b = await exec('pwd; echo $V; cat /tmp/w/note; false | true; echo $?', { session: 'b' });
      assert.equal(b.stdout, '/home/agent\nagent-b\nshared\n0\n', b.stderr);
      const fresh = await exec('echo "[$V]"', { fresh: true });
      assert.equal(fresh.stdout, '[]\n');
      const names = await page.evaluate(() => window.sandtab.sandbox.sessionNames());
      assert.deepEqual(names, ['a', 'b', 'main']);
      assert.equal(await page.evaluate(() => window.sandtab.sandbox.closeSession('a')), true);
      const reopened = await exec('pwd; echo "[$V]"', { session: 'a' });
      assert.equal(reopened.stdout, '/home/agent\n[]\n');
    });

    test('a long output is cut with a note that gives the total, and streams whole', async () => {
      const streamed = await page.evaluate(async () => {
        let bytes = 0;
        const r = await window.sandtab.sandbox.exec('seq 1 200000', {
          maxOutputBytes: 4096,
          onOutput: (_stream, data) => (bytes += data.length),
        });
        return { bytes, total: r.stdoutTotal, kept: r.stdoutBytes.length, tail: r.stdout.slice(-80), truncated: r.stdoutTruncated };
      });
      assert.equal(streamed.bytes, 1288895);
      assert.equal(streamed.total, 1288895);
      assert.equal(streamed.kept, 4096);
      assert.equal(streamed.truncated, true);
      assert.match(streamed.tail, /\[sandtab: stdout truncated: the first 4096 of 1288895 bytes are shown\]\n$/);
    });

    test('stdin: a string, bytes, a stream written while it runs, an async iterable', async () => {
      const results = await page.evaluate(async () => {
        const box = window.sandtab.sandbox;
        const out = {};
        out.text = (await box.exec('read first; echo "<$first>"; tr a-z A-Z', { stdin: 'one\ntwo\n' })).stdout;
        out.bytes = (await box.exec('wc -c', { stdin: new Uint8Array([0, 1, 2, 255]) })).stdout.trim();
        // A stream the page writes while the command runs: each read waits for a line.
        let push;
        const stream = new ReadableStream({ start: (c) => (push = c) });
        const seen = [];
        const running = box.exec('while read line; do echo "got $line"; done; echo end', {
          stdin: stream,
          onStdout: (text) => seen.push(text),
        });
        push.enqueue('a\n');
        await new Promise((resolve) => setTimeout(resolve, 100));
        out.firstSeenBeforeEnd = seen.join('');
        push.enqueue(new TextEncoder().encode('b\n'));
        push.close();
        out.stream = (await running).stdout;
        async function* lines() {
          yield 'x\n';
          await new Promise((resolve) => setTimeout(resolve, 20));
          yield 'y\n';
        }
        out.iterable = (await box.exec('python3 -c "import sys; print(sys.stdin.read().split())"', { stdin: lines() })).stdout;
        out.input = (await box.exec('python3 -c "print(input(\'word? \')[::-1])"', { stdin: 'stressed\n' })).stdout;
        // What the script set stays in the session, as without stdin.
        await box.exec('read kept', { stdin: 'value\n' });
        out.kept = (await box.exec('echo "$kept"')).stdout;
        // Without stdin, a reader sees end of file at once.
        out.none = (await box.exec('cat; echo rc=$?')).stdout;
        return out;
      });
      assert.deepEqual(results, {
        text: '<one>\nTWO\n',
        bytes: '4',
        firstSeenBeforeEnd: 'got a\n',
        stream: 'got a\ngot b\nend\n',
        iterable: "['x', 'y']\n",
        input: 'word? desserts\n',
        kept: 'value\n',
        none: 'rc=0\n',
      });
    });

    test('a stdin source that fails ends the command and the exec says why', async () => {
      const message = await page.evaluate(() => {
        const failing = new ReadableStream({
          pull: (controller) => controller.error(new Error('the source broke')),
        });
        return window.sandtab.sandbox.exec('cat', { stdin: failing }).then(
          () => 'resolved',
          (err) => `${err.code}: ${err.message}`,
        );
      });
      assert.match(message, /^EIO: stdin: reading the source failed: the source broke/);
      const ok = await exec('echo still fine');
      assert.equal(ok.stdout, 'still fine\n');
    });

    test('bad exec options are refused with a clear message and change nothing', async () => {
      const message = await page.evaluate(() =>
        window.sandtab.sandbox.exec('echo no', { session: '../x' }).then(
          () => 'resolved',
          (err) => err.message,
        ),
      );
      assert.match(message, /invalid session name/);
      const ok = await exec('echo still fine');
      assert.equal(ok.stdout, 'still fine\n');
      assert.deepEqual(errors, []);
    });
  });
}
