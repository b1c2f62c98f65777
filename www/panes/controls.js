// @ts-check
// The toolbar and world controls, and the view switches they drive: LOD, options, layers,
// the scene's choice, camera modes and viewpoints, the clock.

import { $, ready, state, viewWords } from '../ground/state.js';
import { followView } from './address.js';
import { restoreMeasure, syncScaleBar } from './measure.js';
import { syncParts } from './parts.js';
import { syncDrawnRow, viewMessage } from './infopane.js';
import { syncGameState } from '../ground/gamestate.js';

// Put back what a link says of the view: the viewer's part (the core's: Viewer.restore),
// then the page's: the viewpoint the camera took, the points measured, the record selected.
/** @param {import('../ground/urlstate.js').ViewLink} link @param {{ chunk?: boolean }} [how] */
export function restoreView(link, { chunk = true } = {}) {
  if (state.viewer.restore(link) && link.view !== null && link.view !== undefined)
    state.viewpoint = link.view;
  if (link.measure?.length) restoreMeasure(link.measure);
  syncBackground();
  if (chunk && link.chunk !== null && link.chunk !== undefined) state.inspector.selectChunk(link.chunk);
}

// The toolbar mirrors the viewer's options and the open file's LOD count.
export function syncToolbar() {
  const o = state.viewer.options();
  const count = state.viewer.stats().lodCount;
  const select = $('lod-select');
  select.replaceChildren(
    ...Array.from({ length: Math.max(count, 1) }, (_, i) => {
      const opt = document.createElement('option');
      opt.value = String(i);
      opt.textContent = String(i);
      return opt;
    }),
  );
  select.value = String(Math.min(o.lod, Math.max(count - 1, 0)));
  select.disabled = count < 2 || o.autoLod;
  // A single level of detail leaves nothing to pick.
  $('lod-controls').hidden = count < 2;
  $('opt-autolod').checked = o.autoLod;
  $('opt-autolod').disabled = count < 2;
  $('opt-wireframe').checked = o.wireframe;
  $('opt-grid').checked = o.grid;
  syncScaleBar();
  $('opt-cullback').checked = o.cullBack;
  $('background-select').value = o.background;
  $('lighting-select').value = o.lighting;
  syncBackground();
  syncWorldControls();
  syncGameState();
}

