// Programs (WebAssembly modules installed as commands) from a path, a file: URL or
// http(s), as under a browser from a URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import binaryen from 'binaryen';
import { Sandbox } from 'sandtab';
import { startServer, tempDir } from './helpers.mjs';

/** A WASI module printing `text`. */
function hello(text) {
  const bytes = [...new TextEncoder().encode(text)];
  const data = bytes.map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
  const module = binaryen.parseText(`(module
    (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
    (memory (export "memory") 1)
    (data (i32.const 16) "${data}")
    (func (export "_start")
      (i32.store (i32.const 0) (i32.const 16))
      (i32.store (i32.const 4) (i32.const ${bytes.length}))
      (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))`);
  const binary = module.emitBinary();
  module.dispose();
  return binary;
}

test('programs install from a path, a file: URL and http', async (t) => {
  const dir = tempDir(t);
  const one = hello('one\n');
  const two = hello('two\n');
  const three = hello('three\n');
  writeFileSync(join(dir, 'one.wasm'), one);
  writeFileSync(join(dir, 'two.wasm'), two);
  const server = await startServer({ '/three.wasm': () => ({ headers: { 'content-type': 'application/wasm' }, body: Buffer.from(three) }) });
  t.after(() => server.close());
  const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
  const events = [];
  const box = await Sandbox.create({
    storage: 'memory',
    programs: [
      { names: ['one'], url: join(dir, 'one.wasm'), sha256: sha256(one) },
      { names: ['two'], url: pathToFileURL(join(dir, 'two.wasm')).href },
      { names: ['three'], url: `${server.origin}/three.wasm`, sha256: sha256(three) },
      { names: ['missing'], url: join(dir, 'missing.wasm') },
    ],
    onProgress: (event) => events.push(event),
  });
  t.after(() => box.terminate());
  const out = await box.exec('one; two; three');
  assert.equal(out.stdout, 'one\ntwo\nthree\n', out.stderr);
  const failed = events.find((e) => e.program === 'missing' && e.phase === 'error');
  assert.match(failed?.message ?? '', /missing\.wasm/);
  // Its name is a command all the same; running it says why it is not there.
  const missing = await box.exec('missing');
  assert.equal(missing.exitCode, 126);
  assert.match(missing.stderr, /^bash: missing: the program could not be loaded: .*missing\.wasm/);
});
