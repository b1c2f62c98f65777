// @ts-check
// Archive sources: dropped or picked local files, or an archive hosted by `relicview serve`
// or on a static host (hosted.js). Each entry is {path, size, read(): Promise<ArrayBuffer>};
// bytes are read only on open.

import { bufferOf, fetchListing, fetchWhole, prefetchWhole, readHostedEntry } from './hosted.js';
import { core, state } from '../ground/state.js';
import { assetUrl } from '../ground/assets.js';

// Files a hosted listing gives the page at most.
const MAX_HOSTED = 200000;

// A local file's entry. Its size is looked up when first asked for (a row in sight, an open):
// the browser finds each picked File's size with a synchronous look-up of about half a
// millisecond, ten seconds of a blocked page for a folder of 20,000. Files sent to the head
// worker learn theirs from it for nothing (`learnSize`); `sized` says whether it is known.
/** @param {string} path @param {File} file @returns {Entry} */
function localEntry(path, file) {
  /** @type {number | null} */
  let size = null;
  return {
    path,
    get size() {
      return (size ??= file.size);
    },
    get sized() {
      return size !== null;
    },
    learnSize(/** @type {number} */ n) {
      size = n;
    },
    file,
    read: () => file.arrayBuffer(),
    head: () => file.slice(0, 16).arrayBuffer(),
    // Where a worker can read it itself (opener.js).
    source: () => ({ file }),
  };
}

/** @param {Iterable<File> | ArrayLike<File>} files */
export function entriesFromFiles(files) {
  return Array.from(files, file =>
    localEntry(
      file.webkitRelativePath ||
        /** @type {File & { relativePath?: string }} */ (file).relativePath ||
        file.name,
      file,
    ),
  );
}

// Walk a drop. webkitGetAsEntry() must be called synchronously inside the drop handler;
// directory readers return partial batches, so readEntries is called until it returns none.
/** @param {DataTransfer} dataTransfer @returns {Promise<Entry[]>} */
export function collectDrop(dataTransfer) {
  /** @type {FileSystemEntry[]} */
  const roots = [];
  for (const item of dataTransfer.items || []) {
    const entry = item.kind === 'file' && item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    if (entry) roots.push(entry);
  }
  const plainFiles = Array.from(dataTransfer.files || []);
  return (async () => {
    if (roots.length === 0) return entriesFromFiles(plainFiles);
    /** @type {Entry[]} */
    const out = [];
    for (const root of roots) await walkEntry(root, out);
    return out;
  })();
}

// Each directory batch's Files are asked for together: one at a time, a dropped folder of
// 2,000 took 4.1 s to list here, against 2.2 s for a page that only walks it so.
/** @param {FileSystemEntry} e @returns {e is FileSystemFileEntry} */
const isFile = e => e.isFile;
/** @param {FileSystemEntry} e @returns {e is FileSystemDirectoryEntry} */
const isFolder = e => e.isDirectory;

