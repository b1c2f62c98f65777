// @ts-check
// What the view says while a file loads: which file, and how far it got ("Opening
// CITY.MAP — batch 2 of 3"), over the previous model and info, dimmed until the new one
// shows. A quick open says nothing: the label comes only once an open takes a moment, or
// at once when there is progress to report.

import { $, fileName, state } from './state.js';

const QUIET_MS = 150;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
/** @type {string | null} */
let path = null;

const name = (/** @type {string | null} */ p) => fileName(p ?? '');

/** @param {string | null} detail @param {number} [done] @param {number} [total] */
function reveal(detail, done = 0, total = 0) {
  clearTimeout(timer);
  timer = undefined;
  const bar = $('open-progress');
  if (total) {
    bar.max = total;
    bar.value = done;
  } else bar.removeAttribute('value');
  $('loading-label').textContent = detail ? `Opening ${name(path)} — ${detail}` : `Opening ${name(path)}`;
  $('loading').hidden = false;
  bar.hidden = false;
  // What is still on show is the previous file's.
  const previous = Boolean(state.current && state.current !== path) || $('view').classList.contains('dim');
  $('view').classList.toggle('dim', previous);
  $('info-panel').classList.toggle('dim', previous);
}

// An open of `file` started (`previous`: another file is on show until it is done).
/** @param {string} file @param {boolean} previous */
export function startLoading(file, previous) {
  endLoading();
  path = file;
  $('view').classList.toggle('dim', previous);
  $('info-panel').classList.toggle('dim', previous);
  timer = setTimeout(() => reveal(null), QUIET_MS);
}

// How far the open got: `detail` in words, `done` of `total` steps where they are known.
/** @param {string} detail @param {number} [done] @param {number} [total] */
export function loadingProgress(detail, done = 0, total = 0) {
  if (path) reveal(detail, done, total);
}

// A container being listed: `label` over the view, with a bar of `done` of `total` steps
// (a disc's directories, a zip's entries), or one that says it is under way (total 0).
/** @param {string} label @param {number} [done] @param {number} [total] */
export function showListing(label, done = 0, total = 0) {
  $('loading-label').textContent = total ? `${label} ${Math.floor((100 * done) / total)} %` : label;
  const bar = $('open-progress');
  if (total) {
    bar.max = total;
    bar.value = Math.min(done, total);
  } else {
    bar.removeAttribute('value');
  }
  $('loading').hidden = false;
  $('open-progress').hidden = false;
}

export function endLoading() {
  clearTimeout(timer);
  timer = undefined;
  path = null;
  $('loading').hidden = true;
  $('open-progress').hidden = true;
  $('view').classList.remove('dim');
  $('info-panel').classList.remove('dim');
}
