// @ts-check
// The view's keys, listed once: viewKey dispatches by this table and the help overlay (?)
// lists it (help.js). Each row: the keys as shown, what they do, the `key` values that
// press them, and what they run (→ false: not taken here, the key goes on).

import { $, state } from '../ground/state.js';
import { axisView, frame, leaveViewpoint, next, setCamera, setClock, setOptions, words } from './controls.js';
import { measuring, setMeasuring } from './measure.js';
import { setZoneColours } from './parts.js';
import { captureFromMenu } from './capture.js';

const STEP = 24;
/** @param {KeyboardEvent} e @param {number} dx @param {number} dy */
const orbitOrPan = (e, dx, dy) => {
  if (e.shiftKey) state.viewer.pan(dx, dy);
  else state.viewer.orbit(dx, dy);
  leaveViewpoint();
};
// The core's k-th axis view (its words, written once in crates/view).
const axis = (/** @type {number} */ k) => () => {
  const view = words().axisViews[k];
  return view !== undefined && axisView(view);
};

/**
 * A row of the view's keys: `run(e, viewer)` → false where the key was not taken.
 * @typedef {{ label: string, what: string, keys: string[], run?: (e: KeyboardEvent, v: import('../ground/state.js').Viewer) => unknown }} KeyRow
 */
/** @type {KeyRow[]} */
export const VIEW_KEYS = [
  {
    label: '← → ↑ ↓',
    what: 'orbit the camera around its target; with Shift: pan',
    keys: ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'],
    run: e =>
      orbitOrPan(
        e,
        e.key === 'ArrowLeft' ? -STEP : e.key === 'ArrowRight' ? STEP : 0,
        e.key === 'ArrowUp' ? -STEP : e.key === 'ArrowDown' ? STEP : 0,
      ),
  },
  {
    label: '+ / −',
    what: 'zoom in / out (towards the middle of the view)',
    keys: ['+', '=', '-', '_'],
    run: (e, v) => v.zoom(e.key === '+' || e.key === '=' ? 1 : -1),
  },
  { label: 'F', what: 'frame the model, or the selected chunk', keys: ['f', 'F'], run: () => frame() },
  {
    label: 'W',
    what: 'wireframe on / off (in orbit mode)',
    keys: ['w', 'W'],
    run: (_e, v) => setOptions({ wireframe: !v.options().wireframe }),
  },
  {
    label: 'B',
    what: 'hide / show back faces',
    keys: ['b', 'B'],
    run: (_e, v) => setOptions({ cullBack: !v.options().cullBack }),
  },
  {
    label: 'L',
    what: 'next level of detail',
    keys: ['l', 'L'],
    run: (_e, v) => {
      const count = v.stats().lodCount;
      if (count > 1) setOptions({ lod: ((v.stats().lod ?? 0) + 1) % count, autoLod: false });
    },
  },
  {
    label: 'G',
    what: 'background: dark, light, checker',
    keys: ['g', 'G'],
    run: (_e, v) => setOptions({ background: next(words().backgrounds, v.options().background) }),
  },
  {
    label: 'I',
    what: 'lighting: game, sun, camera, stored colours',
    keys: ['i', 'I'],
    run: (_e, v) => setOptions({ lighting: next(words().lightings, v.options().lighting) }),
  },
  // As on a numpad in Blender: 1 front, 3 side, 7 top.
  { label: '1', what: 'look from the front', keys: ['1'], run: axis(0) },
  { label: '3', what: 'look from the side', keys: ['3'], run: axis(1) },
  { label: '7', what: 'look from the top', keys: ['7'], run: axis(2) },
  {
    label: 'V',
    what: 'switch the camera between orbit and fly',
    keys: ['v', 'V'],
    run: (_e, v) => setCamera(v.cameraMode() === 'fly' ? 'orbit' : 'fly'),
  },
  {
    label: 'T',
    what: "look through the file's own camera (an FF7 field's, its background behind), and back to orbit",
    keys: ['t', 'T'],
    run: (_e, v) => v.gameCamera() && setCamera(v.cameraMode() === 'game' ? 'orbit' : 'game'),
  },
  {
    label: 'M',
    what: 'measure: a click takes a point of the surface (a corner snaps), two give their distance',
    keys: ['m', 'M'],
    run: () => setMeasuring(!measuring),
  },
  {
    label: 'Z',
    what: 'each damage zone in its own colour (a model with zones: the Parts view)',
    keys: ['z', 'Z'],
    run: (_e, v) => (v.parts().zones.length ? setZoneColours(!v.options().zoneColours) : false),
  },
  {
    label: 'Space',
    what: 'play / pause the clock (doors, scrolling textures, animations)',
    keys: [' '],
    run: (_e, v) => (v.stats().animating ? setClock({ playing: !v.clockState().playing }) : false),
  },
  {
    label: 'K',
    what: "keep a still picture (PNG) at the capture menu's size and background",
    keys: ['k', 'K'],
    run: () => captureFromMenu({ kind: 'still' }),
  },
  {
    label: 'R',
    what: "record the capture menu's turntable or timeline (a turntable where it asks for a still); again: stop",
    keys: ['r', 'R'],
    run: () => captureFromMenu({ kind: $('capture-kind').value === 'timeline' ? 'timeline' : 'turntable' }),
  },
  // Flying is the viewport's own (viewport.js), at a viewpoint or in fly mode.
  { label: 'W A S D, Q E', what: 'fly (in fly mode or at a viewpoint); Shift: faster', keys: [] },
];

// A key over the view; → whether it was one of the view's keys.
/** @param {KeyboardEvent} e */
export function viewKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  const run = VIEW_KEYS.find(r => r.run && r.keys.includes(e.key))?.run;
  return Boolean(run) && run?.(e, state.viewer) !== false;
}
