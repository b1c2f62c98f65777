// @ts-check
// The thumbnail worker (thumb-worker.js) from the page's side: started at the grid's first
// show with the core's compiled module, listed as the page's session is, asked for one
// thumbnail at a time — the one asked for last first (the cards just scrolled into view) —
// and for which files hold the same bytes. It reads the files itself (opener.js's
// `answerSource` tells it where each is); nothing of the drawing runs on the page's thread.
//
// Every question has an end (docs/architecture.md, "The grid's worker"): while the worker
// holds one, it is asked every PING_MS how it goes, and its answer says which thumbnail it
// was last asked for and which it is drawing. A request it never got, or an answer that never
// came, is asked again (at most RESENDS times a thumbnail); a worker silent for SILENT_MS (ended
// by the browser, or stuck in a long task), or a thumbnail not drawn in ANSWER_MS, ends that
// worker: the thumbnail it was drawing is tried once more after the others, by a new worker
// (at most RESTARTS new ones an archive), and fails with the reason the second time. A worker
// that cannot start at all fails every thumbnail with its reason. So no card waits for ever.

import { assetUrl } from '../ground/assets.js';
import { currentListing } from '../ground/listings.js';
import { answerSource } from './opener.js';
import { state } from '../ground/state.js';

// A thumbnail's size in pixels (the grid shows it at half that in CSS pixels: sharp on a
// high-density screen).
export const THUMB = { width: 224, height: 168 };
// The thumbnails kept in this browser at most (thumb-store.js).
const KEPT_BYTES = 64 << 20;
// How often a worker holding a question is asked how it goes; how long it may say nothing
// (its drawing yields between frames, so only a single step longer than this, or a worker
// the browser ended, is silent that long); the longest one thumbnail may take from when the
// worker took it; the longest the search for copies may take.
const PING_MS = 1_000;
const SILENT_MS = 10_000;
const ANSWER_MS = 60_000;
const SAME_MS = 300_000;
// Times a thumbnail is asked again after its request or answer was lost; new workers started
// for an archive after one was lost.
const RESENDS = 2;
const RESTARTS = 3;

// `src`: the PNG as a data: URL (null: the file has no picture).
/** @typedef {{ src: string | null, cached: boolean, failure: string | null, ms: number }} Thumbnail */
/** @typedef {{ resolve: (t: Thumbnail) => void, reject: (e: Error) => void }} Asker */
/** @typedef {{ path: string, id: number, sent: number, taken: number | null, resends: number }} Drawing */
/** @typedef {{ id: number, type: string, resolve: (m: any) => void, until: number }} Question */

/** @type {Worker | null} */
let worker = null;
/** @type {Listing | null} */
let listed = null;
let asked = 0;
// Paths waiting for their thumbnail, the last asked for on top; what each asker awaits.
/** @type {string[]} */
let waiting = [];
/** @type {Map<string, Asker[]>} */
const askers = new Map();
// Paths whose drawing was under way when their worker was lost: tried once more, then failed.
/** @type {Set<string>} */
let retried = new Set();
// The thumbnail the worker is drawing now (null: none), and the other questions it holds.
/** @type {Drawing | null} */
let busy = null;
/** @type {Map<number, Question>} */
const questions = new Map();
// When the worker last said anything; the watch that asks it how it goes.
let heard = 0;
/** @type {ReturnType<typeof setInterval> | undefined} */
let watch;
// Workers started for this archive after one was lost; why the grid's worker gave up, if it did.
let restarts = 0;
/** @type {string | null} */
let givenUp = null;
// {drawn, kept, failed, longestMs, stopped, lost, resent}: what the worker did since the page
// started, for scripts (`stopped`: why the last worker ended, where one did; `lost`: workers
// ended for silence or slowness; `resent`: questions asked again after one was lost).
const counts = {
  drawn: 0,
  kept: 0,
  failed: 0,
  longestMs: 0,
  stopped: /** @type {string | null} */ (null),
  lost: 0,
  resent: 0,
};

function started() {
  if (worker) return worker;
  const opener = state.opener;
  if (!opener) throw new Error('the page has no compiled core for the thumbnails');
  const w = new Worker(assetUrl('thumbWorker'), { type: 'module' });
  w.onmessage = e => answer(w, e.data);
  w.onerror = e => {
    e.preventDefault();
    lose(`it stopped: ${e.message || 'script error'}`);
  };
  w.postMessage({
    type: 'init',
    module: opener.module,
    build: assetUrl('core'),
    width: THUMB.width,
    height: THUMB.height,
    limitBytes: KEPT_BYTES,
  });
  worker = w;
  listed = null;
  heard = performance.now();
  clearInterval(watch);
  watch = setInterval(check, PING_MS);
  return w;
}

