// The shell part of `./dev bench` (`./dev bench shell`): sandtab's shell against
// just-bash (npm, its browser bundle; the most used JS peer) in the same headless
// Chromium page, on five workloads, median of BENCH_ROUNDS rounds after a warm-up:
//   echo      `echo hello` from a fresh session (sandtab: exec with `fresh: true`;
//             just-bash: `new Bash()` and its first exec)
//   loop      a 10,000-iteration loop with arithmetic and echo, piped to `wc -l`
//   files     writing 1,000 files, then `cat` of all of them through `grep -c`
//   sort      `seq 1 100000 | sort -n | tail -1`
//   jq        a jq filter over a 1 MiB JSON file (the file is written first, untimed)
// Both run in memory (sandtab: `storage: 'memory'`, so no save is timed). sandtab's time
// includes the message round trip to its worker. Every output is checked.
// Goal: sandtab at least 20x faster on the loop and pipeline workloads, never slower.
//
// Then, with rust-bash (npm, its WASM build, run on the page's thread) as a third shell:
//   per-command round trip  `true`, `cd d` and `echo x > f`, each as BENCH_EXECS separate
//             execs (default 300, after a second untimed) in one session of a memory sandbox
//             (and of an IndexedDB one), timed in batches of ten: the median batch's
//             time per exec, the 10th-90th percentiles and the mean; `cd d` alternates
//             with `cd ..`
//   agent mix the commands of scripts/agent-mix.mjs (cd, ls, cat, grep -rn, sed -i,
//             heredoc writes, jq on small JSON, find, wc, head, ...) on a small project
//             tree written first, each a separate exec, in sandtab (memory and IndexedDB)
//             and the peers: the total, and every command's stdout and exit status
//             compared with GNU bash's (run natively); sandtab differing fails the bench,
//             a peer's differences are listed as its bugs
// Goals (issue 20): <= 0.15 ms per trivial exec; the agent mix >= 5x faster than just-bash.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { COMMANDS, PROJECT, ROOT as PROJECT_ROOT, gnuCheck, normalize } from './agent-mix.mjs';

/** Execs per round-trip case (BENCH_EXECS). */
const EXECS = Number(process.env.BENCH_EXECS ?? 300);

const WORKLOADS = [
  { key: 'echo', label: 'echo hello, fresh session', script: 'echo hello', expected: 'hello\n', fresh: true },
  {
    key: 'loop',
    label: '10,000-iteration loop | wc -l',
    script: 'for ((i = 0; i < 10000; i++)); do echo $((i * 3 + 1)); done | wc -l',
    expected: '10000\n',
    loop: true,
  },
  {
    key: 'files',
    label: 'write 1,000 files, cat | grep -c',
    script: 'rm -rf bench && mkdir bench && for i in $(seq 1 1000); do echo "line $i" > bench/f$i.txt; done; cat bench/*.txt | grep -c line',
    expected: '1000\n',
    loop: true,
  },
  { key: 'sort', label: 'seq 1 100000 | sort -n | tail -1', script: 'seq 1 100000 | sort -n | tail -1', expected: '100000\n', loop: true },
  {
    key: 'jq',
    label: 'jq filter over 1 MiB of JSON',
    script: "jq '[.[] | select(.n % 3 == 0) | .size] | add' data.json",
    loop: true,
  },
];

/** The JSON file of the jq case: objects until it passes 1 MiB; and the filter's answer. */
function jsonData() {
  const items = [];
  let length = 2;
  let sum = 0;
  for (let n = 0; length < 1 << 20; n++) {
    const item = { n, name: `item-${n}`, size: (n * 7919) % 1000, tags: ['alpha', 'beta', n % 2 ? 'odd' : 'even'] };
    if (n % 3 === 0) sum += item.size;
    items.push(item);
    length += JSON.stringify(item).length + 1;
  }
  return { text: JSON.stringify(items), expected: `${sum}\n` };
}

/** Puts just-bash's browser build where the page can import it: its bundle leaves its
 * own dependencies as bare imports, so esbuild bundles them in, as an app would. */
