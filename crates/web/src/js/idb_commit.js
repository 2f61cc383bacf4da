// One atomic IndexedDB write, on a connection of its own. Every request goes out at once
// and nothing listens to them: a failed request (the browser's quota) then aborts the
// whole transaction, and the promise rejects with the transaction's error. There is no
// explicit commit(): after one, Firefox commits the requests that did succeed.

export function openForWrites(name) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => {
      const db = request.result;
      // Let a deletion or an upgrade elsewhere go ahead.
      db.onversionchange = () => db.close();
      resolve(db);
    };
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new DOMException(`IndexedDB database ${name} is blocked`, 'InvalidStateError'));
  });
}

// `ops`: [store, 'put', key, value] | [store, 'delete', key] | [store, 'deleteRange', low, high]
// | [store, 'clear'].
export function commitBatch(db, stores, ops) {
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

export function closeConnection(db) {
  db.close();
}
