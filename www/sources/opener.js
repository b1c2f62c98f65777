// @ts-check
// Opening large files in a worker (open-worker.js) so that reading, parsing, triangulating
// and building the inspector never freeze the page: the page's thread only uploads and draws.
// A `RemoteFile` answers what the page asks of an opened file (the same methods as the core's
// OpenedFile) from what the worker sent; its scene goes to `Viewer.showSceneBytes`.

import { assetUrl } from '../ground/assets.js';
import { holdListing } from '../ground/listings.js';

export class Abandoned extends Error {
  constructor() {
    super('abandoned: another file was asked for');
    this.abandoned = true;
  }
}

// A worker's question where file `path` is (worker-sources.js), answered: a File or a URL
// it reads itself, the bytes where only the page can read them, or why not.
/** @param {Worker} worker @param {{ id: number, path: string }} asked @param {(path: string) => EntrySource | null} locate */
export async function answerSource(worker, { id, path }, locate) {
  const where = locate(path);
  if (!where) worker.postMessage({ type: 'source', id, error: 'not in the archive' });
  else if ('read' in where) {
    // Neither a File nor a URL: the page reads it and hands the bytes over.
    try {
      const buffer = await where.read();
      worker.postMessage({ type: 'source', id, buffer }, [buffer]);
    } catch (err) {
      worker.postMessage({ type: 'source', id, error: err instanceof Error ? err.message : String(err) });
    }
  } else worker.postMessage({ type: 'source', id, ...where });
}

export class WorkerOpener {
  // `module`: the compiled wasm core (shared, not compiled again); `locate(path)` → {file}
  // (a local File), {url} (a served archive's file) or null.
  /** @param {WebAssembly.Module} module @param {(path: string) => EntrySource | null} locate */
  constructor(module, locate) {
    this.module = module;
    this.locate = locate;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Listing | null} */
    this.listing = null;
    // The game state the page's session has (Session.gameState), for the worker's.
    this.gameState = '';
    /** @type {{ id: number, resolve: (file: RemoteFile) => void, reject: (err: unknown) => void } | null} */
    this.job = null; // {id, resolve, reject} of the open under way
    this.jobs = 0;
    this.broken = false;
    // Workers started and opens abandoned (ended with their worker), for scripts.
    this.started = 0;
    this.abandoned = 0;
    // The worker's archive keeps the listing (listings.js tells it, as every instance's).
    holdListing({
      listing: listing => this.setListing(listing),
      kinds: kinds => this.setKinds(kinds),
      sizes: sizes => this.setSizes(sizes),
    });
  }

  // `listing`: {paths, lengths, kinds, sizes} as Session.setListing takes them.
  /** @param {Listing} listing */
  setListing(listing) {
    this.listing = listing;
    if (this.worker) this.worker.postMessage({ type: 'listing', ...listing });
  }

  // A file of the listing will open here (a large one, or its size came to be known late):
  // the worker starts now rather than then.
  warm() {
    if (!this.worker && this.listing && !this.broken) this.spawn();
  }

  // New kinds for the same listing (`kinds` as Session.setKinds takes them).
  /** @param {Uint8Array} kinds */
  setKinds(kinds) {
    if (!this.listing) return;
    this.listing = { ...this.listing, kinds };
    if (this.worker) this.worker.postMessage({ type: 'kinds', kinds });
  }

  // The listing's sizes again (`sizes` as Session.setSizes takes them).
  /** @param {Float64Array} sizes */
  setSizes(sizes) {
    if (!this.listing) return;
    this.listing = { ...this.listing, sizes };
    if (this.worker) this.worker.postMessage({ type: 'sizes', sizes });
  }

  // The game's variables set by hand, as the page's session has them (Session.setGameState).
  /** @param {string} text */
  setGameState(text) {
    this.gameState = text;
    if (this.worker) this.worker.postMessage({ type: 'state', text });
  }

  // Whether a worker can run here at all (false after one failed to start).
  get usable() {
    return !this.broken;
  }

  spawn() {
    const worker = new Worker(assetUrl('openWorker'), { type: 'module' });
    worker.onmessage = e => this.answer(worker, e.data);
    worker.onerror = e => {
      e.preventDefault();
      this.fail(worker, new Error(`the parsing worker stopped: ${e.message || 'script error'}`));
    };
    worker.postMessage({ type: 'init', module: this.module });
    this.started++;
    if (this.listing) worker.postMessage({ type: 'listing', ...this.listing });
    if (this.gameState) worker.postMessage({ type: 'state', text: this.gameState });
    this.worker = worker;
  }

  /** @param {Worker} worker @param {Error} err */
  fail(worker, err) {
    if (worker !== this.worker) return;
    worker.terminate();
    this.worker = null;
    const job = this.job;
    this.job = null;
    job?.reject(err);
  }

  /** @param {Worker} worker @param {OpenWorkerMessage} m */
  async answer(worker, m) {
    if (worker !== this.worker) return;
    if (m.type === 'broken') {
      this.broken = true;
      this.fail(
        worker,
        Object.assign(new Error(`the parsing worker cannot start: ${m.message}`), { workerBroken: true }),
      );
    } else if (m.type === 'source') {
      await answerSource(worker, m, this.locate);
    } else if (m.type !== 'ready' && this.job && m.job === this.job.id) {
      const job = this.job;
      this.job = null;
      // The worker's memory grew to hold the file several times over: it is ended, which
      // gives that memory back, and a fresh one waits for the next file.
      worker.terminate();
      this.spawn();
      if (m.type === 'opened') job.resolve(new RemoteFile(m));
      else job.reject(asError(m.error));
    }
  }

  // → Promise<RemoteFile>; rejects when the file cannot be read, or with `Abandoned`.
  /** @param {string} path @returns {Promise<RemoteFile>} */
  open(path) {
    if (this.job) this.abandon();
    if (!this.worker) this.spawn();
    const worker = /** @type {Worker} */ (this.worker);
    const id = ++this.jobs;
    return new Promise((resolve, reject) => {
      this.job = { id, resolve, reject };
      worker.postMessage({ type: 'open', job: id, path });
    });
  }

  // Stop the open under way, if any: the worker is ended (its parse with it) and a fresh
  // one starts with the next open.
  abandon() {
    if (!this.job) return;
    const job = this.job;
    this.job = null;
    this.worker?.terminate();
    this.worker = null;
    this.abandoned++;
    job.reject(new Abandoned());
  }
}

