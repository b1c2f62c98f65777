// @ts-check
// The page shell boots here: the core, the viewport and the inspector are made and wired
// together, then the archive a link or `relicview serve` names is loaded. Everything else
// lives in the modules imported below.

import { compileCore, isTrap } from '../ground/core.js';
import { FileList } from '../panes/filelist.js';
import { hostedEntries } from '../sources/files.js';
import { Inspector } from '../panes/inspector.js';
import { WorkerOpener } from '../sources/opener.js';
import { linksToFile, readHash } from '../ground/urlstate.js';
import { Viewport } from '../panes/viewport.js';
import { $, count, fileName, message, readyReject, readyResolve, narrow, state } from '../ground/state.js';
import { showEntryUsers, showError, showNote } from '../panes/infopane.js';
import { kindOfEntry } from '../sources/listing.js';
import { followView } from '../panes/address.js';
import { containerOfPath } from '../sources/containers.js';
import { fillMenus, leaveViewpoint, syncToolbar, syncWorldControls } from '../panes/controls.js';
import { drawGizmo } from '../ground/gizmo.js';
import { recoverFromTrap, startCore } from '../sources/recovery.js';
import { loadEntries, open } from '../flows/openflow.js';
import { viewKey } from '../panes/keys.js';
import { bindShell } from './shell.js';
import { bindFlatView } from '../panes/flatview.js';
import { loadingProgress } from '../ground/loading.js';
import { CompareInspector } from '../panes/compareview.js';
import { measureClick, measuring, sizeText, syncScaleBar } from '../panes/measure.js';
import { bindExportAll } from '../flows/exportall.js';
import { bindCapture } from '../panes/capture.js';
import { bindGrid, gridFilterChanged, showGrid } from '../flows/grid.js';
import { bindTextures } from '../flows/textures.js';
import {
  bindCompare,
  compareFiles,
  comparePick,
  openRowMenu,
  outlineRow,
  pickComparison,
  pickedWhileComparing,
} from '../flows/compare.js';
import { answerRequests } from '../ground/requests.js';
import { linkApplied } from '../ground/opens.js';
// Defines window.relicview.
import './api.js';

// The inspector's selection before a click picked a face: a double-click restores it.
// `undefined` while there is none to restore.
/** @type {InspectorSelection | null | undefined} */
let beforePick;

// The page's boot, in steps: the core and the view, the panes, what the view's frames and
// clicks do, the answers to the modules below, then the archive the address names.
async function boot() {
  bindShell();
  bindFlatView();
  await startViewer();
  makePanes();
  wireFrames();
  wirePicks();
  wireFailures();
  // What the modules below the flows ask of them: a file link (info pane, gallery) its file;
  // two files to compare (a link, an info-pane candidate, a menu), or the first of them.
  answerRequests({
    open: path => open(path).catch(() => {}),
    compare: (a, b, link) => compareFiles(a, b, link).catch(() => {}),
    pickForComparison: path => pickComparison(path),
    grid: () => showGrid().catch(() => {}),
  });
  readyResolve();
  state.viewport.requestFrame();
  await openFromAddress(readHash());
}

// The core compiled and started, the worker that opens big files, and the viewport on the
// canvas with its camera's ways.
async function startViewer() {
  // Compiled once: the worker that opens big files instantiates the same module. (index.html
  // started its download: www/shell/early.js.)
  state.module = await compileCore();
  // A link to a file: that file first, the viewer's other shaders later.
  await startCore(0, { shadersLater: linksToFile() });
  fillMenus();
  state.opener = new WorkerOpener(state.module, path => {
    const entry = state.byPath.get(path.toLowerCase());
    return entry ? (entry.source ? entry.source() : { read: entry.read }) : null;
  });
  const canvas = $('viewport');
  state.viewport = new Viewport(canvas, state.viewer);
  // Moving the camera leaves the viewpoint it was at.
  state.viewport.onFly = leaveViewpoint;
  canvas.addEventListener('pointermove', e => {
    if (e.buttons) leaveViewpoint();
  });
  canvas.addEventListener('wheel', leaveViewpoint);
  // W A S D fly in fly mode and at a viewpoint; in orbit mode W is the wireframe key.
  state.viewport.flyAllowed = () =>
    state.viewer.cameraMode() === 'fly' || (state.viewpoint !== null && state.viewpoint !== undefined);
  state.viewport.onKey = e => (state.current ? viewKey(e) : false);
}

