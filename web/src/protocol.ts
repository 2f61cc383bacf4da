// The messages between the page (Sandbox) and the runtime's dedicated worker.
// Every request that expects an answer carries an `id`; output chunks of an exec arrive
// as `output` messages with that exec's id before its `result`.

import type { NetRequest, NetResponse } from './net-broker.js';
import type { UiAction } from './ui-frame.js';
import type { GuestLimits, ProgressEvent, WorkerOptions } from './types.js';

/** What an exec request carries besides its script (the callbacks stay on the page). */
export interface ExecRequestOptions {
  guestLimits?: GuestLimits;
  session?: string;
  fresh?: boolean;
  maxOutputBytes?: number;
}

/** Sandbox methods the page may call through a `call` request (all run in order). */
export const CALLS = [
  'readFile',
  'writeFile',
  'flush',
  'snapshot',
  'restore',
  'deleteSnapshot',
  'fork',
  'exportTar',
  'importTar',
  'fsck',
  'closeSession',
  'sessionNames',
  'callTool',
  'readText',
  'writeText',
  'editFile',
  'fetch',
  'ui',
  'recording',
  'replay',
] as const;
export type CallName = (typeof CALLS)[number];

/** Methods answered at once, even while a command runs (they only read memory). */
export const QUERIES = ['listDir', 'usage', 'info', 'snapshots', 'auditLog', 'toolDefinitions'] as const;
export type QueryName = (typeof QUERIES)[number];

export type Request =
  // `module`: the runtime already compiled by an earlier worker of this page.
  // `hostCall`: whether the page answers tool calls (it always answers network requests).
  | { type: 'init'; options: WorkerOptions; module?: WebAssembly.Module; hostCall?: boolean }
  | { type: 'exec'; id: number; script: string; options: ExecRequestOptions }
  // The page's answer to a guest's host call.
  | { type: 'hostCallResult'; callId: number; value?: string; error?: string }
  // The page's answer to a network request (`error`: a code and a message).
  | { type: 'netFetchResult'; callId: number; value?: NetResponse; error?: { code: string; message: string } }
  // The page's answer to a ui action (`value`: an event's JSON, or null).
  | { type: 'uiResult'; callId: number; value?: string | null; error?: { code: string; message: string } }
  | { type: 'cancel' }
  | { type: 'call'; id: number; method: CallName; args: unknown[] }
  | { type: 'query'; id: number; method: QueryName; args: unknown[] };

export type Reply =
  // `module`: the compiled runtime, for the page to give the next worker it starts.
  | { type: 'ready'; module: WebAssembly.Module }
  | { type: 'initError'; message: string; code?: string }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; message: string; code?: string }
  // The runtime panicked or trapped: every pending and later call fails with
  // SANDBOX_CRASHED, and the worker ends (see worker.ts `crash`).
  | { type: 'crashed'; message: string }
  | { type: 'progress'; event: ProgressEvent }
  // A guest asks the page to run a host call.
  | { type: 'hostCall'; callId: number; name: string; args: string }
  // The runtime asks the page to make a request its gate allowed.
  | { type: 'netFetch'; callId: number; request: NetRequest }
  // The runtime's ui door: show, wait for an event, close.
  | { type: 'ui'; callId: number; action: UiAction };
