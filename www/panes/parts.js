// @ts-check
// The Parts view: a model's damage zones and the words of its parts, read by the core
// (viewer.parts(); docs/formats/biz2.md, "SPECIAL words"). A zone's switch hides its parts
// as the game does when that zone is destroyed (zones are layers of the scene, so links
// carry them in `hide=`); hovering a zone outlines it; its name selects its first part's
// record. "colour by zone" draws each zone in its own colour.

import { $, nextTask, ready, state } from '../ground/state.js';
import { followView } from './address.js';
import { addRow } from './infopane.js';

// The word the parts list is filtered by ('' for every part with words): this module's own.
let wordFilter = '';

// Zones listed at most (a hostile file may name 50,000); the rest are counted.
const MAX_ZONE_ROWS = 1000;

// Hide (destroy) or show damage zones by name ({dz_larm: true}); resolves with the Parts
// view once drawn.
/** @param {Record<string, boolean>} hiddenByName */
export async function setZones(hiddenByName) {
  await ready;
  const hidden = new Set(
    state.viewer
      .layers()
      .filter(l => !l.shown)
      .map(l => l.name),
  );
  for (const [name, hide] of Object.entries(hiddenByName)) {
    if (hide) hidden.add(name);
    else hidden.delete(name);
  }
  state.viewer.setHiddenLayers([...hidden]);
  return redraw();
}

// One zone: setPart('dz_larm', {hidden: true}).
/** @param {string} zone @param {{ hidden: boolean }} how */
export function setPart(zone, { hidden }) {
  if (!state.viewer.parts().zones.some(z => z.name === zone))
    return Promise.reject(new Error(`no damage zone ${zone} in the file on show`));
  return setZones({ [zone]: Boolean(hidden) });
}

// Every zone destroyed (true) or intact (false).
/** @param {boolean} hidden */
export function setAllZones(hidden) {
  return setZones(Object.fromEntries(state.viewer.parts().zones.map(z => [z.name, hidden])));
}

/** @param {boolean} on */
export async function setZoneColours(on) {
  await ready;
  state.viewer.setOptions({ zoneColours: Boolean(on) });
  return redraw();
}

async function redraw() {
  syncParts();
  let stats = await state.viewport.requestFrame();
  while (stats.uploading) stats = await state.viewport.requestFrame();
  followView();
  return state.viewer.parts();
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Partial<HTMLElementTagNameMap[K]>} [props] @param {(Node | string)[]} children
 */
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

const plural = (/** @type {number} */ n, /** @type {string} */ one, /** @type {string} */ many) =>
  `${n} ${n === 1 ? one : many}`;

