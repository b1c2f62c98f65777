// @ts-check
// The archive grid's thumbnails kept in this browser (IndexedDB, used by thumb-worker.js):
// each PNG under its key (its file's SHA-256, the core's build, the size), with the files
// its open read (`deps`: where, relative to the file, and their SHA-256) and when it was last
// used. At most `limitBytes` of PNGs are kept: past that, the least recently used go first.
// A store the browser refuses, or one that fails, is no store: every thumbnail is drawn
// again, and never a wrong one shown.

const DB = 'relicview-thumbnails';
const STORE = 'thumbnails';

/** @typedef {{ path: string, sha: string }} Dep */
/** @typedef {{ key: string, png: Blob, deps: Dep[], bytes: number, used: number }} Kept */

/** @template T @param {IDBRequest<T>} request @returns {Promise<T>} */
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** @returns {Promise<IDBDatabase>} */
function openDb() {
  const request = indexedDB.open(DB, 1);
  request.onupgradeneeded = () => {
    const store = request.result.createObjectStore(STORE, { keyPath: 'key' });
    store.createIndex('used', 'used');
  };
  return done(request);
}

/** @param {number} limitBytes */
export function openStore(limitBytes) {
  /** @type {Promise<IDBDatabase | null>} */
  const db = (typeof indexedDB === 'undefined' ? Promise.resolve(null) : openDb()).catch(() => null);
  let [hits, stored, evicted, refused] = [0, 0, 0, /** @type {string | null} */ (null)];
  db.then(d => {
    if (!d) refused = 'this browser gives the page no IndexedDB';
  });
  /** @param {IDBTransactionMode} mode */
  const store = async mode => {
    const d = await db;
    return d ? d.transaction(STORE, mode).objectStore(STORE) : null;
  };
  return {
    // The thumbnail kept under `key` (its last use now), or null.
    /** @param {string} key @returns {Promise<Kept | null>} */
    async get(key) {
      const s = await store('readwrite');
      if (!s) return null;
      /** @type {Kept | undefined} */
      const found = await done(s.get(key));
      if (!found) return null;
      s.put({ ...found, used: Date.now() });
      hits++;
      return found;
    },
    // Keep `png` under `key`, then drop the least recently used past the limit.
    /** @param {string} key @param {Blob} png @param {Dep[]} deps */
    async put(key, png, deps) {
      const s = await store('readwrite');
      if (!s) return;
      try {
        await done(s.put({ key, png, deps, bytes: png.size, used: Date.now() }));
        stored++;
      } catch (err) {
        refused = err instanceof Error ? err.message : String(err);
        return;
      }
      await this.evict();
    },
    // Drop the least recently used thumbnails until the rest fit the limit.
    async evict() {
      const s = await store('readwrite');
      if (!s) return;
      /** @type {Kept[]} */
      const all = await done(s.index('used').getAll());
      let total = all.reduce((n, k) => n + k.bytes, 0);
      for (const k of all) {
        if (total <= limitBytes) break;
        s.delete(k.key);
        total -= k.bytes;
        evicted++;
      }
    },
    // {kept, bytes, hits, stored, evicted, refused} since the worker started.
    async stats() {
      const s = await store('readonly');
      /** @type {Kept[]} */
      const all = s ? await done(s.getAll()) : [];
      return {
        kept: all.length,
        bytes: all.reduce((n, k) => n + k.bytes, 0),
        hits,
        stored,
        evicted,
        refused,
      };
    },
  };
}
