// @ts-check
// Archives on a static host (`relicview publish`, `relicview index`): byte ranges of a
// hosted file read with HTTP Range requests. A few requests at a time per page, retried
// with back-off on a 5xx or a network error, each with a timeout; recent ranges kept in a
// small cache, and asks for the same range while it is in flight answered by one request.
// Every failure says what the host did wrong: no Range support, a missing CORS header, a
// missing file, a file that is not the one indexed. This module owns the "reading from the
// host" line (#host-status). docs/publishing.md.

import { $ } from '../ground/state.js';
import { containersHere } from '../ground/modules.js';

const IN_FLIGHT = 4;
// A read that failed in a way that may pass is tried again after a back-off: three times
// where the host did not answer (a timeout, a network error), six where it answered that it
// is busy (503, 429: it is there, and a rate limit lets the next request through). Each
// wait is stretched by a random half of itself, so that requests refused together do not
// come back together and be refused together again.
const RETRIES = 3;
const BUSY_RETRIES = 6;
const BACKOFF_MS = [300, 1000, 3000, 5000, 8000, 10000];
// A Retry-After longer than this is not waited for (the read fails and says so).
const RETRY_AFTER_AT_MOST_MS = 10000;
// The longest wait for an answer's head, and between two pieces of its body (a large file
// on a slow line takes as long as it takes, while it keeps coming).
let timeoutMs = 30000;
// A host that ignores Range: a file up to this size is read whole instead (once, cached).
const WHOLE_AT_MOST = 16 << 20;
const CACHE_BYTES = 32 << 20;
// The largest listing read (a disc of 3,020 files: 233 kB).
const LISTING_AT_MOST = 256 << 20;

const stats = { requests: 0, bytes: 0, retries: 0, inFlight: 0, peak: 0 };
/** @type {Map<string, Uint8Array>} */
const cache = new Map(); // `${url} ${offset} ${length}` → Uint8Array, oldest first
let cached = 0;
/** @type {Map<string, Promise<Uint8Array>>} */
const flying = new Map(); // same key → Promise<Uint8Array>
/** @type {(() => void)[]} */
const waiting = [];
/** @type {Map<string, Promise<Uint8Array>>} */
const wholeFiles = new Map(); // url → Promise<Uint8Array> (hosts without Range)

/** A request under way: its answer, and how it is given up. @typedef {{ response: Response, abort: AbortController, timer: ReturnType<typeof setTimeout> }} Answer */

// What the page fetched from hosts so far (tests and the benchmark read it); `peak`: the
// most requests that were in flight at once.
export function hostStats() {
  return { ...stats };
}

// How long a host may keep the page waiting for an answer, or between two pieces of one
// (ms; 30 s unless set).
/** @param {number} ms */
export function setHostTimeout(ms) {
  if (Number(ms) > 0) timeoutMs = Number(ms);
}

function showStatus() {
  const el = $('host-status');
  if (!el) return;
  el.hidden = stats.inFlight === 0;
  if (stats.inFlight) el.textContent = `Reading from the host… ${formatBytes(stats.bytes)} fetched`;
}

/** @param {number} n */
function formatBytes(n) {
  return n < 1e6 ? `${(n / 1e3).toFixed(1)} kB` : `${(n / 1e6).toFixed(1)} MB`;
}

const sleep = (/** @type {number} */ ms) => new Promise(resolve => setTimeout(resolve, ms));

// A place among the requests in flight; a request done hands its place to the next in line
// (so that none can slip in between and make it IN_FLIGHT + 1).
async function slot() {
  if (stats.inFlight >= IN_FLIGHT) await new Promise(resolve => waiting.push(() => resolve(undefined)));
  else stats.inFlight++;
  stats.peak = Math.max(stats.peak, stats.inFlight);
  showStatus();
}

function release() {
  const next = waiting.shift();
  if (next) next();
  else stats.inFlight--;
  showStatus();
}

class HostError extends Error {
  /** @param {string} message @param {boolean} [retry] @param {{ busy?: boolean, waitMs?: number }} [how] */
  constructor(message, retry = false, how = {}) {
    super(message);
    this.retry = retry;
    // The host answered that it is busy; the wait it asked for (Retry-After), if any.
    this.busy = how.busy ?? false;
    this.waitMs = how.waitMs;
  }
}

