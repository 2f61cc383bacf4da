// sandtab's own tools (`bash`, `read_file`, `write_file`, `edit_file`) go through the
// gate like granted tools: each `callTool` is checked against the capability document's
// `builtins` and is in the audit log (arguments summarised, never file contents); a
// denied one fails with its `CAP_...` code, changes nothing, and is left out of
// `toolDefinitions`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';

for (const name of browserNames) {
  describe(`built-in tools through the gate in ${name}`, () => {
    let site;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=security-tools-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
    });

    after(async () => {
      await browser?.close();
      await site?.close();
    });

    const audit = (sandbox) =>
      page.evaluate(async (which) => {
        const log = await window[which].auditLog();
        return log.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
      }, sandbox);

    test('read_file, write_file, edit_file and bash are audited like other tool calls', async () => {
      const secret = 'the file body: ' + 'that must not be in the log. '.repeat(20);
      const answers = await page.evaluate(async (body) => {
        window.open1 = await window.sandtab.Sandbox.create({ storage: 'memory' });
        const written = await window.open1.callTool('write_file', { path: 'notes.txt', content: body });
        const edited = await window.open1.callTool('edit_file', { path: 'notes.txt', old_string: 'the file body', new_string: 'THE BODY' });
        const read = await window.open1.callTool('read_file', { path: '/home/agent/notes.txt', limit: 1 });
        const bash = await window.open1.callTool('bash', { command: 'wc -c < notes.txt' });
        const bad = await window.open1.callTool('read_file', { file: 'x' }).then(() => 'ok', (err) => err.code);
        return { written, edited, read: read.content.slice(0, 8), bash, bad };
      }, secret);
      assert.deepEqual(answers.written, { bytes_written: secret.length });
      assert.equal(answers.edited.replacements, 1);
      assert.equal(answers.read, 'THE BODY');
      assert.equal(answers.bash.exit_code, 0);
      assert.equal(answers.bash.stdout.trim(), String(secret.length - 5));
      assert.equal(answers.bad, 'CAP_BAD_ARGS');
      const entries = await audit('open1');
      const tools = entries.filter((e) => e.tool !== undefined || e.call === 'tool');
      const byTool = (tool) => tools.filter((e) => e.tool === tool);
      const write = byTool('write_file');
      assert.equal(write.length, 1, JSON.stringify(tools));
      assert.equal(write[0].kind, 'tool');
      assert.equal(write[0].ok, true);
      assert.equal(write[0].via, 'api');
      assert.equal(write[0].args.path, 'notes.txt');
      assert.equal(write[0].args.content_bytes, secret.length);
      assert.equal(byTool('edit_file')[0]?.ok, true);
      assert.equal(byTool('read_file')[0]?.ok, true);
      assert.equal(byTool('read_file')[0]?.args.limit, 1);
      assert.equal(byTool('bash')[0]?.args.command, 'wc -c < notes.txt');
      const refused = byTool('read_file').find((e) => e.kind === 'denial');
      assert.equal(refused?.code, 'CAP_BAD_ARGS');
      // File contents never reach the log.
      for (const line of entries) assert.ok(!JSON.stringify(line).includes('must not be in the log'), JSON.stringify(line));
    });

    test('a document denying write_file refuses it with CAP_DENIED, writes nothing, and hides it', async () => {
      const out = await page.evaluate(async () => {
        window.open2 = await window.sandtab.Sandbox.create({
          storage: 'memory',
          capabilities: { builtins: { write_file: false, edit_file: { paths: ['/home/agent/src'], max_calls: 1 } } },
        });
        const sandbox = window.open2;
        const fail = (p) => p.then(() => 'ok', (err) => err.code);
        const denied = await fail(sandbox.callTool('write_file', { path: 'a.txt', content: 'x' }));
        const exists = (await sandbox.exec('test -e /home/agent/a.txt; echo $?')).stdout.trim();
        await sandbox.exec('mkdir -p src && echo hello > src/a.txt && echo hello > b.txt && ln -s /home/agent/b.txt src/link');
        const outside = await fail(sandbox.callTool('edit_file', { path: 'b.txt', old_string: 'hello', new_string: 'bye' }));
        const viaLink = await fail(sandbox.callTool('edit_file', { path: 'src/link', old_string: 'hello', new_string: 'bye' }));
        const dotdot = await fail(sandbox.callTool('edit_file', { path: 'src/../b.txt', old_string: 'hello', new_string: 'bye' }));
        const inside = await fail(sandbox.callTool('edit_file', { path: 'src/a.txt', old_string: 'hello', new_string: 'bye' }));
        const again = await fail(sandbox.callTool('edit_file', { path: 'src/a.txt', old_string: 'bye', new_string: 'hi' }));
        const files = (await sandbox.exec('cat b.txt src/a.txt')).stdout;
        const names = (await sandbox.toolDefinitions('openai')).map((d) => d.function.name);
        return { denied, exists, outside, viaLink, dotdot, inside, again, files, names };
      });
      assert.equal(out.denied, 'CAP_DENIED');
      assert.equal(out.exists, '1', 'the denied write left no file');
      assert.equal(out.outside, 'CAP_CONSTRAINT');
      assert.equal(out.viaLink, 'CAP_CONSTRAINT');
      assert.equal(out.dotdot, 'CAP_CONSTRAINT');
      assert.equal(out.inside, 'ok');
      assert.equal(out.again, 'CAP_MAX_CALLS');
      assert.equal(out.files, 'hello\nbye\n');
      assert.ok(!out.names.includes('write_file'), out.names.join());
      assert.ok(out.names.includes('edit_file') && out.names.includes('read_file'), out.names.join());
      const entries = await audit('open2');
      const denial = entries.find((e) => e.kind === 'denial' && e.tool === 'write_file');
      assert.equal(denial?.code, 'CAP_DENIED', JSON.stringify(entries));
      assert.equal(denial.call, 'tool');
      assert.equal(denial.args.content_bytes, 1);
      assert.equal(entries.filter((e) => e.tool === 'edit_file' && e.kind === 'denial').length, 4);
    });

    test('a malformed builtins section is a clear error', async () => {
      const message = await page.evaluate(async () => {
        try {
          await window.sandtab.Sandbox.create({ storage: 'memory', capabilities: { builtins: { write_file: 'no' } } });
          return 'opened';
        } catch (err) {
          return err.message;
        }
      });
      assert.match(message, /builtins\.write_file/);
    });

    // A granted tool's schema may come from an MCP server, and its arguments from the
    // model. boon checks by recursion, and a schema that refers to itself through many
    // `$defs` is walked again at every level of the arguments: before the bound, this
    // call ended in "Maximum call stack size exceeded" (Chromium) or crashed the runtime
    // (Firefox). Now such arguments are refused unchecked, and the sandbox goes on.
    test('a schema that refers to itself cannot make a check overflow the stack', async () => {
      const answers = await page.evaluate(async () => {
        const selfReferring = (references) => {
          const defs = {};
          for (let i = 0; i < references; i++) defs[`a${i}`] = { $ref: i + 1 < references ? `#/$defs/a${i + 1}` : '#' };
          return { type: 'object', $defs: defs, properties: { x: { $ref: '#/$defs/a0' } } };
        };
        const nested = (depth) => {
          let args = {};
          for (let i = 0; i < depth; i++) args = { x: args };
          return args;
        };
        const sandbox = await window.sandtab.Sandbox.create({
          storage: 'memory',
          capabilities: {
            tools: [
              { name: 'maze', description: 'many references', parameters: selfReferring(120) },
              { name: 'tree', description: 'one', parameters: selfReferring(1) },
            ],
          },
          tools: { maze: async () => 'maze done', tree: async () => 'tree done' },
        });
        const call = (name, args) =>
          sandbox.callTool(name, args).then(
            (result) => ({ result }),
            (err) => ({ code: err.code, message: String(err.message) }),
          );
        const deepMaze = await call('maze', nested(20));
        const tree = await call('tree', nested(60));
        const badTree = await call('tree', { x: { x: 1 } });
        const alive = (await sandbox.exec('echo alive')).stdout;
        await sandbox.close();
        return { deepMaze, tree, badTree, alive };
      });
      assert.equal(answers.deepMaze.code, 'CAP_BAD_ARGS', JSON.stringify(answers.deepMaze));
      assert.match(answers.deepMaze.message, /nest 21 levels deep; this schema refers to itself/);
      assert.deepEqual(answers.tree, { result: 'tree done' });
      assert.equal(answers.badTree.code, 'CAP_BAD_ARGS');
      assert.match(answers.badTree.message, /\/x\/x: want object, but got number/);
      assert.equal(answers.alive, 'alive\n');
    });
  });
}
