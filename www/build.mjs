// Builds the static demo into www/dist: the page bundle, the runtime worker bundle and
// the wasm module side by side (the package finds its worker at ./worker.js relative to
// the page bundle, and the worker finds the wasm beside itself). Copy dist/ to any static
// host: no special headers are needed.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const here = (path) => new URL(path, import.meta.url).pathname;
const dist = here('./dist/');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// The guest programs the demo installs (fetched by `./dev setup`), served from
// dist/guests/ and pinned by their SHA-256.
const guests = { python: 'python.wasm', qjs: 'quickjs.wasm' };
const hashes = {};
mkdirSync(`${dist}guests`, { recursive: true });
for (const [name, file] of Object.entries(guests)) {
  const source = here(`../target/guests/${file}`);
  if (!existsSync(source)) throw new Error(`www: ${source} is missing; run ./dev setup`);
  copyFileSync(source, `${dist}guests/${file}`);
  hashes[name] = createHash('sha256').update(readFileSync(source)).digest('hex');
}

const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  // Maps carry the sources themselves (esbuild's default), so they point at no file that
  // is not shipped.
  sourcemap: true,
  logLevel: 'warning',
  // wasm-bindgen's import object names a snippet module once per `import * as importN`
  // of it; every such namespace is the same object, so the repeated keys are harmless.
  logOverride: { 'duplicate-object-key': 'silent' },
};
// The page's code: what loads only when used (the editor's CodeMirror) is a chunk of its
// own, fetched by a dynamic import.
const page = await build({
  ...common,
  entryPoints: [here('./src/main.ts')],
  outdir: dist,
  splitting: true,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  define: { __GUEST_HASHES__: JSON.stringify(hashes) },
});
const chunks = Object.keys(page.metafile.outputs)
  .filter((file) => file.endsWith('.js') && file.includes('/chunks/'))
  .map((file) => file.slice(file.indexOf('chunks/')));
await build({ ...common, entryPoints: [here('../web/dist/worker.js')], outfile: `${dist}worker.js` });
copyFileSync(here('../web/pkg/sandtab_web_bg.wasm'), `${dist}sandtab_web_bg.wasm`);
for (const file of ['index.html', 'style.css']) copyFileSync(here(`./${file}`), `${dist}${file}`);

// The service worker keeps these for offline use (the guest programs are kept by the
// package itself, in Cache Storage, when first installed). Its cache is named after a
// hash of them, so a new build replaces the old copies.
const kept = ['./', 'index.html', 'main.js', 'style.css', 'worker.js', 'sandtab_web_bg.wasm', ...chunks];
const buildId = createHash('sha256');
for (const file of kept.slice(1)) buildId.update(readFileSync(`${dist}${file}`));
const worker = readFileSync(here('./sw.js'), 'utf8')
  .replace("'__BUILD__'", JSON.stringify(buildId.digest('hex').slice(0, 16)))
  .replace('__FILES__', JSON.stringify(kept));
writeFileSync(`${dist}sw.js`, worker);
console.log(`www: built ${dist}`);
