// @ts-check
// What leaves the page as a file: the glTF export and the screenshot.

import { $, state } from './state.js';

// Whether exports hold every LOD (and model) as glTF scenes of their own, not only what
// is on show: the checkbox in the display menu.
export function exportsAllLods() {
  return $('export-lods').checked;
}

// The scene on show as a .glb named after the file, downloaded.
export function saveExport() {
  const glb = state.viewer.exportGlb(exportsAllLods());
  const name = `${(state.current || 'relicview').split('/').pop().replace(/\.[^.]*$/, '') || 'relicview'}.glb`;
  // (The core's bytes are a copy, on an ArrayBuffer of their own, never a shared one.)
  download(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (glb)], { type: 'model/gltf-binary' }), name);
  return name;
}

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
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas gave no image'))), 'image/png'));
}

export async function saveScreenshot() {
  const blob = await screenshotBlob();
  const base = (state.current || 'relicview').split('/').pop().replace(/\.[^.]*$/, '') || 'relicview';
  download(blob, `${base}.png`);
  return `${base}.png`;
}
