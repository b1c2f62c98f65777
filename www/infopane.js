// The info pane and the view's messages: rows of a document's summary, text and picture
// views, errors and notes over the view.

import { hashOf } from './urlstate.js';
import { $, message, state } from './state.js';

// `links`: archive paths the value names (each a link); `compare`: pairs of them the reader
// may compare (a "compare" button after the second of each).
export function addRow(dl, label, value, bad = false, { swatch = null, links = [], compare = [] } = {}) {
  const dt = document.createElement('dt');
  dt.textContent = label;
  const dd = document.createElement('dd');
  if (swatch) {
    const chip = document.createElement('span');
    chip.className = 'swatch';
    chip.style.background = swatch;
    chip.title = swatch;
    chip.setAttribute('aria-hidden', 'true');
    dd.append(chip);
  }
  // The archive paths the value names are links that open them; the text around them stays
  // text, and paths break at their slashes, not mid-name.
  let at = 0;
  for (const path of links) {
    const k = value.indexOf(path, at);
    if (k < 0) continue;
    dd.append(breakable(value.slice(at, k)), fileLink(path));
    for (const [a, b] of compare.filter(([, b]) => b === path)) dd.append(compareButton(a, b));
    at = k + path.length;
  }
  dd.append(breakable(value.slice(at)));
  if (bad) dd.className = 'bad';
  dl.append(dt, dd);
}

// Text that may wrap after each slash.
function breakable(text) {
  const frag = document.createDocumentFragment();
  text.split('/').forEach((part, i, all) => {
    frag.append(document.createTextNode(part + (i < all.length - 1 ? '/' : '')));
    if (i < all.length - 1) frag.append(document.createElement('wbr'));
  });
  return frag;
}

// A link that opens an archive file (and is a permalink to it).
function fileLink(path) {
  const a = document.createElement('a');
  a.href = hashOf({ ...state.source, path });
  a.className = 'file-link';
  a.dataset.path = path;
  a.append(breakable(path));
  a.addEventListener('click', (e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    // The open flow sits above this pane: it listens for the request (main.js).
    a.dispatchEvent(new CustomEvent('relicview:open', { bubbles: true, detail: { path } }));
  });
  return a;
}

// A button that compares two archive files (the comparison flow listens, main.js).
function compareButton(a, b) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button compare-link';
  button.textContent = 'compare';
  button.title = `Compare ${a} with ${b}`;
  button.addEventListener('click', () => button.dispatchEvent(new CustomEvent('relicview:compare', { bubbles: true, detail: { a, b } })));
  return button;
}

function addRows(dl, rows) {
  for (const r of rows) addRow(dl, r.label, r.value, r.severity === 'warning', { swatch: r.swatch, links: r.links || [], compare: r.compare || [] });
}

