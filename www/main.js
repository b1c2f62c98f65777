// The page shell: file list, info panel, drag-and-drop, URL state and the automation API
// `window.relicview`. Parsing, triangulation and drawing all happen in the wasm core.

import { compileCore, instantiate, isTrap } from './core.js';
import { FileList } from './filelist.js';
import { Viewport } from './viewport.js';
import { collectDrop, entriesFromFiles, hostedEntries, readHeads } from './files.js';
import { Inspector } from './inspector.js';
import { WorkerOpener } from './opener.js';
import { fingerprint, hashOf, readHash, throttle } from './urlstate.js';
import { Panes } from './panes.js';
import { Help } from './help.js';

const $ = (id) => document.getElementById(id);
// The glue of the wasm instance in use (Viewer, Session, kindOf, kindInfo): replaced when an
// instance traps (core.js).
let core = null;
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
  // The viewpoint the camera is at (its index), while it has not moved away.
  viewpoint: null,
  // Counts archives loaded: a folder's typing stops when another one comes.
  generation: 0,
  // Counts opens asked for: an open replaced by a later one is abandoned.
  requests: 0,
  // Files from this size (bytes) on are opened by a worker (opener.js), not on this thread:
  // below it the parse takes under ~100 ms here (wasm parses ~150-200 MB/s on a 2-core
  // EPYC), and the worker's packing and unpacking would cost more than they spare.
  workerThreshold: 16 << 20,
  opener: null,
  // The file an open on this thread is reading, and its bytes once read.
  reading: { path: null, buffer: null },
  // The compiled core, and the traps it recovered from: [{path, message}].
  module: null,
  traps: [],
  // Rejects when the instance in use traps: opens waiting on it give up.
  coreLost: null,
  loseCore: null,
  recovering: null,
};

let readyResolve, readyReject;
const ready = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });

// What the core says of a kind (badge, title, what its files can do), asked once per kind.
const kinds = new Map();
function kindOfEntry(entry) {
  const kind = entry.kind || 'unknown';
  if (!kinds.has(kind)) kinds.set(kind, core.kindInfo(kind));
  return kinds.get(kind);
}

function message(err) {
  return err && err.message ? err.message : String(err);
}

function setEntries(entries, sourceLabel, source) {
  state.source = source;
  state.entries = entries.slice().sort((a, b) => a.path.localeCompare(b.path, undefined, { sensitivity: 'base' }));
  state.byPath = new Map(state.entries.map((e) => [e.path.toLowerCase(), e]));
  // A file on show from the previous archive is not this one's: links must not name it,
  // and an open of it still under way is abandoned.
  if (state.current && !state.byPath.has(state.current.toLowerCase())) state.current = null;
  state.requests++;
  state.opener?.abandon();
  state.files.set(state.entries);
  document.body.classList.toggle('empty', state.entries.length === 0);
  $('archive-summary').textContent = `${state.entries.length} files · ${sourceLabel}`;
  if (!state.current) viewMessage('Choose a file in the list, or type in the search box to find one.', { note: true });
  setListing();
}

// The core's archives (this thread's and the worker's) learn the listing and its kinds.
function setListing() {
  const paths = state.entries.map((e) => e.path);
  const kinds = state.entries.map((e) => e.kind || 'unknown');
  state.session.setListing(paths, kinds);
  state.opener?.setListing(paths, kinds, state.entries.some((e) => e.size >= state.workerThreshold));
}

function markSelected(path) {
  state.files.mark(path);
}

// Type every file by its content: the first 16 bytes (magic), then its extension. Files
// are read in batches, with a progress bar, since an archive can hold thousands; the list
// is already on show and each batch corrects the kinds its names suggested. Stops when
// another archive is loaded (`generation` changes).
const BATCH = 256;
async function typeEntries(entries, generation) {
  const bar = $('index-progress');
  const pending = entries.filter((e) => e.pending);
  bar.max = pending.length;
  bar.value = 0;
  bar.hidden = pending.length < 200;
  $('file-list').dataset.typing = String(pending.length > 0);
  let lastChips = performance.now();
  for (let i = 0; i < pending.length; i += BATCH) {
    const batch = pending.slice(i, i + BATCH);
    // Local files are read by a worker where one can run; anything else here.
    const heads = (batch.every((e) => e.file) && await readHeads(batch.map((e) => e.file))) || await Promise.all(batch.map((e) => e.head().catch(() => null)));
    const kinds = batch.map((e, k) => (heads[k] ? core.kindOf(e.path, new Uint8Array(heads[k]), e.size) : 'unknown'));
    if (generation !== state.generation) return false;
    batch.forEach((e, k) => state.files.setKind(e, kinds[k]));
    state.files.refresh();
    bar.value = Math.min(pending.length, i + BATCH);
    // The chips' counts follow a few times a second.
    if (performance.now() - lastChips > 250) {
      state.files.renderKinds();
      lastChips = performance.now();
    }
    await nextTask();
  }
  bar.hidden = true;
  $('file-list').dataset.typing = 'false';
  state.files.renderKinds();
  state.files.applyFilter();
  return true;
}

function addRow(dl, label, value, bad = false, { swatch = null, links = [] } = {}) {
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
    open(path).catch(() => {});
  });
  return a;
}

function addRows(dl, rows) {
  for (const r of rows) addRow(dl, r.label, r.value, r.severity === 'warning', { swatch: r.swatch, links: r.links || [] });
}

