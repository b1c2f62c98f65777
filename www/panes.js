// @ts-check
// The panes around the view: each can be hidden (its button in the top bar says whether it
// shows, aria-expanded) and resized with the splitter beside it, by pointer or by keyboard
// (arrows move it, Home/End to its limits, Enter hides or shows the pane). Sizes and which
// panes show are remembered in localStorage, per browser.

const STORE = 'relicview.panes';
const KEY_STEP = 16; // px per arrow press (Shift: 4×)

export class Panes {
  /** @param {{onChange?: () => void}} [options] */
  constructor({ onChange } = {}) {
    this.onChange = onChange || (() => {});
    this.saved = load();
    // Panes a view folded away for room (fold): the reader's own choice is kept apart.
    this.folded = new Set();
    for (const toggle of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.pane-toggle'))) {
      const pane = document.getElementById(toggle.dataset.pane);
      toggle.addEventListener('click', () => {
        // The reader's choice overrides a view's fold.
        this.folded.delete(pane.id);
        this.setShown(pane.id, pane.hidden);
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
  fold(id, on) {
    if (on && this.shown(id)) {
      this.folded.add(id);
      this.setShown(id, false, false);
    } else if (!on && this.folded.delete(id)) {
      this.setShown(id, true, false);
    }
  }

  shown(id) {
    const pane = document.getElementById(id);
    return Boolean(pane && !pane.hidden);
  }

  bindSplitter(splitter) {
    const pane = document.getElementById(splitter.dataset.pane);
    const edge = splitter.dataset.edge;
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
      const reach = m => {
        const r = pane.getBoundingClientRect();
        return edge === 'right'
          ? m.clientX - r.left
          : edge === 'left'
            ? r.right - m.clientX
            : r.bottom - m.clientY;
      };
      const r0 = pane.getBoundingClientRect();
      const grab = reach(e) - (vertical ? r0.height : r0.width);
      const move = m => this.setSize(pane, reach(m) - grab);
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
      let px = null;
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
  setSize(pane, px, notify = true) {
    const prop = pane.id === 'inspector' ? 'height' : 'width';
    // A comparison's inspector has a height of its own (style.css), not remembered.
    if (pane.id === 'inspector' && document.body.dataset.view === 'compare')
      pane.style.setProperty('--compare-h', `${Math.max(0, Math.round(px))}px`);
    else pane.style[prop] = `${Math.max(0, Math.round(px))}px`;
    this.updateValues();
    if (notify) this.onChange();
  }

  updateValues() {
    for (const s of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.splitter'))) {
      const pane = document.getElementById(s.dataset.pane);
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
    const sizes = {};
    for (const s of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.splitter'))) {
      const pane = document.getElementById(s.dataset.pane);
      const prop = pane?.id === 'inspector' ? 'height' : 'width';
      if (pane && pane.style[prop]) sizes[pane.id] = parseFloat(pane.style[prop]);
    }
    const hidden = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.pane-toggle'))]
      .map(t => t.dataset.pane)
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
