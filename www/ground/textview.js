// @ts-check
// Text with line numbers in a gutter; the text itself stays one text node (file strings
// reach the page as text). A long text keeps only the lines near those in sight in the DOM
// (its layout would hold the page). Found lines are marked by a bar under them, and
// scrolled into sight.

const TEXT_LINE_PX = 14; // matches .text-wrap in style.css
const TEXT_WINDOW = 400; // lines in the DOM at once, at most

// → the view's element, with its `lineCount` and `find(query, step)` attached: the next (+1) or previous (−1)
// line holding `query`, case aside, or the marked one if it still does (0)
// → {match, matches, line} (line counted from 1), or null for no query.
/**
 * @typedef {HTMLDivElement & { lineCount: number, find: (query: string, step?: number) => TextFound | null }} TextViewElement
 * @typedef {{ match: number, matches: number, line: number | null }} TextFound
 */
/** @param {string} text */
export function textView(text) {
  const wrap = /** @type {TextViewElement} */ (document.createElement('div'));
  wrap.className = 'text-wrap';
  // Scrolled by the keyboard too.
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', 'Text');
  // A final line break ends the last line; it does not start another.
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  wrap.lineCount = lines.length;
  const gutter = document.createElement('pre');
  gutter.className = 'line-numbers';
  gutter.setAttribute('aria-hidden', 'true');
  const pre = document.createElement('pre');
  pre.className = 'text-view';
  const hit = document.createElement('div');
  hit.className = 'text-hit';
  hit.hidden = true;
  /** @param {number} first @param {number} last */
  const show = (first, last) => {
    gutter.textContent = Array.from({ length: last - first }, (_, i) => first + i + 1).join('\n');
    pre.textContent =
      lines.slice(first, last).join('\n') + (last === lines.length && text.endsWith('\n') ? '\n' : '');
  };
  /** @type {(reset?: boolean) => void} */
  let render = () => {};
  if (lines.length <= TEXT_WINDOW) {
    show(0, lines.length);
    wrap.append(hit, gutter, pre);
  } else {
    wrap.classList.add('windowed');
    const spacer = document.createElement('div');
    spacer.className = 'text-spacer';
    spacer.style.height = `${lines.length * TEXT_LINE_PX}px`;
    const inner = document.createElement('div');
    inner.className = 'text-lines';
    inner.append(gutter, pre);
    wrap.append(hit, spacer, inner);
    let shown = -1;
    render = (force = false) => {
      const top = Math.floor(wrap.scrollTop / TEXT_LINE_PX);
      if (!force && shown >= 0 && top >= shown && top <= shown + TEXT_WINDOW / 2) return;
      const first = Math.max(0, Math.min(top - TEXT_WINDOW / 4, lines.length - TEXT_WINDOW));
      if (first === shown) return;
      shown = first;
      inner.style.top = `${first * TEXT_LINE_PX}px`;
      show(first, Math.min(lines.length, first + TEXT_WINDOW));
    };
    wrap.addEventListener('scroll', () => render());
    render(true);
  }
  let at = -1;
  wrap.find = (/** @type {string} */ query, step = 1) => {
    const q = query.toLowerCase();
    if (!q) {
      hit.hidden = true;
      at = -1;
      return null;
    }
    const matching = [];
    for (const [i, line] of lines.entries()) {
      if (matching.length >= 100_000) break;
      if (line.toLowerCase().includes(q)) matching.push(i);
    }
    if (!matching.length) {
      hit.hidden = true;
      return { match: 0, matches: 0, line: null };
    }
    // The next matching line after the one marked (or the first), round the end.
    // (Step 0: the words changed; the line marked stays if it still holds them.)
    let k =
      step > 0
        ? matching.findIndex(i => i > at)
        : step === 0
          ? matching.findIndex(i => i >= at)
          : matching.findLastIndex(i => i < at);
    if (k < 0) k = step < 0 ? matching.length - 1 : 0;
    at = matching[k] ?? 0;
    hit.hidden = false;
    hit.style.top = `${at * TEXT_LINE_PX}px`;
    hit.style.width = `${wrap.scrollWidth}px`;
    const y = at * TEXT_LINE_PX;
    if (y < wrap.scrollTop || y + TEXT_LINE_PX > wrap.scrollTop + wrap.clientHeight)
      wrap.scrollTop = Math.max(0, y - wrap.clientHeight / 3);
    render(true);
    return { match: k + 1, matches: matching.length, line: at + 1 };
  };
  return wrap;
}
