// The messages between the page (Sandbox) and the runtime's dedicated worker.
// Every request that expects an answer carries an `id`; output chunks of an exec arrive
// as `output` messages with that exec's id before its `result`.

import type { Limits, Quota } from './types.js';

export type Request =
  | { type: 'init'; limits?: Limits; quota?: Quota }
  | { type: 'exec'; id: number; script: string }
  | { type: 'cancel' }
  | { type: 'listDir'; id: number; path: string }
  | { type: 'readFile'; id: number; path: string }
  | { type: 'writeFile'; id: number; path: string; data: Uint8Array };

export type Reply =
  | { type: 'ready' }
  | { type: 'initError'; message: string }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; message: string };
