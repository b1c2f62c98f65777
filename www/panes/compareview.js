// @ts-check
// The inspector of a comparison: both files' record trees aligned row by row (changed,
// added and removed rows marked; only the differences on request; the next and previous
// difference by key), and both files' bytes in two hex views, the bytes that differ
// marked, scrolling together. The rows and the marked bytes are the core's (docs/diff.md);
// everything from a file reaches the page as text.

import { setView } from '../ground/viewmode.js';
import { HexView, ROW_HEIGHT, hex } from '../ground/hexview.js';
import { $, closestTo, count, first, narrow, state } from '../ground/state.js';

const OVERSCAN = 100;
/** @typedef {'a' | 'b'} Side */
/** @typedef {import('../../pkg/relicview_tools.js').RowStatus} RowStatus */
/** @type {Record<RowStatus, string>} */
const MARK = { same: ' ', changed: '~', added: '+', removed: '−', inner: '•' };
/** @type {Record<RowStatus, string>} */
const WORD = {
  same: 'the same',
  changed: 'changed',
  added: 'only in B',
  removed: 'only in A',
  inner: 'holds a difference',
};
const decoder = new TextDecoder();
/** @type {Side[]} */
const SIDES = ['a', 'b'];

// Whether `offset` lies in one of the sorted, disjoint ranges [[start, end)].
/** @param {[number, number][]} ranges @param {number} offset */
function inRanges(ranges, offset) {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [start, end] = ranges[mid] ?? [0, 0];
    if (offset < start) hi = mid - 1;
    else if (offset >= end) lo = mid + 1;
    else return true;
  }
  return false;
}

