// @ts-check
// The info pane and the view's messages: rows of a document's summary, text and picture
// views, errors and notes over the view.

import { hashOf } from '../ground/urlstate.js';
import { $, fileName, message, state } from '../ground/state.js';
import { textView } from '../ground/textview.js';
import { requestCompare, requestOpen, requestPickForComparison } from '../ground/requests.js';

// `links`: archive paths the value names (each a link); `compare`: pairs of them the reader
// may compare (a "compare" button after the second of each).
/**
 * @param {HTMLElement} dl
 * @param {string} label
 * @param {string} value
 * @param {boolean} [bad]
 * @param {{ swatch?: string | null, links?: string[], compare?: [string, string][] }} [more]
 */
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
/** @param {string} text */
function breakable(text) {
  const frag = document.createDocumentFragment();
  text.split('/').forEach((part, i, all) => {
    frag.append(document.createTextNode(part + (i < all.length - 1 ? '/' : '')));
    if (i < all.length - 1) frag.append(document.createElement('wbr'));
  });
  return frag;
}

// A link that opens an archive file (and is a permalink to it).
/** @param {string} path */
function fileLink(path) {
  const a = document.createElement('a');
  a.href = hashOf({ ...state.source, path });
  a.className = 'file-link';
  a.dataset.path = path;
  a.append(breakable(path));
  a.addEventListener('click', e => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    // The open flow sits above this pane: it answers the request (requests.js).
    requestOpen(path);
  });
  return a;
}

// A button that compares two archive files (the comparison flow answers, requests.js).
/** @param {string} a @param {string} b */
function compareButton(a, b) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button compare-link';
  button.textContent = 'compare';
  button.title = `Compare ${a} with ${b}`;
  button.addEventListener('click', () => requestCompare(a, b));
  return button;
}

/** @param {HTMLElement} dl @param {import('../../pkg/relicview.js').InfoRow[]} rows */
function addRows(dl, rows) {
  for (const r of rows)
    addRow(dl, r.label, r.value, r.severity === 'warning', {
      swatch: r.swatch,
      links: r.links || [],
      compare: r.compare || [],
    });
}

/** @param {string} id @param {string} label @param {(e: MouseEvent) => void} onClick */
export function button(id, label, onClick) {
  const b = document.createElement('button');
  b.className = 'button';
  b.id = id;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

// The info panel for an opened file: the core's rows, then what the file can show.
/** @param {ShownFile} file */
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
  // A disc's file listed by its Rock Ridge or Joliet name: what the disc itself calls it.
  const entry = state.byPath.get(file.path.toLowerCase());
  if (entry?.writtenAs) addRow(dl, 'on the disc as', entry.writtenAs);
  // What is not a label and its value goes under the list.
  const more = $('info-more');
  more.replaceChildren();
  const can = file.capabilities();
  const path = file.path;
  // Text beside a scene is read here; text alone has the main view (flatview.js).
  if (can.text && can.scene) more.append(textView(file.text() ?? ''));
  if (can.usedBy) {
    const exports = file.exports();
    const b = button('used-by-button', 'Which files use this?', async () => {
      b.disabled = true;
      const rows = await state.session.usedBy(path, exports);
      if (state.current === path) addRows(dl, rows);
    });
    more.append(b);
  }
  more.append(
    button('compare-with-button', 'Compare with…', () => {
      requestPickForComparison(path);
    }),
  );
  // A picture is shown flat: it goes out in the glTF of the models that use it.
  const name = fileName(file.path);
  setExport(
    can.export && !can.image,
    can.image
      ? `${name} is a picture; it is exported with the models that use it`
      : `${name} has no 3D scene to export`,
  );
}

