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
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

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

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function shellBench(browser, server, root, rounds) {
  const version = await stageJustBash(root);
  const json = jsonData();
  WORKLOADS.find((w) => w.key === 'jq').expected = json.expected;
  const page = await browser.newPage();
  page.on('pageerror', (err) => console.log(`  page error: ${err.message}`));
  await page.goto(`${server.url}?sandbox=bench-shell-page`);
  await page.waitForFunction(() => window.sandtab !== undefined, { timeout: 60_000 });
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

  console.log(`\nsandtab shell vs just-bash ${version}, same headless Chromium page, median of ${rounds} rounds`);
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
