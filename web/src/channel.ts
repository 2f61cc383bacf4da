// A faster way to the worker and back than postMessage, for pages that are
// cross-origin isolated (so they may share memory with their worker): a request and its
// reply pass through a SharedArrayBuffer, and a worker with nothing to do waits for the
// next request blocked in `Atomics.wait`, which wakes in microseconds, where a message
// costs a task on each side (measured in docs/performance.md).
//
// Only one request is ever in the buffer: the page sends through it only when nothing
// else is pending and the worker is waiting there (HOT); everything else goes by
// message. A worker blocked in `Atomics.wait` cannot read messages, so the page counts
// every message it posts (POSTED) and wakes the worker first: the worker blocks only
// when it has read as many messages as were posted, and leaves the wait when the page
// turns the state COLD.

/** The worker reads messages (its event loop). */
const COLD = 0;
/** The worker waits in `Atomics.wait` for a request in the buffer. */
const HOT = 1;
/** The page wrote a request; the worker is answering it. */
const BUSY = 2;

const STATE = 0;
const REQUEST_LENGTH = 1;
const REPLY_SEQ = 2;
/** The reply's length, or -1: the reply did not fit and comes as a message. */
const REPLY_LENGTH = 3;
const POSTED = 4;
const HEADER_BYTES = 64;

/** Each direction's room; a larger request or reply goes by message. */
const AREA_BYTES = 256 * 1024;

/** How long an idle worker waits in the buffer before going back to its event loop. */
const HOT_MS = 20;

/** A byte array in the JSON text: its place among the message's byte arrays. */
const BYTES_KEY = '\u0000sandtab:bytes';

/** `Atomics.waitAsync` (ES2024; in Chromium and Firefox), typed here. */
type WaitAsync = (
  words: Int32Array,
  index: number,
  value: number,
  timeout?: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (globalThis.Atomics as unknown as { waitAsync?: WaitAsync } | undefined)?.waitAsync;

export function channelSupported(): boolean {
  return typeof SharedArrayBuffer === 'function' && waitAsync !== undefined && globalThis.crossOriginIsolated === true;
}

export function createChannelBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + 2 * AREA_BYTES);
}

const UTF8_ENCODER = new TextEncoder();
const UTF8_DECODER = new TextDecoder();

/** `message` as bytes (a length, JSON text, then its byte arrays), or null past `limit`. */
function encode(message: unknown, limit: number): Uint8Array | null {
  const arrays: Uint8Array[] = [];
  let arrayBytes = 0;
  const json = JSON.stringify(message, (_key, value: unknown) => {
    if (value instanceof Uint8Array) {
      arrays.push(value);
      arrayBytes += value.length;
      return { [BYTES_KEY]: value.length };
    }
    return value;
  });
  if (arrayBytes > limit) return null;
  const text = UTF8_ENCODER.encode(json);
  const total = 4 + text.length + arrayBytes;
  if (total > limit) return null;
  const out = new Uint8Array(total);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 4);
  let at = 4 + text.length;
  for (const array of arrays) {
    out.set(array, at);
    at += array.length;
  }
  return out;
}

/** The message `encode` wrote at `area` (copied out: nothing shared escapes). */
function decode(buffer: SharedArrayBuffer, area: number, length: number): unknown {
  const bytes = new Uint8Array(length);
  bytes.set(new Uint8Array(buffer, area, length));
  const textLength = new DataView(bytes.buffer).getUint32(0, true);
  let at = 4 + textLength;
  // JSON.parse revives inner values first, in document order: the order `encode` wrote.
  return JSON.parse(UTF8_DECODER.decode(bytes.subarray(4, at)), (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && BYTES_KEY in value) {
      const length = (value as Record<string, number>)[BYTES_KEY];
      const array = bytes.slice(at, at + length);
      at += length;
      return array;
    }
    return value;
  });
}

/** The page's end. */
export class PageChannel {
  readonly #words: Int32Array;
  readonly #buffer: SharedArrayBuffer;

  constructor(buffer: SharedArrayBuffer) {
    this.#buffer = buffer;
    this.#words = new Int32Array(buffer, 0, HEADER_BYTES / 4);
  }

