// The package under Node: the `node` export condition, exec and sessions, files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, SandboxError } from 'sandtab';


/** Guests run on the engine tier where this Node has JSPI (WebAssembly.Suspending). */
const NODE_TIER = typeof WebAssembly.Suspending === 'function' ? 'engine' : 'interpreter';
test("the package's node condition loads the Node entry", () => {
  assert.match(import.meta.resolve('sandtab'), /\/web\/dist\/node\/index\.js$/);
  assert.equal(typeof Sandbox.create, 'function');
});

test('exec: output, exit status, streaming, sessions', async (t) => {
  const box = await Sandbox.create({ storage: 'memory' });
  t.after(() => box.terminate());
  assert.deepEqual(await box.info(), { name: 'default', storage: 'memory', guestTier: NODE_TIER });
  const chunks = [];
  const r = await box.exec('echo hello; echo oops >&2; exit 3', { onStdout: (s) => chunks.push(s) });
  assert.equal(r.stdout, 'hello\n');
  assert.equal(r.stderr, 'oops\n');
  assert.equal(r.exitCode, 3);
  assert.equal(chunks.join(''), 'hello\n');

  await box.exec('mkdir -p /home/agent/w && cd /home/agent/w && X=1');
  assert.equal((await box.exec('pwd; echo "x=$X"')).stdout, '/home/agent/w\nx=1\n');
  await box.exec('cd /tmp; X=2', { session: 'other' });
  assert.equal((await box.exec('pwd; echo "x=$X"', { session: 'other' })).stdout, '/tmp\nx=2\n');
  assert.equal((await box.exec('pwd; echo "x=$X"')).stdout, '/home/agent/w\nx=1\n', 'main kept its state');
  assert.equal((await box.exec('echo "x=$X"', { fresh: true })).stdout, 'x=\n');
  assert.deepEqual(await box.sessionNames(), ['main', 'other']);
  assert.equal(await box.closeSession('other'), true);

  const jq = await box.exec(`echo '{"a":[1,2,3]}' | jq '.a | add'`);
  assert.equal(jq.stdout, '6\n', jq.stderr);
});

test('a long command can be cancelled', async (t) => {
  const box = await Sandbox.create({ storage: 'memory' });
  t.after(() => box.terminate());
  const running = box.exec('while true; do :; done');
  setTimeout(() => box.cancel(), 200);
  assert.equal((await running).exitCode, 130);
  assert.equal((await box.exec('echo still here')).stdout, 'still here\n');
});

test('files: write, read, list, tar round trip', async (t) => {
  const box = await Sandbox.create({ storage: 'memory' });
  t.after(() => box.terminate());
  await box.exec('mkdir -p /home/agent/p');
  await box.writeFile('/home/agent/p/a.txt', 'alpha\n');
  await box.writeFile('/home/agent/p/b.bin', new Uint8Array([0, 1, 255]));
  assert.equal(new TextDecoder().decode(await box.readFile('/home/agent/p/a.txt')), 'alpha\n');
  assert.deepEqual([...(await box.readFile('/home/agent/p/b.bin'))], [0, 1, 255]);
  const entries = await box.listDir('/home/agent/p');
  assert.deepEqual(entries.map((e) => [e.name, e.kind, e.size]), [['a.txt', 'file', 6], ['b.bin', 'file', 3]]);
  assert.equal((await box.exec('cat /home/agent/p/a.txt')).stdout, 'alpha\n');
  await assert.rejects(box.readFile('/home/agent/nope'), (err) => err instanceof SandboxError && err.code === 'ENOENT');
  const tar = await box.exportTar('/home/agent/p');
  await box.exec('rm -r /home/agent/p && mkdir /home/agent/q');
  const stats = await box.importTar(tar, '/home/agent/q');
  assert.equal(stats.files, 2);
  assert.equal((await box.exec('cat /home/agent/q/a.txt')).stdout, 'alpha\n');
});

test('options Node cannot honour are refused clearly', async () => {
  await assert.rejects(Sandbox.create({ storage: 'indexeddb' }), (err) => err.code === 'ENOTSUP' && /IndexedDB/.test(err.message));
  await assert.rejects(Sandbox.create({ storage: 'opfs' }), (err) => err.code === 'EINVAL' && /directory/.test(err.message));
  await assert.rejects(Sandbox.create({ storage: 'memory', directory: '/tmp/x' }), (err) => err.code === 'EINVAL');
});