// The inspector, the comparison's, the file list and the controls that sit beside them.
function makePanes() {
  state.inspector = new Inspector($('inspector'));
  state.compareInspector = new CompareInspector($('inspector'));
  // A row of the aligned trees chosen: both records outlined (a face alone where picked).
  state.compareInspector.onSelect = outlineRow;
  bindCompare();
  bindExportAll();
  bindCapture();
  bindGrid();
  bindTextures();
  // On a phone the Parts switches sit right under the view they change, not a screenful
  // below it in the info pane (which follows the inspector there).
  const placeParts = () =>
    narrow().matches ? $('view').after($('parts')) : $('info-more').after($('parts'));
  narrow().addEventListener('change', placeParts);
  placeParts();
  state.files = new FileList({
    list: $('file-list'),
    search: $('search'),
    kinds: $('kinds'),
    noMatches: $('no-matches'),
    label: kind => kindOfEntry({ kind }).label,
    onOpen: openFromList,
    onMenu: openRowMenu,
    onFilter: gridFilterChanged,
  });
}

// A file chosen in the list (`pointer`: by a click or tap, not the keyboard).
/** @param {string} path @param {{ pointer?: boolean }} [how] */
function openFromList(path, how = {}) {
  const same = (/** @type {string | null} */ p) => Boolean(p) && p?.toLowerCase() === path.toLowerCase();
  // "Compare with…" waits for this choice (the file asked about is no answer).
  if (comparePick) {
    if (same(comparePick)) return;
    // The comparison is the view's: its keys (N, X …) go there, and a phone shows it.
    const chosen = compareFiles(comparePick, path);
    if (narrow().matches) $('stage').scrollIntoView({ block: 'start' });
    chosen.then(
      () => {
        if ($('sidebar').contains(document.activeElement)) $('viewport').focus();
      },
      () => {},
    );
    return;
  }
  // Enter on the file on show (alone, or as A of a comparison) leaves the view as it is.
  if (!how.pointer && same(state.current)) return;
  open(path).catch(() => {});
  // (On a phone the list sits above the view: a tap on a file brings the view into sight.)
  if (how.pointer && narrow().matches) $('stage').scrollIntoView({ block: 'start' });
}

// Each frame: the HUD, the clock, the LOD picker, the address, the gizmo and the scale bar.
function wireFrames() {
  state.viewport.onFrame = s => {
    const lod = s.lod === null || s.lod === undefined ? '' : ` · LOD ${s.lod}`;
    const placed = s.placements ? ` · ${count(s.placements, 'placement')}` : '';
    $('hud-stats').textContent =
      `${count(s.triangles, 'triangle')} · ${count(s.drawCalls, 'draw call')}${placed}${lod}`;
    if (s.uploading) {
      const p = state.viewer.uploadProgress();
      loadingProgress(`batch ${p.done + 1} of ${p.total}`, p.done, p.total);
    }
    if (s.animating) {
      const t = state.viewer.animationTime();
      $('clock-label').textContent = state.viewer.clockLabel();
      const period = Number($('scrub').max);
      $('scrub').value = String(period > 0 ? t % period : t);
    }
    // With distance switching the LOD follows the camera: keep the picker in step.
    if (s.lod !== null && s.lod !== undefined && $('lod-select').value !== String(s.lod))
      $('lod-select').value = String(s.lod);
    if (state.current) followView();
    drawGizmo();
    syncScaleBar();
  };
}

// Tree → 3D and 3D → tree: the records chosen outline their geometry, a click picks a face.
function wirePicks() {
  state.inspector.onClear = () => {
    state.viewer.setHighlight(null);
    state.viewport.requestFrame();
    followView();
  };
  // Tree → 3D: outline the geometry of the chosen chunk.
  state.inspector.onSelect = c => {
    const lod = state.viewer.lodOf(c.index);
    if (lod !== undefined && lod !== null) {
      // Show the LOD picked in the tree.
      state.viewer.setOptions({ lod, autoLod: false });
      syncToolbar();
    }
    state.viewer.setHighlight(c.index);
    showEntryUsers(c);
    // What the record draws: the size of its box.
    const outlined = sizeText('selection');
    if (outlined && state.viewer.highlightedTriangles())
      state.inspector.detail.textContent += ` · its geometry ${outlined}`;
    state.viewport.requestFrame();
    followView();
  };
  // 3D → tree and bytes: the face under a click.
  state.viewport.onPick = (x, y) => {
    if (measuring) {
      measureClick(x, y);
      return;
    }
    // Kept for a double-click, whose first click must not leave a pick behind.
    beforePick = state.inspector.selection ? { ...state.inspector.selection } : null;
    const hit = state.viewer.pick(x, y);
    if (!hit || hit.source === null || hit.source === undefined) return;
    if (state.compare) {
      pickedWhileComparing(hit);
      return;
    }
    state.inspector.selectRange(hit.source, hit.start, hit.end, `picked triangle ${hit.triangleInSource}`);
    // Exactly the picked face's triangles are outlined, not the whole index list.
    state.viewer.setHighlightBytes(hit.source, hit.start, hit.end);
    state.viewport.requestFrame();
  };
  state.viewport.onDoubleClick = () => {
    if (beforePick !== undefined) state.inspector.restore(beforePick);
    beforePick = undefined;
    state.viewer.home();
    leaveViewpoint();
    syncWorldControls();
  };
}

