// `Sandbox.spawn`: an exec dressed as a process with streams, as WebContainer's.

import type { ExecOptions, ExecResult, SandboxProcess, SpawnOptions } from './types.js';

/** Runs `script` through `exec` with a writable stdin and the output on two
 * `ReadableStream`s; `kill()` aborts it as its `signal` would. */
export function spawnProcess(
  exec: (script: string, options: ExecOptions) => Promise<ExecResult>,
  script: string,
  options: SpawnOptions,
): SandboxProcess {
  const kill = new AbortController();
  const given = options.signal;
  const signal = given ? AbortSignal.any([given, kill.signal]) : kill.signal;
  let stdoutSink!: ReadableStreamDefaultController<Uint8Array>;
  let stderrSink!: ReadableStreamDefaultController<Uint8Array>;
  const stdout = new ReadableStream<Uint8Array>({ start: (c) => void (stdoutSink = c) });
  const stderr = new ReadableStream<Uint8Array>({ start: (c) => void (stderrSink = c) });
  const input = new TransformStream<Uint8Array | string, Uint8Array | string>();
  const result = exec(script, {
    ...options,
    signal,
    stdin: input.readable,
    onOutput: (stream, bytes) => (stream === 'stdout' ? stdoutSink : stderrSink).enqueue(bytes),
  });
  const end = (err?: unknown) => {
    for (const sink of [stdoutSink, stderrSink]) {
      try {
        if (err === undefined) sink.close();
        else sink.error(err);
      } catch {
        // Already closed or cancelled by its reader.
      }
    }
  };
  // When it ends, writes to its stdin reject (exec stops reading the stream).
  result.then(() => end(), end);
  return {
    stdout,
    stderr,
    stdin: input.writable,
    result,
    exit: result.then((done) => done.exitCode),
    kill: () => kill.abort(),
  };
}