async function stageJustBash(root) {
  // The package exports only its entry points: find its folder from one of them.
  const browserEntry = fileURLToPath(import.meta.resolve('just-bash/browser'));
  const dir = dirname(dirname(dirname(browserEntry)));
  mkdirSync(join(root, 'bench'), { recursive: true });
  await build({
    entryPoints: [browserEntry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    outfile: join(root, 'bench/just-bash.js'),
    logLevel: 'warning',
    // Its browser build still names node:zlib (for gzip, which no workload here uses).
    plugins: [
      {
        name: 'no-node-zlib',
        setup(b) {
          b.onResolve({ filter: /^node:zlib$/ }, () => ({ path: 'node:zlib', namespace: 'stub' }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents:
              'const missing = () => { throw new Error("node:zlib is not in the browser"); };\n' +
              'export const gunzipSync = missing, gzipSync = missing, constants = {};',
          }));
        },
      },
    ],
  });
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

/** Puts rust-bash's browser build (its ES modules and WASM, loaded relative to them)
 * where the page can import it; its version. */
function stageRustBash(root) {
  const dir = dirname(dirname(fileURLToPath(import.meta.resolve('rust-bash/browser'))));
  for (const part of ['dist', 'wasm']) cpSync(join(dir, part), join(root, 'bench/rust-bash', part), { recursive: true });
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

/** Waits until the demo page's own sandbox has installed its programs (CPython and
 * QuickJS are fetched, hashed and compiled in its worker when the page opens; an exec
 * there runs after that), so that nothing else competes for the CPU while timing. */
async function settle(page) {
  await page.evaluate(() => window.sandtab.sandbox.exec('true'));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A worker that answers each exec message at once with an empty result: the floor of
 * any design that sends a message to a worker per command. */
function stageEchoWorker(root) {
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(
    join(root, 'bench/echo-worker.js'),
    `onmessage = ({ data }) => postMessage({ type: 'reply', id: data.id, reply: { reply: 'exec', stdout: '', stderr: '', exitCode: 0, saveError: null } });\n`,
  );
}

export async function shellBench(browser, server, root, rounds, browserName = 'chromium') {
  stageEchoWorker(root);
  const version = await stageJustBash(root);
  const rustBashVersion = stageRustBash(root);
  const json = jsonData();
  WORKLOADS.find((w) => w.key === 'jq').expected = json.expected;
  const page = await browser.newPage();
  page.on('pageerror', (err) => console.log(`  page error: ${err.message}`));
  await page.goto(`${server.url}?sandbox=bench-shell-page`);
  await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });
  await settle(page);
  await page.evaluate(async (jsonText) => {
    const { Bash } = await import('./bench/just-bash.js');
    const sandbox = await window.sandtab.Sandbox.create({ name: 'bench-shell', storage: 'memory' });
    await sandbox.writeFile('/home/agent/data.json', jsonText);
    const peer = new Bash({ files: { '/home/user/data.json': jsonText }, cwd: '/home/user' });
    window.shellBench = { Bash, sandbox, peer };
  }, json.text);

  const once = (workload) =>
    page.evaluate(async ({ script, fresh }) => {
      const { Bash, sandbox, peer } = window.shellBench;
      let t = performance.now();
      const ours = await sandbox.exec(script, fresh ? { fresh: true } : {});
      const oursMs = performance.now() - t;
      t = performance.now();
      const bash = fresh ? new Bash() : peer;
      const theirs = await bash.exec(script);
      const theirsMs = performance.now() - t;
      return {
        oursMs,
        theirsMs,
        ours: { stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode },
        theirs: { stdout: theirs.stdout, stderr: theirs.stderr, exitCode: theirs.exitCode },
      };
    }, workload);

  const times = new Map(WORKLOADS.map((w) => [w.key, { ours: [], theirs: [] }]));
  for (let round = 0; round <= rounds; round++) {
    process.stdout.write(round === 0 ? 'shell: warm-up round...\n' : `shell: round ${round} of ${rounds}...\n`);
    for (const workload of WORKLOADS) {
      const r = await once(workload);
      for (const [who, out] of [['sandtab', r.ours], [`just-bash`, r.theirs]]) {
        if (out.stdout !== workload.expected || out.exitCode !== 0) {
          throw new Error(
            `${workload.label} in ${who}: exit ${out.exitCode}, stdout ${JSON.stringify(out.stdout.slice(0, 200))}, ` +
              `stderr ${JSON.stringify(out.stderr.slice(0, 300))}; expected ${JSON.stringify(workload.expected)}`,
          );
        }
      }
      if (round > 0) {
        times.get(workload.key).ours.push(r.oursMs);
        times.get(workload.key).theirs.push(r.theirsMs);
      }
    }
  }
  await page.close();

  await roundTripBench(browser, server, browserName, { justBash: version, rustBash: rustBashVersion });
  await agentMixBench(browser, server, rounds, browserName, { justBash: version, rustBash: rustBashVersion });

  console.log(`\nsandtab shell vs just-bash ${version}, same headless ${browserName} page, median of ${rounds} rounds`);
  const row = (...cells) => console.log(cells.map((c, i) => (i === 0 ? String(c).padEnd(36) : String(c).padStart(14))).join(''));
  row('workload', 'sandtab ms', 'just-bash ms', 'speed-up', 'goal');
  const missed = [];
  for (const workload of WORKLOADS) {
    const t = times.get(workload.key);
    const ours = median(t.ours);
    const theirs = median(t.theirs);
    const speedup = theirs / ours;
    const goal = workload.loop ? 20 : 1;
    const met = speedup >= goal;
    if (!met) missed.push(`${workload.label}: ${speedup.toFixed(1)}x < ${goal}x`);
    row(workload.label, ours.toFixed(2), theirs.toFixed(2), `${speedup.toFixed(1)}x`, `>= ${goal}x ${met ? 'met' : 'MISSED'}`);
  }
  console.log('  speed-up: just-bash time / sandtab time (higher is better); sandtab timed around sandbox.exec in the page.');
  if (missed.length) console.log(`goals missed: ${missed.join('; ')}`);
}

// ---- Per-command round trip and the agent mix, with rust-bash as a third shell ----

/** Opens a page with sandtab, just-bash and rust-bash loaded, and `window.mix.shell(kind,
 * files, cwd)`: a shell of `kind` on `files` (absolute path to text), whose `exec(script)`
 * resolves to `{ stdout, stderr, exitCode }`. sandtab's sandboxes are made once per kind
 * and their files written again (untimed) for each new shell. */
async function mixPage(browser, server) {
  const page = await browser.newPage();
  page.on('pageerror', (err) => console.log(`  page error: ${err.message}`));
  await page.goto(`${server.url}?sandbox=bench-mix-page`);
  await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });
  await settle(page);
  await page.evaluate(async () => {
    const { Bash } = await import('./bench/just-bash.js');
    const rust = await import('./bench/rust-bash/dist/browser.js');
    await rust.initWasm();
    const boxes = {};
    const sandtab = async (storage, files, cwd) => {
      boxes[storage] ??= await window.sandtab.Sandbox.create({ name: `bench-mix-${storage}`, storage });
      const box = boxes[storage];
      const dirs = [...new Set(Object.keys(files).map((p) => p.slice(0, p.lastIndexOf('/'))))];
      const roots = [...new Set(Object.keys(files).map((p) => `/${p.split('/')[1]}`))];
      const reset = await box.exec(`rm -rf ${roots.join(' ')} && mkdir -p ${dirs.join(' ')} && cd ${cwd}`);
      if (reset.exitCode !== 0) throw new Error(`sandtab set-up: ${reset.stderr}`);
      for (const [path, text] of Object.entries(files)) await box.writeFile(path, text);
      return { exec: (script) => box.exec(script) };
    };
    window.mix = {
      async shell(kind, files, cwd) {
        if (kind === 'sandtab-memory') return sandtab('memory', files, cwd);
        if (kind === 'sandtab-indexeddb') return sandtab('indexeddb', files, cwd);
        if (kind === 'just-bash') return new Bash({ files, cwd });
        if (kind === 'rust-bash') return rust.Bash.create(rust.createWasmBackend, { files, cwd });
        if (kind === 'worker-floor') {
          const worker = new Worker('./bench/echo-worker.js');
          const waiting = new Map();
          let next = 1;
          worker.onmessage = ({ data }) => {
            waiting.get(data.id)(data.reply);
            waiting.delete(data.id);
          };
          return {
            exec: (script) =>
              new Promise((resolve) => {
                const id = next++;
                waiting.set(id, resolve);
                worker.postMessage({ type: 'run', v: 1, id, op: { op: 'exec', script } });
              }),
          };
        }
        throw new Error(`unknown shell ${kind}`);
      },
    };
  });
  return page;
}

