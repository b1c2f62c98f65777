// @ts-check
// Containers among the files dropped or chosen — a ZIP, an ISO image, a .bin rip, a .cue
// with its .bin — listed by a worker (container-worker.js) and put in the listing as folders
// of their own name: `GAME.zip/BTDAVE/VIDEO/CUBE.BGF`, `FF7.cue/FIELD/MD1_1.BSX`. Each entry
// is read through the worker when it is opened. Everything from a container reaches the
// page as text. The core tells a container by its name and bytes; the worker reads it with
// the containers module (modules.js), loaded the first time a container is found.

import { core, message } from '../ground/state.js';
import { assetUrl } from '../ground/assets.js';
import { bufferOf } from './hosted.js';
import { containersModule } from '../ground/modules.js';

// What listing the containers found wrong without stopping (a name listed twice, an
// extent past the end), as messages naming the container.
/** @type {string[]} */
export let containerProblems = [];
// What listing said of a container that is not wrong (a self-extracting program before
// the archive), as messages naming the container.
/** @type {string[]} */
export let containerNotes = [];

// Names worth a look at their first and last bytes (a zip is told by its bytes, whatever
// its name; a self-extracting program by the zip at its end).
const CANDIDATE = /\.(zip|7z|iso|bin|img|chd|cue|exe|com)$/i;

// The container a path lies inside (`GAME/demo.7z` of `GAME/demo.7z/DEMO/X.BGF`): its first
// folder named as a container is, else null.
/** @param {string | null | undefined} path */
export function containerOfPath(path) {
  const parts = String(path || '').split('/');
  const at = parts.slice(0, -1).findIndex(p => CANDIDATE.test(p));
  return at < 0 ? null : parts.slice(0, at + 1).join('/');
}
const HEAD_BATCH = 16;

/**
 * What the container worker answers (container-worker.js).
 * @typedef {{ path: string, size: number, container: number, index: number, costly?: boolean, written?: string }} ListedEntry
 * @typedef {{ resolve: (m: any) => void, reject: (err: Error) => void, progress: ((...steps: any[]) => void) | null }} Job
 * @typedef {{ id: number, container: number, index: number, resolve: (head: ArrayBuffer) => void, reject: (err: unknown) => void }} HeadAsked
 */

class ContainerWorker {
  /** @param {WebAssembly.Module} module the containers module */
  constructor(module) {
    this.worker = new Worker(assetUrl('containerWorker'), { type: 'module' });
    this.worker.postMessage({ type: 'init', module });
    /** @type {Map<number, Job>} */
    this.jobs = new Map();
    this.lastJob = 0;
    this.lastId = 0;
    /** @type {HeadAsked[]} */
    this.heads = []; // head requests not yet sent: {id, container, index, resolve, reject}
    this.headsInFlight = false;
    this.worker.onmessage = e => {
      const job = this.jobs.get(e.data.job);
      if (!job) return;
      if (e.data.type === 'progress') {
        // A listing's progress is (done, total); a read's is (what, done, total).
        if (e.data.what !== undefined) job.progress?.(e.data.what, e.data.done, e.data.total);
        else job.progress?.(e.data.done, e.data.total);
        return;
      }
      this.jobs.delete(e.data.job);
      if (e.data.type === 'error') job.reject(new Error(e.data.message));
      else job.resolve(e.data);
    };
    this.worker.onerror = e => {
      e.preventDefault();
      for (const job of this.jobs.values())
        job.reject(new Error(`the container worker stopped: ${e.message || 'script error'}`));
      this.jobs.clear();
    };
  }

  /** @param {object} message @param {Transferable[]} [transfer] @param {Job['progress']} [progress] @returns {Promise<any>} */
  ask(message, transfer = [], progress = null) {
    const job = ++this.lastJob;
    return new Promise((resolve, reject) => {
      this.jobs.set(job, { resolve, reject, progress });
      this.worker.postMessage({ ...message, job }, transfer);
    });
  }

