// Tools granted by the capability document, answered by handlers in this process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from 'sandtab';

test('a granted tool reaches its handler; refusals carry CAP_ codes', async (t) => {
  const calls = [];
  const box = await Sandbox.create({
    storage: 'memory',
    capabilities: {
      ui: true,
      tools: [
        {
          name: 'weather',
          description: 'The forecast for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
          constraints: { arg: 'city', in: ['Oslo', 'Paris'] },
          max_calls: 3,
        },
        { name: 'fails' },
      ],
    },
    tools: {
      weather: async (args) => {
        calls.push(args);
        return { city: args.city, temp: -3 };
      },
      fails: () => {
        throw new Error('upstream is down');
      },
    },
  });
  t.after(() => box.terminate());

  const shell = await box.exec('weather --city Oslo | jq -c .');
  assert.equal(shell.stdout, '{"city":"Oslo","temp":-3}\n', shell.stderr);
  assert.deepEqual(await box.callTool('weather', { city: 'Paris' }), { city: 'Paris', temp: -3 });

  const refused = await box.exec('tool mail --to x; echo "$?"; weather --city Rome; echo "$?"');
  assert.equal(refused.stdout, '126\n126\n');
  assert.match(refused.stderr, /^tool: mail: CAP_DENIED: /m);
  assert.match(refused.stderr, /^weather: CAP_CONSTRAINT: /m);

  const code = (p) => p.then(() => 'ok', (err) => err.code);
  assert.equal(await code(box.callTool('weather', { days: 1 })), 'CAP_BAD_ARGS');
  assert.equal(await code(box.callTool('weather', { city: 'Oslo' })), 'ok');
  assert.equal(await code(box.callTool('weather', { city: 'Oslo' })), 'CAP_MAX_CALLS');
  assert.equal(await code(box.callTool('fails', {})), 'CAP_TOOL_FAILED');
  // The ui door is granted, but Node has no page to show it in.
  await assert.rejects(box.callTool('ui', { html: '<p>hi</p>' }), (err) => err.code === 'CAP_DENIED' && /browser page/.test(err.message));
  assert.equal(calls.length, 3, 'only allowed calls reached the handler');
  assert.match(await box.auditLog(), /"code":"CAP_MAX_CALLS"/);
});