export class CompareInspector {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.tree = $('compare-tree');
    this.spacer = /** @type {HTMLElement} */ (first(this.tree, '.spacer'));
    this.rowsBox = /** @type {HTMLElement} */ (first(this.tree, '.rows'));
    this.only = $('compare-only');
    this.countsLine = $('compare-counts');
    this.detail = $('compare-detail');
    /** @type {import('../flows/compare.js').ComparedData | null} */
    this.data = null;
    /** @type {number[]} */
    this.shown = []; // indices of the aligned rows the tree shows, in order
    /** @type {number | null} */
    this.selected = null; // an aligned row's index
    /** @type {Record<Side, [number, number] | null>} */
    this.selection = { a: null, b: null }; // byte ranges selected on each side
    /** @type {[number, number] | null} */
    this.window = null;
    const side = (/** @type {Side} */ key) => {
      const box = $(key === 'a' ? 'compare-hex-a' : 'compare-hex-b');
      const view = new HexView({
        box,
        spacer: /** @type {HTMLElement} */ (first(box, '.hex-spacer')),
        rows: /** @type {HTMLElement} */ (first(box, '.hex-rows')),
        classOf: o => {
          const sel = this.selection[key];
          return (
            (this.data && inRanges(this.data.alignment.bytes[key], o) ? 'diff' : '') +
            (sel && o >= sel[0] && o < sel[1] ? ' sel' : '')
          );
        },
      });
      view.onScroll = () => this.follow(key);
      box.addEventListener('click', e => {
        const b = closestTo(e, '[data-o]');
        if (b) this.selectByte(key, Number(b.dataset.o));
      });
      return view;
    };
    this.hex = { a: side('a'), b: side('b') };
    this.names = { a: $('compare-name-a'), b: $('compare-name-b') };
    this.syncing = false;
    this.tree.addEventListener('scroll', () => this.renderWindow());
    this.tree.addEventListener('click', e => {
      const row = closestTo(e, '[data-row]');
      if (row) this.select(Number(row.dataset.row));
    });
    this.tree.addEventListener('keydown', e => this.treeKey(e));
    this.only.addEventListener('change', () => this.applyFilter());
    $('compare-next').addEventListener('click', () => this.step(1));
    $('compare-prev').addEventListener('click', () => this.step(-1));
    /** @type {((row: import('../../pkg/relicview_tools.js').AlignedRow, bytes: Partial<Record<Side, number[]>> | null) => void) | null} */
    this.onSelect = null; // (row, {a, b}) → the view outlines the records
  }

  // Show a comparison: {a: {path, view, bytes}, b: {...}, alignment, result} (the two
  // files' inspector views and bytes, the core's rows and marked bytes, the CLI's JSON).
  /** @param {import('../flows/compare.js').ComparedData | null} data */
  show(data) {
    this.data = data;
    this.selected = null;
    this.selection = { a: null, b: null };
    this.only.checked = false;
    for (const key of SIDES) {
      this.names[key].textContent = data ? `${key.toUpperCase()}: ${data[key].path}` : '';
      this.hex[key].set(data ? data[key].bytes : new Uint8Array(0));
    }
    if (!data) {
      this.shown = [];
      this.spacer.style.height = '0px';
      this.rowsBox.replaceChildren();
      this.countsLine.textContent = '';
      this.detail.textContent = '';
      return;
    }
    const r = data.result.records;
    const dropped = data.alignment.rowsDropped
      ? ` · ${count(data.alignment.rowsDropped, 'row')} past the first ${data.alignment.rows.length} not listed`
      : '';
    this.countsLine.textContent = `${r.same} the same · ${r.changed} changed · ${r.added} added · ${r.removed} removed${dropped}`;
    this.detail.textContent =
      (data.result.notes || []).join(' · ') ||
      (data.result.same
        ? 'The files are the same.'
        : 'Click a row: both records, their bytes and their geometry are selected.');
    this.applyFilter();
  }

  // "Show only differences": every row but those the same on both sides (a container with
  // a difference inside stays, so a difference keeps its place in the tree).
  applyFilter() {
    const rows = this.data ? this.data.alignment.rows : [];
    this.shown = [];
    for (const [i, row] of rows.entries())
      if (!this.only.checked || row.status !== 'same') this.shown.push(i);
    this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
    this.window = null;
    this.renderWindow(true);
    if (this.selected !== null) this.reveal(this.selected);
  }

  // Only the rows near those in sight are in the DOM.
  /** @param {boolean} [force] */
  renderWindow(force = false) {
    if (!this.data) return;
    const inSight = Math.ceil((this.tree.clientHeight || 300) / ROW_HEIGHT);
    const top = Math.floor(this.tree.scrollTop / ROW_HEIGHT);
    const first = Math.max(0, top - OVERSCAN);
    const last = Math.min(this.shown.length, top + inSight + OVERSCAN);
    if (!force && this.window && first >= this.window[0] && last <= this.window[1]) return;
    this.window = [
      Math.max(0, top - 2 * OVERSCAN),
      Math.min(this.shown.length, top + inSight + 2 * OVERSCAN),
    ];
    this.rowsBox.style.top = `${this.window[0] * ROW_HEIGHT}px`;
    const frag = document.createDocumentFragment();
    for (const i of this.shown.slice(this.window[0], this.window[1])) frag.append(this.rowElement(i));
    this.rowsBox.replaceChildren(frag);
  }

  // A side's record as the tree shows it: offset, name, what it holds; or a line's text.
  /** @param {Side} key @param {number} _index @param {import('../../pkg/relicview_tools.js').AlignedRow} row */
  cell(key, _index, row) {
    const span = document.createElement('span');
    span.className = `cside ${key}`;
    const record = row[key];
    const range = row.range[key];
    if (record === null || record === undefined || !this.data || !range) return span;
    const side = this.data[key];
    if (this.data.alignment.lines) {
      const text = decoder.decode(side.bytes.subarray(range[0], Math.min(range[1], range[0] + 300)));
      span.textContent = `${String(record + 1).padStart(5)} ${text}`;
    } else {
      const c = side.view?.chunks[record];
      span.textContent = c
        ? `${hex(c.offset, 6)} ${c.label}${c.summary ? '  ' + c.summary : ''}`
        : `${hex(range[0], 6)}`;
    }
    span.style.paddingLeft = `${row.depth * 12 + 4}px`;
    span.title = span.textContent;
    return span;
  }

  /** @param {number} i */
  rowElement(i) {
    const div = document.createElement('div');
    const row = this.data?.alignment.rows[i];
    if (!row) return div;
    div.className = `crow ${row.status}`;
    div.dataset.row = String(i);
    div.setAttribute('role', 'row');
    div.setAttribute('aria-selected', String(i === this.selected));
    const mark = document.createElement('span');
    mark.className = 'cmark';
    mark.textContent = MARK[row.status];
    mark.title = WORD[row.status];
    const cells = [mark, this.cell('a', i, row), this.cell('b', i, row)];
    for (const c of cells) c.setAttribute('role', 'gridcell');
    div.append(...cells);
    return div;
  }

  // Bring aligned row `i` into sight (with the filter on, a same row is not in the tree).
  /** @param {number} i */
  reveal(i) {
    const at = this.shown.indexOf(i);
    if (at < 0) return;
    const top = at * ROW_HEIGHT;
    const h = this.tree.clientHeight || 300;
    if (top < this.tree.scrollTop || top > this.tree.scrollTop + h - ROW_HEIGHT)
      this.tree.scrollTop = Math.max(0, top - ROW_HEIGHT * 3);
    this.renderWindow(true);
  }

  // Select aligned row `i`: both records, their bytes in both hex views, their geometry.
  /** @param {number} i @param {{ bytes?: Partial<Record<Side, [number, number]>> | null, scroll?: boolean }} [how] */
  select(i, { bytes = null, scroll = true } = {}) {
    const row = this.data?.alignment.rows[i];
    if (!row) return;
    this.selected = i;
    this.selection = { a: row.range.a, b: row.range.b, ...bytes };
    for (const el of this.rowsBox.querySelectorAll('[aria-selected="true"]'))
      el.setAttribute('aria-selected', 'false');
    const el = this.rowsBox.querySelector(`[data-row="${i}"]`);
    if (el) el.setAttribute('aria-selected', 'true');
    this.reveal(i);
    this.syncing = true;
    for (const key of SIDES) {
      const sel = this.selection[key];
      if (sel && scroll) this.hex[key].scrollTo(sel[0]);
      this.hex[key].render();
    }
    this.syncing = false;
    this.describe(row);
    if (this.onSelect) this.onSelect(row, bytes);
  }

  // What the selected row is: each side's path and offset, and the fields that differ.
  /** @param {import('../../pkg/relicview_tools.js').AlignedRow} row */
  describe(row) {
    const c = this.data?.result;
    const at = (/** @type {Side} */ key) => {
      const range = row.range[key];
      return range ? `${key.toUpperCase()} @${range[0]}` : `not in ${key.toUpperCase()}`;
    };
    const change =
      row.status === 'changed' &&
      (c?.changed || []).find(
        (/** @type {{ offset_a: number, offset_b: number }} */ x) =>
          x.offset_a === row.range.a?.[0] && x.offset_b === row.range.b?.[0],
      );
    const fields = change
      ? change.fields
          .map((/** @type {{ name: string, a: string, b: string }} */ f) => `${f.name}: ${f.a} → ${f.b}`)
          .join(' · ')
      : '';
    const path = change ? change.path_a : '';
    this.detail.textContent = `${WORD[row.status]} · ${at('a')} · ${at('b')}${path ? ' · ' + path : ''}${fields ? ' · ' + fields : ''}`;
  }

  // The row holding record `record` of side `key` (an inspector row, or a line).
  /** @param {Side} key @param {number | null | undefined} record */
  rowOf(key, record) {
    const rows = this.data ? this.data.alignment.rows : [];
    const i = rows.findIndex(row => row[key] === record);
    return i < 0 ? null : i;
  }

  // A picked face or a clicked byte: its record's row, the bytes on that side.
  /** @param {Side} key @param {number | null | undefined} record @param {[number, number] | null} [range] */
  selectRecord(key, record, range = null) {
    const i = this.rowOf(key, record);
    if (i === null) return null;
    this.select(i, { bytes: range ? { [key]: range } : null });
    return i;
  }

  // A byte clicked in one hex view: the deepest row of that side holding it.
  /** @param {Side} key @param {number} offset */
  selectByte(key, offset) {
    const rows = this.data ? this.data.alignment.rows : [];
    /** @type {number | null} */
    let best = null;
    let bestDepth = -1;
    for (const [i, row] of rows.entries()) {
      const r = row.range[key];
      if (r && offset >= r[0] && offset < r[1] && row.depth >= bestDepth) {
        best = i;
        bestDepth = row.depth;
      }
    }
    if (best !== null) this.select(best, { scroll: false });
  }

  // The next (or previous) changed, added or removed row after the selected one, wrapping.
  /** @param {number} direction */
  step(direction) {
    const rows = this.data ? this.data.alignment.rows : [];
    const n = rows.length;
    if (!n) return null;
    const from = this.selected ?? (direction > 0 ? -1 : n);
    for (let k = 1; k <= n; k++) {
      const i = (((from + direction * k) % n) + n) % n;
      const status = rows[i]?.status;
      if (status === 'changed' || status === 'added' || status === 'removed') {
        this.select(i);
        return i;
      }
    }
    return null;
  }

  /** @param {KeyboardEvent} e */
  treeKey(e) {
    if (!this.shown.length) return;
    const at = this.selected === null ? -1 : this.shown.indexOf(this.selected);
    const go = (/** @type {number} */ k) => {
      const i = this.shown[Math.max(0, Math.min(this.shown.length - 1, k))];
      if (i !== undefined) this.select(i);
    };
    switch (e.key) {
      case 'ArrowDown':
        go(at + 1);
        break;
      case 'ArrowUp':
        go(at < 0 ? 0 : at - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(this.shown.length - 1);
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  // One hex view scrolled: the other follows to the same place in the aligned record.
  /** @param {Side} key */
  follow(key) {
    if (this.syncing || !this.data) return;
    const other = key === 'a' ? 'b' : 'a';
    const top = this.hex[key].top;
    const rows = this.data.alignment.rows;
    // The deepest row on this side that holds the top byte and has a partner.
    /** @type {import('../../pkg/relicview_tools.js').AlignedRow | null} */
    let best = null;
    for (const r of rows) {
      const mine = r.range[key];
      if (
        mine &&
        r.range[other] &&
        top >= mine[0] &&
        top < Math.max(mine[1], mine[0] + 1) &&
        (best === null || r.depth >= best.depth)
      )
        best = r;
    }
    const [mine, theirs] = best ? [best.range[key], best.range[other]] : [null, null];
    const to = mine && theirs ? theirs[0] + Math.min(top - mine[0], theirs[1] - theirs[0]) : top;
    this.syncing = true;
    this.hex[other].top = to;
    this.hex[other].render();
    this.syncing = false;
  }

  // What scripts and tests read: the rows shown and the selection.
  state() {
    if (!this.data) return null;
    const rows = this.data.alignment.rows;
    return {
      rows: this.shown.flatMap(i => {
        const row = rows[i];
        return row ? [{ a: row.a, b: row.b, status: row.status }] : [];
      }),
      selected: this.selected,
      onlyDifferences: this.only.checked,
      selection: { ...this.selection },
    };
  }

  /** @param {boolean} on */
  setOnlyDifferences(on) {
    this.only.checked = Boolean(on);
    this.applyFilter();
  }
}

// The page as a comparison shows it, or as one file does: the inspector's panes, the
// toolbar's controls and the split's handle. Turned off, the comparison is over.
// (state.compare is written here alone: setComparison, and setComparing(false).)
// The comparison on show: {a, b, result, legend, hasDifference} (compare.js).
/** @param {Comparison | null} comparison */
export function setComparison(comparison) {
  state.compare = comparison;
}

/** @param {boolean} on */
export function setComparing(on) {
  if (!on && !state.compare) return;
  if (on) setView('compare');
  fitComparison(on);
  $('inspector-body').hidden = on;
  $('compare-body').hidden = !on;
  $('compare-controls').hidden = !on;
  if (!on) {
    state.compare = null;
    state.compareInspector.show(null);
    $('split-handle').hidden = true;
    $('compare-legend').hidden = true;
  }
}

// The comparison's inspector puts the trees beside both hex views: it needs ROOM_REM of
// width (the trees' 13rem, both hex columns' 33rem; style.css). Where the stage is
// narrower, the info pane folds away while the comparison is on show (its Info button
// brings it back); a phone stacks the panes instead.
const ROOM_REM = 46;
let foldedWidth = 0;

export function fitComparison(on = Boolean(state.compare)) {
  const panes = state.panes;
  if (!panes) return;
  const folded = panes.folded.has('info-panel');
  const phone = narrow().matches;
  const room = ROOM_REM * (parseFloat(getComputedStyle(document.documentElement).fontSize) || 16);
  const stage = $('stage').getBoundingClientRect().width;
  if (on && !phone && !folded && panes.shown('info-panel') && stage < room) {
    foldedWidth =
      $('info-panel').getBoundingClientRect().width + $('split-info').getBoundingClientRect().width;
    panes.fold('info-panel', true);
  } else if (folded && (!on || phone || stage - foldedWidth >= room)) {
    panes.fold('info-panel', false);
  }
}

window.addEventListener('resize', () => {
  if (state.compare) fitComparison(true);
});
