// @ts-check
// The archive's listing: entries sorted and indexed by path, typed (by name where the name
// says, by their first bytes in batches where it does not, every name then confirmed by
// content in the background), and handed to the core's sessions.

import { readHeads } from './files.js';
import { broadcastKinds, broadcastListing, broadcastSizes } from '../ground/listings.js';
import { fingerprint } from '../ground/urlstate.js';
import { $, comparePaths, core, count, nextTask, state } from '../ground/state.js';

// What the core says of a kind (badge, title, what its files can do), asked once per kind.
/** @type {Map<string, import('../../pkg/relicview.js').KindInfo>} */
const kinds = new Map();

/** @param {Pick<Entry, 'kind'>} entry @returns {import('../../pkg/relicview.js').KindInfo} */
export function kindOfEntry(entry) {
  const kind = entry.kind || 'unknown';
  let info = kinds.get(kind);
  if (!info) kinds.set(kind, (info = core.kindInfo(kind)));
  return info;
}

// A new listing, in tasks of their own: sorting and indexing, the core's listing, then the
// rows (some 50, 30 and 50 ms for 20,000 files: one task of 220 ms with the naming before
// them). The old rows go at once, and the core knows every path before a row can be
// clicked. → false once another archive came (`generation`).
/** @param {Entry[]} entries @param {string} sourceLabel @param {typeof state.source} source @param {number} generation */
export async function setEntries(entries, sourceLabel, source, generation) {
  state.files.set([]);
  const sorted = entries.slice().sort((a, b) => comparePaths(a.path, b.path));
  const byPath = new Map(sorted.map(e => [e.path.toLowerCase(), e]));
  await nextTask();
  if (generation !== state.generation) return false;
  state.source = source;
  state.entries = sorted;
  state.byPath = byPath;
  setListing();
  await nextTask();
  if (generation !== state.generation) return false;
  state.files.set(state.entries);
  document.body.classList.toggle('empty', state.entries.length === 0);
  $('archive-summary').textContent = `${count(state.entries.length, 'file')} · ${sourceLabel}`;
  return true;
}

// The listing's kinds as the core numbers them (kindWords), one byte a file.
function kindNumbers() {
  const numbers = new Map(core.kindWords().map((word, n) => [word, n]));
  return Uint8Array.from(state.entries, e => numbers.get(e.kind || 'unknown') ?? core.noKind());
}

// The listing's sizes as the core takes them, one number a file: NaN where a picked file's
// is not looked up yet (that costs the page half a millisecond a file: fingerprintFolder
// looks them up in the background, then setSizes).
function sizeNumbers() {
  return Float64Array.from(state.entries, e => (e.sized === false ? NaN : e.size));
}

// Every instance that keeps the listing learns it (listings.js), its kinds and its sizes.
// (The paths joined into one string with the lengths beside it: see Session.setListing.)
export function setListing() {
  const paths = state.entries.map(e => e.path).join('');
  const lengths = Uint32Array.from(state.entries, e => e.path.length);
  broadcastListing({ paths, lengths, kinds: kindNumbers(), sizes: sizeNumbers() });
  if (holdsLargeFile()) state.opener?.warm();
}

// The core's archives learn every size, once a picked folder's are all looked up: an FF7
// field finds the fields that lead to it by their sizes (FIELD.BIN's table).
function setSizes() {
  broadcastSizes(sizeNumbers());
}

// Whether a file of the listing is known to be large enough to open in the worker (a local
// file's size is known once looked up: see files.js).
function holdsLargeFile() {
  return state.entries.some(e => e.sized !== false && e.size >= state.workerThreshold);
}

// The core's archives learn new kinds for the same listing (typing by content ended): its
// index of paths is kept, not rebuilt (that took 25–37 ms for 20,000 files, a task of its
// own that could pass 50 ms).
export function setKinds() {
  broadcastKinds(kindNumbers());
  if (holdsLargeFile()) state.opener?.warm();
}

/** @param {string | null} path */
export function markSelected(path) {
  state.files.mark(path);
}

// Type the files whose names say nothing (marked `pending`) by their content: the first 16
// bytes (magic), then the name. Files are read in batches, with a progress bar, since an
// archive can hold thousands; the list is already on show and each batch gives its rows
// their kinds. Stops when another archive is loaded (`generation` changes).
// A batch of local files costs this thread 0.33–0.84 ms a file to send to the head worker
// (the browser looks each size up as it sends it): 50 keep each task under 50 ms (with 100,
// 49 tasks of 20,000 files' typing passed 50 ms and some 100 ms; with 50, 7), and the next
// batches are sent before this one is typed, so that the worker reads while we type.
const BATCH = 50;

// The first bytes of a batch (null where unreadable); local files learn their sizes too.
/** @param {Entry[]} batch @returns {Promise<(ArrayBuffer | null)[]>} */
async function headsOf(batch) {
  const files = batch.map(e => e.file);
  const read = files.every(f => f !== undefined) ? await readHeads(files) : null;
  if (!read) return Promise.all(batch.map(e => (e.head ? e.head().catch(() => null) : null)));
  batch.forEach((e, k) => {
    const size = read.sizes[k];
    if (size !== undefined) e.learnSize?.(size);
  });
  return read.heads;
}

