// The two wire formats the agent speaks, both streaming with tool calls: OpenAI's chat
// completions (also what llama.cpp, Ollama, LM Studio and vLLM serve) and Anthropic's
// messages. Each turns the conversation into its request and its event stream back into
// one `ModelReply`, reporting text as it arrives.

import { ModelError, parseArgs, type Message, type ModelReply, type TokenUsage, type ToolCall } from './messages';
import { eventJson, streamEvents } from './stream';

/** The tools with a cache breakpoint on the last one. */
function withCacheBreakpoint(tools: unknown[]): unknown[] {
  const last = tools.at(-1);
  if (last === null || typeof last !== 'object') return tools;
  return [...tools.slice(0, -1), { ...(last as object), cache_control: { type: 'ephemeral' } }];
}

/** OpenAI's reasoning models (the o-series, the gpt-5 family) refuse `max_tokens` and
 * take `max_completion_tokens`; other chat-completions servers know only `max_tokens`. */
export function outputLimit(settings: { model: string; maxTokens: number }): { max_tokens: number } | { max_completion_tokens: number } {
  const reasoning = /^(?:[\w-]+\/)?(?:o\d|gpt-5)/i.test(settings.model);
  return reasoning ? { max_completion_tokens: settings.maxTokens } : { max_tokens: settings.maxTokens };
}

export type Provider = 'openai' | 'anthropic';

export interface ModelSettings {
  provider: Provider;
  /** The API's base URL: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`,
   * `https://api.anthropic.com/v1`. */
  endpoint: string;
  model: string;
  /** Sent only to `endpoint`; kept in this browser. */
  apiKey: string;
  maxTokens: number;
  /** Seconds without any data from the model before a request is given up. */
  timeoutSeconds: number;
  /** The model's context window, in tokens: the conversation is compacted before it
   * fills (see `compaction.ts`). */
  contextTokens: number;
}

export interface CallOptions {
  system: string;
  messages: Message[];
  /** Tool definitions in the provider's format (`sandbox.toolDefinitions(provider)`). */
  tools: unknown[];
  signal: AbortSignal;
  onText: (delta: string) => void;
}

function endpointUrl(settings: ModelSettings, path: string): string {
  const base = settings.endpoint.trim().replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) throw new ModelError(`the endpoint must be an http(s) URL, not "${settings.endpoint}"`, 'settings');
  if (!settings.model.trim()) throw new ModelError('no model is set (Settings)', 'settings');
  return `${base}${path}`;
}

// --- OpenAI chat completions ---------------------------------------------------------

function openaiMessages(system: string, messages: Message[]): unknown[] {
  const out: unknown[] = [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.text });
    else if (message.role === 'tool') out.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
    else
      out.push({
        role: 'assistant',
        content: message.text || null,
        ...(message.toolCalls.length > 0 && {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.argsText || '{}' },
          })),
        }),
      });
  }
  return out;
}

interface OpenAiChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  /** In a last chunk, when asked for with `stream_options.include_usage`. */
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

async function callOpenAi(settings: ModelSettings, options: CallOptions): Promise<ModelReply> {
  const url = endpointUrl(settings, '/chat/completions');
  const headers: Record<string, string> = {};
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let text = '';
  let stopReason = '';
  let done = false;
  let usage: TokenUsage | undefined;
  const calls: { id: string; name: string; argsText: string }[] = [];
  const events = streamEvents({
    url,
    headers,
    signal: options.signal,
    idleTimeoutMs: settings.timeoutSeconds * 1000,
    body: {
      model: settings.model,
      messages: openaiMessages(options.system, options.messages),
      ...(options.tools.length > 0 && { tools: options.tools }),
      ...outputLimit(settings),
      stream: true,
      stream_options: { include_usage: true },
    },
  });
  for await (const event of events) {
    if (event.data.trim() === '[DONE]') {
      done = true;
      break;
    }
    const chunk = eventJson<OpenAiChunk>(event);
    if (chunk.error) throw new ModelError(`the model reported an error: ${chunk.error.message ?? 'unknown'}`, 'stream');
    if (chunk.usage) usage = { input: chunk.usage.prompt_tokens ?? 0, output: chunk.usage.completion_tokens ?? 0 };
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      if (delta.content) {
        text += delta.content;
        options.onText(delta.content);
      }
      for (const part of delta.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', name: '', argsText: '' });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.argsText += part.function.arguments;
      }
      if (choice.finish_reason) stopReason = choice.finish_reason;
    }
  }
  if (!done && !stopReason) throw new ModelError('the answer ended before it was complete', 'stream');
  const toolCalls: ToolCall[] = calls
    .filter(Boolean)
    .map((call, index) => ({ ...call, id: call.id || `call_${index}`, args: parseArgs(call.argsText) }));
  return { text, toolCalls, stopReason: stopReason || 'stop', ...(usage && { usage }) };
}

// --- Anthropic messages --------------------------------------------------------------

function anthropicMessages(messages: Message[]): unknown[] {
  const out: { role: string; content: unknown[] }[] = [];
  const push = (role: string, block: unknown) => {
    const last = out[out.length - 1];
    // Consecutive blocks of one role go in one message (tool results after a turn).
    if (last && last.role === role) last.content.push(block);
    else out.push({ role, content: [block] });
  };
  for (const message of messages) {
    if (message.role === 'user') push('user', { type: 'text', text: message.text });
    else if (message.role === 'tool')
      push('user', { type: 'tool_result', tool_use_id: message.callId, content: message.content, is_error: message.isError });
    else {
      if (message.text) push('assistant', { type: 'text', text: message.text });
      for (const call of message.toolCalls) push('assistant', { type: 'tool_use', id: call.id, name: call.name, input: call.args });
      if (!message.text && message.toolCalls.length === 0) push('assistant', { type: 'text', text: '(no answer)' });
    }
  }
  return out;
}

