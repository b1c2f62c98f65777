// @ts-check
// Lists and reads containers — ZIP files, ISO images, disc rips — off the page's thread
// (see containers.js). A worker may read a File synchronously (FileReaderSync over
// File.slice), which suits the core's readers: only the directory and the entries asked for
// are ever read, never the whole container.
// The containers module (crates/web-containers), compiled by the page (modules.js).
import init, { ContainerReader, keepsDecoded } from '../../pkg/relicview_containers.js';
import { openStore, stats as cacheStats } from './decoded-cache.js';

/** @type {Promise<unknown> | null} */
let booted = null;

// Blocks decoded from their start by every reader of this worker (a solid 7z's).
const blocksDecoded = () => [...readers.values()].reduce((n, r) => n + r.blocksDecoded(), 0);
const readers = new Map(); // container id → ContainerReader
const stores = new Map(); // container id → its store of decoded entries (a 7z's)

// A progress listener for job `job` that posts at most every 50 ms (the calls it hears run
// in one call into the module, many times a second).
/** @param {number} job */
function throttled(job) {
  let said = -Infinity;
  return (/** @type {number} */ done, /** @type {number} */ total) => {
    const now = performance.now();
    if (now - said < 50) return;
    said = now;
    self.postMessage({ type: 'progress', job, done, total });
  };
}

self.onmessage = async e => {
  const m = e.data;
  if (m.type === 'init') {
    booted = init({ module_or_path: m.module });
    return;
  }
  await booted;
  try {
    if (m.type === 'open') {
      const sync = new FileReaderSync();
      const file = m.file;
      const read = (/** @type {number} */ offset, /** @type {number} */ length) =>
        new Uint8Array(sync.readAsArrayBuffer(file.slice(offset, offset + length)));
      // How far the listing got, a few times a second (it runs in one call).
      const progress = throttled(m.job);
      // A 7z keeps what it decodes in this browser's storage (decoded-cache.js).
      const store =
        !m.mode && keepsDecoded(read(0, Math.min(file.size, 32))) ? await openStore(m.name, file) : null;
      if (store) stores.set(m.id, store);
      const reader = new ContainerReader(
        m.name,
        read,
        file.size,
        m.mode || '',
        m.start || 0,
        progress,
        store ?? undefined,
      );
      readers.set(m.id, reader);
      self.postMessage({
        type: 'listed',
        job: m.job,
        entries: reader.entries(),
        problems: reader.problems(),
        notes: reader.notes(),
        cache: { ...cacheStats, blocksDecoded: blocksDecoded() },
      });
    } else if (m.type === 'read') {
      const reader = readers.get(m.id);
      // A read that takes long (a 7z's solid block) says what it does and how far it got.
      const what = reader.readNote(m.container, m.index);
      let said = -Infinity;
      const progress = (/** @type {number} */ done, /** @type {number} */ total) => {
        const now = performance.now();
        if (!what || now - said < 50) return;
        said = now;
        self.postMessage({ type: 'progress', job: m.job, what, done, total });
      };
      if (what) self.postMessage({ type: 'progress', job: m.job, what, done: 0, total: 0 });
      const bytes = reader.readReporting(m.container, m.index, progress);
      self.postMessage(
        { type: 'read', job: m.job, bytes, cache: { ...cacheStats, blocksDecoded: blocksDecoded() } },
        [bytes.buffer],
      );
    } else if (m.type === 'warm') {
      // Every entry of a solid 7z decoded once into its store, before Export all reads them.
      const decoded = readers.get(m.id).warm(throttled(m.job));
      self.postMessage({
        type: 'warmed',
        job: m.job,
        decoded,
        cache: { ...cacheStats, blocksDecoded: blocksDecoded() },
      });
    } else if (m.type === 'heads') {
      // Each entry's first 16 bytes, or why not (one entry's fault is its own).
      const heads = [];
      const errors = [];
      for (const h of m.items) {
        try {
          heads.push(readers.get(h.id).head(h.container, h.index, 16));
          errors.push(null);
        } catch (err) {
          heads.push(null);
          errors.push(err instanceof Error && err.message ? err.message : String(err));
        }
      }
      self.postMessage(
        { type: 'heads', job: m.job, heads, errors },
        heads.filter(Boolean).map(b => b.buffer),
      );
    } else if (m.type === 'close') {
      readers.get(m.id)?.free();
      readers.delete(m.id);
      stores.get(m.id)?.close();
      stores.delete(m.id);
    }
  } catch (err) {
    self.postMessage({
      type: 'error',
      job: m.job,
      message: err instanceof Error && err.message ? err.message : String(err),
    });
  }
};
