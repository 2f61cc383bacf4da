// One atomic IndexedDB write, on a connection of its own. Every request goes out at once
// and nothing listens to them: a failed request (the browser's quota) then aborts the
// whole transaction, and the promise rejects with the transaction's error. There is no
// explicit commit(): after one, Firefox commits the requests that did succeed.

// Firefox refuses writes to an origin at its quota with other errors than
// QuotaExceededError too (opening a connection: "InvalidStateError: A mutation operation
// was attempted on a database that did not allow mutations"). A failure while the
// origin's use is within 2% of its quota is reported as the quota, which it is.
async function asQuotaWhenFull(err) {
  if (err?.name === 'QuotaExceededError') return err;
  try {
    const { usage = 0, quota = 0 } = (await navigator.storage?.estimate?.()) ?? {};
    if (quota > 0 && usage >= quota * 0.98) {
      return new DOMException(`the origin uses ${usage} of its ${quota} bytes (the browser said: ${err?.name}: ${err?.message})`, 'QuotaExceededError');
    }
  } catch {
    // No estimate: the error stays what it was.
  }
  return err;
}

// The writer: a connection of its own, replaced when it goes bad.
export function openForWrites(name) {
  return opening(name).then(
    (db) => ({ name, db }),
    async (err) => {
      throw await asQuotaWhenFull(err);
    },
  );
}

export async function commitBatch(writer, stores, ops) {
  try {
    return await committing(writer.db, stores, ops);
  } catch (err) {
    if (err?.name !== 'InvalidStateError') throw await asQuotaWhenFull(err);
  }
  // A connection Firefox opened while the origin was full takes no writes even once
  // there is room again, and one closed for another tab's upgrade takes none either: a
  // fresh connection may. The batch is written again whole (nothing of the refused
  // transaction was kept: it threw before it could commit).
  try {
    writer.db.close();
    writer.db = await opening(writer.name);
    return await committing(writer.db, stores, ops);
  } catch (err) {
    throw await asQuotaWhenFull(err);
  }
}

function opening(name) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => {
      const db = request.result;
      // Let a deletion or an upgrade elsewhere go ahead.
      db.onversionchange = () => db.close();
      resolve(db);
    };
    // The database exists (the store opened it with its schema first): one that does not
    // was deleted meanwhile, and must not come back empty.
    request.onupgradeneeded = () => request.transaction.abort();
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new DOMException(`IndexedDB database ${name} is blocked`, 'InvalidStateError'));
  });
}

// `ops`: [store, 'put', key, value] | [store, 'delete', key] | [store, 'deleteRange', low, high]
// | [store, 'clear'].
function committing(db, stores, ops) {
  return new Promise((resolve, reject) => {
    let tx;
    try {
      tx = db.transaction(stores, 'readwrite');
    } catch (err) {
      reject(err);
      return;
    }
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new DOMException('the transaction was aborted', 'AbortError'));
    try {
      for (const [store, kind, a, b] of ops) {
        const objects = tx.objectStore(store);
        if (kind === 'put') objects.put(b, a);
        else if (kind === 'delete') objects.delete(a);
        else if (kind === 'deleteRange') objects.delete(IDBKeyRange.bound(a, b));
        else objects.clear();
      }
    } catch (err) {
      try {
        tx.abort();
      } catch {
        // Already finished: the abort handler or the rejection below reports it.
      }
      reject(err);
    }
  });
}

export function closeConnection(writer) {
  writer.db.close();
}