// The camera picker (orbit, fly, the scene's viewpoints), the layer switches and the
// timeline follow the scene on show.
export function syncWorldControls() {
  const camera = $('camera-select');
  const points = state.current ? state.viewer.viewpoints() : [];
  const game = state.current ? state.viewer.gameCamera() : null;
  /** @type {[value: string, label: string][]} */
  const options = [
    ['orbit', 'orbit'],
    ['fly', 'fly (WASD)'],
    ...(game ? /** @type {[string, string][]} */ ([['game', game.name]]) : []),
    ...points.map((v, i) => /** @type {[string, string]} */ ([`view:${i}`, v.name])),
  ];
  if (
    camera.options.length !== options.length ||
    [...camera.options].some((o, i) => o.value !== options[i]?.[0])
  ) {
    camera.replaceChildren(
      ...options.map(([value, label]) => {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = label;
        return o;
      }),
    );
  }
  camera.value =
    state.viewpoint !== null && state.viewpoint !== undefined
      ? `view:${state.viewpoint}`
      : state.current
        ? state.viewer.cameraMode()
        : 'orbit';
  // What the viewer says of the game camera's view (a picture it lacks, a fit not settled).
  const through = game && state.viewer.cameraMode() === 'game';
  const note = $('camera-note');
  note.hidden = !through || (game.background && game.notes.length === 0);
  note.textContent = through
    ? [...(game.background ? [] : ['no background picture']), ...game.notes].join(' · ')
    : '';
  // The fly pad shows while the camera flies (phones and touch screens, style.css).
  $('fly-pad').hidden = !(state.current && state.viewport.flyAllowed?.());
  // The scene's choice (a file's models and their animations) and its skeleton switch.
  const choice = state.current ? state.viewer.choice() : null;
  $('choice-label').hidden = !choice;
  if (choice) {
    $('choice-name').textContent = choice.name;
    $('choice-label').title = `Which ${choice.name} is shown`;
    const select = $('choice-select');
    if (
      select.options.length !== choice.options.length ||
      [...select.options].some((o, i) => o.textContent !== choice.options[i])
    ) {
      select.replaceChildren(
        ...choice.options.map((label, i) => {
          const o = document.createElement('option');
          o.value = String(i);
          o.textContent = label;
          return o;
        }),
      );
    }
    select.value = String(choice.selected ?? 0);
  }
  $('skeleton-label').hidden = !(state.current && state.viewer.hasSkeleton());
  $('opt-skeleton').checked = state.viewer.options().skeleton;
  $('blink-label').hidden = !(state.current && state.viewer.hasBlink());
  $('opt-blink').checked = state.viewer.options().blink;
  const layers = $('layers');
  // Damage zones are the Parts view's (parts.js). A layer of a game camera's picture (a
  // field's background layer) has tiles rather than nodes: it shows through that camera.
  const shown = state.current
    ? state.viewer.layers().filter(l => (l.nodes > 0 || l.tiles > 0) && !l.chosen && !l.zone)
    : [];
  layers.replaceChildren(
    ...shown.map(l => {
      const label = document.createElement('label');
      label.title =
        l.nodes > 0
          ? `Show or hide the ${l.name} (${l.nodes})`
          : `Show or hide the ${l.name} (${l.tiles} tiles, seen through the game camera)`;
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = l.shown;
      box.dataset.layer = l.name;
      box.addEventListener('change', () => setLayers({ [l.name]: box.checked }));
      label.append(box, document.createTextNode(` ${l.name}`));
      return label;
    }),
  );
  layers.hidden = shown.length === 0;
  const stats = state.viewer.stats();
  const timeline = $('timeline');
  timeline.hidden = !(state.current && stats.animating && state.viewer.hasTimeline());
  if (!timeline.hidden) {
    const clock = state.viewer.clockState();
    $('play-button').textContent = clock.playing ? 'pause' : 'play';
    $('speed-select').value = String(clock.speed);
    const period = state.viewer.clipDuration();
    $('scrub').max = String(period > 0 ? period : 60);
    // The step buttons step a frame where the clips run in frames (shell.js).
    const frame = state.viewer.frameTime();
    const step = frame ? `1 frame, ${frame.toFixed(3)} s` : '0.1 s';
    $('step-back').title = `One step back (${step})`;
    $('step-forward').title = `One step forward (${step})`;
    $('clock-label').textContent = state.viewer.clockLabel();
  }
  syncParts();
}

// A choice that draws nothing says so over the view, with what the info pane found missing
// (a character's file, and where it was looked for); any other choice clears the note.
/** @param {import('../../pkg/relicview.js').FrameStats} stats */
export function explainEmptyChoice(stats) {
  const choice = state.current ? state.viewer.choice() : null;
  const box = $('view-message');
  const ours = box.dataset.about === 'choice';
  if (!choice || stats.triangles > 0) {
    if (ours) viewMessage(null);
    return;
  }
  if (!box.hidden && !ours) return; // (a damaged file's note stays)
  const label = choice.options[choice.selected ?? 0];
  const missing = [...$('info-body').querySelectorAll('dd.bad')].map(
    dd => `${dd.previousElementSibling?.textContent}: ${dd.textContent}`,
  );
  viewMessage(`Nothing to draw for ${label}.${missing.length ? `\n${missing.join('\n')}` : ''}`, {
    note: true,
  });
  box.dataset.about = 'choice';
}

// Hide or show layers by name ({doors: false}); resolves once the change is drawn.
/** @param {Record<string, boolean>} changes */
export async function setLayers(changes) {
  await ready;
  const hidden = new Set(
    state.viewer
      .layers()
      .filter(l => !l.shown)
      .map(l => l.name),
  );
  for (const [name, shown] of Object.entries(changes)) {
    if (shown) hidden.delete(name);
    else hidden.add(name);
  }
  state.viewer.setHiddenLayers([...hidden]);
  syncWorldControls();
  let stats = await state.viewport.requestFrame();
  while (stats.uploading) stats = await state.viewport.requestFrame();
  followView();
  return state.viewer.layers();
}

// Show option `k` of the scene's choice (a model, an animation); resolves once drawn.
/** @param {number} k */
export async function choose(k) {
  await ready;
  if (!state.viewer.choose(k)) throw new Error(`no option ${k} to choose`);
  state.viewer.home();
  syncWorldControls();
  let stats = await state.viewport.requestFrame();
  while (stats.uploading) stats = await state.viewport.requestFrame();
  explainEmptyChoice(stats);
  followView();
  return { triangles: stats.triangles, drawCalls: stats.drawCalls, choice: stats.choice };
}

