// @ts-check
// The view in the URL hash, so a link reopens it: where the archive comes from (a hosted
// listing URL, or the fingerprint of a local folder), the file, the camera, the LOD and
// the selected chunk.
//   #archive=<listing url>&path=<file>&cam=px,py,pz,tx,ty,tz,fov&lod=1&chunk=12&t=3.25
//   (t: the animation clock in seconds, when something moves; paused=1 when stopped)
//   &mode=fly (the camera flies) &view=2 (looking from viewpoint 2, a world's dropzone)
//   &hide=doors,fx (layers not shown) &choice=2 (the option of a file's choice: a model and
//   its animation) &skeleton=1 (the bones drawn over it)
//   &wire=1 &cull=1 (wireframe, back faces hidden) &bg=light|checker
//   &light=sun|camera|stored (none: the older word for stored; game, the default, is left out)
//   &blink=0 (faces do not blink) &zones=1 (each damage zone in its own colour; destroyed
//   zones are hidden layers, in hide=)
//   &compare=<file B> (path is file A) &cmode=a|b|overlay|split|difference &split=0.5
//   &row=12 (the aligned row selected)
//   &grid=1 (the ground grid) &measure=ax,ay,az,bx,by,bz (the points measured between)
//   #folder=<fingerprint>&path=…

import { viewWords } from './state.js';

/**
 * A view as a link holds it: what readHash gives, and what hashOf writes (a flag that is
 * falsy, a field null or absent, is left out of the link).
 * @typedef {object} LinkView
 * @property {string | null} [archive]
 * @property {string | null} [folder]
 * @property {string | null} [path]
 * @property {{ position: number[], target: number[], fov: number } | null} [cam]
 * @property {number | null} [lod]
 * @property {number | null} [chunk]
 * @property {number | null} [t]
 * @property {string | null} [mode]
 * @property {number | null} [view]
 * @property {string[] | null} [hide]
 * @property {unknown} [paused]
 * @property {number | null} [choice]
 * @property {unknown} [skeleton]
 * @property {unknown} [wire]
 * @property {unknown} [cull]
 * @property {string | null} [bg]
 * @property {string | null} [light]
 * @property {boolean | null} [blink]
 * @property {unknown} [zones]
 * @property {unknown} [grid]
 * @property {number[][] | null} [measure]
 * @property {string | null} [compare]
 * @property {string | null} [cmode]
 * @property {number | null} [split]
 * @property {number | null} [row]
 */

/** @param {number} x */
const round = x => Number(x.toFixed(4));

// Whether the address is a link to a file (`path=`): read before the core is up, whose words
// readHash needs. Such a page opens that file before anything it can do later.
export function linksToFile(hash = location.hash) {
  return new URLSearchParams(hash.replace(/^#/, '')).has('path');
}

/** @returns {LinkView} */
export function readHash(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const numbers = (p.get('cam') || '').split(',').map(Number);
  const cam =
    numbers.length === 7 && numbers.every(Number.isFinite)
      ? { position: numbers.slice(0, 3), target: numbers.slice(3, 6), fov: numbers[6] }
      : null;
  const int = (/** @type {string} */ name) => (/^\d+$/.test(p.get(name) ?? '') ? Number(p.get(name)) : null);
  const t = p.has('t') && Number.isFinite(Number(p.get('t'))) ? Number(p.get('t')) : null;
  const hide = p.get('hide')?.split(',').filter(Boolean) ?? null;
  return {
    archive: p.get('archive'),
    folder: p.get('folder'),
    path: p.get('path'),
    cam,
    lod: int('lod'),
    chunk: int('chunk'),
    t,
    mode: p.get('mode') === 'fly' ? 'fly' : null,
    view: int('view'),
    hide,
    paused: p.get('paused') === '1',
    choice: int('choice'),
    skeleton: p.get('skeleton') === '1',
    wire: p.get('wire') === '1',
    cull: p.get('cull') === '1',
    bg: oneOf(p.get('bg'), viewWords().backgrounds),
    light: oneOf(p.get('light'), [...viewWords().lightings, 'none']),
    blink: p.get('blink') === '0' ? false : null,
    zones: p.get('zones') === '1',
    grid: p.get('grid') === '1',
    measure: points(p.get('measure')),
    compare: p.get('compare'),
    cmode: oneOf(p.get('cmode'), viewWords().compareModes),
    split: p.has('split') && Number.isFinite(Number(p.get('split'))) ? Number(p.get('split')) : null,
    row: int('row'),
  };
}

// Points as a link writes them: x,y,z after x,y,z (up to two), else null.
/** @param {string | null} text */
function points(text) {
  const n = (text || '').split(',').map(Number);
  if (!text || n.length % 3 !== 0 || n.length > 6 || !n.every(Number.isFinite)) return null;
  return n.length === 3 ? [n] : [n.slice(0, 3), n.slice(3)];
}

/** @param {string | null} value @param {string[]} allowed */
function oneOf(value, allowed) {
  return value !== null && allowed.includes(value) ? value : null;
}

/** @param {LinkView} view */
export function hashOf(view) {
  const p = new URLSearchParams();
  if (view.archive) p.set('archive', view.archive);
  if (view.folder) p.set('folder', view.folder);
  if (view.path) p.set('path', view.path);
  if (view.compare) p.set('compare', view.compare);
  if (view.cmode) p.set('cmode', view.cmode);
  if (view.split !== null && view.split !== undefined) p.set('split', String(round(view.split)));
  if (view.row !== null && view.row !== undefined) p.set('row', String(view.row));
  if (view.cam) p.set('cam', [...view.cam.position, ...view.cam.target, view.cam.fov].map(round).join(','));
  if (view.lod !== null && view.lod !== undefined) p.set('lod', String(view.lod));
  if (view.chunk !== null && view.chunk !== undefined) p.set('chunk', String(view.chunk));
  if (view.t !== null && view.t !== undefined) p.set('t', String(round(view.t)));
  if (view.paused) p.set('paused', '1');
  if (view.mode) p.set('mode', view.mode);
  if (view.view !== null && view.view !== undefined) p.set('view', String(view.view));
  if (view.hide && view.hide.length) p.set('hide', view.hide.join(','));
  if (view.choice !== null && view.choice !== undefined) p.set('choice', String(view.choice));
  if (view.skeleton) p.set('skeleton', '1');
  if (view.wire) p.set('wire', '1');
  if (view.cull) p.set('cull', '1');
  if (view.bg) p.set('bg', view.bg);
  if (view.light) p.set('light', view.light);
  if (view.blink === false) p.set('blink', '0');
  if (view.zones) p.set('zones', '1');
  if (view.grid) p.set('grid', '1');
  if (view.measure && view.measure.length) p.set('measure', view.measure.flat().map(round).join(','));
  return '#' + p.toString();
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
