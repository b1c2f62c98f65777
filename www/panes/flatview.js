// @ts-check
// The main view of a file that is not drawn in 3D: a picture (fitted or at its size, zoomed
// to the texel, a checkerboard under alpha, the texel and its value under the pointer, a
// sheet's images labelled), or a grid of cards (a library's materials). It lies over the
// 3D canvas, which keeps its context. Everything from the file reaches the page as text.

import { $, count, fileName, state } from '../ground/state.js';
import { download } from '../ground/exporting.js';
import { textView } from '../ground/textview.js';
import { requestOpen } from '../ground/requests.js';

const MAX_ZOOM = 64;
const MIN_ZOOM = 1 / 16;
// Checker squares under the picture, in CSS pixels (as the 3D view's checker background).
const CHECKER = 8;

/**
 * @typedef {import('../../pkg/relicview.js').ImageRegion} ImageRegion
 * @typedef {{ columns: number[], rows: [number, string][], width: number, height: number }} SheetGrid
 * @typedef {{ x: number, y: number, rgba: number[], region: ImageRegion | null, source?: string }} Texel
 * @typedef {object} PictureShown
 * @property {'picture'} mode
 * @property {import('../../pkg/relicview.js').Picture} image
 * @property {ImageRegion[]} regions
 * @property {SheetGrid | null} grid
 * @property {HTMLCanvasElement} texels
 * @property {number} zoom
 * @property {number} x
 * @property {number} y
 * @property {ImageRegion | null} hover
 * @property {((x: number, y: number) => string) | null} [describe]
 * @property {string} [name]
 * @typedef {{ mode: 'text', view: import('../ground/textview.js').TextViewElement, lines: number } | { mode: 'textures' } | { mode: 'grid' } | { mode: 'gallery', cards: number } | PictureShown} FlatShown
 */

// What the flat view shows: {mode: 'picture'|'gallery', …} or null when the 3D view is up.
/** @type {FlatShown | null} */
let shown = null;

// The picture on show, or null (the flat view shows something else, or nothing).
/** @returns {PictureShown | null} */
function pictureShown() {
  return shown?.mode === 'picture' ? shown : null;
}

// Show `file`'s own view if it is not 3D; → whether it did.
/** @param {ShownFile} file */
export function showFlat(file) {
  const can = file.capabilities();
  hideFlat();
  if (can.gallery) showGallery(file);
  else if (can.image) {
    const image = file.image();
    if (!image) return false;
    showPicture(image, file.imageRegions()).describe = planesReadout(file.imagePlanes(), image.width);
  } else if (can.text && !can.scene) showText(file.text() ?? '');
  else return false;
  return true;
}

// ---- text ----

// A text file's lines in the main view, with a find box (Enter: the next line holding the
// words, Shift+Enter: the previous).
/** @param {string} text */
function showText(text) {
  const view = textView(text);
  $('text-body').replaceChildren(view);
  $('text-find').value = '';
  $('text-find-status').textContent = '';
  shown = { mode: 'text', view, lines: view.lineCount };
  $('text-pane').hidden = false;
  reveal();
}

/** @param {number} step */
function findInText(step) {
  if (shown?.mode !== 'text') return null;
  const found = shown.view.find($('text-find').value, step);
  $('text-find-status').textContent = !found
    ? ''
    : found.matches
      ? `line ${found.line} · ${found.match} of ${found.matches}`
      : 'not found';
  return found;
}

export function hideFlat() {
  shown = null;
  $('flat-view').hidden = true;
  $('picture-pane').hidden = true;
  $('gallery').replaceChildren();
  $('gallery').hidden = true;
  $('texture-gallery').hidden = true;
  // (The grid's cards stay: it comes back where it was.)
  $('archive-grid').hidden = true;
  $('text-pane').hidden = true;
  $('text-body').replaceChildren();
  $('picture-back').hidden = true;
  $('picture-png').hidden = true;
}

