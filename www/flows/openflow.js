// @ts-check
// Opening files: one open at a time (the last one asked for wins), on this thread or in
// the worker, then the document, the scene and the link's view; loading an archive.

import { isTrap } from '../ground/core.js';
import { Abandoned } from '../sources/opener.js';
import { entriesFromFiles } from '../sources/files.js';
import { linksToFile, readHash } from '../ground/urlstate.js';
import {
  $,
  afterNextFrame,
  core,
  count,
  fileName,
  message,
  nextTask,
  ready,
  state,
} from '../ground/state.js';
import {
  addRow,
  clearInfo,
  reason,
  setExport,
  showDocument,
  showError,
  syncDrawnRow,
  viewMessage,
} from '../panes/infopane.js';
import { clearMeasure, sizeText } from '../panes/measure.js';
import { hideFlat, showFlat } from '../panes/flatview.js';
import {
  confirmKinds,
  fingerprintFolder,
  kindOfEntry,
  markSelected,
  setEntries,
  setKinds,
  typeEntries,
} from '../sources/listing.js';
import { followView, forgetShared, writeHash } from '../panes/address.js';
import { explainEmptyChoice, leaveViewpoint, restoreView, syncToolbar } from '../panes/controls.js';
import { coreLost, recoverFromTrap, traps } from '../sources/recovery.js';
import { endLoading, loadingProgress, showListing, startLoading } from '../ground/loading.js';
import { containerOfPath, expandContainers } from '../sources/containers.js';
import { setComparing } from '../panes/compareview.js';
import { applyGameState } from '../ground/gamestate.js';
import { setView, viewOf } from '../ground/viewmode.js';
import { requestCompare, requestGrid } from '../ground/requests.js';
import {
  abandonOpens,
  enqueue,
  linkApplied,
  showing,
  showingNothing,
  startReading,
  takeRead,
} from '../ground/opens.js';

// What the last open took ({path, readMs, …}) and how long the last listing took to list
// and to type (ms), with the timeline of that indexing.
/** @type {{ path: string, [measure: string]: unknown } | null} */
export let lastOpen = null;
export let lastListMs = 0;
export let lastIndexMs = 0;
/** @type {{ start: number, listed: number | null, typed: number | null, confirmed: number | null, corrected: number, sized?: number } | null} */
export let indexTimeline = null;

// Run one open (`label` names what it opens) with the core up; a trap of the core during
// it ends it with why, once a new core instance is up.
/** @template T @param {string} label @param {() => Promise<T>} run @returns {Promise<T>} */
async function guarded(label, run) {
  await ready;
  const lost = coreLost;
  state.opening++;
  try {
    // An open whose core traps never settles on its own: the trap ends it.
    return await Promise.race(lost ? [run(), lost] : [run()]);
  } catch (err) {
    if (!isTrap(err)) throw err;
    await recoverFromTrap(err);
    throw new Error(`${label}: ${traps.at(-1)?.message} (the viewer's core was restarted)`);
  } finally {
    state.opening = Math.max(0, state.opening - 1);
  }
}

// The core opens the file and everything it refers to: a big one in the worker, others here
// through state.session's reader. → {file, viaWorker}
/**
 * A file opened: by the core on this thread, or by the worker.
 * @typedef {{ file: import('../ground/state.js').OpenedFile, viaWorker: false } | { file: import('../sources/opener.js').RemoteFile, viaWorker: true }} OpenedHere
 */

/** @param {Entry} entry @returns {Promise<OpenedHere>} */
async function openFile(entry) {
  const opener = state.opener;
  if (opener?.usable && entry.size >= state.workerThreshold && entry.source) {
    loadingProgress('parsing in the background');
    try {
      return { file: await opener.open(entry.path), viaWorker: true };
    } catch (err) {
      // Where no worker can start, files open here as small ones do.
      if (!(err instanceof Error && 'workerBroken' in err && err.workerBroken)) throw err;
    }
  }
  startReading(entry.path);
  return { file: await state.session.open(entry.path), viaWorker: false };
}

