// Requests through the network policy, made by Node's fetch: granted origins work, a
// redirect out of them is refused before it is sent, secrets are injected and never
// reach the sandbox, the body is capped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox } from 'sandtab';
import { startServer } from './helpers.mjs';

const SECRET = 'sk-node-test-0123456789';
let api;
let keyed;
let elsewhere;
let box;

before(async () => {
  elsewhere = await startServer({ '/steal': () => ({ body: 'stolen\n' }) });
  api = await startServer({
    '/hello': () => ({ body: 'hello from the api\n' }),
    '/echo': (req, body) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: req.method, body }) }),
    '/in': () => ({ status: 302, headers: { location: '/hello' } }),
    '/out': () => ({ status: 302, headers: { location: `${elsewhere.origin}/steal` } }),
    '/big': () => ({ body: 'x'.repeat(5000) }),
    '/chunked': (req) => ({ headers: { 'transfer-encoding': 'chunked' }, body: 'y'.repeat(5000) }),
  });
  keyed = await startServer({
    '/whoami': (req) => ({ body: `key=${req.headers['x-api-key']}\n` }),
    '/bounce': () => ({ status: 302, headers: { location: `${api.origin}/hello` } }),
  });
  box = await Sandbox.create({
    storage: 'memory',
    capabilities: {
      network: {
        allow: [
          { origin: api.origin, methods: ['GET', 'HEAD', 'POST'] },
          { origin: keyed.origin, headers: { 'X-Api-Key': SECRET } },
        ],
        max_response_bytes: 4096,
      },
    },
  });
});

after(async () => {
  box?.terminate();
  await Promise.all([api, keyed, elsewhere].map((s) => s?.close()));
});

const exec = async (script) => {
  const r = await box.exec(script);
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
};

test('granted requests work: curl GET and POST, -L within the origin, fetch()', async () => {
  assert.deepEqual(await exec(`curl -s ${api.origin}/hello`), { stdout: 'hello from the api\n', stderr: '', exitCode: 0 });
  const post = await exec(`curl -s -X POST -d 'a=1' ${api.origin}/echo | jq -r '.method + " " + .body'`);
  assert.equal(post.stdout, 'POST a=1\n', post.stderr);
  const followed = await exec(`curl -sL ${api.origin}/in`);
  assert.equal(followed.stdout, 'hello from the api\n', followed.stderr);
  const response = await box.fetch(`${api.origin}/in`, { follow: true });
  assert.equal(response.status, 200);
  assert.equal(response.redirected, true);
  assert.equal(response.url, `${api.origin}/hello`);
  assert.equal(new TextDecoder().decode(response.body), 'hello from the api\n');
});

test('ungranted origins are refused before anything is sent', async () => {
  const out = await exec(`curl -s ${elsewhere.origin}/steal`);
  assert.equal(out.exitCode, 126);
  assert.match(out.stderr, /^curl: CAP_NET_PRIVATE: /);
  const method = await exec(`curl -s -X DELETE ${api.origin}/hello`);
  assert.match(method.stderr, /CAP_NET_METHOD/);
  assert.equal(elsewhere.requests.length, 0);
});

test('a redirect out of the granted origins is refused at that hop', async () => {
  const followed = await exec(`curl -sL ${api.origin}/out`);
  assert.equal(followed.exitCode, 126, followed.stderr);
  assert.match(followed.stderr, /^curl: CAP_NET_REDIRECT: /);
  assert.equal(followed.stdout, '');
  await assert.rejects(box.fetch(`${api.origin}/out`, { follow: true }), (err) => err.code === 'CAP_NET_REDIRECT');
  // Not followed: the redirect itself is the answer.
  const unfollowed = await box.fetch(`${api.origin}/out`, { follow: false });
  assert.equal(unfollowed.status, 302);
  assert.equal(elsewhere.requests.length, 0, 'the other origin was never asked');
});

test('an injected secret reaches its server but never the sandbox, nor another origin', async () => {
  const echoed = await exec(`curl -s ${keyed.origin}/whoami`);
  assert.equal(echoed.exitCode, 0, echoed.stderr);
  assert.equal(echoed.stdout, 'key=[redacted]\n');
  assert.equal(keyed.requests.find((r) => r.path === '/whoami').headers['x-api-key'], SECRET);
  const bounced = await exec(`curl -sL ${keyed.origin}/bounce`);
  assert.match(bounced.stderr, /CAP_NET_REDIRECT/);
  assert.ok(!api.requests.some((r) => JSON.stringify(r.headers).includes(SECRET)), 'the secret did not travel');
  assert.ok(!(await box.auditLog()).includes(SECRET));
});

test('a response over the cap is refused, declared or streamed', async () => {
  for (const path of ['/big', '/chunked']) {
    const out = await exec(`curl -s ${api.origin}${path} | wc -c`);
    assert.match(out.stderr, /CAP_NET_TOO_LARGE/, path);
    assert.equal(out.stdout.trim(), '0', path);
  }
});
