// End to end, the stored filesystem as a user meets it: files typed into the terminal
// survive a reload, a worker killed in the middle of a large flush leaves either the old
// or the new files (never a mix, never a corrupt record), a second tab cannot open the
// same sandbox, and the demo's storage buttons work.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, typeLine, waitForScreen } from './screen.mjs';

const ROOT = DEMO_ROOT;

for (const name of browserNames) {
  describe(`stored files in ${name}`, () => {
    let server;
    let browser;
    const pageErrors = [];

    before(async () => {
      server = await serve(ROOT);
      browser = await launch(name);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    async function open(sandboxName) {
      const { page, errors } = await openPage(browser, `${server.url}?sandbox=${sandboxName}`);
      pageErrors.push(errors);
      return page;
    }

    test('files created in the terminal are there after a reload', async () => {
      const page = await open('reload');
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
      await typeLine(page, 'mkdir n; echo kept > n/k; echo x > /tmp/t');
      await waitForScreen(page, (rows) => promptCount(rows) === 2, 'the command to finish');
      await page.reload();
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the prompt after the reload');
      await typeLine(page, 'cat n/k; ls /tmp | wc -l');
      const rows = await waitForScreen(page, (r) => promptCount(r) === 2, 'cat to finish');
      const command = rows.findIndex((row) => row.includes('cat n/k'));
      assert.equal(rows[command + 1], 'kept', rows.join('\n'));
      assert.equal(rows[command + 2], '0', '/tmp is not kept');
      await page.waitForFunction(() => [...document.querySelectorAll('#files li.file')].some((li) => li.textContent.startsWith('k')), { timeout: 10_000 });
      const usage = await page.$eval('#storage-usage', (el) => el.textContent);
      assert.match(usage, /saved in IndexedDB as "reload"/);
      assert.match(usage, /browser storage: .* used of /);
      await page.close();
    });

    test('a second tab cannot open the same sandbox, and says why', async () => {
      const first = await open('shared');
      await waitForScreen(first, (rows) => promptCount(rows) === 1, 'the first tab');
      const { page: second } = await openPage(browser, `${server.url}?sandbox=shared`);
      await second.waitForSelector('.startup-error', { timeout: 20_000 });
      const text = await second.$eval('.startup-error', (el) => el.textContent);
      assert.match(text, /already open in another tab/);
      await second.close();
      await first.close();
      // Once the first tab is gone, the sandbox opens again.
      const third = await open('shared');
      await waitForScreen(third, (rows) => promptCount(rows) === 1, 'the sandbox after the first tab closed');
      await third.close();
    });

    for (const storage of ['indexeddb', 'opfs']) test(`deleteStored removes a just-terminated sandbox's files (${storage})`, async () => {
      const page = await open(`deleter-${storage}`);
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined, { timeout: 30_000 });
      const result = await page.evaluate(async (kind) => {
        const { Sandbox } = window.sandtab;
        const name = `doomed-${kind}-${Date.now()}`;
        const box = await Sandbox.create({ name, storage: kind });
        await box.writeFile('/home/agent/kept.txt', 'data');
        box.terminate();
        // At once: the lock is let go a moment later, and deleteStored waits for it.
        await Sandbox.deleteStored(name);
        const again = await Sandbox.create({ name, storage: kind });
        const names = (await again.listDir('/home/agent')).map((e) => e.name);
        // Another holder is refused: EBUSY.
        const busy = await Sandbox.deleteStored(name).then(() => 'deleted', (err) => err.code);
        again.terminate();
        await Sandbox.deleteStored(name);
        return { names, busy };
      }, storage);
      assert.deepEqual(result, { names: [], busy: 'EBUSY' });
      await page.close();
    });

    for (const storage of ['indexeddb', 'opfs']) test(`a worker killed in the middle of a large flush leaves old or new files, whole (${storage})`, async () => {
      const page = await open(`crash-${storage}&storage=${storage}`);
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
      const outcome = await page.evaluate(async (storage) => {
        const { sandbox, Sandbox } = window.sandtab;
        const files = 40;
        const before = await sandbox.exec(`for i in $(seq 1 ${files}); do echo old-$i > f$i; done`);
        if (before.exitCode !== 0) throw new Error(before.stderr);
        let written;
        const wrote = new Promise((resolve) => (written = resolve));
        const started = performance.now();
        // About 23 MiB of new contents: the flush after this command takes a while.
        const run = sandbox
          .exec(`for i in $(seq 1 ${files}); do seq 1 100000 > f$i; echo new-$i >> f$i; done; echo written`, {
            onStdout: (text) => text.includes('written') && written(),
          })
          .then(() => 'finished', (err) => `stopped: ${err.message}`);
        await wrote;
        const killedAfter = performance.now() - started;
        sandbox.terminate();
        const execState = await run;
        const reopened = await Sandbox.create({ name: `crash-${storage}`, storage });
        const report = await reopened.fsck();
        const decoder = new TextDecoder();
        const states = [];
        for (let i = 1; i <= files; i++) {
          const text = decoder.decode(await reopened.readFile(`/home/agent/f${i}`));
          if (text === `old-${i}\n`) states.push('old');
          else if (text.startsWith('1\n2\n3\n') && text.endsWith(`\n100000\nnew-${i}\n`)) states.push('new');
          else states.push(`broken: ${text.slice(0, 40)}`);
        }
        reopened.terminate();
        return { report, states, execState, killedAfter };
      }, storage);
      const kinds = [...new Set(outcome.states)];
      console.log(`# ${name}, ${storage}: worker killed ${outcome.killedAfter.toFixed(0)} ms into the command (${outcome.execState}); after reopening every file is ${kinds.join('/')}`);
      assert.ok(outcome.report.clean, outcome.report.problems.join('\n'));
      assert.equal(kinds.length, 1, `a flush is atomic: ${outcome.states.join(', ')}`);
      assert.ok(kinds[0] === 'old' || kinds[0] === 'new', kinds[0]);
      await page.close();
    });

    test('the demo takes a snapshot, restores it and checks the store', async () => {
      const page = await open('buttons');
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
      await typeLine(page, 'echo first > doc.txt');
      await waitForScreen(page, (rows) => promptCount(rows) === 2, 'the write');
      await page.click('#snapshot');
      await page.waitForFunction(() => /Snapshot #1 taken/.test(document.getElementById('storage-status').textContent), { timeout: 10_000 });
      await typeLine(page, 'echo second > doc.txt');
      await waitForScreen(page, (rows) => promptCount(rows) === 3, 'the second write');
      await page.waitForFunction(() => !document.getElementById('restore').disabled, { timeout: 10_000 });
      await page.click('#restore');
      await page.waitForFunction(() => /Restored snapshot #1/.test(document.getElementById('storage-status').textContent), { timeout: 10_000 });
      await typeLine(page, 'cat doc.txt');
      const rows = await waitForScreen(page, (r) => promptCount(r) === 4, 'cat');
      const command = rows.findIndex((row) => row.includes('$ cat doc.txt'));
      assert.equal(rows[command + 1], 'first', rows.join('\n'));
      await page.click('#fsck');
      await page.waitForFunction(() => /fsck: .*clean/.test(document.getElementById('storage-status').textContent), { timeout: 10_000 });
      await page.close();
    });

    test('no page logged an error', () => {
      assert.deepEqual(pageErrors.flat(), []);
    });
  });
}
