// @ts-check
// The inspector: the file's chunk tree beside a hex view, linked both ways, with bytes
// shaded by what the core decoded them as, and the diagnostics as links into the bytes.
// Everything from the file reaches the page as text. Both panes work from the keyboard: the
// tree's arrows walk and select records, the hex view's move a byte cursor whose values
// (u8 … f32) are shown under it; an offset can be gone to and bytes or text searched for.

import { $, closestTo, count, first } from '../ground/state.js';
import { HexView, ROW_HEIGHT, hex } from '../ground/hexview.js';
import { observedSize } from '../ground/boxsize.js';
import { findBytes, parseNeedle, parseOffset, valueRows } from '../ground/bytes.js';

// Tree rows kept in the DOM beyond those in sight, above and below: a small file's tree is
// whole, a file of thousands of records costs a few hundred rows.
const TREE_OVERSCAN = 200;

/** @typedef {import('../../pkg/relicview.js').Row} Row */

export class Inspector {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    // What the page does when the selection is cleared, and when record `c` is selected.
    /** @type {(() => void) | null} */
    this.onClear = null;
    /** @type {((c: Row) => void) | null} */
    this.onSelect = null;
    this.tree = $('chunk-tree');
    this.treeSpacer = $('tree-spacer');
    this.treeRows = $('tree-rows');
    // The records the tree shows (not under a collapsed one), in order, and the window of
    // them in the DOM.
    /** @type {number[]} */
    this.shownRows = [];
    /** @type {[number, number]} */
    this.window = [0, 0];
    // Where the tree is scrolled to, as last set here or reported by its scroll event (as
    // the hex view keeps it).
    this.treeScrolledTo = 0;
    this.tree.addEventListener('scroll', () => {
      this.treeScrolledTo = this.tree.scrollTop;
      this.renderTreeWindow();
    });
    this.treeSize = observedSize(this.tree, () => this.renderTreeWindow());
    this.hexBox = $('hex');
    this.hexRows = $('hex-rows');
    this.hexView = new HexView({
      box: this.hexBox,
      spacer: $('hex-spacer'),
      rows: this.hexRows,
      heads: first(root, '.hex-heads .hex-cols'),
      classOf: o => {
        const sel = this.selection;
        return (
          `cov-${this.classAt(o)}` +
          (sel && o >= sel.start && o < sel.end ? ' sel' : '') +
          (o === this.cursor ? ' cursor' : '')
        );
      },
    });
    this.detail = $('inspector-detail');
    // A polygon record's colours (stored, and lit by the game) as swatches.
    this.colours = $('inspector-colours');
    this.diagnostics = $('diagnostics');
    this.legend = $('coverage-legend');
    this.viewSelect = $('byte-view');
    /** @type {import('../../pkg/relicview.js').InspectorView | null} */
    this.view = null;
    /** @type {Uint8Array} */
    this.bytes = new Uint8Array(0);
    // Every byte view of the file (the decoded bytes first for a container), and the one shown.
    /** @type {Uint8Array[]} */
    this.byteSets = [];
    this.shownView = 0;
    /** @type {Set<number>} */
    this.collapsed = new Set();
    this.viewSelect.addEventListener('change', () => this.setByteView(Number(this.viewSelect.value)));
    /** @type {InspectorSelection | null} */
    this.selection = null; // {chunk, start, end}
    this.hexRows.addEventListener('click', e => {
      const b = closestTo(e, '[data-o]');
      if (b) this.selectByte(Number(b.dataset.o));
    });
    this.tree.addEventListener('click', e => {
      const row = closestTo(e, '[data-chunk]');
      if (!row) return;
      if (e.target instanceof Element && e.target.classList.contains('twisty'))
        this.toggle(Number(row.dataset.chunk));
      else this.selectChunk(Number(row.dataset.chunk));
    });
    this.diagnostics.addEventListener('click', e => {
      const item = closestTo(e, '[data-offset]');
      if (item) this.goToProblem(item);
    });
    this.diagnostics.addEventListener('keydown', e => {
      const item = closestTo(e, '[data-offset]');
      if (item && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        this.goToProblem(item);
      }
    });
    this.values = $('value-inspector');
    /** @type {number | null} */
    this.cursor = null; // the hex view's byte cursor (an offset), or null
    this.tree.addEventListener('keydown', e => this.treeKey(e));
    this.hexBox.addEventListener('keydown', e => this.hexKey(e));
    const gotoField = $('goto-offset');
    const findField = $('find-bytes');
    this.status = $('find-status');
    $('hex-tools').addEventListener('submit', e => e.preventDefault());
    gotoField.addEventListener('keydown', e => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      this.goTo(gotoField.value);
    });
    findField.addEventListener('keydown', e => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      this.find(findField.value, e.shiftKey ? -1 : 1);
    });
  }

  // A problem's link lands on the record it names: the chunk at its offset (an error at a
  // chunk's first byte names that chunk, not the bytes before it).
  /** @param {HTMLElement} item */
  goToProblem(item) {
    const offset = Number(item.dataset.offset);
    const c = this.rowsStartingAt(offset).at(-1);
    if (c) {
      this.selectChunk(c.index);
      this.setCursor(offset);
    } else this.selectByte(offset);
  }

  // The records starting at `offset`, the outermost first (a record's children follow it).
  /** @param {number} offset */
  rowsStartingAt(offset) {
    return (this.view ? this.view.chunks : []).filter(c => c.offset === offset);
  }

  // Put back a selection taken from `selection` earlier (null: none).
  /** @param {InspectorSelection | null | undefined} sel */
  restore(sel) {
    if (!sel) {
      this.selection = null;
      this.colours.hidden = true;
      for (const row of this.tree.querySelectorAll('[aria-selected="true"]'))
        row.setAttribute('aria-selected', 'false');
      this.renderHex();
      if (this.onClear) this.onClear();
      return;
    }
    if (sel.chunk === null || sel.chunk === undefined) this.selectByte(sel.start);
    else {
      const c = this.view?.chunks[sel.chunk];
      if (c && c.offset === sel.start && c.end === sel.end) this.selectChunk(sel.chunk);
      else this.selectRange(sel.chunk, sel.start, sel.end);
    }
  }

  // Tree keys: ↑/↓ (Page Up/Down, Home/End) select the previous/next record, ← collapses or
  // goes to the parent, → expands or goes to the first child, Enter folds, * / - all.
  /** @param {KeyboardEvent} e */
  treeKey(e) {
    if (!this.view || !this.shownRows.length) return;
    const at =
      this.selection && this.selection.chunk !== null ? this.shownRows.indexOf(this.selection.chunk) : -1;
    const page = Math.max(1, Math.floor((this.treeSize.height || 300) / ROW_HEIGHT) - 1);
    const go = (/** @type {number} */ i) => {
      const row = this.shownRows[Math.max(0, Math.min(this.shownRows.length - 1, i))];
      if (row !== undefined) this.selectChunk(row);
    };
    const c = this.view.chunks[this.shownRows[at] ?? -1] ?? null;
    switch (e.key) {
      case 'ArrowDown':
        go(at + 1);
        break;
      case 'ArrowUp':
        go(at < 0 ? 0 : at - 1);
        break;
      case 'PageDown':
        go(at + page);
        break;
      case 'PageUp':
        go(at - page);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(this.shownRows.length - 1);
        break;
      case 'ArrowLeft':
        if (c?.container && !this.collapsed.has(c.index)) this.toggle(c.index);
        else if (c && c.parent !== null && c.parent !== undefined) this.selectChunk(c.parent);
        break;
      case 'ArrowRight':
        if (c?.container && this.collapsed.has(c.index)) this.toggle(c.index);
        else if (c?.container && at + 1 < this.shownRows.length) go(at + 1);
        break;
      case 'Enter':
        if (c) this.toggle(c.index);
        else go(0);
        break;
      case '*':
        this.setAllCollapsed(false);
        break;
      case '-':
        this.setAllCollapsed(true);
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  /** @param {boolean} collapsed */
  setAllCollapsed(collapsed) {
    this.collapsed = new Set(
      collapsed && this.view ? this.view.chunks.filter(c => c.container).map(c => c.index) : [],
    );
    this.renderTree();
    if (this.selection && this.selection.chunk !== null && !collapsed) this.revealRow(this.selection.chunk);
  }

  // Hex keys move the byte cursor; Enter selects the record that holds it.
  /** @param {KeyboardEvent} e */
  hexKey(e) {
    const n = this.bytes.length;
    if (!n) return;
    const at = this.cursor ?? (this.selection ? this.selection.start : 0);
    const row = this.hexView.rowBytes;
    const page = row * this.hexView.pageRows;
    let to = null;
    switch (e.key) {
      case 'ArrowRight':
        to = at + 1;
        break;
      case 'ArrowLeft':
        to = at - 1;
        break;
      case 'ArrowDown':
        to = at + row;
        break;
      case 'ArrowUp':
        to = at - row;
        break;
      case 'PageDown':
        to = at + page;
        break;
      case 'PageUp':
        to = at - page;
        break;
      case 'Home':
        to = e.ctrlKey ? 0 : at - (at % row);
        break;
      case 'End':
        to = e.ctrlKey ? n - 1 : at - (at % row) + row - 1;
        break;
      case 'Enter':
        this.selectByte(at);
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    this.setCursor(Math.max(0, Math.min(n - 1, to)));
  }

  // The byte cursor: scrolled to, outlined, its values shown and described.
  /** @param {number} offset */
  setCursor(offset) {
    this.cursor = offset;
    this.scrollHexTo(offset);
    this.renderHex();
    this.renderValues();
  }

  renderValues() {
    const o = this.cursor;
    if (o === null || o >= this.bytes.length) {
      this.values.replaceChildren();
      return;
    }
    const rows = valueRows(this.bytes, o);
    this.values.replaceChildren(
      ...rows.map(([k, v]) => {
        const div = document.createElement('div');
        const dt = document.createElement('dt');
        dt.textContent = k;
        const dd = document.createElement('dd');
        dd.textContent = v;
        dd.title = `${k} at byte ${o}, little-endian: ${v}`;
        div.append(dt, dd);
        return div;
      }),
    );
    this.values.dataset.offset = String(o);
  }

  // Go to an offset typed by the reader: decimal, or hex with 0x (or a trailing h).
  /** @param {string} text */
  goTo(text) {
    const t = String(text).trim();
    const offset = parseOffset(t);
    if (offset === null) {
      this.status.textContent = `“${t}” is not an offset (decimal, or hex as 0x1F)`;
      return null;
    }
    if (offset >= this.bytes.length) {
      this.status.textContent = `offset ${offset} is past the end (${count(this.bytes.length, 'byte')})`;
      return null;
    }
    this.status.textContent = '';
    this.selectByte(offset);
    this.setCursor(offset);
    return offset;
  }

  // Find bytes from the cursor on (direction -1: backwards), wrapping at the ends. The
  // needle is hex bytes ("de ad 00") when it reads as such, else text.
  /** @param {string} text @param {number} [direction] */
  find(text, direction = 1) {
    const needle = parseNeedle(text);
    if (!needle.length) {
      this.status.textContent = '';
      return null;
    }
    const found = findBytes(this.bytes, needle, this.cursor ?? -1, direction);
    if (found < 0) {
      this.status.textContent = 'not found';
      return null;
    }
    this.status.textContent = `at ${found} (0x${hex(found, 1)})`;
    this.selectByte(found);
    this.selection = {
      chunk: this.selection ? this.selection.chunk : null,
      start: found,
      end: found + needle.length,
    };
    this.setCursor(found);
    return found;
  }

  // Show a file: the core's view (chunks, fields, runs, diagnostics, error, byte views) and
  // the bytes of each byte view; the rows and shading refer to the first.
  /** @param {import('../../pkg/relicview.js').InspectorView | null} view @param {Uint8Array[]} byteSets */
  show(view, byteSets) {
    this.view = view;
    this.byteSets = byteSets;
    this.shownView = 0;
    this.bytes = byteSets[0] || new Uint8Array(0);
    this.viewSelect.replaceChildren(
      ...(view ? view.views : []).map((v, i) => {
        const o = document.createElement('option');
        o.value = String(i);
        o.textContent = `${v.label} (${count(v.len, 'byte')})`;
        return o;
      }),
    );
    this.viewSelect.hidden = !view || view.views.length < 2;
    this.selection = null;
    this.colours.hidden = true;
    this.cursor = null;
    this.collapsed = new Set();
    if (this.treeScrolledTo !== 0) this.scrollTree(0);
    this.tree.removeAttribute('aria-activedescendant');
    if (this.values) this.values.replaceChildren();
    if (this.status) this.status.textContent = '';
    this.renderLegend();
    this.renderDiagnostics();
    // Both panes from their top, laid out without reading the page's layout (boxsize.js).
    this.renderTree(0);
    this.hexView.set(this.bytes);
    const listed = !view
      ? ''
      : view.rows_total > view.chunks.length
        ? `the first ${view.chunks.length} of ${view.rows_total} records listed`
        : count(view.chunks.length, 'chunk');
    this.detail.textContent = view ? `${listed} · click a chunk or a byte` : '';
  }

  renderLegend() {
    this.legend.replaceChildren();
    if (!this.view) return;
    const classes = [
      ['framing', 'framing'],
      ['decoded', 'decoded'],
      ['opaque', 'opaque'],
      ['unclaimed', 'unclaimed'],
    ];
    if (this.view.runs.some(r => r.class === 'text')) classes.push(['text', 'text']);
    if (this.view.runs.some(r => r.class === 'unlisted'))
      classes.push(['unlisted', 'past the listed records']);
    for (const [cls, label] of classes) {
      const n = this.view.runs.filter(r => r.class === cls).reduce((s, r) => s + r.len, 0);
      const item = document.createElement('span');
      item.className = `legend cov-${cls}`;
      item.dataset.class = cls;
      item.dataset.bytes = String(n);
      item.textContent = `${label} ${n}`;
      this.legend.append(item);
    }
  }

  renderDiagnostics() {
    this.diagnostics.replaceChildren();
    if (!this.view) return;
    /** @type {(import('../../pkg/relicview.js').Diagnostic & { error?: boolean })[]} */
    const items = [];
    if (this.view.error) items.push({ ...this.view.error, error: true });
    items.push(...this.view.diagnostics);
    for (const d of items) {
      const li = document.createElement('li');
      li.tabIndex = 0;
      li.dataset.offset = String(d.offset);
      li.className = d.error ? 'error' : 'warning';
      li.textContent = `@${d.offset} ${d.path ? d.path + ': ' : ''}${d.message}`;
      this.diagnostics.append(li);
    }
    if (this.view.diagnostics_dropped) {
      const li = document.createElement('li');
      li.className = 'warning';
      li.textContent = `… and ${this.view.diagnostics_dropped} more, not listed`;
      this.diagnostics.append(li);
    }
    this.diagnostics.hidden = items.length === 0;
  }

  // (`top`: the row the tree is scrolled to, where the caller knows it.)
  /** @param {number} [top] */
  renderTree(top = undefined) {
    this.window = [0, 0];
    this.treeRows.replaceChildren();
    this.shownRows = [];
    if (!this.view) {
      this.treeSpacer.style.height = '0px';
      return;
    }
    // A row is shown when no ancestor is collapsed; rows come parents first.
    const chunks = this.view.chunks;
    const hidden = new Uint8Array(chunks.length);
    for (const c of chunks) {
      const p = c.parent;
      if (p !== null && p !== undefined && p < chunks.length && (hidden[p] || this.collapsed.has(p)))
        hidden[c.index] = 1;
      else this.shownRows.push(c.index);
    }
    this.treeSpacer.style.height = `${this.shownRows.length * ROW_HEIGHT}px`;
    this.renderTreeWindow(true, top);
  }

  /** @param {number} px */
  scrollTree(px) {
    this.tree.scrollTop = px;
    this.treeScrolledTo = px;
  }

  // Only the rows near those in sight exist in the DOM.
  renderTreeWindow(force = false, top = Math.floor(this.tree.scrollTop / ROW_HEIGHT)) {
    if (!this.view) return;
    const inSight = Math.ceil((this.treeSize.height || 300) / ROW_HEIGHT);
    const first = Math.max(0, top - TREE_OVERSCAN);
    const last = Math.min(this.shownRows.length, top + inSight + TREE_OVERSCAN);
    // Re-render only when the sight nears the edge of what is in the DOM.
    const [a, b] = this.window;
    if (
      !force &&
      first >= a &&
      last <= b &&
      (top - a > TREE_OVERSCAN / 4 || a === 0) &&
      (b - top - inSight > TREE_OVERSCAN / 4 || b === this.shownRows.length)
    )
      return;
    this.window = [first, last];
    this.treeRows.style.top = `${first * ROW_HEIGHT}px`;
    const frag = document.createDocumentFragment();
    const selected = this.selection ? this.selection.chunk : null;
    const chunks = this.view ? this.view.chunks : [];
    for (const row of this.shownRows.slice(first, last)) {
      const c = chunks[row];
      if (c) frag.append(this.treeRow(c, selected));
    }
    this.treeRows.replaceChildren(frag);
  }

  /** @param {Row} c @param {number | null} selected */
  treeRow(c, selected) {
    const row = document.createElement('div');
    row.className = ['chunk', ...c.flags].join(' ');
    row.dataset.chunk = String(c.index);
    row.id = `chunk-row-${c.index}`;
    row.style.paddingLeft = `${c.depth * 14 + 4}px`;
    row.setAttribute('role', 'treeitem');
    row.setAttribute('aria-level', String(c.depth + 1));
    if (c.container) row.setAttribute('aria-expanded', String(!this.collapsed.has(c.index)));
    row.setAttribute('aria-selected', String(c.index === selected));
    // The whole text where the columns cut it short.
    row.title = `${hex(c.offset, 6)} ${c.label}${c.summary ? ' — ' + c.summary : ''}${c.detail ? '\n' + c.detail : ''}`;
    const twisty = document.createElement('span');
    twisty.className = 'twisty';
    twisty.textContent = c.container ? (this.collapsed.has(c.index) ? '▸' : '▾') : ' ';
    const head = document.createElement('span');
    head.className = 'chunk-head';
    head.textContent = `${hex(c.offset, 6)} ${c.label}`;
    const summary = document.createElement('span');
    summary.className = 'chunk-summary';
    summary.textContent = c.summary;
    row.append(twisty, head, summary);
    return row;
  }

  /** @param {number} index */
  toggle(index) {
    const c = this.view?.chunks[index];
    if (!c?.container) return;
    if (this.collapsed.has(index)) this.collapsed.delete(index);
    else this.collapsed.add(index);
    const scroll = this.tree.scrollTop;
    this.renderTree();
    this.scrollTree(scroll);
    this.renderTreeWindow(true);
  }

  // Bring record `index` into the tree's sight: its collapsed ancestors opened, the tree
  // scrolled to it.
  /** @param {number} index */
  revealRow(index) {
    if (!this.view) return;
    const chunks = this.view.chunks;
    let opened = false;
    for (let p = chunks[index]?.parent; p !== null && p !== undefined; p = chunks[p]?.parent) {
      if (this.collapsed.delete(p)) opened = true;
    }
    if (opened) this.renderTree();
    const at = this.shownRows.indexOf(index);
    if (at < 0) return;
    const top = at * ROW_HEIGHT;
    const h = this.treeSize.height || 300;
    if (top < this.tree.scrollTop || top > this.tree.scrollTop + h - ROW_HEIGHT)
      this.scrollTree(Math.max(0, top - ROW_HEIGHT * 2));
    this.renderTreeWindow(true);
  }

  // Show byte view `i` in the hex view: the rows and their shading belong to view 0, so other
  // views (a container's own bytes) are shown plain.
  /** @param {number} i */
  setByteView(i) {
    const bytes = this.byteSets[i];
    if (!bytes) return;
    this.shownView = i;
    this.viewSelect.value = String(i);
    this.bytes = bytes;
    this.selection = null;
    this.hexView.set(this.bytes);
    this.detail.textContent = `${this.view?.views[i]?.label}: ${count(this.bytes.length, 'byte')}`;
    this.renderHex();
  }

  // The byte class at an offset, from the core's runs (sorted, tiling the file).
  /** @param {number} offset */
  classAt(offset) {
    if (this.shownView !== 0) return 'container';
    const runs = this.view ? this.view.runs : [];
    const r = runs[lastStartingBy(runs, run => run.start, offset)];
    return r && offset < r.start + r.len ? r.class : 'unclaimed';
  }

  // The deepest chunk holding `offset`, or null (the magic belongs to no chunk).
  /** @param {number} offset */
  chunkAt(offset) {
    const chunks = this.view ? this.view.chunks : [];
    const last = lastStartingBy(chunks, c => c.offset, offset);
    // The last chunk starting at or before `offset` holds it, or one of its ancestors does.
    /** @type {import('../../pkg/relicview.js').Row | undefined} */
    let c = chunks[last];
    while (c) {
      if (offset < c.end) return c;
      c = c.parent === null ? undefined : chunks[c.parent];
    }
    return null;
  }

  /** @param {number} offset */
  fieldAt(offset) {
    return this.view ? this.view.fields.find(f => offset >= f.offset && offset < f.offset + f.len) : null;
  }

  // Select the record whose bytes are `[start, end)` (a picture region's): the one starting
  // there that ends there, or else the outermost starting there. → its row, or null.
  /** @param {[number, number]} bytes */
  selectBytes([start, end]) {
    const rows = this.rowsStartingAt(start);
    const c = rows.find(r => r.end === end) ?? rows[0];
    if (c) this.selectChunk(c.index);
    return c ? c.index : null;
  }

  /** @param {number} index @param {boolean} [scrollHex] */
  selectChunk(index, scrollHex = true) {
    const c = this.view?.chunks[index];
    if (!c) return;
    if (this.shownView !== 0) this.setByteView(0);
    this.selection = { chunk: index, start: c.offset, end: c.end };
    this.revealRow(index);
    for (const row of this.tree.querySelectorAll('[aria-selected="true"]'))
      row.setAttribute('aria-selected', 'false');
    const row = this.tree.querySelector(`[data-chunk="${index}"]`);
    if (row) row.setAttribute('aria-selected', 'true');
    this.tree.setAttribute('aria-activedescendant', `chunk-row-${index}`);
    this.detail.textContent = `${c.name} at ${c.offset} (0x${hex(c.offset, 1)}): ${c.detail}${c.summary ? ' · ' + c.summary : ''}`;
    this.colours.replaceChildren(...(c.polygon ? [colourSwatches(c.polygon)] : []));
    this.colours.hidden = !c.polygon;
    if (scrollHex) this.scrollHexTo(c.offset);
    this.renderHex();
    if (this.onSelect) this.onSelect(c);
  }

  // Select a run of bytes inside a chunk (a picked face): the chunk in the tree, the bytes
  // in the hex view.
  /** @param {number | null} index @param {number} start @param {number} end @param {string} [note] */
  selectRange(index, start, end, note) {
    if (index !== null) this.selectChunk(index, false);
    this.selection = { chunk: index, start, end };
    this.scrollHexTo(start);
    if (note) this.detail.textContent = `${note} · bytes ${start}–${end} of ${this.detail.textContent}`;
    this.renderHex();
  }

  /** @param {number} offset */
  selectByte(offset) {
    this.cursor = offset;
    if (this.shownView !== 0) {
      this.selection = { chunk: null, start: offset, end: offset + 1 };
      this.detail.textContent = `${this.view?.views[this.shownView]?.label} byte ${offset}`;
      this.renderHex();
      return;
    }
    const c = this.chunkAt(offset);
    if (c) this.selectChunk(c.index, false);
    else this.selection = { chunk: null, start: offset, end: offset + 1 };
    this.scrollHexTo(offset);
    const f = this.fieldAt(offset);
    const what = f
      ? ` · byte ${offset} is ${f.what}${f.value ? ' = ' + f.value : ''}`
      : ` · byte ${offset} is ${this.classAt(offset)}`;
    this.detail.textContent = (c ? this.detail.textContent : 'magic') + what;
    this.renderHex();
    this.renderValues();
  }

  /** @param {number} offset */
  scrollHexTo(offset) {
    this.hexView.scrollTo(offset);
  }

  renderHex() {
    this.hexView.render();
  }
}

// The place of the last of `list` (sorted by `start`) that starts at or before `offset`; -1
// where none does.
/** @template T @param {T[]} list @param {(item: T) => number} start @param {number} offset */
function lastStartingBy(list, start, offset) {
  let [lo, hi, last] = [0, list.length - 1, -1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const item = list[mid];
    if (item !== undefined && start(item) <= offset) [last, lo] = [mid, mid + 1];
    else hi = mid - 1;
  }
  return last;
}

// A polygon's colours as swatches: per colour word the stored colour and, where the game's
// lighting ran, the colour it lit, with the normal that lit it.
/** @param {import('../../pkg/relicview.js').PolygonRecord} polygon */
function colourSwatches(polygon) {
  const out = document.createElement('span');
  out.className = 'polygon-colours';
  const chip = (/** @type {number[]} */ rgb, /** @type {string} */ what) => {
    const s = document.createElement('span');
    s.className = 'swatch';
    s.style.background = `rgb(${rgb.join(',')})`;
    s.title = `${what} (${rgb.join(', ')})`;
    return s;
  };
  polygon.corners.forEach((c, k) => {
    const item = document.createElement('span');
    item.className = 'polygon-colour';
    item.append(`${k ? ' · ' : ''}colour ${k}: `, chip(c.stored, 'stored'), `(${c.stored.join(', ')})`);
    if (c.lit) item.append(' → lit ', chip(c.lit, 'lit by the game'), `(${c.lit.join(', ')})`);
    item.append(`, normal ${c.normal}`);
    out.append(item);
  });
  return out;
}
