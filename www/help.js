// The keys of the viewer, listed once: the help overlay (?) shows this table, the README's
// "Using the viewer" lists the same, and main.js dispatches the view's keys by it.

export const viewKeys = [
  ['The view (click it or Tab to it first)', [
    ['← → ↑ ↓', 'orbit the camera around its target'],
    ['Shift + arrows', 'pan'],
    ['+ / −', 'zoom in / out (towards the middle of the view)'],
    ['F', 'frame the model, or the selected chunk'],
    ['W', 'wireframe on / off (in orbit mode)'],
    ['B', 'hide / show back faces'],
    ['L', 'next level of detail'],
    ['G', 'background: dark, light, checker'],
    ['I', 'lighting: game, sun, camera, stored colours'],
    ['1 / 3 / 7', 'look from the front / side / top'],
    ['V', 'switch the camera between orbit and fly'],
    ['M', 'measure: a click takes a point of the surface (a corner snaps), two give their distance'],
    ['Z', 'each damage zone in its own colour (a model with zones: the Parts view)'],
    ['W A S D, Q E', 'fly (in fly mode or at a viewpoint); Shift: faster'],
    ['Space', 'play / pause the clock (doors, scrolling textures)'],
  ]],
  ['Mouse', [
    ['drag', 'orbit (flying: look around)'],
    ['right-drag, Shift + drag', 'pan'],
    ['wheel, pinch', 'zoom towards the point under the cursor; never through the surface'],
    ['click', 'pick a face: its chunk and bytes in the inspector'],
    ['double-click', 'frame the model'],
  ]],
  ['A picture (an image, FIELD.TDB)', [
    ['+ / −, wheel', 'zoom in / out (the wheel about the pointer), up to 64 pixels a texel'],
    ['0, F', 'fit the picture in the view'],
    ['1', 'one texel to a pixel'],
    ['drag', 'pan; the texel under the pointer is read out below'],
    ['click', 'on a sheet\'s image: its bytes in the inspector'],
  ]],
  ['File list', [
    ['↑ ↓, Home End', 'open the previous / next file'],
    ['← →', 'fold / unfold the current folder'],
    ['typing', 'search the names'],
  ]],
  ['Inspector tree', [
    ['↑ ↓, Home End, Page Up / Down', 'move between records (the bytes follow)'],
    ['← →', 'collapse / expand, or go to the parent / first child'],
    ['Enter', 'expand / collapse the selected record'],
    ['* / −', 'expand / collapse all'],
  ]],
  ['Hex view', [
    ['arrows, Page Up / Down, Home End', 'move the byte cursor (values at the cursor below)'],
    ['Enter', 'select the chunk that holds the byte'],
    ['offset box', 'go to a byte: decimal, or hex as 0x1F'],
    ['find box', 'bytes as hex ("de ad 00") or text ("quoted" is always text); Enter: next, Shift+Enter: previous'],
  ]],
  ['Comparing two files (a file\'s menu in the list, or Compare with… in the info pane)', [
    ['N, Shift+N / P', 'the next / previous difference (both records and their bytes selected)'],
    ['X', 'switch the view between A and B'],
    ['C', 'the next way to show them: A, B, overlay (B ghosted over A), split, difference'],
    ['drag the split, ← →', 'move the split between A and B'],
  ]],
  ['Anywhere', [
    ['?', 'this list'],
    ['Escape', 'close it'],
  ]],
];

export class Help {
  constructor(dialog, table, openButton, closeButton) {
    this.dialog = dialog;
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
    dialog.addEventListener('click', (e) => { if (e.target === dialog) this.close(); });
    this.closeButton = closeButton;
    dialog.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' || e.key === '?') {
        e.preventDefault();
        this.close();
      } else if (e.key === 'Tab') {
        // One control in the dialog: focus stays on it.
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

  show() {
    this.returnFocus = document.activeElement;
    this.dialog.hidden = false;
    this.closeButton.focus();
  }

  close() {
    if (!this.open) return;
    this.dialog.hidden = true;
    if (this.returnFocus && this.returnFocus.focus) this.returnFocus.focus();
  }
}
