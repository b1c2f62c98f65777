// @ts-check
// Comparing two files of the archive: both opened through the core (one camera for both
// models, the difference view beside them), the inspector's aligned trees and hex views,
// the info pane's summary, the toolbar's modes (A, B, B ghosted over A, a split, the
// difference colours) and the link that restores it all.

import { $, all, closestTo, fileName, first, nextTask, state } from '../ground/state.js';
import { open, queued } from './openflow.js';
import { addRow, clearInfo, setExport, showError, viewMessage } from '../panes/infopane.js';
import { hideFlat } from '../panes/flatview.js';
import { markSelected } from '../sources/listing.js';
import { followView, writeHash } from '../panes/address.js';
import { leaveViewpoint, restoreView, syncToolbar, words } from '../panes/controls.js';
import { endLoading, startLoading } from '../ground/loading.js';
import { setComparing, setComparison } from '../panes/compareview.js';
import { clearMeasure } from '../panes/measure.js';
import { setView } from '../ground/viewmode.js';
import { linkApplied, showing } from '../ground/opens.js';
import { withTools } from '../ground/modules.js';

const MODE_LABEL = { a: 'A', b: 'B', overlay: 'overlay', split: 'split', difference: 'difference' };
const MODE_TITLE = {
  a: 'File A alone (X switches between A and B)',
  b: 'File B alone (X switches between A and B)',
  overlay: 'B ghosted over A, in one camera',
  split: 'A left of the split, B right of it (drag the line)',
  difference: 'Vertices coloured by how far they moved; what only one file has in its own colour',
};

/**
 * Two files compared, as the comparison's panes take them (compareview.js).
 * @typedef {object} ComparedData
 * @property {{ path: string, view: import('../../pkg/relicview.js').InspectorView | null, bytes: Uint8Array }} a
 * @property {{ path: string, view: import('../../pkg/relicview.js').InspectorView | null, bytes: Uint8Array }} b
 * @property {import('../../pkg/relicview_tools.js').Comparison} result the comparison as `relicview diff --json` prints it
 * @property {import('../../pkg/relicview_tools.js').Alignment} alignment
 * @property {import('../../pkg/relicview_tools.js').Legend} legend
 * @property {boolean} hasDifference
 * @property {boolean} sceneA
 * @property {boolean} sceneB
 */

// Compare files `a` and `b` of the archive; `restore` is a link's view to put back. → the
// JSON `relicview diff --json` prints for them, once both are shown.
// "Compare with…" was asked for this file: the next file chosen in the list is the other.
/** @type {string | null} */
export let comparePick = null;

// Thrown inside the open when a newer request took over.
const ABANDONED = new Error('abandoned');

/** @param {string} a @param {string} b @param {import('../ground/urlstate.js').ViewLink | null} [restore] */
export function compareFiles(a, b, restore = null) {
  return queued(`${a} and ${b}`, (/** @type {number} */ request) => compareNow(a, b, restore, request));
}

