// @ts-check
// What leaves the page as a file: the glTF export and the screenshot.

import { $, fileName, state } from './state.js';
import { withTools } from './modules.js';

// Whether exports hold every LOD (and model) as glTF scenes of their own, not only what
// is on show: the checkbox in the display menu.
export function exportsAllLods() {
  return $('export-lods').checked;
}

// How exports write a skeleton (the core's rig words): the menu beside it.
/** @returns {import('../../pkg/relicview.js').Rig} */
export function exportRig() {
  return /** @type {import('../../pkg/relicview.js').Rig} */ ($('export-rig').value || 'skin');
}

// The scene on show as binary glTF bytes: the LOD on show as its default scene, or with
// `allLods` every LOD as a glTF scene of its own; skeletons as `rig` says. The core hands the
// scene over and says what is on show; the tools module (loaded at the first export) writes
// the .glb.
/** @param {boolean} allLods @param {import('../../pkg/relicview.js').Rig} rig @returns {Promise<Uint8Array>} */
export async function exportGlb(allLods, rig) {
  const scene = state.viewer.sceneBytes();
  if (!scene) throw new Error('nothing to export: no scene is on show');
  const options = state.viewer.glbOptions(allLods, rig);
  return withTools(({ glue }) => glue.exportGlb(scene, options));
}

// The name of the file on show, without its folder and extension ("relicview" while none is
// shown): what its downloads are called.
function shownName() {
  return fileName(state.current || 'relicview').replace(/\.[^.]*$/, '') || 'relicview';
}

// The scene on show as a .glb named after the file, downloaded.
export async function saveExport() {
  const glb = await exportGlb(exportsAllLods(), exportRig());
  const name = `${shownName()}.glb`;
  // (The core's bytes are a copy, on an ArrayBuffer of their own, never a shared one.)
  download(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (glb)], { type: 'model/gltf-binary' }), name);
  return name;
}

/** @param {Blob} blob @param {string} name */
export function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

// The view as a PNG Blob: drawn and captured in one task, so the drawing buffer is intact.
function screenshotBlob() {
  const canvas = $('viewport');
  state.viewer.render(performance.now());
  return new Promise((resolve, reject) =>
    canvas.toBlob(b => (b ? resolve(b) : reject(new Error('the canvas gave no image'))), 'image/png'),
  );
}

export async function saveScreenshot() {
  const blob = await screenshotBlob();
  download(blob, `${shownName()}.png`);
  return `${shownName()}.png`;
}