// Camera: 'orbit', 'fly', 'game' (the file's own camera), or a viewpoint's index; resolves
// once drawn.
/** @param {number | string} choice */
export async function setCamera(choice) {
  await ready;
  if (typeof choice === 'number') {
    if (!state.viewer.lookFrom(choice)) throw new Error(`no viewpoint ${choice}`);
    state.viewpoint = choice;
  } else {
    state.viewer.setCameraMode(choice === 'fly' || choice === 'game' ? choice : 'orbit');
    state.viewpoint = null;
  }
  syncWorldControls();
  await state.viewport.requestFrame();
  followView();
  return state.viewer.camera();
}

// The clock: {time, playing, speed}; changes resolve once drawn.
export function clock() {
  return { time: state.viewer.animationTime(), ...state.viewer.clockState() };
}

/** @param {{time?: number, playing?: boolean, speed?: number}} [clock] */
export async function setClock({ time, playing, speed } = {}) {
  await ready;
  if (speed !== undefined) state.viewer.setSpeed(speed);
  if (playing !== undefined) state.viewer.setPlaying(playing);
  if (time !== undefined) state.viewer.setAnimationTime(time);
  syncWorldControls();
  await state.viewport.requestFrame();
  followView();
  return clock();
}

/** @param {import('../../pkg/relicview.js').OptionChanges} changes */
export async function setOptions(changes) {
  await ready;
  state.viewer.setOptions(changes);
  syncToolbar();
  const stats = await state.viewport.requestFrame();
  followView();
  syncDrawnRow(stats);
  return { triangles: stats.triangles, drawCalls: stats.drawCalls, lod: stats.lod };
}

// The page around the canvas follows its background (the HUD's colours).
function syncBackground() {
  const bg = state.viewer.options().background;
  $('view').classList.toggle('bg-light', bg !== 'dark');
}

// The view's words (state.js's viewWords), under the name the menus and keys use.
export const words = viewWords;

// The background and lighting menus offer what the core takes.
export function fillMenus() {
  /** @param {HTMLSelectElement} select @param {string[]} values @param {(v: string) => string} [label] */
  const fill = (select, values, label = v => v) =>
    select.replaceChildren(...values.map(v => new Option(label(v), v)));
  fill($('background-select'), words().backgrounds);
  fill($('lighting-select'), words().lightings, v => LIGHTING_LABELS[v] || v);
  fill($('export-rig'), words().rigs, v => RIG_LABELS[v] || v);
}

// What each of the core's rig words means, in the menu.
/** @type {Record<string, string>} */
const RIG_LABELS = { skin: 'skin (an armature)', nodes: 'a node per bone' };

// What each of the core's lighting words means, in the menu.
/** @type {Record<string, string>} */
const LIGHTING_LABELS = {
  game: 'game (as it lit the model)',
  sun: 'sun',
  camera: 'camera',
  stored: 'stored colours, unlit',
};

/** @template T @param {T[]} list @param {T} now @returns {T} */
export const next = (list, now) => list[(list.indexOf(now) + 1) % list.length] ?? now;

// Frame the selected chunk's geometry where one is selected and drawn, else the model.
export function frame() {
  if (!state.viewer.frameHighlight()) state.viewer.home();
  state.viewpoint = null;
  syncWorldControls();
  state.viewport.requestFrame();
}

// The camera leaves the viewpoint it was at (a world's dropzone) or the game's camera, if
// any. This module is
// the only one that writes state.viewpoint (tests/layers.rs): forgetting it somewhere left
// fly mode broken.
export function leaveViewpoint() {
  if (state.viewpoint !== null && state.viewpoint !== undefined) {
    state.viewpoint = null;
    syncWorldControls();
  } else if ($('camera-select').value === 'game' && state.viewer.cameraMode() !== 'game') {
    // A drag or the wheel took the camera off the game's (the core orbits from there).
    syncWorldControls();
  }
}

// Look along an axis: 'front', 'side' or 'top' (words().axisViews) → camera, once drawn.
/** @param {string} axis */
export async function axisView(axis) {
  state.viewer.axisView(axis);
  leaveViewpoint();
  syncWorldControls();
  await state.viewport.requestFrame();
  return state.viewer.camera();
}

export function stats() {
  return state.viewer ? state.viewer.stats() : { triangles: 0, drawCalls: 0, fps: 0 };
}