// Fill the inspector with an opened file's records and bytes; → ms it took.
/** @param {ShownFile} file */
function showInspector(file) {
  const t0 = performance.now();
  const view = file.inspect();
  const views = view ? view.views : [];
  const stored = takeRead(file.path);
  // The last view is the file as stored: the bytes this page read, where it read them.
  const bytes = views.map((v, i) =>
    i === views.length - 1 && stored && stored.byteLength === v.len
      ? new Uint8Array(stored)
      : file.bytes(i) || new Uint8Array(0),
  );
  state.inspector.show(view, bytes);
  return performance.now() - t0;
}

// What an open that a later one replaced gives back.
const ABANDONED = Object.freeze({ abandoned: true });

/**
 * What a finished open gives back: the first frame's numbers, or that a later open replaced it.
 * @typedef {{ triangles: number, drawCalls: number } | { abandoned: true }} Opened
 */

/** @param {string} path @param {import('../ground/urlstate.js').ViewLink | null} restore @param {number} request @returns {Promise<Opened>} */
async function openNow(path, restore, request) {
  const abandoned = () => request !== state.requests;
  if (abandoned()) return ABANDONED;
  const entry = state.byPath.get(String(path).toLowerCase());
  if (!entry) throw new Error(`${path}: no such file in the archive`);
  // A file opened alone ends a comparison (file A opened alone is a new view too).
  const newFile = state.current !== entry.path || Boolean(state.compare);
  setComparing(false);
  startLoading(entry.path, Boolean(state.current) && newFile);
  showing(entry.path);
  markSelected(entry.path);
  const t0 = performance.now();
  /** @type {OpenedHere} */
  let opened;
  try {
    opened = await openFile(entry);
  } catch (err) {
    if (err instanceof Abandoned || abandoned()) return ABANDONED;
    return failed(entry, err);
  }
  // The opened file is freed here, and only here, however the open ends.
  try {
    return await showOpened(entry, opened, { restore, newFile, t0, abandoned });
  } finally {
    release(opened.file);
  }
}

// A file's memory in the core let go. (A file of an instance that trapped went with it.)
/** @param {ShownFile} file */
function release(file) {
  try {
    file.free();
  } catch (err) {
    if (!isTrap(err)) throw err;
  }
}

/**
 * How an open goes on: the link's view to put back, whether the file is new to the view,
 * when the open began, and whether a later open replaced it.
 * @typedef {{ restore: import('../ground/urlstate.js').ViewLink | null, newFile: boolean, t0: number, abandoned: () => boolean }} OpenSteps
 */

// An opened file on show: checked, drawn, its panes filled, its timings kept.
/** @param {Entry} entry @param {OpenedHere} opened @param {OpenSteps} steps @returns {Promise<Opened>} */
async function showOpened(entry, opened, steps) {
  const { file } = opened;
  const { abandoned } = steps;
  if (abandoned()) return ABANDONED;
  // The steps of an open are tasks of their own, so that input and frames get in between.
  await nextTask();
  // (What came in between may have ended this open: the grid shown, another file asked for.
  // Drawn regardless, the file took the view back from the grid the reader had just opened.)
  if (abandoned()) return ABANDONED;
  const failure = checkOpened(entry, file);
  if (failure) {
    // A broken file is inspected up to its error.
    showInspector(file);
    return failed(entry, failure);
  }
  const drawn = await drawOpened(entry, opened, steps);
  const gone = () => abandoned() || state.current !== entry.path;
  if (gone()) return ABANDONED;
  // The user's wait is over: the file is drawn. Scripts time an open to here
  // (`relicview:frame`, on the document and as a performance mark).
  const frameMs = performance.now() - steps.t0;
  performance.mark('relicview:frame', { detail: entry.path });
  document.dispatchEvent(new CustomEvent('relicview:frame', { detail: { path: entry.path, ms: frameMs } }));
  // The frame goes on screen before the panes are filled: the info pane, the toolbar, the
  // address and the inspector are not needed to see the model (a world's info pane lays
  // out its whole text; a new history entry alone took 15–45 ms after a big frame), so
  // they come after, each in a task of its own.
  await afterNextFrame();
  if (gone()) return ABANDONED;
  fillInfo(entry, file, drawn.stats, steps);
  await nextTask();
  if (gone()) return ABANDONED;
  const inspectMs = showInspector(file);
  if (steps.restore && steps.restore.chunk !== null && steps.restore.chunk !== undefined) {
    state.inspector.selectChunk(steps.restore.chunk);
    writeHash({ push: false, opened: true });
  }
  endLoading();
  keepTimings(entry, opened, { ...drawn, frameMs, inspectMs, t0: steps.t0 });
  return { triangles: drawn.stats.triangles, drawCalls: drawn.stats.drawCalls };
}

