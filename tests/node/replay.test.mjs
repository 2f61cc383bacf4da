// Record a sandbox's operations under Node, replay them in a new one: same outcomes,
// same tree, no door opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from 'sandtab';
import { startServer } from './helpers.mjs';

test('a recording replays: ok, and no handler runs, nothing is sent', async (t) => {
  const api = await startServer({ '/news': () => ({ body: `headline at ${Date.now()}\n` }) });
  t.after(() => api.close());
  let handlerCalls = 0;
  const box = await Sandbox.create({
    storage: 'memory',
    record: true,
    capabilities: {
      tools: [{ name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      network: { allow: [{ origin: api.origin }] },
    },
    tools: {
      weather: ({ city }) => {
        handlerCalls += 1;
        return { city, temp: Math.round(Math.random() * 1000) };
      },
    },
  });
  await box.exec('mkdir -p ~/work && cd ~/work && echo $RANDOM > dice && date +%s%N > when');
  await box.exec(`cd ~/work && weather --city Oslo > forecast && curl -s ${api.origin}/news > news; echo $SRANDOM`);
  await box.writeFile('/home/agent/work/page.txt', `from node ${Math.random()}\n`);
  await box.callTool('write_file', { path: 'work/agent.txt', content: `written ${Date.now()}\n` });
  const last = await box.exec('cd ~/work; ls; cat forecast news agent.txt');
  assert.equal(last.exitCode, 0, last.stderr);
  const recording = JSON.parse(JSON.stringify(await box.recording()));
  box.terminate();
  assert.equal(recording.format, 'sandtab-recording');
  assert.equal(handlerCalls, 1);

  const served = api.requests.length;
  const { report, sandbox } = await Sandbox.replay(recording);
  t.after(() => sandbox.terminate());
  assert.deepEqual(report.mismatches, []);
  assert.equal(report.tree.actual, report.tree.expected);
  assert.equal(report.ok, true);
  assert.equal(handlerCalls, 1, 'no handler ran');
  assert.equal(api.requests.length, served, 'nothing was sent');
  assert.equal((await sandbox.exec('cat ~/work/forecast ~/work/news ~/work/agent.txt')).stdout, last.stdout.split('\n').slice(-4).join('\n'));

  // A recording whose tool answered otherwise does not match.
  const tampered = structuredClone(recording);
  const op = tampered.ops.find((o) => o.inputs?.doors?.some((d) => d.door === 'tool'));
  op.inputs.doors.find((d) => d.door === 'tool').answer = { Ok: '{"city":"Oslo","temp":-40}' };
  const second = await Sandbox.replay(tampered);
  second.sandbox.terminate();
  assert.equal(second.report.ok, false);
});
