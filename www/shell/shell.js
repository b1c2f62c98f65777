// @ts-check
// The shell's own controls bound to what they do: open buttons, drop target, toolbar,
// menus, help and panes.

import { collectDrop } from '../sources/files.js';
import { Help } from './help.js';
import { Panes } from '../ground/panes.js';
import { readHash } from '../ground/urlstate.js';
import { $, message, state } from '../ground/state.js';
import { viewMessage } from '../panes/infopane.js';
import { share } from '../panes/address.js';
import { axisView, choose, frame, setCamera, setClock, setOptions } from '../panes/controls.js';
import { applyLink, loadEntries, loadFiles, setGameState } from '../flows/openflow.js';
import { checkArchive } from '../flows/check.js';
import { saveExport, saveScreenshot } from '../ground/exporting.js';
import { measuring, setMeasuring } from '../panes/measure.js';
import { wireParts } from '../panes/parts.js';

// The toolbar's menus close on Escape (focus back on their button) and on a click outside.
function bindMenus() {
  const menus = [
    .../** @type {NodeListOf<HTMLDetailsElement>} */ (document.querySelectorAll('details.menu')),
  ];
  document.addEventListener('pointerdown', e => {
    for (const m of menus) if (m.open && !m.contains(/** @type {Node} */ (e.target))) m.open = false;
  });
  for (const m of menus) {
    m.addEventListener('keydown', e => {
      if (e.key !== 'Escape' || !m.open) return;
      e.preventDefault();
      e.stopPropagation();
      m.open = false;
      /** @type {HTMLElement} */ (m.querySelector('summary')).focus();
    });
    // One menu open at a time, and all of it inside the window: a menu whose body would run
    // off the right edge (a phone, a toolbar that wrapped) moves left by as much.
    m.addEventListener('toggle', () => {
      if (!m.open) return;
      for (const o of menus) if (o !== m) o.open = false;
      const body = /** @type {HTMLElement | null} */ (m.querySelector('.menu-body'));
      if (!body) return;
      body.style.left = '';
      const over = body.getBoundingClientRect().right - (document.documentElement.clientWidth - 4);
      if (over > 0) body.style.left = `${-over}px`;
    });
  }
}

// The fly pad's buttons are held like the fly keys.
function bindFlyPad() {
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#fly-pad [data-fly]'))) {
    const hold = (/** @type {boolean} */ down) => (/** @type {Event} */ e) => {
      e.preventDefault();
      state.viewport.hold(b.dataset.fly ?? '', down);
    };
    b.addEventListener('pointerdown', (/** @type {PointerEvent} */ e) => {
      try {
        b.setPointerCapture(e.pointerId);
      } catch {
        /* held without capture too */
      }
      hold(true)(e);
    });
    for (const end of ['pointerup', 'pointercancel', 'lostpointercapture'])
      b.addEventListener(end, hold(false));
    b.addEventListener('contextmenu', e => e.preventDefault());
  }
}