/** @param {string} path @param {Thumbnail} t */
function settle(path, t) {
  const list = askers.get(path) || [];
  askers.delete(path);
  for (const a of list) a.resolve(t);
}

/** @param {string} path @param {string} why */
function fail(path, why) {
  counts.failed++;
  settle(path, { src: null, cached: false, failure: why, ms: 0 });
}

// The worker and its questions end; `why` is said wherever it is asked.
/** @param {string} why */
function end(why) {
  if (worker) counts.stopped = why;
  clearInterval(watch);
  watch = undefined;
  worker?.terminate();
  worker = null;
  for (const q of questions.values()) q.resolve(null);
  questions.clear();
}

// The worker was lost (silent, too slow, or an error it did not catch): what it was drawing
// is tried once more after the others, by a new worker, or fails; past RESTARTS new workers,
// every waiting thumbnail fails with the reason.
/** @param {string} why */
function lose(why) {
  const drawing = busy;
  busy = null;
  counts.lost++;
  end(`the thumbnail worker was ended: ${why}`);
  if (drawing) {
    if (retried.has(drawing.path))
      fail(drawing.path, `the thumbnail worker was ended twice while drawing it (${why})`);
    else {
      retried.add(drawing.path);
      waiting.unshift(drawing.path);
    }
  }
  if (++restarts > RESTARTS) giveUp(`the thumbnail worker was ended ${restarts} times (the last: ${why})`);
  else next();
}

// No more thumbnails for this archive: every waiting one fails with `why`.
/** @param {string} why */
function giveUp(why) {
  givenUp = why;
  const left = [...new Set([...waiting, ...askers.keys()])];
  waiting = [];
  busy = null;
  end(why);
  for (const path of left) fail(path, why);
}

// A new archive: the worker's listing and queue go (it starts again when next asked).
export function forgetThumbnails() {
  const why = new Error('another archive was opened');
  busy = null;
  waiting = [];
  end(why.message);
  for (const list of askers.values()) for (const a of list) a.reject(why);
  askers.clear();
  retried = new Set();
  restarts = 0;
  givenUp = null;
}

// The worker listed as the page's session now is.
/** @param {Worker} w */
function listing(w) {
  const now = currentListing();
  if (now && now !== listed) w.postMessage({ type: 'listing', ...now });
  listed = now;
}

/** @param {Worker} w @param {any} m */
async function answer(w, m) {
  if (w !== worker) return;
  heard = performance.now();
  if (m.type === 'broken') giveUp(`the thumbnail worker cannot start: ${m.message}`);
  else if (m.type === 'source') await answerSource(w, m, state.opener?.locate ?? (() => null));
  else if (m.type === 'thumb') {
    if (!busy || busy.id !== m.id) return;
    const path = busy.path;
    busy = null;
    if (m.failure) counts.failed++;
    else if (m.cached) counts.kept++;
    else if (m.src) counts.drawn++;
    counts.longestMs = Math.max(counts.longestMs, m.ms);
    settle(path, { src: m.src, cached: m.cached, failure: m.failure, ms: m.ms });
    next();
  } else if (m.type === 'pong') pong(m);
  else if (questions.has(m.id)) {
    const q = questions.get(m.id);
    questions.delete(m.id);
    q?.resolve(m);
  }
}

// The worker's word on how it goes: {asked (the last thumbnail it was asked for), drawing
// (the one under way, or null)}. Messages each way keep their order, so a thumbnail asked
// before this ping that the worker never got, or one it has answered without the answer
// arriving before this word, was lost on the way: it is asked again.
/** @param {{ asked: number, drawing: number | null, ping: number }} m */
function pong(m) {
  const d = busy;
  if (!d || m.ping < d.id) return;
  if (m.drawing === d.id) {
    d.taken ??= performance.now();
    return;
  }
  const lost = m.asked < d.id ? 'its request never reached the worker' : 'its answer never came back';
  if (d.resends >= RESENDS) {
    busy = null;
    fail(d.path, `the thumbnail was asked for ${RESENDS + 1} times and ${lost} each time`);
    next();
    return;
  }
  counts.resent++;
  send(d.path, d.resends + 1);
}

