// @ts-check
// The view in the URL hash, so a link reopens it. What a link holds, its words, its
// defaults and how each value is read and written are the core's (crates/view/src/link.rs,
// docs/links.md): this module reads and writes the address with them.
//   #archive=<listing url>&path=<file>&cam=px,py,pz,tx,ty,tz,fov&lod=1&chunk=12&t=3.25 …
//   #folder=<fingerprint>&path=…

import { core } from './state.js';

/** @typedef {import('../../pkg/relicview.js').ViewLink} ViewLink */

// Whether the address is a link to a file (`path=`): read before the core is up. Such a page
// opens that file before anything it can do later.
export function linksToFile(hash = location.hash) {
  return new URLSearchParams(hash.replace(/^#/, '')).has('path');
}

// The link the address (or `hash`) describes.
/** @returns {ViewLink} */
export function readHash(hash = location.hash) {
  return core.parseLink(hash);
}

// The fragment (with its `#`) that describes `view`; what it leaves out, the link leaves out.
/** @param {Partial<ViewLink>} view */
export function hashOf(view) {
  return core.linkFragment(view);
}

// A short fingerprint of a folder's listing (paths and sizes, in path order): FNV-1a 32.
/** @param {Entry[]} entries */
export function fingerprint(entries) {
  const text = entries
    .map(e => `${e.path}\t${e.size}`)
    .sort()
    .join('\n');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${entries.length}-${h.toString(16).padStart(8, '0')}`;
}

// Calls `write` at most every `ms` milliseconds, always with the latest arguments;
// `.cancel()` drops a call still waiting.
/**
 * @template {unknown[]} A
 * @param {(...args: A) => void} write
 * @param {number} ms
 */
export function throttle(write, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {A | null} */
  let last = null;
  const call = (/** @type {A} */ ...args) => {
    last = args;
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (last) write(...last);
    }, ms);
  };
  call.cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return call;
}
