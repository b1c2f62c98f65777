// @ts-check
// The core's lifecycle: an instance with its viewer and session, the page's reads for it,
// and a fresh instance when one traps.

import { instantiate } from '../ground/core.js';
import { $, core, message, setCore, state } from '../ground/state.js';
import { setExport, showError } from '../panes/infopane.js';
import { holdListing, sessionHolder } from '../ground/listings.js';
import { endLoading, loadingProgress } from '../ground/loading.js';
import { keepRead, resetOpens } from '../ground/opens.js';

// The traps the core recovered from: [{path, message}].
/** @type {{ path: string | null, message: string }[]} */
export const traps = [];
// Rejects when the instance in use traps: opens waiting on it give up.
/** @type {Promise<never> | null} */
export let coreLost = null;
// The instance's wasm exports (memory, for the tests' measurements) and how long its
// shaders took to compile (ms).
/** @type {{ memory: WebAssembly.Memory } | null} */
export let wasm = null;
export let warmUpMs = 0;
// The rounds of the core's idle warm-up done, the ms they took, the longest.
export let coreWarmUp = { rounds: 0, ms: 0, longestMs: 0 };

// Rejects the opens waiting on the instance in use when it traps; the recovery under way.
/** @type {((err: unknown) => void) | null} */
let loseCore = null;
/** @type {Promise<unknown> | null} */
let recovering = null;

// How the core reads an archive file: → Promise<ArrayBuffer>.
/** @param {string} path @returns {Promise<ArrayBuffer>} */
function readForCore(path) {
  const entry = state.byPath.get(path.toLowerCase());
  // Each file read while opening shows: a world reads its models one after another.
  if (state.opening && path.toLowerCase() !== state.current?.toLowerCase())
    loadingProgress(`reading ${path}`);
  if (!entry) return Promise.reject(new Error('not in the archive'));
  // The file being opened is kept as read: the hex view shows it as stored from this
  // buffer rather than from a copy of the core's. A read that takes long (a 7z's solid block
  // decoded) says how far it got.
  /** @type {ReadProgress} */
  const progress = (what, done, total) => {
    if (state.opening) loadingProgress(what, done, total);
  };
  return entry.read(progress).then(buffer => {
    keepRead(entry.path, buffer);
    return buffer;
  });
}

// Lets the session of an instance that trapped go of the listing.
let releaseListing = () => {};

// Instance `generation` of the core, with the viewer and the archive session on it.
// `shadersLater`: the viewer's shaders are compiled once the page is idle after its first
// frame (a link to a file), not now.
/** @param {number} generation @param {{ shadersLater?: boolean }} [how] */
export async function startCore(generation, { shadersLater = false } = {}) {
  const { glue, exports } = await instantiate(state.module, generation);
  setCore(glue);
  wasm = exports;
  state.viewer = new core.Viewer($('viewport'));
  if (shadersLater) warmShadersAfterFirstFrame(state.viewer);
  else warmUpMs = state.viewer.warmUp();
  state.session = new core.Session(readForCore);
  // The archive's listing, now and as it changes (a new instance is given the current one).
  releaseListing();
  releaseListing = holdListing(sessionHolder(state.session));
  if (state.viewport) state.viewport.useViewer(state.viewer);
  coreLost = new Promise((_, reject) => {
    loseCore = reject;
  });
  coreLost.catch(() => {});
  warmCoreWhenIdle(generation);
}

// The viewer's shaders compiled ahead (Viewer.warmUp) make the first file a reader opens
// draw sooner, but the software rasteriser compiles them for real when the page next paints:
// some 190 ms of a cold link's wait here, which its one model needs a few of. A link to a
// file opens that file first, and the rest are compiled when the page is idle after its
// frame (or after 5 s without one: a link to a file that fails).
/** @param {import('../ground/state.js').Viewer} viewer */
function warmShadersAfterFirstFrame(viewer) {
  let done = false;
  const warm = () => {
    if (done || state.viewer !== viewer) return;
    done = true;
    document.removeEventListener('relicview:frame', later);
    warmUpMs = viewer.warmUp();
    // (The warm-up draws to the canvas and clears it: the view on show is drawn again.)
    state.viewport?.requestFrame().catch(() => {});
  };
  const idle = () =>
    typeof requestIdleCallback === 'function'
      ? requestIdleCallback(warm, { timeout: 2000 })
      : setTimeout(warm, 200);
  const later = () => idle();
  document.addEventListener('relicview:frame', later, { once: true });
  setTimeout(idle, 5000);
}

// The core's idle warm-up: a browser compiles a wasm function fully only once it has done
// a good deal of work, so the first file opened ran its parser and world builder several
// times slower than the next. While the page is idle and nothing is being opened, a few
// short rounds open a small built-in world and model from memory and let them go
// (`exerciseCore`, crates/services/src/demo.rs). Each round is one task of some 5–30 ms (the first
// rounds, whose code is compiled as it first runs, are the smallest); none runs while a
// file opens, and a newer instance of the core (after a trap) starts its own.
// [city side in blocks, model patches] of each round.
/** @type {[number, number][]} */
const WARM_ROUNDS = [[3, 1], [5, 2], [8, 3], ...Array(14).fill([10, 4])];

/** @param {number} generation */
function warmCoreWhenIdle(generation) {
  coreWarmUp = { rounds: 0, ms: 0, longestMs: 0 };
  const idle = (/** @type {() => void} */ step) =>
    typeof requestIdleCallback === 'function'
      ? requestIdleCallback(step, { timeout: 2000 })
      : setTimeout(step, 200);
  const step = () => {
    const round = WARM_ROUNDS[coreWarmUp.rounds];
    if (traps.length !== generation || !round) return;
    // (An idle period is at most a frame's rest while anything animates: a round may run
    // past it, as one short task.)
    if (state.opening) {
      idle(step);
      return;
    }
    try {
      const ms = core.exerciseCore(...round);
      coreWarmUp.ms += ms;
      coreWarmUp.longestMs = Math.max(coreWarmUp.longestMs, ms);
      coreWarmUp.rounds++;
    } catch (err) {
      // (A warm-up that fails costs nothing but its own speed-up; the files open as before.)
      console.warn('relicview: the core warm-up stopped:', message(err));
      return;
    }
    idle(step);
  };
  idle(step);
}

// The core trapped: start a new instance, give it the archive's listing, mark the file that
// was on show or opening, and say what happened over the view. The next open works.
/** @param {unknown} err */
export function recoverFromTrap(err) {
  recovering ||= (async () => {
    const path = state.current;
    // The panic's own words where the core left them, else the trap's.
    const said = globalThis.relicviewPanic;
    globalThis.relicviewPanic = undefined;
    const trap = { path, message: said || message(err) };
    traps.push(trap);
    loseCore?.(err);
    resetOpens();
    await startCore(traps.length);
    const entry = path && state.byPath.get(path.toLowerCase());
    const why = `The viewer's core stopped${path ? ' on this file' : ''} (${trap.message}). It has been restarted: the archive is still open, and other files open as before.`;
    if (entry) state.files.setFailed(entry, true, why);
    // Nothing of the lost instance's stays on show: its records, its progress.
    state.inspector.show(null, []);
    endLoading();
    setExport(false, "the viewer's core was restarted");
    showError(path || 'relicview', new Error(why));
    state.viewport.requestFrame().catch(() => {});
    recovering = null;
  })();
  return recovering;
}
