// What a host other than a browser page puts in place of the page's parts: the runtime's
// worker, the network and ui doors, and where program URLs point. Unset in a browser;
// the Node entry (node/index.ts) sets it before any sandbox is created. Internal: not
// exported from the package.

import type { NetBroker } from './net-broker.js';
import type { UiFrame } from './ui-frame.js';
import type { SandboxOptions } from './types.js';

/** The page's network door: makes a request the runtime's gate allowed. */
export type NetDoor = Pick<NetBroker, 'fetch' | 'dispose'>;

/** The page's ui door. */
export type UiDoor = Pick<UiFrame, 'run' | 'stopWaiting' | 'close'>;

export interface SandboxHost {
  /** Starts a runtime worker for a sandbox with these options (something that behaves
   * as a DOM `Worker`: `postMessage`, `terminate`, `onmessage`, `onerror`,
   * `onmessageerror`). Rejects with a `SandboxError` for options this host refuses. */
  startWorker(options: SandboxOptions): Promise<Worker>;
  /** The network door, given the injected header values by grant. */
  net(secrets: Map<string, string>[]): NetDoor;
  /** The ui door. */
  ui(): UiDoor;
  /** A program's URL as the worker fetches it. */
  programUrl(url: string): string;
}

/** The host in use, or null in a browser page. */
export let sandboxHost: SandboxHost | null = null;

export function setSandboxHost(host: SandboxHost | null): void {
  sandboxHost = host;
}
