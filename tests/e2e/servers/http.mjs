// Real HTTP servers for the network tests, on loopback only: a granted API (CORS open,
// routes that echo, redirect and send large bodies) and "elsewhere" servers standing in
// for another origin or a private address. Each records the requests it received, so a
// test can prove that a refused request never left the browser.
import { createServer } from 'node:http';

/** Starts a server on `host` (a 127.x address) answering with `routes[path](req, body)`
 * => { status, headers, body }. Resolves to { origin, requests, close }. */
export function startServer(host, routes = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url, 'http://x');
      requests.push({ method: req.method, path: url.pathname, headers: req.headers, body: body.toString() });
      const cors = {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': '*, authorization',
        'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
        'access-control-expose-headers': '*',
      };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors).end();
        return;
      }
      const route = routes[url.pathname];
      const answer = route ? route(req, body, url) : { status: 404, body: 'not found\n' };
      res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...cors, ...(answer.headers ?? {}) });
      res.end(answer.body ?? '');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      resolve({
        origin: `http://${host}:${port}`,
        requests,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}
