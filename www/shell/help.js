// @ts-check
// The keys of the viewer: the help overlay (?) shows this table. The view's keys and a
// comparison's come from the tables they are dispatched by (keys.js, compare.js); the
// others are each pane's own.

import { VIEW_KEYS } from '../panes/keys.js';
import { COMPARE_KEYS } from '../flows/compare.js';

/** @type {[string, string[][]][]} */
/** @type {[group: string, keys: [key: string, what: string][]][]} */
export const viewKeys = [
  [
    'The view (click it or Tab to it first)',
    VIEW_KEYS.map(k => /** @type {[string, string]} */ ([k.label, k.what])),
  ],
  [
    'Mouse',
    [
      ['drag', 'orbit (flying: look around)'],
      ['right-drag, Shift + drag', 'pan'],
      ['wheel, pinch', 'zoom towards the point under the cursor; never through the surface'],
      ['click', 'pick a face: its chunk and bytes in the inspector'],
      ['double-click', 'frame the model'],
    ],
  ],
  [
    'A picture (an image, FIELD.TDB)',
    [
      ['+ / −, wheel', 'zoom in / out (the wheel about the pointer), up to 64 pixels a texel'],
      ['0, F', 'fit the picture in the view'],
      ['1', 'one texel to a pixel'],
      ['drag', 'pan; the texel under the pointer is read out below'],
      ['click', "on a sheet's image: its bytes in the inspector"],
    ],
  ],
  [
    'File list',
    [
      ['↑ ↓, Home End', 'open the previous / next file'],
      ['← →', 'fold / unfold the current folder'],
      ['typing', 'search the names'],
      [
        'Shift + F10, the menu key',
        "the file's menu: open it, compare the file on show with it, or compare it with…",
      ],
      ['Enter', 'choosing the other file of a comparison (↑ ↓ move without opening): compare with it'],
      ['Escape', 'stop choosing: back to the file on show'],
    ],
  ],
  [
    'Texture gallery (Textures)',
    [
      ['Tab, Enter', "a card's name: the texture at full size"],
      ['Escape', 'back to the gallery, on the card'],
    ],
  ],
  ['A text file', [['find box', 'Enter: the next line holding the words, Shift + Enter: the previous']]],
  [
    'Inspector tree',
    [
      ['↑ ↓, Home End, Page Up / Down', 'move between records (the bytes follow)'],
      ['← →', 'collapse / expand, or go to the parent / first child'],
      ['Enter', 'expand / collapse the selected record'],
      ['* / −', 'expand / collapse all'],
    ],
  ],
  [
    'Hex view',
    [
      ['arrows, Page Up / Down, Home End', 'move the byte cursor (values at the cursor below)'],
      ['Enter', 'select the chunk that holds the byte'],
      ['offset box', 'go to a byte: decimal, or hex as 0x1F'],
      [
        'find box',
        'bytes as hex ("de ad 00") or text ("quoted" is always text); Enter: next, Shift+Enter: previous',
      ],
    ],
  ],
  ['Problems list (in the info pane)', [['Enter', 'go to the record the problem names']]],
  [
    'The archive grid (the Grid button)',
    [
      ['O', 'the archive grid, and back to the list (anywhere but a text box)'],
      ['← → ↑ ↓, Home End', 'move between the cards'],
      ['Enter, click', "open the card's file (O comes back to the grid where it was)"],
    ],
  ],
  [
    "Comparing two files (a file's menu in the list, or Compare with… in the info pane)",
    [
      ...COMPARE_KEYS.map(k => /** @type {[string, string]} */ ([k.label, k.what])),
      ['Escape', 'withdraw a Compare with… still waiting for its file'],
      ['drag the split, ← →', 'move the split between A and B'],
    ],
  ],
  [
    'Anywhere',
    [
      ['?', 'this list'],
      ['Escape', 'close it'],
    ],
  ],
];

export class Help {
  /** @param {HTMLElement} dialog @param {HTMLTableElement} table @param {HTMLButtonElement} openButton @param {HTMLButtonElement} closeButton */
  constructor(dialog, table, openButton, closeButton) {
    this.dialog = dialog;
    /** @type {HTMLElement | null} */
    this.returnFocus = null;
    const rows = [];
    for (const [group, keys] of viewKeys) {
      const head = document.createElement('tr');
      head.className = 'group';
      const th = document.createElement('th');
      th.colSpan = 2;
      th.scope = 'colgroup';
      th.textContent = group;
      head.append(th);
      rows.push(head);
      for (const [key, what] of keys) {
        const tr = document.createElement('tr');
        const k = document.createElement('th');
        k.scope = 'row';
        k.textContent = key;
        const d = document.createElement('td');
        d.textContent = what;
        tr.append(k, d);
        rows.push(tr);
      }
    }
    table.replaceChildren(...rows);
    openButton.addEventListener('click', () => this.toggle());
    closeButton.addEventListener('click', () => this.close());
    dialog.addEventListener('click', e => {
      if (e.target === dialog) this.close();
    });
    this.closeButton = closeButton;
    this.card = /** @type {HTMLElement} */ (dialog.querySelector('.help-card'));
    this.card.tabIndex = -1;
    dialog.addEventListener('keydown', e => {
      if (e.key === 'Escape' || e.key === '?') {
        e.preventDefault();
        this.close();
      } else if (e.key === 'Tab') {
        // One control in the dialog: focus stays in it.
        e.preventDefault();
        closeButton.focus();
      }
    });
  }

  get open() {
    return !this.dialog.hidden;
  }

  toggle() {
    if (this.open) this.close();
    else this.show();
  }

  // Opened at the top, the dialog itself focused (its heading and first keys in sight;
  // Tab reaches Close).
  show() {
    this.returnFocus = /** @type {HTMLElement | null} */ (document.activeElement);
    this.dialog.hidden = false;
    this.card.scrollTop = 0;
    this.card.focus({ preventScroll: true });
  }

  close() {
    if (!this.open) return;
    this.dialog.hidden = true;
    if (this.returnFocus?.focus) this.returnFocus.focus();
  }
}
