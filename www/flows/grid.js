// @ts-check
// The archive grid: every model, world, field model and picture of the archive as a card
// with its thumbnail (thumbnails.js: drawn off the page's thread as the card comes into
// view, kept in this browser), its name and kind, grouped by folder and filtered as the
// list is (its search and kind). Files holding the same bytes (a file on each disc) are
// one card with their count; a file that fails shows why instead of a picture. Arrow keys
// move between the cards, Enter opens one; the grid keeps its place for when you come
// back (O, the Grid button, `setView('grid')`, a link's `browse=grid`). This module owns
// the grid's cards and place.

import { $, count, fileName, narrow, ready, state } from '../ground/state.js';
import { kindOfEntry } from '../sources/listing.js';
import { currentView, setView } from '../ground/viewmode.js';
import { hideFlat, showGrid as showGridPane } from '../panes/flatview.js';
import { closeFile, open } from './openflow.js';
import {
  THUMB,
  deferThumbnail,
  forgetThumbnails,
  sameBytes,
  thumbnail,
  thumbnailWait,
} from '../sources/thumbnails.js';
import { followView } from '../panes/address.js';

/**
 * One card: the files of one content (the first path is the card's), and its thumbnail.
 * @typedef {{ path: string, paths: string[], kind: string, label: string, element: HTMLButtonElement | null, state: 'pending' | 'drawn' | 'none' | 'failed', failure: string | null, src: string | null, cached: boolean, asked?: boolean }} Card
 */

// Cards made for this archive (by first path), kept across filters and visits.
/** @type {Map<string, Card>} */
let cards = new Map();
// The archive the cards are of; whether its copies are still being looked for, and why
// they could not be (null: they were, or are being, looked for).
let generation = -1;
let folding = false;
/** @type {string | null} */
let foldFailed = null;
// Where the reader was: the card focused, the grid's scroll.
/** @type {string | null} */
let focused = null;
let scrollTop = 0;
/** @type {IntersectionObserver | null} */
let watcher = null;
// The cards on show, in order (after the filter), and how many times they were laid out
// (a layout under way stops when a newer one starts).
/** @type {Card[]} */
let shown = [];
let layouts = 0;
// How many of them are on the page so far.
let onPage = 0;
// What the cards on the page were laid out for (the archive, its cards, the filter).
let laidFor = '';
// Cards put on the page at once (beyond where the reader was): more than a screen holds; and
// the time a task of the page's puts more on, in ms.
const SCREENFUL = 120;
const SLICE_MS = 12;

// The files the grid has a card for: those shown as a scene or a picture.
/** @param {Entry} e */
const pictured = e => {
  const c = kindOfEntry(e).capabilities;
  return c.scene || c.image;
};

// A new archive: its cards go, the worker's queue with them.
function forget() {
  cards = new Map();
  layouts++;
  laidFor = '';
  folding = false;
  foldFailed = null;
  focused = null;
  scrollTop = 0;
  shown = [];
  forgetThumbnails();
  generation = state.generation;
}

// Which files hold the same bytes: those of one size and kind, hashed by the worker while
// the thumbnails are drawn. Each set becomes one card, the first path's, with their count.
async function foldCopies() {
  /** @type {Map<string, string[]>} */
  const bySize = new Map();
  for (const c of cards.values()) {
    const e = state.byPath.get(c.path.toLowerCase());
    if (!e || !(e.size > 0)) continue;
    const key = `${e.size}|${c.kind}`;
    const same = bySize.get(key);
    if (same) same.push(c.path);
    else bySize.set(key, [c.path]);
  }
  const at = generation;
  const found = await sameBytes([...bySize.values()].filter(g => g.length > 1)).catch(() => null);
  if (at !== generation) return;
  const same = found ?? [];
  if (!found) foldFailed = 'Copies were not looked for: the thumbnail worker could not compare the files.';
  for (const paths of same) {
    const card = cards.get(paths[0] ?? '');
    if (!card) continue;
    card.paths = paths;
    for (const p of paths.slice(1)) {
      cards.delete(p);
    }
  }
  folding = false;
  if (currentView() !== 'grid') return;
  // (No copies: the cards stay as they are, only the status changes.)
  if (same.length) render(Boolean(document.activeElement?.closest('#grid-body')));
  else say();
}