// A trap outside an open recovers; a frame that cannot draw says so for the file on show.
function wireFailures() {
  // A trap outside an open (a frame, a pick, a task the core left running) recovers too;
  // a frame that cannot draw its scene says so for the file on show.
  window.addEventListener('error', e => {
    if (isTrap(e.error)) recoverFromTrap(e.error);
  });
  window.addEventListener('unhandledrejection', e => {
    if (isTrap(e.reason)) recoverFromTrap(e.reason);
  });
  state.viewport.onError = err => {
    if (isTrap(err)) recoverFromTrap(err);
    else if (state.current && !state.opening) {
      const entry = state.byPath.get(state.current.toLowerCase());
      if (entry) state.files.setFailed(entry, true, message(err));
      showError(state.current, err);
    }
  };
}

// The archive the address names: a local folder's link asks for its folder; a hosted
// listing (the link's, else `relicview serve`'s archive.json, else a published site's
// index.json) is loaded.
/** @param {import('../ground/urlstate.js').ViewLink} link */
async function openFromAddress(link) {
  offerDemo(link);
  if (link.folder && !link.archive) {
    // A link to someone's local folder: only that folder can restore it. A request, not
    // an error. A file inside a container (a zip, a 7z, a disc image) asks for that file by
    // name; the folder that holds it does as well.
    const container = containerOfPath(link.path);
    if (container && link.path) {
      const name = fileName(container);
      showNote(
        `Open ${name}, the file this link was made for`,
        `This link shows ${link.path.slice(container.length + 1)} inside ${name} (fingerprint ${link.folder}). Open ${name} or drop it here (or the folder that holds it), and the view comes back.`,
        [
          [`Open ${name}…`, () => $('files-input').click()],
          ['Open folder…', () => $('folder-input').click()],
        ],
      );
      return;
    }
    showNote(
      'Open the folder this link was made for',
      `This link shows ${link.path || 'a file'} in a local folder (fingerprint ${link.folder}). Drop that folder here or open it, and the view comes back.`,
      [['Open folder…', () => $('folder-input').click()]],
    );
    return;
  }
  // A hosted archive: the listing named by the link, else the one `relicview serve` makes,
  // else the index.json a published site carries beside the page.
  let listing = link.archive || 'archive.json';
  /** @type {unknown} */
  let failure = null;
  const read = (/** @type {string} */ url) =>
    hostedEntries(new URL(url, location.href).href).catch(err => {
      failure = err;
      return null;
    });
  let hosted = await read(listing);
  if (!hosted && !link.archive) {
    listing = 'index.json';
    failure = null;
    hosted = await read(listing);
  }
  if (hosted && state.entries.length === 0)
    await loadEntries(hosted, `hosted at ${listing}`, { archive: listing });
  else if (link.archive && !hosted)
    showError(
      'Archive not found',
      failure || new Error(`No file listing could be read from ${link.archive}`),
    );
}

// On the landing, the archive this page is served with (`relicview serve`, ./run.sh) is one
// click away: "Try the demo". A link that named something else is given up for it.
/** @param {import('../ground/urlstate.js').ViewLink} link */
async function offerDemo(link) {
  if (!link.archive && !link.folder) return;
  const listing = new URL('archive.json', location.href).href;
  const hosted = await hostedEntries(listing).catch(() => null);
  if (!hosted?.length || state.entries.length) return;
  $('landing-demo').hidden = false;
  $('demo-link').href = `${location.pathname}${location.search}#archive=archive.json`;
  $('demo-link').onclick = e => {
    e.preventDefault();
    linkApplied();
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    $('landing-demo').hidden = true;
    loadEntries(hosted, 'hosted at archive.json', { archive: 'archive.json' });
  };
}

boot().catch(err => {
  showError('relicview could not start', err);
  readyReject(err);
});
