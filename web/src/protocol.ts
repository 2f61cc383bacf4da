// The messages between the page (Sandbox) and the runtime's dedicated worker. What a
// sandbox is asked and answers (`Op`, `Reply`) is generated from the runtime's Rust types
// (generated/protocol.ts); these envelopes add ids, output chunks and the page's doors.
// Every message carries the protocol version: a page and a worker from different builds
// refuse each other (EPROTO) instead of misreading.

import type { NetRequest, NetResponse } from './net-broker.js';
import type { UiAction } from './ui-frame.js';
import type { ProgressEvent, WorkerOptions } from './types.js';
import type { Op, Reply } from './generated/protocol.js';

export { PROTOCOL_VERSION } from './generated/protocol.js';
export type { Op, Reply, ExecRequest, ExecResult, RuntimeError } from './generated/protocol.js';

/** Ops answered at once from memory, even while a command runs (the rest queue). */
export const QUERY_OPS = ['listDir', 'usage', 'info', 'snapshots', 'auditLog', 'toolDefinitions', 'complete', 'isComplete'] as const satisfies readonly Op['op'][];

export function isQuery(op: Op): boolean {
  return (QUERY_OPS as readonly string[]).includes(op.op);
}

/** The reply an op of kind `K` resolves to. */
export type ReplyOf<K extends Reply['reply']> = Extract<Reply, { reply: K }>;

export type ToWorker =
  // `module`: the runtime already compiled by an earlier worker of this page.
  // `hostCall`: whether the page answers tool calls (it always answers network requests).
  // `engineModules`: guest modules this page's workers compiled for the engine tier.
  | {
      type: 'init';
      v: number;
      options: WorkerOptions;
      module?: WebAssembly.Module;
      hostCall?: boolean;
      engineModules?: [string, WebAssembly.Module][];
    }
  // `stream`: send an exec's output as it is written (else it comes with the result).
  | { type: 'op'; v: number; id: number; op: Op; stream?: boolean }
  | { type: 'cancel' }
  // An exec's AbortSignal fired: cancel op `id` if it runs, or drop it if it waits.
  | { type: 'abort'; id: number }
  // As Ctrl-C: interrupts a program waiting for typed input that takes interrupts, or cancels.
  | { type: 'interrupt' }
  // Standard input of an exec that has `stdinStream: stream`: bytes, then `end`.
  | { type: 'stdin'; stream: number; data?: Uint8Array; end?: boolean }
  // The page's answer to a guest's host call.
  | { type: 'hostCallResult'; callId: number; value?: string; error?: string }
  // The page's answer to a network request (`error`: a code and a message).
  | { type: 'netFetchResult'; callId: number; value?: NetResponse; error?: { code: string; message: string } }
  // The page's answer to a ui action (`value`: an event's JSON, or null).
  | { type: 'uiResult'; callId: number; value?: string | null; error?: { code: string; message: string } };

export type FromWorker =
  // `module`: the compiled runtime, for the page to give the next worker it starts.
  | { type: 'ready'; module: WebAssembly.Module }
  | { type: 'initError'; message: string; code?: string }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { type: 'result'; id: number; value: Reply }
  | { type: 'error'; id: number; message: string; code?: string }
  // A stdin stream's chunk was refused (too much written and not read); its exec is cancelled.
  | { type: 'stdinError'; stream: number; message: string; code?: string }
  // The runtime panicked or trapped: every pending and later call fails with
  // SANDBOX_CRASHED, and the worker ends (see worker.ts `crash`).
  | { type: 'crashed'; message: string }
  | { type: 'progress'; event: ProgressEvent }
  // A guest module compiled for the engine tier, for the page to give later workers.
  | { type: 'engineModule'; key: string; module: WebAssembly.Module }
  // A guest asks the page to run a host call.
  | { type: 'hostCall'; callId: number; name: string; args: string }
  // The runtime asks the page to make a request its gate allowed.
  | { type: 'netFetch'; callId: number; request: NetRequest }
  // The runtime's ui door: show, wait for an event, close.
  | { type: 'ui'; callId: number; action: UiAction };
