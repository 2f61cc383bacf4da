// Granted tools end to end: the page's async handlers answer the shell's `tool` command,
// a tool's own command name and `Sandbox.callTool`, all through one check; refusals have
// stable codes and exit 126; the audit log holds every call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';

for (const name of browserNames) {
  describe(`granted tools in ${name}`, () => {
    let site;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=tools-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
      await page.evaluate(async () => {
        window.toolCalls = [];
        window.toolbox = await window.sandtab.Sandbox.create({
          storage: 'memory',
          capabilities: {
            tools: [
              {
                name: 'weather',
                description: 'The forecast for a city',
                parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
                constraints: { all: [{ arg: 'city', in: ['Oslo', 'Paris'] }, { arg: 'days', le: 7 }] },
                max_calls: 4,
              },
              { name: 'fails' },
            ],
          },
          tools: {
            weather: async (args) => {
              window.toolCalls.push(args);
              await new Promise((r) => setTimeout(r, 10));
              return { city: args.city, days: args.days, temp: -3 };
            },
            fails: () => {
              throw new Error('upstream is down');
            },
          },
        });
      });
    });

    after(async () => {
      await browser?.close();
      await site?.close();
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.toolbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);

    test('the shell, the tool by name and the API reach the handler', async () => {
      const out = await exec('tool weather --city Oslo --days 2 | jq -c .; weather --city Paris --days 1 | jq .temp');
      assert.equal(out.stdout, '{"city":"Oslo","days":2,"temp":-3}\n-3\n', out.stderr);
      const api = await page.evaluate(() => window.toolbox.callTool('weather', { city: 'Oslo', days: 7 }));
      assert.deepEqual(api, { city: 'Oslo', days: 7, temp: -3 });
      const list = await exec('tool');
      assert.equal(list.stdout, 'weather  The forecast for a city\nfails    \n');
    });

    test('refusals: not granted, constraint, schema, max_calls; a failing handler', async () => {
      const refused = await exec('tool mail --to x; echo "$?"; weather --city Rome --days 1; echo "$?"; weather --city Oslo --days 9; echo "$?"');
      assert.equal(refused.stdout, '126\n126\n126\n');
      assert.match(refused.stderr, /^tool: mail: CAP_DENIED: /m);
      assert.match(refused.stderr, /^weather: CAP_CONSTRAINT: .*`city` must be one of/m);
      assert.match(refused.stderr, /^weather: CAP_CONSTRAINT: .*`days` must be at most 7/m);
      const codes = await page.evaluate(async () => {
        const code = (p) => p.then(() => 'ok', (err) => err.code);
        return [
          await code(window.toolbox.callTool('weather', { days: 1 })),
          await code(window.toolbox.callTool('weather', { city: 'Oslo', days: 1 })),
          await code(window.toolbox.callTool('weather', { city: 'Oslo', days: 1 })),
          await code(window.toolbox.callTool('fails', {})),
        ];
      });
      assert.deepEqual(codes, ['CAP_BAD_ARGS', 'ok', 'CAP_MAX_CALLS', 'CAP_TOOL_FAILED']);
      const calls = await page.evaluate(() => window.toolCalls.length);
      assert.equal(calls, 4, 'only allowed calls reached the handler');
      const failed = await exec('fails; echo "$?"');
      assert.equal(failed.stdout, '1\n');
      assert.equal(failed.stderr, 'fails: CAP_TOOL_FAILED: `fails` failed: upstream is down\n');
    });

    test("sandtab's own tools: definitions in three formats, bash, read, write and edit", async () => {
      const defs = await page.evaluate(async () => ({
        openai: await window.toolbox.toolDefinitions('openai'),
        anthropic: await window.toolbox.toolDefinitions('anthropic'),
        mcp: await window.toolbox.toolDefinitions('mcp'),
      }));
      assert.deepEqual(defs.openai.map((d) => d.function.name), ['bash', 'read_file', 'write_file', 'edit_file', 'weather', 'fails']);
      assert.equal(defs.anthropic[4].input_schema.required[0], 'city');
      assert.equal(defs.mcp[3].inputSchema.required.join(), 'path,old_string,new_string');
      const steps = await page.evaluate(async () => {
        const box = window.toolbox;
        const code = (p) => p.then((v) => v, (err) => err.code);
        return [
          await box.callTool('write_file', { path: 'app/main.py', content: 'print(1)\nprint(1)\n' }),
          await code(box.callTool('edit_file', { path: 'app/main.py', old_string: 'print(1)', new_string: 'print(2)' })),
          await box.callTool('edit_file', { path: 'app/main.py', old_string: 'print(1)\nprint(1)', new_string: 'print(3)' }),
          await box.callTool('read_file', { path: '/home/agent/app/main.py' }),
          await box.callTool('bash', { command: 'cat app/main.py; exit 3' }),
          await code(box.callTool('read_file', { path: 'nope' })),
          await code(box.callTool('read_file', {})),
        ];
      });
      assert.deepEqual(steps, [
        { bytes_written: 18 },
        'EINVAL',
        { replacements: 1 },
        { content: 'print(3)\n' },
        { stdout: 'print(3)\n', stderr: '', exit_code: 3 },
        'ENOENT',
        'CAP_BAD_ARGS',
      ]);
    });

    test('the audit log has every exec, call and denial', async () => {
      const log = await page.evaluate(() => window.toolbox.auditLog());
      const entries = log.trim().split('\n').map((line) => JSON.parse(line));
      const kinds = new Set(entries.map((e) => e.kind));
      assert.deepEqual([...kinds].sort(), ['denial', 'exec', 'tool']);
      const viaApi = entries.find((e) => e.kind === 'tool' && e.via === 'api');
      assert.deepEqual(viaApi.args, { city: 'Oslo', days: 7 });
      assert.ok(viaApi.result_bytes > 0);
      assert.ok(entries.some((e) => e.kind === 'denial' && e.code === 'CAP_MAX_CALLS' && e.via === 'api'));
    });
  });
}
