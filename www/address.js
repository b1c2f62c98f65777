// @ts-check
// The address bar: the view on show as a link (file, camera, LOD, chunk, clock), kept in
// step while the view moves, and shared.

import { hashOf, throttle } from './urlstate.js';
import { $, state } from './state.js';

// The view as a link describes it.
function currentView() {
  const o = state.viewer.options();
  const sel = state.inspector.selection;
  // (Asked once each: a world's stats and layers walk all its nodes.)
  const stats = state.viewer.stats();
  const layers = state.current ? state.viewer.layers() : [];
  return {
    ...state.source,
    path: state.current,
    cam: state.current ? state.viewer.camera() : null,
    lod: o.autoLod || o.lod === 0 ? null : o.lod,
    chunk: sel && sel.chunk !== null ? sel.chunk : null,
    t: stats.animating ? state.viewer.animationTime() : null,
    mode: state.current && state.viewer.cameraMode() === 'fly' ? 'fly' : null,
    view: state.viewpoint,
    hide: layers.filter(l => !l.shown && !l.chosen).map(l => l.name),
    paused: state.current && stats.animating && !state.viewer.clockState().playing,
    choice: state.current && state.viewer.choice() ? stats.choice : null,
    skeleton: state.current && o.skeleton,
    wire: state.current && o.wireframe,
    cull: state.current && o.cullBack,
    bg: o.background === 'dark' ? null : o.background,
    light: o.lighting === 'game' ? null : o.lighting,
    blink: state.current && !o.blink ? false : null,
    // Colour by zone is the zoned files' mode: a link to any other leaves it out.
    zones: state.current && o.zoneColours && state.viewer.hasZones(),
    grid: state.current && o.grid,
    measure: state.current && state.measured.length ? state.measured : null,
    ...comparedView(),
  };
}

// A comparison's part of the link: file B, the mode, the split, the row selected.
function comparedView() {
  const view = state.compare ? state.viewer.compareView() : null;
  if (!view || !state.compare) return {};
  return {
    compare: state.compare.b,
    cmode: view.mode,
    split: view.mode === 'split' ? view.split : null,
    row: state.compareInspector.selected,
    chunk: null,
  };
}

// A new file is a new history entry (back returns to the previous file); camera moves and
// selections only replace the current one, at most a few times a second.
/** @param {{ push: boolean, opened?: boolean }} how */
export function writeHash({ push, opened = false }) {
  // Only the open that just finished may write while an open is under way.
  if (state.opening && !opened) return;
  const view = currentView();
  const hash = hashOf(view);
  if (hash === location.hash) return;
  // The link copied is of the view that was: its note goes once the view changes, not as
  // the clock runs on (the link's time moves with every frame while something plays).
  if (state.shared !== null && hashOf({ ...view, t: null }) !== state.shared) forgetShared();
  if (push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}

export const followView = throttle(() => writeHash({ push: false }), 250);

const linkOf = (/** @type {import('./urlstate.js').LinkView} */ view) =>
  `${location.origin}${location.pathname}${hashOf(view)}`;

export function permalink() {
  return linkOf(currentView());
}

// The share button's note ("link copied", or the link to copy) and its field go.
export function forgetShared() {
  state.shared = null;
  clearTimeout(state.shareTimer ?? undefined);
  $('share-status').textContent = '';
  $('share-link').hidden = true;
}

// Copy the link; where the clipboard is refused, show it selected so it can be copied.
export async function share() {
  const view = currentView();
  const link = linkOf(view);
  state.shared = hashOf({ ...view, t: null });
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
  clearTimeout(state.shareTimer ?? undefined);
  state.shareTimer = setTimeout(() => {
    status.textContent = '';
  }, 4000);
  return link;
}
