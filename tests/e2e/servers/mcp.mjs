// A real MCP server for the capability tests, built with @modelcontextprotocol/sdk and
// served over Streamable HTTP on loopback (stateful: one session per client, answers as
// event streams, the SDK's default). Its tools: `search`, `add` (a structured result),
// `whoami` (echoes the Authorization header it got, to prove the page's secret is
// scrubbed from what the sandbox sees) and `explode` (a tool error). It records every
// JSON-RPC method it received, so a test can prove that refused calls never reached it.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function notesServer() {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'search',
    { description: 'Searches the notes.', inputSchema: { q: z.string() } },
    async ({ q }) => ({ content: [{ type: 'text', text: `found 2 notes for ${q}` }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('whoami', { description: 'Says who is asking.' }, async (extra) => ({
    content: [{ type: 'text', text: `you sent: ${extra.requestInfo?.headers?.authorization ?? 'nothing'}` }],
  }));
  server.registerTool('explode', { description: 'Always fails.' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the notes are on fire' }],
  }));
  return server;
}

/** Starts the server on `host`; resolves to { origin, url, methods, authorizations,
 * forgetSessions, close }. */
export function startMcpServer(host = '127.0.0.1') {
  const methods = [];
  const authorizations = [];
  const transports = new Map();
  const http = createServer(async (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader(
      'access-control-allow-headers',
      'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
    );
    res.setHeader('access-control-allow-methods', 'GET, POST, DELETE');
    res.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version');
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let body;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    } catch {
      res.writeHead(400).end('not JSON');
      return;
    }
    for (const message of [body].flat()) if (message?.method) methods.push(message.method);
    authorizations.push(req.headers.authorization);
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      await notesServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, host, () => {
      const origin = `http://${host}:${http.address().port}`;
      resolve({
        origin,
        url: `${origin}/mcp`,
        methods,
        /** The Authorization header of every POST. */
        authorizations,
        /** Forgets every session, as a restarted server would. */
        forgetSessions: () => transports.clear(),
        close: () =>
          new Promise((done) => {
            http.closeAllConnections?.();
            http.close(done);
          }),
      });
    });
  });
}
