// End to end, guest programs as a user meets them on the demo page: CPython and QuickJS
// are fetched (with progress shown) and installed as commands; `python3` runs one-liners
// and scripts on the sandbox's files, `qjs` runs JavaScript, and a guest runs from the
// terminal and is stopped by Ctrl-C.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT, promptCount, typeLine, waitForScreen } from './screen.mjs';

for (const name of browserNames) {
  describe(`guest programs in ${name}`, () => {
    let server;
    let browser;
    let page;
    let errors;

    before(async () => {
      server = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page, errors } = await openPage(browser, `${server.url}?sandbox=guests-${Date.now()}`));
      await waitForScreen(page, (rows) => promptCount(rows) === 1, 'the first prompt');
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.sandtab.sandbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);

    test('python3 and qjs are installed, and the page shows their progress', async () => {
      const out = await exec(`python3 -c 'import json; print(json.dumps({"a": [1, 2]}))'; qjs -e 'console.log(6*7)'`);
      assert.equal(out.stdout, '{"a": [1, 2]}\n42\n', out.stderr);
      assert.equal(out.exitCode, 0);
      const line = await page.$eval('#programs', (el) => el.textContent);
      assert.match(line, /python3 ready/);
      assert.match(line, /qjs ready/);
    });

    test('a Python script reads and writes sandbox files and imports a sandbox module', async () => {
      await page.evaluate(async () => {
        const { sandbox } = window.sandtab;
        await sandbox.exec('mkdir -p proj/lib');
        await sandbox.writeFile('/home/agent/proj/lib/shapes.py', 'def area(w, h):\n    return w * h\n');
        await sandbox.writeFile('/home/agent/proj/sizes.txt', '3 4\n5 6\n');
        await sandbox.writeFile(
          '/home/agent/proj/main.py',
          'import sys\nsys.path.insert(0, "lib")\nfrom shapes import area\n' +
            'rows = [line.split() for line in open("sizes.txt")]\n' +
            'total = sum(area(int(w), int(h)) for w, h in rows)\n' +
            'open("total.txt", "w").write(f"{total}\\n")\nprint("total", total)\n',
        );
      });
      const out = await exec('cd proj && python3 main.py && cat total.txt && python main.py | wc -l');
      assert.equal(out.stdout, 'total 42\n42\n1\n', out.stderr);
      const saved = await page.evaluate(async () => new TextDecoder().decode(await window.sandtab.sandbox.readFile('/home/agent/proj/total.txt')));
      assert.equal(saved, '42\n');
    });

    test('interrupt() while Python waits on a tty stdin raises KeyboardInterrupt; otherwise it cancels', async () => {
      const out = await page.evaluate(async () => {
        const { sandbox } = window.sandtab;
        let typing;
        const stdin = new ReadableStream({ start: (c) => (typing = c) });
        const prompts = [];
        const script = "python3 -c \"\ntry:\n    input('name? ')\nexcept KeyboardInterrupt:\n    print('caught')\nprint(input('again? ').upper())\n\"";
        const running = sandbox.exec(script, {
          stdin,
          tty: true,
          onStdout: (text) => {
            prompts.push(text);
            // Each prompt is answered once it is shown: first Ctrl-C, then a line.
            if (text.includes('name? ')) sandbox.interrupt();
            if (text.includes('again? ')) typing.enqueue('yes\n');
          },
        });
        const first = await running;
        // A program that is computing is cancelled.
        const loop = sandbox.exec("python3 -c 'while True: pass'", { stdin: new ReadableStream(), tty: true });
        await new Promise((r) => setTimeout(r, 500));
        sandbox.interrupt();
        const second = await loop;
        return { stdout: first.stdout, stderr: first.stderr, exitCode: first.exitCode, loop: second.exitCode };
      });
      assert.equal(out.stdout, 'name? caught\nagain? YES\n', out.stderr);
      assert.equal(out.exitCode, 0);
      assert.equal(out.loop, 130);
    });

    test('a Python error is the program\'s own, with its exit status', async () => {
      const out = await exec(`python3 -c 'raise ValueError("bad value")'; echo status=$?`);
      assert.equal(out.stdout, 'status=1\n');
      assert.match(out.stderr, /ValueError: bad value/);
    });

    test('Ctrl-C in the terminal stops a running guest', async () => {
      await typeLine(page, `python3 -c 'while True: pass'`);
      await new Promise((r) => setTimeout(r, 1500));
      await page.keyboard.down('Control');
      await page.keyboard.press('c');
      await page.keyboard.up('Control');
      const rows = await waitForScreen(page, (r) => promptCount(r) >= 2, 'the prompt after Ctrl-C', 10_000);
      assert.ok(rows.some((row) => row.includes('cancelled')), rows.join('\n'));
      const out = await exec('echo still here');
      assert.equal(out.stdout, 'still here\n');
    });

    test("programs run on the browser's engine, and a second sandbox reuses its compiled CPython", async () => {
      const seen = await page.evaluate(async () => {
        const { Sandbox, sandbox } = window.sandtab;
        // Every message the page's workers send, and what the page hands a new worker.
        const compiledBy = new Map();
        const handed = [];
        const post = Worker.prototype.postMessage;
        Worker.prototype.postMessage = function (message, ...rest) {
          if (message?.type === 'init') {
            handed.push((message.engineModules ?? []).length);
            this.addEventListener('message', ({ data }) => {
              if (data?.type === 'engineModule') compiledBy.set(this, (compiledBy.get(this) ?? 0) + 1);
            });
          }
          return post.call(this, message, ...rest);
        };
        try {
          const info = await sandbox.info();
          const programs = [{ names: ['python3'], url: 'guests/python.wasm' }];
          // Limits of their own (the rewrite depends on them): nothing the page has fits.
          const guestLimits = { memoryBytes: 512 * 2 ** 20 };
          const first = await Sandbox.create({ name: 'tier-a', storage: 'memory', programs, guestLimits });
          const a = await first.exec('python3 -c "print(6*7)"');
          const second = await Sandbox.create({ name: 'tier-b', storage: 'memory', programs, guestLimits });
          const b = await second.exec('python3 -c "print(6*7)"');
          const compiled = [...compiledBy.values()];
          first.terminate();
          second.terminate();
          return { tier: info.guestTier, a: a.stdout, b: b.stdout, handed, compiled };
        } finally {
          Worker.prototype.postMessage = post;
        }
      });
      assert.equal(seen.tier, 'engine');
      assert.equal(seen.a, '42\n');
      assert.equal(seen.b, '42\n');
      // The first new sandbox compiled CPython once for the engine; the second was handed
      // it (with the demo's own sandbox's modules) and compiled nothing.
      assert.equal(seen.handed.length, 2);
      assert.ok(seen.handed[1] > seen.handed[0], JSON.stringify(seen));
      assert.deepEqual(seen.compiled, [1], JSON.stringify(seen));
      const line = await page.$eval('#storage-usage', (el) => el.textContent);
      assert.match(line, /programs run on the browser's engine/);
    });

    test('CPython and QuickJS answer the same on the interpreter as on the engine', async () => {
      const scripts = [
        `python3 -c 'import json, sys; print(json.dumps({"argv": sys.argv}))' a b`,
        `printf 'x,1\\ny,2\\n' > t.csv; python3 -c 'import csv; print(sum(int(r[1]) for r in csv.reader(open("t.csv"))))'`,
        `echo hello | python3 -c 'import sys; print(sys.stdin.read().upper(), end="")' | wc -c`,
        `python3 -c 'raise SystemExit(7)'; echo "status $?"`,
        `python3 -c 'import os; open("made.txt", "w").write("py"); print(sorted(os.listdir(".")))'`,
        `qjs -e 'console.log([1, 2, 3].map((n) => n * n).join(" "))'`,
      ];
      const seen = await page.evaluate(async (scripts) => {
        const { Sandbox } = window.sandtab;
        const programs = [
          { names: ['python3', 'python'], url: 'guests/python.wasm' },
          { names: ['qjs'], url: 'guests/quickjs.wasm' },
        ];
        const runs = {};
        for (const guestTier of ['engine', 'interpreter']) {
          const box = await Sandbox.create({ name: `same-${guestTier}`, storage: 'memory', programs, guestTier });
          runs[guestTier] = { tier: (await box.info()).guestTier, outputs: [] };
          for (const script of scripts) {
            const r = await box.exec(script);
            runs[guestTier].outputs.push({ script, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });
          }
          box.terminate();
        }
        return runs;
      }, scripts);
      assert.equal(seen.engine.tier, 'engine');
      assert.equal(seen.interpreter.tier, 'interpreter');
      assert.deepEqual(seen.interpreter.outputs, seen.engine.outputs);
      const [argv, csv, piped, exit, listing, qjs] = seen.engine.outputs;
      assert.equal(argv.stdout, '{"argv": ["-c", "a", "b"]}\n', JSON.stringify(argv));
      assert.equal(csv.stdout, '3\n');
      assert.equal(piped.stdout.trim(), '6');
      assert.equal(exit.stdout, 'status 7\n');
      assert.equal(listing.stdout, "['made.txt', 't.csv']\n");
      assert.equal(qjs.stdout, '1 4 9\n');
    });

    test('metered programs are kept across reloads; a stale or broken copy is not used', async () => {
      const guestLimits = { memoryBytes: 256 * 2 ** 20 };
      const run = () =>
        page.evaluate(async (guestLimits) => {
          const box = await window.sandtab.Sandbox.create({ name: 'kept', storage: 'memory', guestLimits, programs: [{ names: ['python3'], url: 'guests/python.wasm' }] });
          const r = await box.exec('python3 -c "print(6*7)"');
          box.terminate();
          const stores = (await caches.keys()).filter((name) => name.startsWith('sandtab-engine-'));
          const entries = await Promise.all(stores.map(async (name) => (await (await caches.open(name)).keys()).map((req) => req.url)));
          return { stdout: r.stdout, stderr: r.stderr, stores, entries: entries.flat() };
        }, guestLimits);
      // A store of an older revision of the meter, as an earlier version left it.
      await page.evaluate(async () => (await caches.open('sandtab-engine-r0')).put('/.sandtab-engine/old.wasm', new Response('old')));
      const first = await run();
      assert.equal(first.stdout, '42\n', first.stderr);
      assert.equal(first.stores.length, 1, 'the older revision is gone');
      assert.notEqual(first.stores[0], 'sandtab-engine-r0');
      const kept = first.entries.find((url) => url.includes(encodeURIComponent(':4096:')));
      assert.ok(kept, `the module for 256 MiB is kept: ${first.entries.join(', ')}`);
      // Broken bytes under the same key (storage is untrusted): the next load meters again.
      await page.evaluate(
        async ([store, url]) => (await caches.open(store)).put(url, new Response('not wasm', { headers: { 'content-type': 'application/wasm' } })),
        [first.stores[0], kept],
      );
      await page.reload();
      await page.waitForFunction(() => window.sandtab?.sandbox !== undefined, { timeout: 60_000 });
      const again = await run();
      assert.equal(again.stdout, '42\n', again.stderr);
      const stored = await page.evaluate(async ([store, url]) => (await (await caches.open(store)).match(url)).arrayBuffer().then((b) => b.byteLength), [first.stores[0], kept]);
      assert.ok(stored > 1_000_000, `the broken copy was replaced (${stored} bytes)`);
    });

    test('sqlite3 keeps a database in the sandbox, journal included, across a reload', async () => {
      const { page: db, errors: dbErrors } = await openPage(browser, `${server.url}?sandbox=sqlite-${Date.now()}`);
      await waitForScreen(db, (rows) => promptCount(rows) === 1, 'the first prompt');
      const run = (script) =>
        db.evaluate(async (s) => {
          const r = await window.sandtab.sandbox.exec(s);
          return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
        }, script);
      const write = await run(`mkdir -p data && cd data && python3 -c '
import sqlite3, os
db = sqlite3.connect("notes.db")
db.execute("create table notes(id integer primary key, text text)")
with db:
    db.executemany("insert into notes(text) values (?)", [("n%d" % i,) for i in range(500)])
# a transaction still open shows its rollback journal and its lock (SQLite on WASI
# locks with a directory) beside the database
db.execute("insert into notes(text) values (?)", ("pending",))
print(sorted(os.listdir(".")))
db.rollback()
db.execute("pragma journal_mode=wal")
with db:
    db.execute("update notes set text = ? where id = 1", ("first",))
db.close()
print(sorted(os.listdir(".")))
'`);
      assert.equal(write.stdout, "['notes.db', 'notes.db-journal', 'notes.db.lock']\n['notes.db']\n", write.stderr);
      await db.reload();
      await waitForScreen(db, (rows) => promptCount(rows) === 1, 'the prompt after the reload');
      const read = await run(`cd data && python3 -c '
import sqlite3
db = sqlite3.connect("notes.db")
print(db.execute("select count(*), min(text), (select text from notes where id = 1) from notes").fetchone())
print(db.execute("pragma integrity_check").fetchone()[0])
'`);
      assert.equal(read.stdout, "(500, 'first', 'first')\nok\n", read.stderr);
      assert.deepEqual(dbErrors, []);
      await db.close();
    });

    test('no page errors', () => {
      assert.deepEqual(errors, []);
    });
  });
}
