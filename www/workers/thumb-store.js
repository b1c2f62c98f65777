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

// The longest the browser's store may take to answer one request: past it, the request is
// taken as failed (a store that stops answering mid-way must not stop the thumbnails).
const ANSWER_MS = 5_000;

/** @template T @param {IDBRequest<T>} request @returns {Promise<T>} */
function done(request) {
  return new Promise((resolve, reject) => {
    const late = setTimeout(
      () => reject(new Error(`the browser's store did not answer in ${ANSWER_MS / 1000} s`)),
      ANSWER_MS,
    );
    request.onsuccess = () => {
      clearTimeout(late);
      resolve(request.result);
    };
    request.onerror = () => {
      clearTimeout(late);
      reject(request.error);
    };
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
  let [hits, stored, evicted, refused] = [0, 0, 0, /** @type {string | null} */ (null)];
  /** @type {Promise<IDBDatabase | null>} */
  const db =
    typeof indexedDB === 'undefined'
      ? Promise.resolve(null).then(() => {
          refused = 'this browser gives the page no IndexedDB';
          return null;
        })
      : openDb().catch(err => {
          refused = `the browser's store cannot be opened: ${err instanceof Error ? err.message : String(err)}`;
          return null;
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
      try {
        const s = await store('readwrite');
        if (!s) return null;
        /** @type {Kept | undefined} */
        const found = await done(s.get(key));
        if (!found) return null;
        s.put({ ...found, used: Date.now() });
        hits++;
        return found;
      } catch (err) {
        refused = err instanceof Error ? err.message : String(err);
        return null;
      }
    },
    // Keep `png` under `key` with the files it was drawn from (the newest of DRAWINGS), then
    // drop the least recently used past the limit.
    /** @param {string} key @param {Blob} png @param {Dep[]} deps */
    async put(key, png, deps) {
      try {
        const s = await store('readwrite');
        if (!s) return;
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
      const all = await done(s.index('used').getAll()).catch(err => {
        refused = err instanceof Error ? err.message : String(err);
        return [];
      });
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
      /** @type {Kept[]} */
      const all = await store('readonly')
        .then(s => (s ? done(s.getAll()) : []))
        .catch(err => {
          refused = err instanceof Error ? err.message : String(err);
          return [];
        });
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
