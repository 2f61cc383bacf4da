// In one page, a name is one sandbox: the sandboxes this page has open or is opening, so
// that a second `Sandbox.create` of a name (a `<sandtab-terminal>`'s and the page's own)
// shares the first instead of failing on the name's lock.

import { sandboxHost } from './host.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxOptions } from './types.js';

/** The open or opening sandboxes, by name. */
export const openInPage = new Map<string, Promise<Sandbox>>();

/** The name `options` opens in `openInPage`, or null for one that is never shared:
 * those kept in memory are each their own, and under Node a name is per directory. */
export function pageKey(options: SandboxOptions): string | null {
  if (sandboxHost || options.storage === 'memory') return null;
  return options.name ?? 'default';
}

/** Whether `options` asks for nothing but a name and where it is kept. */
export function asksOnlyNameAndStorage(options: SandboxOptions): boolean {
  return Object.entries(options).every(([key, value]) => value === undefined || key === 'name' || key === 'storage');
}
