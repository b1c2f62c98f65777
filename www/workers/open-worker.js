// @ts-check
// Opens large files off the page's thread (see opener.js): the same wasm core with a Session
// of its own. Files are read here — a local File or a served archive's URL, which the page
// names on request — so neither their bytes nor their parse pass through the page's thread.
// What the page shows of the file goes back as plain data: the inspector view, the byte
// views, the info rows, and the scene as bytes (transferred, not copied).
import init, { Session } from '../../pkg/relicview.js';
import { pageSources } from './worker-sources.js';

/** @type {Session} */
let session;
/** @type {Promise<void> | null} */
let booted = null; // the init message's work: everything else waits for it
// The instance's memory, for the page's measurements (its size after each open).
/** @type {WebAssembly.Memory} */
let wasmMemory;
const sources = pageSources();
// The file being opened as read: sent as its "as stored" bytes instead of a copy of the core's.
/** @type {{ path: string | null, buffer: ArrayBuffer | null }} */
let reading = { path: null, buffer: null };

/** @param {string} path @returns {Promise<ArrayBuffer>} */
async function read(path) {
  const buffer = await sources.read(path);
  if (path === reading.path) reading.buffer = buffer;
  return buffer;
}

/** @param {any} err an Error, the core's (with its offset and record path) or another @returns {import('../../pkg/relicview.js').ErrorAt} */
function plainError(err) {
  return {
    message: err?.message || String(err),
    offset: err?.offset ?? 0,
    chunkPath: err?.chunkPath ?? '',
  };
}

// The typed arrays' buffers in a value (each once), to transfer rather than copy.
/** @param {unknown} value @param {Set<ArrayBuffer>} found @returns {Set<ArrayBuffer>} */
function buffersIn(value, found = new Set()) {
  if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) found.add(value.buffer);
  else if (Array.isArray(value)) for (const v of value) buffersIn(v, found);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) buffersIn(v, found);
  return found;
}

/** @param {number} job @param {string} path */
async function open(job, path) {
  reading = { path, buffer: null };
  const file = await session.open(path);
  const stored = reading.buffer;
  reading = { path: null, buffer: null };
  const t0 = performance.now();
  try {
    // The core describes the file (one shape, OpenedSummary); the read bytes stand in for
    // its copy of the file as stored.
    const summary = file.summary(stored ? new Uint8Array(stored) : undefined);
    const scene = file.takeSceneBytes() ?? null;
    /** @type {OpenedMessage} */
    const message = {
      type: 'opened',
      job,
      summary,
      scene,
      memoryBytes: wasmMemory.buffer.byteLength,
      // Putting the results into messages (ms), and when it was posted (ms since the epoch:
      // the page's clock starts elsewhere).
      packMs: performance.now() - t0,
      postedAt: performance.timeOrigin + performance.now(),
    };
    self.postMessage(message, [...buffersIn(message)]);
  } finally {
    file.free();
  }
}

self.onmessage = async e => {
  const m = e.data;
  if (m.type === 'init') {
    booted = (async () => {
      wasmMemory = (await init({ module_or_path: m.module })).memory;
      session = new Session(read);
    })();
    booted.then(
      () => self.postMessage({ type: 'ready' }),
      err => self.postMessage({ type: 'broken', message: String(err?.message || err) }),
    );
    return;
  }
  if (m.type === 'source') {
    sources.answer(m);
    return;
  }
  try {
    await booted;
    if (m.type === 'listing') session.setListing(m.paths, m.lengths, m.kinds, m.sizes);
    else if (m.type === 'kinds') session.setKinds(m.kinds);
    else if (m.type === 'sizes') session.setSizes(m.sizes);
    else if (m.type === 'state') session.setGameState(m.text);
    else if (m.type === 'open') await open(m.job, m.path);
  } catch (err) {
    if (m.type === 'open') self.postMessage({ type: 'failed', job: m.job, error: plainError(err) });
  }
};
