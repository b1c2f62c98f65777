// @ts-check
// The texture gallery: every texture of the archive — its pictures, and the textures field
// models decode from themselves (VRAM pages with their CLUTs) — as cards with a thumbnail,
// the size, the format, the materials and files that use it, and a PNG download; a click
// opens one at full size, zoomable over a checkerboard, the texel under the pointer read
// out (for a VRAM page: VRAM's word, the CLUT index and the colour). The core finds them
// and their users; cards come in as files are read.

import { $, count, fileName, first, nextTask, ready, state } from '../ground/state.js';
import { kindOfEntry } from '../sources/listing.js';
import { context2d, planesReadout, showTexture, showTextureGrid } from '../panes/flatview.js';
import { download } from '../ground/exporting.js';
import { currentView, setView } from '../ground/viewmode.js';
import { closeFile } from './openflow.js';
import { requestOpen } from '../ground/requests.js';
import { addRow } from '../panes/infopane.js';

// The texture gallery's list once made ([card]).
/** @type {{ generation: number, cards: TextureCardShown[] } | null} */
export let galleryList = null;

// The file whose texture is on show at full size (freed when another is shown).
/** @type {import('../../pkg/relicview.js').OpenedFile | null} */
let textureFile = null;

// What a card's PNG is called: the file's name, and its texture's place for a decoded one.
const pngName = (/** @type {TextureCardShown} */ c) =>
  `${fileName(c.path)}${c.texture === undefined || c.texture === null ? '' : `.page${c.own}`}`;

// The archive's textures → [{path, texture, width, height, format, materials, users}],
// read once per archive (the cards keep their thumbnails).
/** @param {{ onCard?: ((c: TextureCardShown) => void) | null }} [how] @returns {Promise<TextureCardShown[]>} */
export async function textureList({ onCard = null } = {}) {
  await ready;
  if (galleryList && galleryList.generation === state.generation) {
    for (const c of galleryList.cards) if (onCard) onCard(c);
    return galleryList.cards;
  }
  const generation = state.generation;
  const files = state.entries.filter(e => {
    const c = kindOfEntry(e).capabilities;
    return c.image || c.ownTextures;
  });
  /** @type {TextureCardShown[]} */
  const cards = [];
  for (const e of files) {
    /** @type {Awaited<ReturnType<import('../ground/state.js').Session['textureCards']>>} */
    let found = [];
    try {
      found = await state.session.textureCards(e.path);
    } catch {
      continue; // A file that cannot be read has no texture to show (the list marks it).
    }
    if (generation !== state.generation) return [];
    found.forEach((card, own) => {
      // The gallery's card: the core's, its place among its file's textures, and who uses it
      // (a decoded texture's users are its file's materials; a picture's are looked up below).
      const users =
        card.texture === undefined ? null : { materials: card.materials || [], files: [card.path] };
      const c = { ...card, own, users };
      cards.push(c);
      if (onCard) onCard(c);
    });
    await nextTask();
  }
  // Who uses each picture: the archive's references (read once) and the libraries naming it.
  for (const c of cards) {
    if (c.users) continue;
    c.users = await state.session.textureUsers(c.path).catch(() => ({ materials: [], files: [] }));
    if (generation !== state.generation) return [];
    const slot = c.element && first(c.element, '.card-users');
    if (slot) fillUsers(slot, c.users);
  }
  galleryList = { generation, cards };
  return cards;
}

// The list as scripts read it (no thumbnails, no elements).
export async function textures() {
  const cards = await textureList();
  return cards.map(c => ({
    path: c.path,
    texture: c.texture ?? null,
    width: c.width,
    height: c.height,
    format: c.format,
    materials: c.materials || [],
    used: c.used ?? null,
    users: c.users,
  }));
}

// Open the gallery in the main view. No file is on show while it is: the file that was
// goes, with its records and its controls.
export async function showGallery() {
  closeFile('The archive\u2019s textures');
  setView('textures');
  showTextureGrid();
  const grid = $('texture-cards');
  grid.replaceChildren();
  const status = $('texture-gallery-status');
  status.textContent = 'Reading the archive\u2019s textures…';
  const cards = await textureList({ onCard: c => grid.append(card(c)) });
  status.textContent = `${count(cards.length, 'texture')}: pictures, and the pages field models decode with their CLUTs. Click one for it at full size.`;
  return cards.length;
}

/** @param {TextureCardShown} c */
function card(c) {
  const li = document.createElement('li');
  li.className = 'card texture-card';
  li.dataset.path = c.path;
  if (c.texture !== undefined) li.dataset.texture = String(c.texture);
  const picture = document.createElement('canvas');
  picture.className = 'card-picture';
  picture.width = c.thumbnail.width;
  picture.height = c.thumbnail.height;
  context2d(picture).putImageData(
    new ImageData(new Uint8ClampedArray(c.thumbnail.rgba), c.thumbnail.width, c.thumbnail.height),
    0,
    0,
  );
  picture.title = 'Open it at full size';
  picture.addEventListener('click', () => openTexture(c));
  const title = document.createElement('button');
  title.type = 'button';
  title.className = 'card-name';
  title.textContent = c.texture === undefined ? fileName(c.path) : `${fileName(c.path)} · page ${c.own}`;
  title.title = `${c.path}: open it at full size`;
  title.addEventListener('click', () => openTexture(c));
  const meta = document.createElement('p');
  meta.className = 'card-meta';
  // (The thumbnail shows the part the model samples: a page is mostly other files'.)
  meta.textContent = `${c.width} × ${c.height} · ${c.format}${c.used ? ` · the model samples ${c.used[2]} × ${c.used[3]} at (${c.used[0]}, ${c.used[1]}), shown here` : ''}`;
  const users = document.createElement('p');
  users.className = 'card-users muted';
  users.textContent = 'used by …';
  if (c.users) fillUsers(users, c.users);
  const png = document.createElement('button');
  png.type = 'button';
  png.className = 'button';
  png.textContent = 'PNG';
  png.title = `Download ${pngName(c)}.png`;
  png.addEventListener('click', () => downloadCard(c));
  li.append(picture, title, meta, users, png);
  c.element = li;
  return li;
}

