// @ts-check
// The address bar: the view on show as a link (file, camera, LOD, chunk, clock), kept in
// step while the view moves, and shared.

import { hashOf, throttle } from '../ground/urlstate.js';
import { $, state } from '../ground/state.js';
import { currentView as viewShown } from '../ground/viewmode.js';

// The view whose link was last shared, without its clock (null: none, or gone), and the
// timer that clears the "link copied" note.
/** @type {string | null} */
let shared = null;
/** @type {ReturnType<typeof setTimeout> | null} */
let shareTimer = null;

// The archive grid is on show (grid.js).
const browsing = () => viewShown() === 'grid';

// The view as a link describes it: the viewer's part (camera, LOD, clock, layers, choice,
// switches, a comparison's mode and split), with the page's own (where the archive comes
// from, the file, the record selected, the viewpoint, the points measured, file B and the row).
/** @returns {import('../ground/urlstate.js').ViewLink} */
function currentView() {
  const shown = Boolean(state.current);
  const sel = state.inspector.selection;
  return {
    ...state.viewer.link(shown),
    archive: state.source.archive ?? null,
    folder: state.source.folder ?? null,
    path: state.current,
    state: shown ? state.session.gameState() || null : null,
    chunk: sel && sel.chunk !== null ? sel.chunk : null,
    view: state.viewpoint,
    // (Points of three numbers each: measure.js takes them from the core.)
    measure: shown ? state.measured : [],
    browseGrid: browsing(),
    ...comparedView(),
  };
}

// A comparison's part of the link the page keeps: file B and the row selected.
function comparedView() {
  if (!state.compare) return {};
  return { compare: state.compare.b, row: state.compareInspector.selected, chunk: null };
}

// A new file is a new history entry (back returns to the previous file); camera moves and
// selections only replace the current one, at most a few times a second.
/** @param {{ push: boolean, opened?: boolean }} how */
export function writeHash({ push, opened = false }) {
  // Only the open that just finished may write while an open is under way; and a link not
  // yet applied (its file not found, its archive still listing) stays in the address until
  // an open applies it or replaces it: the background's end (the kinds confirmed, a
  // folder's fingerprint) wrote it over, with no file on show.
  if ((state.opening || state.linkPending) && !opened) return;
  const view = currentView();
  const hash = hashOf(view);
  if (hash === location.hash) return;
  // The link copied is of the view that was: its note goes once the view changes, not as
  // the clock runs on (the link's time moves with every frame while something plays).
  if (shared !== null && hashOf({ ...view, t: null }) !== shared) forgetShared();
  if (push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}

export const followView = throttle(() => writeHash({ push: false }), 250);

const linkOf = (/** @type {import('../ground/urlstate.js').ViewLink} */ view) =>
  `${location.origin}${location.pathname}${hashOf(view)}`;

export function permalink() {
  return linkOf(currentView());
}

// The share button's note ("link copied", or the link to copy) and its field go.
export function forgetShared() {
  shared = null;
  clearTimeout(shareTimer ?? undefined);
  $('share-status').textContent = '';
  $('share-link').hidden = true;
}

// Copy the link; where the clipboard is refused, show it selected so it can be copied.
export async function share() {
  const view = currentView();
  const link = linkOf(view);
  shared = hashOf({ ...view, t: null });
  const field = $('share-link');
  const status = $('share-status');
  try {
    await navigator.clipboard.writeText(link);
    field.hidden = true;
    status.textContent = 'link copied';
  } catch {
    field.value = link;
    field.hidden = false;
    field.select();
    status.textContent = 'copy the link (Ctrl+C)';
  }
  clearTimeout(shareTimer ?? undefined);
  shareTimer = setTimeout(() => {
    status.textContent = '';
  }, 4000);
  return link;
}