// What the content says the file is (a name can claim a kind its content is not), and why
// it cannot be shown: its error, or a container that could not be listed (a cut-off zip, a
// bad disc image: it opens as bytes, its failure the reason).
/** @param {Entry} entry @param {ShownFile} file */
function checkOpened(entry, file) {
  const kind = file.kind();
  if (kind !== entry.kind) {
    state.files.setKind(entry, kind);
    state.files.refresh();
    state.files.renderKinds();
  }
  return file.error() || (entry.containerFailure ? new Error(entry.containerFailure) : null);
}

// The file drawn, the link's view put back, and the first frame rasterised (a large world
// goes up batch by batch, a frame each: it is drawn once the last is). A scene that cannot
// be drawn fails this file alone. → the last frame's stats and the times it took.
/** @param {Entry} entry @param {OpenedHere} opened @param {OpenSteps} steps */
async function drawOpened(entry, opened, { restore, newFile }) {
  const { file } = opened;
  // The previous file's records and selection go; this file's come after its first frame.
  state.inspector.show(null, []);
  // Scripts tell the upload-and-draw task from the parse before it by this mark.
  performance.mark('relicview:show', { detail: entry.path });
  if (!opened.viaWorker) state.viewer.show(opened.file);
  else if (opened.file.sceneBytes) {
    state.viewer.showSceneBytes(opened.file.sceneBytes);
    opened.file.sceneBytes = null;
  } else state.viewer.clear();
  leaveViewpoint();
  if (newFile) clearMeasure();
  if (entry.failed) state.files.setFailed(entry, false);
  // (The previous file's message goes before this file's first frame.)
  viewMessage(null);
  setView(viewOf(file.capabilities()));
  showFlat(file);
  if (restore) {
    restoreView(restore, { chunk: false });
    // The switches a link sets show in the same task as the view they set: a script that
    // sees the link's choice or clock sees its toolbar too.
    syncToolbar();
  }
  const t3 = performance.now();
  // The first frame goes to the GPU first; the panes are filled once it is rasterised.
  let stats;
  let drawMs = 0;
  try {
    stats = state.viewport.drawNow();
    drawMs = performance.now() - t3;
    while (stats.uploading && state.current === entry.path) stats = await state.viewport.requestFrame();
    // A draw the GPU would not take (no buffer for it): the file is not drawn whole.
    const refused = state.current === entry.path && state.viewer.uploadProgress().failed;
    if (refused) throw new Error(`${entry.path}: not drawn whole: ${refused}`);
  } catch (err) {
    if (isTrap(err)) throw err;
    return failed(entry, err);
  }
  // The panes wait until the GPU has rasterised the frame: built while it was rasterising,
  // the inspector slowed the frame by some 200 ms for a 500k-triangle model (two cores
  // shared by the page, its layout and the rasteriser). The page takes input meanwhile.
  const rasterMs = await state.viewport.rasterised();
  return { stats, drawMs, rasterMs };
}