  // → {id, entries: [{path, size, container, index}], problems, notes}; `progress(done, total)`
  // hears how far the listing got.
  /** @param {string} name @param {File} file @param {string} mode @param {number} start @param {(done: number, total: number) => void} progress @returns {Promise<{ id: number, entries: ListedEntry[], problems: string[], notes: string[] }>} */
  async open(name, file, mode, start, progress) {
    const id = ++this.lastId;
    const listed = await this.ask({ type: 'open', id, name, file, mode, start }, [], progress);
    cacheStats = listed.cache;
    return { id, entries: listed.entries, problems: listed.problems, notes: listed.notes };
  }

  // `progress(what, done, total)` hears a long read's steps (a 7z block decoded).
  /** @param {number} id @param {number} container @param {number} index @param {ReadProgress | null} [progress] @returns {Promise<ArrayBuffer>} */
  read(id, container, index, progress = null) {
    return this.ask({ type: 'read', id, container, index }, [], progress).then(m => {
      cacheStats = m.cache;
      return m.bytes.buffer;
    });
  }

  /** @param {number} id */
  close(id) {
    this.worker.postMessage({ type: 'close', id });
  }

  // Decode every entry of listing `id` that costs a decode of others (a solid 7z's) once,
  // into its store. → how many were decoded. `progress(done, total)`.
  /** @param {number} id @param {((done: number, total: number) => void) | null} [progress] @returns {Promise<number>} */
  warm(id, progress = null) {
    return this.ask({ type: 'warm', id }, [], progress).then(m => {
      cacheStats = m.cache;
      return m.decoded;
    });
  }

  // The first 16 bytes, for the entry's kind. Asked in batches of HEAD_BATCH, one batch in
  // the worker at a time, so an entry the user opens waits behind one batch at most, not
  // behind the whole listing's typing.
  /** @param {number} id @param {number} container @param {number} index @returns {Promise<ArrayBuffer>} */
  head(id, container, index) {
    return new Promise((resolve, reject) => {
      this.heads.push({ id, container, index, resolve, reject });
      this.pumpHeads();
    });
  }

  pumpHeads() {
    if (this.headsInFlight || this.heads.length === 0) return;
    const batch = this.heads.splice(0, HEAD_BATCH);
    this.headsInFlight = true;
    this.ask({ type: 'heads', items: batch.map(({ id, container, index }) => ({ id, container, index })) })
      .then(
        (/** @type {{ heads: (Uint8Array | null)[], errors: string[] }} */ m) =>
          batch.forEach((h, k) =>
            m.heads[k]
              ? h.resolve(bufferOf(/** @type {Uint8Array} */ (m.heads[k])))
              : h.reject(new Error(m.errors[k])),
          ),
        err => batch.forEach(h => h.reject(err)),
      )
      .finally(() => {
        this.headsInFlight = false;
        this.pumpHeads();
      });
  }
}

/** @type {ContainerWorker | null} */
let shared = null;
// The containers of the archive listed last, closed when the next is listed: [{worker, id}].
/** @type {{ worker: ContainerWorker, id: number }[]} */
let lastListing = [];
// What the container worker's store of decoded 7z entries has done (decoded-cache.js):
// {hits, bytesRead, stored, bytesWritten, refused}; null before a container is opened.
/** @type {Record<string, number> | null} */
let cacheStats = null;

// Every entry of the dropped containers that would cost a decode of others (a solid 7z's)
// decoded once, block by block, into the browser's store, so that reading them one by one
// (Export all) decodes each block once rather than once an entry. `progress(done, total)`.
// → how many entries were decoded.
/** @param {(done: number, total: number) => void} [progress] */
export async function warmContainers(progress = () => {}) {
  let decoded = 0;
  for (const { worker, id } of lastListing) decoded += await worker.warm(id, progress);
  return decoded;
}

export function decodedCacheStats() {
  return cacheStats && { ...cacheStats };
}

