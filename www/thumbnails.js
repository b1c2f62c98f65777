// @ts-check
// The thumbnail worker (thumb-worker.js) from the page's side: started at the grid's first
// show with the core's compiled module, listed as the page's session is, asked for one
// thumbnail at a time — the one asked for last first (the cards just scrolled into view) —
// and for which files hold the same bytes. It reads the files itself (opener.js's
// `answerSource` tells it where each is); nothing of the drawing runs on the page's thread.

import { assetUrl } from './assets.js';
import { answerSource } from './opener.js';
import { state } from './state.js';

// A thumbnail's size in pixels (the grid shows it at half that in CSS pixels: sharp on a
// high-density screen).
export const THUMB = { width: 224, height: 168 };
// The thumbnails kept in this browser at most (thumb-store.js).
const KEPT_BYTES = 64 << 20;
// A thumbnail not answered in this long: the worker is taken for stuck, ended, and a new
// one asked (a file that hangs the core's drawing must not stop the grid).
const ANSWER_MS = 30_000;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let answerTimer;

// `src`: the PNG as a data: URL (null: the file has no picture).
/** @typedef {{ src: string | null, cached: boolean, failure: string | null, ms: number }} Thumbnail */

/** @type {Worker | null} */
let worker = null;
/** @type {Listing | null} */
let listed = null;
let asked = 0;
// Paths waiting for their thumbnail, the last asked for on top; what each asker awaits.
/** @type {string[]} */
let waiting = [];
/** @type {Map<string, { resolve: (t: Thumbnail) => void, reject: (e: Error) => void }[]>} */
const askers = new Map();
// The path the worker is drawing now (null: none).
/** @type {string | null} */
let busy = null;
/** @type {Map<number, (value: any) => void>} */
const replies = new Map();
// {drawn, kept, failed, longestMs, stopped}: what the worker did since the page started, for
// scripts (`stopped`: why the last worker ended, where one did).
const counts = { drawn: 0, kept: 0, failed: 0, longestMs: 0, stopped: /** @type {string | null} */ (null) };

function started() {
  if (worker) return worker;
  const opener = state.opener;
  if (!opener) throw new Error('the page has no compiled core for the thumbnails');
  const w = new Worker(assetUrl('thumbWorker'), { type: 'module' });
  w.onmessage = e => answer(w, e.data);
  w.onerror = e => {
    e.preventDefault();
    stop(new Error(`the thumbnail worker stopped: ${e.message || 'script error'}`));
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
  return w;
}

// The worker ended (it failed, or a new archive came): every thumbnail waited for fails.
/** @param {Error} why */
function stop(why) {
  if (worker) counts.stopped = why.message;
  clearTimeout(answerTimer);
  worker?.terminate();
  worker = null;
  busy = null;
  waiting = [];
  for (const list of askers.values()) for (const a of list) a.reject(why);
  askers.clear();
  for (const reply of replies.values()) reply(null);
  replies.clear();
}

// A new archive: the worker's listing and queue go (it starts again when next asked).
export function forgetThumbnails() {
  stop(new Error('another archive was opened'));
}

// The worker listed as the page's session now is.
/** @param {Worker} w */
function listing(w) {
  const now = state.opener?.listing ?? null;
  if (now && now !== listed) w.postMessage({ type: 'listing', ...now });
  listed = now;
}

/** @param {Worker} w @param {any} m */
async function answer(w, m) {
  if (w !== worker) return;
  if (m.type === 'broken') stop(new Error(`the thumbnail worker cannot start: ${m.message}`));
  else if (m.type === 'source') await answerSource(w, m, state.opener?.locate ?? (() => null));
  else if (m.type === 'thumb') {
    busy = null;
    clearTimeout(answerTimer);
    const list = askers.get(m.path) || [];
    askers.delete(m.path);
    if (m.failure) counts.failed++;
    else if (m.cached) counts.kept++;
    else if (m.src) counts.drawn++;
    counts.longestMs = Math.max(counts.longestMs, m.ms);
    for (const a of list) a.resolve({ src: m.src, cached: m.cached, failure: m.failure, ms: m.ms });
    next();
  } else if (replies.has(m.id)) {
    const reply = replies.get(m.id);
    replies.delete(m.id);
    reply?.(m);
  }
}

function next() {
  if (busy !== null || !worker) return;
  const path = waiting.pop();
  if (path === undefined) return;
  busy = path;
  listing(worker);
  worker.postMessage({ type: 'thumb', id: ++asked, path });
  answerTimer = setTimeout(
    () => stop(new Error(`the thumbnail worker gave no answer for ${path} in ${ANSWER_MS / 1000} s`)),
    ANSWER_MS,
  );
}

// The thumbnail of `path`: {src (null: the file has no picture), cached, failure, ms};
// `behind`: drawn after every other waiting (a card out of sight), else before them.
/** @param {string} path @param {boolean} [behind] @returns {Promise<Thumbnail>} */
export function thumbnail(path, behind = false) {
  started();
  return new Promise((resolve, reject) => {
    const list = askers.get(path);
    if (list) {
      list.push({ resolve, reject });
      // Asked again (scrolled back into view): drawn sooner.
      waiting = waiting.filter(p => p !== path);
    } else askers.set(path, [{ resolve, reject }]);
    if (behind) waiting.unshift(path);
    else waiting.push(path);
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

// Of `groups` (paths of one size), those holding the same bytes → [[path, …]].
/** @param {string[][]} groups @returns {Promise<string[][]>} */
export async function sameBytes(groups) {
  if (!groups.length) return [];
  const w = started();
  listing(w);
  const id = ++asked;
  const m = await new Promise(resolve => {
    replies.set(id, resolve);
    w.postMessage({ type: 'same', id, groups });
  });
  return m?.same ?? [];
}

// What the thumbnails cost and what the store kept: {drawn, kept, failed, longestMs, stopped,
// drawing (the path being drawn), store}.
export async function thumbnailStats() {
  /** @type {unknown} */
  let store = null;
  if (worker) {
    const id = ++asked;
    const w = worker;
    const m = await new Promise(resolve => {
      replies.set(id, resolve);
      w.postMessage({ type: 'stats', id });
    });
    store = m?.stats ?? null;
  }
  return { ...counts, drawing: busy, store };
}