// Each batch of `entries` with its heads, read AHEAD batches ahead (200 files), each sent once
// `before()` (if given) has resolved. → false once `generation` is not the archive's any more.
const AHEAD = 4;
/** @param {Entry[]} entries @param {number} generation @param {(batch: Entry[], heads: (ArrayBuffer | null)[], at: number) => unknown} each @param {(() => Promise<void>) | null} [before] */
async function forEachHeads(entries, generation, each, before = null) {
  /** @type {Promise<(ArrayBuffer | null)[] | null>[]} */
  const queue = [];
  // (Each batch sent in a task of its own: sending is the costly part for this thread.)
  /** @template T @param {number} tasks @param {() => Promise<T>} f @returns {Promise<T>} */
  const later = (tasks, f) => (tasks === 0 ? f() : nextTask().then(() => later(tasks - 1, f)));
  const send = async (/** @type {Entry[]} */ batch) => {
    if (before) await before();
    return generation === state.generation ? headsOf(batch) : null;
  };
  for (let i = 0; i < entries.length; i += BATCH) {
    for (
      let j = i + queue.length * BATCH, k = 0;
      queue.length < AHEAD && j < entries.length;
      j += BATCH, k++
    ) {
      const batch = entries.slice(j, j + BATCH);
      queue.push(later(k, () => send(batch)));
    }
    const heads = await queue.shift();
    if (generation !== state.generation) return false;
    await each(entries.slice(i, i + BATCH), heads ?? [], i);
    if (generation !== state.generation) return false;
  }
  return true;
}

/** @param {Entry[]} entries @param {number} generation */
export async function typeEntries(entries, generation) {
  const bar = $('index-progress');
  const pending = entries.filter(e => e.pending);
  bar.max = pending.length;
  bar.value = 0;
  bar.hidden = pending.length < 200;
  $('file-list').dataset.typing = String(pending.length > 0);
  let lastChips = performance.now();
  const typed = await forEachHeads(pending, generation, async (batch, heads, i) => {
    const kinds = batch.map((e, k) =>
      heads[k]
        ? core.kindOf(e.path, new Uint8Array(/** @type {ArrayBuffer} */ (heads[k])), e.size)
        : 'unknown',
    );
    batch.forEach((e, k) => state.files.setKind(e, kinds[k] ?? 'unknown'));
    state.files.refresh();
    bar.value = Math.min(pending.length, i + BATCH);
    // The chips' counts follow a few times a second.
    if (performance.now() - lastChips > 250) {
      state.files.renderKinds();
      lastChips = performance.now();
    }
    await nextTask();
  });
  if (!typed) return false;
  bar.hidden = true;
  $('file-list').dataset.typing = 'false';
  state.files.renderKinds();
  state.files.refresh();
  return true;
}

// The heads of the files typed by their names, read in the background to confirm each
// name by its content (a .BGF that holds a picture becomes "misnamed" without being
// opened). Never while a file is being opened, which would wait on the same reads; stops
// when another archive is loaded. Resolves with the number of kinds corrected, or null
// when interrupted by another archive.
/** @param {Entry[]} entries @param {number} generation */
export async function confirmKinds(entries, generation) {
  const named = entries.filter(e => e.byName && !e.confirmOnOpen);
  let corrected = 0;
  // (A task first: an open asked for just now has begun by then.)
  const noOpen = async () => {
    await nextTask();
    while (state.opening > 0 && generation === state.generation) await new Promise(r => setTimeout(r, 50));
  };
  const done = await forEachHeads(
    named,
    generation,
    (batch, heads) => {
      let changed = false;
      batch.forEach((e, k) => {
        e.byName = false;
        const head = heads[k];
        if (!head) return;
        const kind = core.kindOf(e.path, new Uint8Array(head), e.size);
        if (kind === e.kind) return;
        state.files.setKind(e, kind);
        corrected++;
        changed = true;
      });
      if (changed) {
        state.files.refresh();
        state.files.renderKinds();
        setKinds();
      }
    },
    noOpen,
  );
  return done ? corrected : null;
}

// A local folder's fingerprint (for its links) needs every file's size: those not learnt
// from the head worker are looked up here, 100 to a task (some 50 ms), so that a folder of
// 20,000 never blocks the page. Fills state.source.folder; → false if another archive came.
/** @param {number} generation */
export async function fingerprintFolder(generation) {
  // (An archive dropped since is not this one: its fingerprint is not ours to report.)
  if (state.source?.folder !== null) return generation === state.generation;
  const entries = state.entries;
  for (let i = 0; i < entries.length; i += 100) {
    for (const e of entries.slice(i, i + 100)) if (e.sized === false && e.file) e.learnSize?.(e.file.size);
    await nextTask();
    if (generation !== state.generation) return false;
  }
  state.source.folder = fingerprint(entries);
  setSizes();
  return true;
}