const SHELLS = ['sandtab-memory', 'sandtab-indexeddb', 'just-bash', 'rust-bash'];
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

/** `true`, `cd d`, `echo x > f`: EXECS separate execs each in one session of every shell. */
async function roundTripBench(browser, server, browserName, versions) {
  const page = await mixPage(browser, server);
  const cases = [
    { label: 'true', script: 'true' },
    { label: 'cd d, cd ..', script: 'cd d', undo: 'cd ..' },
    { label: 'echo x > f', script: 'echo x > f' },
  ];
  const results = {};
  const shells = [...SHELLS, 'worker-floor'];
  for (const kind of shells) {
    process.stdout.write(`shell: round trip in ${kind}...\n`);
    results[kind] = await page.evaluate(
      async (kind, cases, execs) => {
        const home = kind.startsWith('sandtab') ? '/home/agent' : '/home/user';
        const shell = await window.mix.shell(kind, { [`${home}/d/.keep`]: '' }, home);
        const out = {};
        // Timed in batches of ten execs, as the page's timer may be coarse (Chromium's is
        // 0.1 ms without cross-origin isolation): each sample is a batch's mean.
        for (const { label, script, undo } of cases) {
          const times = [];
          const run = async (n) => {
            for (let i = 0; i < n; i++) {
              const r = await shell.exec(undo && i % 2 ? undo : script);
              if (r.exitCode !== 0) throw new Error(`${kind}: ${script}: exit ${r.exitCode}: ${r.stderr}`);
            }
          };
          // At least 30 execs and a second first: a new worker's wasm is still being
          // tiered up (optimised in the background) in its first seconds.
          const warm = performance.now();
          do await run(30);
          while (performance.now() - warm < 1000);
          for (let batch = 0; batch < execs / 10; batch++) {
            const t = performance.now();
            await run(10);
            times.push((performance.now() - t) / 10);
          }
          out[label] = { times, mean: times.reduce((a, b) => a + b, 0) / times.length };
        }
        return out;
      },
      kind,
      cases,
      EXECS,
    );
  }
  await page.close();
  const names = {
    'sandtab-memory': 'sandtab (memory)',
    'sandtab-indexeddb': 'sandtab (IndexedDB)',
    'just-bash': `just-bash ${versions.justBash}`,
    'rust-bash': `rust-bash ${versions.rustBash}`,
    'worker-floor': 'a worker that echoes',
  };
  console.log(`\nper-command round trip, ${EXECS} execs each in one session, headless ${browserName}: ms per exec, median of 10-exec batches (p10-p90; mean)`);
  const row = (...cells) => console.log(cells.map((c, i) => (i === 0 ? String(c).padEnd(22) : String(c).padStart(26))).join(''));
  row('shell', ...cases.map((c) => c.label));
  for (const kind of shells) {
    row(
      names[kind],
      ...cases.map(({ label }) => {
        const { times, mean } = results[kind][label];
        return `${median(times).toFixed(3)} (${quantile(times, 0.1).toFixed(2)}-${quantile(times, 0.9).toFixed(2)}; ${mean.toFixed(3)})`;
      }),
    );
  }
  const worst = Math.max(...cases.map(({ label }) => median(results['sandtab-memory'][label].times)));
  console.log(`  goal: <= 0.15 ms median per exec in a memory sandbox: ${worst <= 0.15 ? 'met' : `MISSED (${worst.toFixed(3)} ms)`}`);
  const floor = median(results['worker-floor'].true.times);
  console.log(`  floor: a message to a worker and back costs ${floor.toFixed(3)} ms here; sandtab's own work per trivial exec is the rest`);
}

