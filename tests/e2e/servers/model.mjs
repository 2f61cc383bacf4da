// A scripted fake LLM for the end-to-end tests, on loopback only. It speaks both the
// OpenAI chat-completions and the Anthropic messages wire formats (streamed or not, with
// tool calls), so the agent loop in the page can be driven without a real provider. A
// test scripts the replies in order and reads back every request the page sent. Streams
// are cut into small events flushed one by one, with tool-call arguments split mid-JSON,
// to exercise the page's incremental parsers; error, malformed and hung replies cover the
// failure paths. The page calls it cross-origin, so every answer carries CORS headers.
//
// Run `node tests/e2e/servers/model.mjs --self-test` to check the server on its own.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { setImmediate as tick } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

// `*` alone does not cover Authorization in the CORS spec, so the headers the provider
// SDKs send are also listed by name.
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers':
    '*, content-type, authorization, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
};
const SSE = { ...CORS, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };
const NO_REPLY = 'model server: no scripted reply left';

/** Splits `text` into about `n` non-empty pieces, by code point so no character is cut. */
function split(text, n) {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / n));
  const pieces = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

/** Splits a JSON string in the middle: always two pieces, so a client must join them. */
function halves(json) {
  const chars = Array.from(json);
  const mid = Math.max(1, Math.floor(chars.length / 2));
  return [chars.slice(0, mid).join(''), chars.slice(mid).join('')];
}

/** Writes SSE events one at a time, yielding between them so each leaves as its own chunk;
 * stops quietly if the client went away. */
async function stream(res, events) {
  res.writeHead(200, SSE);
  res.flushHeaders();
  for (const event of events) {
    if (res.destroyed || res.writableEnded) return;
    res.write(event);
    await tick();
  }
  if (!res.destroyed) res.end();
}

/** The models the server lists at GET /models. */
const MODELS = ['scripted-gpt', 'scripted-claude', 'o4-mini'];