/** @param {string} pathA @param {string} pathB @param {import('../ground/urlstate.js').ViewLink | null} restore @param {number} request */
async function compareNow(pathA, pathB, restore, request) {
  const abandoned = () => request !== state.requests;
  const [ea, eb] = [pathA, pathB].map(p => state.byPath.get(String(p).toLowerCase()));
  if (!ea || !eb) {
    const missing = !ea ? pathA : pathB;
    const err = new Error(`${missing}: no such file in the archive`);
    showError(missing, err);
    throw err;
  }
  comparePick = null;
  syncPick();
  startLoading(`${ea.path} and ${eb.path}`, Boolean(state.current));
  showing(ea.path);
  markSelected(ea.path);
  // Both files are opened by the core on this thread, which shows their scenes; the tools
  // module (loaded the first time) compares what the core hands over of each (its side:
  // kind, bytes, records, placements, scene) and hands back the difference view.
  /** @type {import('../../pkg/relicview.js').OpenedFile | null} */
  let fa = null;
  /** @type {import('../../pkg/relicview.js').OpenedFile | null} */
  let fb = null;
  let compared;
  try {
    fa = await state.session.open(ea.path);
    fb = await state.session.open(eb.path);
    if (abandoned()) throw ABANDONED;
    const [sideA, sideB] = [fa.comparisonSide(), fb.comparisonSide()];
    compared = await withTools(({ glue }) => glue.compareSides(sideA, sideB));
  } catch (err) {
    fa?.free();
    fb?.free();
    if (abandoned()) return { abandoned: true };
    endLoading();
    setComparing(false);
    state.viewer.clear();
    setView('failed');
    showError(`${ea.path} and ${eb.path}`, err);
    await state.viewport.requestFrame();
    throw err;
  }
  if (abandoned()) {
    compared.free();
    fa.free();
    fb.free();
    return { abandoned: true };
  }
  await nextTask();
  // (Asked before the viewer takes the difference view.)
  const hasDifference = compared.hasDifference();
  /** @param {import('../../pkg/relicview.js').OpenedFile} f */
  const sideOf = f => ({ path: f.path, view: f.inspect(), bytes: f.bytes(0) ?? new Uint8Array() });
  /** @type {ComparedData} */
  const data = {
    a: sideOf(fa),
    b: sideOf(fb),
    result: /** @type {import('../../pkg/relicview_tools.js').Comparison} */ (JSON.parse(compared.json())),
    alignment: compared.alignment(),
    legend: compared.legend(),
    hasDifference,
    sceneA: fa.capabilities().scene,
    sceneB: fb.capabilities().scene,
  };
  state.viewer.showComparison(
    fa.takeSceneBytes(),
    fb.takeSceneBytes(),
    compared.takeDifference(),
    compared.differenceLayersFromB(),
  );
  fa.free();
  fb.free();
  compared.free();
  setComparison({
    a: ea.path,
    b: eb.path,
    result: data.result,
    legend: data.legend,
    hasDifference: data.hasDifference,
  });
  leaveViewpoint();
  clearMeasure();
  hideFlat();
  setComparing(true);
  state.inspector.show(null, []);
  state.compareInspector.show(data);
  showComparisonInfo(data);
  if (!data.sceneA && !data.sceneB)
    viewMessage(
      'Neither file has a 3D scene: they are compared record by record and byte by byte in the inspector below.',
      { note: true },
    );
  if (restore) {
    restoreView(restore, { chunk: false });
    if (restore.row !== null && restore.row !== undefined) state.compareInspector.select(restore.row);
  }
  syncToolbar();
  syncCompareControls();
  writeHash({ push: !restore, opened: true });
  linkApplied();
  let stats = state.viewport.drawNow();
  while (stats.uploading && state.compare && state.compare.a === ea.path)
    stats = await state.viewport.requestFrame();
  endLoading();
  return data.result;
}