// Show the grid in the main view (no file is on show meanwhile), where it was left.
export async function showGrid() {
  await ready;
  if (generation !== state.generation) {
    forget();
    for (const e of state.entries) {
      if (!pictured(e)) continue;
      const info = kindOfEntry(e);
      cards.set(e.path, {
        path: e.path,
        paths: [e.path],
        kind: info.kind,
        label: info.label,
        element: null,
        state: 'pending',
        failure: null,
        src: null,
        cached: false,
      });
    }
    folding = true;
    foldCopies();
  }
  closeFile('The archive at a glance');
  setView('grid');
  showGridPane();
  render(true);
  followView();
  return gridState();
}

// Back from the grid to the plain list (nothing on show).
export function hideGrid() {
  if (currentView() !== 'grid') return;
  remember();
  hideFlat();
  setView('none');
  followView();
}

// Where the reader is in the grid, kept as it changes (a file opened from the list hides
// the grid without asking it).
function remember() {
  if (currentView() !== 'grid') return;
  scrollTop = $('grid-body').scrollTop;
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  if (active?.classList.contains('grid-card')) focused = active.dataset.path ?? null;
}

// The cards the list's search and kind filter leave, grouped by folder; `focus`: the card
// the reader was on (else the first) takes the focus; `fromTop`: a new filter's cards start
// at the top. The cards are put on the page a slice at a time, so that no task of the
// page's runs long (a thousand cards at once were a 90 ms task): those up to where the
// reader was at once, the rest in tasks of their own after.
function render(focus = false, fromTop = false) {
  const body = $('grid-body');
  const q = $('search').value.trim().toLowerCase();
  const kind = state.files.kindFilter;
  // The same cards as when the grid was left: they are on the page still, where they were.
  const same = `${generation}|${cards.size}|${kind}|${q}`;
  if (same === laidFor) {
    body.scrollTop = scrollTop;
    askInSight();
    const card = focused ? cards.get(focused)?.element : null;
    if (focus) (card || shown[0]?.element)?.focus({ preventScroll: true });
    return;
  }
  laidFor = same;
  if (fromTop) [scrollTop, focused] = [0, null];
  const [top, back] = [scrollTop, focused];
  const laying = ++layouts;
  watcher?.disconnect();
  watcher = new IntersectionObserver(seen, { root: body, rootMargin: '200px 0px' });
  /** @type {Map<string, Card[]>} */
  const byFolder = new Map();
  for (const c of cards.values()) {
    if ((q && !c.paths.some(p => p.toLowerCase().includes(q))) || (kind && c.kind !== kind)) continue;
    const dir = c.path.slice(0, c.path.lastIndexOf('/') + 1) || '/';
    const list = byFolder.get(dir);
    if (list) list.push(c);
    else byFolder.set(dir, [c]);
  }
  // (In the order they are laid out: the keys and the look for cards in sight follow it.)
  shown = [...byFolder.values()].flat();
  for (const c of shown) c.element = null;
  body.replaceChildren();
  onPage = 0;
  say();
  const folders = [...byFolder];
  // The folder being laid out, its next card, the cards laid out in all.
  let [folder, at, laidOut] = [0, 0, 0];
  /** @type {HTMLUListElement | null} */
  let ul = null;
  // Cards put on the page: the first `last` at least, then more until the clock passes
  // `until` (looked at every 16 cards).
  /** @param {number} last @param {number} until */
  const lay = (last, until) => {
    for (let next = folders[folder]; next; next = folders[folder]) {
      const [dir, list] = next;
      if (!ul) {
        const section = document.createElement('section');
        section.className = 'grid-folder';
        const h = document.createElement('h3');
        h.textContent = dir;
        ul = document.createElement('ul');
        ul.className = 'grid-cards';
        ul.setAttribute('aria-label', dir);
        section.append(h, ul);
        body.append(section);
      }
      const card = list[at];
      if (card) {
        const li = document.createElement('li');
        const button = cardElement(card);
        li.append(button);
        ul.append(li);
        watcher?.observe(button);
        laidOut++;
      }
      if (++at >= list.length) [folder, at, ul] = [folder + 1, 0, null];
      if (laidOut % 16 === 0 && laidOut > last && performance.now() > until) break;
    }
    onPage = laidOut;
  };
  // Up to the card the reader was on and a screenful beyond, now.
  const backAt = back ? shown.findIndex(c => c.path === back) : -1;
  lay(Math.max(backAt, 0) + SCREENFUL, 0);
  // (And as far down as the grid was scrolled.)
  while (folder < folders.length && body.scrollHeight < top + 2 * body.clientHeight)
    lay(laidOut + SCREENFUL, 0);
  // (Replacing the cards scrolled the grid to its top: where it was is put back.)
  body.scrollTop = top;
  askInSight();
  const card = back ? cards.get(back)?.element : null;
  if (focus) (card || shown[0]?.element)?.focus({ preventScroll: Boolean(card) });
  // The rest, a slice a task.
  const more = () => {
    if (laying !== layouts || folder >= folders.length) return;
    lay(0, performance.now() + SLICE_MS);
    setTimeout(more, 0);
  };
  setTimeout(more, 0);
}