// Why a fetch that threw (no response at all) failed: a host on another origin that
// answers without Access-Control-Allow-Origin looks to the page exactly like one that is
// down, so an opaque request tells the two apart.
/** @param {string} url @param {unknown} err */
async function unreachable(url, err) {
  const target = new URL(url, location.href);
  if (target.origin !== location.origin) {
    const answered = await fetch(target, { mode: 'no-cors', cache: 'no-store' }).then(
      () => true,
      () => false,
    );
    if (answered) {
      return new HostError(
        `${target.href}: the host ${target.origin} answered, but without an Access-Control-Allow-Origin header for this page (${location.origin}), so the browser keeps its answer from the page; the host must send it (docs/publishing.md)`,
      );
    }
  }
  return new HostError(
    `${target.href}: the host could not be reached (${err instanceof Error ? err.message : err})`,
    true,
  );
}

// One request, with its timeout. → {response, abort, timer}, or a HostError.
/** @param {string} url @param {Record<string, string>} headers @returns {Promise<Answer>} */
async function request(url, headers) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await fetch(url, { headers, signal: abort.signal });
    return { response, abort, timer };
  } catch (err) {
    clearTimeout(timer);
    if (abort.signal.aborted)
      throw new HostError(`${url}: no answer from the host in ${timeoutMs / 1000} s`, true);
    throw await unreachable(url, err);
  }
}

// The answer's body as it comes (counted in the status line), given up when nothing comes
// for timeoutMs. `expected`: its length where known; `limit`: the most taken where not.
/** @param {Answer} got @param {string} url @param {number | undefined} expected @param {number} [limit] @returns {Promise<Uint8Array>} */
async function body(got, url, expected, limit = Infinity) {
  // Where the length is known, the pieces go straight into place.
  const out = expected !== undefined ? new Uint8Array(expected) : null;
  /** @type {Uint8Array[]} */
  const pieces = [];
  let n = 0;
  try {
    const stream = got.response.body;
    if (!stream) throw new HostError(`${url}: an answer without a body`, true);
    const reader = stream.getReader();
    for (;;) {
      clearTimeout(got.timer);
      got.timer = setTimeout(() => got.abort.abort(), timeoutMs);
      const { done, value } = await reader.read();
      if (done) break;
      if (out && n + value.length > out.length)
        throw new HostError(
          `${url}: the host sent more than the ${expected} bytes expected (the range asked for, or the size the index says: if the file changed, publish it again)`,
        );
      if (n + value.length > limit)
        throw new HostError(`${url}: more than ${formatBytes(limit)}: not a listing the page reads`);
      if (out) out.set(value, n);
      else pieces.push(value);
      n += value.length;
      stats.bytes += value.length;
      showStatus();
    }
  } catch (err) {
    if (err instanceof HostError) throw err;
    if (got.abort.signal.aborted)
      throw new HostError(`${url}: the host sent nothing for ${timeoutMs / 1000} s`, true);
    throw new HostError(`${url}: the answer was cut off (${err instanceof Error ? err.message : err})`, true);
  } finally {
    clearTimeout(got.timer);
  }
  if (out) return n === expected ? out : out.subarray(0, n);
  const [only] = pieces;
  if (pieces.length === 1 && only) return only;
  const all = new Uint8Array(n);
  let at = 0;
  for (const p of pieces) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

// `relicview serve` answers an entry it cannot read (encrypted, a method not read, a CRC
// that does not match) with this status and why in a short text body.
const UNREADABLE = 422;
const REASON_AT_MOST = 4096;

// The error for an answer that is not the file: for an entry the server cannot read, the
// reason its body gives (as text, never as markup).
/** @param {Answer} got @param {string} url @param {string} what */
async function answerError(got, url, what) {
  if (got.response.status !== UNREADABLE) {
    dismiss(got);
    return statusError(url, got.response.status, what, got.response.headers.get('Retry-After'));
  }
  let why;
  try {
    why = new TextDecoder().decode(await body(got, url, undefined, REASON_AT_MOST)).trim();
  } catch {
    why = '';
  }
  return new HostError(`${what}: cannot be read: ${why || `HTTP ${UNREADABLE} from the host`}`);
}

/** @param {string} url @param {number} status @param {string} what @param {string | null} [retryAfter] */
function statusError(url, status, what, retryAfter = null) {
  if (status === 404)
    return new HostError(
      `${url}: not on the host (HTTP 404): ${what} was indexed but is not served there; publish it again`,
    );
  if (status === 416)
    return new HostError(
      `${url}: the host says the range is past the file's end (HTTP 416): the file is shorter than the index says; the index is stale, publish it again`,
    );
  const busy = status === 503 || status === 429;
  // Retry-After in seconds (a date is rare from a static host, and taken as no wait asked).
  const seconds = Number(retryAfter ?? NaN);
  const waitMs = busy && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
  return new HostError(`${url}: HTTP ${status} from the host`, status >= 500 || status === 429, {
    busy,
    waitMs,
  });
}

// Retried on what may pass (5xx, a network error, a timeout), with back-off.
/** @template T @param {() => Promise<T>} job @returns {Promise<T>} */
async function withRetries(job) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await job();
    } catch (err) {
      if (!(err instanceof HostError) || !err.retry) throw err;
      if (attempt >= (err.busy ? BUSY_RETRIES : RETRIES)) throw err;
      if (err.waitMs !== undefined && err.waitMs > RETRY_AFTER_AT_MOST_MS)
        throw new HostError(`${err.message}, asking to wait ${err.waitMs / 1000} s`);
      stats.retries++;
      const base = BACKOFF_MS[attempt] ?? BACKOFF_MS[BACKOFF_MS.length - 1] ?? 0;
      await sleep(Math.max(err.waitMs ?? 0, base * (1 + Math.random() / 2)));
    }
  }
}

