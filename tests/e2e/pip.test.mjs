// pip in the tab, against a package index on 127.0.0.1 that serves the real wheels set-up
// fetched (target/wheels) by the simple API's JSON: `pip install requests` brings its
// dependencies through the sandbox's network grant, then `requests.get` reaches a granted
// origin and is refused at an ungranted one with the gate's code; an index that is not
// granted is refused before anything reaches it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';
import { DEMO_ROOT } from './screen.mjs';
import { startServer } from './servers/http.mjs';

const WHEELS = fileURLToPath(new URL('../../target/wheels/', import.meta.url));

/** Routes of a PEP 691 index over target/wheels: /simple/NAME/ and /files/FILE. */
function indexRoutes() {
  const routes = {};
  const projects = {};
  for (const file of readdirSync(WHEELS).filter((f) => f.endsWith('.whl'))) {
    const bytes = readFileSync(join(WHEELS, file));
    const project = file.split('-')[0].toLowerCase().replace(/[_.]/g, '-');
    (projects[project] ??= []).push({
      filename: file,
      url: `/files/${file}`,
      hashes: { sha256: createHash('sha256').update(bytes).digest('hex') },
    });
    routes[`/files/${file}`] = () => ({ headers: { 'content-type': 'application/octet-stream' }, body: bytes });
  }
  for (const [project, files] of Object.entries(projects)) {
    routes[`/simple/${project}/`] = () => ({
      headers: { 'content-type': 'application/vnd.pypi.simple.v1+json' },
      body: JSON.stringify({ meta: { 'api-version': '1.0' }, name: project, files }),
    });
  }
  return routes;
}

for (const name of browserNames) {
  describe(`pip in ${name}`, () => {
    let site;
    let index;
    let api;
    let elsewhere;
    let browser;
    let page;

    before(async () => {
      site = await serve(DEMO_ROOT);
      index = await startServer('127.0.0.1', indexRoutes());
      api = await startServer('127.0.0.1', { '/data': () => ({ headers: { 'content-type': 'application/json' }, body: '{"answer": 42}' }) });
      elsewhere = await startServer('127.0.0.1', { '/simple/six/': () => ({ body: '{}' }) });
      browser = await launch(name);
      ({ page } = await openPage(browser, `${site.url}?sandbox=pip-${Date.now()}`));
      await page.waitForFunction(() => window.sandtab?.Sandbox !== undefined);
      await page.evaluate(async (origins) => {
        window.pipbox = await window.sandtab.Sandbox.create({
          storage: 'memory',
          capabilities: { network: { allow: origins.map((origin) => ({ origin })) } },
          programs: [{ names: ['python3', 'python'], url: 'guests/python.wasm' }],
        });
      }, [index.origin, api.origin]);
    });

    after(async () => {
      await browser?.close();
      await Promise.all([site, index, api, elsewhere].map((s) => s?.close()));
    });

    const exec = (script) =>
      page.evaluate(async (s) => {
        const r = await window.pipbox.exec(s);
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      }, script);

    test('pip install requests from the local index, then requests.get through the gate', async () => {
      const install = await exec(`pip install -i ${index.origin}/simple requests`);
      assert.equal(install.exitCode, 0, install.stderr);
      assert.match(install.stdout, /Successfully installed certifi-2024\.8\.30 charset-normalizer-3\.4\.0 idna-3\.10 requests-2\.32\.3 urllib3-2\.2\.3\n$/);
      const served = index.requests.filter((r) => r.method === 'GET').map((r) => r.path);
      assert.equal(served.filter((p) => p.startsWith('/files/')).length, 5, served.join(' '));

      const script = [
        `python3 - <<'EOF'`,
        'import requests',
        `r = requests.get("${api.origin}/data")`,
        'print(r.status_code, r.json()["answer"])',
        'try:',
        `    requests.get("${elsewhere.origin}/simple/six/")`,
        'except requests.ConnectionError as err:',
        '    print("refused", "CAP_NET_PRIVATE" in str(err))',
        'EOF',
      ].join('\n');
      const used = await exec(script);
      assert.equal(used.exitCode, 0, used.stderr);
      assert.equal(used.stdout, '200 42\nrefused True\n');
      assert.equal(elsewhere.requests.length, 0, 'the refused request never left the browser');

      const listed = await exec('python3 -m pip list | grep -c . ; pip show requests | grep ^Requires');
      assert.equal(listed.stdout, '7\nRequires: certifi, charset-normalizer, idna, urllib3\n', listed.stderr);
    });

    test('an index that is not granted is refused before anything is sent', async () => {
      const out = await exec(`pip install -i ${elsewhere.origin}/simple six`);
      assert.equal(out.exitCode, 1);
      assert.match(out.stderr, /^ERROR: CAP_NET_PRIVATE: .*\nThe package index is reached through the sandbox's network grants: the page must grant http:\/\/127\.0\.0\.1:\d+/);
      assert.equal(elsewhere.requests.length, 0);
    });
  });
}
