// @ts-check
// Decoded entries of 7z archives kept in this browser's Origin Private File System, so that
// a second open of a large solid archive — another day, after a reload — reads an entry from
// disk instead of decoding its block from the start again. Used by the container worker
// only: the core reads the store synchronously, and only a worker may hold the synchronous
// access handles this needs.
//
// One archive (its name, size and date) is two files under relicview-decoded/: `KEY.data`,
// the entries' bytes one after another, and `KEY.index`, a record per entry (its index in
// the archive, where its bytes start and how many: three little-endian u64s), written after
// its bytes so that a record never names bytes that were not written. The core checks each
// entry it gets back (its size and CRC), so a torn or stale store costs a decode, not a
// wrong file. An archive keeps at most ARCHIVE_CAP bytes and all of them TOTAL_CAP, the
// stores written to longest ago removed first; the browser's "clear site data" removes it all.

const FOLDER = 'relicview-decoded';
const ARCHIVE_CAP = 2 ** 30;
const TOTAL_CAP = 2 ** 31;
const RECORD = 24;

/** @type {{ hits: number, bytesRead: number, stored: number, bytesWritten: number, refused: string | null }} */
export const stats = { hits: 0, bytesRead: 0, stored: 0, bytesWritten: 0, refused: null };

// A store for `file` (listed as `name`), or null where the browser has none to give (no
// OPFS, another tab holding this archive's store, no room).
/** @param {string} name @param {File} file */
export async function openStore(name, file) {
  try {
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle(FOLDER, { create: true });
    const key = await keyOf(`${name}\n${file.size}\n${file.lastModified}`);
    await keepWithinCap(folder, key);
    const data = await (await folder.getFileHandle(`${key}.data`, { create: true })).createSyncAccessHandle();
    let index;
    try {
      index = await (await folder.getFileHandle(`${key}.index`, { create: true })).createSyncAccessHandle();
    } catch (err) {
      data.close();
      throw err;
    }
    return new Store(data, index);
  } catch (err) {
    stats.refused = err instanceof Error && err.message ? err.message : String(err);
    return null;
  }
}

/** @implements {DecodedStore} */
class Store {
  /** @param {FileSystemSyncAccessHandle} data @param {FileSystemSyncAccessHandle} index */
  constructor(data, index) {
    this.data = data;
    this.index = index;
    /** @type {Map<number, { at: number, length: number }>} */
    this.entries = new Map(); // entry index → {at, length}
    this.broken = false;
    /** @type {{ entry: number, at: number, length: number } | null} */
    this.pending = null; // the entry being written: {entry, at, length}
    const dataSize = data.getSize();
    const records = new DataView(new ArrayBuffer(index.getSize() - (index.getSize() % RECORD)));
    index.read(records, { at: 0 });
    // Records are read up to the first that names bytes not written (a tab closed while
    // writing); the next record is written over it.
    this.indexEnd = 0;
    for (let at = 0; at < records.byteLength; at += RECORD) {
      const word = (/** @type {number} */ o) => Number(records.getBigUint64(at + o, true));
      const [entry, start, length] = [word(0), word(8), word(16)];
      if (start + length > dataSize) break;
      this.entries.set(entry, { at: start, length });
      this.indexEnd = at + RECORD;
    }
  }

  /** @param {number} entry */
  has(entry) {
    return this.entries.has(entry);
  }

  /** @param {number} entry */
  get(entry) {
    const where = this.entries.get(entry);
    if (!where) return undefined;
    const bytes = new Uint8Array(where.length);
    if (this.data.read(bytes, { at: where.at }) !== where.length) return undefined;
    stats.hits += 1;
    stats.bytesRead += where.length;
    return bytes;
  }

  // Entry `entry`'s bytes from `offset` on, in order; `last` ends it, and only then is its
  // record written (a piece out of order, or past the cap, drops the entry).
  /** @param {number} entry @param {number} offset @param {Uint8Array} bytes @param {boolean} last */
  put(entry, offset, bytes, last) {
    if (this.broken || this.entries.has(entry)) return;
    try {
      if (offset === 0) this.pending = { entry, at: this.data.getSize(), length: 0 };
      const p = this.pending;
      if (!p || p.entry !== entry || p.length !== offset || p.at + offset + bytes.length > ARCHIVE_CAP) {
        this.pending = null;
        return;
      }
      if (bytes.length && this.data.write(bytes, { at: p.at + offset }) !== bytes.length)
        throw new Error('a short write');
      p.length += bytes.length;
      if (!last) return;
      this.pending = null;
      this.data.flush();
      const record = new DataView(new ArrayBuffer(RECORD));
      [entry, p.at, p.length].forEach((v, k) => record.setBigUint64(k * 8, BigInt(v), true));
      this.index.write(record, { at: this.indexEnd });
      this.index.flush();
      this.indexEnd += RECORD;
      this.entries.set(entry, { at: p.at, length: p.length });
      stats.stored += 1;
      stats.bytesWritten += p.length;
    } catch (err) {
      // Out of room (the browser's quota) or the disk failed: this archive stops storing.
      this.broken = true;
      stats.refused = err instanceof Error && err.message ? err.message : String(err);
    }
  }

  close() {
    this.data.close();
    this.index.close();
  }
}

/** @param {string} text */
async function keyOf(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest).slice(0, 12)].map(b => b.toString(16).padStart(2, '0')).join('');
}

// Remove the stores written to longest ago until the others leave room for this one to grow
// to ARCHIVE_CAP within TOTAL_CAP. One held open by another tab cannot be removed: passed over.
/** @param {FileSystemDirectoryHandle} folder @param {string} keep */
async function keepWithinCap(folder, keep) {
  const stores = new Map(); // key → {bytes, used}
  for await (const [name, handle] of folder.entries()) {
    const key = name.replace(/\.(data|index)$/, '');
    const file = handle instanceof FileSystemFileHandle ? await handle.getFile().catch(() => null) : null;
    const s = stores.get(key) ?? { bytes: 0, used: 0 };
    if (file) {
      s.bytes += file.size;
      s.used = Math.max(s.used, file.lastModified);
    }
    stores.set(key, s);
  }
  const others = [...stores.entries()].filter(([k]) => k !== keep);
  let total = others.reduce((n, [, s]) => n + s.bytes, 0);
  const oldestFirst = others.sort((a, b) => a[1].used - b[1].used);
  for (const [key, s] of oldestFirst) {
    if (total <= TOTAL_CAP - ARCHIVE_CAP) break;
    try {
      await folder.removeEntry(`${key}.data`);
      await folder.removeEntry(`${key}.index`);
      total -= s.bytes;
    } catch {
      // Held by another tab: left alone.
    }
  }
}