function button(id, label, onClick) {
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
  viewMessage(null);
  $('info-title').textContent = file.path;
  const error = $('info-error');
  error.hidden = true;
  error.textContent = '';
  const dl = $('info-body');
  dl.replaceChildren();
  addRows(dl, file.infoRows());
  // What is not a label and its value goes under the list.
  const more = $('info-more');
  more.replaceChildren();
  const can = file.capabilities();
  if (can.image) more.append(pictureView(file.image()));
  if (can.text) more.append(textView(file.text()));
  if (can.usedBy) {
    const path = file.path;
    const exports = file.exports();
    const b = button('used-by-button', 'Which files use this?', async () => {
      b.disabled = true;
      const rows = await state.session.usedBy(path, exports);
      if (state.current === path) addRows(dl, rows);
    });
    more.append(b);
  }
  $('export-button').disabled = !can.export;
}

function showError(path, err, actions = []) {
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
function showNote(title, text, actions = []) {
  $('info-title').textContent = title;
  $('info-body').replaceChildren();
  $('info-more').replaceChildren();
  $('info-error').hidden = true;
  addRow($('info-body'), 'to do', text);
  viewMessage(`${title}\n${text}`, { note: true, actions });
}

// A message over the view (null: none): an error, or a note such as "choose a file".
// `actions`: [[label, onClick]] buttons under it.
function viewMessage(text, { note = false, warning = false, actions = [] } = {}) {
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
    mode: state.current && state.viewer.cameraMode() === 'fly' ? 'fly' : null,
    view: state.viewpoint,
    hide: state.current ? state.viewer.layers().filter((l) => !l.shown && !l.chosen).map((l) => l.name) : [],
    paused: state.current && state.viewer.stats().animating && !state.viewer.clockState().playing,
    choice: state.current && state.viewer.choice() ? state.viewer.stats().choice : null,
    skeleton: state.current && state.viewer.options().skeleton,
    wire: state.current && o.wireframe,
    cull: state.current && o.cullBack,
    bg: o.background === 'dark' ? null : o.background,
    light: o.lighting === 'sun' ? null : o.lighting,
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
async function doOpen(path, restore, request) {
  await ready;
  const lost = state.coreLost;
  state.opening++;
  try {
    // An open whose core traps never settles on its own: the trap ends it.
    return await Promise.race([openNow(path, restore, request), lost]);
  } catch (err) {
    if (!isTrap(err)) throw err;
    await recoverFromTrap(err);
    throw new Error(`${path}: ${state.traps.at(-1).message} (the viewer's core was restarted)`);
  } finally {
    state.opening = Math.max(0, state.opening - 1);
  }
}

// Resolves in a task of its own, after whatever the browser has waiting (input, frames).
function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// The core opens the file and everything it refers to: a big one in the worker, others here
// through state.session's reader. → {file, viaWorker}
async function openFile(entry) {
  if (state.opener.usable && entry.size >= state.workerThreshold && entry.source) {
    $('open-progress').removeAttribute('value');
    $('open-progress').hidden = false;
    try {
      return { file: await state.opener.open(entry.path), viaWorker: true };
    } catch (err) {
      // Where no worker can start, files open here as small ones do.
      if (!err.workerBroken) throw err;
    }
  }
  state.reading = { path: entry.path, buffer: null };
  return { file: await state.session.open(entry.path), viaWorker: false };
}

// Fill the inspector with an opened file's records and bytes; → ms it took.
function showInspector(file) {
  const t0 = performance.now();
  const view = file.inspect();
  const views = view ? view.views : [];
  const stored = state.reading.path === file.path ? state.reading.buffer : null;
  state.reading = { path: null, buffer: null };
  // The last view is the file as stored: the bytes this page read, where it read them.
  const bytes = views.map((v, i) => (i === views.length - 1 && stored && stored.byteLength === v.len ? new Uint8Array(stored) : file.bytes(i) || new Uint8Array(0)));
  state.inspector.show(view, bytes);
  return performance.now() - t0;
}

async function openNow(path, restore, request) {
  const abandoned = () => request !== state.requests;
  if (abandoned()) return { abandoned: true };
  const entry = state.byPath.get(String(path).toLowerCase());
  if (!entry) throw new Error(`${path}: no such file in the archive`);
  const newFile = state.current !== entry.path;
  state.current = entry.path;
  markSelected(entry.path);
  const t0 = performance.now();
  let file;
  let viaWorker = false;
  try {
    ({ file, viaWorker } = await openFile(entry));
  } catch (err) {
    if (err.abandoned || abandoned()) return { abandoned: true };
    return failed(entry, err);
  }
  if (abandoned()) {
    file.free();
    return { abandoned: true };
  }
  // The steps of an open are tasks of their own, so that input and frames get in between.
  await nextTask();
  const error = file.error();
  if (error) {
    // A broken file is inspected up to its error.
    showInspector(file);
    file.free();
    return failed(entry, error);
  }
  // The previous file's records and selection go; this file's come after its first frame.
  state.inspector.show(null, []);
  // Scripts tell the upload-and-draw task from the parse before it by this mark.
  performance.mark('relicview:show', { detail: entry.path });
  if (!viaWorker) state.viewer.show(file);
  else if (file.sceneBytes) {
    state.viewer.showSceneBytes(file.sceneBytes);
    file.sceneBytes = null;
  } else state.viewer.clear();
  state.viewpoint = null;
  if (entry.failed) state.files.setFailed(entry, false);
  showDocument(file);
  // Damaged where it ends: what came before is on show, and the view says what is missing.
  const damage = file.damage();
  state.files.setDamaged(entry, Boolean(damage));
  if (damage) viewMessage(`${entry.path} is damaged: ${message(damage)}\nEverything before that point is shown.`, { note: true, warning: true });
  if (restore) restoreView(restore, { chunk: false });
  syncToolbar();
  writeHash({ push: newFile && !restore, opened: true });
  const t3 = performance.now();
  // The first frame goes to the GPU first; the inspector is filled while it is rasterised
  // (in the frame's own task: the page waits for the rasteriser once that task ends).
  let stats;
  try {
    stats = state.viewport.drawNow();
  } catch (err) {
    // A scene that cannot be drawn (the core took it off the view) fails this file alone.
    if (isTrap(err)) throw err;
    file.free();
    return failed(entry, err);
  }
  const drawMs = performance.now() - t3;
  $('viewport').getContext('webgl2').flush();
  const inspectMs = showInspector(file);
  if (restore && restore.chunk !== null && state.current === entry.path) {
    state.inspector.selectChunk(restore.chunk);
    writeHash({ push: false, opened: true });
  }
  // A large world goes up batch by batch, a frame each: done once the last is drawn.
  try {
    while (stats.uploading && state.current === entry.path) stats = await state.viewport.requestFrame();
  } catch (err) {
    if (isTrap(err)) throw err;
    file.free();
    return failed(entry, err);
  }
  $('open-progress').hidden = true;
  const core = file.timings();
  state.lastOpen = {
    path: entry.path,
    readMs: core.readMs,
    parseMs: core.parseMs,
    inspectMs,
    assetsMs: core.assetsMs,
    buildMs: core.buildMs,
    showMs: state.viewer.showMs(),
    uploadMs: state.viewer.uploadMs(),
    uploadBytes: state.viewer.uploadBytes(),
    // Opened by the worker (read, parse and inspector off this thread), and its memory.
    worker: viaWorker,
    workerMemoryBytes: viaWorker ? file.workerMemoryBytes : null,
    packMs: viaWorker ? file.packMs : null,
    deliverMs: viaWorker ? file.deliverMs : null,
    // Uploading the scene and making the first frame's draw calls; the GPU may still be
    // rasterising it when open() resolves.
    drawMs,
    totalMs: performance.now() - t0,
  };
  file.free();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls };
}

// Put back what a link says of the view: LOD, camera (a viewpoint, or a position and a
// mode), selected chunk, clock and hidden layers.
function restoreView(link, { chunk = true } = {}) {
  if (link.hide) state.viewer.setHiddenLayers(link.hide);
  // After the hidden layers: the choice hides the layers of its other options.
  if (link.choice !== null && link.choice !== undefined) state.viewer.choose(link.choice);
  if (link.skeleton) state.viewer.setOptions({ skeleton: true });
  // The display switches a link carries; a link without them leaves the reader's own.
  if (link.wire) state.viewer.setOptions({ wireframe: true });
  if (link.cull) state.viewer.setOptions({ cullBack: true });
  if (link.bg) state.viewer.setOptions({ background: link.bg });
  if (link.light) state.viewer.setOptions({ lighting: link.light });
  syncBackground();
  if (link.lod !== null) state.viewer.setOptions({ lod: link.lod, autoLod: false });
  if (link.view !== null && link.view !== undefined && state.viewer.lookFrom(link.view)) {
    state.viewpoint = link.view;
  } else {
    if (link.cam) state.viewer.setCamera(link.cam);
    state.viewer.setCameraMode(link.mode === 'fly' ? 'fly' : 'orbit');
  }
  if (chunk && link.chunk !== null) state.inspector.selectChunk(link.chunk);
  if (link.t !== null && link.t !== undefined) state.viewer.setAnimationTime(link.t);
  if (link.paused) state.viewer.setPlaying(false);
}

// A file that cannot be read or parsed: marked in the list, its error in the panel, the view
// cleared; the rest of the archive stays usable.
async function failed(entry, err) {
  $('open-progress').hidden = true;
  state.viewer.clear();
  state.files.setFailed(entry, true, message(err));
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
  $('background-select').value = o.background;
  $('lighting-select').value = o.lighting;
  syncBackground();
  syncWorldControls();
}

// The camera picker (orbit, fly, the scene's viewpoints), the layer switches and the
// timeline follow the scene on show.
function syncWorldControls() {
  const camera = $('camera-select');
  const points = state.current ? state.viewer.viewpoints() : [];
  const options = [['orbit', 'orbit'], ['fly', 'fly (WASD)'], ...points.map((v, i) => [`view:${i}`, v.name])];
  if (camera.options.length !== options.length || [...camera.options].some((o, i) => o.value !== options[i][0])) {
    camera.replaceChildren(...options.map(([value, label]) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      return o;
    }));
  }
  camera.value = state.viewpoint !== null && state.viewpoint !== undefined ? `view:${state.viewpoint}` : state.current ? state.viewer.cameraMode() : 'orbit';
  // The scene's choice (a file's models and their animations) and its skeleton switch.
  const choice = state.current ? state.viewer.choice() : null;
  $('choice-label').hidden = !choice;
  if (choice) {
    $('choice-name').textContent = choice.name;
    const select = $('choice-select');
    if (select.options.length !== choice.options.length || [...select.options].some((o, i) => o.textContent !== choice.options[i])) {
      select.replaceChildren(...choice.options.map((label, i) => {
        const o = document.createElement('option');
        o.value = String(i);
        o.textContent = label;
        return o;
      }));
    }
    select.value = String(choice.selected ?? 0);
  }
  $('skeleton-label').hidden = !(state.current && state.viewer.hasSkeleton());
  $('opt-skeleton').checked = state.viewer.options().skeleton;
  const layers = $('layers');
  const shown = state.current ? state.viewer.layers().filter((l) => l.nodes > 0 && !l.chosen) : [];
  layers.replaceChildren(...shown.map((l) => {
    const label = document.createElement('label');
    label.title = `Show or hide the ${l.name} (${l.nodes})`;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = l.shown;
    box.dataset.layer = l.name;
    box.addEventListener('change', () => setLayers({ [l.name]: box.checked }));
    label.append(box, document.createTextNode(` ${l.name}`));
    return label;
  }));
  layers.hidden = shown.length === 0;
  const stats = state.viewer.stats();
  const timeline = $('timeline');
  timeline.hidden = !(state.current && stats.animating);
  if (!timeline.hidden) {
    const clock = state.viewer.clockState();
    $('play-button').textContent = clock.playing ? 'pause' : 'play';
    $('speed-select').value = String(clock.speed);
    const period = state.viewer.clipDuration();
    $('scrub').max = String(period > 0 ? period : 60);
  }
}

