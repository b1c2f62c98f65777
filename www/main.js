// The page shell: file list, info panel, drag-and-drop, URL state and the automation API
// `window.relicview`. Parsing, triangulation and drawing all happen in the wasm core.

import init, { Viewer, Session, kindOf, kindInfo } from '../pkg/relicview.js';
import { FileList } from './filelist.js';
import { Viewport } from './viewport.js';
import { collectDrop, entriesFromFiles, hostedEntries } from './files.js';
import { Inspector } from './inspector.js';
import { fingerprint, hashOf, readHash, throttle } from './urlstate.js';

const $ = (id) => document.getElementById(id);
const state = {
  entries: [],
  session: null, // the core's archive: listing, assets read, reference graph
  byPath: new Map(), // lower-case path → entry: paths on these discs are case-insensitive
  current: null,
  viewport: null,
  viewer: null,
  queue: Promise.resolve(), // opens run one after another; the last one asked for wins
  // Where the archive came from, for links: {archive: listing URL} or {folder: fingerprint}.
  source: {},
  // While a file is being opened the hash keeps describing the file on show.
  opening: 0,
};

let readyResolve, readyReject;
const ready = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });

// What the core says of a kind (badge, title, what its files can do), asked once per kind.
const kinds = new Map();
function kindOfEntry(entry) {
  const kind = entry.kind || 'unknown';
  if (!kinds.has(kind)) kinds.set(kind, kindInfo(kind));
  return kinds.get(kind);
}

function message(err) {
  return err && err.message ? err.message : String(err);
}

function setEntries(entries, sourceLabel, source) {
  state.source = source;
  state.entries = entries.slice().sort((a, b) => a.path.localeCompare(b.path, undefined, { sensitivity: 'base' }));
  state.byPath = new Map(state.entries.map((e) => [e.path.toLowerCase(), e]));
  state.files.set(state.entries);
  $('archive-summary').textContent = `${state.entries.length} files · ${sourceLabel}`;
  state.session.setListing(state.entries.map((e) => e.path), state.entries.map((e) => e.kind || 'unknown'));
}

function markSelected(path) {
  state.files.mark(path);
}

// Type every file by its content: the first 16 bytes (magic), then its extension. Files
// are read in batches, with a progress bar, since an archive can hold thousands.
async function typeEntries(entries) {
  const bar = $('index-progress');
  bar.max = entries.length;
  bar.value = 0;
  bar.hidden = entries.length < 200;
  for (let i = 0; i < entries.length; i += 128) {
    await Promise.all(entries.slice(i, i + 128).map(async (e) => {
      if (e.kind) return;
      try {
        e.kind = kindOf(e.path, new Uint8Array(await e.head()), e.size);
      } catch {
        e.kind = 'unknown';
      }
    }));
    bar.value = Math.min(entries.length, i + 128);
  }
  bar.hidden = true;
}

function addRow(dl, label, value, bad = false) {
  const dt = document.createElement('dt');
  dt.textContent = label;
  const dd = document.createElement('dd');
  dd.textContent = value;
  if (bad) dd.className = 'bad';
  dl.append(dt, dd);
}

function addRows(dl, rows) {
  for (const r of rows) addRow(dl, r.label, r.value, r.severity === 'warning');
}