// The grid's line: how many files, how many copies folded, whether copies are looked for.
function say() {
  const copies = shown.reduce((n, c) => n + c.paths.length - 1, 0);
  const looking = folding
    ? ' Looking for files that hold the same bytes…'
    : foldFailed
      ? ` ${foldFailed}`
      : '';
  $('grid-status').textContent = shown.length
    ? `${count(shown.length, 'file')} as pictures${copies ? ` (and ${copies} ${copies === 1 ? 'copy' : 'copies'} of them, folded)` : ''}. Arrows move, Enter opens, O comes back here.${looking}`
    : 'No file of the archive matches the search and kind: no picture to show.';
}

// A card as a button: its picture (or why there is none), its name and kind, its copies.
/** @param {Card} c */
function cardElement(c) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'grid-card';
  b.dataset.path = c.path;
  b.dataset.state = c.state;
  const name = fileName(c.path);
  const copies = c.paths.length > 1 ? ` · ×${c.paths.length}` : '';
  b.title = c.paths.length > 1 ? `${c.paths.join('\n')}\n(the same bytes)` : c.path;
  const picture = document.createElement('span');
  picture.className = 'grid-picture';
  picture.style.aspectRatio = `${THUMB.width} / ${THUMB.height}`;
  const label = document.createElement('span');
  label.className = 'grid-name';
  label.textContent = name;
  const meta = document.createElement('span');
  meta.className = 'grid-kind';
  meta.textContent = `${c.label}${copies}`;
  b.append(picture, label, meta);
  b.addEventListener('click', () => openCard(c));
  c.element = b;
  paint(c);
  return b;
}

// The card's picture as it stands: the thumbnail, a failure's reason, or waiting.
/** @param {Card} c */
function paint(c) {
  const b = c.element;
  if (!b) return;
  b.dataset.state = c.state;
  const picture = /** @type {HTMLElement} */ (b.firstElementChild);
  if (c.state === 'drawn' && c.src) {
    const img = document.createElement('img');
    img.src = c.src;
    img.alt = `${fileName(c.path)} as the viewer shows it`;
    img.width = THUMB.width / 2;
    img.height = THUMB.height / 2;
    picture.replaceChildren(img);
  } else if (c.state === 'failed') {
    picture.textContent = `Cannot be shown: ${c.failure}`;
    picture.classList.add('failed');
  } else if (c.state === 'none') picture.textContent = 'no picture';
  else picture.textContent = '';
}

/** @param {IntersectionObserverEntry[]} entries */
function seen(entries) {
  for (const entry of entries) {
    const path = /** @type {HTMLElement} */ (entry.target).dataset.path;
    const c = path ? cards.get(path) : null;
    if (c?.state !== 'pending') continue;
    if (entry.isIntersecting) ask(c, true);
    else deferThumbnail(c.path);
  }
}

// The cards in sight (and a little beyond) asked for, as the grid is laid out or scrolled:
// beside the observer, whose first report a page drawn in the background can hold back.
function askInSight() {
  const box = $('grid-body').getBoundingClientRect();
  for (const c of shown) {
    if (!c.element) continue;
    const r = c.element.getBoundingClientRect();
    // (The cards run down the page in order: past the view, none further is in sight.)
    if (r.top > box.bottom + 200) break;
    if (c.state === 'pending' && r.bottom > box.top - 200) ask(c, true);
  }
}

// `c`'s thumbnail asked for: `inSight` as it comes into sight (drawn before the others
// waiting, asked again if it was), else as one out of sight (drawn after them).
/** @param {Card} c @param {boolean} [inSight] */
function ask(c, inSight = false) {
  if (c.asked && !inSight) return;
  c.asked = true;
  const at = generation;
  // (It rejects only when another archive is opened; anything else ends the card, drawn or
  // failed with why, so that no card waits for ever.)
  thumbnail(c.path, !inSight).then(
    t => {
      if (at !== generation) return;
      if (c.state === 'pending') {
        c.cached = t.cached;
        if (t.failure) [c.state, c.failure] = ['failed', t.failure];
        else if (t.src) [c.state, c.src] = ['drawn', t.src];
        else c.state = 'none';
        paint(c);
      }
      trickle();
    },
    err => {
      if (at !== generation || c.state !== 'pending') return;
      [c.state, c.failure] = ['failed', err instanceof Error ? err.message : String(err)];
      paint(c);
      trickle();
    },
  );
}