// Hide or show layers by name ({doors: false}); resolves once the change is drawn.
async function setLayers(changes) {
  await ready;
  const hidden = new Set(state.viewer.layers().filter((l) => !l.shown).map((l) => l.name));
  for (const [name, shown] of Object.entries(changes)) {
    if (shown) hidden.delete(name);
    else hidden.add(name);
  }
  state.viewer.setHiddenLayers([...hidden]);
  syncWorldControls();
  let stats = await state.viewport.requestFrame();
  while (stats.uploading) stats = await state.viewport.requestFrame();
  followView();
  return state.viewer.layers();
}

// Show option `k` of the scene's choice (a model, an animation); resolves once drawn.
async function choose(k) {
  await ready;
  if (!state.viewer.choose(k)) throw new Error(`no option ${k} to choose`);
  state.viewer.home();
  syncWorldControls();
  let stats = await state.viewport.requestFrame();
  while (stats.uploading) stats = await state.viewport.requestFrame();
  followView();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls, choice: stats.choice };
}

// Camera: 'orbit', 'fly', or a viewpoint's index; resolves once drawn.
async function setCamera(choice) {
  await ready;
  if (typeof choice === 'number') {
    if (!state.viewer.lookFrom(choice)) throw new Error(`no viewpoint ${choice}`);
    state.viewpoint = choice;
  } else {
    state.viewer.setCameraMode(choice === 'fly' ? 'fly' : 'orbit');
    state.viewpoint = null;
  }
  syncWorldControls();
  await state.viewport.requestFrame();
  followView();
  return state.viewer.camera();
}

