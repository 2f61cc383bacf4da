// A sandbox kept in a directory on disk (the OPFS log format over node:fs): it survives
// a new Sandbox, a torn tail is cut, and one directory has one writer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox } from 'sandtab';
import { tempDir } from './helpers.mjs';

const text = (bytes) => new TextDecoder().decode(bytes);


/** Guests run on the engine tier where this Node has JSPI (WebAssembly.Suspending). */
const NODE_TIER = typeof WebAssembly.Suspending === 'function' ? 'engine' : 'interpreter';
test('files in a directory survive a new Sandbox on it', async (t) => {
  const directory = tempDir(t);
  const box = await Sandbox.create({ directory, name: 'proj' });
  assert.deepEqual(await box.info(), { name: 'proj', storage: 'opfs', guestTier: NODE_TIER });
  await box.exec('mkdir -p ~/src && cd ~/src && printf "one\\n" > a.txt && seq 1 5000 > big.txt');
  await box.writeFile('/home/agent/src/b.bin', new Uint8Array(300_000).map((_, i) => i & 255));
  box.terminate();
  assert.ok(existsSync(join(directory, 'sandtab', 'proj', 'log-a')));

  const again = await Sandbox.create({ directory, name: 'proj' });
  t.after(() => again.terminate());
  assert.equal(text(await again.readFile('/home/agent/src/a.txt')), 'one\n');
  const sum = await again.exec('wc -l < ~/src/big.txt; tail -1 ~/src/big.txt');
  assert.equal(sum.stdout, '5000\n5000\n', sum.stderr);
  const bin = await again.readFile('/home/agent/src/b.bin');
  assert.equal(bin.length, 300_000);
  assert.ok(bin.every((b, i) => b === (i & 255)));
  const report = await again.fsck();
  assert.equal(report.clean, true, report.problems.join('\n'));
});

test('a torn tail (a crash mid-commit) is cut at open; the files are intact', async (t) => {
  const directory = tempDir(t);
  const box = await Sandbox.create({ directory });
  await box.exec('echo kept > ~/kept.txt');
  box.terminate();
  const dir = join(directory, 'sandtab', 'default');
  const log = readdirSync(dir)
    .filter((f) => f.startsWith('log-'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  const size = statSync(log).size;
  appendFileSync(log, Buffer.from('half a batch, never committed'.repeat(40)));

  const again = await Sandbox.create({ directory });
  assert.equal(text(await again.readFile('/home/agent/kept.txt')), 'kept\n');
  assert.equal((await again.fsck()).clean, true);
  assert.equal(statSync(log).size, size, 'the tail was cut');
  await again.exec('echo more > ~/more.txt');
  again.terminate();

  const third = await Sandbox.create({ directory });
  t.after(() => third.terminate());
  assert.equal((await third.exec('cat ~/kept.txt ~/more.txt')).stdout, 'kept\nmore\n');
});

test('one Sandbox at a time per directory and name', async (t) => {
  const directory = tempDir(t);
  const box = await Sandbox.create({ directory, name: 'solo' });
  t.after(() => box.terminate());
  await assert.rejects(Sandbox.create({ directory, name: 'solo' }), (err) => err.code === 'EBUSY');
  const other = await Sandbox.create({ directory, name: 'other' });
  other.terminate();
});