// The info pane, the toolbar and the address for a file on show; its damage said.
/** @param {Entry} entry @param {ShownFile} file @param {import('../../pkg/relicview.js').FrameStats} stats @param {OpenSteps} steps */
function fillInfo(entry, file, stats, { restore, newFile }) {
  showDocument(file);
  syncDrawnRow(state.viewer.stats());
  const size = sizeText('scene');
  if (size) addRow($('info-body'), 'size', size);
  // Damaged where it ends: what came before is on show, and the view says what is missing.
  const damage = file.damage();
  state.files.setDamaged(entry, Boolean(damage));
  // Over the top of the view, not the model it says is drawn; the info pane keeps it.
  if (damage) addRow($('info-body'), 'damaged', reason(entry.path, damage), true);
  if (damage)
    viewMessage(
      `${entry.path} is damaged: ${reason(entry.path, damage)}\nWhat lies before that point is shown.`,
      { note: true, warning: true, banner: true },
    );
  else explainEmptyChoice(stats);
  syncToolbar();
  writeHash({ push: newFile && !restore, opened: true });
  linkApplied();
}

// What the open took, for scripts (lastOpen).
/**
 * @param {Entry} entry @param {OpenedHere} opened
 * @param {{ drawMs: number, rasterMs: number, frameMs: number, inspectMs: number, t0: number }} times
 */
function keepTimings(entry, opened, { drawMs, rasterMs, frameMs, inspectMs, t0 }) {
  const core = opened.file.timings();
  const worker = opened.viaWorker ? opened.file : null;
  lastOpen = {
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
    worker: opened.viaWorker,
    workerMemoryBytes: worker ? worker.workerMemoryBytes : null,
    packMs: worker ? worker.packMs : null,
    deliverMs: worker ? worker.deliverMs : null,
    // Uploading the scene and making the first frame's draw calls (the GPU rasterises it
    // after).
    drawMs,
    // From the last draw calls (a world's last batch) until the GPU had rasterised them.
    rasterMs,
    // From the start of the open until the file was drawn and rasterised (before the panes).
    frameMs,
    totalMs: performance.now() - t0,
  };
}

// A file that cannot be read or parsed: marked in the list, its error in the panel, the view
// cleared; the rest of the archive stays usable.
/** @param {Entry} entry @param {unknown} err @returns {Promise<never>} */
async function failed(entry, err) {
  endLoading();
  state.viewer.clear();
  state.files.setFailed(entry, true, message(err));
  hideFlat();
  setView('failed');
  showError(entry.path, err);
  setExport(false, `${fileName(entry.path)} could not be opened`);
  await state.viewport.requestFrame();
  throw err;
}

// An open asked for while another is under way runs after it; an open that a later one
// replaced before it could show is abandoned (→ {abandoned: true}): stepping through a
// list with the keyboard shows where it stops, not every file on the way.
/** @param {string} path @param {import('../ground/urlstate.js').ViewLink | null} [restore] @returns {Promise<Opened>} */
export function open(path, restore = null) {
  return queued(path, (/** @type {number} */ request) => openNow(path, restore, request));
}

// The way every open runs: after the one before it, the last one asked for winning (`run`
// gets its request number, to tell whether a later one replaced it), guarded against a
// trap of the core. Comparisons (compare.js) run this way too.
/** @template T @param {string} label @param {(request: number) => Promise<T>} run @returns {Promise<T>} */
export function queued(label, run) {
  const { job } = enqueue(request => guarded(label, () => run(request)));
  // A big file still parsing in the worker is not waited for.
  state.opener?.abandon();
  return job;
}

// No file on show (the archive's texture gallery is): `title` heads the info pane.
/** @param {string} title */
export function closeFile(title) {
  clearShown();
  $('info-title').textContent = title;
}

// Nothing on show: no scene, no records, no info, no selection in the list (a new archive,
// a link to a file that is not there). Any open under way is abandoned.
function clearShown() {
  abandonOpens();
  state.opener?.abandon();
  showingNothing();
  leaveViewpoint();
  setComparing(false);
  state.viewer.clear();
  state.inspector.show(null, []);
  clearInfo();
  hideFlat();
  setView('none');
  forgetShared();
  markSelected(null);
  endLoading();
  syncToolbar();
  state.viewport.requestFrame();
}

// Set the game's variables (`BANK:ADDRESS=VALUE` …) and open the file on show again with
// them, the view kept; throws on text that does not read. → the open, or null where nothing
// changed or nothing is on show.
/** @param {string} text */
export function setGameState(text) {
  const changed = applyGameState(text);
  if (!changed || !state.current || state.compare) return null;
  return open(state.current, { ...state.viewer.link(true), path: state.current });
}

