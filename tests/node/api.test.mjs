// The package API under Node, where a server or a test suite meets it: per-exec env,
// cwd, timeoutMs and AbortSignal; spawn; file operations saved to a directory on disk;
// the change event; close() that frees the directory for the next Sandbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from 'sandtab';
import { tempDir } from './helpers.mjs';

test('exec options: env and cwd for one exec, timeoutMs as a limit, signal', async (t) => {
  const box = await Sandbox.create({ storage: 'memory' });
  t.after(() => box.terminate());
  await box.exec('mkdir -p /srv/app');
  const once = await box.exec('pwd; echo "$MODE"', { env: { MODE: 'test' }, cwd: '/srv/app' });
  assert.equal(once.stdout, '/srv/app\ntest\n');
  assert.equal((await box.exec('pwd; echo "[$MODE]"')).stdout, '/home/agent\n[]\n');
  const loop = await box.exec('while true; do :; done', { timeoutMs: 200 });
  assert.equal(loop.exitCode, 126);
  assert.match(loop.stderr, /timeout of 200 ms passed/);
  const controller = new AbortController();
  const first = box.exec('sleep 0.3; echo first');
  const dropped = box.exec('echo never', { signal: controller.signal });
  controller.abort();
  await assert.rejects(dropped, (err) => err.code === 'ECANCELED');
  assert.equal((await first).stdout, 'first\n');
});

test('spawn, file operations and the change event; close() frees the directory', async (t) => {
  const directory = tempDir(t);
  const box = await Sandbox.create({ directory, name: 'ops' });
  const changes = [];
  box.addEventListener('change', (event) => changes.push(event.detail.cause));
  const child = box.spawn('tr a-z A-Z');
  const writer = child.stdin.getWriter();
  await writer.write('shout\n');
  await writer.close();
  assert.equal(await new Response(child.stdout).text(), 'SHOUT\n');
  assert.equal(await child.exit, 0);
  await box.writeFiles({ '/p/a.txt': 'a', '/p/deep/b.txt': 'b' }, { createParents: true });
  await box.mkdir('/p/empty');
  await box.rename('/p/a.txt', '/p/deep/a.txt');
  await box.rm('/p/empty');
  assert.deepEqual(await box.stat('/p/deep/a.txt').then((s) => [s.kind, s.size]), ['file', 1]);
  assert.equal(await box.exists('/p/a.txt'), false);
  assert.deepEqual(changes, ['writeFiles', 'mkdir', 'rename', 'rm']);
  await box.close();
  await assert.rejects(box.exec('true'), (err) => err.code === 'ECLOSED');
  const again = await Sandbox.create({ directory, name: 'ops' });
  t.after(() => again.terminate());
  assert.equal((await again.exec('cat /p/deep/a.txt /p/deep/b.txt')).stdout, 'ab');
});
