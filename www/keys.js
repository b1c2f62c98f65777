// Keys over the view: wireframe, culling, LOD, background, lighting, axis views, the clock.

import { state } from './state.js';
import { frame, leaveViewpoint, next, setCamera, setClock, setOptions, words } from './controls.js';
import { setMeasuring } from './measure.js';
import { setZoneColours } from './parts.js';

// The view's keys (help.js lists them); → whether the key was one of them.
export function viewKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  const v = state.viewer;
  const step = 24;
  const orbitOrPan = (dx, dy) => { if (e.shiftKey) v.pan(dx, dy); else v.orbit(dx, dy); leaveViewpoint(); };
  switch (e.key) {
    case 'ArrowLeft': orbitOrPan(-step, 0); break;
    case 'ArrowRight': orbitOrPan(step, 0); break;
    case 'ArrowUp': orbitOrPan(0, -step); break;
    case 'ArrowDown': orbitOrPan(0, step); break;
    case '+': case '=': v.zoom(1); break;
    case '-': case '_': v.zoom(-1); break;
    case 'f': case 'F': frame(); break;
    case 'w': case 'W': setOptions({ wireframe: !v.options().wireframe }); break;
    case 'b': case 'B': setOptions({ cullBack: !v.options().cullBack }); break;
    case 'l': case 'L': {
      const count = v.stats().lodCount;
      if (count > 1) setOptions({ lod: (v.stats().lod + 1) % count, autoLod: false });
      break;
    }
    case 'g': case 'G': setOptions({ background: next(words().backgrounds, v.options().background) }); break;
    case 'i': case 'I': setOptions({ lighting: next(words().lightings, v.options().lighting) }); break;
    // As on a numpad in Blender: 1 front, 3 side, 7 top.
    case '1': window.relicview.axisView(words().axisViews[0]); break;
    case '3': window.relicview.axisView(words().axisViews[1]); break;
    case '7': window.relicview.axisView(words().axisViews[2]); break;
    case 'v': case 'V': setCamera(v.cameraMode() === 'fly' ? 'orbit' : 'fly'); break;
    case 'm': case 'M': setMeasuring(!state.measuring); break;
    case 'z': case 'Z': if (v.parts().zones.length) setZoneColours(!v.options().zoneColours); else return false; break;
    case ' ': if (v.stats().animating) setClock({ playing: !v.clockState().playing }); else return false; break;
    default: return false;
  }
  return true;
}
