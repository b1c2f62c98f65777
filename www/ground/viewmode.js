// @ts-check
// Which view the main area shows, and so which controls are on screen: each view shows
// only its own (style.css reads the body's data-view). This module owns that word; a view
// says it is up by calling setView.
//
//   none      nothing open (landing, a new archive)
//   scene     a 3D scene: the toolbar's 3D controls, the HUD, the gizmo, the timeline
//   picture   an image or a texture sheet, flat
//   gallery   a material library's cards
//   text      a text file's lines in the main view
//   bytes     a file relicview does not read: its bytes (the hex view) fill the main view
//   failed    a file that could not be opened: why, over the view; its bytes below
//   textures  the archive's texture gallery (no file is open)
//   texture   one of its textures at full size
//   grid      the archive grid: its files as pictures (no file is open)
//   compare   two files compared
export const VIEWS = [
  'none',
  'scene',
  'picture',
  'gallery',
  'text',
  'bytes',
  'failed',
  'textures',
  'texture',
  'grid',
  'compare',
];

/** @param {string} name */
export function setView(name) {
  if (!VIEWS.includes(name)) throw new Error(`no view called ${name}`);
  document.body.dataset.view = name;
}

export function currentView() {
  return document.body.dataset.view || 'none';
}

// The view a file opened alone gets, from what it can show.
/** @param {import('../../pkg/relicview.js').FileCapabilities} can */
export function viewOf(can) {
  // (A picture has a scene too, its quad, for the models' exports: shown flat.)
  if (can.gallery) return 'gallery';
  if (can.image) return 'picture';
  if (can.scene) return 'scene';
  if (can.text) return 'text';
  return 'bytes';
}
