// @ts-check
// The archive grid's thumbnails, made off the page's thread (thumbnails.js asks): a core
// instance of its own, with a Session listed as the page's, opens each file; a scene is
// drawn by a Viewer on an OffscreenCanvas the thumbnail's size, from the viewer's own
// default view (LOD 0, the game's lighting, framed as a file opens, the clock at 0); a
// picture is scaled down to fit. The PNG is kept in this browser (thumb-store.js) under the
// SHA-256 of the file's bytes, with the files its open read and their hashes, so a renamed
// or dropped-again file is not drawn again while none of them changed. The worker also
// finds which files hold the same bytes (the grid shows them once).
import init, { Session, Viewer } from '../../pkg/relicview.js';
import { pageSources } from './worker-sources.js';
import { openStore } from './thumb-store.js';

const sources = pageSources();
/** @type {Session} */
let session;
/** @type {Viewer} */
let viewer;
/** @type {OffscreenCanvas} */
let canvas;
/** @type {Promise<void> | null} */
let booted = null;
/** @type {ReturnType<typeof openStore>} */
let store;
// What the thumbnails were drawn by (the core's build): a thumbnail kept from another is not
// used.
let build = '';
// The files read while one thumbnail's file opens: [path, bytes].
/** @type {[string, ArrayBuffer][] | null} */
let reads = null;

// Files read lately, so that each thumbnail's open, its reads forgotten, does not ask the
// page again for the library or FIELD.BIN the last one read: at most READ_KEPT bytes, the
// least recently read going first.
const READ_KEPT = 48 << 20;
/** @type {Map<string, ArrayBuffer>} */
const lately = new Map();
let latelyBytes = 0;

/** @param {string} path */
async function readKept(path) {
  const key = path.toLowerCase();
  let buffer = lately.get(key);
  if (buffer) lately.delete(key);
  else {
    buffer = await sources.read(path);
    latelyBytes += buffer.byteLength;
  }
  lately.set(key, buffer);
  for (const [k, b] of lately) {
    if (latelyBytes <= READ_KEPT) break;
    lately.delete(k);
    latelyBytes -= b.byteLength;
  }
  return buffer;
}

/** @param {string} path */
async function read(path) {
  const buffer = await readKept(path);
  reads?.push([path, buffer]);
  // (The core takes the bytes it is given: it gets a copy, the kept one stays whole.)
  return buffer.slice(0);
}

// A moment for the messages waiting (the page's pings) before the next step.
const breath = () => new Promise(resolve => setTimeout(resolve, 0));

/** @param {ArrayBuffer} bytes */
async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, b => b.toString(16).padStart(2, '0')).join('');
}

// `to` relative to `from`'s folder ('../MATERIAL/DEMO.BMF'): where an open read a file, kept
// so that the same files beside a renamed or moved one are found again.
/** @param {string} from @param {string} to */
function relative(from, to) {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let k = 0;
  while (k < a.length && k < b.length - 1 && a[k]?.toLowerCase() === b[k]?.toLowerCase()) k++;
  return [...a.slice(k).map(() => '..'), ...b.slice(k)].join('/');
}

/** @param {string} from @param {string} rel */
function resolved(from, rel) {
  const parts = from.split('/').slice(0, -1);
  for (const p of rel.split('/')) {
    if (p === '..') parts.pop();
    else parts.push(p);
  }
  return parts.join('/');
}

// A kept thumbnail of `path` (its bytes hashing to `key`'s file part) whose open read files
// that are all still there with the same bytes; else null.
/** @param {string} path @param {string} key */
async function kept(path, key) {
  const found = await store.get(key);
  for (const drawing of found?.drawn ?? []) {
    let same = true;
    for (const dep of drawing.deps) {
      const bytes = await readKept(resolved(path, dep.path)).catch(() => null);
      if (!bytes || (await sha256(bytes)) !== dep.sha) {
        same = false;
        break;
      }
    }
    if (same) return drawing.png;
  }
  return null;
}

// A picture scaled to fit the thumbnail, in its middle.
/** @param {import('../../pkg/relicview.js').Picture} image */
async function pictureThumbnail(image) {
  const full = new ImageData(new Uint8ClampedArray(image.rgba), image.width, image.height);
  const bitmap = await createImageBitmap(full);
  const scale = Math.min(canvas.width / image.width, canvas.height / image.height, 8);
  const [w, h] = [
    Math.max(1, Math.round(image.width * scale)),
    Math.max(1, Math.round(image.height * scale)),
  ];
  const out = new OffscreenCanvas(canvas.width, canvas.height);
  const context = /** @type {OffscreenCanvasRenderingContext2D} */ (out.getContext('2d'));
  // Enlarged a whole number of times, a small picture keeps its texels; shrunk, it is smoothed.
  context.imageSmoothingEnabled = scale < 1;
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, Math.floor((canvas.width - w) / 2), Math.floor((canvas.height - h) / 2), w, h);
  bitmap.close();
  return out.convertToBlob({ type: 'image/png' });
}

