// One streamed model request: a POST whose answer is a server-sent event stream, read
// event by event, with an idle timeout (no bytes for too long is a failure, however long
// the whole answer takes) and the user's stop button.

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ModelError } from './messages';

export interface StreamRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** The user's stop. */
  signal: AbortSignal;
  /** Milliseconds without a byte before the request is given up. */
  idleTimeoutMs: number;
}

/** The error text a provider put in an error answer, or the start of the body. */
function errorText(status: number, body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    const message = typeof json.error === 'string' ? json.error : (json.error?.message ?? json.message);
    if (message) return `HTTP ${status}: ${message}`;
  } catch {
    // Not JSON: show the text itself.
  }
  const text = body.trim().slice(0, 300);
  return text ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
}

/** Sends the request and yields the answer's events in order. */
export async function* streamEvents(request: StreamRequest): AsyncGenerator<EventSourceMessage> {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, request.idleTimeoutMs);
  };
  const stop = () => controller.abort();
  if (request.signal.aborted) throw new ModelError('stopped', 'aborted');
  request.signal.addEventListener('abort', stop, { once: true });
  const failure = (err: unknown): ModelError => {
    if (err instanceof ModelError) return err;
    if (timedOut) return new ModelError(`no answer from the model for ${Math.round(request.idleTimeoutMs / 1000)} s`, 'timeout');
    if (request.signal.aborted) return new ModelError('stopped', 'aborted');
    return new ModelError(`could not reach ${request.url}: ${err instanceof Error ? err.message : String(err)}`, 'network');
  };
  try {
    arm();
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...request.headers },
        body: JSON.stringify(request.body),
        signal: controller.signal,
      });
    } catch (err) {
      throw failure(err);
    }
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      throw new ModelError(errorText(response.status, body), 'http', response.status);
    }
    if (!response.body) throw new ModelError('the answer has no body', 'stream');
    const queue: EventSourceMessage[] = [];
    let parseError: string | null = null;
    const parser = createParser({
      onEvent: (event) => queue.push(event),
      onError: (err) => (parseError ??= err.message),
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw failure(err);
      }
      if (chunk.done) break;
      arm();
      parser.feed(chunk.value);
      if (parseError) throw new ModelError(`the answer's event stream is malformed: ${parseError}`, 'stream');
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', stop);
    controller.abort();
  }
}

/** Parses one event's JSON data, failing with a clear message. */
export function eventJson<T>(event: EventSourceMessage): T {
  try {
    return JSON.parse(event.data) as T;
  } catch {
    throw new ModelError(`the answer's event stream is malformed: not JSON: ${event.data.slice(0, 80)}`, 'stream');
  }
}
