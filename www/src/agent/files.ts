// Which files a step changed: a listing of the sandbox's files (path, size, time of the
// last change) before and after, compared. Bounded, so a huge tree costs a fixed time.

import type { Sandbox } from 'sandtab';

/** Entries listed at most; past this, changes further down are not reported. */
const SCAN_LIMIT = 5_000;
/** Trees that are not the agent's work (sandtab's own Python support writes its
 * bytecode cache under /opt/sandtab when CPython first runs). */
const SKIPPED = new Set(['/proc', '/dev', '/sys', '/opt/sandtab']);

export type FileListing = Map<string, string>;

export async function scanFiles(sandbox: Sandbox, root = '/'): Promise<FileListing> {
  const listing: FileListing = new Map();
  const pending = [root];
  while (pending.length > 0 && listing.size < SCAN_LIMIT) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await sandbox.listDir(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = `${dir === '/' ? '' : dir}/${entry.name}`;
      if (entry.kind === 'dir') {
        if (!SKIPPED.has(path)) pending.push(path);
      } else {
        listing.set(path, `${entry.kind} ${entry.size} ${entry.modified}`);
      }
    }
  }
  return listing;
}

/** `+ path`, `~ path` and `- path` for what was added, changed and removed, by path. */
export function changedFiles(before: FileListing, after: FileListing): string[] {
  const changes: [string, string][] = [];
  for (const [path, stamp] of after) {
    const old = before.get(path);
    if (old === undefined) changes.push([path, '+']);
    else if (old !== stamp) changes.push([path, '~']);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push([path, '-']);
  return changes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, mark]) => `${mark} ${path}`);
}
