// Shared by the Node package tests: a local HTTP server on 127.0.0.1 and temporary
// directories.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server whose `routes` map a path to a handler `(req, body) => {status, headers,
 * body}`; `requests` lists what reached it. */
export async function startServer(routes) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const url = new URL(req.url, 'http://x');
      requests.push({ method: req.method, path: url.pathname, headers: req.headers, body });
      const route = routes[url.pathname];
      const answer = route ? route(req, body) : { status: 404, body: 'not found\n' };
      res.writeHead(answer.status ?? 200, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A new empty directory, removed by the returned function. */
export function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'sandtab-node-'));
  t?.after?.(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