interface AnthropicEvent {
  type: string;
  index?: number;
  content_block?: { type: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  /** message_start's message carries the input's usage; message_delta the output's. */
  message?: { usage?: AnthropicUsage };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

interface AnthropicUsage {
  input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  output_tokens?: number;
}

async function callAnthropic(settings: ModelSettings, options: CallOptions): Promise<ModelReply> {
  const url = endpointUrl(settings, '/messages');
  const headers: Record<string, string> = {
    'anthropic-version': '2023-06-01',
    // The key is the user's own, typed into this page: the API asks for this header
    // before it answers a browser.
    'anthropic-dangerous-direct-browser-access': 'true',
  };
  if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
  let text = '';
  let stopReason = '';
  let stopped = false;
  const usage: TokenUsage = { input: 0, output: 0 };
  const blocks: { kind: string; id: string; name: string; argsText: string }[] = [];
  const events = streamEvents({
    url,
    headers,
    signal: options.signal,
    idleTimeoutMs: settings.timeoutSeconds * 1000,
    body: {
      model: settings.model,
      max_tokens: settings.maxTokens,
      // The system prompt and the tools are the same every call: cached (Anthropic's
      // prompt caching; a breakpoint on the last tool covers the tools and the system).
      system: [{ type: 'text', text: options.system, cache_control: { type: 'ephemeral' } }],
      messages: anthropicMessages(options.messages),
      ...(options.tools.length > 0 && { tools: withCacheBreakpoint(options.tools) }),
      stream: true,
    },
  });
  for await (const event of events) {
    const data = eventJson<AnthropicEvent>(event);
    switch (data.type) {
      case 'content_block_start': {
        const block = data.content_block ?? { type: 'text' };
        blocks[data.index ?? blocks.length] = { kind: block.type, id: block.id ?? '', name: block.name ?? '', argsText: '' };
        if (block.type === 'text' && block.text) {
          text += block.text;
          options.onText(block.text);
        }
        break;
      }
      case 'content_block_delta': {
        const block = blocks[data.index ?? blocks.length - 1];
        if (data.delta?.type === 'text_delta' && data.delta.text) {
          text += data.delta.text;
          options.onText(data.delta.text);
        } else if (data.delta?.type === 'input_json_delta' && block) {
          block.argsText += data.delta.partial_json ?? '';
        }
        break;
      }
      case 'message_start': {
        const used = data.message?.usage ?? {};
        // Cached and newly cached prompt tokens are read too.
        usage.input = (used.input_tokens ?? 0) + (used.cache_creation_input_tokens ?? 0) + (used.cache_read_input_tokens ?? 0);
        usage.output = used.output_tokens ?? 0;
        break;
      }
      case 'message_delta':
        if (data.delta?.stop_reason) stopReason = data.delta.stop_reason;
        if (data.usage?.output_tokens !== undefined) usage.output = data.usage.output_tokens;
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error':
        throw new ModelError(`the model reported an error: ${data.error?.message ?? data.error?.type ?? 'unknown'}`, 'stream');
      default:
        // content_block_stop, ping: nothing to keep.
        break;
    }
    if (stopped) break;
  }
  if (!stopped) throw new ModelError('the answer ended before it was complete', 'stream');
  const toolCalls: ToolCall[] = blocks
    .filter((block) => block?.kind === 'tool_use')
    .map((block) => ({ id: block.id, name: block.name, argsText: block.argsText, args: parseArgs(block.argsText) }));
  return { text, toolCalls, stopReason: stopReason || 'end_turn', usage };
}

/** One model call in the configured provider's format. */
export function callModel(settings: ModelSettings, options: CallOptions): Promise<ModelReply> {
  return settings.provider === 'anthropic' ? callAnthropic(settings, options) : callOpenAi(settings, options);
}

/** The models the endpoint offers (`GET /models`, in both providers' formats: `data[].id`),
 * for Settings' "Test connection". Rejects with a `ModelError` saying what failed. */
export async function listModels(
  settings: Pick<ModelSettings, 'provider' | 'endpoint' | 'apiKey'>,
  signal?: AbortSignal,
): Promise<string[]> {
  const base = settings.endpoint.trim().replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) throw new ModelError(`the endpoint must be an http(s) URL, not "${settings.endpoint}"`, 'settings');
  const headers: Record<string, string> = {};
  if (settings.provider === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01';
    headers['anthropic-dangerous-direct-browser-access'] = 'true';
    if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
  } else if (settings.apiKey) {
    headers.authorization = `Bearer ${settings.apiKey}`;
  }
  let response: Response;
  try {
    response = await fetch(`${base}/models`, { headers, signal: signal ?? AbortSignal.timeout(15_000) });
  } catch (err) {
    throw new ModelError(`could not reach ${base}: ${err instanceof Error ? err.message : String(err)}`, 'network');
  }
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 200).trim();
    throw new ModelError(`${base}/models answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`, 'http');
  }
  const body = (await response.json().catch(() => null)) as { data?: { id?: unknown }[] } | null;
  if (!Array.isArray(body?.data)) throw new ModelError(`${base}/models did not answer a list of models`, 'http');
  return body.data.map((model) => model.id).filter((id): id is string => typeof id === 'string').sort();
}