// The Parts section follows the file on show.
export function syncParts() {
  const section = $('parts');
  const parts = state.current && !state.compare ? state.viewer.parts() : null;
  section.hidden = !parts || (parts.zones.length === 0 && parts.partsTotal === 0);
  if (!parts || section.hidden) return;
  $('opt-zone-colours').checked = state.viewer.options().zoneColours;
  $('opt-zone-colours').disabled = parts.zones.length === 0;
  $('parts-zone-tools').hidden = parts.zones.length === 0;
  $('parts-zones').replaceChildren(...parts.zones.slice(0, MAX_ZONE_ROWS).map(zoneRow));
  const words = Object.keys(parts.words);
  if (wordFilter && !words.includes(wordFilter)) wordFilter = '';
  const select = $('parts-word');
  select.replaceChildren(
    el('option', { value: '', textContent: `every part with words (${parts.partsTotal})` }),
    ...words.map(w => el('option', { value: w, textContent: `with ${w} (${parts.words[w]})` })),
  );
  select.value = wordFilter;
  $('parts-find').hidden = !wordFilter;
  const shown = parts.parts.filter(p => !wordFilter || p.words.some(w => w.split(' ')[0] === wordFilter));
  $('parts-list').replaceChildren(...shown.map(partRow));
  const more = parts.partsTotal - parts.parts.length;
  const zonesMore = parts.zones.length - Math.min(parts.zones.length, MAX_ZONE_ROWS);
  $('parts-more').textContent = [
    zonesMore > 0 ? `${zonesMore} more zones not listed (show destroyed / intact switch them all)` : '',
    more > 0 ? `${more} more parts not listed` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** @param {import('../../pkg/relicview.js').ZoneState} z */
function zoneRow(z) {
  const box = el('input', {
    type: 'checkbox',
    checked: !z.hidden,
    title: `${z.name}: intact (shown) or destroyed (hidden, as the game hides it)`,
  });
  box.dataset.zone = z.name;
  // Named for a screen reader as it reads to the eye: the zone, ticked while intact.
  box.setAttribute('aria-label', `${z.name} intact`);
  box.addEventListener('change', () => setZones({ [z.name]: !box.checked }));
  const swatch = el('span', { className: 'swatch', title: 'Its colour when each zone has its own' });
  swatch.style.background = z.colour;
  const name = el('button', {
    type: 'button',
    className: 'link',
    textContent: z.name,
    title: `Select the first of its parts in the inspector`,
  });
  name.addEventListener('click', () => selectZone(z.name));
  const row = el(
    'li',
    {},
    el('label', {}, box, swatch),
    name,
    el('span', {
      className: 'muted',
      textContent: ` ${plural(z.patches, 'part', 'parts')} · ${plural(z.triangles, 'triangle', 'triangles')}`,
    }),
  );
  row.dataset.zone = z.name;
  row.addEventListener('mouseenter', () => {
    state.viewer.highlightZone(z.name);
    state.viewport.requestFrame();
  });
  row.addEventListener('mouseleave', restoreOutline);
  return row;
}

/** @param {import('../../pkg/relicview.js').PartState} p */
function partRow(p) {
  const name = el('button', {
    type: 'button',
    className: 'link',
    textContent: p.name || '(unnamed part)',
    disabled: p.record === null || p.record === undefined,
    title: p.placedIn ? `placed by ${p.placedIn}` : 'Select its record in the inspector',
  });
  name.addEventListener('click', () => selectRecord(p.record));
  return el(
    'li',
    {},
    name,
    el('span', { className: 'words', textContent: ` ${p.words.join(' · ')}` }),
    el('span', {
      className: 'muted',
      textContent: ` · ${plural(p.triangles, 'triangle', 'triangles')}${p.placedIn ? ` · in ${p.placedIn}` : ''}`,
    }),
  );
}

function restoreOutline() {
  const sel = state.inspector.selection;
  if (sel && sel.chunk !== null && sel.chunk !== undefined) state.viewer.setHighlight(sel.chunk);
  else state.viewer.highlightZone(null);
  state.viewport.requestFrame();
}

/** @param {number | null | undefined} record */
function selectRecord(record) {
  if (record === null || record === undefined) return;
  state.inspector.selectChunk(record);
}

// The zone's first part with a record of the file on show, selected in the inspector.
/** @param {string} zone */
function selectZone(zone) {
  const part = state.viewer
    .parts()
    .parts.find(p => p.zones.includes(zone) && p.record !== null && p.record !== undefined);
  if (part) selectRecord(part.record);
}

// The archive's files whose models carry `word` (a zone, lower case; a behaviour word,
// upper case), each parsed on its own as the archive check does → [path].
/** @param {string} word @returns {Promise<string[]>} */
export async function filesWithWord(word) {
  await ready;
  const generation = state.generation;
  /** @type {string[]} */
  const found = [];
  const geometry = state.entries.filter(
    e => !e.kind || e.kind === 'biz2-geometry' || /\.(bgf|b2z)$/i.test(e.path),
  );
  for (const [k, e] of geometry.entries()) {
    const r = await state.session.check(e.path);
    if (generation !== state.generation) return found;
    if (r.zones.includes(word) || r.behaviours.includes(word)) found.push(e.path);
    if (k % 50 === 49) await nextTask();
  }
  return found;
}

async function showUsers() {
  const word = wordFilter;
  const list = $('parts-users');
  list.replaceChildren();
  addRow(list, word, 'looking…');
  const files = await filesWithWord(word);
  if (word !== wordFilter) return;
  list.replaceChildren();
  if (!files.length) addRow(list, word, 'in no model of the archive');
  for (const f of files.slice(0, 500)) addRow(list, word, f, false, { links: [f] });
  if (files.length > 500) addRow(list, word, `… and ${files.length - 500} more`);
}

// The section's own controls.
export function wireParts() {
  $('opt-zone-colours').addEventListener('change', () => setZoneColours($('opt-zone-colours').checked));
  $('parts-destroyed').addEventListener('click', () => setAllZones(true));
  $('parts-intact').addEventListener('click', () => setAllZones(false));
  $('parts-word').addEventListener('change', () => {
    wordFilter = $('parts-word').value;
    $('parts-users').replaceChildren();
    syncParts();
  });
  $('parts-find').addEventListener('click', () => showUsers());
}