/** @param {FileSystemEntry} entry @param {Entry[]} out */
async function walkEntry(entry, out) {
  const fileOf = (/** @type {FileSystemFileEntry} */ e) =>
    new Promise((/** @type {(file: File) => void} */ resolve, reject) => e.file(resolve, reject)).then(file =>
      out.push(localEntry(e.fullPath.replace(/^\//, ''), file)),
    );
  if (isFile(entry)) {
    await fileOf(entry);
    return;
  }
  if (!isFolder(entry)) return;
  const stack = [entry];
  for (let folder = stack.pop(); folder; folder = stack.pop()) {
    const reader = folder.createReader();
    for (;;) {
      /** @type {FileSystemEntry[]} */
      const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const e of batch) if (isFolder(e)) stack.push(e);
      await Promise.all(batch.filter(isFile).map(fileOf));
    }
  }
}

// A hosted archive: a listing {files: [{path, size, kind}], containers, base} at
// `listingUrl` (archive.json from `relicview serve`, index.json from `relicview index` or
// `publish`), read by the core, which checks every row; files are fetched from `base`
// relative to the listing, whole, and a container's entries by the ranges the index gives
// (hosted.js). Nothing else is read.
// → entries, or null where the URL holds no listing; a host that cannot be read throws why.
/** @param {string} listingUrl @returns {Promise<Entries | null>} */
export async function hostedEntries(listingUrl) {
  const bytes = await fetchListing(listingUrl);
  const listing = bytes && core.readHostedIndex(bytes, MAX_HOSTED);
  if (!listing) return null;
  const base = new URL(listing.base ?? '', listingUrl);
  // (Made when first read: a URL for each of 20,000 files took some 100 ms.)
  const urlOf = (/** @type {string} */ path) =>
    new URL(path.split('/').map(encodeURIComponent).join('/'), base).href;
  // A file's references as the index names them (`refs`: what its open reads besides it)
  // are fetched as the file is: not one round trip after another as the parse finds them.
  // (Not for a file the parsing worker opens: it fetches its own.)
  // (A file read once is kept by the core's archive: it is not fetched ahead again.)
  /** @type {Map<string, ListingRow> | null} */
  let rows = null;
  const files = listing.files;
  const rowOf = (/** @type {string} */ p) =>
    (rows ??= new Map(files.map(f => [f.path.toLowerCase(), f]))).get(p.toLowerCase());
  /** @type {Set<ListingRow>} */
  const read = new Set();
  const prefetchRefs = (/** @type {string[] | undefined} */ refs) => {
    for (const ref of refs ?? []) {
      const row = rowOf(ref);
      if (row && !read.has(row) && row.failure === undefined && row.size < state.workerThreshold)
        prefetchWhole(urlOf(row.path), row.size, row.path);
    }
  };
  /** @type {Entries} */
  const entries = files.map(row => {
    const { path, size, kind, failure, refs } = row;
    /** @type {string | null} */
    let made = null;
    const url = () => (made ??= urlOf(path));
    const whole = async () => {
      prefetchRefs(refs);
      read.add(row);
      return bufferOf(await fetchWhole(url(), size, path));
    };
    return {
      path,
      size,
      // The server typed the file by content; nothing needs fetching to know it.
      kind: kind ?? null,
      // A container the server could not open: why (the list marks it, opening it says so).
      containerFailure: failure,
      head: async () => new ArrayBuffer(0),
      read: whole,
      // A large file parsed in the worker is fetched there, straight into its memory.
      source: () => ({ url: url() }),
    };
  });
  /** @type {string[]} */
  const problems = listing.problems.map(p => `${listingUrl}: ${p}`);
  /** @type {HostedContainer[]} */
  const hostedContainers = listing.containers ?? [];
  // A container inside another is listed as a folder of its own, not as its outer's file.
  const byPath = new Map(hostedContainers.map(c => [c.path, c]));
  const nestedRows = new Set(
    hostedContainers.flatMap(c => (c.inside ? [`${c.inside.container}\u0000${c.inside.entry}`] : [])),
  );
  /** @type {Map<string, () => string>} */
  const urls = new Map();
  for (const c of hostedContainers) {
    /** @type {string | null} */
    let made = null;
    const url = () => (made ??= urlOf(c.file));
    urls.set(c.path, url);
    const inside = c.inside;
    if (inside) {
      const outer = byPath.get(inside.container);
      const row = outer?.entries.find(r => r[0] === inside.entry);
      const outerUrl = outer && urls.get(outer.path);
      if (!outer || !row || !outerUrl) {
        problems.push(
          `${listingUrl}: ${c.path}: inside ${inside.container}/${inside.entry}, which the index does not list before it`,
        );
        continue;
      }
      c.outer = { container: outer, row, url: outerUrl };
    }
    for (const row of c.entries) {
      const [path, size, kind] = row;
      if (nestedRows.has(`${c.path}\u0000${path}`)) continue;
      // (A large one parsed in the worker is read here, rebuilt, and handed over.)
      const read = () => readHostedEntry(url(), c, row);
      entries.push({
        path: `${c.path}/${path}`,
        size,
        kind,
        head: async () => new ArrayBuffer(0),
        read,
        source: () => ({ read }),
      });
    }
    problems.push(...(c.problems ?? []));
  }
  // The archive's name (its folder, or the container served): what its exports are called.
  if (listing.root) entries.root = listing.root;
  entries.problems = problems;
  return entries;
}

// The first 16 bytes of many local files, read by a worker: each read's completion costs
// the thread that asked for it about a millisecond, which on the page's thread would stall
// input while thousands of files are typed. → Promise of {heads: ArrayBuffers (null:
// unreadable), sizes}, or of null when no worker can run here (the caller then reads them
// itself). (Sending a File costs this thread its size look-up: batches stay small.)
// One worker: with two to four, each given a share of the batches, typing 20,000 files took
// longer here (8.6 s against 7.2 s) and the sends made longer tasks (the browser's file
// look-ups do not overlap).
/** @type {Worker | false | null} */
let headWorker = null;
let headJobs = 0;
/**
 * @param {File[]} files
 * @returns {Promise<{ heads: (ArrayBuffer | null)[], sizes: number[] } | null>}
 */
export function readHeads(files) {
  if (headWorker === false) return Promise.resolve(null);
  try {
    headWorker ||= new Worker(assetUrl('headWorker'));
  } catch {
    headWorker = false;
    return Promise.resolve(null);
  }
  const worker = headWorker;
  const job = ++headJobs;
  return new Promise(resolve => {
    const done = (/** @type {{ heads: (ArrayBuffer | null)[], sizes: number[] } | null} */ heads) => {
      worker.removeEventListener('message', answer);
      worker.removeEventListener('error', failed);
      resolve(heads);
    };
    const answer = (/** @type {MessageEvent} */ e) => {
      if (e.data.job === job) done({ heads: e.data.heads, sizes: e.data.sizes });
    };
    const failed = () => {
      headWorker = false;
      done(null);
    };
    worker.addEventListener('message', answer);
    worker.addEventListener('error', failed);
    worker.postMessage({ job, files });
  });
}
