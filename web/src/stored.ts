// The origin's stored sandboxes, outside any one of them: deleting one, and the browser's
// storage persistence and quota.

import { SandboxError } from './errors.js';

/** Deletes the stored sandbox `name`: its IndexedDB database and its OPFS files. */
export async function deleteStored(name: string): Promise<void> {
  const locks = (globalThis.navigator as Navigator & { locks?: LockManager }).locks;
  const run = async () => {
    await deleteDatabase(name);
    await deleteOpfsFiles(name);
  };
  if (!locks) return run();
  // A sandbox this page just terminated lets its lock go a moment later: wait briefly.
  try {
    await locks.request(`sandtab:${name}`, { signal: AbortSignal.timeout(3_000) }, run);
  } catch (err) {
    if ((err as DOMException)?.name === 'TimeoutError' || (err as DOMException)?.name === 'AbortError') {
      throw new SandboxError(`sandbox "${name}" is open in a tab; close it first`, 'EBUSY');
    }
    throw err;
  }
}

function deleteDatabase(name: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const request = indexedDB.deleteDatabase(`sandtab:${name}`);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(new SandboxError(`could not delete sandbox "${name}": ${request.error?.message}`));
    request.onblocked = () => reject(new SandboxError(`sandbox "${name}" is still open`, 'EBUSY'));
  });
}

/** An OPFS sandbox's log lives in the origin's private file system: sandtab/NAME. */
async function deleteOpfsFiles(name: string): Promise<void> {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.getDirectory !== 'function') return;
  // A worker just terminated may still hold its log's access handle for a moment after
  // its lock has gone (Chromium, on a busy machine): try again for up to 3 s.
  for (let deadline = Date.now() + 3_000; ; ) {
    try {
      const parent = await (await storage.getDirectory()).getDirectoryHandle('sandtab');
      await parent.removeEntry(name, { recursive: true });
      return;
    } catch (err) {
      const kind = (err as DOMException)?.name;
      if (kind === 'NotFoundError') return;
      if (kind === 'NoModificationAllowedError' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      throw new SandboxError(`could not delete the OPFS files of sandbox "${name}": ${(err as Error).message}`);
    }
  }
}

export async function requestPersistence(): Promise<boolean> {
  return (await globalThis.navigator.storage?.persist?.()) ?? false;
}

export async function storageEstimate(): Promise<{ usage: number; quota: number } | null> {
  const estimate = await globalThis.navigator.storage?.estimate?.();
  return estimate ? { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 } : null;
}