// A file the worker opened, answering as the core's OpenedFile does from its summary.
/** @implements {ShownFile} */
export class RemoteFile {
  /** @param {OpenedMessage} m */
  constructor(m) {
    /** @type {import('../../pkg/relicview.js').OpenedSummary | null} */
    this.summary = m.summary;
    this.path = m.summary.path;
    // The scene's bytes for Viewer.showSceneBytes (null without a scene).
    this.sceneBytes = m.scene;
    // The worker's wasm memory after the open (bytes).
    this.workerMemoryBytes = m.memoryBytes;
    this.packMs = m.packMs;
    // From the worker's post to this thread's message event (the structured clone).
    this.deliverMs = performance.timeOrigin + performance.now() - m.postedAt;
  }
  // What the worker sent (an error once freed, as the core's OpenedFile is).
  get opened() {
    if (!this.summary) throw new Error(`${this.path}: used after it was freed`);
    return this.summary;
  }
  kind() {
    return this.opened.kind;
  }
  capabilities() {
    return this.opened.capabilities;
  }
  error() {
    return asError(this.opened.error);
  }
  damage() {
    return asError(this.opened.damage);
  }
  /** @returns {import('../../pkg/relicview.js').InspectorView | null} */
  inspect() {
    return JSON.parse(this.opened.inspect);
  }
  /** @param {number} view */
  bytes(view) {
    return this.opened.bytes[view] || undefined;
  }
  infoRows() {
    return this.opened.infoRows;
  }
  info() {
    return this.opened.info;
  }
  text() {
    return this.opened.text ?? undefined;
  }
  image() {
    return this.opened.image;
  }
  imageRegions() {
    return this.opened.imageRegions;
  }
  imagePlanes() {
    return this.opened.imagePlanes;
  }
  gallery() {
    return this.opened.gallery;
  }
  exports() {
    return this.opened.exports;
  }
  timings() {
    return this.opened.timings;
  }
  free() {
    this.summary = null;
    this.sceneBytes = null;
  }
}

// An error the worker posted as plain data, as the Error the core's OpenedFile gives.
/** @param {import('../../pkg/relicview.js').ErrorAt | null} e @returns {(Error & import('../../pkg/relicview.js').ErrorAt) | null} */
function asError(e) {
  return e ? Object.assign(new Error(e.message), e) : null;
}
