// The adversarial suite for the network door, the attacks that already hold, kept so
// they go on holding: every spelling of loopback a URL parser accepts, user-info and
// trailing-dot tricks, and redirects from a granted server to loopback, from curl, wget,
// the page's `sandbox.fetch` and the model's `fetch` tool. Each one aims at the logging
// server on 127.0.0.1 (never granted), which must receive nothing: no connection, no
// request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startServer } from './servers/http.mjs';
import { describeEntries, startLoggingServer } from './servers/logging.mjs';

/** Every way we know to write 127.0.0.1:`port` (or this machine) in a URL. */
function loopbackSpellings(port, granted) {
  const hosts = [
    '127.0.0.1',
    'localhost',
    'LOCALHOST',
    'localhost.',
    'sub.localhost',
    '127.1',
    '127.0.1',
    '127.000.000.001',
    '2130706433',
    '0x7f000001',
    '0x7f.0.0.1',
    '0x7F.0x00.0x00.0x01',
    '0177.0.0.1',
    '017700000001',
    '127.0.0.1.',
    '%31%32%37.0.0.1',
    '127%2E0%2E0%2E1',
    '0',
    '0.0.0.0',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::]',
    '127.0.0.1%09',
  ];
  return hosts.map((host) => `http://${host}:${port}/spelled`);
}

/** URLs whose host depends on how a parser reads user-info, `\`, `#` and `?`: each
 * either reaches the granted server or is refused, and never the logger. */
function ambiguousUrls(port, granted) {
  const g = new URL(granted).host;
  return [
    `http://${g}@127.0.0.1:${port}/userinfo`,
    `http://127.0.0.1:${port}#@${g}/`,
    `http://127.0.0.1:${port}\\@${g}/`,
    `http://${g}\\@127.0.0.1:${port}/`,
    `http://127.0.0.1:${port}?@${g}/`,
    `http://${g}:@127.0.0.1:${port}/`,
    `http://${g}%40127.0.0.1:${port}/`,
  ];
}

for (const name of browserNames) {
  describe(`security: the network door in ${name}`, () => {
    let site;
    let logger;
    let granted;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      logger = await startLoggingServer();
      // A granted server (on another loopback address, granted by name) that tries to
      // send the sandbox's requests on to the logger.
      granted = await startServer('127.0.0.2', {
        '/ok': () => ({ body: 'granted\n' }),
        '/to-logger': () => ({ status: 302, headers: { location: `${logger.origin}/redirected` } }),
        '/to-localhost': () => ({ status: 307, headers: { location: `http://localhost:${logger.port}/redirected` } }),
        '/to-decimal': () => ({ status: 301, headers: { location: `http://2130706433:${logger.port}/redirected` } }),
        '/to-v6': () => ({ status: 308, headers: { location: `http://[::ffff:127.0.0.1]:${logger.port}/redirected` } }),
      });
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=secdoors-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined, { timeout: 30_000 });
      await page.evaluate(async (origin) => {
        window.doorbox = await window.sandtab.Sandbox.create({
          storage: 'memory',
          capabilities: { network: { allow: [{ origin, methods: ['GET', 'HEAD', 'POST'] }] } },
        });
      }, granted.origin);
    });

    after(async () => {
      await browser?.close();
      await Promise.all([site, logger, granted].map((s) => s?.close()));
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.doorbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);

    test('the granted server is reached (the door is open where granted)', async () => {
      const out = await exec(`curl -s ${granted.origin}/ok`);
      assert.deepEqual(out, { stdout: 'granted\n', stderr: '', exitCode: 0 });
    });

    test('every spelling of loopback is refused by curl, wget, fetch and the fetch tool', { timeout: 120_000 }, async () => {
      logger.clear();
      const urls = loopbackSpellings(logger.port, granted.origin);
      for (const url of urls) {
        const quoted = `'${url.replace(/'/g, "'\\''")}'`;
        const curl = await exec(`curl -s ${quoted}`);
        assert.notEqual(curl.exitCode, 0, `curl ${url} was not refused: ${curl.stdout}`);
        assert.equal(curl.stdout, '', url);
        const wget = await exec(`wget -q -O- ${quoted}`);
        assert.notEqual(wget.exitCode, 0, `wget ${url} was not refused`);
        const page_ = await page.evaluate(
          (u) =>
            window.doorbox.fetch(u).then(
              () => 'answered',
              (e) => `refused ${e.code ?? e.message}`,
            ),
          url,
        );
        assert.match(page_, /^refused /, `sandbox.fetch ${url}`);
        const tool = await page.evaluate(
          (u) =>
            window.doorbox.callTool('fetch', { url: u }).then(
              (r) => JSON.stringify(r),
              (e) => `refused ${e.code ?? e.message}`,
            ),
          url,
        );
        assert.ok(!tool.includes('logged'), `the fetch tool reached the logger with ${url}: ${tool}`);
      }
      assert.deepEqual(logger.entries(), [], describeEntries(logger.entries()));
    });

    test('URLs that hide loopback behind the granted host never reach the logger', async () => {
      logger.clear();
      for (const url of ambiguousUrls(logger.port, granted.origin)) {
        const quoted = `'${url.replace(/'/g, "'\\''")}'`;
        const out = await exec(`curl -s ${quoted}; wget -q -O- ${quoted}; true`);
        assert.ok(!out.stdout.includes('logged'), `${url}: ${out.stdout}`);
        await page.evaluate((u) => window.doorbox.fetch(u).catch(() => null), url);
      }
      assert.deepEqual(logger.entries(), [], describeEntries(logger.entries()));
    });

    test('a granted server cannot redirect the sandbox to loopback', async () => {
      logger.clear();
      for (const path of ['/to-logger', '/to-localhost', '/to-decimal', '/to-v6']) {
        for (const command of [`curl -sL ${granted.origin}${path}`, `curl -sL -d x=1 ${granted.origin}${path}`, `wget -q -O- ${granted.origin}${path}`]) {
          const out = await exec(command);
          assert.notEqual(out.exitCode, 0, `${command}: ${out.stdout}`);
          assert.match(out.stderr, /CAP_NET_/, command);
        }
      }
      assert.deepEqual(logger.entries(), [], describeEntries(logger.entries()));
    });
  });
}