// A read from a host: each try in a slot of its own (at most IN_FLIGHT at once), retried as
// withRetries says.
/** @template T @param {() => Promise<T>} job @returns {Promise<T>} */
function polite(job) {
  return withRetries(async () => {
    await slot();
    try {
      return await job();
    } finally {
      release();
    }
  });
}

// An answer not read: its timer stopped and its body left unread.
/** @param {Answer} got */
function dismiss(got) {
  clearTimeout(got.timer);
  got.abort.abort();
}

// What index.html started fetching before the page's scripts ran (www/shell/early.js): the
// listing a link names ({url, bytes}), taken once by the read it was started for. A failed
// one is left for the page to fetch.
/** @param {(started: { url: string, bytes: Promise<ArrayBuffer | null> }) => boolean} wanted */
function earlyListing(wanted) {
  const started = globalThis.relicviewEarly;
  const pending = started?.listing;
  if (!pending || !wanted(pending)) return null;
  started.listing = null;
  return pending;
}

// Loose files fetched ahead of their read: a file's references as the index names them
// (`refs`: its libraries, textures, a world's models), fetched with the file rather than one
// round trip after another as the core's parse finds them; and those index.html started
// (www/shell/early.js: a link's file and its references). By lower-case path: Promise of {url,
// bytes} or null. Each is taken by the read it was fetched for; one no read takes goes after
// a while, and they hold at most PREFETCH_BYTES.
/** @type {Map<string, Promise<{ url: string, bytes: Uint8Array } | null>>} */
const prefetched = new Map();
let prefetchedBytes = 0;
const PREFETCH_BYTES = 64 << 20;
const PREFETCH_KEPT_MS = 60_000;

/** @param {string} path @param {Promise<{ url: string, bytes: Uint8Array } | null>} fetched @param {number} size */
function keepPrefetch(path, fetched, size) {
  const key = path.toLowerCase();
  prefetched.set(key, fetched);
  prefetchedBytes += size;
  setTimeout(() => {
    if (prefetched.get(key) === fetched) {
      prefetched.delete(key);
      prefetchedBytes -= size;
    }
  }, PREFETCH_KEPT_MS);
}

// Whatever index.html started, into the prefetched files (once).
function adoptEarly() {
  const started = globalThis.relicviewEarly;
  if (!started || !Array.isArray(started.files)) return;
  for (const { path, size, fetched } of started.files) {
    keepPrefetch(
      path,
      fetched.then(
        got => {
          if (!got) return null;
          stats.requests++;
          stats.bytes += got.buffer.byteLength;
          return { url: got.url, bytes: new Uint8Array(got.buffer) };
        },
        () => null,
      ),
      size,
    );
  }
  started.files = null;
}

// Fetch the loose file `what` at `url` (`size` bytes, as indexed) ahead of its read, unless
// it is already (or too large to keep).
/** @param {string} url @param {number} size @param {string} what */
export function prefetchWhole(url, size, what) {
  adoptEarly();
  const key = String(what).toLowerCase();
  if (prefetched.has(key) || !(size >= 0) || prefetchedBytes + size > PREFETCH_BYTES) return;
  keepPrefetch(
    what,
    fetchWholeNow(url, size, what).then(
      bytes => ({ url, bytes }),
      () => null,
    ),
    size,
  );
}

