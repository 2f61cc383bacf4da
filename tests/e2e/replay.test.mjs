// Record and replay end to end in a real browser: a recording sandbox runs a session
// that reads the clock (date, file times), rolls $RANDOM, calls a page tool whose
// answers change every call and fetches from a real server on loopback; the server is
// then stopped, and Sandbox.replay reproduces every exit status, stdout and stderr and
// the file tree bit for bit, with no handler run and nothing sent. A tampered recording
// is reported, and recording a sandbox that already has files is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startServer } from './servers/http.mjs';

const SCRIPTS = [
  'mkdir -p work && cd work && date +%s%N > when && echo $RANDOM $RANDOM > dice && ls -l --time-style=full-iso',
  'cd ~/work; weather --city Oslo > forecast; curl -s $API/news > news; cat forecast news; stat -c "%n %Y" when',
  'cd ~/work; sleep 0.05; date +%N; echo $RANDOM; md5sum when dice forecast news',
];

for (const name of browserNames) {
  describe(`record and replay in ${name}`, () => {
    let site;
    let api;
    let browser;
    let page;
    let served = 0;

    before(async () => {
      site = await serve(DEMO_ROOT);
      api = await startServer('127.0.0.1', {
        '/news': () => ({ body: `headline ${++served} at ${Date.now()}\n` }),
      });
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=replay-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
    });

    after(async () => {
      await browser?.close();
      await Promise.all([site, api].map((s) => s?.close()));
    });

    test('a replay reproduces outputs and files without opening a door', async () => {
      const recorded = await page.evaluate(
        async ({ scripts, origin }) => {
          window.handlerCalls = 0;
          const box = await window.sandtab.Sandbox.create({
            storage: 'memory',
            record: true,
            capabilities: {
              tools: [{ name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
              network: { allow: [{ origin }] },
            },
            tools: {
              weather: ({ city }) => {
                window.handlerCalls += 1;
                return { city, temp: Math.round(Math.random() * 1000), at: Date.now() };
              },
            },
          });
          const results = [];
          await box.exec(`export API=${origin}`);
          for (const script of scripts) {
            const r = await box.exec(script);
            results.push({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });
          }
          await box.writeFile('/home/agent/work/page.txt', new TextEncoder().encode(`from the page ${Math.random()}\n`));
          results.push(await box.callTool('weather', { city: 'Paris' }));
          results.push(await box.callTool('write_file', { path: 'work/agent.txt', content: `written ${Date.now()}\n` }));
          results.push(await box.callTool('edit_file', { path: 'work/agent.txt', old_string: 'written', new_string: 'edited' }));
          const last = await box.exec('cd ~/work; ls; cat agent.txt page.txt; date');
          results.push({ stdout: last.stdout, stderr: last.stderr, exitCode: last.exitCode });
          const recording = await box.recording();
          box.terminate();
          return { results, recording: JSON.parse(JSON.stringify(recording)), calls: window.handlerCalls };
        },
        { scripts: SCRIPTS, origin: api.origin },
      );
      assert.equal(recorded.results[1].exitCode, 0, recorded.results[1].stderr);
      assert.match(recorded.results[1].stdout, /^\{"city":"Oslo","temp":\d+,"at":\d+\}\nheadline 1 at \d+\n/);
      assert.equal(recorded.calls, 2);
      assert.equal(recorded.recording.ops.length, 9);
      assert.deepEqual(
        recorded.recording.ops.map((op) => op.op),
        ['exec', 'exec', 'exec', 'exec', 'writeFile', 'callTool', 'writeText', 'editFile', 'exec'],
      );

      // The world moves on: the server is gone, and the page's handler would answer otherwise.
      await api.close();
      api = null;
      const before = served;
      const replayed = await page.evaluate(async (recording) => {
        window.handlerCalls = 0;
        const { report, sandbox } = await window.sandtab.Sandbox.replay(recording);
        const files = await sandbox.exec('cd ~/work; cat when dice forecast news agent.txt page.txt');
        sandbox.terminate();
        return { report, files: files.stdout, calls: window.handlerCalls };
      }, recorded.recording);
      assert.equal(replayed.report.divergence, null);
      assert.deepEqual(replayed.report.mismatches, []);
      assert.equal(replayed.report.tree.actual, replayed.report.tree.expected);
      assert.equal(replayed.report.ok, true);
      assert.equal(replayed.report.ops, 9);
      assert.equal(replayed.calls, 0, 'no handler ran');
      assert.equal(served, before, 'nothing was sent');
      assert.match(replayed.files, /headline 1 at/);

      // A recording that says the tool answered otherwise no longer matches.
      const tampered = structuredClone(recorded.recording);
      const door = tampered.ops[2].inputs.doors.find((d) => d.door === 'tool');
      door.answer = { Ok: '{"city":"Oslo","temp":-40}' };
      const report = await page.evaluate(async (recording) => {
        const { report, sandbox } = await window.sandtab.Sandbox.replay(recording);
        sandbox.terminate();
        return report;
      }, tampered);
      assert.equal(report.ok, false);
      assert.equal(report.mismatches[0].index, 2);
      assert.match(report.mismatches[0].op, /^exec /);
    });

    test('a guest replays exactly on the other tier (interpreter to engine, and back)', async () => {
      const PY = 'python3 -c "import time, os, random; print(time.time_ns(), os.urandom(8).hex(), random.random())"';
      for (const [recordOn, replayOn] of [
        ['interpreter', 'engine'],
        ['engine', 'interpreter'],
      ]) {
        const outcome = await page.evaluate(
          async ({ script, recordOn, replayOn }) => {
            const programs = [{ names: ['python3'], url: 'guests/python.wasm' }];
            const box = await window.sandtab.Sandbox.create({ storage: 'memory', record: true, guestTier: recordOn, programs });
            const outputs = [];
            for (let i = 0; i < 2; i++) {
              const r = await box.exec(`${script} | tee -a drawn`);
              outputs.push({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });
              await new Promise((resolve) => setTimeout(resolve, 30));
            }
            const recording = JSON.parse(JSON.stringify(await box.recording()));
            const recordedTier = (await box.info()).guestTier;
            box.terminate();
            const { report, sandbox } = await window.sandtab.Sandbox.replay(recording, { programs, guestTier: replayOn });
            const replayedTier = (await sandbox.info()).guestTier;
            const drawn = await sandbox.exec('cat drawn');
            sandbox.terminate();
            return { outputs, report, drawn: drawn.stdout, tiers: [recordedTier, replayedTier] };
          },
          { script: PY, recordOn, replayOn },
        );
        assert.deepEqual(outcome.tiers, [recordOn, replayOn]);
        for (const out of outcome.outputs) {
          assert.equal(out.exitCode, 0, out.stderr);
          assert.match(out.stdout, /^\d{19} [0-9a-f]{16} 0\.\d+\n$/);
        }
        assert.notEqual(outcome.outputs[0].stdout, outcome.outputs[1].stdout);
        assert.deepEqual(outcome.report.mismatches, [], `${recordOn} -> ${replayOn}`);
        assert.equal(outcome.report.divergence, null);
        assert.equal(outcome.report.ok, true);
        assert.equal(outcome.drawn, outcome.outputs.map((o) => o.stdout).join(''));
      }
    });

    test("the shell's own clocks and random draws replay too ($SECONDS, time, $SRANDOM)", async () => {
      const recorded = await page.evaluate(async () => {
        const box = await window.sandtab.Sandbox.create({ storage: 'memory', record: true });
        const results = [];
        const run = async (script) => {
          const r = await box.exec(script);
          results.push({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode });
        };
        await run('echo $SRANDOM $SRANDOM; echo start $SECONDS');
        // The page waits between two commands; a replay runs them back to back.
        await new Promise((resolve) => setTimeout(resolve, 1300));
        await run('echo after $SECONDS; TIMEFORMAT=%3R; time sleep 0.02');
        await run('SECONDS=100; echo $SECONDS; echo $SRANDOM > drawn; head -c 8 /dev/urandom | od -An -tx1');
        const recording = await box.recording();
        box.terminate();
        return { results, recording: JSON.parse(JSON.stringify(recording)) };
      });
      const [first, second, third] = recorded.results;
      const [a, b] = first.stdout.split('\n')[0].split(' ').map(Number);
      assert.ok(Number.isInteger(a) && Number.isInteger(b) && a !== b, first.stdout);
      assert.match(first.stdout, /\nstart 0\n$/);
      assert.equal(second.stdout, 'after 1\n');
      assert.match(second.stderr, /^0\.0[2-9]\d\n$/);
      assert.match(third.stdout, /^100\n/);
      assert.equal(recorded.recording.version, 3);
      const shellReadings = recorded.recording.ops.flatMap((op) => op.inputs.shell_monotonic ?? []);
      assert.ok(shellReadings.length > 0, 'the shell clock readings are on the tape');

      const replayed = await page.evaluate(async (recording) => {
        const { report, sandbox } = await window.sandtab.Sandbox.replay(recording);
        const drawn = await sandbox.exec('cat drawn');
        sandbox.terminate();
        return { report, drawn: drawn.stdout };
      }, recorded.recording);
      assert.equal(replayed.report.divergence, null);
      assert.deepEqual(replayed.report.mismatches, []);
      assert.equal(replayed.report.ok, true);
      assert.match(replayed.drawn, /^\d+\n$/);

      // The tape is what the replay reads: moving the second command's shell clock an
      // hour on (readings are differences, so moving the first moves them all) gives
      // another $SECONDS, found as a mismatch.
      const moved = structuredClone(recorded.recording);
      const index = moved.ops.findIndex((o) => o.op === 'exec' && o.script.startsWith('echo after'));
      const readings = moved.ops[index]?.inputs.shell_monotonic ?? [];
      assert.ok(readings.length > 1, 'the second command read the shell clock');
      readings[0] += 3600e9;
      const report = await page.evaluate(async (recording) => {
        const { report, sandbox } = await window.sandtab.Sandbox.replay(recording);
        sandbox.terminate();
        return report;
      }, moved);
      assert.equal(report.ok, false);
      assert.equal(report.mismatches[0]?.index, index, JSON.stringify(report));
    });

    test('recording needs a new sandbox, and a replay needs a recording', async () => {
      const errors = await page.evaluate(async () => {
        const name = `replay-stored-${Date.now()}`;
        const first = await window.sandtab.Sandbox.create({ name });
        await first.exec('echo kept > f');
        first.terminate();
        const messages = [];
        await window.sandtab.Sandbox.create({ name, record: true }).then(
          (box) => (messages.push('opened'), box.terminate()),
          (e) => messages.push(e.message),
        );
        await window.sandtab.Sandbox.replay({ format: 'something else' }).catch((e) => messages.push(e.message));
        await window.sandtab.Sandbox.create({ storage: 'memory', replay: { format: 'sandtab-recording', version: 9, ops: [], tree: '' } }).catch(
          (e) => messages.push(e.message),
        );
        const plain = await window.sandtab.Sandbox.create({ storage: 'memory' });
        await plain.recording().catch((e) => messages.push(e.message));
        plain.terminate();
        return messages;
      });
      assert.match(errors[0], /options\.record: the sandbox "replay-stored-\d+" already has files/);
      assert.match(errors[1], /needs a recording from sandbox\.recording\(\)/);
      assert.match(errors[2], /a recording of version 9; this sandtab reads versions 1 to 3/);
      assert.match(errors[3], /this sandbox is not recording/);
    });
  });
}