// The clock: {time, playing, speed}; changes resolve once drawn.
function clock() {
  return { time: state.viewer.animationTime(), ...state.viewer.clockState() };
}
async function setClock({ time, playing, speed } = {}) {
  await ready;
  if (speed !== undefined) state.viewer.setSpeed(speed);
  if (playing !== undefined) state.viewer.setPlaying(playing);
  if (time !== undefined) state.viewer.setAnimationTime(time);
  syncWorldControls();
  await state.viewport.requestFrame();
  followView();
  return clock();
}

async function setOptions(changes) {
  await ready;
  state.viewer.setOptions(changes);
  syncToolbar();
  const stats = await state.viewport.requestFrame();
  followView();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls, lod: stats.lod };
}

// The page around the canvas follows its background (the HUD's colours).
function syncBackground() {
  const bg = state.viewer.options().background;
  $('view').classList.toggle('bg-light', bg !== 'dark');
}

const BACKGROUNDS = ['dark', 'light', 'checker'];
const LIGHTINGS = ['sun', 'camera', 'none'];
const next = (list, now) => list[(list.indexOf(now) + 1) % list.length];

// The orientation gizmo: the world axes as the camera sees them, X red, Y green, Z blue.
function drawGizmo() {
  const c = state.viewer.camera();
  const f = norm(c.target.map((t, i) => t - c.position[i]));
  const r = norm(cross(f, [0, 1, 0]).some((v) => Math.abs(v) > 1e-6) ? cross(f, [0, 1, 0]) : [1, 0, 0]);
  const u = cross(r, f);
  const axes = [['X', [1, 0, 0], '#f07c6c'], ['Y', [0, 1, 0], '#7cd67c'], ['Z', [0, 0, 1], '#7cb0f0']]
    .map(([name, a, color]) => ({ name, color, x: dot(a, r) * 20, y: -dot(a, u) * 20, z: dot(a, f) }))
    .sort((a, b) => b.z - a.z);
  const svg = $('gizmo');
  const ns = 'http://www.w3.org/2000/svg';
  const parts = [];
  for (const a of axes) {
    const line = document.createElementNS(ns, 'line');
    Object.entries({ x1: 0, y1: 0, x2: a.x.toFixed(1), y2: a.y.toFixed(1), stroke: a.color, 'stroke-width': 2, opacity: a.z > 0 ? 0.45 : 1 }).forEach(([k, v]) => line.setAttribute(k, v));
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', (a.x * 1.3).toFixed(1));
    text.setAttribute('y', (a.y * 1.3).toFixed(1));
    text.setAttribute('fill', a.color);
    text.textContent = a.name;
    parts.push(line, text);
  }
  svg.replaceChildren(...parts);
  svg.dataset.axes = axes.map((a) => `${a.name}:${a.x.toFixed(0)},${a.y.toFixed(0)}`).join(' ');
}
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => { const l = Math.hypot(...a) || 1; return a.map((v) => v / l); };