// A listing's bytes at `url` (archive.json, index.json), with the timeout and retries of
// any read from a host, for the core to read (`readHostedIndex`). → its bytes, or null where
// the URL holds none (a 404); a host that cannot be read throws why.
/** @param {string} url @returns {Promise<Uint8Array | null>} */
export async function fetchListing(url) {
  const started = earlyListing(e => e.url === url);
  if (started) {
    const listing = await started.bytes.catch(() => null);
    if (listing) {
      stats.requests++;
      return new Uint8Array(listing);
    }
  }
  return polite(async () => {
    const got = await request(url, {});
    if (!got.response.ok) {
      dismiss(got);
      if (got.response.status >= 500 || got.response.status === 429)
        throw statusError(url, got.response.status, 'the listing', got.response.headers.get('Retry-After'));
      return null;
    }
    const bytes = await body(got, url, undefined, LISTING_AT_MOST);
    stats.requests++;
    return bytes;
  });
}

// A hosted file's whole bytes (`size`: what the index says; another length is a stale
// index). For loose files.
/** @param {string} url @param {number} size @param {string} what @returns {Promise<Uint8Array>} */
export async function fetchWhole(url, size, what) {
  adoptEarly();
  const key = String(what).toLowerCase();
  const pending = prefetched.get(key);
  if (pending) {
    prefetched.delete(key);
    prefetchedBytes -= Number(size) || 0;
    const got = await pending;
    if (got && got.url === url && (!(Number.isFinite(size) && size > 0) || got.bytes.length === size))
      return got.bytes;
  }
  return fetchWholeNow(url, size, what);
}

/** @param {string} url @param {number} size @param {string} what @returns {Promise<Uint8Array>} */
function fetchWholeNow(url, size, what) {
  return polite(async () => {
    const got = await request(url, {});
    if (!got.response.ok) throw await answerError(got, url, what);
    const bytes = await body(got, url, Number.isFinite(size) && size > 0 ? size : undefined);
    stats.requests++;
    if (Number.isFinite(size) && size > 0 && bytes.length !== size) {
      throw new HostError(
        `${url}: the host serves ${bytes.length} bytes; the index says ${size}: the file changed after the index was written; publish it again`,
      );
    }
    return bytes;
  });
}

// Bytes `offset .. offset + length` of the hosted file at `url`, which the index says is
// `size` bytes long. `what` names it in errors.
/** @param {string} url @param {number} size @param {number} offset @param {number} length @param {string} what @returns {Promise<Uint8Array>} */
export function fetchRange(url, size, offset, length, what) {
  const key = `${url} ${offset} ${length}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return Promise.resolve(hit);
  }
  const whole = wholeFiles.get(url);
  if (whole) return whole.then(bytes => bytes.subarray(offset, offset + length));
  let p = flying.get(key);
  if (!p) {
    p = polite(() => rangeOnce(url, size, offset, length, what)).finally(() => flying.delete(key));
    flying.set(key, p);
  }
  return p;
}

/** @param {string} url @param {number} size @param {number} offset @param {number} length @param {string} what */
async function rangeOnce(url, size, offset, length, what) {
  const got = await request(url, { Range: `bytes=${offset}-${offset + length - 1}` });
  const { response } = got;
  if (response.status === 200) {
    // The host ignored Range: it is sending the whole file.
    if (size > WHOLE_AT_MOST) {
      dismiss(got);
      throw new HostError(
        `${url}: the host does not serve byte ranges (it answered a Range request with the whole file), and ${what} is ${formatBytes(size)}: not downloaded whole; serve it from a host that honours Range (docs/publishing.md)`,
      );
    }
    const whole = body(got, url, size).then(bytes => {
      stats.requests++;
      if (bytes.length !== size)
        throw new HostError(
          `${url}: the host serves ${bytes.length} bytes; the index says ${size}: ${what} changed after the index was written; publish it again`,
        );
      return bytes;
    });
    wholeFiles.set(url, whole);
    whole.catch(() => wholeFiles.delete(url));
    console.warn(`${url}: the host does not serve byte ranges; ${what} (${formatBytes(size)}) is read whole`);
    return (await whole).subarray(offset, offset + length);
  }
  if (response.status !== 206) throw await answerError(got, url, what);
  const range = response.headers.get('Content-Range');
  if (!range) {
    dismiss(got);
    throw new HostError(
      `${url}: the host answered the range but this page may not read its Content-Range header: a host on another origin must send Access-Control-Expose-Headers: Content-Range, Content-Length (docs/publishing.md)`,
    );
  }
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(range.trim());
  if (m && m[3] !== '*' && Number(m[3]) !== size) {
    dismiss(got);
    throw new HostError(
      `${url}: the host's file is ${Number(m[3])} bytes; the index says ${size}: ${what} changed after the index was written; publish it again`,
    );
  }
  if (!m || Number(m[1]) !== offset || Number(m[2]) !== offset + length - 1) {
    dismiss(got);
    throw new HostError(
      `${url}: asked for bytes ${offset}-${offset + length - 1}, the host answered "${range}"`,
    );
  }
  const bytes = await body(got, url, length);
  stats.requests++;
  if (bytes.length !== length)
    throw new HostError(`${url}: ${bytes.length} bytes came for a range of ${length}`, true);
  remember(`${url} ${offset} ${length}`, bytes);
  return bytes;
}

