// The agent-mix workload of `./dev bench shell`: a small project tree and a fixed list
// of small commands as a coding agent issues them through a bash tool, each its own
// exec. Every command stands alone (it starts with `cd /proj &&` or names absolute
// paths), because just-bash starts each exec afresh in its home directory.
//
// Commands flagged `unordered` print lines in directory order in GNU tools (`grep -r`,
// `find`): their outputs are compared as sorted lines.
//
// `gnuCheck()` runs the list in the real /bin/bash (GNU tools, LC_ALL=C) in a temporary
// directory standing for /proj: the reference every shell's output is compared with.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ROOT = '/proj';

const users = [
  { id: 1, name: 'ada', age: 36, role: 'admin', active: true },
  { id: 2, name: 'bob', age: 28, role: 'dev', active: false },
  { id: 3, name: 'cyd', age: 41, role: 'dev', active: true },
  { id: 4, name: 'dee', age: 23, role: 'ops', active: true },
  { id: 5, name: 'eve', age: 52, role: 'admin', active: false },
];

/** The project tree, path (under /proj) to text. */
export const PROJECT = {
  'package.json':
    JSON.stringify(
      {
        name: 'demo-app',
        version: '1.2.3',
        scripts: { test: 'node tests/run.js', build: 'node build.js', lint: 'eslint src' },
        dependencies: { express: '4.18.2', lodash: '4.17.21' },
        devDependencies: { eslint: '8.57.0' },
      },
      null,
      2,
    ) + '\n',
  'README.md':
    '# demo-app\n\nA small service for the bench.\n\n## Usage\n\n    npm install\n    npm test\n\n## Layout\n\n' +
    '- src/: the code\n- tests/: the tests\n- data/: fixtures\n\nTODO: document the config.\n',
  '.gitignore': 'node_modules/\ndist/\n*.log\n',
  'src/index.js':
    "const express = require('express');\nconst { add } = require('./lib/math');\nconst { slug } = require('./lib/strings');\n" +
    "const config = require('../data/config.json');\n\nconst app = express();\n\n// TODO: move routes to their own file\n" +
    "app.get('/add', (req, res) => {\n  res.json({ sum: add(Number(req.query.a), Number(req.query.b)) });\n});\n\n" +
    "app.get('/slug', (req, res) => {\n  res.json({ slug: slug(req.query.text) });\n});\n\napp.listen(config.port);\n",
  'src/lib/math.js':
    'function add(a, b) {\n  return a + b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n\n' +
    'function mean(xs) {\n  // FIXME: empty arrays\n  return xs.reduce(add, 0) / xs.length;\n}\n\nmodule.exports = { add, mul, mean };\n',
  'src/lib/strings.js':
    "function slug(text) {\n  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');\n}\n\n" +
    "function pad(text, width) {\n  return text.padStart(width, ' ');\n}\n\nmodule.exports = { slug, pad };\n",
  'src/util.js':
    "const fs = require('fs');\n\nfunction readJson(path) {\n  return JSON.parse(fs.readFileSync(path, 'utf8'));\n}\n\n" +
    'function log(message) {\n  console.log(`[demo] ${message}`);\n}\n\nmodule.exports = { readJson, log };\n',
  'tests/math.test.js':
    "const assert = require('assert');\nconst { add, mul, mean } = require('../src/lib/math');\n\n" +
    'assert.strictEqual(add(1, 2), 3);\nassert.strictEqual(mul(2, 3), 6);\nassert.strictEqual(mean([1, 2, 3]), 2);\n',
  'tests/strings.test.js':
    "const assert = require('assert');\nconst { slug } = require('../src/lib/strings');\n\nassert.strictEqual(slug('Hello World'), 'hello-world');\n",
  'data/config.json': JSON.stringify({ port: 8080, debug: false, features: { auth: true, cache: false }, hosts: ['a.example', 'b.example'] }, null, 2) + '\n',
  'data/users.json': JSON.stringify(users, null, 2) + '\n',
  'data/events.csv':
    'date,user,kind,amount\n2024-01-03,ada,buy,30\n2024-01-04,bob,sell,12\n2024-01-04,ada,buy,7\n' +
    '2024-01-05,cyd,buy,55\n2024-01-06,dee,sell,3\n2024-01-07,ada,sell,19\n2024-01-08,eve,buy,41\n',
  'notes.txt': 'alpha\nbeta\ngamma\ndelta\nalpha\nepsilon\nbeta\nalpha\n',
};

