// @ts-check
// The archive grid's thumbnails kept in this browser (IndexedDB, used by thumb-worker.js):
// under a key (its file's SHA-256, the core's build, the size), the PNGs drawn of that file
// with the files each open read (`deps`: where, relative to the file, and their SHA-256) —
// a few, since copies of one file beside other libraries are drawn differently — and when
// the key was last used. At most `limitBytes` of PNGs are kept: past that, the least recently used go first.
// A store the browser refuses, or one that fails, is no store: every thumbnail is drawn
// again, and never a wrong one shown.

const DB = 'relicview-thumbnails';
const STORE = 'thumbnails';

/** @typedef {{ path: string, sha: string }} Dep */
/** @typedef {{ png: Blob, deps: Dep[] }} Drawn */
/** @typedef {{ key: string, drawn: Drawn[], bytes: number, used: number }} Kept */

// Drawings of one file kept at most (each with other files beside it).
const DRAWINGS = 4;

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
    // The drawings kept under `key` (its last use now), or null.
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
    // Keep `png` under `key` with the files it was drawn from (the newest of DRAWINGS), then
    // drop the least recently used past the limit.
    /** @param {string} key @param {Blob} png @param {Dep[]} deps */
    async put(key, png, deps) {
      const s = await store('readwrite');
      if (!s) return;
      try {
        /** @type {Kept | undefined} */
        const old = await done(s.get(key));
        // (A drawing from the very same files replaces its older self.)
        const where = (/** @type {Dep[]} */ d) => d.map(x => `${x.path}=${x.sha}`).join('\n');
        const drawn = [{ png, deps }, ...(old?.drawn ?? []).filter(d => where(d.deps) !== where(deps))].slice(
          0,
          DRAWINGS,
        );
        const bytes = drawn.reduce((n, d) => n + d.png.size, 0);
        await done(s.put({ key, drawn, bytes, used: Date.now() }));
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
