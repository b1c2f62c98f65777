// @ts-check
// The page's state, defined here and nowhere else, with the core instance in use and the
// helpers every module needs. Other modules read and set these fields; none adds one.

// An element of index.html by its id, typed as index.html declares it (www/ground/page-elements.d.ts,
// which tests/layers.rs checks against index.html): $('export-rig') is an HTMLSelectElement.
/**
 * @template {keyof PageElements} K
 * @param {K} id
 * @returns {PageElements[K]}
 */
export const $ = id => /** @type {PageElements[K]} */ (document.getElementById(id));
// The glue of the wasm instance in use (Viewer, Session, kindOf, kindInfo): replaced when an
// instance traps (core.js). Its types are the core's own declarations (pkg/relicview.d.ts,
// which wasm-bindgen writes from the Rust exports): tsc checks every call against them.
/** @typedef {typeof import('../../pkg/relicview.js')} Core */
/** @typedef {import('../../pkg/relicview.js').Session} Session */
/** @typedef {import('../../pkg/relicview.js').Viewer} Viewer */
/** @typedef {import('../../pkg/relicview.js').OpenedFile} OpenedFile */

// What a field set at boot holds before then (main.js and recovery.js set them before any
// module reads them): typed as what it will hold.
const atBoot = /** @type {unknown} */ (null);

/** @type {Core} */
export let core = /** @type {Core} */ (atBoot);
/** @param {Core} glue */
export function setCore(glue) {
  core = glue;
}

// The words of the view's menus, keys and links as the core's enums spell them, written once
// in crates/view/src: {backgrounds, lightings, axisViews, cameraModes, compareModes}.
/** @type {import('../../pkg/relicview.js').Words | null} */
let words = null;
export function viewWords() {
  words ||= core.viewWords();
  return words;
}

export const state = {
  /** @type {Entry[]} */
  entries: [],
  session: /** @type {Session} */ (atBoot), // the core's archive: listing, assets read, reference graph
  /** @type {Map<string, Entry>} */
  byPath: new Map(), // lower-case path → entry: paths on these discs are case-insensitive
  /** @type {string | null} */
  current: null,
  viewport: /** @type {import('../panes/viewport.js').Viewport} */ (atBoot),
  viewer: /** @type {Viewer} */ (atBoot),
  /** @type {Promise<unknown>} */
  queue: Promise.resolve(), // opens run one after another; the last one asked for wins
  // Where the archive came from, for links: {archive: listing URL} or {folder: fingerprint}.
  /** @type {{ archive?: string, folder?: string | null }} */
  source: {},
  // The archive's name where its listing gives one (a served folder's): exports are named
  // after it.
  /** @type {string | null} */
  archiveName: null,
  // The address bar holds a link not yet applied (the page was opened with it, or it was
  // typed in): the next archive restores its view. Once a file shows, the hash is the
  // page's own, and a new archive starts from a clean address.
  linkPending: true,
  // While a file is being opened the hash keeps describing the file on show.
  opening: 0,
  // The viewpoint the camera is at (its index), while it has not moved away.
  /** @type {number | null} */
  viewpoint: null,
  // Counts archives loaded: a folder's typing stops when another one comes.
  generation: 0,
  // Counts opens asked for: an open replaced by a later one is abandoned.
  requests: 0,
  // Files from this size (bytes) on are opened by a worker (opener.js), not on this thread:
  // below it the parse takes under ~100 ms here (wasm parses ~150-200 MB/s on a 2-core
  // EPYC), and the worker's packing and unpacking would cost more than they spare.
  workerThreshold: 16 << 20,
  /** @type {import('../sources/opener.js').WorkerOpener | null} */
  opener: null,
  // The compiled core.
  module: /** @type {WebAssembly.Module} */ (atBoot),
  // The page's parts, made at boot: the file list, the inspector, the panes.
  files: /** @type {import('../panes/filelist.js').FileList} */ (atBoot),
  inspector: /** @type {import('../panes/inspector.js').Inspector} */ (atBoot),
  panes: /** @type {import('./panes.js').Panes} */ (atBoot),
  // Two files compared, while on show: {a, b (paths), result (the CLI's JSON), legend,
  // hasDifference}; null while one file is on show. The inspector that shows them.
  /** @type {Comparison | null} */
  compare: null,
  compareInspector: /** @type {import('../panes/compareview.js').CompareInspector} */ (atBoot),
  // The points measure mode took: [[x, y, z]] (0 to 2).
  /** @type {[number, number, number][]} */
  measured: [],
};

// Resolves once the page is wired and the core is up; rejects when it could not start.
/** @type {(value?: unknown) => void} */
export let readyResolve;
/** @type {(why: unknown) => void} */
export let readyReject;
export const ready = new Promise((resolve, reject) => {
  readyResolve = resolve;
  readyReject = reject;
});

// "1 file", "2 files": a count and its noun, plural unless it is one.
// Paths in the list's order: case and accents aside, as these discs' names are. One
// collator, made once: localeCompare with options builds one per call (a 20,000-file sort
// took a second that way, 34 ms this way).
export const comparePaths = new Intl.Collator(undefined, { sensitivity: 'base' }).compare;

/** @param {number} n @param {string} noun */
export function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// The page's elements found by a selector, as HTML elements (an SVG one is not one).
/** @param {ParentNode} root @param {string} selector @returns {HTMLElement | null} */
export function first(root, selector) {
  const el = root.querySelector(selector);
  return el instanceof HTMLElement ? el : null;
}
/** @param {ParentNode} root @param {string} selector @returns {HTMLElement[]} */
export function all(root, selector) {
  return [...root.querySelectorAll(selector)].filter(el => el instanceof HTMLElement);
}
// The nearest element at or above an event's target that `selector` finds (null: none).
/** @param {Event} e @param {string} selector @returns {HTMLElement | null} */
export function closestTo(e, selector) {
  const el = e.target instanceof Element ? e.target.closest(selector) : null;
  return el instanceof HTMLElement ? el : null;
}

// A path's last part: the file's own name.
/** @param {string} path */
export function fileName(path) {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** @param {unknown} err */
export function message(err) {
  return err instanceof Error && err.message ? err.message : String(err);
}

// A phone (or a window as narrow): the panes stack in one scrolling column, the list above
// the view (style.css's `max-width: 760px` rules). Asked when first used: the module is also
// loaded where there is no window (node's tests of the file list).
/** @type {MediaQueryList | null} */
let narrowQuery = null;
export function narrow() {
  narrowQuery ??= window.matchMedia('(max-width: 760px)');
  return narrowQuery;
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
