// The npm package as a stranger's app meets it: `npm pack` of web/, a fresh Vite app in a
// temporary directory that installs the tarball (not the workspace), `vite build` with
// no configuration, and the built app driven in a real browser: the README's headless
// example and its terminal element on one page. Its TypeScript use of
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

/** A code block of the package README, exactly as printed there: the first block of
 * `lang` after the heading `heading`. */
function readmeExample(heading, lang) {
  const readme = readFileSync(join(ROOT, 'web/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  const match = section.match(new RegExp('```' + lang + '\\n([\\s\\S]*?)```'));
  assert.ok(match, `the README has the ${heading} example`);
  return match[1];
}

// A React app around the README's component: it renders it, then runs a command in the
// terminal it made and shows what `onCommand` got.
const REACT_MAIN = `import { createRoot } from 'react-dom/client';
import { useState } from 'react';
import { SandboxTerminal } from './SandboxTerminal.jsx';

function App() {
  const [commands, setCommands] = useState([]);
  return (
    <>
      <SandboxTerminal name="react-demo" theme="light" onCommand={(detail) => setCommands((all) => [...all, detail])} />
      <pre id="commands">{JSON.stringify(commands.map(({ command, exitCode }) => ({ command, exitCode })))}</pre>
    </>
  );
}
createRoot(document.getElementById('root')).render(<App />);
`;

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const APP_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"></head>
<body><pre id="out">starting</pre><sandtab-terminal id="term" style="height:300px"></sandtab-terminal>
<script type="module" src="/main.ts"></script></body></html>
`;

// The README's headless example as printed, on the page of its terminal element: the two
// share the sandbox "default". Then what it got is shown, typed.
const APP_MAIN = `import 'sandtab/terminal';
${readmeExample('## Headless API', 'js')}
import type { ExecResult } from 'sandtab';
const shown: ExecResult = result;
document.getElementById('out')!.textContent = \`\${JSON.stringify(shown.stdout)} \${shown.exitCode}\`;
`;

// <sandtab-terminal> as React 19 TSX and a Vue component type see it, through the
// package's `sandtab/react` and `sandtab/vue` typings: good props pass, a bad one fails.
const TYPED_TSX = `import type {} from 'sandtab/react';
import type { Sandbox } from 'sandtab';
declare const box: Sandbox;
export const ok = <sandtab-terminal name="work" theme="light" storage="opfs" sandbox={box} style={{ height: '20em' }} />;
// @ts-expect-error: there is no blue theme
export const bad = <sandtab-terminal theme="blue" />;
`;
const TYPED_VUE = `import type {} from 'sandtab/vue';
import type { GlobalComponents } from 'vue';
type Props = InstanceType<GlobalComponents['sandtab-terminal']>['$props'];
export const ok: Props = { name: 'work', theme: 'light', storage: 'memory' };
// @ts-expect-error: storage is one of three kinds
export const bad: Props = { storage: 'floppy' };
`;

describe('npm package in a fresh Vite app', () => {
  let dir;
  let dist;
  let site;
  let strict;
  let plain;
  let reactSite;

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
    writeFileSync(join(app, 'typed.tsx'), TYPED_TSX);
    writeFileSync(join(app, 'typed-vue.ts'), TYPED_VUE);
    writeFileSync(
      join(app, 'tsconfig.types.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], jsx: 'react-jsx', strict: true, noEmit: true, skipLibCheck: false },
        include: ['typed.tsx', 'typed-vue.ts'],
      }),
    );
    // The same Vite and TypeScript as the workspace pins (from npm's cache when it has
    // them), and React's and Vue's types for the element's typings.
    const pins = rootPackage.devDependencies;
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', join(packs, tarball), `vite@${pins.vite}`, `typescript@${pins.typescript}`, `@types/react@${pins['@types/react']}`, `vue@${pins.vue}`],
      app,
    );
    run(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], app);
    dist = join(app, 'dist');
    // Beside the built app: the README's plain page, served with node_modules.
    writeFileSync(join(app, 'plain.html'), readmeExample('### A plain HTML page', 'html').replace('<title>', '<link rel="icon" href="data:,"><title>'));
    site = await serve(dist);
    // The same app under the README's Content-Security-Policy, as printed.
    const policy = readmeExample('## Content Security Policy', 'text').trim();
    strict = await serve(dist, 0, { headers: { 'content-security-policy': policy } });
    plain = await serve(app);

    // The React app: the README's component, built with Vite's React plugin.
    const react = join(dir, 'react');
    mkdirSync(react);
    writeFileSync(join(react, 'package.json'), JSON.stringify({ name: 'throwaway-react-app', private: true, type: 'module' }));
    writeFileSync(join(react, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><div id="root"></div><script type="module" src="/main.jsx"></script>\n');
    writeFileSync(join(react, 'vite.config.js'), "import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\nexport default defineConfig({ plugins: [react()] });\n");
    writeFileSync(join(react, 'SandboxTerminal.jsx'), readmeExample('### A React component', 'jsx'));
    writeFileSync(join(react, 'main.jsx'), REACT_MAIN);
    const dev = rootPackage.devDependencies;
    run(
      'npm',
      [
        'install', '--no-audit', '--no-fund', '--prefer-offline', join(packs, tarball), `vite@${dev.vite}`,
        `react@${dev.react}`, `react-dom@${dev['react-dom']}`, `@vitejs/plugin-react@${dev['@vitejs/plugin-react']}`,
      ],
      react,
    );
    run(join(react, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], react);
    reactSite = await serve(join(react, 'dist'));
  });

  after(async () => {
    await site?.close();
    await strict?.close();
    await plain?.close();
    await reactSite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the app type-checks against the published types with tsc --strict', () => {
    run(join(dir, 'app/node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], join(dir, 'app'));
  });

  test('the element is typed for React TSX and Vue (sandtab/react, sandtab/vue)', () => {
    run(join(dir, 'app/node_modules/.bin/tsc'), ['-p', 'tsconfig.types.json'], join(dir, 'app'));
  });

  test('the package installs its command: npx sandtab programs fetch', () => {
    const help = run(join(dir, 'app/node_modules/.bin/sandtab'), ['--help'], join(dir, 'app'));
    assert.match(help, /usage: sandtab programs fetch DIR/);
  });

  test('the tarball holds the built package and nothing of the sources', () => {
    const files = run('tar', ['tzf', join(dir, 'packs', readdirSync(join(dir, 'packs'))[0])], dir).split('\n');
    for (const needed of ['package/bin/sandtab.mjs', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/terminal.js', 'package/dist/worker.js', 'package/pkg/sandtab_web_bg.wasm', 'package/README.md']) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
    assert.ok(!files.some((f) => f.startsWith('package/src/')), 'no TypeScript sources');
  });

  for (const name of browserNames) {
    for (const [how, server] of [['', () => site], [' under the README\'s CSP', () => strict]]) test(`the built app runs a sandbox and a terminal${how} in ${name}`, async () => {
      const browser = await launch(name);
      try {
        const { page, errors } = await openPage(browser, server().url);
        await page.waitForFunction(() => document.getElementById('out').textContent !== 'starting', { timeout: 60_000 });
        assert.equal(await page.$eval('#out', (el) => el.textContent), '"a\\nb\\n" 0');
        await page.waitForFunction(() => document.querySelector('#term .xterm-rows')?.textContent.includes('agent@sandtab'), { timeout: 60_000 });
        // The terminal shares the example's sandbox: it sees the file the example wrote,
        // and goes on after the example's close().
        const status = await page.$eval('#term', (el) => el.run('test "$(cat data.txt)" = "$(printf \'b\\na\\nc\')"'));
        assert.equal(status, 0);
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
      }
    });

    test(`the README's React component works in a React app in ${name}`, async () => {
      const browser = await launch(name);
      try {
        const { page, errors } = await openPage(browser, reactSite.url);
        await page.waitForFunction(() => document.querySelector('sandtab-terminal .xterm-rows')?.textContent.includes('agent@sandtab'), { timeout: 60_000 });
        assert.equal(await page.$eval('sandtab-terminal', (el) => el.getAttribute('theme')), 'light');
        await page.$eval('sandtab-terminal', (el) => el.run('echo from react'));
        await page.waitForFunction(() => document.getElementById('commands').textContent.includes('echo from react'), { timeout: 30_000 });
        assert.equal(await page.$eval('#commands', (el) => el.textContent), '[{"command":"echo from react","exitCode":0}]');
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
