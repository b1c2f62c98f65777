// @ts-check
// A hex view: offset, bytes and their text, 16 bytes a row (8 where the pane is too narrow),
// only the rows in sight in the DOM (files run to megabytes). What each byte looks like is
// the owner's to say (`classOf`): the inspector shades coverage and the selection, a
// comparison marks the bytes that differ.

import { observedSize } from './boxsize.js';

const WIDE_ROW = 16;
const NARROW_ROW = 8;
export const ROW_HEIGHT = 18; // px, matches .hexrow in style.css
export const hex = (/** @type {number} */ n, /** @type {number} */ width) =>
  n.toString(16).toUpperCase().padStart(width, '0');

export class HexView {
  // `box` scrolls, `spacer` gives it the whole height, `rows` holds the rows in sight,
  // `heads` (optional) is the column heading; `classOf(offset)` → the byte's class names.
  /**
   * @param {object} parts
   * @param {HTMLElement} parts.box
   * @param {HTMLElement} parts.spacer
   * @param {HTMLElement} parts.rows
   * @param {HTMLElement | null} [parts.heads]
   * @param {(offset: number) => string} [parts.classOf]
   */
  constructor({ box, spacer, rows, heads = null, classOf = _at => '' }) {
    this.box = box;
    this.spacer = spacer;
    this.rows = rows;
    this.heads = heads;
    this.classOf = classOf;
    /** @type {Uint8Array} */
    this.bytes = new Uint8Array(0);
    this.rowBytes = WIDE_ROW;
    /** @type {(() => void) | null} */
    this.onScroll = null;
    /** @type {number | undefined} */
    this.charWidth = undefined;
    // Where the box is scrolled to, as last set here or reported by its scroll event (read
    // from the box, it would lay the page out: see boxsize.js).
    this.scrolledTo = 0;
    box.addEventListener('scroll', () => {
      this.scrolledTo = box.scrollTop;
      this.render();
      if (this.onScroll) this.onScroll();
    });
    // The row width follows the pane's width (its splitter, the window).
    this.size = observedSize(box, () => this.fit());
  }

  // New bytes, from their start (laid out without reading the page's layout: see boxsize.js).
  /** @param {Uint8Array} bytes */
  set(bytes) {
    this.bytes = bytes;
    // (Setting scrollTop lays the page out too, so only when it is not at the top already.)
    if (this.scrolledTo !== 0) this.scrollBox(0);
    this.fit(true, 0);
  }

  /** @param {number} px */
  scrollBox(px) {
    this.box.scrollTop = px;
    this.scrolledTo = px;
  }

  // Bring `offset` into sight (a few rows from the top when it was out of sight).
  /** @param {number} offset */
  scrollTo(offset) {
    const top = Math.floor(offset / this.rowBytes) * ROW_HEIGHT;
    if (top < this.box.scrollTop || top > this.box.scrollTop + this.size.height - ROW_HEIGHT) {
      this.scrollBox(Math.max(0, top - ROW_HEIGHT * 2));
    }
  }

  // The first byte of the top row in sight; setting it scrolls there.
  get top() {
    return Math.floor(this.box.scrollTop / ROW_HEIGHT) * this.rowBytes;
  }
  set top(offset) {
    this.scrollBox(Math.max(0, Math.floor(offset / this.rowBytes) * ROW_HEIGHT));
  }

  // Rows a page of the view holds.
  get pageRows() {
    return Math.max(1, Math.floor(this.size.height / ROW_HEIGHT) - 1);
  }

  // 16 bytes a row where offset, 16 bytes and their text fit the pane, else 8; the spacer
  // and the column heading follow. Rendered from row `first` (else where the view is
  // scrolled to); a resize renders the rows it brings into sight.
  /** @param {boolean} [force] @param {number} [first] */
  fit(force = false, first = undefined) {
    const ch = this.charWidth || (this.charWidth = measureCh(this.box));
    const needed = (8 + 16 * 2.4 + 16) * ch + 30;
    const width = this.size.width;
    const rowBytes = width && width < needed ? NARROW_ROW : WIDE_ROW;
    if (force || rowBytes !== this.rowBytes) {
      const keep = force ? 0 : this.top;
      this.rowBytes = rowBytes;
      this.spacer.style.height = `${Math.ceil(this.bytes.length / this.rowBytes) * ROW_HEIGHT}px`;
      if (this.heads) this.heads.style.width = `calc(${this.rowBytes} * 2.4ch)`;
      if (!force) this.top = keep;
    }
    this.render(first);
  }

  render(first = Math.floor(this.box.scrollTop / ROW_HEIGHT)) {
    const count = Math.ceil(this.size.height / ROW_HEIGHT) + 2;
    const last = Math.min(Math.ceil(this.bytes.length / this.rowBytes), first + count);
    this.rows.style.top = `${first * ROW_HEIGHT}px`;
    const frag = document.createDocumentFragment();
    for (let row = first; row < last; row++) {
      const div = document.createElement('div');
      div.className = 'hexrow';
      const off = document.createElement('span');
      off.className = 'off';
      off.textContent = hex(row * this.rowBytes, 8);
      div.append(off);
      let ascii = '';
      for (let k = 0; k < this.rowBytes; k++) {
        const o = row * this.rowBytes + k;
        const b = document.createElement('span');
        const v = this.bytes[o];
        if (v !== undefined) {
          b.textContent = hex(v, 2);
          b.dataset.o = String(o);
          b.className = `b ${this.classOf(o)}`;
          ascii += v >= 0x20 && v < 0x7f ? String.fromCharCode(v) : '.';
        } else {
          b.className = 'b';
          b.textContent = '  ';
        }
        div.append(b);
      }
      const text = document.createElement('span');
      text.className = 'ascii';
      text.textContent = ascii;
      div.append(text);
      frag.append(div);
    }
    this.rows.replaceChildren(frag);
  }
}

// The width of one monospace character in the hex view (px).
/** @param {HTMLElement} box */
function measureCh(box) {
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;font:inherit';
  probe.textContent = '0'.repeat(20);
  box.append(probe);
  const w = probe.getBoundingClientRect().width / 20;
  probe.remove();
  return w || 7.2;
}
