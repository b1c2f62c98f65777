// @ts-check
// The panes around the view: each can be hidden (its button in the top bar says whether it
// shows, aria-expanded) and resized with the splitter beside it, by pointer or by keyboard
// (arrows move it, Home/End to its limits, Enter hides or shows the pane). Sizes and which
// panes show are remembered in localStorage, per browser.

const STORE = 'relicview.panes';
const KEY_STEP = 16; // px per arrow press (Shift: 4×)

// The pane a toggle or splitter names (data-pane), or null.
/** @param {HTMLElement} el */
function paneOf(el) {
  return el.dataset.pane ? document.getElementById(el.dataset.pane) : null;
}

export class Panes {
  /** @param {{onChange?: () => void}} [options] */
  constructor({ onChange } = {}) {
    this.onChange = onChange || (() => {});
    this.saved = load();
    // Panes a view folded away for room (fold): the reader's own choice is kept apart.
    /** @type {Set<string>} */
    this.folded = new Set();
    for (const toggle of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.pane-toggle'))) {
      const pane = paneOf(toggle);
      if (!pane) continue;
      toggle.addEventListener('click', () => {
        // The reader's choice overrides a view's fold.
        this.folded.delete(pane.id);
        this.setShown(pane.id, Boolean(pane.hidden));
      });
      if (this.saved.hidden?.includes(pane.id)) this.setShown(pane.id, false, false);
    }
    for (const splitter of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.splitter')))
      this.bindSplitter(splitter);
    for (const [id, px] of Object.entries(this.saved.sizes || {})) {
      const pane = document.getElementById(id);
      if (pane) this.setSize(pane, px, false);
    }
    new ResizeObserver(() => this.updateValues()).observe(document.body);
  }

  // Show or hide a pane with its splitter; → whether it shows.
  /** @param {string} id @param {boolean} shown @param {boolean} [remember] */
  setShown(id, shown, remember = true) {
    const pane = document.getElementById(id);
    if (!pane) return false;
    pane.hidden = !shown;
    for (const s of /** @type {NodeListOf<HTMLElement>} */ (
      document.querySelectorAll(`.splitter[data-pane="${id}"]`)
    ))
      s.hidden = !shown;
    const toggle = /** @type {HTMLElement} */ (document.querySelector(`.pane-toggle[data-pane="${id}"]`));
    if (toggle) toggle.setAttribute('aria-expanded', String(shown));
    if (remember) this.save();
    this.onChange();
    return shown;
  }

  // Fold pane `id` away for a view's room (on), or bring back one so folded (off). What
  // the reader chose is untouched: a pane they hid stays hidden, and a folded pane is not
  // remembered as hidden.
  /** @param {string} id @param {boolean} on */
  fold(id, on) {
    if (on && this.shown(id)) {
      this.folded.add(id);
      this.setShown(id, false, false);
    } else if (!on && this.folded.delete(id)) {
      this.setShown(id, true, false);
    }
  }

  /** @param {string} id */
  shown(id) {
    const pane = document.getElementById(id);
    return Boolean(pane && !pane.hidden);
  }

  /** @param {HTMLElement} splitter */
  bindSplitter(splitter) {
    const pane = paneOf(splitter);
    if (!pane) return;
    const edge = /** @type {'right' | 'left' | 'top'} */ (splitter.dataset.edge);
    const vertical = edge === 'top';
    splitter.addEventListener('pointerdown', e => {
      e.preventDefault();
      splitter.classList.add('dragging');
      try {
        splitter.setPointerCapture(e.pointerId);
      } catch {
        /* drags without capture too */
      }
      // Where the pointer holds the splitter stays under it as it moves.
      const reach = (/** @type {PointerEvent} */ m) => {
        const r = pane.getBoundingClientRect();
        return edge === 'right'
          ? m.clientX - r.left
          : edge === 'left'
            ? r.right - m.clientX
            : r.bottom - m.clientY;
      };
      const r0 = pane.getBoundingClientRect();
      const grab = reach(e) - (vertical ? r0.height : r0.width);
      const move = (/** @type {PointerEvent} */ m) => this.setSize(pane, reach(m) - grab);
      const up = () => {
        splitter.classList.remove('dragging');
        splitter.removeEventListener('pointermove', move);
        splitter.removeEventListener('pointerup', up);
        splitter.removeEventListener('pointercancel', up);
        this.save();
      };
      splitter.addEventListener('pointermove', move);
      splitter.addEventListener('pointerup', up);
      splitter.addEventListener('pointercancel', up);
    });
    splitter.addEventListener('keydown', e => {
      const r = pane.getBoundingClientRect();
      const now = vertical ? r.height : r.width;
      const step = KEY_STEP * (e.shiftKey ? 4 : 1);
      // Arrows move the splitter itself: towards the pane shrinks it.
      const grow = {
        right: ['ArrowRight', 'ArrowLeft'],
        left: ['ArrowLeft', 'ArrowRight'],
        top: ['ArrowUp', 'ArrowDown'],
      }[edge];
      let px = 0;
      if (e.key === grow[0]) px = now + step;
      else if (e.key === grow[1]) px = now - step;
      else if (e.key === 'Home') px = 0;
      else if (e.key === 'End') px = 1e6;
      else if (e.key === 'Enter') {
        e.preventDefault();
        const toggle = /** @type {HTMLElement} */ (
          document.querySelector(`.pane-toggle[data-pane="${pane.id}"]`)
        );
        this.setShown(pane.id, false);
        toggle?.focus();
        return;
      } else return;
      e.preventDefault();
      this.setSize(pane, px);
      this.save();
    });
  }

  // Size a pane in CSS px, within its CSS min/max (the browser clamps; the value shown to
  // assistive technology is what it got, as a share of the window).
  /** @param {HTMLElement} pane @param {number} px @param {boolean} [notify] */
  setSize(pane, px, notify = true) {
    const prop = pane.id === 'inspector' ? 'height' : 'width';
    // A comparison's inspector has a height of its own (style.css), not remembered.
    if (pane.id === 'inspector' && document.body.dataset.view === 'compare')
      pane.style.setProperty('--compare-h', `${Math.max(0, Math.round(px))}px`);
    else pane.style.setProperty(prop, `${Math.max(0, Math.round(px))}px`);
    this.updateValues();
    if (notify) this.onChange();
  }

  updateValues() {
    for (const s of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.splitter'))) {
      const pane = paneOf(s);
      if (!pane) continue;
      const r = pane.getBoundingClientRect();
      const share =
        s.dataset.edge === 'top'
          ? r.height / Math.max(1, window.innerHeight)
          : r.width / Math.max(1, window.innerWidth);
      s.setAttribute('aria-valuemin', '0');
      s.setAttribute('aria-valuemax', '100');
      s.setAttribute('aria-valuenow', String(Math.round(share * 100)));
    }
  }

  save() {
    /** @type {Record<string, number>} */
    const sizes = {};
    for (const s of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.splitter'))) {
      const pane = paneOf(s);
      const prop = pane?.id === 'inspector' ? 'height' : 'width';
      const size = pane?.style.getPropertyValue(prop);
      if (pane && size) sizes[pane.id] = parseFloat(size);
    }
    const hidden = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.pane-toggle'))]
      .flatMap(t => (t.dataset.pane ? [t.dataset.pane] : []))
      .filter(id => document.getElementById(id)?.hidden && !this.folded.has(id));
    this.saved = { sizes, hidden };
    try {
      localStorage.setItem(STORE, JSON.stringify(this.saved));
    } catch {
      /* private mode: not remembered */
    }
  }
}

function load() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) || '{}');
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}
