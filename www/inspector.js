// The inspector: the file's chunk tree beside a hex view, linked both ways, with bytes
// shaded by what the core decoded them as, and the diagnostics as links into the bytes.
// Everything from the file reaches the page as text.

const ROW_BYTES = 16;
const ROW_HEIGHT = 18; // px, matches .hexrow and .chunk in style.css
// Tree rows kept in the DOM beyond those in sight, above and below: a small file's tree is
// whole, a file of thousands of records costs a few hundred rows.
const TREE_OVERSCAN = 200;
const hex = (n, width) => n.toString(16).toUpperCase().padStart(width, '0');

export class Inspector {
  constructor(root) {
    this.root = root;
    this.tree = root.querySelector('#chunk-tree');
    this.treeSpacer = root.querySelector('#tree-spacer');
    this.treeRows = root.querySelector('#tree-rows');
    // The records the tree shows (not under a collapsed one), in order, and the window of
    // them in the DOM.
    this.shownRows = [];
    this.window = [0, 0];
    this.tree.addEventListener('scroll', () => this.renderTreeWindow());
    this.hexBox = root.querySelector('#hex');
    this.hexSpacer = root.querySelector('#hex-spacer');
    this.hexRows = root.querySelector('#hex-rows');
    this.detail = root.querySelector('#inspector-detail');
    this.diagnostics = root.querySelector('#diagnostics');
    this.legend = root.querySelector('#coverage-legend');
    this.viewSelect = root.querySelector('#byte-view');
    this.view = null;
    this.bytes = new Uint8Array(0);
    // Every byte view of the file (the decoded bytes first for a container), and the one shown.
    this.byteSets = [];
    this.shownView = 0;
    this.viewSelect.addEventListener('change', () => this.setByteView(Number(this.viewSelect.value)));
    this.selection = null; // {chunk, start, end}
    this.hexBox.addEventListener('scroll', () => this.renderHex());
    this.hexRows.addEventListener('click', (e) => {
      const b = e.target.closest('[data-o]');
      if (b) this.selectByte(Number(b.dataset.o));
    });
    this.tree.addEventListener('click', (e) => {
      const row = e.target.closest('[data-chunk]');
      if (!row) return;
      if (e.target.classList.contains('twisty')) this.toggle(Number(row.dataset.chunk));
      else this.selectChunk(Number(row.dataset.chunk));
    });
    this.diagnostics.addEventListener('click', (e) => {
      const item = e.target.closest('[data-offset]');
      if (item) this.selectByte(Number(item.dataset.offset));
    });
  }

  // Show a file: the core's view (chunks, fields, runs, diagnostics, error, byte views) and
  // the bytes of each byte view; the rows and shading refer to the first.
  show(view, byteSets) {
    this.view = view;
    this.byteSets = byteSets;
    this.shownView = 0;
    this.bytes = byteSets[0] || new Uint8Array(0);
    this.viewSelect.replaceChildren(...(view ? view.views : []).map((v, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = `${v.label} (${v.len} bytes)`;
      return o;
    }));
    this.viewSelect.hidden = !view || view.views.length < 2;
    this.selection = null;
    this.collapsed = new Set();
    this.tree.scrollTop = 0;
    this.renderLegend();
    this.renderDiagnostics();
    this.renderTree();
    this.hexSpacer.style.height = `${Math.ceil(this.bytes.length / ROW_BYTES) * ROW_HEIGHT}px`;
    this.hexBox.scrollTop = 0;
    const listed = !view ? '' : view.rows_total > view.chunks.length ? `the first ${view.chunks.length} of ${view.rows_total} records listed` : `${view.chunks.length} chunks`;
    this.detail.textContent = view ? `${listed} · click a chunk or a byte` : '';
    this.renderHex();
  }

