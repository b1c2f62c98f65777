// The page shell: file list, info panel, drag-and-drop, URL state and the automation API
// `window.relicview`. Parsing, triangulation and drawing all happen in the wasm core.

import init, { Viewer, kindOf, materialRefs, modObjects, mapModelFiles } from '../pkg/relicview.js';
import { FileList } from './filelist.js';
import { Viewport } from './viewport.js';
import { collectDrop, entriesFromFiles, hostedEntries } from './files.js';
import { Inspector } from './inspector.js';
import { fingerprint, hashOf, readHash, throttle } from './urlstate.js';

const $ = (id) => document.getElementById(id);
const state = {
  entries: [],
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

// f32 values arrive widened to f64: show them as they were written.
const num = (x) => String(Number(x.toPrecision(6)));

function message(err) {
  return err && err.message ? err.message : String(err);
}

function setEntries(entries, sourceLabel, source) {
  state.source = source;
  state.entries = entries.slice().sort((a, b) => a.path.localeCompare(b.path, undefined, { sensitivity: 'base' }));
  state.byPath = new Map(state.entries.map((e) => [e.path.toLowerCase(), e]));
  state.files.set(state.entries);
  $('archive-summary').textContent = `${state.entries.length} files · ${sourceLabel}`;
  state.viewer.setListing(state.entries.map((e) => e.path));
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

function showInfo(path, info, assetErrors) {
  $('info-title').textContent = path;
  const error = $('info-error');
  error.hidden = true;
  error.textContent = '';
  const dl = $('info-body');
  dl.replaceChildren();
  addRow(dl, 'format', `DIV-BIZ2 ${info.kind}`);
  addRow(dl, 'bytes', `${info.bytes} · ${info.chunks} chunks · ${info.closes_exactly ? 'closes exactly' : 'does not close'}`);
  const w = info.length_widths;
  addRow(dl, 'lengths', `1-byte ${w['1']} · 2-byte ${w['2']} · 4-byte ${w['4']}`);
  if (info.unit !== null && info.unit !== undefined) {
    addRow(dl, 'unit', `${info.unit} (bgf notes: ${info.unit === 1 ? 'metres' : 'model units'}; b2z notes: ${info.unit === 1 ? 'inches' : 'model units'})`);
  }
  if (info.scale !== null && info.scale !== undefined) addRow(dl, 'scale', num(info.scale));
  for (const o of info.objects) {
    const lods = o.lods.map((l, i) => `LOD ${i}${l.distance ? ` [${l.distance.map(num).join('–')}]` : ''}: ${l.triangles} tris`).join(' · ');
    const points = o.points ? `${o.points} light points` : '';
    addRow(dl, `object ${o.name ?? '(unnamed)'}`, [lods, points].filter(Boolean).join(' · ') || 'empty');
  }
  addRow(dl, 'drawn (LOD 0)', `${info.triangles} triangles · ${info.vertices} vertices`);
  if (info.bounds) {
    const f = (v) => v.map((x) => x.toFixed(2)).join(', ');
    addRow(dl, 'bounds', `min (${f(info.bounds.min)}) max (${f(info.bounds.max)})`);
  }
  for (const r of info.material_resolution || []) {
    const missing = r.library_error ? `library unusable: ${r.library_error} (drawn grey)` : r.library ? `not in ${r.library} (drawn grey)` : 'no library in the archive (drawn grey)';
    addRow(dl, `material ${r.reference}`, r.found ? `from ${r.library}` : missing, !r.found);
  }
  for (const t of info.texture_status || []) {
    addRow(dl, `texture ${t.texture}`, t.decoded ? `${t.file}${t.scroll ? ` · scrolls ${t.scroll.map(num).join(' ')}` : ''}` : `checker: ${t.reason}`, !t.decoded);
  }
  for (const e of assetErrors) addRow(dl, 'unreadable file', e, true);
  if (info.specials.length) addRow(dl, 'specials', info.specials.join(' · '));
  for (const t of info.textures) { // a library's own TEXTURE definitions
    addRow(dl, `texture ${t.name}`, `${t.map ?? 'no map'}${t.scroll ? ` · scroll ${t.scroll.map(num).join(' ')}` : ''}`);
  }
  for (const m of info.material_defs) {
    addRow(dl, `material ${m.name}`, m.diffuse ? `diffuse ${m.diffuse.map((x) => x.toFixed(2)).join(', ')}` : '—');
  }
  if (info.unknown_tags.length) addRow(dl, 'unknown tags', info.unknown_tags.map((t) => '0x' + t.toString(16).padStart(4, '0')).join(', '));
  for (const d of info.diagnostics) addRow(dl, `warning @${d.offset}`, `${d.path}: ${d.message}`);
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
  let info;
  const assetErrors = [];
  const t0 = performance.now();
  let t1 = t0;
  let t2 = t0;
  let bytes = new Uint8Array(0);
  let inspectMs = 0;
  if (entry.kind === 'viz2-text' || entry.kind === 'vmf2-text') {
    return showText(entry, new Uint8Array(await entry.read()));
  }
  try {
    bytes = new Uint8Array(await entry.read());
    t1 = performance.now();
    try {
      state.viewer.load(entry.path, bytes);
    } finally {
      // A broken file is inspected too: everything up to its error.
      const ti = performance.now();
      state.inspector.show(state.viewer.inspect(), bytes);
      inspectMs = performance.now() - ti;
    }
    // Libraries first, then the texture maps they name: each round may ask for more. Every
    // path asked for is answered (bytes or "unreadable"), so the core never asks twice.
    for (let needs = state.viewer.needs(), round = 0; needs.length && round < 8; needs = state.viewer.needs(), round++) {
      for (const dep of needs) {
        let depBytes;
        try {
          depBytes = new Uint8Array(await state.byPath.get(dep.toLowerCase()).read());
        } catch (err) {
          state.viewer.unreadable(dep, message(err));
          assetErrors.push(`${dep}: ${message(err)}`);
          continue;
        }
        try {
          state.viewer.provide(dep, depBytes);
        } catch {
          // The core keeps the reason: the info panel shows it beside the material or texture.
        }
      }
    }
    t2 = performance.now();
    info = state.viewer.show();
  } catch (err) {
    entry.element?.classList.add('failed');
    showError(entry.path, err);
    await state.viewport.requestFrame();
    throw err;
  }
  entry.element?.classList.remove('failed');
  showInfo(entry.path, info, assetErrors);
  if (info.kind === 'geometry') {
    const button = document.createElement('button');
    button.className = 'button';
    button.id = 'used-by-button';
    button.textContent = 'Which MODs and MAPs use this model?';
    button.addEventListener('click', () => { button.disabled = true; showModelUsedBy(entry.path); });
    $('info-body').append(button);
  }
  if (info.kind === 'materials') {
    const button = document.createElement('button');
    button.className = 'button';
    button.id = 'used-by-button';
    button.textContent = 'Which models use these materials?';
    button.addEventListener('click', () => { button.disabled = true; showUsedBy(entry.path, info); });
    $('info-body').append(button);
  }
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
  const core = state.viewer.timings();
  state.lastOpen = {
    path: entry.path,
    readMs: t1 - t0,
    parseMs: core.parseMs,
    inspectMs,
    assetsMs: t2 - t1 - core.parseMs - inspectMs,
    buildMs: core.buildMs,
    uploadMs: core.uploadMs,
    // From the request of the first frame until it was drawn (includes the wait for rAF).
    drawMs: performance.now() - t3,
    totalMs: performance.now() - t0,
  };
  return { triangles: stats.triangles, drawCalls: stats.drawCalls };
}

// DIV-VIZ2 / DIV-VMF2, the text twins of the binary formats: shown as text.
async function showText(entry, bytes) {
  state.viewer.clear();
  $('info-title').textContent = entry.path;
  $('info-error').hidden = true;
  const dl = $('info-body');
  dl.replaceChildren();
  addRow(dl, 'format', `${entry.kind === 'viz2-text' ? 'DIV-VIZ2' : 'DIV-VMF2'}: the text twin of DIV-BIZ2 (not parsed yet), ${bytes.length} bytes`);
  const pre = document.createElement('pre');
  pre.className = 'text-view';
  pre.textContent = new TextDecoder('latin1').decode(bytes.subarray(0, 256 * 1024));
  dl.append(pre);
  state.inspector.show({ chunks: [], fields: [], runs: [{ start: 0, len: bytes.length, class: 'text' }], diagnostics: [], error: null, coverage: null }, bytes);
  writeHash({ push: true, opened: true });
  const stats = await state.viewport.requestFrame();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls };
}

// "Used by" for a material library: every model in the archive that takes a material
// from this very file (nearest library first, as when drawing), per material.
async function usedBy(libraryPath) {
  const lib = libraryPath.split('/').pop().replace(/\.[^.]*$/, '').toLowerCase();
  const uses = new Map();
  for (const e of state.entries) {
    if (e.kind !== 'biz2-geometry') continue;
    let refs;
    try {
      refs = materialRefs(new Uint8Array(await e.read()));
    } catch {
      continue; // broken models are reported when opened
    }
    for (const r of refs) {
      const [name, mat] = r.split(/:(.*)/s);
      if (name.toLowerCase() !== lib || !mat) continue;
      if ((state.viewer.libraryFor(e.path, r) || '').toLowerCase() !== libraryPath.toLowerCase()) continue;
      const key = mat.toLowerCase();
      if (!uses.has(key)) uses.set(key, []);
      uses.get(key).push(e.path);
    }
  }
  return uses;
}

async function showUsedBy(libraryPath, info) {
  const dl = $('info-body');
  const uses = await usedBy(libraryPath);
  if (state.current !== libraryPath) return;
  for (const m of info.material_defs) {
    const models = uses.get(m.name.toLowerCase()) || [];
    addRow(dl, `used: ${m.name}`, models.length ? models.join(', ') : 'no model in this archive', !models.length);
  }
}

// "Used by" for a model: the MODs whose [video] object= names it, and the MAPs that declare
// those MODs. Names match without case and by file name, as the pods resolve them.
async function modelUsedBy(modelPath) {
  const base = (p) => p.split(/[\\/:]/).pop().toLowerCase();
  const model = base(modelPath);
  const mods = [];
  for (const e of state.entries.filter((x) => x.kind === 'mod')) {
    try {
      if (modObjects(new Uint8Array(await e.read())).some((o) => base(o) === model)) mods.push(e.path);
    } catch { /* unreadable text: not a user */ }
  }
  const modNames = new Set(mods.map(base));
  const maps = [];
  for (const e of state.entries.filter((x) => x.kind === 'map')) {
    try {
      const via = mapModelFiles(new Uint8Array(await e.read())).filter((m) => modNames.has(base(m)));
      if (via.length) maps.push(`${e.path} (via ${[...new Set(via)].join(', ')})`);
    } catch { /* unreadable text: not a user */ }
  }
  return { mods, maps };
}

async function showModelUsedBy(modelPath) {
  const { mods, maps } = await modelUsedBy(modelPath);
  if (state.current !== modelPath) return;
  const dl = $('info-body');
  addRow(dl, 'used by MODs', mods.length ? mods.join(', ') : 'none in this archive', !mods.length);
  addRow(dl, 'used by MAPs', maps.length ? maps.join(', ') : 'none in this archive', !maps.length);
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
  const first = state.entries.find((e) => /\.bgf$/i.test(e.path));
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
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${base}.png`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  return a.download;
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
  },
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
  await init();
  const canvas = $('viewport');
  state.viewer = new Viewer(canvas);
  state.viewport = new Viewport(canvas, state.viewer);
  state.inspector = new Inspector($('inspector'));
  state.files = new FileList({ list: $('file-list'), search: $('search'), kinds: $('kinds'), onOpen: (path) => open(path).catch(() => {}) });
  state.viewport.onFrame = (s) => {
    const lod = s.lod === null || s.lod === undefined ? '' : ` · LOD ${s.lod}`;
    $('hud-stats').textContent = `${s.triangles} triangles · ${s.drawCalls} draw call${s.drawCalls === 1 ? '' : 's'}${lod}`;
    // With distance switching the LOD follows the camera: keep the picker in step.
    if (s.lod !== null && s.lod !== undefined && $('lod-select').value !== String(s.lod)) $('lod-select').value = String(s.lod);
    if (state.current) followView();
  };
  // Tree → 3D: outline the geometry of the chosen chunk.
  state.inspector.onSelect = (c) => {
    const lod = c.name === 'LOD' ? state.viewer.lodOf(c.index) : undefined;
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