function button(id, label, onClick) {
  const b = document.createElement('button');
  b.className = 'button';
  b.id = id;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

// Text with line numbers in a gutter; the text itself stays one text node.
const MAX_TEXT = 256 * 1024;
function textView(text) {
  const wrap = document.createElement('div');
  wrap.className = 'text-wrap';
  const shown = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  // A final line break ends the last line; it does not start another.
  const lines = shown.split('\n').length - (shown.endsWith('\n') ? 1 : 0);
  const gutter = document.createElement('pre');
  gutter.className = 'line-numbers';
  gutter.setAttribute('aria-hidden', 'true');
  gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join('\n');
  const pre = document.createElement('pre');
  pre.className = 'text-view';
  pre.textContent = shown;
  wrap.append(gutter, pre);
  if (shown.length < text.length) {
    const more = document.createElement('p');
    more.className = 'muted';
    more.textContent = `First ${MAX_TEXT} characters of ${text.length}; the hex view has every byte.`;
    wrap.append(more);
  }
  return wrap;
}

function pictureView(image) {
  const canvas = document.createElement('canvas');
  canvas.className = 'picture';
  canvas.width = image.width;
  canvas.height = image.height;
  canvas.getContext('2d').putImageData(new ImageData(image.rgba, image.width, image.height), 0, 0);
  return canvas;
}

// The info panel for an opened file: the core's rows, then what the file can show.
function showDocument(file) {
  $('info-title').textContent = file.path;
  const error = $('info-error');
  error.hidden = true;
  error.textContent = '';
  const dl = $('info-body');
  dl.replaceChildren();
  addRows(dl, file.infoRows());
  const can = file.capabilities();
  if (can.image) dl.append(pictureView(file.image()));
  if (can.text) dl.append(textView(file.text()));
  if (can.usedBy) {
    const path = file.path;
    const exports = file.exports();
    const b = button('used-by-button', 'Which files use this?', async () => {
      b.disabled = true;
      const rows = await state.session.usedBy(path, exports);
      if (state.current === path) addRows(dl, rows);
    });
    dl.append(b);
  }
  $('export-button').disabled = !can.export;
}

function showError(path, err) {
  $('info-title').textContent = path;
  $('info-body').replaceChildren();
  const error = $('info-error');
  error.hidden = false;
  error.textContent = message(err);
}

// The view as a link describes it.
function currentView() {
  const o = state.viewer.options();
  const sel = state.inspector.selection;
  return {
    ...state.source,
    path: state.current,
    cam: state.current ? state.viewer.camera() : null,
    lod: o.autoLod || o.lod === 0 ? null : o.lod,
    chunk: sel && sel.chunk !== null ? sel.chunk : null,
    t: state.viewer.stats().animating ? state.viewer.animationTime() : null,
  };
}

// A new file is a new history entry (back returns to the previous file); camera moves and
// selections only replace the current one, at most a few times a second.
function writeHash({ push, opened = false }) {
  // Only the open that just finished may write while an open is under way.
  if (state.opening && !opened) return;
  const hash = hashOf(currentView());
  if (hash === location.hash) return;
  if (push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}
const followView = throttle(() => writeHash({ push: false }), 250);

// Open a file; `restore` is a link's view ({cam, lod, chunk}) to put back once it shows.
async function doOpen(path, restore = null) {
  await ready;
  state.opening++;
  try {
    return await openNow(path, restore);
  } finally {
    state.opening--;
  }
}

async function openNow(path, restore) {
  const entry = state.byPath.get(String(path).toLowerCase());
  if (!entry) throw new Error(`${path}: no such file in the archive`);
  const newFile = state.current !== entry.path;
  state.current = entry.path;
  markSelected(entry.path);
  const t0 = performance.now();
  let file;
  try {
    // The core reads the file and everything it refers to through state.session's reader.
    file = await state.session.open(entry.path);
  } catch (err) {
    return failed(entry, err);
  }
  const ti = performance.now();
  // Every file is inspected, a broken one up to its error.
  const view = file.inspect();
  state.inspector.show(view, (view ? view.views : []).map((_, i) => file.bytes(i) || new Uint8Array(0)));
  const inspectMs = performance.now() - ti;
  const error = file.error();
  if (error) {
    file.free();
    return failed(entry, error);
  }
  state.viewer.show(file);
  entry.element?.classList.remove('failed');
  showDocument(file);
  if (restore) {
    if (restore.lod !== null) state.viewer.setOptions({ lod: restore.lod, autoLod: false });
    if (restore.cam) state.viewer.setCamera(restore.cam);
    if (restore.chunk !== null) state.inspector.selectChunk(restore.chunk);
    if (restore.t !== null && restore.t !== undefined) state.viewer.setAnimationTime(restore.t);
  }
  syncToolbar();
  writeHash({ push: newFile && !restore, opened: true });
  const t3 = performance.now();
  const stats = await state.viewport.requestFrame();
  const core = file.timings();
  state.lastOpen = {
    path: entry.path,
    readMs: core.readMs,
    parseMs: core.parseMs,
    inspectMs,
    assetsMs: core.assetsMs,
    buildMs: core.buildMs,
    uploadMs: state.viewer.uploadMs(),
    // From the request of the first frame until it was drawn (includes the wait for rAF).
    drawMs: performance.now() - t3,
    totalMs: performance.now() - t0,
  };
  file.free();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls };
}

// A file that cannot be read or parsed: marked in the list, its error in the panel, the view
// cleared; the rest of the archive stays usable.
async function failed(entry, err) {
  state.viewer.clear();
  entry.element?.classList.add('failed');
  showError(entry.path, err);
  $('export-button').disabled = true;
  await state.viewport.requestFrame();
  throw err;
}

// The toolbar mirrors the viewer's options and the open file's LOD count.
function syncToolbar() {
  const o = state.viewer.options();
  const count = state.viewer.stats().lodCount;
  const select = $('lod-select');
  select.replaceChildren(...Array.from({ length: Math.max(count, 1) }, (_, i) => {
    const opt = document.createElement('option');
    opt.value = String(i);
    opt.textContent = String(i);
    return opt;
  }));
  select.value = String(Math.min(o.lod, Math.max(count - 1, 0)));
  select.disabled = count < 2 || o.autoLod;
  $('opt-autolod').checked = o.autoLod;
  $('opt-autolod').disabled = count < 2;
  $('opt-wireframe').checked = o.wireframe;
  $('opt-cullback').checked = o.cullBack;
}

async function setOptions(changes) {
  await ready;
  state.viewer.setOptions(changes);
  syncToolbar();
  const stats = await state.viewport.requestFrame();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls, lod: stats.lod };
}

