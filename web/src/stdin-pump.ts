// An exec's standard input given as a stream: read while the command runs and sent to the
// worker beside the exec's queue, chunk by chunk.

import { SandboxError } from './errors.js';
import type { ToWorker } from './protocol.js';

/** A source of an exec's standard input that is written while it runs. */
export type StdinSource = ReadableStream<Uint8Array | string> | AsyncIterable<Uint8Array | string>;

/** Reads an exec's stdin source and sends it to the worker; stops (cancelling the
 * source) when the exec ends. */
export class StdinPump {
  error: SandboxError | undefined;
  #stopped = false;
  #reader: ReadableStreamDefaultReader<Uint8Array | string> | undefined;
  readonly #encoder = new TextEncoder();

  constructor(
    readonly stream: number,
    private readonly source: StdinSource,
    private readonly send: (message: ToWorker) => void,
  ) {}

  start(): void {
    void this.#pump().catch((err: unknown) => {
      if (!this.#stopped) this.fail(new SandboxError(`stdin: reading the source failed: ${err instanceof Error ? err.message : String(err)}`, 'EIO'));
    });
  }

  async #pump(): Promise<void> {
    const chunks = this.#chunks();
    for await (const chunk of chunks) {
      if (this.#stopped) return;
      const data = typeof chunk === 'string' ? this.#encoder.encode(chunk) : chunk;
      if (!(data instanceof Uint8Array)) throw new TypeError('stdin chunks must be strings or Uint8Array');
      if (data.length > 0) this.send({ type: 'stdin', stream: this.stream, data });
    }
    if (!this.#stopped) this.send({ type: 'stdin', stream: this.stream, end: true });
  }

  async *#chunks(): AsyncGenerator<Uint8Array | string> {
    if (typeof ReadableStream !== 'undefined' && this.source instanceof ReadableStream) {
      this.#reader = this.source.getReader();
      for (;;) {
        const { done, value } = await this.#reader.read();
        if (done) return;
        yield value;
      }
    }
    yield* this.source as AsyncIterable<Uint8Array | string>;
  }

  /** Stops reading, ends the stream (so a command waiting for input goes on), and
   * keeps `error` for the exec to reject with once it has ended. */
  fail(error: SandboxError): void {
    if (!this.#stopped) this.send({ type: 'stdin', stream: this.stream, end: true });
    this.error ??= error;
    this.stop();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    void this.#reader?.cancel().catch(() => {});
  }
}
