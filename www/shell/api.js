// @ts-check
// `window.relicview`: the automation API scripts outside this repo rely on. Names and
// meanings stay; new entries may be added.

import { $, ready, state } from '../ground/state.js';
import { permalink, share } from '../panes/address.js';
import {
  axisView,
  choose,
  clock,
  frame,
  setCamera,
  setClock,
  setLayers,
  setOptions,
  stats,
} from '../panes/controls.js';
import {
  indexTimeline,
  lastIndexMs,
  lastListMs,
  lastOpen,
  loadFiles,
  open,
  setGameState,
} from '../flows/openflow.js';
import { checkArchive } from '../flows/check.js';
import { exportGlb, exportRig, saveExport, saveScreenshot } from '../ground/exporting.js';
import { describeAt, fit, flatState, setZoom } from '../panes/flatview.js';
import { compareFiles, setCompareView } from '../flows/compare.js';
import { exportAll } from '../flows/exportall.js';
import { galleryList, openTexture, showGallery, textures } from '../flows/textures.js';
import { measure, measurement, setMeasuring } from '../panes/measure.js';
import { filesWithWord, setAllZones, setPart, setZoneColours } from '../panes/parts.js';
import { hostStats, setHostTimeout } from '../sources/hosted.js';
import { containerNotes, containerProblems, decodedCacheStats } from '../sources/containers.js';
import { loadedModules } from '../ground/modules.js';
import { capture, captureProgress, stopCapture } from '../panes/capture.js';
import { gridState, setBrowse } from '../flows/grid.js';
import { thumbnailStats } from '../sources/thumbnails.js';
import { coreWarmUp, traps, warmUpMs, wasm } from '../sources/recovery.js';