function open(path, restore = null) {
  const run = state.queue.then(() => doOpen(path, restore));
  state.queue = run.catch(() => {});
  return run;
}

// Restore the view a link describes: its file (with camera, LOD and chunk).
function applyLink(link) {
  const target = link.path && state.byPath.get(link.path.toLowerCase());
  if (!target) return false;
  if (target.path === state.current) {
    if (link.lod !== null) state.viewer.setOptions({ lod: link.lod, autoLod: false });
    if (link.cam) state.viewer.setCamera(link.cam);
    if (link.chunk !== null) state.inspector.selectChunk(link.chunk);
    if (link.t !== null) state.viewer.setAnimationTime(link.t);
    syncToolbar();
    state.viewport.requestFrame();
  } else {
    open(target.path, link).catch(() => {});
  }
  return true;
}

// After a new file list: restore the link's view if it is for this archive, else show the
// first model.
function openInitial() {
  const link = readHash();
  const linkFolder = link.folder && !link.archive ? link.folder : null;
  if (linkFolder && state.source.folder && linkFolder !== state.source.folder) {
    showError('This folder does not match the link', new Error(
      `The link was made for a folder with fingerprint ${linkFolder}; this one is ${state.source.folder} (number of files, then a hash of names and sizes). Its view is not restored.`));
  } else if (applyLink(link)) {
    return;
  }
  const first = state.entries.find((e) => kindOfEntry(e).capabilities.primary);
  if (first && !linkFolder) open(first.path).catch(() => {});
}

async function loadEntries(entries, label, source) {
  await ready;
  const t0 = performance.now();
  await typeEntries(entries);
  setEntries(entries, label, source);
  state.lastIndexMs = performance.now() - t0;
  openInitial();
  return { files: entries.length };
}

function loadFiles(files) {
  const entries = entriesFromFiles(files);
  return loadEntries(entries, 'local files', { folder: fingerprint(entries) });
}

function stats() {
  return state.viewer ? state.viewer.stats() : { triangles: 0, drawCalls: 0, fps: 0 };
}