// The scene of `file` drawn as a file opens in the view.
/** @param {import('../../pkg/relicview.js').OpenedFile} file */
async function sceneThumbnail(file) {
  viewer.show(file);
  viewer.setPlaying(false);
  viewer.setAnimationTime(0);
  // A large world goes up to the GPU batch by batch, one per frame; between frames the
  // worker answers the page's pings (thumbnails.js: a worker silent too long is ended).
  for (let k = 0; k < 1000 && viewer.render(performance.now()).uploading; k++) await breath();
  const rgba = viewer.readPixels();
  viewer.clear();
  const out = new OffscreenCanvas(canvas.width, canvas.height);
  const context = /** @type {OffscreenCanvasRenderingContext2D} */ (out.getContext('2d'));
  context.putImageData(new ImageData(new Uint8ClampedArray(rgba), canvas.width, canvas.height), 0, 0);
  return out.convertToBlob({ type: 'image/png' });
}

/**
 * The thumbnail of `path`: {png} (drawn or kept), {none} (a file with no picture), or {failure}.
 * @param {string} path
 * @returns {Promise<{ png: Blob | null, cached: boolean, failure: string | null }>}
 */
async function thumbnail(path) {
  const bytes = await readKept(path);
  const key = `${await sha256(bytes)}|${build}|${canvas.width}x${canvas.height}`;
  const hit = await kept(path, key).catch(() => null);
  if (hit) return { png: hit, cached: true, failure: null };
  reads = [];
  /** @type {import('../../pkg/relicview.js').OpenedFile | null} */
  let file = null;
  try {
    // What earlier opens read is forgotten: every file this open reads is read, so the
    // thumbnail is kept with all it was drawn from.
    session.forgetReads();
    // Drawn and not described: a thumbnail needs no inspector view.
    file = await session.openToDraw(path);
    const error = file.error();
    if (error) return { png: null, cached: false, failure: error.message };
    const can = file.capabilities();
    const image = can.image ? file.image() : null;
    const png = image ? await pictureThumbnail(image) : can.scene ? await sceneThumbnail(file) : null;
    if (png) {
      const deps = [];
      for (const [p, b] of reads)
        if (p !== path) deps.push({ path: relative(path, p), sha: await sha256(b) });
      await store.put(key, png, deps).catch(() => {});
    }
    return { png, cached: false, failure: null };
  } catch (err) {
    return { png: null, cached: false, failure: err instanceof Error ? err.message : String(err) };
  } finally {
    reads = null;
    file?.free();
  }
}

// Which of `groups` (paths of one size) hold the same bytes → [[path, …]] of two or more.
/** @param {string[][]} groups */
async function sameBytes(groups) {
  const same = [];
  for (const group of groups) {
    /** @type {Map<string, string[]>} */
    const byHash = new Map();
    for (const path of group) {
      const bytes = await sources.read(path).catch(() => null);
      if (!bytes) continue;
      const h = await sha256(bytes);
      byHash.set(h, [...(byHash.get(h) || []), path]);
    }
    for (const paths of byHash.values()) if (paths.length > 1) same.push(paths);
  }
  return same;
}

// The last thumbnail asked for and the one being drawn (ids), for the page's pings.
let lastAsked = 0;
/** @type {number | null} */
let drawing = null;

/** @param {unknown} err */
const said = err => (err instanceof Error ? err.message : String(err));

self.onmessage = async e => {
  const m = e.data;
  if (m.type === 'ping') {
    // Answered at once, booted or not: the page learns the worker lives and what it holds.
    self.postMessage({ type: 'pong', ping: m.id, asked: lastAsked, drawing });
    return;
  }
  if (m.type === 'init') {
    booted = (async () => {
      await init({ module_or_path: m.module });
      build = m.build;
      session = new Session(read);
      canvas = new OffscreenCanvas(m.width, m.height);
      viewer = Viewer.offscreen(canvas);
      store = openStore(m.limitBytes);
    })();
    booted.then(
      () => self.postMessage({ type: 'ready' }),
      err => self.postMessage({ type: 'broken', message: said(err) }),
    );
    return;
  }
  if (m.type === 'source') {
    sources.answer(m);
    return;
  }
  if (m.type === 'thumb') {
    lastAsked = m.id;
    drawing = m.id;
  }
  try {
    await booted;
  } catch {
    return;
  }
  // Every question is answered, whatever fails on the way (the page asks for the next
  // thumbnail only then, and counts a question unanswered as lost).
  if (m.type === 'listing') {
    session.setListing(m.paths, m.lengths, m.kinds, m.sizes);
    lately.clear();
    latelyBytes = 0;
  } else if (m.type === 'thumb') {
    const t0 = performance.now();
    /** @type {{ src: string | null, cached: boolean, failure: string | null }} */
    let made;
    try {
      const { png, ...rest } = await thumbnail(m.path);
      // The picture goes to the page as a data: URL, not a Blob: a Blob's object URL is
      // registered with the browser by a call that blocks the page's thread, for hundreds
      // of milliseconds while the browser is busy storing thumbnails (docs/benchmarks.md).
      made = { ...rest, src: png ? new FileReaderSync().readAsDataURL(png) : null };
    } catch (err) {
      made = { src: null, cached: false, failure: said(err) };
    }
    self.postMessage({ type: 'thumb', id: m.id, path: m.path, ...made, ms: performance.now() - t0 });
    if (drawing === m.id) drawing = null;
  } else if (m.type === 'same') {
    const same = await sameBytes(m.groups).catch(() => null);
    self.postMessage({ type: 'same', id: m.id, same });
  } else if (m.type === 'stats') {
    const stats = await store.stats().catch(err => ({ refused: said(err) }));
    self.postMessage({ type: 'stats', id: m.id, stats });
  }
};
