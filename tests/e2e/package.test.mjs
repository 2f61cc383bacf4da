// The npm package as a stranger's app meets it: `npm pack` of web/, a fresh Vite app in a
// temporary directory that installs the tarball (not the workspace), `vite build` with
// no configuration, and the built app driven in a real browser. Its TypeScript use of
// the public types is checked with `tsc --strict` too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../scripts/serve.mjs';
import { browserNames, launch, openPage } from './browsers.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const rootPackage = JSON.parse(execFileSync('node', ['-p', 'JSON.stringify(require("./package.json"))'], { cwd: ROOT, encoding: 'utf8' }));

/** The package README's "plain HTML page" example, exactly as printed there. */
function readmeExample() {
  const readme = readFileSync(join(ROOT, 'web/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### A plain HTML page'));
  const match = section.match(/```html\n([\s\S]*?)```/);
  assert.ok(match, 'the README has the plain HTML example');
  return match[1];
}

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const APP_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"></head>
<body><pre id="out">starting</pre><sandtab-terminal id="term" style="height:300px"></sandtab-terminal>
<script type="module" src="/main.ts"></script></body></html>
`;

const APP_MAIN = `import { Sandbox, SandboxError, type ExecResult } from 'sandtab';
import 'sandtab/terminal';

const out = document.getElementById('out')!;
try {
  const sandbox = await Sandbox.create({ storage: 'memory' });
  const result: ExecResult = await sandbox.exec('echo packed $((6 * 7)) | tr a-z A-Z');
  await sandbox.writeFile('/tmp/x.txt', 'kept');
  const text = new TextDecoder().decode(await sandbox.readFile('/tmp/x.txt'));
  out.textContent = \`\${result.stdout.trim()} \${result.exitCode} \${text}\`;
} catch (err) {
  out.textContent = \`failed: \${err instanceof SandboxError ? err.code : ''} \${String(err)}\`;
}
`;

describe('npm package in a fresh Vite app', () => {
  let dir;
  let dist;
  let site;
  let plain;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandtab-vite-'));
    const packs = join(dir, 'packs');
    mkdirSync(packs);
    run('npm', ['pack', '-w', 'web', '--pack-destination', packs, '--silent'], ROOT);
    const [tarball] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack made a tarball');
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'throwaway-app', private: true, type: 'module' }));
    writeFileSync(join(app, 'index.html'), APP_HTML);
    writeFileSync(join(app, 'main.ts'), APP_MAIN);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], strict: true, noEmit: true, skipLibCheck: false },
        include: ['main.ts'],
      }),
    );
    // The same Vite and TypeScript as the workspace pins (from npm's cache when it has them).
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', join(packs, tarball), `vite@${rootPackage.devDependencies.vite}`, `typescript@${rootPackage.devDependencies.typescript}`],
      app,
    );
    run(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], app);
    dist = join(app, 'dist');
    // Beside the built app: the README's plain page, served with node_modules.
    writeFileSync(join(app, 'plain.html'), readmeExample().replace('<title>', '<link rel="icon" href="data:,"><title>'));
    site = await serve(dist);
    plain = await serve(app);
  });

  after(async () => {
    await site?.close();
    await plain?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the app type-checks against the published types with tsc --strict', () => {
    run(join(dir, 'app/node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], join(dir, 'app'));
  });

  test('the tarball holds the built package and nothing of the sources', () => {
    const files = run('tar', ['tzf', join(dir, 'packs', readdirSync(join(dir, 'packs'))[0])], dir).split('\n');
    for (const needed of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/terminal.js', 'package/dist/worker.js', 'package/pkg/sandtab_web_bg.wasm', 'package/README.md']) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
    assert.ok(!files.some((f) => f.startsWith('package/src/')), 'no TypeScript sources');
  });

  for (const name of browserNames) {
    test(`the built app runs a sandbox and a terminal in ${name}`, async () => {
      const browser = await launch(name);
      try {
        const { page, errors } = await openPage(browser, site.url);
        await page.waitForFunction(() => document.getElementById('out').textContent !== 'starting', { timeout: 60_000 });
        assert.equal(await page.$eval('#out', (el) => el.textContent), 'PACKED 42 0 kept');
        await page.waitForFunction(() => document.querySelector('#term .xterm-rows')?.textContent.includes('agent@sandtab'), { timeout: 60_000 });
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
      }
    });

    test(`the README's plain HTML page works with no build step in ${name}`, async () => {
      const browser = await launch(name);
      try {
        const { page, errors } = await openPage(browser, `${plain.url}plain.html`);
        await page.waitForFunction(() => document.getElementById('out').textContent.includes('total'), { timeout: 60_000 });
        await page.waitForFunction(() => document.querySelector('#term .xterm-rows')?.textContent.includes('agent@sandtab'), { timeout: 60_000 });
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
      }
    });
  }
});