// The view's keys (help.js lists them); → whether the key was one of them.
function viewKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  const v = state.viewer;
  const step = 24;
  const orbitOrPan = (dx, dy) => { if (e.shiftKey) v.pan(dx, dy); else v.orbit(dx, dy); leaveViewpoint(); };
  switch (e.key) {
    case 'ArrowLeft': orbitOrPan(-step, 0); break;
    case 'ArrowRight': orbitOrPan(step, 0); break;
    case 'ArrowUp': orbitOrPan(0, -step); break;
    case 'ArrowDown': orbitOrPan(0, step); break;
    case '+': case '=': v.zoom(1); break;
    case '-': case '_': v.zoom(-1); break;
    case 'f': case 'F': frame(); break;
    case 'w': case 'W': setOptions({ wireframe: !v.options().wireframe }); break;
    case 'b': case 'B': setOptions({ cullBack: !v.options().cullBack }); break;
    case 'l': case 'L': {
      const count = v.stats().lodCount;
      if (count > 1) setOptions({ lod: (v.stats().lod + 1) % count, autoLod: false });
      break;
    }
    case 'g': case 'G': setOptions({ background: next(BACKGROUNDS, v.options().background) }); break;
    case 'i': case 'I': setOptions({ lighting: next(LIGHTINGS, v.options().lighting) }); break;
    case '1': window.relicview.axisView('front'); break;
    case '3': window.relicview.axisView('side'); break;
    case '7': window.relicview.axisView('top'); break;
    case 'v': case 'V': setCamera(v.cameraMode() === 'fly' ? 'orbit' : 'fly'); break;
    case ' ': if (v.stats().animating) setClock({ playing: !v.clockState().playing }); else return false; break;
    default: return false;
  }
  return true;
}

// Frame the selected chunk's geometry where one is selected and drawn, else the model.
function frame() {
  if (!state.viewer.frameHighlight()) state.viewer.home();
  state.viewpoint = null;
  syncWorldControls();
  state.viewport.requestFrame();
}

function leaveViewpoint() {
  if (state.viewpoint !== null && state.viewpoint !== undefined) {
    state.viewpoint = null;
    syncWorldControls();
  }
}

// An open asked for while another is under way runs after it; an open that a later one
// replaced before it could show is abandoned (→ {abandoned: true}): stepping through a
// list with the keyboard shows where it stops, not every file on the way.
function open(path, restore = null) {
  const request = ++state.requests;
  // A big file still parsing in the worker is not waited for.
  state.opener?.abandon();
  const run = state.queue.then(() => doOpen(path, restore, request));
  state.queue = run.catch(() => {});
  return run;
}

// Restore the view a link describes: its file (with camera, LOD and chunk).
function applyLink(link) {
  const target = link.path && state.byPath.get(link.path.toLowerCase());
  if (link.path && !target) {
    // The URL stays as it is: the reader may have the wrong archive, or a typo to fix.
    showError(link.path, new Error(`This link's file is not in this archive (${state.entries.length} files). The link is kept as it is.`), [
      ['Show the first model instead', () => openFirstValid().catch(() => {})],
    ]);
    return true;
  }
  if (!target) return false;
  if (target.path === state.current) {
    restoreView(link);
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
  } else if (!(link.archive && link.archive !== state.source.archive) && applyLink(link)) {
    // (A link to a hosted archive says nothing of a folder dropped in its place.)
    return;
  }
  // (A link to another folder waits for that folder.)
  if (!linkFolder || linkFolder === state.source.folder) openFirstValid().catch(() => {});
}

// Open the archive's first model that opens without an error or damage: a broken file is
// marked in the list and passed over (at most FIRST_TRIES of them), never left on show as
// the first thing a reader sees.
const FIRST_TRIES = 40;
async function openFirstValid() {
  const candidates = state.entries.filter((e) => kindOfEntry(e).capabilities.primary && !e.failed).slice(0, FIRST_TRIES);
  for (const e of candidates) {
    const before = state.requests;
    try {
      const shown = await open(e.path);
      if (!shown || shown.abandoned) return null;
      // Drawn despite damage: shown only if nothing after it opens whole.
      if (!e.damaged || e === candidates[candidates.length - 1]) return e.path;
      if (state.requests !== before + 1) return null;
    } catch {
      // Another file asked for meanwhile: the reader's choice stands.
      if (state.requests !== before + 1) return null;
    }
  }
  return null;
}

async function loadEntries(entries, label, source) {
  await ready;
  const generation = ++state.generation;
  const t0 = performance.now();
  // Listed by name at once, with the kinds their names suggest; typed by content after.
  for (const e of entries) {
    if (e.kind) continue;
    e.kind = core.kindOf(e.path, new Uint8Array(0), e.size);
    e.pending = true;
  }
  setEntries(entries, label, source);
  const requestsAtList = state.requests;
  state.lastListMs = performance.now() - t0;
  state.indexTimeline = { start: t0, listed: performance.now(), typed: null };
  if (!(await typeEntries(state.entries, generation))) return { files: entries.length };
  setListing();
  state.lastIndexMs = performance.now() - t0;
  state.indexTimeline.typed = performance.now();
  // Unless a file was opened from the list meanwhile: the user's choice stands.
  if (state.requests === requestsAtList) openInitial();
  return { files: entries.length };
}

function loadFiles(files) {
  const entries = entriesFromFiles(files);
  return loadEntries(entries, 'local files', { folder: fingerprint(entries) });
}

function stats() {
  return state.viewer ? state.viewer.stats() : { triangles: 0, drawCalls: 0, fps: 0 };
}

