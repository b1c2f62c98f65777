// @ts-check
// An element's client size as its ResizeObserver last reported it. Reading clientWidth,
// clientHeight or scrollTop after the DOM has changed makes the browser lay the whole page
// out there and then (some 25 ms with a large file's inspector); a size read here costs
// nothing, and the page is laid out once, when the browser next draws. The observer reports
// the element's size once after it is first laid out, and again on every change.
/** @param {HTMLElement} el @param {() => void} [onResize] */
export function observedSize(el, onResize = () => {}) {
  const size = { width: el.clientWidth, height: el.clientHeight };
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      // (Inside the observer's callback the layout is fresh: these reads cost nothing.)
      size.width = el.clientWidth;
      size.height = el.clientHeight;
      onResize();
    }).observe(el);
  }
  return size;
}