// What a picture's texels are stored as (`planes`: [{name, hex, values}], one number a
// texel), as `describe(x, y)` for the read-out; null when there is nothing but the colours.
/** @param {ReturnType<import('../../pkg/relicview.js').OpenedFile['imagePlanes']>} planes @param {number} width @returns {((x: number, y: number) => string) | null} */
export function planesReadout(planes, width) {
  if (!planes.length) return null;
  const word = (/** @type {{ hex: boolean }} */ p, /** @type {number} */ v) =>
    p.hex ? `0x${v.toString(16).toUpperCase().padStart(4, '0')}` : String(v);
  return (/** @type {number} */ x, /** @type {number} */ y) =>
    planes.map(p => `${p.name} ${word(p, p.values[y * width + x] ?? 0)}`).join(' · ');
}

// A texture at full size (from the texture gallery): `describe(x, y)` adds what the format
// says of a texel, `back` returns to the gallery, `name` names its PNG download.
/**
 * @param {import('../../pkg/relicview.js').Picture} image
 * @param {{ describe?: ((x: number, y: number) => string) | null, back?: (() => void) | null, name?: string }} [how]
 */
export function showTexture(image, { describe = null, back = null, name = 'texture' } = {}) {
  hideFlat();
  const picture = showPicture(image, []);
  picture.describe = describe;
  picture.name = name;
  $('picture-back').hidden = !back;
  $('picture-back').onclick = back;
  $('picture-png').hidden = false;
}

// The list of textures (texture gallery) in the flat view: its grid shown, the rest hidden.
export function showTextureGrid() {
  hideFlat();
  shown = { mode: 'textures' };
  $('texture-gallery').hidden = false;
  reveal();
}

// The archive grid (grid.js) in the flat view: its cards shown, the rest hidden.
export function showGrid() {
  hideFlat();
  shown = { mode: 'grid' };
  $('archive-grid').hidden = false;
  reveal();
}

// The picture on show as a PNG, downloaded under `name`.png.
function downloadPicture() {
  const shown = pictureShown();
  if (!shown) return;
  const name = `${shown.name || 'picture'}.png`;
  shown.texels.toBlob(blob => {
    if (blob) download(blob, name);
  }, 'image/png');
}

// What the flat view shows, for scripts: {mode, zoom, width, height, regions, cards}.
export function flatState() {
  if (!shown) return null;
  if (shown.mode === 'gallery') return { mode: 'gallery', cards: shown.cards };
  if (shown.mode === 'textures' || shown.mode === 'grid') return { mode: shown.mode };
  if (shown.mode === 'text') return { mode: 'text', lines: shown.lines };
  return {
    mode: 'picture',
    zoom: shown.zoom,
    width: shown.image.width,
    height: shown.image.height,
    regions: shown.regions.length,
  };
}

function reveal() {
  $('flat-view').hidden = false;
}

// ---- the picture ----

/**
 * @param {import('../../pkg/relicview.js').Picture} image @param {ImageRegion[]} regions
 * @returns {PictureShown} what is on show now
 */
function showPicture(image, regions) {
  const texels = document.createElement('canvas');
  texels.width = image.width;
  texels.height = image.height;
  context2d(texels).putImageData(
    new ImageData(new Uint8ClampedArray(image.rgba), image.width, image.height),
    0,
    0,
  );
  /** @type {PictureShown} */
  const picture = {
    mode: 'picture',
    image,
    regions,
    grid: gridOf(regions),
    texels,
    zoom: 1,
    x: 0,
    y: 0,
    hover: null,
  };
  shown = picture;
  $('picture-pane').hidden = false;
  reveal();
  fit();
  return picture;
}

// A canvas's 2D context (a canvas made here always gives one).
/** @param {HTMLCanvasElement} canvas */
export function context2d(canvas) {
  const g = canvas.getContext('2d');
  if (!g) throw new Error('the browser gave no 2D canvas context');
  return g;
}

// A sheet whose images lie in rows and columns of one size (FIELD.TDB): its rows' first
// numbers and its columns' offsets are labelled beside it, so that no label covers an
// image. → {columns: [x], rows: [[y, label]], width, height} or null.
const LABEL_MARGIN = { x: 34, y: 16 }; // CSS px kept free beside a labelled sheet

