// The canvas: sizing, pointer/wheel/touch input and an on-demand render loop. The camera
// maths lives in Rust (Viewer.orbit/pan/zoom); this only turns DOM events into calls.

export class Viewport {
  constructor(canvas, viewer) {
    this.canvas = canvas;
    this.viewer = viewer;
    this.pending = [];
    this.scheduled = false;
    this.pointers = new Map();
    this.resize();
    new ResizeObserver(() => { this.resize(); this.requestFrame(); }).observe(canvas);
    this.bindInput();
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    this.viewer.resize(w, h);
  }

  // Resolves with the frame's stats once the next frame has been drawn.
  requestFrame() {
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      requestAnimationFrame((now) => {
        this.scheduled = false;
        const waiting = this.pending.splice(0);
        try {
          this.resize();
          const stats = this.viewer.render(now);
          if (this.onFrame) this.onFrame(stats);
          waiting.forEach((p) => p.resolve(stats));
          // Scrolling textures need a steady stream of frames; everything else draws on demand.
          if (stats.animating && !document.hidden) this.requestFrame();
        } catch (e) {
          waiting.forEach((p) => p.reject(e));
        }
      });
    });
  }

  bindInput() {
    const c = this.canvas;
    c.addEventListener('contextmenu', (e) => e.preventDefault());
    c.addEventListener('pointerdown', (e) => {
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, button: e.button, startX: e.clientX, startY: e.clientY });
      // Capture keeps a drag alive outside the canvas; it throws for pointers the browser
      // does not track (e.g. synthetic ones), which must not stop the gesture.
      try { c.setPointerCapture(e.pointerId); } catch { /* gesture works without capture */ }
    });
    const release = (e) => this.pointers.delete(e.pointerId);
    c.addEventListener('pointerup', (e) => {
      const p = this.pointers.get(e.pointerId);
      release(e);
      // A click (not a drag) with the primary button picks what is under it.
      if (p && p.button === 0 && Math.hypot(e.clientX - p.startX, e.clientY - p.startY) < 4 && this.onPick) {
        const r = c.getBoundingClientRect();
        const dpr = c.width / Math.max(1, r.width);
        this.onPick((e.clientX - r.left) * dpr, (e.clientY - r.top) * dpr);
      }
    });
    c.addEventListener('pointercancel', release);
    c.addEventListener('pointermove', (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p) return;
      const dx = e.clientX - p.x;
      const dy = e.clientY - p.y;
      if (this.pointers.size === 2) {
        // Pinch: the change in finger distance zooms, the midpoint's motion pans.
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        p.x = e.clientX; p.y = e.clientY;
        const after = Math.hypot(a.x - b.x, a.y - b.y);
        if (before > 0 && after > 0) this.viewer.zoom(Math.log(after / before) / 0.15);
        this.viewer.pan(dx / 2, dy / 2);
      } else {
        p.x = e.clientX; p.y = e.clientY;
        if (p.button === 2 || p.button === 1 || e.shiftKey) this.viewer.pan(dx, dy);
        else this.viewer.orbit(dx, dy);
      }
      this.requestFrame();
    });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      // Pixel, line and page deltas all become "notches" of about 100 px.
      const scale = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
      this.viewer.zoom(-(e.deltaY * scale) / 100);
      this.requestFrame();
    }, { passive: false });
    c.addEventListener('dblclick', () => { this.viewer.home(); this.requestFrame(); });
  }
}