// A selected record that is an entry of a table other files index by number (a normal of
// FIELD.BIN): what it is and who uses it, under the file's rows until the next selection.
/** @param {import('../../pkg/relicview.js').Row | null} c */
export async function showEntryUsers(c) {
  const dl = $('info-selection');
  dl.replaceChildren();
  const path = state.current;
  if (!c?.entry || !path) return;
  addRow(dl, c.label, c.summary);
  const rows = await state.session.tableUsers(path, c.entry.table, c.entry.index);
  const sel = state.inspector.selection;
  if (state.current === path && sel && sel.chunk === c.index) addRows(dl, rows);
}

// The export button, with why it is greyed out when it is.
const EXPORT_TITLE =
  'Download the scene as drawn as binary glTF (.glb); each LOD is a glTF scene, the one on show is the default';
/** @param {boolean} enabled @param {string | null} [why] */
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

// An error's message without the path it starts with, where it names `path` (the title
// above it says it already).
/** @param {string} path @param {unknown} err */
export function reason(path, err) {
  const text = message(err);
  return text.startsWith(`${path}: `) ? text.slice(path.length + 2) : text;
}

/** @param {string} path @param {unknown} err @param {MessageAction[]} [actions] */
export function showError(path, err, actions = []) {
  $('info-title').textContent = path;
  $('info-body').replaceChildren();
  $('info-more').replaceChildren();
  const error = $('info-error');
  error.hidden = false;
  error.textContent = reason(path, err);
  // Over the view too: a blank view says why.
  viewMessage(`${path}\n${reason(path, err)}`, { actions });
}

// Something the reader is asked to do, in the panel and over the view (not as an error).
/** @param {string} title @param {string} text @param {MessageAction[]} [actions] */
export function showNote(title, text, actions = []) {
  $('info-title').textContent = title;
  $('info-body').replaceChildren();
  $('info-more').replaceChildren();
  $('info-error').hidden = true;
  addRow($('info-body'), 'to do', text);
  viewMessage(`${title}\n${text}`, { note: true, actions });
}

// The file's "drawn (LOD 0)" row follows the LOD on show (`stats`, the last frame's): its
// label and, away from LOD 0, the triangles drawn there.
/** @param {import('../../pkg/relicview.js').FrameStats} stats */
export function syncDrawnRow(stats) {
  const dt = [...$('info-body').querySelectorAll('dt')].find(d =>
    /^drawn \(LOD \d+\)$/.test(d.textContent || ''),
  );
  const dd = dt?.nextElementSibling;
  if (!dt || !dd || stats.lod === null || stats.lod === undefined) return;
  // (The file's own figure, for LOD 0, with its vertices.)
  if (dt instanceof HTMLElement && dt.dataset.lod0 === undefined) dt.dataset.lod0 = dd.textContent || '';
  dt.textContent = `drawn (LOD ${stats.lod})`;
  dd.textContent =
    stats.lod === 0 && dt instanceof HTMLElement ? dt.dataset.lod0 || '' : `${stats.triangles} triangles`;
}

// A message over the view (null: none): an error, or a note such as "choose a file".
// `actions`: [[label, onClick]] buttons under it. A `banner` sits at the top of the view,
// off what is drawn, with a button that takes it down.
/** @param {string | null} text @param {{ note?: boolean, warning?: boolean, banner?: boolean, actions?: MessageAction[] }} [how] */
export function viewMessage(text, { note = false, warning = false, banner = false, actions = [] } = {}) {
  const box = $('view-message');
  box.hidden = text === null;
  // (Who put the message up: controls.js takes down only its own.)
  delete box.dataset.about;
  if (text === null) return;
  box.classList.toggle('note', note);
  box.classList.toggle('warning', warning);
  box.classList.toggle('banner', banner);
  if (banner) actions = [...actions, ['dismiss', () => viewMessage(null)]];
  box.setAttribute('role', note ? 'status' : 'alert');
  $('view-message-text').textContent = text;
  $('view-message-actions').replaceChildren(
    ...actions.map(([label, onClick]) => {
      const b = document.createElement('button');
      b.className = 'button';
      b.type = 'button';
      b.textContent = label;
      b.addEventListener('click', onClick);
      return b;
    }),
  );
}