/** @param {ImageRegion[]} regions @returns {SheetGrid | null} */
function gridOf(regions) {
  if (!regions.length) return null;
  const [{ width: w, height: h }] = /** @type {[ImageRegion, ...ImageRegion[]]} */ (regions);
  if (regions.some(r => r.width !== w || r.height !== h)) return null;
  const columns = [...new Set(regions.map(r => r.x))].sort((a, b) => a - b);
  /** @type {Map<number, ImageRegion>} */
  const firsts = new Map();
  for (const r of regions) if ((firsts.get(r.y)?.x ?? Infinity) > r.x) firsts.set(r.y, r);
  const rows = [...firsts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([y, r]) => /** @type {[number, string]} */ ([y, r.number === undefined ? '' : String(r.number)]));
  return { columns, rows, width: w, height: h };
}

function viewSize() {
  const canvas = $('picture-canvas');
  return { w: canvas.clientWidth || 1, h: canvas.clientHeight || 1 };
}

// Fit the picture in the view, centred: a large one shrunk, a small one enlarged by whole
// steps (texels stay square blocks of one size, drawn nearest).
export function fit() {
  const shown = pictureShown();
  if (!shown) return;
  const { w, h } = viewSize();
  // A labelled sheet keeps room for its labels on every side (it stays centred).
  const [mx, my] = shown.grid ? [LABEL_MARGIN.x, LABEL_MARGIN.y] : [0, 0];
  const fitted = Math.min(
    Math.max(1, w - 2 * mx) / shown.image.width,
    Math.max(1, h - 2 * my) / shown.image.height,
  );
  const zoom = fitted >= 1 ? Math.floor(fitted) : fitted;
  setZoom(zoom, { x: w / 2, y: h / 2 }, true);
}

// Zoom to `zoom` screen pixels per texel about the point `at` of the view (CSS pixels).
/** @param {number} zoom @param {{ x: number, y: number } | null} [at] @param {boolean} [centre] */
export function setZoom(zoom, at = null, centre = false) {
  const shown = pictureShown();
  if (!shown) return null;
  const { w, h } = viewSize();
  const z = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
  const p = at || { x: w / 2, y: h / 2 };
  if (centre) {
    shown.x = (w - shown.image.width * z) / 2;
    shown.y = (h - shown.image.height * z) / 2;
  } else {
    // The texel under `at` stays under it.
    shown.x = p.x - ((p.x - shown.x) / shown.zoom) * z;
    shown.y = p.y - ((p.y - shown.y) / shown.zoom) * z;
  }
  shown.zoom = z;
  drawPicture();
  return z;
}

function drawPicture() {
  const shown = pictureShown();
  if (!shown) return;
  const canvas = $('picture-canvas');
  const ratio = window.devicePixelRatio || 1;
  const { w, h } = viewSize();
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
  }
  const g = context2d(canvas);
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, w, h);
  const { x, y, zoom, image } = shown;
  const [iw, ih] = [image.width * zoom, image.height * zoom];
  // The checkerboard under the picture only: what is transparent shows as such.
  g.save();
  g.beginPath();
  g.rect(x, y, iw, ih);
  g.clip();
  for (let cy = Math.floor(Math.max(0, -y) / CHECKER); cy * CHECKER < Math.min(ih, h - y); cy++) {
    for (let cx = Math.floor(Math.max(0, -x) / CHECKER); cx * CHECKER < Math.min(iw, w - x); cx++) {
      g.fillStyle = (cx + cy) % 2 ? '#666' : '#999';
      g.fillRect(x + cx * CHECKER, y + cy * CHECKER, CHECKER, CHECKER);
    }
  }
  g.restore();
  g.imageSmoothingEnabled = zoom < 1;
  g.drawImage(shown.texels, x, y, iw, ih);
  // A sheet's rows and columns labelled beside it (where there is room), the image under
  // the pointer outlined.
  if (shown.grid && shown.grid.height * zoom >= 12) {
    g.font = '11px ui-monospace, monospace';
    g.fillStyle = '#a3a9b4';
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    for (const [ry, label] of shown.grid.rows)
      g.fillText(label, x - 5, y + (ry + shown.grid.height / 2) * zoom);
    if (shown.grid.width * zoom >= 24) {
      g.textAlign = 'center';
      g.textBaseline = 'bottom';
      const grid = shown.grid;
      grid.columns.forEach((cx, k) => g.fillText(`+${k}`, x + (cx + grid.width / 2) * zoom, y - 3));
    }
    g.textAlign = 'start';
  }
  for (const r of shown.regions) {
    const [rx, ry, rw, rh] = [x + r.x * zoom, y + r.y * zoom, r.width * zoom, r.height * zoom];
    if (rx > w || ry > h || rx + rw < 0 || ry + rh < 0) continue;
    if (r === shown.hover) {
      g.strokeStyle = '#ffc828';
      g.lineWidth = 2;
      g.strokeRect(rx + 1, ry + 1, rw - 2, rh - 2);
    }
  }
  $('picture-zoom').textContent = `${zoom >= 1 ? Math.round(zoom * 100) : (zoom * 100).toFixed(1)} %`;
}