  renderLegend() {
    this.legend.replaceChildren();
    if (!this.view) return;
    const classes = [['framing', 'framing'], ['decoded', 'decoded'], ['opaque', 'opaque'], ['unclaimed', 'unclaimed']];
    if (this.view.runs.some((r) => r.class === 'text')) classes.push(['text', 'text']);
    if (this.view.runs.some((r) => r.class === 'unlisted')) classes.push(['unlisted', 'past the listed records']);
    for (const [cls, label] of classes) {
      const n = this.view.runs.filter((r) => r.class === cls).reduce((s, r) => s + r.len, 0);
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
    const items = [];
    if (this.view.error) items.push({ ...this.view.error, error: true });
    items.push(...this.view.diagnostics);
    for (const d of items) {
      const li = document.createElement('li');
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

  renderTree() {
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
      if (p !== null && p !== undefined && p < chunks.length && (hidden[p] || this.collapsed.has(p))) hidden[c.index] = 1;
      else this.shownRows.push(c.index);
    }
    this.treeSpacer.style.height = `${this.shownRows.length * ROW_HEIGHT}px`;
    this.renderTreeWindow(true);
  }

  // Only the rows near those in sight exist in the DOM.
  renderTreeWindow(force = false) {
    if (!this.view) return;
    const inSight = Math.ceil((this.tree.clientHeight || 300) / ROW_HEIGHT);
    const top = Math.floor(this.tree.scrollTop / ROW_HEIGHT);
    const first = Math.max(0, top - TREE_OVERSCAN);
    const last = Math.min(this.shownRows.length, top + inSight + TREE_OVERSCAN);
    // Re-render only when the sight nears the edge of what is in the DOM.
    const [a, b] = this.window;
    if (!force && first >= a && last <= b && (top - a > TREE_OVERSCAN / 4 || a === 0) && (b - top - inSight > TREE_OVERSCAN / 4 || b === this.shownRows.length)) return;
    this.window = [first, last];
    this.treeRows.style.top = `${first * ROW_HEIGHT}px`;
    const frag = document.createDocumentFragment();
    const selected = this.selection ? this.selection.chunk : null;
    for (let i = first; i < last; i++) frag.append(this.treeRow(this.view.chunks[this.shownRows[i]], selected));
    this.treeRows.replaceChildren(frag);
  }

  treeRow(c, selected) {
    const row = document.createElement('div');
    row.className = ['chunk', ...c.flags].join(' ');
    row.dataset.chunk = String(c.index);
    row.style.paddingLeft = `${c.depth * 14 + 4}px`;
    if (c.index === selected) row.setAttribute('aria-selected', 'true');
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

  toggle(index) {
    const c = this.view.chunks[index];
    if (!c.container) return;
    if (this.collapsed.has(index)) this.collapsed.delete(index);
    else this.collapsed.add(index);
    const scroll = this.tree.scrollTop;
    this.renderTree();
    this.tree.scrollTop = scroll;
    this.renderTreeWindow(true);
  }

  // Bring record `index` into the tree's sight: its collapsed ancestors opened, the tree
  // scrolled to it.
  revealRow(index) {
    const chunks = this.view.chunks;
    let opened = false;
    for (let p = chunks[index].parent; p !== null && p !== undefined; p = chunks[p].parent) {
      if (this.collapsed.delete(p)) opened = true;
    }
    if (opened) this.renderTree();
    const at = this.shownRows.indexOf(index);
    if (at < 0) return;
    const top = at * ROW_HEIGHT;
    const h = this.tree.clientHeight || 300;
    if (top < this.tree.scrollTop || top > this.tree.scrollTop + h - ROW_HEIGHT) this.tree.scrollTop = Math.max(0, top - ROW_HEIGHT * 2);
    this.renderTreeWindow(true);
  }

  // Show byte view `i` in the hex view: the rows and their shading belong to view 0, so other
  // views (a container's own bytes) are shown plain.
  setByteView(i) {
    if (!this.byteSets[i]) return;
    this.shownView = i;
    this.viewSelect.value = String(i);
    this.bytes = this.byteSets[i];
    this.selection = null;
    this.hexSpacer.style.height = `${Math.ceil(this.bytes.length / ROW_BYTES) * ROW_HEIGHT}px`;
    this.hexBox.scrollTop = 0;
    this.detail.textContent = `${this.view.views[i].label}: ${this.bytes.length} bytes`;
    this.renderHex();
  }

  // The byte class at an offset, from the core's runs (sorted, tiling the file).
  classAt(offset) {
    if (this.shownView !== 0) return 'container';
    const runs = this.view ? this.view.runs : [];
    let lo = 0;
    let hi = runs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = runs[mid];
      if (offset < r.start) hi = mid - 1;
      else if (offset >= r.start + r.len) lo = mid + 1;
      else return r.class;
    }
    return 'unclaimed';
  }

  // The deepest chunk holding `offset`, or null (the magic belongs to no chunk).
  chunkAt(offset) {
    const chunks = this.view ? this.view.chunks : [];
    let lo = 0;
    let hi = chunks.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (chunks[mid].offset <= offset) { last = mid; lo = mid + 1; } else hi = mid - 1;
    }
    // The last chunk starting at or before `offset` holds it, or one of its ancestors does.
    for (let i = last; i !== null && i !== undefined && i >= 0; i = chunks[i].parent) {
      if (offset < chunks[i].end) return chunks[i];
    }
    return null;
  }

  fieldAt(offset) {
    return this.view ? this.view.fields.find((f) => offset >= f.offset && offset < f.offset + f.len) : null;
  }

  selectChunk(index, scrollHex = true) {
    const c = this.view && this.view.chunks[index];
    if (!c) return;
    if (this.shownView !== 0) this.setByteView(0);
    this.selection = { chunk: index, start: c.offset, end: c.end };
    this.revealRow(index);
    for (const row of this.tree.querySelectorAll('[aria-selected="true"]')) row.removeAttribute('aria-selected');
    const row = this.tree.querySelector(`[data-chunk="${index}"]`);
    if (row) row.setAttribute('aria-selected', 'true');
    this.detail.textContent = `${c.name} at ${c.offset} (0x${hex(c.offset, 1)}): ${c.detail}${c.summary ? ' · ' + c.summary : ''}`;
    if (scrollHex) this.scrollHexTo(c.offset);
    this.renderHex();
    if (this.onSelect) this.onSelect(c);
  }

  // Select a run of bytes inside a chunk (a picked face): the chunk in the tree, the bytes
  // in the hex view.
  selectRange(index, start, end, note) {
    this.selectChunk(index, false);
    this.selection = { chunk: index, start, end };
    this.scrollHexTo(start);
    if (note) this.detail.textContent = `${note} · bytes ${start}–${end} of ${this.detail.textContent}`;
    this.renderHex();
  }

  selectByte(offset) {
    if (this.shownView !== 0) {
      this.selection = { chunk: null, start: offset, end: offset + 1 };
      this.detail.textContent = `${this.view.views[this.shownView].label} byte ${offset}`;
      this.renderHex();
      return;
    }
    const c = this.chunkAt(offset);
    if (c) this.selectChunk(c.index, false);
    else this.selection = { chunk: null, start: offset, end: offset + 1 };
    this.scrollHexTo(offset);
    const f = this.fieldAt(offset);
    const what = f ? ` · byte ${offset} is ${f.what}${f.value ? ' = ' + f.value : ''}` : ` · byte ${offset} is ${this.classAt(offset)}`;
    this.detail.textContent = (c ? this.detail.textContent : 'magic') + what;
    this.renderHex();
  }

  scrollHexTo(offset) {
    const row = Math.floor(offset / ROW_BYTES);
    const top = row * ROW_HEIGHT;
    if (top < this.hexBox.scrollTop || top > this.hexBox.scrollTop + this.hexBox.clientHeight - ROW_HEIGHT) {
      this.hexBox.scrollTop = Math.max(0, top - ROW_HEIGHT * 2);
    }
  }

  // Only the rows in sight exist in the DOM: files run to megabytes.
  renderHex() {
    const first = Math.floor(this.hexBox.scrollTop / ROW_HEIGHT);
    const count = Math.ceil(this.hexBox.clientHeight / ROW_HEIGHT) + 2;
    const last = Math.min(Math.ceil(this.bytes.length / ROW_BYTES), first + count);
    this.hexRows.style.top = `${first * ROW_HEIGHT}px`;
    const sel = this.selection;
    const frag = document.createDocumentFragment();
    for (let row = first; row < last; row++) {
      const div = document.createElement('div');
      div.className = 'hexrow';
      const off = document.createElement('span');
      off.className = 'off';
      off.textContent = hex(row * ROW_BYTES, 8);
      div.append(off);
      let ascii = '';
      for (let k = 0; k < ROW_BYTES; k++) {
        const o = row * ROW_BYTES + k;
        const b = document.createElement('span');
        if (o < this.bytes.length) {
          const v = this.bytes[o];
          b.textContent = hex(v, 2);
          b.dataset.o = String(o);
          b.className = `b cov-${this.classAt(o)}` + (sel && o >= sel.start && o < sel.end ? ' sel' : '');
          ascii += v >= 0x20 && v < 0x7f ? String.fromCharCode(v) : '.';
        } else {
          b.className = 'b';
          b.textContent = '  ';
        }
        div.append(b);
      }
      const text = document.createElement('span');
      text.className = 'ascii';
      text.textContent = ascii;
      div.append(text);
      frag.append(div);
    }
    this.hexRows.replaceChildren(frag);
  }
}
