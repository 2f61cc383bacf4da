// Two attacks on the network door, end to end against real HTTP servers on loopback:
// 1. A granted origin whose grant limits paths and methods redirects (302, and a 307
//    that would replay a POST body) to a path it does not grant: the browser hides the
//    hop, so the request is refused as unchecked (CAP_NET_REDIRECT) and the server never
//    receives the ungranted path.
// 2. A granted server echoes the page's injected secret back encoded (base64, hex,
//    percent, JSON, HTML) in its body, header values and names (hex is a valid header
//    name; `Access-Control-Expose-Headers: *` shows it) and a redirect's Location: none
//    of it reaches stdout, `curl -w '%{url_effective}'`, `jq -r`, the audit log or a
//    recording.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startServer } from './servers/http.mjs';

const TOKEN = `sk-e2e-7Hq/9+Zx=Lm&"<p>'~(w)`;
const SECRET = `Bearer ${TOKEN}`;

const b64 = (text) => Buffer.from(text).toString('base64');
const percent = (text, kept, plus = false) =>
  [...Buffer.from(text)]
    .map((b) => {
      const c = String.fromCharCode(b);
      if (b === 32 && plus) return '+';
      if (/[A-Za-z0-9]/.test(c) || kept.includes(c)) return c;
      return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');

/** The secret as a hostile echo server sends it back, by name. */
function encodings(secret) {
  const token = secret.slice('Bearer '.length);
  const hex = Buffer.from(secret).toString('hex');
  const forms = {
    raw: secret,
    token,
    base64: b64(secret),
    'base64url no padding': Buffer.from(secret).toString('base64url'),
    'base64 token': b64(token),
    'hex lower': hex,
    'hex upper': hex.toUpperCase(),
    'percent every byte': [...Buffer.from(secret)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    encodeURIComponent: encodeURIComponent(secret),
    'percent form': new URLSearchParams({ k: secret }).toString().slice(2),
    'json \\u any case': [...secret].map((c, i) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')[i % 2 ? 'toUpperCase' : 'toLowerCase']()}`).join(''),
    'json \\/': JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/'),
    'html decimal': [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(''),
    'html hex': [...secret].map((c) => `&#X${c.charCodeAt(0).toString(16)};`).join(''),
    'html named': secret.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;'),
  };
  // Inside a larger base64 blob (`Basic base64(user:token)`), at each byte alignment:
  // the characters that depend on the token alone.
  for (const prefix of ['abc:', 'user:', 'admin:']) {
    const blob = b64(`${prefix}${token}:more`);
    forms[`base64 blob after ${prefix}`] = blob.slice(Math.ceil((prefix.length * 8) / 6), Math.floor(((prefix.length + token.length) * 8) / 6));
  }
  return forms;
}

/** `text`'s parts that are a form of the secret, by name. */
function leaks(text) {
  return Object.entries(encodings(SECRET))
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);
}

for (const name of browserNames) {
  describe(`network security in ${name}`, () => {
    let site;
    let api;
    let echo;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      api = await startServer('127.0.0.1', {
        '/api/ok': () => ({ body: 'ok\n' }),
        '/api/found': () => ({ status: 302, headers: { location: '/admin/delete' } }),
        '/api/temporary': () => ({ status: 307, headers: { location: '/admin/delete' } }),
        '/admin/delete': () => ({ body: 'deleted everything\n' }),
      });
      const received = (req) => req.headers['x-api-key'] ?? '';
      echo = await startServer('127.0.0.1', {
        // Every form in the body, one a line, and each in a header of its own; and the
        // forms that can be a header's name as names.
        '/all': (req) => {
          const forms = Object.entries(encodings(received(req)));
          const named = encodings(received(req));
          return {
            headers: {
              ...Object.fromEntries(forms.map(([form, value], i) => [`x-echo-${i}`, value])),
              [named['hex lower']]: 'named',
              [`x-${named['base64url no padding']}`]: 'named too',
            },
            body: forms.map(([form, value]) => `${form}: ${value}\n`).join(''),
          };
        },
        '/json': (req) => ({
          headers: { 'content-type': 'application/json' },
          body: `{"key": "${encodings(received(req))['json \\u any case']}"}`,
        }),
        '/bounce': (req) => {
          const forms = encodings(received(req));
          const query = ['hex lower', 'base64url no padding', 'encodeURIComponent', 'percent every byte']
            .map((form, i) => `k${i}=${forms[form]}`)
            .join('&');
          return { status: 302, headers: { location: `/landing?${query}` } };
        },
        '/landing': () => ({ body: 'landed\n' }),
      });
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=netsec-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
      await page.evaluate(
        async (doc) => {
          window.secbox = await window.sandtab.Sandbox.create({ storage: 'memory', capabilities: doc, record: true });
        },
        {
          network: {
            allow: [
              { origin: api.origin, paths: ['/api/'], methods: ['GET', 'POST'] },
              { origin: echo.origin, headers: { 'X-Api-Key': SECRET } },
            ],
          },
        },
      );
    });

    after(async () => {
      await browser?.close();
      await Promise.all([site, api, echo].map((s) => s?.close()));
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.secbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);

    test('a redirect to a path the grant does not allow is never sent (302, and 307 with a POST)', async () => {
      const ok = await exec(`curl -s ${api.origin}/api/ok`);
      assert.deepEqual(ok, { stdout: 'ok\n', stderr: '', exitCode: 0 });
      for (const script of [
        `curl -sL ${api.origin}/api/found`,
        `curl -sL -X POST -d 'drop=all' ${api.origin}/api/temporary`,
        `curl -sL -d 'drop=all' ${api.origin}/api/found`,
        `wget -q -O - ${api.origin}/api/found`,
      ]) {
        const out = await exec(script);
        assert.equal(out.exitCode, 126, `${script}: ${out.stderr}`);
        assert.match(out.stderr, /CAP_NET_REDIRECT: .*could not be checked/, script);
        assert.equal(out.stdout, '', script);
      }
      const paths = api.requests.map((r) => `${r.method} ${r.path}`);
      assert.ok(!paths.some((p) => p.includes('/admin')), `the ungranted path was requested: ${paths}`);
      assert.ok(paths.includes('POST /api/temporary'), paths.join(', '));
      const log = await page.evaluate(() => window.secbox.auditLog());
      assert.match(log, /"code":"CAP_NET_REDIRECT"/);
    });

    test('a secret echoed in any common encoding reaches neither stdout nor url_effective nor the logs', async () => {
      const all = await exec(`curl -si ${echo.origin}/all`);
      assert.equal(all.exitCode, 0, all.stderr);
      assert.deepEqual(leaks(all.stdout), [], all.stdout);
      assert.match(all.stdout, /base64: \[redacted\]/);
      assert.match(all.stdout, /x-echo-0: \[redacted\]/i);
      // Header names arrive lower-cased: lower-cased base64 still gives much away.
      const lowered = [encodings(SECRET)['hex lower'], encodings(SECRET)['base64url no padding']].map((f) => f.toLowerCase());
      for (const form of lowered) assert.ok(!all.stdout.toLowerCase().includes(form), all.stdout);
      assert.match(all.stdout, /^x-sandtab-redacted: named\r?$/m);
      assert.match(all.stdout, /^x-sandtab-redacted: named too\r?$/m);
      const received = echo.requests.find((r) => r.path === '/all' && r.method === 'GET');
      assert.equal(received.headers['x-api-key'], SECRET, 'the page injected the secret');
      const decoded = await exec(`curl -s ${echo.origin}/json | jq -r .key`);
      assert.equal(decoded.exitCode, 0, decoded.stderr);
      assert.deepEqual(leaks(decoded.stdout), [], decoded.stdout);
      assert.equal(decoded.stdout, '[redacted]\n');
      // (Unfollowed, a redirect is refused in a browser, which hides its Location.)
      const effective = await exec(`curl -sL -o /dev/null -w '%{url_effective}\\n' ${echo.origin}/bounce`);
      assert.equal(effective.exitCode, 0, effective.stderr);
      assert.ok(echo.requests.some((r) => r.path === '/landing'), 'the redirect was followed');
      assert.deepEqual(leaks(effective.stdout), [], effective.stdout);
      assert.match(effective.stdout, /\/landing\?k0=\[redacted\]&k1=\[redacted\]/);
      const log = await page.evaluate(() => window.secbox.auditLog());
      assert.match(log, /"final_url":"[^"]*\/landing\?k0=\[redacted\]/);
      assert.deepEqual(leaks(log), [], log);
      // The log as a reader sees it: every string in it decoded.
      assert.deepEqual(leaks(JSON.stringify(log.trim().split('\n').map((line) => JSON.parse(line)), null, 0)), []);
      const recording = await page.evaluate(async () => JSON.stringify(await window.secbox.recording()));
      assert.deepEqual(leaks(recording), [], 'the recording');
      // The page's API: its final URL, headers and body.
      const fetched = await page.evaluate(async (url) => {
        const r = await window.secbox.fetch(url, { follow: true });
        return JSON.stringify({ ...r, body: new TextDecoder().decode(r.body) });
      }, `${echo.origin}/bounce`);
      assert.deepEqual(leaks(fetched), [], fetched);
      assert.match(fetched, /"redirected":true/);
      const api = await page.evaluate(async (url) => {
        const r = await window.secbox.fetch(url);
        return JSON.stringify({ ...r, body: new TextDecoder().decode(r.body) });
      }, `${echo.origin}/all`);
      assert.deepEqual(leaks(api), [], api);
      for (const form of lowered) assert.ok(!api.toLowerCase().includes(form), api);
      assert.match(api, /\["x-sandtab-redacted","named"\]/);
    });
  });
}