/** Commands that read and search: an agent finding its way around. */
const EXPLORE = [
  'cd /proj && ls',
  'ls /proj/src',
  'ls /proj/src/lib',
  'cd /proj && ls -1 tests',
  'cd /proj && ls -a',
  'cat /proj/package.json',
  'cd /proj && cat README.md',
  'cd /proj && cat src/index.js',
  'cat /proj/src/lib/math.js',
  'cd /proj && head -n 5 src/index.js',
  'cd /proj && head -3 README.md',
  'tail -n 4 /proj/src/lib/strings.js',
  'cd /proj && wc -l src/index.js',
  'wc -l < /proj/README.md',
  'cd /proj && cat src/util.js | wc -l',
  { cmd: 'cd /proj && grep -rn TODO .', unordered: true },
  { cmd: 'cd /proj && grep -rn "require(" src', unordered: true },
  { cmd: 'grep -rn FIXME /proj/src', unordered: true },
  { cmd: 'cd /proj && grep -rl module.exports src', unordered: true },
  'cd /proj && grep -n add src/lib/math.js',
  'grep -c alpha /proj/notes.txt',
  'cd /proj && grep -i todo README.md',
  { cmd: 'cd /proj && find . -name "*.js"', unordered: true },
  { cmd: 'cd /proj && find src -type f', unordered: true },
  { cmd: 'find /proj -name "*.json" -type f', unordered: true },
  { cmd: 'cd /proj && find . -type d', unordered: true },
  'cd /proj && find tests -name "*.test.js" | sort',
  "jq '.version' /proj/package.json",
  "cd /proj && jq -r '.name' package.json",
  "jq -r '.dependencies | keys[]' /proj/package.json",
  "cd /proj && jq '.scripts' package.json",
  "jq '.port' /proj/data/config.json",
  "cd /proj && jq -c '.features' data/config.json",
  "jq 'length' /proj/data/users.json",
  "cd /proj && jq -r '.[] | select(.active) | .name' data/users.json",
  "cd /proj && jq '[.[] | .age] | add' data/users.json",
  "jq -c 'map(select(.role == \"dev\")) | map(.id)' /proj/data/users.json",
  "cd /proj && jq -r '.hosts[]' data/config.json",
  'cd /proj && sort notes.txt | uniq',
  'sort /proj/notes.txt | uniq -c | sort -rn | head -3',
  'cd /proj && cut -d, -f2 data/events.csv | sort -u',
  "cd /proj && awk -F, 'NR > 1 { s += $4 } END { print s }' data/events.csv",
  'cd /proj && grep buy data/events.csv | wc -l',
  'cd /proj && test -f package.json && echo yes',
  'test -d /proj/dist || echo "no dist"',
  'cd /proj && pwd',
  'cd /proj/src/lib && pwd && ls',
  'cd /proj && cat .gitignore',
  "cd /proj && sed -n '2,4p' src/lib/math.js",
  "cd /proj && awk '/function/ { print $2 }' src/lib/math.js",
];

/** One edit task on file `name` (a new module): written by a heredoc, read back,
 * edited with `sed -i`, searched, counted, tested; the commands an agent runs around
 * an edit. */