// `entries` with every container replaced by its entries; a container that cannot be opened
// stays a file, marked failed with why. `progress(label, done, total)` says what is being
// listed and how far it got (total 0: not known).
/** @param {Entries} entries @param {(what: string, done?: number, total?: number) => void} [progress] @returns {Promise<Entry[]>} */
export async function expandContainers(entries, progress = () => {}) {
  // A hosted index's findings (entries it could not read, rows the page refused) first.
  containerProblems = Array.isArray(entries.problems) ? entries.problems.slice() : [];
  containerNotes = [];
  // The last archive's containers let go (a 7z's store of decoded entries is held open
  // while its reader lives; a CHD's own worker ends).
  for (const { worker, id } of lastListing) {
    if (worker === shared) worker.close(id);
    else worker.worker.terminate();
  }
  lastListing = [];
  const candidates = entries.filter(e => e.file && CANDIDATE.test(e.path));
  if (candidates.length === 0) return entries;
  const byPath = new Map(entries.map(e => [e.path.toLowerCase(), e]));
  /** @type {Set<Entry>} */
  const replaced = new Set();
  /** @type {Entry[]} */
  const added = [];
  /** @type {string[]} */
  const problems = [];
  for (const e of candidates) {
    if (replaced.has(e)) continue;
    let file = /** @type {File} */ (e.file);
    let mode = '';
    let start = 0;
    try {
      if (core.isCueSheet(e.path)) {
        // (The core's rule, as every reader of a sheet keeps it: its size, its track, the
        // file beside it.)
        const sheet = file;
        const track = await core.cueSheet(e.path, e.size, () => sheet.arrayBuffer());
        const bin = byPath.get(track.beside.toLowerCase());
        if (!bin?.file) throw new Error(track.notBeside);
        replaced.add(bin);
        file = bin.file;
        ({ mode, start } = track);
      }
      let head = new Uint8Array(await file.slice(0, core.containerFirstBytes()).arrayBuffer());
      // A program may be a self-extracting 7z: the core wants more of it to find the archive.
      const wanted = Math.min(file.size, core.containerHead(head));
      if (wanted > head.length) head = new Uint8Array(await file.slice(0, wanted).arrayBuffer());
      const tailBytes = Math.min(file.size, core.containerTail());
      const tail = mode
        ? new Uint8Array(0)
        : new Uint8Array(await file.slice(file.size - tailBytes).arrayBuffer());
      const kind = mode ? 'cue' : core.containerKind(e.path, head, tail);
      if (!kind) continue;
      progress(`listing ${e.path}…`);
      let module;
      try {
        module = await containersModule();
      } catch (err) {
        throw new Error(`${e.path}: not opened: ${message(err)}`);
      }
      // A CHD gets a worker of its own: the crate that reads it can trap on a hostile image,
      // which must not take the other containers' readers with it.
      const worker = kind === 'chd' ? new ContainerWorker(module) : (shared ||= new ContainerWorker(module));
      const listed = await worker.open(e.path, file, mode, start, (done, total) =>
        progress(`listing ${e.path}…`, done, total),
      );
      lastListing.push({ worker, id: listed.id });
      // Nothing listed, for its problems: not a folder but a file that failed (as serve says).
      if (!listed.entries.length && listed.problems.length) throw new Error(String(listed.problems[0]));
      problems.push(...listed.problems);
      containerNotes.push(...listed.notes);
      replaced.add(e);
      for (const x of listed.entries) {
        const read = (/** @type {ReadProgress | undefined} */ progress) =>
          worker.read(listed.id, x.container, x.index, progress);
        // Typed by content after the listing shows, as a folder's files are.
        // (An entry of a solid 7z is typed, or its name confirmed, by its content when opened:
        // its head would cost decoding the block before it.)
        added.push({
          path: x.path,
          size: x.size,
          read,
          head: () => worker.head(listed.id, x.container, x.index),
          confirmOnOpen: x.costly,
          writtenAs: x.written,
        });
      }
    } catch (err) {
      // Not opened: the file stays, red, with why (a trap in a reader says only what the
      // engine calls it, so the container's name is put first).
      const why = message(err);
      e.containerFailure = why.startsWith(e.path) ? why : `${e.path}: its reader stopped: ${why}`;
    }
  }
  containerProblems.push(...problems);
  return entries.filter(e => !replaced.has(e)).concat(added);
}