// The info pane: both files (links), what differs in numbers, the notes, and the lists
// of changed, added and removed records and placements (a click selects a record's row).
/** @param {ComparedData} data */
function showComparisonInfo(data) {
  clearInfo();
  viewMessage(null);
  const r = data.result;
  $('info-title').textContent = `${data.a.path} ↔ ${data.b.path}`;
  const dl = $('info-body');
  addRow(dl, 'A', data.a.path, false, { links: [data.a.path] });
  addRow(dl, 'B', data.b.path, false, { links: [data.b.path] });
  addRow(dl, 'verdict', r.same ? 'the same' : 'they differ', !r.same);
  addRow(dl, 'kinds', r.kind_a === r.kind_b ? r.kind_a : `${r.kind_a} and ${r.kind_b}`);
  addRow(
    dl,
    'records',
    `${r.records.same} the same · ${r.records.changed} changed · ${r.records.added} added · ${r.records.removed} removed`,
  );
  if (r.geometry) {
    const g = r.geometry;
    addRow(dl, 'triangles', `${g.triangles_a} in A · ${g.triangles_b} in B`);
    const vertices = (/** @type {number} */ n) => `${n} ${n === 1 ? 'vertex' : 'vertices'}`;
    addRow(
      dl,
      'vertices',
      `${vertices(g.vertices_moved)} moved, the farthest by ${Number(g.max_displacement.toPrecision(4))} · ${g.vertices_unmatched} unmatched`,
    );
  }
  if (r.placements) {
    const c = r.placements.counts;
    addRow(
      dl,
      'placements',
      `${c.same} the same · ${c.moved} moved · ${c.added} added · ${c.removed} removed`,
    );
  }
  for (const note of r.notes || []) addRow(dl, 'note', note, true);
  const more = $('info-more');
  more.replaceChildren();
  /**
   * @template T
   * @param {string} title @param {T[] | undefined} items @param {(item: T) => string} text
   * @param {((item: T) => void) | null} [onClick]
   */
  const list = (title, items, text, onClick = null) => {
    if (!items?.length) return;
    const h = document.createElement('h3');
    h.className = 'compare-list-title';
    h.textContent = `${title} (${items.length}${items.length >= 1000 ? '+' : ''})`;
    const ul = document.createElement('ul');
    ul.className = 'compare-list';
    for (const item of items.slice(0, 200)) {
      const li = document.createElement('li');
      if (onClick) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'link-button';
        b.textContent = text(item);
        b.addEventListener('click', () => onClick(item));
        li.append(b);
      } else li.textContent = text(item);
      ul.append(li);
    }
    more.append(h, ul);
  };
  const inspector = state.compareInspector;
  const byOffset = (/** @type {'a' | 'b'} */ key, /** @type {number} */ offset) => () => {
    const rows = data.alignment.rows;
    const i = rows.findIndex(
      row =>
        row.range[key] && row.range[key][0] === offset && row.status !== 'inner' && row.status !== 'same',
    );
    if (i >= 0) inspector.select(i);
  };
  list(
    'changed',
    r.changed,
    c =>
      `${c.path_a} @${c.offset_a}${c.fields.length ? ': ' + c.fields.map((/** @type {{ name: string, a: string, b: string }} */ f) => `${f.name} ${f.a} → ${f.b}`).join(', ') : ''}`,
    c => byOffset('a', c.offset_a)(),
  );
  list(
    'only in A',
    r.removed,
    c => `${c.path} @${c.offset_a}`,
    c => byOffset('a', c.offset_a)(),
  );
  list(
    'only in B',
    r.added,
    c => `${c.path} @${c.offset_b}`,
    c => byOffset('b', c.offset_b)(),
  );
  const where = (/** @type {number[] | null | undefined} */ p) =>
    p ? `(${p.map(x => Number(x.toFixed(3))).join(', ')})` : '';
  if (r.placements) {
    list(
      'placements moved',
      r.placements.moved,
      p => `${p.path} ${p.model || ''} ${where(p.position_a)} → ${where(p.position_b)}`,
    );
    list(
      'placements only in A',
      r.placements.removed,
      p => `${p.path} ${p.model || ''} ${where(p.position_a)}`,
    );
    list(
      'placements only in B',
      r.placements.added,
      p => `${p.path} ${p.model || ''} ${where(p.position_b)}`,
    );
  }
  setExport(data.sceneA, `${fileName(data.a.path)} has no 3D scene to export`);
}

// The comparison's controls over the view follow it: the mode pressed, the split's handle,
// the difference view's legend.
export function syncCompareControls() {
  const view = state.compare ? state.viewer.compareView() : null;
  $('compare-controls').hidden = !view;
  if (!view) return;
  const modes = $('compare-modes');
  if (!modes.children.length) {
    modes.replaceChildren(
      ...words().compareModes.map(mode => {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'button';
        b.dataset.cmode = mode;
        b.textContent = MODE_LABEL[mode] || mode;
        b.title = MODE_TITLE[mode] || mode;
        b.addEventListener('click', () => setCompareView({ mode }));
        return b;
      }),
    );
  }
  const hasDifference = Boolean(state.compare?.hasDifference);
  for (const b of /** @type {HTMLCollectionOf<HTMLButtonElement>} */ (modes.children)) {
    b.setAttribute('aria-pressed', String(b.dataset.cmode === view.mode));
    if (b.dataset.cmode === 'difference') {
      b.disabled = !hasDifference;
      b.title = hasDifference
        ? MODE_TITLE.difference
        : 'No difference view: the files are not both models or worlds';
    }
  }
  const split = view.mode === 'split';
  const handle = $('split-handle');
  handle.hidden = !split;
  handle.style.left = `${view.split * 100}%`;
  handle.setAttribute('aria-valuenow', String(Math.round(view.split * 100)));
  const legend = $('compare-legend');
  const l = state.compare?.legend;
  legend.hidden = view.mode !== 'difference' || !hasDifference;
  if (l && !legend.hidden && !legend.children.length) {
    const chip = (/** @type {string} */ colour, /** @type {string} */ text) => {
      const s = document.createElement('span');
      s.className = 'legend-chip';
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = colour;
      s.append(sw, document.createTextNode(text));
      return s;
    };
    const scale = document.createElement('span');
    scale.className = 'legend-chip';
    const bar = document.createElement('span');
    bar.className = 'swatch scale';
    bar.style.background = `linear-gradient(90deg, ${l.movedLeast}, ${l.movedMost})`;
    scale.append(bar, document.createTextNode('moved (least → most)'));
    legend.replaceChildren(
      chip(l.unchanged, 'unchanged'),
      scale,
      chip(l.onlyInA, 'only in A'),
      chip(l.onlyInB, 'only in B'),
      chip(l.movedFrom, 'moved from (A)'),
    );
  }
  if (legend.hidden) legend.replaceChildren();
}

