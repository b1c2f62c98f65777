// @ts-check
// The archive's files, grouped under their folders, with a kind badge per file, counts per
// kind (clickable filters), a search box, and keyboard navigation that previews as it
// moves: ↑/↓ (and Home/End) open the next visible file, ←/→ fold and unfold its folder,
// typing in the list goes to the search box. Names reach the page as text only.

import { comparePaths } from '../ground/state.js';

// Only the rows in sight (and a few either side) are in the DOM, between two spacers, so a
// folder of 20,000 files costs the page what a few dozen rows cost: typing a file by its
// content, or a search, re-renders a window, never the whole list.
const ROW_HEIGHT = 18; // px, matches #file-list li in style.css
const OVERSCAN = 20; // rows rendered beyond each edge of the visible ones

/** @typedef {{ folder: true, dir: string, collapsed: boolean } | { entry: Entry }} ListRow */

export class FileList {
  // `label(kind)` is the core's badge for a kind; `onMenu(path, x, y)` is asked for a file's
  // menu (a right-click, the context-menu key or Shift+F10 on it).
  /**
   * @param {object} parts
   * @param {HTMLElement} parts.list
   * @param {HTMLInputElement} parts.search
   * @param {HTMLElement} parts.kinds
   * @param {HTMLElement | null} parts.noMatches
   * @param {(kind: string) => string} parts.label
   * @param {(path: string, how?: { pointer: boolean }) => void} parts.onOpen
   * @param {((path: string, x: number, y: number) => void) | null} [parts.onMenu]
   * @param {(() => void) | null} [parts.onFilter] told when the search or the kind filter changes
   */
  constructor({ list, search, kinds, noMatches, label, onOpen, onMenu = null, onFilter = null }) {
    this.label = label;
    this.onFilter = onFilter;
    this.onMenu = onMenu;
    this.noMatches = noMatches;
    this.list = list;
    this.search = search;
    this.kindsBox = kinds;
    this.onOpen = onOpen;
    // While the other file of a comparison is chosen (setPicking): arrows move the cursor
    // without opening, Enter confirms.
    this.picking = false;
    /** @type {Entry[]} */
    this.entries = [];
    // What the list shows, in order: {folder, dir} heads and {entry} files.
    /** @type {ListRow[]} */
    this.rows = [];
    /** @type {[number, number] | null} */
    this.window = null; // [first, last) rows in the DOM
    /** @type {string | null} */
    this.current = null;
    /** @type {string | null} */
    this.kindFilter = null;
    /** @type {Set<string>} */
    this.collapsed = new Set();
    /** @type {WeakMap<Entry, number>} */
    this.rowIds = new WeakMap();
    this.stale = false;
    this.nextRowId = 0;
    this.list.tabIndex = 0;
    this.top = spacer();
    this.bottom = spacer();
    this.list.replaceChildren(this.top, this.bottom);
    this.listen();
  }