function editTask(name, n) {
  const file = `src/${name}.js`;
  return [
    `cd /proj && ls src`,
    `cd /proj && cat > ${file} <<'EOF'\n// ${name}: helper ${n}\nfunction ${name}Value(x) {\n  return x * ${n};\n}\n\nfunction ${name}Name() {\n  return '${name}';\n}\n\nmodule.exports = { ${name}Value, ${name}Name };\nEOF`,
    `cat /proj/${file}`,
    `cd /proj && wc -l ${file}`,
    `cd /proj && grep -n "function" ${file}`,
    `cd /proj && sed -i 's/x \\* ${n}/x * ${n + 1}/' ${file}`,
    `cd /proj && grep -n "x \\*" ${file}`,
    `cd /proj && head -n 4 ${file}`,
    `cd /proj && sed -i '1a // edited by the agent' ${file}`,
    `cd /proj && sed -n '1,3p' ${file}`,
    { cmd: `cd /proj && grep -rn "${name}" src`, unordered: true },
    `cd /proj && mkdir -p tests/${name}`,
    `cat > /proj/tests/${name}/${name}.test.js <<EOF\nconst { ${name}Value } = require('../../${file}');\nif (${name}Value(2) !== ${2 * (n + 1)}) throw new Error('${name}');\nEOF`,
    `cd /proj && cat tests/${name}/${name}.test.js`,
    { cmd: `cd /proj && find tests -name "*.js"`, unordered: true },
    `cd /proj && echo "- src/${name}.js: helper ${n}" >> README.md`,
    `cd /proj && tail -n 2 README.md`,
    `cd /proj && jq '.version' package.json`,
    `cd /proj && sed -i 's/"version": "1.2.${n + 3}"/"version": "1.2.${n + 4}"/' package.json`,
    `cd /proj && jq -r '.version' package.json`,
    `cd /proj && grep -c "" ${file}`,
    `cd /proj && cp ${file} ${file}.bak && ls src | grep bak`,
    `cd /proj && rm ${file}.bak && ls src`,
    `cd /proj && wc -c < ${file}`,
    `cd /proj && cat -n ${file} | head -n 5`,
    `cd /proj && diff ${file} ${file} && echo same`,
    "cd /proj && jq -c '.[0]' data/users.json",
    `cd /proj && printf '%s\\n' ${name} >> notes.txt && tail -n 1 notes.txt`,
    `cd /proj && git status 2>/dev/null || echo "not a repository"`,
    `cd /proj && ls tests`,
  ];
}

const TASKS = ['parser', 'cache', 'auth', 'report', 'queue'];

/** The commands, in order: exploration, five edit tasks, and a last look around. */
export const COMMANDS = [
  ...EXPLORE,
  ...TASKS.flatMap((name, i) => editTask(name, i)),
  { cmd: 'cd /proj && grep -rn "module.exports" src', unordered: true },
  { cmd: 'cd /proj && find . -name "*.test.js"', unordered: true },
  'cd /proj && cat notes.txt | sort | uniq -c | sort -rn',
  "cd /proj && jq -r '.version' package.json",
  'cd /proj && wc -l README.md',
  'cd /proj && tail -n 6 README.md',
].map((c) => (typeof c === 'string' ? { cmd: c } : c));

/** A command's output in a comparable form: sorted lines when its order is the
 * directory's. */
export function normalize(command, stdout) {
  if (!command.unordered) return stdout;
  return stdout.split('\n').filter(Boolean).sort().join('\n');
}

/** The reference: each command in GNU bash (`bash -c`, LC_ALL=C) in a temporary
 * directory standing for /proj, `/proj` in commands and outputs swapped for it and back. */
export function gnuCheck() {
  const base = mkdtempSync(join(tmpdir(), 'agent-mix-'));
  const root = join(base, 'proj');
  try {
    for (const [path, text] of Object.entries(PROJECT)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return COMMANDS.map((command) => {
      const run = spawnSync('/bin/bash', ['-c', command.cmd.replaceAll(ROOT, root)], {
        encoding: 'utf8',
        cwd: base,
        env: { PATH: '/usr/bin:/bin', LC_ALL: 'C', HOME: base },
      });
      return { stdout: run.stdout.replaceAll(root, ROOT), exitCode: run.status };
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
