// Builds the static demo into www/dist: the page bundle, the runtime worker bundle and
// the wasm module side by side (the package finds its worker at ./worker.js relative to
// the page bundle, and the worker finds the wasm beside itself). Copy dist/ to any static
// host: no special headers are needed.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

const here = (path) => new URL(path, import.meta.url).pathname;
const dist = here('./dist/');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const common = { bundle: true, format: 'esm', target: 'es2022', sourcemap: true, logLevel: 'warning' };
await build({ ...common, entryPoints: [here('./src/main.ts')], outfile: `${dist}main.js` });
await build({ ...common, entryPoints: [here('../web/dist/worker.js')], outfile: `${dist}worker.js` });
copyFileSync(here('../web/pkg/sandtab_web_bg.wasm'), `${dist}sandtab_web_bg.wasm`);
for (const file of ['index.html', 'style.css']) copyFileSync(here(`./${file}`), `${dist}${file}`);
console.log(`www: built ${dist}`);