  // What the list, its search box and its kind chips do.
  listen() {
    const { list, search, kindsBox: kinds } = this;
    // The chips count what the search leaves, so they follow it.
    search.addEventListener('input', () => {
      this.applyFilter();
      this.renderKinds();
    });
    // From the search box, ↓ and Enter go to the first match, whichever file is open.
    search.addEventListener('keydown', e => {
      if (e.key === 'ArrowDown' || e.key === 'Enter') {
        e.preventDefault();
        this.list.focus();
        this.move(0, 0);
      }
    });
    kinds.addEventListener('click', e => {
      const chip = /** @type {HTMLElement | null} */ (
        /** @type {Element} */ (e.target).closest('[data-kind]')
      );
      if (!chip) return;
      this.kindFilter = this.kindFilter === chip.dataset.kind ? null : (chip.dataset.kind ?? null);
      this.applyFilter();
    });
    list.addEventListener('click', e => {
      const li = /** @type {Element} */ (e.target).closest('li');
      if (!li || li.classList.contains('spacer')) return;
      if (li.dataset.folder !== undefined) this.toggleFolder(li.dataset.folder);
      else if (li.dataset.path !== undefined) this.onOpen(li.dataset.path, { pointer: true });
    });
    list.addEventListener('keydown', e => this.key(e));
    list.addEventListener('contextmenu', e => {
      if (!this.onMenu) return;
      // (The context-menu key opens the menu from keydown; its event lands on the list.)
      e.preventDefault();
      const li = /** @type {HTMLElement | null} */ (
        /** @type {Element} */ (e.target).closest('li[data-path]')
      );
      if (li?.dataset.path !== undefined) this.onMenu(li.dataset.path, e.clientX, e.clientY);
    });
    list.addEventListener('scroll', () => this.render());
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.render()).observe(list);
  }

  // The other file of a comparison is being chosen (true) or not.
  /** @param {boolean} on */
  setPicking(on) {
    this.picking = Boolean(on);
  }

  /** @param {Entry[]} entries */
  set(entries) {
    this.entries = entries;
    this.collapsed.clear();
    this.kindFilter = null;
    this.list.scrollTop = 0;
    this.renderKinds();
    this.applyFilter();
  }

  // The kind an entry was typed as by its content (its row follows at the next render).
  /** @param {Entry} entry @param {string} kind */
  setKind(entry, kind) {
    entry.kind = kind;
    entry.pending = false;
    this.stale = true;
  }

  // A file that failed to open is marked red, with why as its tooltip; one that opened is not.
  /** @param {Entry} entry @param {boolean} failed @param {string | null} [why] */
  setFailed(entry, failed, why = null) {
    entry.failed = failed;
    entry.failure = failed ? why : null;
    this.stale = true;
    this.render();
  }

  // What a check of the whole archive found for one file; the rows follow at the next
  // refresh (a check of thousands of files renders once per batch, not once per file).
  /** @param {Entry} entry @param {{ failed: boolean, damaged: boolean }} verdict */
  setVerdict(entry, { failed, damaged }) {
    if (Boolean(entry.failed) === failed && Boolean(entry.damaged) === damaged) return;
    entry.failed = failed;
    entry.damaged = damaged;
    this.stale = true;
  }

  // A file shown despite damage at its end is marked as such.
  /** @param {Entry} entry @param {boolean} damaged */
  setDamaged(entry, damaged) {
    if (Boolean(entry.damaged) === damaged) return;
    entry.damaged = damaged;
    this.stale = true;
    this.render();
  }

  // After kinds changed: the rows a kind filter shows may have changed too.
  refresh() {
    if (this.kindFilter) this.applyFilter();
    else this.render();
  }

  // A chip per kind in the archive, counting the files of that kind the search leaves (a
  // kind the search leaves none of keeps its chip, at 0, so the row does not jump).
  renderKinds() {
    const q = this.query();
    /** @type {Map<string, number>} */
    const counts = new Map();
    /** @type {Map<string, number>} */
    const all = new Map();
    for (const e of this.entries) {
      const kind = e.kind || 'unknown';
      all.set(kind, (all.get(kind) || 0) + 1);
      if (!q || e.path.toLowerCase().includes(q)) counts.set(kind, (counts.get(kind) || 0) + 1);
    }
    this.kindsBox.replaceChildren(
      ...[...all]
        .sort((a, b) => b[1] - a[1])
        .map(([kind]) => {
          const n = counts.get(kind) || 0;
          const chip = document.createElement('button');
          chip.type = 'button';
          chip.className = 'chip' + (n === 0 ? ' none' : '');
          chip.dataset.kind = kind;
          chip.dataset.count = String(n);
          chip.setAttribute('aria-pressed', String(this.kindFilter === kind));
          chip.textContent = `${this.label(kind)} ${n}`;
          chip.title = `${kind}: show only these (click again for all)`;
          return chip;
        }),
    );
  }

  query() {
    return this.search.value.trim().toLowerCase();
  }

  applyFilter() {
    const q = this.query();
    /** @type {ListRow[]} */
    const rows = [];
    // Entries are sorted by path, so each folder's files are together.
    /** @type {string | null} */
    let dir = null;
    /** @type {ListRow[]} */
    let files = [];
    const endFolder = () => {
      if (dir === null || !files.length) return;
      const collapsed = this.collapsed.has(dir);
      rows.push({ folder: true, dir, collapsed });
      if (!collapsed) rows.push(...files);
    };
    for (const e of this.entries) {
      const its = dirOf(e.path);
      if (its !== dir) {
        endFolder();
        dir = its;
        files = [];
      }
      if (
        (!q || e.path.toLowerCase().includes(q)) &&
        (!this.kindFilter || (e.kind || 'unknown') === this.kindFilter)
      )
        files.push({ entry: e });
    }
    endFolder();
    this.rows = rows;
    for (const chip of /** @type {HTMLCollectionOf<HTMLElement>} */ (this.kindsBox.children))
      chip.setAttribute('aria-pressed', String(chip.dataset.kind === this.kindFilter));
    // Nothing left to show: say so, and what hid it.
    if (this.noMatches) {
      const none = this.entries.length > 0 && rows.length === 0;
      this.noMatches.hidden = !none;
      if (none) {
        const what = [
          q && `“${this.search.value.trim()}”`,
          this.kindFilter && `of kind ${this.label(this.kindFilter)}`,
        ]
          .filter(Boolean)
          .join(' ');
        this.noMatches.textContent = `No files match ${what}.`;
      }
    }
    this.stale = true;
    this.render();
    this.onFilter?.();
  }

  // Put the rows in sight into the DOM (when the window moved or rows changed).
  render() {
    const height = this.list.clientHeight || 600;
    const top = this.list.scrollTop;
    /** @type {[number, number]} */
    const inSight = [
      Math.floor(top / ROW_HEIGHT),
      Math.min(this.rows.length, Math.ceil((top + height) / ROW_HEIGHT)),
    ];
    // The same rows, and every row in sight already in the DOM: nothing to do. A list a few
    // pixels shorter (the kind chips above it wrapped to a new line while the folder was
    // typed) or scrolled within its overscan keeps its rows; re-rendering them there made a
    // second style and layout pass in the frame, which with 20,000 files passed 50 ms.
    if (!this.stale && this.window && this.window[0] <= inSight[0] && inSight[1] <= this.window[1]) return;
    const first = Math.max(0, inSight[0] - OVERSCAN);
    const last = Math.min(this.rows.length, inSight[1] + OVERSCAN);
    this.stale = false;
    this.window = [first, last];
    this.top.style.height = `${first * ROW_HEIGHT}px`;
    this.bottom.style.height = `${(this.rows.length - last) * ROW_HEIGHT}px`;
    const lis = [];
    for (const row of this.rows.slice(first, last)) lis.push(this.rowElement(row));
    this.list.replaceChildren(this.top, ...lis, this.bottom);
    const active = lis.find(li => li.getAttribute('aria-selected') === 'true');
    if (active) this.list.setAttribute('aria-activedescendant', active.id);
    else this.list.removeAttribute('aria-activedescendant');
  }

  /** @param {ListRow} row */
  rowElement(row) {
    const li = document.createElement('li');
    li.setAttribute('role', 'treeitem');
    if ('folder' in row) {
      li.className = row.collapsed ? 'folder collapsed' : 'folder';
      li.dataset.folder = row.dir;
      li.setAttribute('aria-level', '1');
      li.setAttribute('aria-expanded', String(!row.collapsed));
      li.textContent = row.dir === '' ? '/' : `${row.dir}/`;
      return li;
    }
    const entry = row.entry;
    const slash = entry.path.lastIndexOf('/');
    li.setAttribute('aria-level', '2');
    li.id = `file-row-${this.rowIds.get(entry) ?? this.rowId(entry)}`;
    li.dataset.path = entry.path;
    li.dataset.kind = entry.kind || 'unknown';
    // Typed by its name so far; its content is read after the whole list shows.
    if (entry.pending) li.classList.add('pending');
    if (entry.failed) li.classList.add('failed');
    if (entry.damaged) li.classList.add('damaged');
    li.setAttribute('aria-selected', String(entry.path === this.current));
    li.title = entry.failed && entry.failure ? `${entry.path}\n${entry.failure}` : entry.path;
    const badge = document.createElement('span');
    badge.className = `kind kind-${li.dataset.kind}`;
    badge.textContent = this.label(entry.kind || 'unknown');
    const size = document.createElement('span');
    size.className = 'size';
    size.textContent = formatSize(entry.size);
    li.append(size, badge, document.createTextNode(slash < 0 ? entry.path : entry.path.slice(slash + 1)));
    return li;
  }

  /** @param {string} dir */
  toggleFolder(dir) {
    if (this.collapsed.has(dir)) this.collapsed.delete(dir);
    else this.collapsed.add(dir);
    this.applyFilter();
  }

  // Paths of the files the list shows (search, kind filter and folded folders applied).
  visibleFiles() {
    const out = [];
    for (const r of this.rows) if ('entry' in r) out.push(r.entry.path);
    return out;
  }

  // {files, folders, pending, failed, shown, shownFolders}: counts for scripts and tests.
  counts() {
    let pending = 0;
    let failed = 0;
    const folders = new Set();
    for (const e of this.entries) {
      if (e.pending) pending++;
      if (e.failed) failed++;
      folders.add(dirOf(e.path));
    }
    const shown = this.rows.filter(r => 'entry' in r).length;
    return {
      files: this.entries.length,
      folders: folders.size,
      pending,
      failed,
      shown,
      shownFolders: this.rows.length - shown,
    };
  }

  /** @param {string | null} path */
  mark(path) {
    this.current = path;
    const i = this.rows.findIndex(r => 'entry' in r && r.entry.path === path);
    if (i >= 0) {
      // Scrolled into sight, as the browser would for a row in the DOM.
      const height = this.list.clientHeight || 600;
      const y = i * ROW_HEIGHT;
      if (y < this.list.scrollTop) this.list.scrollTop = y;
      else if (y + ROW_HEIGHT > this.list.scrollTop + height) this.list.scrollTop = y + ROW_HEIGHT - height;
    }
    this.stale = true;
    this.render();
  }

  // A stable id per entry, for aria-activedescendant.
  /** @param {Entry} entry */
  rowId(entry) {
    const id = this.nextRowId++;
    this.rowIds.set(entry, id);
    return id;
  }

  // Open the visible file `step` places from the current one (0: the current or first).
  // The current file hidden (its folder folded, or the search left it out): the step starts
  // from where it would be, so ↓ goes to the file after its folder and ↑ to the one before.
  /** @param {number} step @param {number | null} [absolute] */
  move(step, absolute = null) {
    const files = this.visibleFiles();
    if (!files.length) return;
    const current = this.current;
    let i = current === null ? -1 : files.indexOf(current);
    if (absolute !== null) i = absolute < 0 ? files.length - 1 : absolute;
    else if (i >= 0) i = Math.min(files.length - 1, Math.max(0, i + step));
    else if (current === null) i = 0;
    else {
      const after = files.findIndex(p => comparePaths(p, current) > 0);
      if (step > 0) i = after < 0 ? files.length - 1 : after;
      else if (step < 0) i = after < 0 ? files.length - 1 : Math.max(0, after - 1);
      else i = after < 0 ? files.length - 1 : after;
    }
    const path = files[i];
    if (path === undefined) return;
    // Choosing the other file of a comparison: the cursor moves, Enter confirms.
    if (this.picking) this.mark(path);
    else this.onOpen(path);
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const dir = this.current ? dirOf(this.current) : '';
    if (e.key === 'ArrowDown') this.move(1);
    else if (e.key === 'ArrowUp') this.move(-1);
    else if (e.key === 'Home') this.move(0, 0);
    else if (e.key === 'End') this.move(0, -1);
    else if (e.key === 'Enter' && this.picking) {
      if (this.current) this.onOpen(this.current);
    } else if (e.key === 'Enter') this.move(0);
    else if (e.key === 'ArrowLeft') {
      if (!this.collapsed.has(dir)) this.toggleFolder(dir);
    } else if (e.key === 'ArrowRight') {
      if (this.collapsed.has(dir)) this.toggleFolder(dir);
    } else if ((e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) && this.current && this.onMenu) {
      const li = this.list.querySelector('li[aria-selected="true"]');
      const r = (li || this.list).getBoundingClientRect();
      this.onMenu(this.current, r.left + 24, r.bottom);
    } else if (e.key === '?')
      return; // The help's, from anywhere but a text field.
    else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      // Type-ahead: the keystroke goes on in the search box.
      this.search.focus();
      return;
    } else return;
    e.preventDefault();
  }
}

/** @param {string} path */
function dirOf(path) {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function spacer() {
  const li = document.createElement('li');
  li.className = 'spacer';
  li.setAttribute('role', 'presentation');
  li.setAttribute('aria-hidden', 'true');
  return li;
}

/** @param {number} n */
export function formatSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