// The archive check: every file parsed on its own (as `relicview census` does), failures
// and damage marked in the list as they are found, then a report in the info pane with a
// link to each file that fails. Stops when another archive is loaded. → {checked, failed,
// damaged}, each entry {path, message, offset}.
async function checkArchive() {
  await ready;
  const generation = state.generation;
  const entries = state.entries.slice();
  const status = $('check-status');
  const button = $('check-button');
  button.disabled = true;
  const report = { checked: 0, failed: [], damaged: [] };
  try {
    for (const e of entries) {
      const r = await state.session.check(e.path);
      if (generation !== state.generation) return null;
      report.checked++;
      if (r.error && !r.damaged) report.failed.push({ path: e.path, ...r.error });
      if (r.damaged) report.damaged.push({ path: e.path, ...r.error });
      state.files.setVerdict(e, { failed: Boolean(r.error && !r.damaged), damaged: r.damaged });
      if (report.checked % 50 === 0) {
        state.files.refresh();
        status.textContent = `${report.checked} of ${entries.length}…`;
        await nextTask();
      }
    }
  } finally {
    button.disabled = false;
    state.files.refresh();
  }
  status.textContent = `${report.checked} checked · ${report.failed.length} failing · ${report.damaged.length} damaged`;
  showReport(report);
  return report;
}

function showReport(report) {
  $('info-title').textContent = 'Archive check';
  $('info-error').hidden = true;
  $('info-more').replaceChildren();
  const dl = $('info-body');
  dl.replaceChildren();
  addRow(dl, 'checked', `${report.checked} files`);
  addRow(dl, 'failing', String(report.failed.length), report.failed.length > 0);
  addRow(dl, 'damaged', String(report.damaged.length), report.damaged.length > 0);
  for (const [what, list] of [['fails', report.failed], ['damaged', report.damaged]]) {
    for (const f of list.slice(0, 500)) addRow(dl, what, `${f.path} — ${f.message.slice(f.path.length + 2)}`, true, { links: [f.path] });
    if (list.length > 500) addRow(dl, what, `… and ${list.length - 500} more`);
  }
  if (!report.failed.length && !report.damaged.length) addRow(dl, 'result', 'every file parses');
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
  clearTimeout(state.shareTimer);
  state.shareTimer = setTimeout(() => { status.textContent = ''; }, 4000);
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
  // Draws one frame and waits until it is rasterised (one pixel read back); → ms.
  rasterMs: () => {
    const canvas = $('viewport');
    const gl = canvas.getContext('webgl2');
    const t = performance.now();
    state.viewer.render(t);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    return performance.now() - t;
  },
  // Where the last open() spent its time: {readMs, parseMs, inspectMs, assetsMs, buildMs, showMs, uploadMs, uploadBytes, drawMs, totalMs}.
  lastOpen: () => state.lastOpen ?? null,
  // The page's share of compiling the model shaders at start (ms); the GPU's runs on after.
  warmUpMs: () => state.warmUpMs ?? null,
  // How long the last folder took to index (listed, then typed by content), in ms.
  lastIndexMs: () => state.lastIndexMs ?? null,
  // How long the last folder took to be listed by name (before its files were typed), in ms.
  lastListMs: () => state.lastListMs ?? null,
  // When the last folder's indexing started, was listed, was typed (performance.now() ms).
  indexTimeline: () => state.indexTimeline ?? null,
  // {position, target, fov} of the camera.
  camera: () => state.viewer.camera(),
  // The animation clock in seconds (texture scrolling follows it).
  animationTime: () => state.viewer.animationTime(),
  // What is under canvas pixel (x, y): {primitive, patch, source, triangleInSource, start, end} or null.
  pick: (x, y) => state.viewer.pick(x, y),
  // The file list: {files, folders, pending, failed, shown, shownFolders} (shown: files the
  // search, kind filter and folded folders leave in the list).
  listing: () => state.files.counts(),
  // One listed file: {path, size, kind, pending, failed, failure (why it failed), damaged}, or null.
  entry: (path) => {
    const e = state.byPath.get(String(path).toLowerCase());
    return e ? { path: e.path, size: e.size, kind: e.kind || "unknown", pending: Boolean(e.pending), failed: Boolean(e.failed), failure: e.failure ?? null, damaged: Boolean(e.damaged) } : null;
  },
  // The paths the list shows, in order (at most `limit`, default 1,000).
  shownFiles: (limit = 1000) => state.files.visibleFiles().slice(0, limit),
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
  // Viewpoints of the scene on show (a world's dropzones): [{name, position, forward, up}].
  viewpoints: () => state.viewer.viewpoints(),
  // 'orbit', 'fly', or a viewpoint's index (the eye above it, looking along it) → camera.
  setCamera,
  cameraMode: () => state.viewer.cameraMode(),
  // Look along an axis: 'front', 'side', 'top' → camera.
  axisView: async (axis) => { state.viewer.axisView(axis); state.viewpoint = null; syncWorldControls(); await state.viewport.requestFrame(); return state.viewer.camera(); },
  // The scene's choice {name, options, selected} (a file's models and animations), and choosing.
  choice: () => state.viewer.choice(),
  choose,
  // The scene's layers [{name, shown, nodes, chosen}], and hiding/showing them by name.
  layers: () => state.viewer.layers(),
  setLayers,
  // The animation clock {time, playing, speed}; setClock({time, playing, speed}).
  clock,
  setClock,
  // Where a node (by name) is in the world at the clock, and a material's UV offset.
  nodePosition: (name) => state.viewer.nodePosition(name) ?? null,
  uvOffset: (name) => state.viewer.uvOffset(name) ?? null,
  // {done, total} batches of the scene on show uploaded.
  uploadProgress: () => state.viewer.uploadProgress(),
  // Files from this size (bytes) on open in a worker; setWorkerThreshold(Infinity) keeps
  // every open on the page's thread.
  workerThreshold: () => state.workerThreshold,
  setWorkerThreshold: (bytes) => { state.workerThreshold = Number(bytes); },
  // {started, abandoned, busy}: workers started so far, opens ended with their worker
  // because another file was asked for, and whether one is opening a file now.
  workers: () => ({ started: state.opener.started, abandoned: state.opener.abandoned, busy: Boolean(state.opener.job) }),
  // Bytes of the wasm core's linear memory (it only grows; the peak of everything opened).
  memoryBytes: () => state.wasm.memory.buffer.byteLength,
  // The traps the core recovered from, oldest first: [{path, message}].
  traps: () => state.traps.slice(),
  // Parse every file (as census does) and report the failing ones → {checked, failed, damaged}.
  checkArchive,
  // Triangles outlined in the view (a picked face, a record chosen in the tree) in the LOD on show.
  highlightedTriangles: () => state.viewer.highlightedTriangles(),
  // Frame the selection (or, with none, the model) → camera.
  frame: async () => { frame(); await state.viewport.requestFrame(); return state.viewer.camera(); },
  // The frame as {width, height, data: RGBA bytes, top row first}.
  readPixels: () => ({ width: $('viewport').width, height: $('viewport').height, data: state.viewer.readPixels() }),
};