// Every PING_MS while the worker holds a question: a worker silent too long, or a thumbnail
// taking too long, is lost; else it is asked how it goes.
function check() {
  const w = worker;
  if (!w || (!busy && questions.size === 0)) return;
  const now = performance.now();
  if (now - heard > SILENT_MS) {
    const what = busy ? `drawing ${busy.path}` : 'looking for copies';
    return lose(`it said nothing for ${SILENT_MS / 1000} s while ${what}`);
  }
  if (busy?.taken && now - busy.taken > ANSWER_MS)
    return lose(`no thumbnail of ${busy.path} in ${ANSWER_MS / 1000} s`);
  for (const q of questions.values()) {
    if (now > q.until) {
      questions.delete(q.id);
      q.resolve(null);
    }
  }
  w.postMessage({ type: 'ping', id: asked });
}

// The worker is about to hold a question: if it held none, its silence counts from now.
function expecting() {
  if (!busy && questions.size === 0) heard = performance.now();
}

/** @param {string} path @param {number} resends */
function send(path, resends) {
  const w = started();
  listing(w);
  expecting();
  busy = { path, id: ++asked, sent: performance.now(), taken: null, resends };
  w.postMessage({ type: 'thumb', id: busy.id, path });
}

function next() {
  if (busy !== null || givenUp) return;
  const path = waiting.pop();
  if (path !== undefined) send(path, 0);
}

// The thumbnail of `path`: {src (null: the file has no picture), cached, failure, ms};
// `behind`: drawn after every other waiting (a card out of sight), else before them.
// Rejects only when another archive is opened.
/** @param {string} path @param {boolean} [behind] @returns {Promise<Thumbnail>} */
export function thumbnail(path, behind = false) {
  return new Promise((resolve, reject) => {
    if (givenUp) {
      counts.failed++;
      resolve({ src: null, cached: false, failure: givenUp, ms: 0 });
      return;
    }
    const list = askers.get(path);
    if (list) {
      list.push({ resolve, reject });
      // Asked again (scrolled back into view): drawn sooner.
      waiting = waiting.filter(p => p !== path);
    } else askers.set(path, [{ resolve, reject }]);
    if (busy?.path !== path) {
      if (behind) waiting.unshift(path);
      else waiting.push(path);
    }
    next();
  });
}

// `path` is no longer in view: drawn after those that are.
/** @param {string} path */
export function deferThumbnail(path) {
  const i = waiting.indexOf(path);
  if (i > 0) {
    waiting.splice(i, 1);
    waiting.unshift(path);
  }
}

// A question with an answer by id, null when the worker is lost or `ms` pass.
/** @param {string} type @param {object} body @param {number} ms @returns {Promise<any>} */
function question(type, body, ms) {
  if (givenUp) return Promise.resolve(null);
  const w = started();
  listing(w);
  expecting();
  const id = ++asked;
  return new Promise(resolve => {
    questions.set(id, { id, type, resolve, until: performance.now() + ms });
    w.postMessage({ type, id, ...body });
  });
}

// Of `groups` (paths of one size), those holding the same bytes → [[path, …]]; null when
// they could not be looked at (the worker was lost, or it took longer than SAME_MS).
/** @param {string[][]} groups @returns {Promise<string[][] | null>} */
export async function sameBytes(groups) {
  if (!groups.length) return [];
  const m = await question('same', { groups }, SAME_MS);
  return m?.same ?? null;
}

// Why `path`'s thumbnail is not in yet, in words: being drawn (for how long), waiting (behind
// how many), or not asked for (its card not yet in sight).
/** @param {string} path */
export function thumbnailWait(path) {
  const now = performance.now();
  if (busy?.path === path) {
    const s = ((now - busy.sent) / 1000).toFixed(1);
    return busy.taken ? `being drawn for ${s} s` : `asked ${s} s ago, not yet taken by the worker`;
  }
  const i = waiting.indexOf(path);
  if (i >= 0) return `waiting, ${waiting.length - 1 - i} to be drawn before it`;
  return askers.has(path) ? 'asked for' : 'not asked for (not yet in sight)';
}

// What the thumbnails cost and what the store kept: {drawn, kept, failed, longestMs, stopped,
// lost, resent, drawing (the path being drawn), waiting (how many), givenUp, store}.
export async function thumbnailStats() {
  const m = worker ? await question('stats', {}, SILENT_MS) : null;
  return {
    ...counts,
    drawing: busy?.path ?? null,
    waiting: waiting.length,
    givenUp,
    store: m?.stats ?? null,
  };
}
