// The sandbox's network door, end to end against real HTTP servers on loopback: granted
// requests work (curl, wget), and every way out that is not granted is refused with a
// clear code while the server it aimed at receives nothing: another origin, a private
// address, a redirect out of the granted origin (blocked by the browser at that hop),
// data:/blob:/file: URLs. An injected secret reaches the granted server but never the
// sandbox, even through an endpoint that echoes the request back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startServer } from './servers/http.mjs';

const SECRET = 'sk-test-6f1d2c9a-never-in-the-sandbox';

for (const name of browserNames) {
  describe(`network capabilities in ${name}`, () => {
    let site;
    let api;
    let elsewhere;
    let otherPort;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      elsewhere = await startServer('127.0.0.2', { '/steal': () => ({ body: 'stolen\n' }) });
      otherPort = await startServer('127.0.0.1', { '/': () => ({ body: 'other port\n' }) });
      api = await startServer('127.0.0.1', {
        '/hello': () => ({ body: 'hello from the api\n' }),
        '/json': () => ({ headers: { 'content-type': 'application/json' }, body: '{"n": 42}' }),
        '/echo': (req, body) => ({ body: JSON.stringify({ method: req.method, headers: req.headers, body: body.toString() }) }),
        '/in': () => ({ status: 302, headers: { location: '/hello' } }),
        '/out': () => ({ status: 302, headers: { location: `${elsewhere.origin}/steal` } }),
        '/big': () => ({ body: Buffer.alloc(2 << 20, 97) }),
        '/missing': () => ({ status: 404, body: 'no such thing\n' }),
        '/file.bin': () => ({ headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 1, 2, 255, 254, 10]) }),
      });
      const secretApi = await startServer('127.0.0.1', {
        '/echo': (req) => ({ headers: { 'x-echo-key': req.headers['x-api-key'] ?? '' }, body: JSON.stringify(req.headers) }),
        '/bounce': () => ({ status: 302, headers: { location: `${api.origin}/echo` } }),
      });
      api.secretServer = secretApi;
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=net-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
      await page.evaluate(
        async (doc) => {
          window.netbox = await window.sandtab.Sandbox.create({
            storage: 'memory',
            capabilities: doc,
            programs: [{ names: ['python3'], url: 'guests/python.wasm' }],
          });
        },
        {
          network: {
            allow: [
              { origin: api.origin, methods: ['GET', 'HEAD', 'POST'] },
              { origin: secretApi.origin, headers: { 'X-Api-Key': SECRET } },
            ],
            max_response_bytes: 1 << 20,
          },
        },
      );
    });

    after(async () => {
      await browser?.close();
      await Promise.all([site, api, api?.secretServer, elsewhere, otherPort].map((s) => s?.close()));
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.netbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);

    test("Python's urllib and http.client reach a granted origin; others are refused", async () => {
      const before = elsewhere.requests.length + otherPort.requests.length;
      const posts = () => api.requests.filter((r) => r.path === '/echo' && r.method === 'POST').length;
      const echoes = posts();
      const script = [
        `python3 - <<'EOF'`,
        'import urllib.request as u, urllib.error as e, http.client, json',
        `r = u.urlopen("${api.origin}/json")`,
        'print(r.status, json.load(r)["n"])',
        `req = u.Request("${api.origin}/echo", data=b"x=1", method="POST")`,
        'print(json.load(u.urlopen(req))["body"])',
        `c = http.client.HTTPConnection("${new URL(api.origin).host}")`,
        'c.request("GET", "/file.bin"); print(list(c.getresponse().read()))',
        `for url in ("${elsewhere.origin}/steal", "${otherPort.origin}/", "data:text/plain,x"):`,
        '    try:',
        '        u.urlopen(url)',
        '    except e.URLError as err:',
        '        print(getattr(err.reason, "code", err.reason))',
        'EOF',
      ].join('\n');
      const out = await exec(script);
      assert.equal(out.exitCode, 0, out.stderr);
      const lines = out.stdout.split('\n');
      assert.deepEqual(lines.slice(0, 5), ['200 42', 'x=1', '[0, 1, 2, 255, 254, 10]', 'CAP_NET_PRIVATE', 'CAP_NET_PRIVATE']);
      assert.equal(posts(), echoes + 1, 'the POST reached the api once');
      assert.equal(elsewhere.requests.length + otherPort.requests.length, before, 'no refused request left the browser');
      const audit = (await page.evaluate(() => window.netbox.auditLog())).trim().split('\n').map((l) => JSON.parse(l));
      const fromGuest = audit.filter((e) => e.via === 'guest');
      assert.ok(fromGuest.some((e) => e.kind === 'denial' && e.code === 'CAP_NET_PRIVATE'), JSON.stringify(fromGuest));
      assert.ok(fromGuest.some((e) => e.kind !== 'denial' && e.ok === true), JSON.stringify(fromGuest));
    });

    test('granted requests work: curl GET, POST, -o, -w, -f, -L within the origin; wget', async () => {
      const get = await exec(`curl -s ${api.origin}/hello`);
      assert.deepEqual(get, { stdout: 'hello from the api\n', stderr: '', exitCode: 0 });
      const json = await exec(`curl -s ${api.origin}/json | jq .n`);
      assert.equal(json.stdout, '42\n', json.stderr);
      const post = await exec(`curl -s -X POST -H 'Content-Type: text/plain' -d 'a=1' ${api.origin}/echo | jq -r '.method + " " + .body'`);
      assert.equal(post.stdout, 'POST a=1\n', post.stderr);
      const saved = await exec(`curl -s -o out.bin ${api.origin}/file.bin && od -An -tx1 out.bin`);
      assert.equal(saved.stdout.trim(), '00 01 02 ff fe 0a', saved.stderr);
      const code = await exec(`curl -s -o /dev/null -w '%{http_code}' ${api.origin}/missing; echo; curl -sf ${api.origin}/missing; echo "exit $?"`);
      assert.equal(code.stdout, '404\nexit 22\n', code.stderr);
      const followed = await exec(`curl -sL ${api.origin}/in`);
      assert.equal(followed.stdout, 'hello from the api\n', followed.stderr);
      const wget = await exec(`wget -q -O page.txt ${api.origin}/hello && cat page.txt`);
      assert.equal(wget.stdout, 'hello from the api\n', wget.stderr);
    });

    test('ungranted origins, private addresses and other schemes are refused before anything is sent', async () => {
      const before = elsewhere.requests.length + otherPort.requests.length;
      for (const [url, codeName] of [
        ['http://sandtab-not-granted.invalid/', 'CAP_NET_DENIED'],
        [`${elsewhere.origin}/steal`, 'CAP_NET_PRIVATE'],
        [`${otherPort.origin}/`, 'CAP_NET_PRIVATE'],
        ['http://10.0.0.1/', 'CAP_NET_PRIVATE'],
        ['data:text/plain,hello', 'CAP_NET_SCHEME'],
        ['blob:http://127.0.0.1/0b1c', 'CAP_NET_SCHEME'],
        ['file:///etc/passwd', 'CAP_NET_SCHEME'],
      ]) {
        const out = await exec(`curl -s '${url}'`);
        assert.equal(out.exitCode, 126, `${url}: ${out.stderr}`);
        assert.match(out.stderr, new RegExp(`^curl: ${codeName}: `), url);
        assert.equal(out.stdout, '');
      }
      const method = await exec(`curl -s -X DELETE ${api.origin}/hello`);
      assert.match(method.stderr, /CAP_NET_METHOD/);
      assert.equal(elsewhere.requests.length + otherPort.requests.length, before, 'no request reached them');
    });

    test('a redirect out of the granted origin is refused at that hop, with and without -L', async () => {
      const followed = await exec(`curl -sL ${api.origin}/out`);
      assert.equal(followed.exitCode, 126, followed.stderr);
      assert.match(followed.stderr, /^curl: CAP_NET_REDIRECT: /);
      assert.equal(followed.stdout, '');
      const unfollowed = await exec(`curl -s ${api.origin}/out`);
      assert.match(unfollowed.stderr, /CAP_NET_REDIRECT/);
      assert.equal(elsewhere.requests.length, 0, 'the browser never sent the request to the other origin');
    });

    test('an injected secret reaches its server but never the sandbox', async () => {
      const echoed = await exec(`curl -si ${api.secretServer.origin}/echo; env; cat /proc/self/environ 2>/dev/null; true`);
      assert.equal(echoed.exitCode, 0, echoed.stderr);
      assert.ok(!echoed.stdout.includes(SECRET), echoed.stdout);
      assert.match(echoed.stdout, /\[redacted\]/);
      const received = api.secretServer.requests.find((r) => r.path === '/echo' && r.method === 'GET');
      assert.equal(received.headers['x-api-key'], SECRET, 'the page injected it');
      // A request carrying the secret may not be redirected to another origin.
      const bounced = await exec(`curl -sL ${api.secretServer.origin}/bounce`);
      assert.match(bounced.stderr, /CAP_NET_REDIRECT/);
      assert.ok(!api.requests.some((r) => JSON.stringify(r.headers).includes(SECRET)), 'the secret did not travel');
      const log = await page.evaluate(() => window.netbox.auditLog());
      assert.ok(!log.includes(SECRET));
      assert.match(log, /"kind":"fetch"/);
      assert.match(log, /"code":"CAP_NET_PRIVATE".*"kind":"denial"/);
    });

    test('a response over the cap is refused', async () => {
      const out = await exec(`curl -s ${api.origin}/big | wc -c`);
      assert.match(out.stderr, /^curl: CAP_NET_TOO_LARGE: /);
      assert.equal(out.stdout.trim(), '0');
    });
  });
}