  /** Call before every postMessage to the worker: counts it, and wakes a waiting worker
   * so that it reads it. */
  beforePost(): void {
    Atomics.add(this.#words, POSTED, 1);
    if (Atomics.compareExchange(this.#words, STATE, HOT, COLD) === HOT) Atomics.notify(this.#words, STATE);
  }

  /** Puts `request` in the buffer if the worker waits there and it fits; resolves to the
   * reply, or to null when the reply comes as a message. Resolves to undefined (nothing
   * sent) otherwise. */
  send(request: unknown, alive: () => boolean): Promise<unknown> | undefined {
    if (Atomics.load(this.#words, STATE) !== HOT) return undefined;
    const bytes = encode(request, AREA_BYTES);
    if (bytes === null) return undefined;
    if (Atomics.compareExchange(this.#words, STATE, HOT, BUSY) !== HOT) return undefined;
    const seq = Atomics.load(this.#words, REPLY_SEQ);
    new Uint8Array(this.#buffer, HEADER_BYTES, bytes.length).set(bytes);
    Atomics.store(this.#words, REQUEST_LENGTH, bytes.length);
    Atomics.notify(this.#words, REQUEST_LENGTH);
    Atomics.notify(this.#words, STATE);
    return this.#reply(seq, alive);
  }

  async #reply(seq: number, alive: () => boolean): Promise<unknown> {
    // A worker that died never answers: look again now and then.
    while (Atomics.load(this.#words, REPLY_SEQ) === seq) {
      if (!alive()) return null;
      const wait = waitAsync!(this.#words, REPLY_SEQ, seq, 1000);
      if (wait.async) await wait.value;
    }
    const length = Atomics.load(this.#words, REPLY_LENGTH);
    return length < 0 ? null : decode(this.#buffer, HEADER_BYTES + AREA_BYTES, length);
  }
}

/** The worker's end. */
export class WorkerChannel {
  readonly #words: Int32Array;
  readonly #buffer: SharedArrayBuffer;
  /** How many messages this worker has read (the page counts those it posted). */
  readonly #read: () => number;

  constructor(buffer: SharedArrayBuffer, read: () => number) {
    this.#buffer = buffer;
    this.#words = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.#read = read;
  }

  /** Waits (blocking this worker, at most HOT_MS) for a request in the buffer; null when
   * a message came, or none did in time: the worker goes back to its event loop. */
  next(): unknown {
    if (Atomics.load(this.#words, STATE) === COLD) {
      // The page writes a request only once the state is HOT.
      Atomics.store(this.#words, REQUEST_LENGTH, 0);
      Atomics.store(this.#words, STATE, HOT);
    }
    // A message posted before the state turned HOT is read first, in the event loop.
    const unread = Atomics.load(this.#words, POSTED) !== this.#read();
    const outcome = unread ? 'timed-out' : Atomics.wait(this.#words, STATE, HOT, HOT_MS);
    // HOT → COLD, unless the page has just sent a request (then it is answered).
    if (outcome === 'timed-out' && Atomics.compareExchange(this.#words, STATE, HOT, COLD) === HOT) return null;
    if (Atomics.load(this.#words, STATE) !== BUSY) return null;
    while (Atomics.load(this.#words, REQUEST_LENGTH) === 0) Atomics.wait(this.#words, REQUEST_LENGTH, 0, 5);
    return decode(this.#buffer, HEADER_BYTES, Atomics.load(this.#words, REQUEST_LENGTH));
  }

  /** Answers the request in the buffer; false when the reply does not fit (the caller
   * then posts it as a message, which the page is told to wait for). Ready for the
   * next request before the page learns of this reply, so a page that sends at once
   * finds the worker waiting. */
  reply(message: unknown): boolean {
    const bytes = encode(message, AREA_BYTES);
    if (bytes !== null) new Uint8Array(this.#buffer, HEADER_BYTES + AREA_BYTES, bytes.length).set(bytes);
    Atomics.store(this.#words, REPLY_LENGTH, bytes === null ? -1 : bytes.length);
    Atomics.store(this.#words, REQUEST_LENGTH, 0);
    Atomics.compareExchange(this.#words, STATE, BUSY, HOT);
    Atomics.add(this.#words, REPLY_SEQ, 1);
    Atomics.notify(this.#words, REPLY_SEQ);
    return bytes !== null;
  }
}