function bindShell() {
  // Real buttons (in the Tab order) for the hidden file inputs.
  for (const [button, input] of [['folder-button', 'folder-input'], ['files-button', 'files-input'], ['landing-folder', 'folder-input'], ['landing-files', 'files-input']]) {
    $(button).addEventListener('click', () => $(input).click());
  }
  $('background-select').addEventListener('change', (e) => setOptions({ background: e.target.value }));
  $('lighting-select').addEventListener('change', (e) => setOptions({ lighting: e.target.value }));
  state.help = new Help($('help'), $('help-keys'), $('help-button'), $('help-close'));
  // ? anywhere but in a text field.
  document.addEventListener('keydown', (e) => {
    if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || state.help.open) return;
    if (e.target.closest && e.target.closest('input, select, textarea')) return;
    e.preventDefault();
    state.help.show();
  });
  state.panes = new Panes({ onChange: () => state.viewport?.requestFrame() });
  for (const id of ['folder-input', 'files-input']) {
    $(id).addEventListener('change', (e) => {
      if (e.target.files.length) loadFiles(e.target.files);
    });
  }
  $('lod-select').addEventListener('change', (e) => setOptions({ lod: Number(e.target.value) }));
  $('opt-autolod').addEventListener('change', (e) => setOptions({ autoLod: e.target.checked }));
  $('opt-wireframe').addEventListener('change', (e) => setOptions({ wireframe: e.target.checked }));
  $('opt-cullback').addEventListener('change', (e) => setOptions({ cullBack: e.target.checked }));
  $('frame-button').addEventListener('click', () => frame());
  $('camera-select').addEventListener('change', (e) => {
    const v = e.target.value;
    setCamera(v.startsWith('view:') ? Number(v.slice(5)) : v).catch(() => {});
  });
  for (const b of document.querySelectorAll('#axis-views [data-axis]')) {
    b.addEventListener('click', () => window.relicview.axisView(b.dataset.axis));
  }
  $('play-button').addEventListener('click', () => setClock({ playing: !state.viewer.clockState().playing }));
  $('speed-select').addEventListener('change', (e) => setClock({ speed: Number(e.target.value) }));
  $('scrub').addEventListener('input', (e) => setClock({ time: Number(e.target.value), playing: false }));
  // One frame of a clip that runs in frames (an FF7 animation), else a tenth of a second.
  const step = (k) => setClock({ time: Math.max(0, state.viewer.animationTime() + k * state.viewer.frameTime()), playing: false });
  $('step-back').addEventListener('click', () => step(-1));
  $('step-forward').addEventListener('click', () => step(1));
  $('choice-select').addEventListener('change', (e) => choose(Number(e.target.value)));
  $('opt-skeleton').addEventListener('change', (e) => setOptions({ skeleton: e.target.checked }));
  $('share-button').addEventListener('click', () => share());
  $('check-button').addEventListener('click', () => checkArchive().catch(() => {}));
  // The info panel folds to its title, to uncover the view behind it.
  const fold = () => {
    const folded = $('info-panel').classList.toggle('folded');
    $('info-fold').setAttribute('aria-expanded', String(!folded));
    $('info-fold').textContent = folded ? '▸' : '▾';
  };
  $('info-fold').addEventListener('click', fold);
  $('info-title').addEventListener('click', fold);
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

// How the core reads an archive file: → Promise<ArrayBuffer>.
function readForCore(path) {
  const entry = state.byPath.get(path.toLowerCase());
  // Each file read while opening shows: a world reads its models one after another.
  if (state.opening) {
    const bar = $('open-progress');
    bar.removeAttribute('value');
    bar.hidden = false;
  }
  if (!entry) return Promise.reject(new Error('not in the archive'));
  // The file being opened is kept as read: the hex view shows it as stored from this
  // buffer rather than from a copy of the core's.
  return entry.read().then((buffer) => {
    if (entry.path === state.reading.path) state.reading.buffer = buffer;
    return buffer;
  });
}

// Instance `generation` of the core, with the viewer and the archive session on it.
async function startCore(generation) {
  const { glue, exports } = await instantiate(state.module, generation);
  core = glue;
  state.wasm = exports;
  state.viewer = new core.Viewer($('viewport'));
  state.warmUpMs = state.viewer.warmUp();
  state.session = new core.Session(readForCore);
  if (state.viewport) state.viewport.viewer = state.viewer;
  state.coreLost = new Promise((_, reject) => { state.loseCore = reject; });
  state.coreLost.catch(() => {});
}