export function bindShell() {
  bindMenus();
  bindFlyPad();
  // Real buttons (in the Tab order) for the hidden file inputs.
  /** @type {[HTMLElement, HTMLElement][]} */
  const opening = [
    [$('folder-button'), $('folder-input')],
    [$('files-button'), $('files-input')],
    [$('landing-folder'), $('folder-input')],
    [$('landing-files'), $('files-input')],
  ];
  for (const [button, input] of opening) {
    button.addEventListener('click', () => input.click());
  }
  $('background-select').addEventListener('change', () =>
    setOptions({
      background: /** @type {import('../../pkg/relicview.js').Background} */ ($('background-select').value),
    }),
  );
  $('lighting-select').addEventListener('change', () =>
    setOptions({
      lighting: /** @type {import('../../pkg/relicview.js').Lighting} */ ($('lighting-select').value),
    }),
  );
  const help = new Help($('help'), $('help-keys'), $('help-button'), $('help-close'));
  // ? anywhere but in a text field.
  document.addEventListener('keydown', e => {
    if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || help.open) return;
    const target = /** @type {Element} */ (e.target);
    if (target.closest?.('input, select, textarea')) return;
    e.preventDefault();
    help.show();
  });
  state.panes = new Panes({ onChange: () => state.viewport?.requestFrame() });
  for (const input of [$('folder-input'), $('files-input')]) {
    input.addEventListener('change', () => {
      // The Files are taken and the input emptied: the browser keeps an input's chosen paths
      // in the page's saved form state and writes all of it to the history entry on every
      // address change, 4.8 s of each 5 s for a folder of 20,000 while a model played (and
      // the same folder can be chosen again).
      const files = Array.from(input.files ?? []);
      input.value = '';
      if (files.length) loadFiles(files);
    });
  }
  $('lod-select').addEventListener('change', () => setOptions({ lod: Number($('lod-select').value) }));
  $('opt-autolod').addEventListener('change', () => setOptions({ autoLod: $('opt-autolod').checked }));
  $('opt-wireframe').addEventListener('change', () => setOptions({ wireframe: $('opt-wireframe').checked }));
  $('opt-cullback').addEventListener('change', () => setOptions({ cullBack: $('opt-cullback').checked }));
  $('frame-button').addEventListener('click', () => frame());
  $('camera-select').addEventListener('change', () => {
    const v = $('camera-select').value;
    setCamera(v.startsWith('view:') ? Number(v.slice(5)) : v).catch(() => {});
  });
  // The game state: a field opens again with the variables typed (Enter or leaving the field).
  $('state-input').addEventListener('change', () => {
    const input = $('state-input');
    try {
      setGameState(input.value)?.catch(() => {});
    } catch (err) {
      input.setCustomValidity(message(err));
      input.reportValidity();
    }
  });
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (
    document.querySelectorAll('#axis-views [data-axis]')
  )) {
    b.addEventListener('click', () => axisView(b.dataset.axis ?? ''));
  }
  $('play-button').addEventListener('click', () => setClock({ playing: !state.viewer.clockState().playing }));
  $('speed-select').addEventListener('change', () => setClock({ speed: Number($('speed-select').value) }));
  $('scrub').addEventListener('input', () => setClock({ time: Number($('scrub').value), playing: false }));
  // One frame of a clip that runs in frames (an FF7 animation), else a tenth of a second.
  // A frame of the clips on show, or a tenth of a second where they do not run in frames.
  const step = (/** @type {number} */ k) =>
    setClock({
      time: Math.max(0, state.viewer.animationTime() + k * (state.viewer.frameTime() ?? 0.1)),
      playing: false,
    });
  $('step-back').addEventListener('click', () => step(-1));
  $('step-forward').addEventListener('click', () => step(1));
  $('choice-select').addEventListener('change', () => choose(Number($('choice-select').value)));
  $('opt-skeleton').addEventListener('change', () => setOptions({ skeleton: $('opt-skeleton').checked }));
  $('opt-blink').addEventListener('change', () => setOptions({ blink: $('opt-blink').checked }));
  $('opt-grid').addEventListener('change', () => setOptions({ grid: $('opt-grid').checked }));
  $('measure-button').addEventListener('click', () => setMeasuring(!measuring));
  $('share-button').addEventListener('click', () => share());
  $('check-button').addEventListener('click', () => checkArchive().catch(() => {}));
  // The info panel folds to its title, to uncover the view behind it.
  const fold = () => {
    const folded = $('info-panel').classList.toggle('folded');
    $('info-fold').setAttribute('aria-expanded', String(!folded));
    $('info-fold').textContent = folded ? '▸' : '▾';
  };
  $('info-fold').addEventListener('click', fold);
  $('info-title').addEventListener('click', fold);
  $('screenshot-button').addEventListener('click', () => saveScreenshot());
  // (The first export loads the tools module: a failure to load it says so over the view.)
  $('export-button').addEventListener('click', () =>
    saveExport().catch(err => viewMessage(`No .glb: ${message(err)}`, { warning: true })),
  );
  wireParts();
  const overlay = $('drop-overlay');
  window.addEventListener('dragover', e => {
    e.preventDefault();
    overlay.hidden = false;
  });
  window.addEventListener('dragleave', e => {
    if (!e.relatedTarget) overlay.hidden = true;
  });
  window.addEventListener('drop', e => {
    e.preventDefault();
    overlay.hidden = true;
    if (e.dataTransfer)
      collectDrop(e.dataTransfer).then(entries => loadEntries(entries, 'dropped', { folder: null }));
  });
  // Back/forward, and links pasted into the address bar of an open page.
  const follow = () => applyLink(readHash());
  window.addEventListener('popstate', follow);
  window.addEventListener('hashchange', follow);
}