// The API, typed: page-types.d.ts declares it as `window.relicview`.
export const api = {
  ready,
  loadFiles,
  open,
  // Resolves once every open and comparison asked for so far has run (the open queue is idle).
  idle: () => state.queue,
  stats,
  permalink,
  // Copies the permalink (or shows it where the clipboard is refused); → the link.
  share,
  // Saves a PNG named after the open file; → the file name.
  screenshot: saveScreenshot,
  // The archive grid: setView('grid') shows it (→ its state once its cards are laid out),
  // setView('list') goes back to the list alone; grid() → {shown, cards: [{path, paths, kind,
  // state: 'pending' | 'drawn' | 'none' | 'failed', failure, cached}], focused};
  // thumbnails() → {drawn, kept, failed, longestMs, store}.
  setView: setBrowse,
  grid: gridState,
  thumbnails: thumbnailStats,
  // Capture the view: {kind: 'still' | 'turntable' | 'timeline', scale: 1 | 2 | 4,
  // transparent, seconds, fps, format: 'webm' | 'frames'} (each may be left out) → once the
  // file is handed over, {name, kind, format, width, height, frames, fps, seconds, bytes,
  // transparent, codec, notes, stopped}; rejects saying why where it cannot be made.
  capture,
  // The capture under way {frame, frames}, or null; stop it (the frames so far are saved).
  captureProgress,
  stopCapture,
  // Downloads the scene on show as <file>.glb; → the file name.
  export: saveExport,
  // The archive's textures: [{path, texture (a decoded texture's place in its file's scene,
  // or null for a picture file), width, height, format, materials, users: {materials,
  // files}}]; show the texture gallery (→ how many textures); open one at full size.
  textures,
  showTextureGallery: showGallery,
  openTexture: async (/** @type {number} */ i) => {
    await textures();
    const card = galleryList?.cards[i];
    if (!card) throw new Error(`no texture ${i}`);
    return openTexture(card);
  },
  // Every file of the archive out in one .zip (as `relicview export --all` writes them),
  // downloaded → {files, bytes, failed, name} once the download is handed over.
  exportAll,
  // The Parts view of the file on show: {zones: [{name, layer, patches, triangles, hidden,
  // colour}], parts: [{name, record, zones, words, triangles, placedIn}], partsTotal,
  // words: {word: parts}} (docs/formats/biz2.md, "SPECIAL words").
  parts: () => state.viewer.parts(),
  // Destroy (hide, as the game does) or restore a damage zone: setPart('dz_larm', {hidden:
  // true}) → the Parts view once drawn; every zone at once; each zone in its own colour.
  setPart,
  setAllZones,
  setZoneColours,
  // The archive's files whose models carry a word ('dz_searchlight', 'BLINK') → [path].
  filesWithWord,
  // Measure between two points, each a canvas pixel [x, y] (the surface there, a corner
  // when that near) or a world point [x, y, z] → {points, distance, text}, once drawn;
  // the measurement on show (or null); measure mode (clicks take points) on or off.
  measure,
  measurement,
  setMeasuring,
  // {scene: [x, y, z], selection: [x, y, z] or null, gridStep}: the sizes of the boxes around
  // what is on show and around the outlined selection, in file units; the grid's step.
  sizes: () => state.viewer.sizes(),
  // The canvas pixel [x, y] a world point is drawn at (undefined behind the eye).
  project: (/** @type {[number, number, number]} */ [x, y, z]) => state.viewer.project(x, y, z) ?? null,
  // Which of the wasm modules loaded when first used have been loaded: {containers, tools}.
  modules: loadedModules,
  // The scene on show as binary glTF bytes (a Promise of a Uint8Array), the LOD on show as
  // its default scene (the tools module is loaded at the first export); skeletons as `rig`
  // says ('skin' or 'nodes'; by default the display menu's choice, a skin).
  exportGlb: (allLods = false, rig = exportRig()) => exportGlb(allLods, rig),
  // {wireframe, cullBack, autoLod, lod} → frame stats after the change is drawn.
  setOptions,
  setLod: (/** @type {number} */ lod) => setOptions({ lod, autoLod: false }),
  // Reads the framebuffer back: {width, height, background, nonBackground}.
  pixelStats: () => state.viewer.pixelStats(),
  // Draws one frame and waits until it is rasterised (one pixel read back); → ms.
  rasterMs: () => {
    const canvas = $('viewport');
    const gl = canvas.getContext('webgl2');
    const t = performance.now();
    state.viewer.render(t);
    gl?.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    return performance.now() - t;
  },
  // Two files compared record by record and shown side by side: → what `relicview diff
  // --json` prints for them, once both are shown.
  compare: (/** @type {string} */ a, /** @type {string} */ b) => compareFiles(a, b),
  // The comparison on show: {a, b, mode, split, hasDifference, inspector: {rows, selected,
  // onlyDifferences, selection}}, or null.
  comparison: () => {
    if (!state.compare) return null;
    const view = state.viewer.compareView();
    return {
      a: state.compare.a,
      b: state.compare.b,
      mode: view?.mode,
      split: view?.split,
      hasDifference: state.compare.hasDifference,
      inspector: state.compareInspector.state(),
    };
  },
  // {mode: 'a'|'b'|'overlay'|'split'|'difference', split: 0–1} → the view, once drawn.
  setCompareView,
  // Drive the aligned trees: select row i, the next / previous difference (→ its row),
  // show only the differences, select the row holding byte o of side 'a' or 'b'.
  compareInspector: {
    select: (/** @type {number} */ i) => state.compareInspector.select(i),
    next: () => state.compareInspector.step(1),
    previous: () => state.compareInspector.step(-1),
    setOnlyDifferences: (/** @type {boolean} */ on) => state.compareInspector.setOnlyDifferences(on),
    selectByte: (/** @type {'a' | 'b'} */ side, /** @type {number} */ o) =>
      state.compareInspector.selectByte(side, o),
  },
  // Triangles outlined on one side of a comparison: 'a', 'b' or 'difference'.
  highlightedTrianglesOn: (/** @type {import('../../pkg/relicview.js').Side} */ side) =>
    state.viewer.highlightedTrianglesOn(side),
  // Where the last open() spent its time: {readMs, parseMs, inspectMs, assetsMs, buildMs, showMs, uploadMs, uploadBytes, drawMs, rasterMs, frameMs, totalMs}.
  lastOpen: () => lastOpen ?? null,
  // The page's share of compiling the model shaders at start (ms); the GPU's runs on after.
  warmUpMs: () => warmUpMs ?? null,
  // The core's idle warm-up so far: {rounds, ms, longestMs} (rounds of a small built-in world and model
  // opened from memory while nothing else runs, so that the first real open runs fully compiled code).
  coreWarmUp: () => ({ ...coreWarmUp }),
  // How long the last folder took to index (listed, then typed by content), in ms.
  lastIndexMs: () => lastIndexMs ?? null,
  // How long the last folder took to be listed by name (before its files were typed), in ms.
  lastListMs: () => lastListMs ?? null,
  // When the last folder's indexing started, was listed, was typed (performance.now() ms).
  indexTimeline: () => indexTimeline ?? null,
  // {position, target, fov} of the camera.
  camera: () => state.viewer.camera(),
  // The animation clock in seconds (texture scrolling follows it).
  animationTime: () => state.viewer.animationTime(),
  // What is under canvas pixel (x, y): {primitive, patch, source, triangleInSource, start, end} or null.
  pick: (/** @type {number} */ x, /** @type {number} */ y) => state.viewer.pick(x, y),
  // The file list: {files, folders, pending, failed, shown, shownFolders} (shown: files the
  // search, kind filter and folded folders leave in the list).
  listing: () => state.files.counts(),
  // One listed file: {path, size, kind, pending, failed, failure (why it failed), damaged}, or null.
  entry: (/** @type {string} */ path) => {
    const e = state.byPath.get(String(path).toLowerCase());
    return e
      ? {
          path: e.path,
          size: e.size,
          kind: e.kind || 'unknown',
          pending: Boolean(e.pending),
          failed: Boolean(e.failed),
          failure: e.failure ?? null,
          damaged: Boolean(e.damaged),
          writtenAs: e.writtenAs ?? null,
        }
      : null;
  },
  // The paths the list shows, in order (at most `limit`, default 1,000).
  shownFiles: (limit = 1000) => state.files.visibleFiles().slice(0, limit),
  // The chunk tree and hex view: selectChunk(i), selectByte(offset), selection().
  inspector: {
    selectChunk: (/** @type {number} */ i) => state.inspector.selectChunk(i),
    selectByte: (/** @type {number} */ offset) => state.inspector.selectByte(offset),
    selection: () => state.inspector.selection,
    view: () => state.inspector.view,
    // Which byte view the hex view shows (0: what the rows refer to), and switching it.
    byteView: () => state.inspector.shownView,
    setByteView: (/** @type {number} */ i) => state.inspector.setByteView(i),
  },
  // Viewpoints of the scene on show (a world's dropzones): [{name, position, forward, up}].
  viewpoints: () => state.viewer.viewpoints(),
  // 'orbit', 'fly', 'game' (through the file's own camera: an FF7 field's, its background
  // behind), or a viewpoint's index (the eye above it, looking along it) → camera.
  setCamera,
  cameraMode: () => state.viewer.cameraMode(),
  // The file's own camera, or null: {name, notes, frame, projection, background}.
  gameCamera: () => state.viewer.gameCamera(),
  // The game's variables set by hand ('2:0=7,3:1=1'; '' every variable 0), and setting them
  // (an FF7 field's init places its models by them): the file on show opens again with
  // them → its open (null where nothing changed). Rejects text that does not read.
  gameState: () => state.session.gameState(),
  setGameState: async (/** @type {string} */ text) => setGameState(text),
  // Look along an axis: 'front', 'side', 'top' → camera.
  axisView,
  // The scene's choice {name, options, selected} (a file's models and animations), and choosing.
  choice: () => state.viewer.choice(),
  choose,
  // The scene's layers [{name, shown, nodes, chosen}], and hiding/showing them by name.
  layers: () => state.viewer.layers(),
  setLayers,
  // The animation clock {time, playing, speed}; setClock({time, playing, speed}).
  clock,
  setClock,
  // Whether the scene on show has bones to overlay (setOptions({skeleton})); the length of one
  // animation frame in seconds where its clips run in frames, else null.
  hasSkeleton: () => Boolean(state.current && state.viewer.hasSkeleton()),
  hasBlink: () => Boolean(state.current && state.viewer.hasBlink()),
  frameTime: () => (state.current ? (state.viewer.frameTime() ?? null) : null),
  // Where a node (by name) is in the world at the clock, and a material's UV offset.
  nodePosition: (/** @type {string} */ name) => state.viewer.nodePosition(name) ?? null,
  uvOffset: (/** @type {string} */ name) => state.viewer.uvOffset(name) ?? null,
  // {done, total, failed} batches of the scene on show uploaded, and the first the GPU refused.
  uploadProgress: () => state.viewer.uploadProgress(),
  // Files from this size (bytes) on open in a worker; setWorkerThreshold(Infinity) keeps
  // every open on the page's thread.
  workerThreshold: () => state.workerThreshold,
  setWorkerThreshold: (/** @type {number} */ bytes) => {
    state.workerThreshold = Number(bytes);
  },
  // {started, abandoned, busy}: workers started so far, opens ended with their worker
  // because another file was asked for, and whether one is opening a file now.
  workers: () => ({
    started: state.opener?.started ?? 0,
    abandoned: state.opener?.abandoned ?? 0,
    busy: Boolean(state.opener?.job),
  }),
  // Bytes of the wasm core's linear memory (it only grows; the peak of everything opened).
  memoryBytes: () => wasm?.memory.buffer.byteLength ?? 0,
  // What listing the dropped containers (or a hosted index) found wrong without stopping: [message].
  containerProblems: () => containerProblems.slice(),
  // What listing said of the dropped containers that is not wrong (a self-extracting program
  // before the archive): [message].
  containerNotes: () => containerNotes.slice(),
  // What the store of decoded 7z entries in this browser's storage has done:
  // {hits, bytesRead, stored, bytesWritten, refused (why it is off, or null)}; null before a container.
  decodedCache: decodedCacheStats,
  // What the page has fetched from static hosts by range or whole: {requests, bytes, retries, inFlight, peak}.
  hostStats,
  // How long a host may keep a request waiting (ms; 30,000 unless set).
  setHostTimeout,
  // The traps the core recovered from, oldest first: [{path, message}].
  traps: () => traps.slice(),
  // Parse every file (as census does) and report the failing ones → {checked, failed, damaged}.
  checkArchive,
  // Triangles outlined in the view (a picked face, a record chosen in the tree) in the LOD on show.
  highlightedTriangles: () => state.viewer.highlightedTriangles(),
  // Frame the selection (or, with none, the model) → camera.
  frame: async () => {
    frame();
    await state.viewport.requestFrame();
    return state.viewer.camera();
  },
  // The flat view of a file that is not 3D: {mode: 'picture', zoom, width, height, regions}
  // or {mode: 'gallery', cards}; null while the 3D view is up.
  flatView: () => flatState(),
  // The picture's zoom (screen pixels per texel) about the view's centre → the zoom; fit it.
  setPictureZoom: (/** @type {number} */ zoom) => setZoom(Number(zoom)),
  fitPicture: () => {
    fit();
    return flatState();
  },
  // The texel under point (x, y) of the picture view (CSS pixels): {x, y, rgba, region} or null.
  pictureAt: (/** @type {number} */ x, /** @type {number} */ y) => describeAt(x, y),
  // The frame as {width, height, data: RGBA bytes, top row first}.
  readPixels: () => ({
    width: $('viewport').width,
    height: $('viewport').height,
    data: state.viewer.readPixels(),
  }),
};

window.relicview = api;