// Restore the view a link describes: its file (with camera, LOD and chunk).
/** @param {import('../ground/urlstate.js').ViewLink} link */
export function applyLink(link) {
  const target = link.path && state.byPath.get(link.path.toLowerCase());
  if (link.path && !target) {
    clearShown();
    // The URL stays as it is: the reader may have the wrong archive, or a typo to fix.
    showError(
      link.path,
      new Error(
        `This link's file is not in this archive (${count(state.entries.length, 'file')}). The link is kept as it is.`,
      ),
      [['Show the first model instead', () => openFirstValid().catch(() => {})]],
    );
    return true;
  }
  if (!target) return false;
  // The link's game state first: the file's scene is built with it.
  let stateChanged = false;
  try {
    stateChanged = applyGameState(link.state ?? '');
  } catch {
    // A state that does not read is left out; the file opens with the one set.
  }
  if (link.compare) {
    // Two files compared: the comparison flow sits above this one (it answers, requests.js).
    requestCompare(target.path, link.compare, link);
    return true;
  }
  if (target.path === state.current && !state.compare && !stateChanged) {
    restoreView(link);
    syncToolbar();
    state.viewport.requestFrame();
  } else {
    open(target.path, link).catch(() => {});
  }
  return true;
}

// The one entry a link's path inside a container names in this archive: the same container
// path, or one ending in it (the folder that holds the container was opened); null unless
// exactly one.
/** @param {string} path */
function entryInsideContainer(path) {
  const container = containerOfPath(path);
  if (!container) return null;
  const name = fileName(container);
  const tail = `${name}/${path.slice(container.length + 1)}`.toLowerCase();
  const found = state.entries.filter(
    e => e.path.toLowerCase() === tail || e.path.toLowerCase().endsWith(`/${tail}`),
  );
  return found.length === 1 ? found[0] : null;
}

// The core knows every size of a picked folder (fingerprintFolder sent them): when, on the
// indexing's timeline.
function markSized() {
  if (indexTimeline && state.source?.folder && !indexTimeline.sized) indexTimeline.sized = performance.now();
}

