// @ts-check
// The file on show and the opens asked for: the one module that writes state.current,
// state.requests, state.queue, reading and state.linkPending. The open flow, the
// comparison and the recovery from a trap ask it.

import { state } from './state.js';

// The file an open on this thread is reading, and its bytes once read.
/** @type {{ path: string | null, buffer: ArrayBuffer | null }} */
let reading = { path: null, buffer: null };

// `path` is on show (a file, or file A of a comparison).
/** @param {string} path */
export function showing(path) {
  state.current = path;
}

// Nothing is on show.
export function showingNothing() {
  state.current = null;
}

// `run(request)` after the opens before it; → its job. The request number tells a run whether
// a later one replaced it.
/** @template T @param {(request: number) => Promise<T>} run @returns {{ request: number, job: Promise<T> }} */
export function enqueue(run) {
  const request = ++state.requests;
  const job = state.queue.then(() => run(request));
  state.queue = job.catch(() => {});
  return { request, job };
}

// Every open asked for so far is abandoned (a new archive, nothing to show).
export function abandonOpens() {
  state.requests++;
}

// After a trap: every open abandoned, the queue empty, nothing on show.
export function resetOpens() {
  state.requests++;
  state.queue = Promise.resolve();
  state.current = null;
}

// The file `path` is about to be read for an open on this thread: its bytes are kept as read
// (keepRead), for the hex view's "as stored".
/** @param {string} path */
export function startReading(path) {
  reading = { path, buffer: null };
}

// The bytes of `path` as read, kept if it is the file being opened.
/** @param {string} path @param {ArrayBuffer} buffer */
export function keepRead(path, buffer) {
  if (path === reading.path) reading.buffer = buffer;
}

// The bytes kept for `path` (null if none), and the keeping ends.
/** @param {string} path */
export function takeRead(path) {
  const stored = reading.path === path ? reading.buffer : null;
  reading = { path: null, buffer: null };
  return stored;
}

// The address a link gave has been applied (or given up): from now on the hash is the page's.
export function linkApplied() {
  state.linkPending = false;
}
