// Builds the static demo into www/dist: the page bundle, the runtime worker bundle and
// the wasm module side by side (the package finds its worker at ./worker.js relative to
// the page bundle, and the worker finds the wasm beside itself). Copy dist/ to any static
// host: no special headers are needed.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';

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

// Brotli at quality 11 ahead of time, beside each file (`main.js.br`): hosts that serve
// precompressed files (nginx `brotli_static`, Caddy `precompressed`, scripts/serve.mjs)
// send these, about 1 MB less than brotli 5 on the fly for the runtime alone. Quality 11
// takes most of a minute for the runtime, so each result is kept in target/ by content
// (only this build's: the others are removed). The unoptimised runtime of a --quick build
// is left to the server to compress.
const cache = here('../target/precompressed/');
mkdirSync(cache, { recursive: true });
const squeeze = promisify(brotliCompress);
const quick = readFileSync(here('../web/pkg/.profile'), 'utf8').trim() === 'dev';
const started = Date.now();
const used = new Set();
const toSqueeze = [...kept.slice(1), 'sw.js', ...Object.values(guests).map((file) => `guests/${file}`)];
await Promise.all(
  toSqueeze
    .filter((file) => !(quick && file.endsWith('.wasm')))
    .map(async (file) => {
      const bytes = readFileSync(`${dist}${file}`);
      const name = `${createHash('sha256').update(bytes).digest('hex')}.br`;
      const cached = `${cache}${name}`;
      used.add(name);
      if (!existsSync(cached)) {
        const params = {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_LGWIN]: 24,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        };
        writeFileSync(`${cached}.part`, await squeeze(bytes, { params }));
        renameSync(`${cached}.part`, cached);
      }
      copyFileSync(cached, `${dist}${file}.br`);
    }),
);
for (const name of readdirSync(cache)) if (!used.has(name)) rmSync(`${cache}${name}`, { force: true });
console.log(`www: brotli 11 copies beside the files (${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log(`www: built ${dist}`);
