// The weight part of `./dev bench` (`./dev bench weight`): what a new visitor's browser
// transfers, counted by the demo's server (scripts/serve.mjs logs every body as sent,
// compressed where it compresses), in each browser of BENCH_BROWSERS, each with a fresh
// profile:
//   before the first prompt   requests and bytes until the terminal shows its prompt
//   first visit               the same once nothing more is asked for (the service
//                             worker's precache, the programs fetched in the background)
//   reload                    the same after a reload: what a returning visitor pays
// and the files fetched with a full answer more than once in the first visit. Then the
// runtime's size: raw, gzip and brotli (quality 11, what a static host would serve).
// Goals (issue 23): the first prompt within 2.5 MB, nothing fetched twice, the runtime
// within 2 MB of brotli.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { launch } from '../tests/e2e/browsers.mjs';
import { serve } from './serve.mjs';
import { promptCount, waitForScreen } from '../tests/e2e/screen.mjs';

const MB = 1e6;
const FIRST_PROMPT_GOAL = 2.5 * MB;
/** The first `echo` after the prompt shows, while the programs still download (issue 23). */
const FIRST_ECHO_GOAL_MS = 100;
const RUNTIME_BROTLI_GOAL = 2 * MB;
/** Quiet this long (no new request) means the page asks for nothing more. */
const SETTLED_MS = 3000;

const mb = (bytes) => `${(bytes / MB).toFixed(2)} MB`;
const sum = (requests) => requests.reduce((total, r) => total + r.bytes, 0);

/** Waits until the server has had no new request for SETTLED_MS (at most `limit` ms). */
async function settle(server, limit = 120_000) {
  const deadline = Date.now() + limit;
  let seen = server.requests.length;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    if (server.requests.length !== seen) {
      seen = server.requests.length;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= SETTLED_MS) {
      return;
    }
  }
}

/** Holds the guest programs' downloads while `held` is set: on loopback they would
 * finish before the prompt shows whether or not the prompt needs them; held, the prompt
 * shows only if it does not, and its bytes are what it needs. */
function programGate() {
  let release = null;
  let held = null;
  return {
    hold: () => {
      held = new Promise((resolve) => (release = resolve));
    },
    release: () => {
      release?.();
      held = null;
    },
    wait: (path) => (path.startsWith('/guests/') ? held : undefined),
  };
}

/** The requests since `from`, until the page shows its first prompt and until it settles. */
async function visit(page, server, gate, load) {
  const from = server.requests.length;
  gate.hold();
  try {
    await load();
    await waitForScreen(page, (rows) => promptCount(rows) >= 1, 'the first prompt (the programs held)', 120_000);
  } finally {
    gate.release();
  }
  const beforePrompt = server.requests.slice(from);
  // At once, while the programs still download: what a person typing first would wait.
  const firstEcho = await page.evaluate(async () => {
    const start = performance.now();
    await window.sandtab.sandbox.exec('echo first');
    return performance.now() - start;
  });
  await settle(server);
  return { beforePrompt, settled: server.requests.slice(from), firstEcho };
}

function line(label, requests) {
  const unchanged = requests.filter((r) => r.status === 304).length;
  return `${label.padEnd(26)}${String(requests.length).padStart(9)}${String(unchanged).padStart(7)}${mb(sum(requests)).padStart(12)}`;
}

export async function weightBench(root, browsers) {
  const missed = [];
  const gate = programGate();
  const server = await serve(root, 0, { hold: gate.wait });
  try {
    for (const name of browsers) await browserWeight(name, server, gate, missed);
  } finally {
    await server.close();
  }
  runtimeSize(root, missed);
  console.log(`  goals: first prompt <= ${mb(FIRST_PROMPT_GOAL)}, first echo <= ${FIRST_ECHO_GOAL_MS} ms, nothing fetched twice, runtime <= ${mb(RUNTIME_BROTLI_GOAL)} brotli`);
  if (missed.length) console.log(`goals missed: ${missed.join('; ')}`);
}

async function browserWeight(name, server, gate, missed) {
  const browser = await launch(name);
  try {
    const page = await browser.newPage();
    // The address a visitor types (a query would make the service worker's copy of
    // `./` a second fetch); the profile is new, so the default sandbox is too.
    const first = await visit(page, server, gate, () => page.goto(server.url));
    const reload = await visit(page, server, gate, () => page.reload());
    console.log(`\npage weight, headless ${name}, a fresh profile: bodies as sent (compressed where the server compresses)`);
    console.log(`${''.padEnd(26)}${'requests'.padStart(9)}${'304s'.padStart(7)}${'bytes'.padStart(12)}`);
    console.log(line('before the first prompt', first.beforePrompt));
    console.log(line('first visit, settled', first.settled));
    console.log(line('reload, settled', reload.settled));
    console.log(`  first echo after the prompt: ${first.firstEcho.toFixed(1)} ms (after a reload: ${reload.firstEcho.toFixed(1)} ms)`);
    if (first.firstEcho > FIRST_ECHO_GOAL_MS) missed.push(`${name}: the first echo took ${first.firstEcho.toFixed(0)} ms > ${FIRST_ECHO_GOAL_MS} ms`);
    const largest = [...first.beforePrompt].sort((a, b) => b.bytes - a.bytes).slice(0, 4);
    console.log(`  largest before the prompt: ${largest.map((r) => `${r.path} ${mb(r.bytes)}${r.encoding ? ` (${r.encoding})` : ''}`).join(', ')}`);
    const full = new Map();
    for (const r of first.settled.filter((r) => r.status === 200)) full.set(r.path, (full.get(r.path) ?? 0) + 1);
    const twice = [...full].filter(([, count]) => count > 1);
    console.log(`  fetched whole more than once in the first visit: ${twice.length ? twice.map(([path, n]) => `${path} (${n}x)`).join(', ') : 'none'}`);
    const weight = sum(first.beforePrompt);
    if (weight > FIRST_PROMPT_GOAL) missed.push(`${name}: ${mb(weight)} before the first prompt > ${mb(FIRST_PROMPT_GOAL)}`);
    if (twice.length) missed.push(`${name}: ${twice.length} file(s) fetched twice`);
  } finally {
    await browser.close();
  }
}

/** The runtime's size: raw, gzip -9 and brotli 11 (what a static host would send). */
function runtimeSize(root, missed) {
  const wasmUrl = new URL('sandtab_web_bg.wasm', `file://${root.endsWith('/') ? root : `${root}/`}`);
  const runtime = readFileSync(wasmUrl);
  // The build's own brotli 11 copy where it has one (compressing takes most of a minute).
  const ahead = `${wasmUrl.pathname}.br`;
  const brotli =
    existsSync(ahead) && statSync(ahead).mtimeMs >= statSync(wasmUrl).mtimeMs
      ? statSync(ahead).size
      : brotliCompressSync(runtime, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: runtime.length },
        }).length;
  const gzip = gzipSync(runtime, { level: 9 }).length;
  console.log(`\nruntime wasm: ${mb(runtime.length)}, ${mb(gzip)} gzip -9, ${mb(brotli)} brotli 11`);
  if (brotli > RUNTIME_BROTLI_GOAL) missed.push(`runtime ${mb(brotli)} brotli > ${mb(RUNTIME_BROTLI_GOAL)}`);
}
