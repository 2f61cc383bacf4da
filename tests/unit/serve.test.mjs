// The demo's static server as a browser meets it: compressed bodies that decode to the
// file, ETags that make a reload a 304, and a rebuilt file served anew.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { chooseEncoding, serve } from '../../scripts/serve.mjs';

let root;
let server;
const script = 'export const answer = 42;\n'.repeat(2000);

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'sandtab-serve-'));
  writeFileSync(join(root, 'main.js'), script);
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(root, 'logo.png'), Buffer.alloc(4000, 7));
  server = await serve(root);
});

after(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A request with raw bytes back (fetch would decode the body itself). */
async function get(path, headers = {}) {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(new URL(path, server.url), { headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

test('text is sent with brotli or gzip as the browser accepts, and decodes to the file', async () => {
  for (let round = 0; round < 2; round++) {
    // The second round is served from the kept copy.
    const br = await get('/main.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'accept-encoding');
    assert.equal(brotliDecompressSync(br.body).toString(), script);
    assert.ok(br.body.length < script.length / 20, `${br.body.length} bytes`);
  }
  const gz = await get('/main.js', { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), script);
  const plain = await get('/main.js');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body.toString(), script);
  const png = await get('/logo.png', { 'accept-encoding': 'br' });
  assert.equal(png.headers['content-encoding'], undefined, 'PNG is compressed already');
  assert.equal(png.body.length, 4000);
});

test('a .br file beside a file is sent as it is, unless it is older than the file', async () => {
  const code = 'export const precompressed = true;\n'.repeat(500);
  writeFileSync(join(root, 'worker.js'), code);
  const ahead = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  writeFileSync(join(root, 'worker.js.br'), ahead);
  const br = await get('/worker.js', { 'accept-encoding': 'gzip, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(Number(br.headers['content-length']), ahead.length);
  assert.deepEqual(br.body, ahead, 'the precompressed bytes themselves');
  const gz = await get('/worker.js', { 'accept-encoding': 'gzip' });
  assert.equal(gunzipSync(gz.body).toString(), code, 'gzip is still made on the fly');
  // The file rebuilt after its .br: the stale copy is not sent.
  const fresh = 'export const precompressed = false;\n';
  writeFileSync(join(root, 'worker.js'), fresh);
  const later = new Date(Date.now() + 5000);
  utimesSync(join(root, 'worker.js'), later, later);
  const rebuilt = await get('/worker.js', { 'accept-encoding': 'br' });
  assert.equal(brotliDecompressSync(rebuilt.body).toString(), fresh);
});

test('a reload revalidates: 304 without a body, and a changed file is sent again', async () => {
  const first = await get('/', { 'accept-encoding': 'br' });
  assert.equal(first.status, 200);
  assert.equal(first.headers['cache-control'], 'no-cache');
  const etag = first.headers.etag;
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
  const again = await get('/', { 'accept-encoding': 'br', 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  assert.equal(again.headers.etag, etag);
  // Rebuilt: new contents, a later modification time.
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>new</title>');
  const later = new Date(Date.now() + 5000);
  utimesSync(join(root, 'index.html'), later, later);
  const changed = await get('/', { 'accept-encoding': 'br', 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.etag, etag);
  assert.equal(brotliDecompressSync(changed.body).toString(), '<!doctype html><title>new</title>');
});

test('every answer is logged with the bytes sent', async () => {
  const from = server.requests.length;
  const br = await get('/main.js', { 'accept-encoding': 'br' });
  const plain = await get('/logo.png');
  const missing = await get('/nope.css');
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(server.requests.slice(from), [
    { path: '/main.js', status: 200, bytes: br.body.length, encoding: 'br' },
    { path: '/logo.png', status: 200, bytes: plain.body.length, encoding: null },
    { path: '/nope.css', status: 404, bytes: missing.body.length, encoding: null },
  ]);
});

test('the encoding follows accept-encoding, q-values included', () => {
  assert.equal(chooseEncoding('gzip, deflate, br'), 'br');
  assert.equal(chooseEncoding('br;q=0, gzip'), 'gzip');
  assert.equal(chooseEncoding('identity'), null);
  assert.equal(chooseEncoding(''), null);
  assert.equal(chooseEncoding('*'), 'br');
  assert.equal(chooseEncoding(undefined), null);
});

test('paths outside the root are refused and missing files are 404', async () => {
  assert.equal((await get('/..%2f..%2fetc%2fpasswd')).status, 403);
  assert.equal((await get('/nope.js')).status, 404);
});
