// @ts-check
// The page's state, defined here and nowhere else, with the core instance in use and the
// helpers every module needs. Other modules read and set these fields; none adds one.

// An element of index.html by its id. Typed `any`: which element each id is (an input, a
// canvas, a dialog) is index.html's, and the modules use each as what it is.
/** @type {(id: string) => any} */
export const $ = id => document.getElementById(id);
// The glue of the wasm instance in use (Viewer, Session, kindOf, kindInfo): replaced when an
// instance traps (core.js). Its types are the core's own declarations (pkg/relicview.d.ts,
// which wasm-bindgen writes from the Rust exports): tsc checks every call against them.
/** @typedef {typeof import('../pkg/relicview.js')} Core */
/** @type {Core} */
export let core = null;
export function setCore(glue) {
  core = glue;
}

// The words of the view's menus, keys and links as the core's enums spell them, written once
// in crates/view/src: {backgrounds, lightings, axisViews, cameraModes, compareModes}.
let words = null;
export function viewWords() {
  words ||= core.viewWords();
  return words;
}

export const state = {
  entries: [],
  /** @type {import('../pkg/relicview.js').Session} */
  session: null, // the core's archive: listing, assets read, reference graph
  byPath: new Map(), // lower-case path → entry: paths on these discs are case-insensitive
  current: null,
  viewport: null,
  /** @type {import('../pkg/relicview.js').Viewer} */
  viewer: null,
  queue: Promise.resolve(), // opens run one after another; the last one asked for wins
  // Where the archive came from, for links: {archive: listing URL} or {folder: fingerprint}.
  source: {},
  // The archive's name where its listing gives one (a served folder's): exports are named
  // after it.
  archiveName: null,
  // The address bar holds a link not yet applied (the page was opened with it, or it was
  // typed in): the next archive restores its view. Once a file shows, the hash is the
  // page's own, and a new archive starts from a clean address.
  linkPending: true,
  // While a file is being opened the hash keeps describing the file on show.
  opening: 0,
  // The viewpoint the camera is at (its index), while it has not moved away.
  viewpoint: null,
  // Counts archives loaded: a folder's typing stops when another one comes.
  generation: 0,
  // Counts opens asked for: an open replaced by a later one is abandoned.
  requests: 0,
  // Files from this size (bytes) on are opened by a worker (opener.js), not on this thread:
  // below it the parse takes under ~100 ms here (wasm parses ~150-200 MB/s on a 2-core
  // EPYC), and the worker's packing and unpacking would cost more than they spare.
  workerThreshold: 16 << 20,
  opener: null,
  // The file an open on this thread is reading, and its bytes once read.
  reading: { path: null, buffer: null },
  // The compiled core, and the traps it recovered from: [{path, message}].
  module: null,
  traps: [],
  // Rejects when the instance in use traps: opens waiting on it give up.
  coreLost: null,
  loseCore: null,
  recovering: null,
  // The instance's wasm exports (memory, for the tests' measurements) and how long its
  // shaders took to compile (ms).
  wasm: null,
  warmUpMs: 0,
  // The rounds of the core's idle warm-up done (recovery.js), the ms they took, the longest.
  coreWarmUp: { rounds: 0, ms: 0, longestMs: 0 },
  // The page's parts, made at boot: the file list, the inspector, the panes, the help.
  files: null,
  inspector: null,
  panes: null,
  help: null,
  // What the last open took ({path, readMs, …}) and how long the last listing took to list
  // and to type (ms), with the timeline of that indexing.
  lastOpen: null,
  lastListMs: 0,
  lastIndexMs: 0,
  indexTimeline: null,
  // The inspector's selection before a click picked a face: a double-click restores it.
  // `undefined` while there is none to restore.
  beforePick: undefined,
  // What listing the containers found wrong without stopping (a name listed twice, an
  // extent past the end), as messages naming the container.
  containerProblems: [],
  // What listing said of a container that is not wrong (a self-extracting program before
  // the archive), as messages naming the container.
  containerNotes: [],
  // Clears the "link copied" note.
  shareTimer: null,
  // The view whose link was last shared, without its clock (null: none, or gone).
  shared: null,
  // Two files compared, while on show: {a, b (paths), result (the CLI's JSON), legend,
  // hasDifference}; null while one file is on show. The inspector that shows them.
  compare: null,
  compareInspector: null,
  // "Compare with…" was asked for this file: the next file chosen in the list is the other.
  comparePick: null,
  // The Export all under way ({cancelled}), or null.
  exportJob: null,
  // Measure mode is on (clicks take points), and the points taken: [[x, y, z]] (0 to 2).
  measuring: false,
  measured: [],
  // The texture gallery's list once made ([card]), and the file whose texture is on show at
  // full size (freed when another is shown or the archive changes).
  textures: null,
  textureFile: null,
};

// Resolves once the page is wired and the core is up; rejects when it could not start.
export let readyResolve, readyReject;
export const ready = new Promise((resolve, reject) => {
  readyResolve = resolve;
  readyReject = reject;
});

// "1 file", "2 files": a count and its noun, plural unless it is one.
// Paths in the list's order: case and accents aside, as these discs' names are. One
// collator, made once: localeCompare with options builds one per call (a 20,000-file sort
// took a second that way, 34 ms this way).
export const comparePaths = new Intl.Collator(undefined, { sensitivity: 'base' }).compare;

export function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function message(err) {
  return err && err.message ? err.message : String(err);
}

// Resolves in a task of its own, after whatever the browser has waiting (input, frames).
export function nextTask() {
  return new Promise(resolve => setTimeout(resolve, 0));
}

// Resolves once the browser has drawn its next frame (what the page changed so far is on
// screen), or after `limitMs` where no frame comes (a hidden page draws none).
export function afterNextFrame(limitMs = 100) {
  return new Promise(resolve => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, limitMs);
  });
}