// One card more, the first in layout order still waiting: the grid fills in behind what is
// in sight (which is asked for first) without waiting for a scroll to reach it.
function trickle() {
  const next = shown.find(c => c.state === 'pending' && !c.asked);
  if (next) ask(next);
}

/** @param {Card} c */
function openCard(c) {
  remember();
  focused = c.path;
  open(c.path).catch(() => {});
}

// Arrow keys move to the card beside, above or below; Home and End to the first and last.
/** @param {KeyboardEvent} e */
function gridKey(e) {
  const from = /** @type {HTMLElement} */ (e.target);
  if (!from.classList?.contains('grid-card')) return;
  const buttons = shown.map(c => c.element).filter(b => b !== null);
  const i = buttons.indexOf(/** @type {HTMLButtonElement} */ (from));
  let to = null;
  if (e.key === 'ArrowRight') to = buttons[i + 1];
  else if (e.key === 'ArrowLeft') to = buttons[i - 1];
  else if (e.key === 'Home') to = buttons[0];
  else if (e.key === 'End') to = buttons[buttons.length - 1];
  else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') to = vertical(buttons, i, e.key === 'ArrowDown');
  else return;
  e.preventDefault();
  to?.focus();
}

// The card in the next row down (or up) nearest across.
/** @param {HTMLButtonElement[]} buttons @param {number} i @param {boolean} down */
function vertical(buttons, i, down) {
  const here = buttons[i]?.getBoundingClientRect();
  if (!here) return null;
  const x = here.left + here.width / 2;
  let best = null;
  let bestScore = Infinity;
  for (const b of buttons) {
    const r = b.getBoundingClientRect();
    const dy = down ? r.top - here.bottom : here.top - r.bottom;
    if (dy < -1) continue;
    const score = Math.round(dy) * 100000 + Math.abs(r.left + r.width / 2 - x);
    if (b !== buttons[i] && score < bestScore) [best, bestScore] = [b, score];
  }
  return best;
}

// What the grid shows, for scripts: {shown, folding, foldFailed, cards: [{path, paths, kind,
// state, failure, cached, waiting}], onPage (how many of the cards are on the page yet),
// focused}; `waiting`: why a pending card's thumbnail is not in yet, in words.
export function gridState() {
  return {
    shown: currentView() === 'grid',
    folding,
    foldFailed,
    cards: shown.map(c => ({
      path: c.path,
      paths: c.paths.slice(),
      kind: c.kind,
      state: c.state,
      failure: c.failure,
      cached: c.cached,
      waiting: c.state === 'pending' ? thumbnailWait(c.path) : null,
    })),
    onPage,
    focused:
      currentView() === 'grid'
        ? (document.activeElement?.closest('.grid-card')?.getAttribute('data-path') ?? null)
        : focused,
  };
}

// 'grid' shows the grid, 'list' the list alone.
/** @param {'grid' | 'list'} view */
export async function setBrowse(view) {
  if (view === 'grid') return showGrid();
  if (view !== 'list') throw new Error(`no view called ${view}: 'grid' or 'list'`);
  hideGrid();
  return gridState();
}

// The list's filter changed: the grid, if on show, follows it.
export function gridFilterChanged() {
  if (currentView() === 'grid') render(false, true);
}

// The key that shows the grid and goes back, and the Grid button.
export function bindGrid() {
  $('grid-button').addEventListener('click', () => {
    if (currentView() === 'grid') return hideGrid();
    // (On a phone the list sits above the view: the grid, the view's height, is brought
    // into sight once shown.)
    showGrid().then(() => {
      if (narrow().matches) $('view').scrollIntoView({ block: 'start' });
    });
  });
  $('grid-body').addEventListener('keydown', gridKey);
  $('grid-body').addEventListener(
    'scroll',
    () => {
      remember();
      askInSight();
    },
    { passive: true },
  );
  $('grid-body').addEventListener('focusin', remember);
  document.addEventListener('keydown', e => {
    if (e.key !== 'o' && e.key !== 'O') return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = /** @type {Element} */ (e.target);
    // (Typed in the list it searches its names; in the inspector, its boxes.)
    if (target.closest?.('input, select, textarea, [contenteditable], #sidebar, #inspector, dialog')) return;
    e.preventDefault();
    if (currentView() === 'grid') hideGrid();
    else showGrid();
  });
}