// The core trapped: start a new instance, give it the archive's listing, mark the file that
// was on show or opening, and say what happened over the view. The next open works.
function recoverFromTrap(err) {
  state.recovering ||= (async () => {
    const path = state.current;
    // The panic's own words where the core left them, else the trap's.
    const said = globalThis.relicviewPanic;
    delete globalThis.relicviewPanic;
    state.traps.push({ path, message: said || message(err) });
    state.loseCore(err);
    state.requests++;
    state.queue = Promise.resolve();
    state.current = null;
    await startCore(state.traps.length);
    setListing();
    const entry = path && state.byPath.get(path.toLowerCase());
    const why = `The viewer's core stopped${path ? ' on this file' : ''} (${state.traps.at(-1).message}). It has been restarted: the archive is still open, and other files open as before.`;
    if (entry) state.files.setFailed(entry, true, why);
    // Nothing of the lost instance's stays on show: its records, its progress.
    state.inspector.show(null, []);
    $('open-progress').hidden = true;
    $('export-button').disabled = true;
    showError(path || 'relicview', new Error(why));
    state.viewport.requestFrame().catch(() => {});
    state.recovering = null;
  })();
  return state.recovering;
}

async function boot() {
  bindShell();
  // Compiled once: the worker that opens big files instantiates the same module.
  state.module = await compileCore();
  await startCore(0);
  state.opener = new WorkerOpener(state.module, (path) => {
    const entry = state.byPath.get(path.toLowerCase());
    return entry ? (entry.source ? entry.source() : { read: entry.read }) : null;
  });
  const canvas = $('viewport');
  state.viewport = new Viewport(canvas, state.viewer);
  // Moving the camera leaves the viewpoint it was at.
  state.viewport.onFly = leaveViewpoint;
  canvas.addEventListener('pointermove', (e) => { if (e.buttons) leaveViewpoint(); });
  canvas.addEventListener('wheel', leaveViewpoint);
  // W A S D fly in fly mode and at a viewpoint; in orbit mode W is the wireframe key.
  state.viewport.flyAllowed = () => state.viewer.cameraMode() === 'fly' || (state.viewpoint !== null && state.viewpoint !== undefined);
  state.viewport.onKey = (e) => (state.current ? viewKey(e) : false);
  state.inspector = new Inspector($('inspector'));
  state.files = new FileList({ list: $('file-list'), search: $('search'), kinds: $('kinds'), noMatches: $('no-matches'), label: (kind) => kindOfEntry({ kind }).label, onOpen: (path) => open(path).catch(() => {}) });
  state.viewport.onFrame = (s) => {
    const lod = s.lod === null || s.lod === undefined ? '' : ` · LOD ${s.lod}`;
    const placed = s.placements ? ` · ${s.placements} placements` : '';
    $('hud-stats').textContent = `${s.triangles} triangles · ${s.drawCalls} draw call${s.drawCalls === 1 ? '' : 's'}${placed}${lod}`;
    const bar = $('open-progress');
    if (s.uploading) {
      const p = state.viewer.uploadProgress();
      bar.max = p.total;
      bar.value = p.done;
      bar.hidden = false;
    }
    if (s.animating) {
      const t = state.viewer.animationTime();
      $('clock-label').textContent = `${t.toFixed(2)} s`;
      const period = Number($('scrub').max);
      $('scrub').value = String(period > 0 ? t % period : t);
    }
    // With distance switching the LOD follows the camera: keep the picker in step.
    if (s.lod !== null && s.lod !== undefined && $('lod-select').value !== String(s.lod)) $('lod-select').value = String(s.lod);
    if (state.current) followView();
    drawGizmo();
  };
  state.inspector.onClear = () => { state.viewer.setHighlight(null); state.viewport.requestFrame(); followView(); };
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
    // Kept for a double-click, whose first click must not leave a pick behind.
    state.beforePick = state.inspector.selection ? { ...state.inspector.selection } : null;
    const hit = state.viewer.pick(x, y);
    if (!hit || hit.source === null || hit.source === undefined) return;
    state.inspector.selectRange(hit.source, hit.start, hit.end, `picked triangle ${hit.triangleInSource}`);
    // Exactly the picked face's triangles are outlined, not the whole index list.
    state.viewer.setHighlightBytes(hit.source, hit.start, hit.end);
    state.viewport.requestFrame();
  };
  state.viewport.onDoubleClick = () => {
    if (state.beforePick !== undefined) state.inspector.restore(state.beforePick);
    state.beforePick = undefined;
    state.viewer.home();
    state.viewpoint = null;
    syncWorldControls();
  };
  // A trap outside an open (a frame, a pick, a task the core left running) recovers too;
  // a frame that cannot draw its scene says so for the file on show.
  window.addEventListener('error', (e) => { if (isTrap(e.error)) recoverFromTrap(e.error); });
  window.addEventListener('unhandledrejection', (e) => { if (isTrap(e.reason)) recoverFromTrap(e.reason); });
  state.viewport.onError = (err) => {
    if (isTrap(err)) recoverFromTrap(err);
    else if (state.current && !state.opening) {
      const entry = state.byPath.get(state.current.toLowerCase());
      if (entry) state.files.setFailed(entry, true, message(err));
      showError(state.current, err);
    }
  };
  readyResolve();
  state.viewport.requestFrame();
  const link = readHash();
  if (link.folder && !link.archive) {
    // A link to someone's local folder: only that folder can restore it. A request, not
    // an error.
    showNote('Open the folder this link was made for',
      `This link shows ${link.path || 'a file'} in a local folder (fingerprint ${link.folder}). Drop that folder here or open it, and the view comes back.`,
      [['Open folder…', () => $('folder-input').click()]]);
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
