// A static file server for the demo and the end-to-end tests: 127.0.0.1 only, correct
// MIME types (application/wasm matters for streaming compilation), no special headers:
// sandtab needs none (no COOP/COEP). As a static host would: ETags and `no-cache`, so a
// reload transfers only what changed (304s), and brotli or gzip for text and wasm. A
// file with a `.br` beside it at least as new (the demo's build writes them at brotli 11)
// is sent as that, as nginx's `brotli_static` or Caddy's `precompressed` would.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
/** Types worth compressing (PNG is compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.map', '.svg']);
/** Brotli's quality: 5 compresses the 18 MB runtime in about a second, within 20% of 11. */
const BROTLI_QUALITY = 5;

/** The encoding to send for an `accept-encoding` header: `br`, `gzip` or null. */
export function chooseEncoding(accept = '') {
  const offered = new Map();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    offered.set(name, q ? Number(q.slice(2)) : 1);
  }
  const allows = (name) => (offered.get(name) ?? (offered.has('*') ? offered.get('*') : 0)) > 0;
  if (allows('br')) return 'br';
  if (allows('gzip')) return 'gzip';
  return null;
}

/** The `.br` file beside `file`, if there is one no older than it: { path, size }. */
function precompressed(file, stat) {
  try {
    const br = statSync(`${file}.br`);
    return br.isFile() && br.mtimeMs >= stat.mtimeMs ? { path: `${file}.br`, size: br.size } : null;
  } catch {
    return null;
  }
}

/** Serves `root` on 127.0.0.1:`port` (0 picks a free port). Resolves to { url, close,
 * requests }: `requests` lists every answered request as { path, status, bytes,
 * encoding }, `bytes` being the body as sent (compressed), for counting page weight.
 * `options.headers` are added to every file's answer (a Content-Security-Policy, say).
 * `options.hold(path)` may return a promise: that file's answer waits for it (a test
 * makes a download slow). */
export function serve(root, port = 0, options = {}) {
  const extraHeaders = options.headers ?? {};
  const hold = options.hold ?? (() => undefined);
  const base = resolve(root);
  // Compressed copies, by file, version and encoding: each is made once.
  const compressed = new Map();
  const requests = [];
  const server = createServer(async (req, res) => {
    await hold(new URL(req.url ?? '/', 'http://x').pathname);
    let sent = 0;
    let sentEncoding = null;
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    const count = (chunk) => {
      if (chunk && typeof chunk !== 'function') sent += Buffer.byteLength(chunk);
    };
    res.write = (chunk, ...rest) => (count(chunk), write(chunk, ...rest));
    res.end = (chunk, ...rest) => (count(chunk), end(chunk, ...rest));
    res.on('finish', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({ path, status: res.statusCode, bytes: sent, encoding: sentEncoding });
    });
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = normalize(join(base, path));
    if (!file.startsWith(base)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let stat;
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      stat = statSync(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // As nginx makes them: size and modification time, so a rebuilt file gets a new one.
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const compressible = COMPRESSIBLE.has(extname(file));
    const headers = {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
      etag,
      ...(compressible ? { vary: 'accept-encoding' } : {}),
      ...extraHeaders,
    };
    const given = (req.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (given.includes(etag) || given.includes('*')) {
      res.writeHead(304, headers).end();
      return;
    }
    const encoding = compressible ? chooseEncoding(req.headers['accept-encoding']) : null;
    if (!encoding) {
      res.writeHead(200, { ...headers, 'content-length': stat.size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
      return;
    }
    headers['content-encoding'] = encoding;
    sentEncoding = encoding;
    const ahead = encoding === 'br' ? precompressed(file, stat) : null;
    if (ahead) {
      res.writeHead(200, { ...headers, 'content-length': ahead.size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(ahead.path).pipe(res);
      return;
    }
    const key = `${file}\0${etag}\0${encoding}`;
    const ready = compressed.get(key);
    if (ready) {
      res.writeHead(200, { ...headers, 'content-length': ready.length });
      res.end(req.method === 'HEAD' ? undefined : ready);
      return;
    }
    // The first request streams as it compresses, and keeps the result for the next.
    res.writeHead(200, headers);
    const squeeze =
      encoding === 'br'
        ? createBrotliCompress({
            params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: stat.size },
          })
        : createGzip();
    const chunks = [];
    squeeze.on('data', (chunk) => chunks.push(chunk));
    squeeze.on('end', () => compressed.set(key, Buffer.concat(chunks)));
    createReadStream(file).pipe(squeeze);
    if (req.method === 'HEAD') res.end();
    else squeeze.pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolvePromise({
        url: `http://127.0.0.1:${actual}/`,
        close: () => new Promise((done) => server.close(() => done())),
        requests,
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [root = 'www/dist', port = '8080'] = process.argv.slice(2);
  serve(root, Number(port)).then(
    ({ url }) => console.log(`sandtab demo: ${url}  (Ctrl-C to stop)`),
    (err) => {
      console.error(`could not serve ${root} on port ${port}: ${err.message}`);
      process.exit(1);
    },
  );
}