function sendJson(res, status, body) {
  res.writeHead(status, { ...CORS, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

// One object per wire format: how to name ids, shape errors, and render a reply.
function openai(ids) {
  return {
    error: (message) => ({ error: { message, type: 'server_error' } }),
    toolId: (call) => call.id ?? `call_${++ids.call}`,
    complete(model, text, calls) {
      const message = { role: 'assistant', content: text ?? null };
      if (calls.length) {
        message.tool_calls = calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
        }));
      }
      return {
        id: `chatcmpl-${++ids.completion}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      };
    },
    events(model, text, calls, body, malformed = false, promptTokens = 10) {
      const id = `chatcmpl-${++ids.completion}`;
      const created = Math.floor(Date.now() / 1000);
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      if (malformed) return [chunk({ role: 'assistant', content: 'Partial' }), 'data: {not json\n\n'];
      const out = [chunk({ role: 'assistant', content: '' })];
      for (const piece of split(text ?? '', 3)) out.push(chunk({ content: piece }));
      calls.forEach((c, index) => {
        out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
        for (const piece of halves(JSON.stringify(c.args ?? {}))) {
          out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
      });
      out.push(chunk({}, calls.length ? 'tool_calls' : 'stop'));
      // Like the real API, usage comes in a last chunk with no choices, only when asked.
      if (body?.stream_options?.include_usage) {
        out.push(
          `data: ${JSON.stringify({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [],
            usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 },
          })}\n\n`,
        );
      }
      out.push('data: [DONE]\n\n');
      return out;
    },
  };
}

function anthropic(ids) {
  const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const start = (model) =>
    event({
      type: 'message_start',
      message: {
        id: `msg_${++ids.message}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    });
  // A text block is sent when there is text, or when there is nothing else to send.
  const hasText = (text, calls) => Boolean(text) || !calls.length;
  return {
    error: (message) => ({ type: 'error', error: { type: 'api_error', message } }),
    toolId: (call) => call.id ?? `toolu_${++ids.toolu}`,
    complete(model, text, calls) {
      const content = hasText(text, calls) ? [{ type: 'text', text: text ?? '' }] : [];
      for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args ?? {} });
      return {
        id: `msg_${++ids.message}`,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: calls.length ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      };
    },
    events(model, text, calls, _body, malformed = false) {
      const out = [start(model), event({ type: 'ping' })];
      if (malformed) {
        out.push(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
        out.push(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial' } }));
        out.push('event: content_block_delta\ndata: {not json\n\n');
        return out;
      }
      let index = 0;
      if (hasText(text, calls)) {
        out.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
        for (const piece of split(text ?? '', 3)) {
          out.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
        }
        out.push(event({ type: 'content_block_stop', index }));
        index++;
      }
      for (const c of calls) {
        out.push(
          event({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }),
        );
        for (const piece of halves(JSON.stringify(c.args ?? {}))) {
          out.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
        }
        out.push(event({ type: 'content_block_stop', index }));
        index++;
      }
      out.push(
        event({
          type: 'message_delta',
          delta: { stop_reason: calls.length ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { output_tokens: 5 },
        }),
      );
      out.push(event({ type: 'message_stop' }));
      return out;
    },
  };
}

/** Starts the fake model on 127.0.0.1 (a free port); resolves to
 * { url, script(replies), requests, pending(), close() }. */
export function startModelServer() {
  const requests = [];
  let queue = [];
  // Ids count across the server's lifetime, so ids stay unique over a whole test.
  const ids = { call: 0, toolu: 0, completion: 0, message: 0 };
  const formats = { openai: openai(ids), anthropic: anthropic(ids) };
  const sockets = new Set();

  const server = createServer(async (req, res) => {
    // A client that leaves mid-stream must not crash the test run.
    res.on('error', () => {});
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const raw = Buffer.concat(chunks).toString();
    const path = new URL(req.url, 'http://x').pathname;
    let body;
    let parsed = true;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
      parsed = false;
    }
    // Recorded before answering, so a test can inspect even a request that hangs.
    if (req.method === 'POST') requests.push({ path, headers: { ...req.headers }, body });

    // The models list, as both APIs answer it (`data[].id`), for Settings' test.
    if (req.method === 'GET' && path.endsWith('/models')) {
      requests.push({ path, headers: { ...req.headers }, body: undefined });
      const key = (req.headers.authorization ?? req.headers['x-api-key'] ?? '').replace(/^Bearer /, '');
      if (key === 'sk-wrong') {
        sendJson(res, 401, { error: { message: 'Incorrect API key provided' } });
        return;
      }
      sendJson(res, 200, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model' })) });
      return;
    }
    const format =
      req.method !== 'POST'
        ? undefined
        : path.endsWith('/chat/completions')
          ? formats.openai
          : path.endsWith('/messages')
            ? formats.anthropic
            : undefined;
    if (!format) {
      res.writeHead(404, { ...CORS, 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (!parsed) {
      sendJson(res, 400, format.error('model server: request body is not JSON'));
      return;
    }
    const reply = queue.shift();
    if (!reply) {
      sendJson(res, 500, format.error(NO_REPLY));
      return;
    }
    if (reply.status >= 400) {
      sendJson(res, reply.status, format.error(reply.message ?? `model server: scripted ${reply.status}`));
      return;
    }
    if (reply.hang) {
      // Headers only; the socket stays open until the client gives up or close() runs.
      res.writeHead(200, SSE);
      res.flushHeaders();
      return;
    }
    const model = body?.model ?? 'fake-model';
    if (reply.malformed) {
      await stream(res, format.events(model, '', [], body, true));
      return;
    }
    const calls = (reply.toolCalls ?? []).map((c) => ({ ...c, id: format.toolId(c) }));
    // `promptTokens`: the input a scripted reply says it read (default 10), as usage.
    if (body?.stream === true) await stream(res, format.events(model, reply.text, calls, body, false, reply.promptTokens));
    else sendJson(res, 200, format.complete(model, reply.text, calls));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        script(replies) {
          queue = [...replies];
        },
        requests,
        pending: () => queue.length,
        // Hung streams and idle keep-alive sockets would keep server.close() waiting.
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}

// ---- self-test -------------------------------------------------------------------------

/** Parses a whole SSE body into [{ event, data }] (data left as a string). */
function parseSse(text) {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const entry = { event: undefined, data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) entry.event = line.slice(7);
        else if (line.startsWith('data: ')) entry.data += line.slice(6);
      }
      return entry;
    });
}

async function post(url, body, headers = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function selfTest() {
  const model = await startModelServer();
  const args = { path: '/notes/todo.md', lines: [1, 2, 3], note: 'héllo ✓' };
  try {
    // CORS preflight.
    const pre = await fetch(`${model.url}/v1/messages`, { method: 'OPTIONS' });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.match(pre.headers.get('access-control-allow-headers'), /anthropic-dangerous-direct-browser-access/);

    // OpenAI stream: text and a tool call, reassembled from the deltas.
    model.script([{ text: 'Let me look at that file.', toolCalls: [{ name: 'read_file', args }] }]);
    let res = await post(`${model.url}/v1/chat/completions`, { model: 'gpt-test', stream: true, messages: [] }, {
      authorization: 'Bearer sk-test',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    let events = parseSse(await res.text());
    assert.equal(events.at(-1).data, '[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    let text = '';
    const oaCalls = [];
    let argPieces = 0;
    for (const chunk of chunks) {
      assert.equal(chunk.object, 'chat.completion.chunk');
      assert.equal(chunk.model, 'gpt-test');
      const delta = chunk.choices[0].delta;
      text += delta.content ?? '';
      for (const tc of delta.tool_calls ?? []) {
        oaCalls[tc.index] ??= { id: tc.id, name: tc.function.name, arguments: '' };
        if (tc.function.arguments) argPieces++;
        oaCalls[tc.index].arguments += tc.function.arguments ?? '';
      }
    }
    assert.equal(text, 'Let me look at that file.');
    assert.ok(chunks.filter((c) => c.choices[0].delta.content).length >= 2, 'text comes in several chunks');
    assert.equal(oaCalls.length, 1);
    assert.equal(oaCalls[0].id, 'call_1');
    assert.equal(oaCalls[0].name, 'read_file');
    assert.ok(argPieces >= 2, 'arguments come in several pieces');
    assert.deepEqual(JSON.parse(oaCalls[0].arguments), args);
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'tool_calls');
    assert.equal(model.requests.at(-1).path, '/v1/chat/completions');
    assert.equal(model.requests.at(-1).headers.authorization, 'Bearer sk-test');
    assert.equal(model.requests.at(-1).body.model, 'gpt-test');

    // Anthropic stream: the same, through content blocks.
    model.script([{ text: 'Reading it now.', toolCalls: [{ name: 'read_file', args }] }]);
    res = await post(`${model.url}/v1/messages`, { model: 'claude-test', stream: true, max_tokens: 100, messages: [] }, {
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
    });
    assert.equal(res.status, 200);
    events = parseSse(await res.text());
    assert.equal(events[0].event, 'message_start');
    assert.equal(events[1].event, 'ping');
    assert.equal(events.at(-1).event, 'message_stop');
    const blocks = [];
    let stop;
    for (const { event, data } of events) {
      const msg = JSON.parse(data);
      assert.equal(msg.type, event);
      if (event === 'content_block_start') blocks[msg.index] = { ...msg.content_block, text: '', json: '', pieces: 0 };
      if (event === 'content_block_delta') {
        const block = blocks[msg.index];
        block.pieces++;
        if (msg.delta.type === 'text_delta') block.text += msg.delta.text;
        else block.json += msg.delta.partial_json;
      }
      if (event === 'message_delta') stop = msg.delta.stop_reason;
    }
    assert.equal(blocks[0].type, 'text');
    assert.equal(blocks[0].text, 'Reading it now.');
    assert.ok(blocks[0].pieces >= 2);
    assert.equal(blocks[1].type, 'tool_use');
    assert.equal(blocks[1].id, 'toolu_1');
    assert.equal(blocks[1].name, 'read_file');
    assert.ok(blocks[1].pieces >= 2);
    assert.deepEqual(JSON.parse(blocks[1].json), args);
    assert.equal(stop, 'tool_use');
    assert.equal(model.requests.at(-1).headers['x-api-key'], 'sk-ant-test');

    // Not streamed: a whole JSON answer; ids keep counting.
    model.script([{ text: 'done', toolCalls: [{ name: 'a', args: {} }] }, { text: 'done' }]);
    res = await post(`${model.url}/v1/chat/completions`, { model: 'gpt-test', messages: [] });
    const completion = await res.json();
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0].message.tool_calls[0].id, 'call_2');
    assert.equal(completion.choices[0].finish_reason, 'tool_calls');
    res = await post(`${model.url}/v1/messages`, { model: 'claude-test', stream: false, messages: [] });
    const message = await res.json();
    assert.deepEqual(message.content, [{ type: 'text', text: 'done' }]);
    assert.equal(message.stop_reason, 'end_turn');

    // A scripted 500, in each format's error shape.
    model.script([{ status: 500, message: 'boom' }, { status: 529 }]);
    res = await post(`${model.url}/v1/chat/completions`, { stream: true });
    assert.equal(res.status, 500);
    assert.ok(res.headers.get('access-control-allow-origin'));
    assert.deepEqual(await res.json(), { error: { message: 'boom', type: 'server_error' } });
    res = await post(`${model.url}/v1/messages`, { stream: true });
    assert.equal(res.status, 529);
    assert.equal((await res.json()).error.type, 'api_error');

    // Malformed: one good chunk, then a broken data line.
    model.script([{ malformed: true }, { malformed: true }]);
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      res = await post(`${model.url}${path}`, { stream: true });
      assert.equal(res.status, 200);
      const body = await res.text();
      assert.match(body, /"Partial"/);
      assert.ok(body.endsWith('data: {not json\n\n'));
    }

    // Nothing left to say: a 500 naming the cause; unknown paths are 404.
    assert.equal(model.pending(), 0);
    res = await post(`${model.url}/v1/messages`, { stream: true });
    assert.equal(res.status, 500);
    assert.equal((await res.json()).error.message, NO_REPLY);
    res = await post(`${model.url}/v1/chat/completions`, {});
    assert.equal((await res.json()).error.message, NO_REPLY);
    res = await post(`${model.url}/v1/embeddings`, {});
    assert.equal(res.status, 404);
    await res.text();

    // Hang: headers arrive, then nothing; close() must still finish.
    model.script([{ hang: true }]);
    res = await post(`${model.url}/v1/messages`, { stream: true });
    assert.equal(res.status, 200);
    const reading = res.text().then(
      () => 'ended',
      () => 'cut',
    );
    const early = await Promise.race([reading, new Promise((r) => setTimeout(() => r('open'), 100))]);
    assert.equal(early, 'open');
    assert.equal(model.requests.at(-1).path, '/v1/messages');
    await model.close();
    assert.equal(await reading, 'cut');
  } finally {
    await model.close();
  }
  console.log('model server self-test: ok');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--self-test')) {
    selfTest().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  } else {
    console.error('usage: node tests/e2e/servers/model.mjs --self-test');
    process.exit(2);
  }
}