// The texel under view point (px, py) (CSS pixels), or null off the picture.
/** @param {PictureShown} shown @param {number} px @param {number} py @returns {Texel | null} */
function texelAt(shown, px, py) {
  const tx = Math.floor((px - shown.x) / shown.zoom);
  const ty = Math.floor((py - shown.y) / shown.zoom);
  if (tx < 0 || ty < 0 || tx >= shown.image.width || ty >= shown.image.height) return null;
  const at = (ty * shown.image.width + tx) * 4;
  const [r = 0, g = 0, b = 0, a = 0] = shown.image.rgba.slice(at, at + 4);
  const region =
    shown.regions.find(q => tx >= q.x && ty >= q.y && tx < q.x + q.width && ty < q.y + q.height) || null;
  return { x: tx, y: ty, rgba: [r, g, b, a], region };
}

// What the readout says of view point (px, py); → the texel (for scripts) or null.
/** @param {number} px @param {number} py */
export function describeAt(px, py) {
  const shown = pictureShown();
  if (!shown) return null;
  const t = texelAt(shown, px, py);
  const hex = (/** @type {number} */ v) => v.toString(16).padStart(2, '0');
  const source = t && shown.describe ? shown.describe(t.x, t.y) : null;
  if (t && source) t.source = source;
  $('picture-readout').textContent = t
    ? `x ${t.x}, y ${t.y} · #${t.rgba.slice(0, 3).map(hex).join('')} · alpha ${t.rgba[3]}${t.region ? ` · ${t.region.label}` : ''}${source ? ` · ${source}` : ''}`
    : `${shown.image.width} × ${shown.image.height}`;
  const hover = t ? t.region : null;
  if (hover !== shown.hover) {
    shown.hover = hover;
    drawPicture();
  }
  return t;
}

export function bindFlatView() {
  const canvas = $('picture-canvas');
  /** @type {{ x: number, y: number, x0: number, y0: number, moved: boolean } | null} */
  let drag = null;
  const local = (/** @type {MouseEvent} */ e) => {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  canvas.addEventListener(
    'wheel',
    e => {
      const shown = pictureShown();
      if (!shown) return;
      e.preventDefault();
      setZoom(shown.zoom * (e.deltaY < 0 ? 2 : 0.5), local(e));
    },
    { passive: false },
  );
  canvas.addEventListener('pointerdown', e => {
    const shown = pictureShown();
    if (!shown) return;
    drag = { ...local(e), x0: shown.x, y0: shown.y, moved: false };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', e => {
    const shown = pictureShown();
    if (!shown) return;
    const p = local(e);
    if (drag) {
      drag.moved ||= Math.hypot(p.x - drag.x, p.y - drag.y) > 3;
      shown.x = drag.x0 + p.x - drag.x;
      shown.y = drag.y0 + p.y - drag.y;
      drawPicture();
    }
    describeAt(p.x, p.y);
  });
  canvas.addEventListener('pointerup', e => {
    const click = drag && !drag.moved;
    drag = null;
    // A click on a sheet's image selects its bytes in the inspector.
    const picture = pictureShown();
    const t = click && picture ? texelAt(picture, local(e).x, local(e).y) : null;
    if (t?.region?.bytes) state.inspector.selectBytes(t.region.bytes);
  });
  canvas.addEventListener('keydown', e => {
    const shown = pictureShown();
    if (!shown) return;
    const step = /** @type {Record<string, number>} */ ({ '+': 2, '=': 2, '-': 0.5 })[e.key];
    if (step) setZoom(shown.zoom * step);
    else if (e.key === '0' || e.key === 'f') fit();
    else if (e.key === '1') setZoom(1);
    else return;
    e.preventDefault();
  });
  $('picture-fit').addEventListener('click', () => fit());
  $('picture-native').addEventListener('click', () => setZoom(1));
  $('picture-in').addEventListener('click', () => setZoom((pictureShown()?.zoom ?? 1) * 2));
  $('picture-out').addEventListener('click', () => setZoom((pictureShown()?.zoom ?? 1) / 2));
  $('picture-png').addEventListener('click', () => downloadPicture());
  $('text-find').addEventListener('input', () => findInText(0));
  $('text-find').addEventListener('keydown', e => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    findInText(e.shiftKey ? -1 : 1);
  });
  new ResizeObserver(() => drawPicture()).observe(canvas);
}