/** @param {string} key @param {Uint8Array} bytes */
function remember(key, bytes) {
  if (bytes.length > CACHE_BYTES / 4) return;
  cache.set(key, bytes);
  cached += bytes.length;
  for (const [k, v] of cache) {
    if (cached <= CACHE_BYTES) break;
    cache.delete(k);
    cached -= v.length;
  }
}

// The bytes of one entry of a hosted container (`container`: its object in index.json;
// `entry`: its row there), from the container's ranges it needs, rebuilt and checked by the
// containers module (loaded on the page the first time). → ArrayBuffer.
// A container inside a hosted container (`inside` in index.json) is read whole, as the
// page reads one in a dropped container, by its outer entry's own ranges; the last few are
// kept (their entries tend to be opened together).
const NESTED_KEPT = 4;
/** @type {Map<string, Promise<Uint8Array>>} */
const nested = new Map(); // container path → Promise of its bytes

// The bytes of nested container `container`, whose outer container and row files.js found
// (`container.outer`: {container, row, url}).
/** @param {HostedContainer & { outer: NonNullable<HostedContainer['outer']> }} container */
function nestedBytes(container) {
  let got = nested.get(container.path);
  if (!got) {
    const { container: outer, row, url } = container.outer;
    got = readHostedEntry(url(), outer, row).then(b => new Uint8Array(b));
    got.catch(() => nested.delete(container.path));
    nested.set(container.path, got);
    for (const key of nested.keys()) if (nested.size > NESTED_KEPT) nested.delete(key);
  }
  return got;
}

/** @param {string} url @param {HostedContainer} container @param {HostedEntryRow} entry @returns {Promise<ArrayBuffer>} */
export async function readHostedEntry(url, container, entry) {
  const [path, size, , at, crc, ranges, extents = []] = entry;
  const wanted = [...container.meta, ...ranges];
  const what = container.path;
  const outer = container.outer;
  const pieces = outer
    ? await nestedBytes({ ...container, outer }).then(bytes =>
        wanted.map(([o, l]) => {
          if (o + l > bytes.length)
            throw new HostError(
              `${what}: the index names bytes ${o}..${o + l} of its ${bytes.length}: publish it again`,
            );
          return bytes.subarray(o, o + l);
        }),
      )
    : await Promise.all(wanted.map(([o, l]) => fetchRange(url, container.size, o, l, what)));
  const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of pieces) {
    all.set(p, k);
    k += p.length;
  }
  /** @type {import('../../pkg/relicview_containers.js').Layout} */
  const layout =
    container.kind === 'disc'
      ? { kind: 'disc', mode: container.mode, start: container.start }
      : { kind: container.kind };
  const containers = await containersHere();
  const bytes = containers.readHosted(
    container.path,
    path,
    layout,
    container.size,
    Float64Array.from(wanted.flat()),
    all,
    at,
    size,
    crc,
    Float64Array.from(extents.flat()),
  );
  return bufferOf(bytes);
}

// The bytes as an ArrayBuffer of their own: their buffer where they fill it, else a copy.
/** @param {Uint8Array} bytes @returns {ArrayBuffer} */
export function bufferOf(bytes) {
  return bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength === bytes.length
    ? bytes.buffer
    : bytes.slice().buffer;
}