export function button(id, label, onClick) {
  const b = document.createElement('button');
  b.className = 'button';
  b.id = id;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

// Text with line numbers in a gutter; the text itself stays one text node. A long text
// keeps only the lines near those in sight in the DOM (its layout would hold the page).
const TEXT_LINE_PX = 14; // matches .text-wrap in style.css

const TEXT_WINDOW = 400; // lines in the DOM at once, at most

function textView(text) {
  const wrap = document.createElement('div');
  wrap.className = 'text-wrap';
  // A final line break ends the last line; it does not start another.
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const gutter = document.createElement('pre');
  gutter.className = 'line-numbers';
  gutter.setAttribute('aria-hidden', 'true');
  const pre = document.createElement('pre');
  pre.className = 'text-view';
  const show = (first, last) => {
    gutter.textContent = Array.from({ length: last - first }, (_, i) => first + i + 1).join('\n');
    pre.textContent = lines.slice(first, last).join('\n') + (last === lines.length && text.endsWith('\n') ? '\n' : '');
  };
  if (lines.length <= TEXT_WINDOW) {
    show(0, lines.length);
    wrap.append(gutter, pre);
    return wrap;
  }
  wrap.classList.add('windowed');
  const spacer = document.createElement('div');
  spacer.className = 'text-spacer';
  spacer.style.height = `${lines.length * TEXT_LINE_PX}px`;
  const inner = document.createElement('div');
  inner.className = 'text-lines';
  inner.append(gutter, pre);
  wrap.append(spacer, inner);
  let shown = -1;
  const render = () => {
    const top = Math.floor(wrap.scrollTop / TEXT_LINE_PX);
    const first = Math.max(0, Math.min(top - TEXT_WINDOW / 4, lines.length - TEXT_WINDOW));
    if (first === shown) return;
    shown = first;
    inner.style.top = `${first * TEXT_LINE_PX}px`;
    show(first, Math.min(lines.length, first + TEXT_WINDOW));
  };
  wrap.addEventListener('scroll', () => {
    const top = Math.floor(wrap.scrollTop / TEXT_LINE_PX);
    if (top < shown || top > shown + TEXT_WINDOW / 2) render();
  });
  render();
  return wrap;
}

// The info panel for an opened file: the core's rows, then what the file can show.
export function showDocument(file) {
  viewMessage(null);
  $('info-title').textContent = file.path;
  const error = $('info-error');
  error.hidden = true;
  error.textContent = '';
  const dl = $('info-body');
  dl.replaceChildren();
  $('info-selection').replaceChildren();
  addRows(dl, file.infoRows());
  // What is not a label and its value goes under the list.
  const more = $('info-more');
  more.replaceChildren();
  const can = file.capabilities();
  const path = file.path;
  if (can.text) more.append(textView(file.text()));
  if (can.usedBy) {
    const exports = file.exports();
    const b = button('used-by-button', 'Which files use this?', async () => {
      b.disabled = true;
      const rows = await state.session.usedBy(path, exports);
      if (state.current === path) addRows(dl, rows);
    });
    more.append(b);
  }
  more.append(button('compare-with-button', 'Compare with…', () => {
    document.dispatchEvent(new CustomEvent('relicview:compare-pick', { detail: { path } }));
  }));
  // A picture is shown flat: it goes out in the glTF of the models that use it.
  const name = file.path.split('/').pop();
  setExport(can.export && !can.image, can.image ? `${name} is a picture; it is exported with the models that use it` : `${name} has no 3D scene to export`);
}

// A selected record that is an entry of a table other files index by number (a normal of
// FIELD.BIN): what it is and who uses it, under the file's rows until the next selection.
export async function showEntryUsers(c) {
  const dl = $('info-selection');
  dl.replaceChildren();
  const path = state.current;
  if (!c || !c.entry || !path) return;
  addRow(dl, c.label, c.summary);
  const rows = await state.session.tableUsers(path, c.entry.table, c.entry.index);
  const sel = state.inspector.selection;
  if (state.current === path && sel && sel.chunk === c.index) addRows(dl, rows);
}

// The export button, with why it is greyed out when it is.
const EXPORT_TITLE = 'Download the scene as drawn as binary glTF (.glb); each LOD is a glTF scene, the one on show is the default';
export function setExport(enabled, why = null) {
  const b = $('export-button');
  b.disabled = !enabled;
  b.title = enabled ? EXPORT_TITLE : `Nothing to export: ${why || 'no file with a 3D scene is open'}`;
}

// No file: the pane as on a fresh page.
export function clearInfo() {
  $('info-title').textContent = 'No file open';
  $('info-body').replaceChildren();
  $('info-selection').replaceChildren();
  $('info-more').replaceChildren();
  $('info-error').hidden = true;
  $('info-error').textContent = '';
  setExport(false);
}

export function showError(path, err, actions = []) {
  $('info-title').textContent = path;
  $('info-body').replaceChildren();
  $('info-more').replaceChildren();
  const error = $('info-error');
  error.hidden = false;
  error.textContent = message(err);
  // Over the view too: a blank view says why.
  viewMessage(`${path}\n${message(err)}`, { actions });
}

// Something the reader is asked to do, in the panel and over the view (not as an error).
export function showNote(title, text, actions = []) {
  $('info-title').textContent = title;
  $('info-body').replaceChildren();
  $('info-more').replaceChildren();
  $('info-error').hidden = true;
  addRow($('info-body'), 'to do', text);
  viewMessage(`${title}\n${text}`, { note: true, actions });
}

// A message over the view (null: none): an error, or a note such as "choose a file".
// `actions`: [[label, onClick]] buttons under it.
export function viewMessage(text, { note = false, warning = false, actions = [] } = {}) {
  const box = $('view-message');
  box.hidden = text === null;
  if (text === null) return;
  box.classList.toggle('note', note);
  box.classList.toggle('warning', warning);
  box.setAttribute('role', note ? 'status' : 'alert');
  $('view-message-text').textContent = text;
  $('view-message-actions').replaceChildren(...actions.map(([label, onClick]) => {
    const b = document.createElement('button');
    b.className = 'button';
    b.type = 'button';
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }));
}