/** @param {HTMLElement} slot @param {import('../../pkg/relicview.js').TextureUsers} users */
function fillUsers(slot, users) {
  slot.replaceChildren();
  /** @type {Node[]} */
  const parts = [];
  if (users.materials.length)
    parts.push(document.createTextNode(`materials ${users.materials.join(', ')}; `));
  if (!users.files.length) parts.push(document.createTextNode('used by nothing in this archive'));
  else {
    parts.push(document.createTextNode(`used by ${count(users.files.length, 'file')}: `));
    users.files.forEach((p, i) => {
      if (i) parts.push(document.createTextNode(', '));
      const a = document.createElement('a');
      a.href = '#';
      a.className = 'file-link';
      a.dataset.path = p;
      a.textContent = fileName(p);
      a.title = `Open ${p}`;
      a.addEventListener('click', e => {
        e.preventDefault();
        requestOpen(p);
      });
      parts.push(a);
    });
  }
  slot.append(...parts);
}

// The texels of a card at full size: a picture file's, or its file's scene texture.
/** @param {TextureCardShown} c @returns {Promise<{ file: import('../ground/state.js').OpenedFile, image: import('../../pkg/relicview.js').Picture }>} */
async function texels(c) {
  if (textureFile) textureFile.free();
  const file = (textureFile = await state.session.open(c.path));
  const image = c.texture === undefined ? file.image() : file.sceneTexture(c.texture);
  if (!image) throw new Error(`${c.path}: no texture to show`);
  return { file, image };
}

// One texture at full size; a decoded one says what each texel is made of.
/** @param {TextureCardShown} c */
export async function openTexture(c) {
  const { file, image } = await texels(c);
  const texture = c.texture;
  const describe =
    texture === undefined
      ? planesReadout(file.imagePlanes(), image.width)
      : (/** @type {number} */ x, /** @type {number} */ y) =>
          file
            .texelSource(texture, x, y)
            .map(([k, v]) => `${k} ${v}`)
            .join(' · ');
  showTexture(image, { describe, back: () => backToGallery(c), name: pngName(c) });
  setView('texture');
  describeTexture(c);
  // The choice was made on a card that is now out of sight: the picture takes focus (its
  // keys zoom it; Escape goes back to the gallery).
  $('picture-canvas').focus();
  return { width: image.width, height: image.height };
}

// The info pane for a texture opened at full size: what it is, where it comes from, who
// uses it (each file a link).
/** @param {TextureCardShown} c */
function describeTexture(c) {
  $('info-title').textContent = c.texture === undefined ? c.path : `${c.path} · page ${c.own}`;
  $('info-error').hidden = true;
  $('info-more').replaceChildren();
  $('info-selection').replaceChildren();
  const dl = $('info-body');
  dl.replaceChildren();
  addRow(dl, 'texture', `${c.width} × ${c.height} · ${c.format}`);
  addRow(dl, 'from', c.texture === undefined ? c.path : `${c.path}, the VRAM page it decodes`, false, {
    links: [c.path],
  });
  if (c.used)
    addRow(dl, 'sampled', `the model samples ${c.used[2]} × ${c.used[3]} at (${c.used[0]}, ${c.used[1]})`);
  if (c.users) {
    const users = c.users.files.length
      ? `${count(c.users.files.length, 'file')}: ${c.users.files.join(', ')}`
      : 'nothing in this archive';
    addRow(dl, 'used by', users, false, { links: c.users.files });
  }
}

// Back from a texture to the gallery, on the card it was opened from.
/** @param {TextureCardShown} c */
async function backToGallery(c) {
  await showGallery();
  (c.element && first(c.element, '.card-name'))?.focus();
}

// A card's PNG, at full size.
/** @param {TextureCardShown} c */
async function downloadCard(c) {
  const { image } = await texels(c);
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  context2d(canvas).putImageData(
    new ImageData(new Uint8ClampedArray(image.rgba), image.width, image.height),
    0,
    0,
  );
  canvas.toBlob(blob => {
    if (blob) download(blob, `${pngName(c)}.png`);
  }, 'image/png');
}

export function bindTextures() {
  $('textures-button').addEventListener('click', () => showGallery());
  // Escape goes back one step: from a texture to the gallery.
  document.addEventListener('keydown', e => {
    if (e.key !== 'Escape' || currentView() !== 'texture' || !$('help').hidden) return;
    const target = /** @type {Element} */ (e.target);
    if (target.closest?.('input, select, textarea')) return;
    e.preventDefault();
    $('picture-back').click();
  });
}
