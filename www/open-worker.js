// @ts-check
// Opens large files off the page's thread (see opener.js): the same wasm core with a Session
// of its own. Files are read here — a local File or a served archive's URL, which the page
// names on request — so neither their bytes nor their parse pass through the page's thread.
// What the page shows of the file goes back as plain data: the inspector view, the byte
// views, the info rows, and the scene as bytes (transferred, not copied).
import init, { Session } from '../pkg/relicview.js';

/** @type {Session} */
let session;
/** @type {Promise<void> | null} */
let booted = null; // the init message's work: everything else waits for it
// The instance's memory, for the page's measurements (its size after each open).
/** @type {WebAssembly.Memory} */
let wasmMemory;
/** @type {Map<number, { resolve: (where: { buffer?: ArrayBuffer, file?: File, url?: string }) => void, reject: (err: Error) => void }>} */
const sources = new Map(); // request id → {resolve, reject}
let lastSource = 0;
// The file being opened as read: sent as its "as stored" bytes instead of a copy of the core's.
/** @type {{ path: string | null, buffer: ArrayBuffer | null }} */
let reading = { path: null, buffer: null };

/** @param {string} path @returns {Promise<ArrayBuffer>} */
async function read(path) {
  const id = ++lastSource;
  /** @type {{ buffer?: ArrayBuffer, file?: File, url?: string }} */
  const where = await new Promise((resolve, reject) => {
    sources.set(id, { resolve, reject });
    self.postMessage({ type: 'source', id, path });
  });
  let buffer = where.buffer ?? new ArrayBuffer(0);
  if (where.file) buffer = await where.file.arrayBuffer();
  else if (where.url) {
    const r = await fetch(where.url);
    if (!r.ok) throw new Error(`${path}: HTTP ${r.status} from the archive server`);
    buffer = await r.arrayBuffer();
  }
  if (path === reading.path) reading.buffer = buffer;
  return buffer;
}

/** @param {any} err an Error, the core's (with its offset and record path) or another @returns {{ message: string, offset: number | null, chunkPath: string | null } | null} */
function plainError(err) {
  if (!err) return null;
  return {
    message: err.message || String(err),
    offset: err.offset ?? null,
    chunkPath: err.chunkPath ?? null,
  };
}

/** @param {number} job @param {string} path */
async function open(job, path) {
  reading = { path, buffer: null };
  const file = await session.open(path);
  const stored = /** @type {ArrayBuffer | null} */ (reading.buffer);
  reading = { path: null, buffer: null };
  const t0 = performance.now();
  try {
    const can = file.capabilities();
    const inspect = file.inspectJson();
    const views = file.byteViewCount();
    // The last view is the file as stored: the bytes read here, where their length agrees.
    const bytes = Array.from({ length: views }, (_, i) =>
      i === views - 1 && stored && stored.byteLength === file.byteViewLength(i)
        ? new Uint8Array(stored)
        : file.bytes(i) || new Uint8Array(0),
    );
    const image = can.image ? file.image() : null;
    const scene = file.takeSceneBytes();
    const result = {
      type: 'opened',
      job,
      path: file.path,
      kind: file.kind(),
      capabilities: can,
      error: plainError(file.error()),
      damage: plainError(file.damage()),
      inspect,
      bytes,
      infoRows: file.infoRows(),
      info: file.info(),
      text: can.text ? file.text() : null,
      image,
      imageRegions: can.image ? file.imageRegions() : [],
      imagePlanes: can.image ? file.imagePlanes() : [],
      gallery: can.gallery ? file.gallery() : null,
      exports: file.exports(),
      timings: file.timings(),
      scene,
      memoryBytes: wasmMemory.buffer.byteLength,
      // Putting the results into messages (ms), and when it was posted (ms since the epoch:
      // the page's clock starts elsewhere).
      packMs: performance.now() - t0,
      postedAt: performance.timeOrigin + performance.now(),
    };
    const transfer = bytes.map(b => b.buffer);
    if (scene) transfer.push(scene.buffer);
    if (image)
      transfer.push(
        image.rgba.buffer,
        ...result.imagePlanes.map((/** @type {{ values: Uint16Array }} */ p) => p.values.buffer),
      );
    self.postMessage(result, transfer);
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
      err => self.postMessage({ type: 'broken', message: String((err && err.message) || err) }),
    );
    return;
  }
  if (m.type === 'source') {
    const waiting = sources.get(m.id);
    sources.delete(m.id);
    if (!waiting) return;
    if (m.error) waiting.reject(new Error(m.error));
    else waiting.resolve(m);
    return;
  }
  try {
    await booted;
    if (m.type === 'listing') session.setListing(m.paths, m.lengths, m.kinds);
    else if (m.type === 'kinds') session.setKinds(m.kinds);
    else if (m.type === 'open') await open(m.job, m.path);
  } catch (err) {
    if (m.type === 'open') self.postMessage({ type: 'failed', job: m.job, error: plainError(err) });
  }
};