// Change how the comparison is drawn: {mode, split}; → the view, once drawn.
/** @param {Partial<import('../../pkg/relicview.js').CompareView>} changes */
export async function setCompareView(changes) {
  if (!state.compare) return null;
  const next = { ...state.viewer.compareView(), ...changes };
  if (typeof next.split === 'number') next.split = Math.max(0, Math.min(1, next.split));
  state.viewer.setCompareView(next);
  syncToolbar();
  syncCompareControls();
  writeHash({ push: false });
  await state.viewport.requestFrame();
  return state.viewer.compareView();
}

// Ask for the other file of a comparison with `path` (null: the question is withdrawn).
// The choice is made in the file list, so focus goes there, on the file asked about: the
// arrows move to the other file, Enter confirms it, Escape withdraws the question.
/** @param {string | null} path */
export function pickComparison(path) {
  const withdrawn = comparePick && !path;
  comparePick = path;
  syncPick();
  if (path) {
    state.files.mark(state.byPath.get(path.toLowerCase())?.path ?? path);
    $('file-list').focus();
  } else if (withdrawn) {
    // Back where the question was asked: the file on show.
    if (state.current) state.files.mark(state.compare ? state.compare.a : state.current);
    $('file-list').focus();
  }
}

export function syncPick() {
  const bar = $('compare-pick');
  bar.hidden = !comparePick;
  state.files.setPicking(Boolean(comparePick));
  if (comparePick) $('compare-pick-name').textContent = comparePick;
}

