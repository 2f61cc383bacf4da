// A remote MCP server's tools as sandbox tools, end to end: a real server built with
// @modelcontextprotocol/sdk (Streamable HTTP, event-stream answers, sessions) on
// loopback, reached only through the network policy from the browser. Its tools work
// from the shell, from the page's API and in the model's definitions, under the
// document's constraints and max_calls (refused calls never reach the server); the
// page's secret header reaches the server but not the sandbox; a server that is not
// granted, or not there, is a clear error when the sandbox opens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startMcpServer } from './servers/mcp.mjs';

const SECRET = 'mcp-token-3b7e-never-in-the-sandbox';

for (const name of browserNames) {
  describe(`MCP servers' tools in ${name}`, () => {
    let site;
    let mcp;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      mcp = await startMcpServer('127.0.0.1');
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=mcp-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
      await page.evaluate(
        async (doc) => {
          window.mcpbox = await window.sandtab.Sandbox.create({ storage: 'memory', capabilities: doc });
        },
        {
          network: {
            allow: [{ origin: mcp.origin, paths: ['/mcp'], methods: ['POST'], headers: { Authorization: `Bearer ${SECRET}` } }],
          },
          mcp: [
            {
              name: 'notes',
              url: mcp.url,
              tools: [
                { name: 'search', max_calls: 3, constraints: { arg: 'q', max_length: 12 } },
                { name: 'add' },
                { name: 'whoami' },
                { name: 'explode' },
              ],
            },
          ],
        },
      );
    });

    after(async () => {
      await browser?.close();
      await Promise.all([site, mcp].map((s) => s?.close()));
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.mcpbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);
    const calls = () => mcp.methods.filter((m) => m === 'tools/call').length;

    test('the server was connected to through the policy and its tools listed', async () => {
      assert.deepEqual(mcp.methods.slice(0, 3), ['initialize', 'notifications/initialized', 'tools/list']);
      const listing = await exec('tool --list');
      assert.match(listing.stdout, /^notes_search +Searches the notes\.$/m);
      assert.match(listing.stdout, /^notes_add +Adds two numbers\.$/m);
      const defs = await page.evaluate(() => window.mcpbox.toolDefinitions('anthropic'));
      const search = defs.find((d) => d.name === 'notes_search');
      assert.deepEqual(search.input_schema.required, ['q']);
      const log = await page.evaluate(() => window.mcpbox.auditLog());
      assert.match(log, /"kind":"mcp_connect".*"tools":\["notes_search","notes_add","notes_whoami","notes_explode"\]/);
    });

    test('its tools work from the shell and the page, text and structured', async () => {
      assert.deepEqual(await exec('notes_search --q rust'), { stdout: 'found 2 notes for rust\n', stderr: '', exitCode: 0 });
      const sum = await exec('tool notes_add --a 2 --b 3 | jq .sum');
      assert.deepEqual(sum, { stdout: '5\n', stderr: '', exitCode: 0 });
      const api = await page.evaluate(() => window.mcpbox.callTool('notes_add', { a: 1.5, b: 2 }));
      assert.deepEqual(api, { sum: 3.5 });
      const failed = await exec('notes_explode; echo "exit $?"');
      assert.equal(failed.stdout, 'exit 1\n');
      assert.match(failed.stderr, /CAP_TOOL_FAILED: `notes_explode` failed: the notes are on fire/);
    });

    test("the page's secret reaches the server and never the sandbox", async () => {
      const who = await exec('notes_whoami > who.txt; cat who.txt');
      assert.equal(who.stdout, 'you sent: [redacted]\n', who.stderr);
      assert.ok(mcp.authorizations.length > 3);
      assert.ok(mcp.authorizations.every((value) => value === `Bearer ${SECRET}`), 'every message carried it');
      const log = await page.evaluate(() => window.mcpbox.auditLog());
      assert.ok(!log.includes(SECRET) && !who.stdout.includes(SECRET));
    });

    test("the document's constraints and max_calls hold, and refused calls never reach the server", async () => {
      const before = calls();
      const bad = await exec('notes_search --q "a query far too long"; echo "exit $?"');
      assert.equal(bad.stdout, 'exit 126\n');
      assert.match(bad.stderr, /CAP_CONSTRAINT/);
      const schema = await exec('notes_add --a 1; echo "exit $?"');
      assert.equal(schema.stdout, 'exit 126\n');
      assert.match(schema.stderr, /CAP_BAD_ARGS: .*missing properties 'b'/);
      assert.equal(calls(), before);
      // One search was used above; two more are allowed, then none.
      const more = await exec('for q in a b c; do notes_search --q $q >/dev/null; echo "$q: $?"; done');
      assert.equal(more.stdout, 'a: 0\nb: 0\nc: 126\n', more.stderr);
      assert.match(more.stderr, /CAP_MAX_CALLS/);
      assert.equal(calls(), before + 2);
      const denied = await page.evaluate(() => window.mcpbox.callTool('notes_delete', {}).catch((e) => e.code));
      assert.equal(denied, 'CAP_DENIED');
    });

    test('a server that forgot the session is met with a new one', async () => {
      mcp.forgetSessions();
      const again = await exec('notes_add --a 4 --b 5');
      assert.equal(again.stdout, '{"sum":9}\n', again.stderr);
      assert.deepEqual(mcp.methods.slice(-3), ['initialize', 'notifications/initialized', 'tools/call']);
    });

    test('a server not granted, or not there, is a clear error when the sandbox opens', async () => {
      const errors = await page.evaluate(
        async ({ url, origin }) => {
          const open = (capabilities) =>
            window.sandtab.Sandbox.create({ storage: 'memory', capabilities }).then(
              () => 'opened',
              (e) => e.message,
            );
          return [
            await open({ mcp: [{ name: 'notes', url }] }),
            await open({
              network: { allow: [{ origin: 'http://127.0.0.1:9', methods: ['POST'] }] },
              mcp: [{ name: 'gone', url: 'http://127.0.0.1:9/mcp' }],
            }),
            await open({
              network: { allow: [{ origin, methods: ['POST'] }] },
              mcp: [{ name: 'notes', url, tools: [{ name: 'drop_tables' }] }],
            }),
          ];
        },
        { url: mcp.url, origin: mcp.origin },
      );
      assert.match(errors[0], /capability document: mcp\[0\]\.url: .*"methods": \["POST"\]/);
      assert.match(errors[1], /^MCP server `gone` \(http:\/\/127\.0\.0\.1:9\/mcp\): CAP_NET_FAILED/);
      assert.match(errors[2], /MCP server `notes` .*: mcp\[0\]\.tools\[0\]: the server has no tool `drop_tables`/);
    });
  });
}
