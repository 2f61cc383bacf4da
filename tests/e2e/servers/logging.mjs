// The adversarial suite's witness: a listener on 127.0.0.1 that records everything that
// reaches it. Every TCP connection is logged when it opens (before any byte is read, so a
// request the browser abandons half-way still counts), then served as HTTP; every UDP
// datagram is logged (a STUN/TURN-shaped port: WebRTC's ICE sends its binding and
// allocate requests there, with a TURN username in the clear). A test points every
// attack at these ports and asserts `entries()` stays empty.
import { createServer as createTcpServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { createSocket } from 'node:dgram';

/** Starts the logger on 127.0.0.1. Resolves to { origin, host, port, udpPort, entries(),
 * clear(), close() }; each entry is { kind: 'tcp' | 'http' | 'udp', at, detail }. */
export async function startLoggingServer() {
  const log = [];
  const record = (kind, detail) => log.push({ kind, at: Date.now(), detail });

  const http = createHttpServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      record('http', { method: req.method, url: req.url, body: Buffer.concat(chunks).toString('latin1').slice(0, 2000) });
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
      res.end('logged\n');
    });
  });
  const sockets = new Set();
  const tcp = createTcpServer((socket) => {
    record('tcp', { from: `${socket.remoteAddress}:${socket.remotePort}` });
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    http.emit('connection', socket);
  });
  const udp = createSocket('udp4');
  udp.on('message', (message, from) => record('udp', { from: `${from.address}:${from.port}`, bytes: message.length, text: message.toString('latin1').replace(/[^\x20-\x7e]/g, '.') }));

  await new Promise((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(0, '127.0.0.1', resolve);
  });
  await new Promise((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, '127.0.0.1', resolve);
  });
  const { port } = tcp.address();
  const udpPort = udp.address().port;
  return {
    host: '127.0.0.1',
    port,
    udpPort,
    origin: `http://127.0.0.1:${port}`,
    entries: () => log.slice(),
    clear: () => {
      log.length = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => tcp.close(done));
      await new Promise((done) => udp.close(done));
    },
  };
}

/** Readable summary of what reached the logger, for assertion messages. */
export function describeEntries(entries) {
  return entries.map((e) => `${e.kind} ${JSON.stringify(e.detail)}`).join('\n');
}