// The comparison's own controls: modes, the split's slider and handle, the ending, the
// pick bar; the keys X (A ↔ B), C (the next mode), N / P (the next / previous difference).
export function bindCompare() {
  bindRowMenu();
  $('compare-end').addEventListener('click', () => {
    const a = state.compare?.a;
    if (a) open(a).catch(() => {});
  });
  $('compare-pick-cancel').addEventListener('click', () => pickComparison(null));
  const handle = $('split-handle');
  handle.addEventListener('pointerdown', e => {
    e.preventDefault();
    try {
      handle.setPointerCapture(e.pointerId);
    } catch {
      /* dragged without capture too */
    }
    const move = (/** @type {PointerEvent} */ ev) => {
      const r = $('view').getBoundingClientRect();
      setCompareView({ split: (ev.clientX - r.left) / Math.max(1, r.width) });
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  });
  handle.addEventListener('keydown', e => {
    const v = state.viewer.compareView();
    if (!v) return;
    const step = e.shiftKey ? 0.1 : 0.02;
    if (e.key === 'ArrowLeft') setCompareView({ split: v.split - step });
    else if (e.key === 'ArrowRight') setCompareView({ split: v.split + step });
    else return;
    e.preventDefault();
  });
  document.addEventListener('keydown', e => {
    if (!state.compare || e.ctrlKey || e.metaKey || e.altKey) return;
    // (Typing in the list goes to its search box.)
    const target = /** @type {Element} */ (e.target);
    if (target.closest?.('input, select, textarea, #sidebar')) return;
    if (e.key === 'Escape' && comparePick) {
      pickComparison(null);
      return;
    }
    const row = COMPARE_KEYS.find(r => r.keys.includes(e.key));
    if (!row) return;
    row.run(e);
    e.preventDefault();
  });
  document.addEventListener('keydown', e => {
    if (e.key === 'Escape' && comparePick) pickComparison(null);
  });
}

// A comparison's keys, listed once: dispatched by this table, listed by the help (help.js).
/** @type {{ label: string, what: string, keys: string[], run: (e: KeyboardEvent) => void }[]} */
export const COMPARE_KEYS = [
  {
    label: 'N, Shift + N / P',
    what: 'the next / previous difference (both records and their bytes selected)',
    keys: ['n', 'N', 'p', 'P'],
    run: e => state.compareInspector.step(e.shiftKey || e.key === 'p' || e.key === 'P' ? -1 : 1),
  },
  {
    label: 'X',
    what: 'switch the view between A and B',
    keys: ['x', 'X'],
    run: () => setCompareView({ mode: state.viewer.compareView()?.mode === 'a' ? 'b' : 'a' }),
  },
  {
    label: 'C',
    what: 'the next way to show them: A, B, overlay (B ghosted over A), split, difference',
    keys: ['c', 'C'],
    run: () => {
      const modes = words().compareModes;
      const now = state.viewer.compareView()?.mode;
      let k = now ? modes.indexOf(now) : -1;
      do k = (k + 1) % modes.length;
      while (modes[k] === 'difference' && !state.compare?.hasDifference);
      setCompareView({ mode: modes[k] });
    },
  },
];

// A file's menu in the list: open it, compare the file on show with it, or pick the file
// to compare it with.
/** @param {string} path @param {number} x @param {number} y */
export function openRowMenu(path, x, y) {
  const menu = $('row-menu');
  const withCurrent = first(menu, '[data-act="compare-current"]');
  const current = state.compare ? state.compare.a : state.current;
  if (withCurrent) {
    withCurrent.hidden = !current || current === path;
    if (current) withCurrent.textContent = `Compare ${fileName(current)} (on show) with this`;
  }
  menu.dataset.path = path;
  menu.hidden = false;
  menu.style.left = `${Math.min(x, window.innerWidth - menu.offsetWidth - 4)}px`;
  menu.style.top = `${Math.min(y, window.innerHeight - menu.offsetHeight - 4)}px`;
  first(menu, 'button:not([hidden])')?.focus();
}

function bindRowMenu() {
  const menu = $('row-menu');
  const close = () => {
    menu.hidden = true;
  };
  menu.addEventListener('click', e => {
    const b = closestTo(e, '[data-act]');
    const path = menu.dataset.path;
    if (!b || path === undefined) return;
    close();
    const current = state.compare ? state.compare.a : state.current;
    if (b.dataset.act === 'open') open(path).catch(() => {});
    else if (b.dataset.act === 'compare-current') {
      if (current) compareFiles(current, path).catch(() => {});
    } else pickComparison(path);
  });
  menu.addEventListener('keydown', e => {
    const items = all(menu, 'button:not([hidden])');
    const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (e.key === 'Escape') close();
    else if (e.key === 'ArrowDown') items[(at + 1) % items.length]?.focus();
    else if (e.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]?.focus();
    else return;
    e.preventDefault();
  });
  document.addEventListener('pointerdown', e => {
    if (!menu.hidden && !(e.target instanceof Node && menu.contains(e.target))) close();
  });
}

// A pick in the view while comparing: the face's record on its side selects its row (both
// records), its bytes on that side.
/** @param {import('../../pkg/relicview.js').Picked} hit */
export function pickedWhileComparing(hit) {
  const key = hit.side === 'b' ? 'b' : 'a';
  return state.compareInspector.selectRecord(key, hit.source, [hit.start, hit.end]);
}

// Both records of a row outlined in the view (a face alone where one was picked).
/** @param {import('../../pkg/relicview_tools.js').AlignedRow} row @param {{ a?: number[] | null, b?: number[] | null } | null} [bytes] */
export function outlineRow(row, bytes) {
  const one = (/** @type {'a' | 'b'} */ key) => {
    let record = row[key];
    const face = bytes?.[key] && row[key] !== null ? bytes[key] : null;
    let outlined = state.viewer.setHighlightOn(
      key,
      record ?? undefined,
      face ? face[0] : undefined,
      face ? face[1] : undefined,
    );
    // A record that draws nothing itself (a vertex list): the nearest record above it that
    // does (its primitive), so both sides show where the difference is.
    const chunks = state.compareInspector.data?.[key]?.view?.chunks;
    let parent = record === null || record === undefined ? null : chunks?.[record]?.parent;
    while (!outlined && parent !== null && parent !== undefined) {
      record = parent;
      outlined = state.viewer.setHighlightOn(key, record);
      parent = chunks?.[record]?.parent;
    }
  };
  one('a');
  one('b');
  state.viewport.requestFrame();
  followView();
}
