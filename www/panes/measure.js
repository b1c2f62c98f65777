// @ts-check
// Measuring: in measure mode (M, or the toolbar's button) a click takes the point of the
// surface under it (the corner, when it is that near), two points give their distance in
// the file's units and in metres by each reading of the file's unit (the core says it); the
// ground grid's scale bar; the sizes of the model and of the selected record.

import { $, state } from '../ground/state.js';
import { followView } from './address.js';

// Measure mode is on: clicks take points.
export let measuring = false;

const figure = (/** @type {number} */ x) =>
  Math.abs(x) >= 1000 ? x.toFixed(0) : Number(x.toPrecision(4)).toString();
const size = (/** @type {number[]} */ s) => s.map(figure).join(' × ');

// Turn measure mode on or off; → whether it is on.
/** @param {boolean} on */
export function setMeasuring(on) {
  measuring = Boolean(on) && Boolean(state.current);
  $('measure-button').setAttribute('aria-pressed', String(measuring));
  $('viewport').classList.toggle('measuring', measuring);
  syncMeasure();
  return measuring;
}

// A point as a link and the readout keep it: [x, y, z].
/** @param {ArrayLike<number>} p @returns {[number, number, number]} */
const pointOf = p => [p[0] ?? NaN, p[1] ?? NaN, p[2] ?? NaN];

// A click in measure mode: the first point, the second, then a new first.
/** @param {number} x @param {number} y */
export function measureClick(x, y) {
  const p = state.viewer.surfacePoint(x, y);
  if (!p) return null;
  const [first] = state.measured;
  state.measured = state.measured.length === 1 && first ? [first, pointOf(p)] : [pointOf(p)];
  showMeasure();
  return p;
}

// Measure between `a` and `b`: each a canvas pixel [x, y] (the surface point there) or a
// world point [x, y, z]; → the measurement, once drawn.
/** @param {number[]} a @param {number[]} b */
export async function measure(a, b) {
  const point = (/** @type {number[]} */ q) => {
    const [x = NaN, y = NaN, z] = q;
    const p = z === undefined ? state.viewer.surfacePoint(x, y) : [x, y, z];
    return p && pointOf(p);
  };
  const [pa, pb] = [point(a), point(b)];
  if (!pa || !pb) throw new Error(`nothing under ${JSON.stringify(!pa ? a : b)} to measure from`);
  state.measured = [pa, pb];
  showMeasure();
  await state.viewport.requestFrame();
  return measurement();
}

// The points measured between, their distance and what it reads; null when there are none.
export function measurement() {
  if (!state.measured.length) return null;
  const [a, b] = state.measured;
  if (!a) return null;
  if (!b) return { points: [a], distance: null, text: null };
  const distance = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
  return { points: [a, b], distance, text: state.viewer.lengthText(distance) };
}

// Put back the points a link measured between (or none).
/** @param {[number, number, number][] | null} points */
export function restoreMeasure(points) {
  state.measured = points ? points.slice(0, 2) : [];
  showMeasure();
}

export function clearMeasure() {
  state.measured = [];
  if (state.viewer) state.viewer.setMeasure([]);
  syncMeasure();
}

function showMeasure() {
  state.viewer.setMeasure(state.measured.flat());
  syncMeasure();
  state.viewport.requestFrame();
  followView();
}

// The readout over the view: the measurement, or how to make one.
export function syncMeasure() {
  const box = $('measure-readout');
  const m = measurement();
  box.hidden = !measuring && !m;
  if (box.hidden) return;
  const [a, b] = m ? m.points : [];
  if (!a) box.textContent = 'Measure: click a point of the surface (a corner snaps), then another.';
  else if (!b) box.textContent = `From (${a.map(figure).join(', ')}): click the second point.`;
  else box.textContent = `${m?.text} · from (${a.map(figure).join(', ')}) to (${b.map(figure).join(', ')})`;
}

// The scale bar under the grid: the grid's step as drawn at the camera's target.
export function syncScaleBar() {
  const bar = $('scale-bar');
  const on = Boolean(state.current) && state.viewer.options().grid;
  bar.hidden = !on;
  if (!on) return;
  const { gridStep } = state.viewer.sizes();
  const cam = state.viewer.camera();
  const [x, y, z] = cam.position;
  const [tx, ty, tz] = cam.target;
  const distance = Math.hypot(x - tx, y - ty, z - tz);
  const canvas = $('viewport');
  // CSS pixels per world unit at the target's depth.
  const perUnit = canvas.clientHeight / (2 * distance * Math.tan((cam.fov * Math.PI) / 360));
  const px = gridStep * perUnit;
  /** @type {HTMLElement} */ (bar.querySelector('.bar')).style.width =
    `${Math.max(2, Math.min(px, canvas.clientWidth * 0.6))}px`;
  /** @type {HTMLElement} */ (bar.querySelector('.label')).textContent =
    `${figure(gridStep)} ${gridStep === 1 ? 'unit' : 'units'} (a grid square)`;
}

// The sizes of the model and of the selected record, in words.
/** @param {'scene' | 'selection'} which */
export function sizeText(which) {
  const s = state.viewer.sizes()[which];
  return s ? `${size(s)} units` : null;
}