// The scene on show as a .glb named after the file, downloaded.
function saveExport() {
  const glb = state.viewer.exportGlb();
  const name = `${(state.current || 'relicview').split('/').pop().replace(/\.[^.]*$/, '') || 'relicview'}.glb`;
  download(new Blob([glb], { type: 'model/gltf-binary' }), name);
  return name;
}

function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

function permalink() {
  return `${location.origin}${location.pathname}${hashOf(currentView())}`;
}

// Copy the link; where the clipboard is refused, show it selected so it can be copied.
async function share() {
  const link = permalink();
  const field = $('share-link');
  try {
    await navigator.clipboard.writeText(link);
    field.hidden = true;
  } catch {
    field.value = link;
    field.hidden = false;
    field.select();
  }
  return link;
}

// The view as a PNG Blob: drawn and captured in one task, so the drawing buffer is intact.
function screenshotBlob() {
  const canvas = $('viewport');
  state.viewer.render(performance.now());
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas gave no image'))), 'image/png'));
}

async function saveScreenshot() {
  const blob = await screenshotBlob();
  const base = (state.current || 'relicview').split('/').pop().replace(/\.[^.]*$/, '') || 'relicview';
  download(blob, `${base}.png`);
  return `${base}.png`;
}

window.relicview = {
  ready,
  loadFiles,
  open,
  stats,
  permalink,
  // Copies the permalink (or shows it where the clipboard is refused); → the link.
  share,
  // Saves a PNG named after the open file; → the file name.
  screenshot: saveScreenshot,
  // Downloads the scene on show as <file>.glb; → the file name.
  export: saveExport,
  // The scene on show as binary glTF bytes (Uint8Array), the LOD on show as its default scene.
  exportGlb: () => state.viewer.exportGlb(),
  // {wireframe, cullBack, autoLod, lod} → frame stats after the change is drawn.
  setOptions,
  setLod: (lod) => setOptions({ lod, autoLod: false }),
  // Reads the framebuffer back: {width, height, background, nonBackground}.
  pixelStats: () => state.viewer.pixelStats(),
  // Where the last open() spent its time: {readMs, parseMs, inspectMs, assetsMs, buildMs, uploadMs, drawMs, totalMs}.
  lastOpen: () => state.lastOpen ?? null,
  // How long the last folder took to index (type by content and list), in ms.
  lastIndexMs: () => state.lastIndexMs ?? null,
  // {position, target, fov} of the camera.
  camera: () => state.viewer.camera(),
  // The animation clock in seconds (texture scrolling follows it).
  animationTime: () => state.viewer.animationTime(),
  // What is under canvas pixel (x, y): {primitive, patch, source, triangleInSource, start, end} or null.
  pick: (x, y) => state.viewer.pick(x, y),
  // The chunk tree and hex view: selectChunk(i), selectByte(offset), selection().
  inspector: {
    selectChunk: (i) => state.inspector.selectChunk(i),
    selectByte: (offset) => state.inspector.selectByte(offset),
    selection: () => state.inspector.selection,
    view: () => state.inspector.view,
    // Which byte view the hex view shows (0: what the rows refer to), and switching it.
    byteView: () => state.inspector.shownView,
    setByteView: (i) => state.inspector.setByteView(i),
  },
  // Bytes of the wasm core's linear memory (it only grows; the peak of everything opened).
  memoryBytes: () => state.wasm.memory.buffer.byteLength,
  // The frame as {width, height, data: RGBA bytes, top row first}.
  readPixels: () => ({ width: $('viewport').width, height: $('viewport').height, data: state.viewer.readPixels() }),
};