/** The agent mix: every command of scripts/agent-mix.mjs in each shell, each a separate
 * exec, BENCH_ROUNDS rounds on a fresh tree; outputs compared with GNU bash's. */
async function agentMixBench(browser, server, rounds, browserName, versions) {
  const gnu = gnuCheck();
  const files = Object.fromEntries(Object.entries(PROJECT).map(([path, text]) => [`${PROJECT_ROOT}/${path}`, text]));
  const scripts = COMMANDS.map((c) => c.cmd);
  const page = await mixPage(browser, server);
  const totals = Object.fromEntries(SHELLS.map((kind) => [kind, []]));
  const differences = Object.fromEntries(SHELLS.map((kind) => [kind, new Map()]));
  for (let round = 0; round <= rounds; round++) {
    process.stdout.write(round === 0 ? 'shell: agent mix, warm-up round...\n' : `shell: agent mix, round ${round} of ${rounds}...\n`);
    // Each round another shell goes first.
    const order = SHELLS.map((_, i) => SHELLS[(i + round) % SHELLS.length]);
    for (const kind of order) {
      const run = await page.evaluate(
        async (kind, files, cwd, scripts) => {
          const shell = await window.mix.shell(kind, files, cwd);
          const outputs = [];
          const start = performance.now();
          for (const script of scripts) {
            const r = await shell.exec(script);
            outputs.push({ stdout: r.stdout, exitCode: r.exitCode });
          }
          return { total: performance.now() - start, outputs };
        },
        kind,
        files,
        PROJECT_ROOT,
        scripts,
      );
      if (round > 0) totals[kind].push(run.total);
      run.outputs.forEach((out, i) => {
        const want = gnu[i];
        const command = COMMANDS[i];
        if (normalize(command, out.stdout) !== normalize(command, want.stdout) || out.exitCode !== want.exitCode) {
          differences[kind].set(i, { got: out, want });
        }
      });
    }
  }
  await page.close();
  const names = {
    'sandtab-memory': 'sandtab (memory)',
    'sandtab-indexeddb': 'sandtab (IndexedDB)',
    'just-bash': `just-bash ${versions.justBash}`,
    'rust-bash': `rust-bash ${versions.rustBash}`,
  };
  const base = median(totals['just-bash']);
  console.log(`\nagent mix: ${COMMANDS.length} commands, each a separate exec, headless ${browserName}, median of ${rounds} rounds`);
  const row = (...cells) => console.log(cells.map((c, i) => (i === 0 ? String(c).padEnd(22) : String(c).padStart(16))).join(''));
  row('shell', 'total ms', 'ms per command', 'vs just-bash', 'differ from GNU');
  for (const kind of SHELLS) {
    const total = median(totals[kind]);
    row(names[kind], total.toFixed(1), (total / COMMANDS.length).toFixed(3), `${(base / total).toFixed(2)}x`, differences[kind].size);
  }
  const ours = Math.max(median(totals['sandtab-memory']), median(totals['sandtab-indexeddb']));
  console.log(`  goal: sandtab >= 5x faster than just-bash (both storages): ${base / ours >= 5 ? 'met' : `MISSED (${(base / ours).toFixed(2)}x)`}`);
  const show = (kind, limit) => {
    const shown = [...differences[kind]].slice(0, limit);
    for (const [i, { got, want }] of shown) {
      console.log(`    #${i} ${JSON.stringify(COMMANDS[i].cmd.split('\n')[0].slice(0, 70))}: exit ${got.exitCode}, ${JSON.stringify(got.stdout.slice(0, 80))}; GNU: exit ${want.exitCode}, ${JSON.stringify(want.stdout.slice(0, 80))}`);
    }
    if (differences[kind].size > limit) console.log(`    ... and ${differences[kind].size - limit} more`);
  };
  for (const kind of ['just-bash', 'rust-bash']) {
    if (differences[kind].size) {
      console.log(`  ${names[kind]} differs from GNU bash on ${differences[kind].size} commands (its bugs; not failures):`);
      show(kind, 4);
    }
  }
  const ourDifferences = differences['sandtab-memory'].size + differences['sandtab-indexeddb'].size;
  if (ourDifferences) {
    for (const kind of ['sandtab-memory', 'sandtab-indexeddb']) {
      if (differences[kind].size) console.log(`  ${names[kind]} differs from GNU bash on ${differences[kind].size} commands:`);
      show(kind, 20);
    }
    throw new Error(`agent mix: sandtab's output differs from GNU bash's on ${ourDifferences} commands (listed above)`);
  }
}