// After a new file list: restore the link's view if it is for this archive, else show the
// first model. (A link to a local folder waits for the folder's fingerprint.)
/** @param {number} generation */
async function openInitial(generation) {
  const link = readHash();
  const linkFolder = link.folder && !link.archive ? link.folder : null;
  if (linkFolder && !(await fingerprintFolder(generation))) return;
  if (linkFolder) markSized();
  // A link to a file inside a container: the container itself opened, or the folder that
  // holds it, is the archive the link asks for (whatever else lies beside it).
  const inside =
    linkFolder && link.path && linkFolder !== state.source.folder ? entryInsideContainer(link.path) : null;
  if (inside) {
    applyLink({ ...link, path: inside.path });
    return;
  }
  if (linkFolder && state.source.folder && linkFolder !== state.source.folder) {
    showError(
      'This folder does not match the link',
      new Error(
        `The link was made for a folder with fingerprint ${linkFolder}; this one is ${state.source.folder} (number of files, then a hash of names and sizes). Its view is not restored.`,
      ),
    );
  } else if (link.browseGrid && !link.path && !(link.archive && link.archive !== state.source.archive)) {
    // A link to the archive's grid: the grid, not the first model.
    linkApplied();
    requestGrid();
    return;
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
  const candidates = state.entries
    .filter(e => kindOfEntry(e).capabilities.primary && !e.failed)
    .slice(0, FIRST_TRIES);
  // Nothing to show first: the reader picks (said only then, not while a first model loads).
  if (candidates.length === 0 && state.entries.length)
    viewMessage('Choose a file in the list, or type in the search box to find one.', { note: true });
  for (const e of candidates) {
    const before = state.requests;
    try {
      const shown = await open(e.path);
      if (!shown || 'abandoned' in shown) return null;
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

/** @param {Entries} entries @param {string} label @param {typeof state.source} source */
export async function loadEntries(entries, label, source) {
  await ready;
  const generation = ++state.generation;
  const t0 = performance.now();
  // The last archive's timeline ends here (scripts wait on this one's steps).
  indexTimeline = { start: t0, listed: null, typed: null, confirmed: null, corrected: 0 };
  state.archiveName = entries.root || null;
  // Containers become folders of their entries (listed by a worker, under a progress bar).
  entries = await expandContainers(entries, (what, done = 0, total = 0) => {
    $('archive-summary').textContent = what;
    showListing(`Listing ${what.replace(/^listing /, '')}`, done, total);
  });
  endLoading();
  if (generation !== state.generation) return { files: entries.length };
  // A new archive leaves nothing of the last one on show; the address keeps only a link
  // still waiting for its archive (see state.linkPending).
  // The page's first archive brings out the viewer's panes: laid out in a frame of their
  // own (some 50 ms here), not in one task with the listing and the first drawing. A link to
  // a file does not wait for them: its reader waits for the file, which they come with.
  if (entries.length && document.body.classList.contains('empty')) {
    document.body.classList.remove('empty');
    if (!(state.linkPending && linksToFile())) await afterNextFrame();
    if (generation !== state.generation) return { files: entries.length };
  }
  clearShown();
  // (A write of the last archive's view still waiting would put its link back while this
  // one is listed, and the link would then ask for that archive.)
  followView.cancel();
  if (!state.linkPending && location.hash)
    history.replaceState(null, '', location.pathname + location.search);
  // Listed at once, typed by name where the name says what a file is (opening it confirms
  // its content, or says otherwise); the others typed by their first bytes after. Reading a
  // File costs the browser about a millisecond however it is done, so a folder of 20,000
  // would take half a minute to type by content.
  const untyped = entries.filter(e => !e.kind);
  const words = core.kindWords();
  const named = Array.from(
    core.kindsByName(
      untyped.map(e => e.path).join(''),
      Uint32Array.from(untyped, e => e.path.length),
    ),
    n => words[n] || null,
  );
  untyped.forEach((e, i) => {
    // (No bytes, no size: a local file's size is a look-up of its own; see files.js.)
    e.kind = named[i] || core.kindOf(e.path, new Uint8Array(0), 0);
    // (An entry of a solid 7z is typed when opened: its first bytes would cost decoding its
    // block up to it, and the whole block for all of them.)
    e.pending = !named[i] && !e.confirmOnOpen;
    e.byName = Boolean(named[i]);
  });
  // (The listing is made in tasks of its own: see setEntries.)
  await nextTask();
  if (generation !== state.generation || !(await setEntries(entries, label, source, generation)))
    return { files: entries.length };
  for (const e of state.entries) if (e.containerFailure) state.files.setFailed(e, true, e.containerFailure);
  const requestsAtList = state.requests;
  lastListMs = performance.now() - t0;
  indexTimeline.listed = performance.now();
  if (!(await typeEntries(state.entries, generation))) return { files: entries.length };
  // (The core learns the kinds in a task of its own.)
  await nextTask();
  if (generation !== state.generation) return { files: entries.length };
  setKinds();
  lastIndexMs = performance.now() - t0;
  indexTimeline.typed = performance.now();
  // Unless a file was opened from the list meanwhile: the user's choice stands.
  if (state.requests === requestsAtList) openInitial(generation).catch(() => {});
  const timeline = indexTimeline;
  confirmKinds(state.entries, generation)
    .then(corrected => {
      if (corrected === null) return;
      timeline.confirmed = performance.now();
      timeline.corrected = corrected;
      // (Most sizes are known by now: the head worker sent them.)
      return fingerprintFolder(generation).then(done => {
        if (!done || generation !== state.generation) return;
        markSized();
        followView();
      });
    })
    .catch(() => {});
  return { files: entries.length };
}

// (A local folder's fingerprint comes once its sizes are known: see fingerprintFolder.)
/** @param {Iterable<File> | ArrayLike<File>} files */
export function loadFiles(files) {
  return loadEntries(entriesFromFiles(files), 'local files', { folder: null });
}
