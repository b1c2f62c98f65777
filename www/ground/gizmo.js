// @ts-check
// The axis gizmo in the view's corner: where X, Y and Z point from the camera.

import { $, state } from './state.js';

// The orientation gizmo: the world axes as the camera sees them, X red, Y green, Z blue.
export function drawGizmo() {
  const c = state.viewer.camera();
  const [tx, ty, tz] = c.target;
  const [px, py, pz] = c.position;
  const f = norm([tx - px, ty - py, tz - pz]);
  const r = norm(cross(f, [0, 1, 0]).some(v => Math.abs(v) > 1e-6) ? cross(f, [0, 1, 0]) : [1, 0, 0]);
  const u = cross(r, f);
  /** @type {[string, Vector, string][]} */
  const directions = [
    ['X', [1, 0, 0], '#f07c6c'],
    ['Y', [0, 1, 0], '#7cd67c'],
    ['Z', [0, 0, 1], '#7cb0f0'],
  ];
  const axes = directions
    .map(([name, a, color]) => ({ name, color, x: dot(a, r) * 20, y: -dot(a, u) * 20, z: dot(a, f) }))
    .sort((a, b) => b.z - a.z);
  const svg = $('gizmo');
  const ns = 'http://www.w3.org/2000/svg';
  const parts = [];
  for (const a of axes) {
    const line = document.createElementNS(ns, 'line');
    Object.entries({
      x1: 0,
      y1: 0,
      x2: a.x.toFixed(1),
      y2: a.y.toFixed(1),
      stroke: a.color,
      'stroke-width': 2,
      opacity: a.z > 0 ? 0.45 : 1,
    }).forEach(([k, v]) => line.setAttribute(k, String(v)));
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', (a.x * 1.3).toFixed(1));
    text.setAttribute('y', (a.y * 1.3).toFixed(1));
    text.setAttribute('fill', a.color);
    text.textContent = a.name;
    parts.push(line, text);
  }
  svg.replaceChildren(...parts);
  svg.dataset.axes = axes.map(a => `${a.name}:${a.x.toFixed(0)},${a.y.toFixed(0)}`).join(' ');
}

/** @typedef {[number, number, number]} Vector */
/** @param {Vector} a @param {Vector} b */
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** @param {Vector} a @param {Vector} b @returns {Vector} */
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** @param {Vector} a @returns {Vector} */
const norm = ([x, y, z]) => {
  const l = Math.hypot(x, y, z) || 1;
  return [x / l, y / l, z / l];
};