// ---- the cards ----

/** @param {ShownFile} file */
function showGallery(file) {
  const cards = file.gallery() ?? [];
  const grid = $('gallery');
  grid.replaceChildren(...cards.map(card));
  shown = { mode: 'gallery', cards: cards.length };
  grid.hidden = false;
  reveal();
  // Which models take each material: the archive's reference graph, read once.
  if (state.session && file.exports().length) {
    const path = file.path;
    state.session
      .usedBy(path, file.exports())
      .then(rows => {
        if (state.current !== path) return;
        for (const row of rows) {
          const name = row.label.replace(/^used: /, '');
          const slot = [...grid.querySelectorAll('.card')].find(
            c => c instanceof HTMLElement && c.dataset.name?.toLowerCase() === name.toLowerCase(),
          );
          const users = slot?.querySelector('.card-users');
          if (users instanceof HTMLElement) fillUsers(users, row);
        }
      })
      .catch(() => {});
  }
}

/** @param {import('../../pkg/relicview.js').PicturedMaterialCard} c */
function card(c) {
  const li = document.createElement('li');
  li.className = 'card';
  li.dataset.name = c.name;
  const picture = document.createElement('canvas');
  picture.className = 'card-picture';
  picture.setAttribute('aria-hidden', 'true');
  if (c.thumbnail) {
    picture.width = c.thumbnail.width;
    picture.height = c.thumbnail.height;
    context2d(picture).putImageData(
      new ImageData(new Uint8ClampedArray(c.thumbnail.rgba), c.thumbnail.width, c.thumbnail.height),
      0,
      0,
    );
  } else {
    picture.width = 1;
    picture.height = 1;
    picture.classList.add('none');
  }
  if (c.color) picture.style.backgroundColor = c.color;
  const title = document.createElement('button');
  title.type = 'button';
  title.className = 'card-name';
  title.title = 'Select its record in the inspector';
  const swatch = document.createElement('span');
  swatch.className = 'swatch';
  if (c.color) swatch.style.background = c.color;
  else swatch.classList.add('none');
  title.append(swatch, document.createTextNode(c.name));
  const record = c.record;
  if (record !== undefined && record !== null)
    title.addEventListener('click', () => state.inspector.selectChunk(record));
  const texture = document.createElement('p');
  texture.className = 'card-texture';
  if (c.textureFile) {
    const a = fileLink(c.textureFile, `${c.texture} · ${fileName(c.textureFile)}`);
    texture.append(a);
  } else if (c.texture) {
    texture.textContent = `${c.texture}: ${c.problem || 'not found'}`;
    texture.classList.add('bad');
  } else texture.textContent = 'no texture';
  const users = document.createElement('p');
  users.className = 'card-users muted';
  users.textContent = 'used by …';
  li.append(picture, title, texture, users);
  return li;
}

/** @param {string} path @param {string} text */
function fileLink(path, text) {
  const a = document.createElement('a');
  a.href = '#';
  a.textContent = text;
  a.title = `Open ${path}`;
  a.addEventListener('click', e => {
    e.preventDefault();
    requestOpen(path);
  });
  return a;
}

/** @param {HTMLElement} slot @param {{ links?: string[] }} row */
function fillUsers(slot, row) {
  const links = row.links || [];
  if (!links.length) {
    slot.textContent = 'used by nothing in this archive';
    return;
  }
  slot.replaceChildren(document.createTextNode(`used by ${count(links.length, 'file')}: `));
  links.forEach((p, i) => {
    if (i) slot.append(document.createTextNode(', '));
    slot.append(fileLink(p, fileName(p)));
  });
}