function bindShell() {
  for (const id of ['folder-input', 'files-input']) {
    $(id).addEventListener('change', (e) => {
      if (e.target.files.length) loadFiles(e.target.files);
    });
  }
  $('lod-select').addEventListener('change', (e) => setOptions({ lod: Number(e.target.value) }));
  $('opt-autolod').addEventListener('change', (e) => setOptions({ autoLod: e.target.checked }));
  $('opt-wireframe').addEventListener('change', (e) => setOptions({ wireframe: e.target.checked }));
  $('opt-cullback').addEventListener('change', (e) => setOptions({ cullBack: e.target.checked }));
  $('frame-button').addEventListener('click', () => { state.viewer.home(); state.viewport.requestFrame(); });
  $('share-button').addEventListener('click', () => share());
  // The info panel folds to its title, to uncover the view behind it.
  $('info-title').addEventListener('click', () => $('info-panel').classList.toggle('folded'));
  $('screenshot-button').addEventListener('click', () => saveScreenshot());
  $('export-button').addEventListener('click', () => saveExport());
  const overlay = $('drop-overlay');
  window.addEventListener('dragover', (e) => { e.preventDefault(); overlay.hidden = false; });
  window.addEventListener('dragleave', (e) => { if (!e.relatedTarget) overlay.hidden = true; });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    overlay.hidden = true;
    collectDrop(e.dataTransfer).then((entries) => loadEntries(entries, 'dropped', { folder: fingerprint(entries) }));
  });
  // Back/forward, and links pasted into the address bar of an open page.
  const follow = () => applyLink(readHash());
  window.addEventListener('popstate', follow);
  window.addEventListener('hashchange', follow);
}

async function boot() {
  bindShell();
  state.wasm = await init();
  const canvas = $('viewport');
  state.viewer = new Viewer(canvas);
  state.session = new Session((path) => {
    const entry = state.byPath.get(path.toLowerCase());
    return entry ? entry.read() : Promise.reject(new Error('not in the archive'));
  });
  state.viewport = new Viewport(canvas, state.viewer);
  state.inspector = new Inspector($('inspector'));
  state.files = new FileList({ list: $('file-list'), search: $('search'), kinds: $('kinds'), label: (kind) => kindOfEntry({ kind }).label, onOpen: (path) => open(path).catch(() => {}) });
  state.viewport.onFrame = (s) => {
    const lod = s.lod === null || s.lod === undefined ? '' : ` · LOD ${s.lod}`;
    $('hud-stats').textContent = `${s.triangles} triangles · ${s.drawCalls} draw call${s.drawCalls === 1 ? '' : 's'}${lod}`;
    // With distance switching the LOD follows the camera: keep the picker in step.
    if (s.lod !== null && s.lod !== undefined && $('lod-select').value !== String(s.lod)) $('lod-select').value = String(s.lod);
    if (state.current) followView();
  };
  // Tree → 3D: outline the geometry of the chosen chunk.
  state.inspector.onSelect = (c) => {
    const lod = state.viewer.lodOf(c.index);
    if (lod !== undefined && lod !== null) {
      // Show the LOD picked in the tree.
      state.viewer.setOptions({ lod, autoLod: false });
      syncToolbar();
    }
    state.viewer.setHighlight(c.index);
    state.viewport.requestFrame();
    followView();
  };
  // 3D → tree and bytes: the face under a click.
  state.viewport.onPick = (x, y) => {
    const hit = state.viewer.pick(x, y);
    if (!hit) return;
    state.inspector.selectRange(hit.source, hit.start, hit.end, `picked triangle ${hit.triangleInSource}`);
  };
  readyResolve();
  state.viewport.requestFrame();
  const link = readHash();
  if (link.folder && !link.archive) {
    // A link to someone's local folder: only that folder can restore it.
    showError('Open the folder this link was made for', new Error(
      `This link shows ${link.path || 'a file'} in a local folder (fingerprint ${link.folder}). Drop that folder here or use "Open folder…" and the view comes back.`));
    return;
  }
  // A hosted archive: the listing named by the link, else the one `relicview serve` publishes.
  const listing = link.archive || 'archive.json';
  const hosted = await hostedEntries(new URL(listing, location.href).href).catch(() => null);
  if (hosted && state.entries.length === 0) await loadEntries(hosted, `hosted at ${listing}`, { archive: listing });
  else if (link.archive && !hosted) showError('Archive not found', new Error(`No file listing could be read from ${link.archive}`));
}

boot().catch((err) => {
  showError('relicview could not start', err);
  readyReject(err);
});
