// The archive's files, grouped under their folders, with a kind badge per file, counts per
// kind (clickable filters), a search box, and keyboard navigation that previews as it
// moves: ↑/↓ (and Home/End) open the next visible file, ←/→ fold and unfold its folder,
// typing in the list goes to the search box. Names reach the page as text only.

export class FileList {
  // `label(kind)` is the core's badge for a kind.
  constructor({ list, search, kinds, label, onOpen }) {
    this.label = label;
    this.list = list;
    this.search = search;
    this.kindsBox = kinds;
    this.onOpen = onOpen;
    this.entries = [];
    this.current = null;
    this.kindFilter = null;
    this.collapsed = new Set();
    this.list.tabIndex = 0;
    search.addEventListener('input', () => this.applyFilter());
    search.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'Enter') {
        e.preventDefault();
        this.list.focus();
        this.move(e.key === 'Enter' ? 0 : 1);
      }
    });
    kinds.addEventListener('click', (e) => {
      const chip = e.target.closest('[data-kind]');
      if (!chip) return;
      this.kindFilter = this.kindFilter === chip.dataset.kind ? null : chip.dataset.kind;
      this.applyFilter();
    });
    list.addEventListener('click', (e) => {
      const li = e.target.closest('li');
      if (!li) return;
      if (li.dataset.folder !== undefined) this.toggleFolder(li.dataset.folder);
      else this.onOpen(li.dataset.path);
    });
    list.addEventListener('keydown', (e) => this.key(e));
  }

  set(entries) {
    this.entries = entries;
    this.collapsed.clear();
    this.kindFilter = null;
    const frag = document.createDocumentFragment();
    let folder = null;
    for (const entry of entries) {
      const slash = entry.path.lastIndexOf('/');
      const dir = slash < 0 ? '' : entry.path.slice(0, slash);
      if (dir !== folder) {
        folder = dir;
        const head = document.createElement('li');
        head.className = 'folder';
        head.dataset.folder = dir;
        head.textContent = dir === '' ? '/' : `${dir}/`;
        frag.append(head);
      }
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.dataset.path = entry.path;
      li.dataset.kind = entry.kind || 'unknown';
      // Typed by its name so far; its content is read after the whole list shows.
      if (entry.pending) li.classList.add('pending');
      li.title = entry.path;
      const badge = document.createElement('span');
      badge.className = `kind kind-${li.dataset.kind}`;
      badge.textContent = this.label(li.dataset.kind);
      const size = document.createElement('span');
      size.className = 'size';
      size.textContent = formatSize(entry.size);
      li.append(size, badge, document.createTextNode(slash < 0 ? entry.path : entry.path.slice(slash + 1)));
      entry.element = li;
      frag.append(li);
    }
    this.list.replaceChildren(frag);
    this.renderKinds();
    this.applyFilter();
  }

  // The kind an entry was typed as by its content.
  setKind(entry, kind) {
    const li = entry.element;
    entry.kind = kind;
    if (!li) return;
    li.classList.remove('pending');
    if (li.dataset.kind === kind) return;
    li.dataset.kind = kind;
    const badge = li.querySelector('.kind');
    badge.className = `kind kind-${kind}`;
    badge.textContent = this.label(kind);
  }

  renderKinds() {
    const counts = new Map();
    for (const e of this.entries) counts.set(e.kind || 'unknown', (counts.get(e.kind || 'unknown') || 0) + 1);
    this.kindsBox.replaceChildren(...[...counts].sort((a, b) => b[1] - a[1]).map(([kind, n]) => {
      const chip = document.createElement('button');
      chip.className = 'chip' + (this.kindFilter === kind ? ' on' : '');
      chip.dataset.kind = kind;
      chip.dataset.count = String(n);
      chip.textContent = `${this.label(kind)} ${n}`;
      chip.title = `${kind}: show only these (click again for all)`;
      return chip;
    }));
  }

  applyFilter() {
    const q = this.search.value.trim().toLowerCase();
    const shownFolders = new Set();
    for (const li of this.list.children) {
      if (li.dataset.folder !== undefined) continue;
      const match = (!q || li.dataset.path.toLowerCase().includes(q)) && (!this.kindFilter || li.dataset.kind === this.kindFilter);
      const dir = li.dataset.path.includes('/') ? li.dataset.path.slice(0, li.dataset.path.lastIndexOf('/')) : '';
      li.hidden = !match || this.collapsed.has(dir);
      if (match) shownFolders.add(dir);
    }
    for (const li of this.list.children) {
      if (li.dataset.folder === undefined) continue;
      li.hidden = !shownFolders.has(li.dataset.folder);
      li.classList.toggle('collapsed', this.collapsed.has(li.dataset.folder));
    }
    for (const chip of this.kindsBox.children) chip.classList.toggle('on', chip.dataset.kind === this.kindFilter);
  }

  toggleFolder(dir) {
    if (this.collapsed.has(dir)) this.collapsed.delete(dir);
    else this.collapsed.add(dir);
    this.applyFilter();
  }

  visibleFiles() {
    return [...this.list.children].filter((li) => li.dataset.path !== undefined && !li.hidden);
  }

  mark(path) {
    this.current = path;
    for (const li of this.list.querySelectorAll('[aria-selected="true"]')) li.removeAttribute('aria-selected');
    const li = [...this.list.children].find((x) => x.dataset.path === path);
    if (li) {
      li.setAttribute('aria-selected', 'true');
      li.scrollIntoView({ block: 'nearest' });
    }
  }

  // Open the visible file `step` places from the current one (0: the current or first).
  move(step, absolute = null) {
    const files = this.visibleFiles();
    if (!files.length) return;
    let i = files.findIndex((li) => li.dataset.path === this.current);
    if (absolute !== null) i = absolute < 0 ? files.length - 1 : absolute;
    else i = i < 0 ? 0 : Math.min(files.length - 1, Math.max(0, i + step));
    this.onOpen(files[i].dataset.path);
  }

  key(e) {
    const dir = this.current && this.current.includes('/') ? this.current.slice(0, this.current.lastIndexOf('/')) : '';
    if (e.key === 'ArrowDown') this.move(1);
    else if (e.key === 'ArrowUp') this.move(-1);
    else if (e.key === 'Home') this.move(0, 0);
    else if (e.key === 'End') this.move(0, -1);
    else if (e.key === 'Enter') this.move(0);
    else if (e.key === 'ArrowLeft') { if (!this.collapsed.has(dir)) this.toggleFolder(dir); }
    else if (e.key === 'ArrowRight') { if (this.collapsed.has(dir)) this.toggleFolder(dir); }
    else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      // Type-ahead: the keystroke goes on in the search box.
      this.search.focus();
      return;
    } else return;
    e.preventDefault();
  }
}

export function formatSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
