// What an exec sends and gets back: its options as the protocol's request, the output
// callbacks as one listener, and the worker's reply as the `ExecResult` users see.

import type { ExecRequest, ReplyOf } from './protocol.js';
import type { ExecOptions, ExecResult } from './types.js';

export type OutputListener = (stream: 'stdout' | 'stderr', data: Uint8Array) => void;

/** The request for `script` with `options`, but for a stdin stream (the caller pumps
 * that). */
export function execRequest(script: string, options: ExecOptions): ExecRequest {
  const { guestLimits, session, fresh, maxOutputBytes, stdin, tty, env, cwd, timeoutMs } = options;
  const request: ExecRequest = { script };
  if (env !== undefined) request.env = env;
  if (cwd !== undefined) request.cwd = cwd;
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  if (guestLimits !== undefined) request.guestLimits = guestLimits;
  if (session !== undefined) request.session = session;
  if (fresh !== undefined) request.fresh = fresh;
  if (maxOutputBytes !== undefined) request.maxOutputBytes = maxOutputBytes;
  if (typeof stdin === 'string') request.stdin = new TextEncoder().encode(stdin);
  else if (stdin instanceof Uint8Array) request.stdin = stdin;
  if (tty === true) request.tty = true;
  return request;
}

/** One listener for the output callbacks `options` has, or undefined when it has none:
 * then output comes whole with the result, one message instead of one per chunk. */
export function outputListener(options: ExecOptions): OutputListener | undefined {
  const { onOutput, onStdout, onStderr } = options;
  if (onOutput === undefined && onStdout === undefined && onStderr === undefined) return undefined;
  const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  return (stream, data) => {
    onOutput?.(stream, data);
    const handler = stream === 'stdout' ? onStdout : onStderr;
    if (handler) handler(decoders[stream].decode(data, { stream: true }));
  };
}

/** Decodes whole outputs (a streaming decoder is made per listening exec). */
const UTF8 = new TextDecoder();

export function execResult(raw: ReplyOf<'exec'>): ExecResult {
  const text = (bytes: Uint8Array, note: string | null) => (bytes.length === 0 ? '' : UTF8.decode(bytes)) + (note ?? '');
  return {
    stdout: text(raw.stdout, raw.stdoutNote),
    stderr: text(raw.stderr, raw.stderrNote),
    exitCode: raw.exitCode,
    stdoutBytes: raw.stdout,
    stderrBytes: raw.stderr,
    stdoutTruncated: raw.stdoutTruncated,
    stderrTruncated: raw.stderrTruncated,
    stdoutTotal: raw.stdoutTotal,
    stderrTotal: raw.stderrTotal,
    saveError: raw.saveError,
    guestTier: raw.guestTier,
    stdinRead: raw.stdinRead ?? null,
    filesChanged: raw.filesChanged,
  };
}
