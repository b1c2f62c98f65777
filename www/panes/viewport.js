// @ts-check
// The canvas: sizing, pointer/wheel/touch input and an on-demand render loop. The camera
// maths lives in Rust (Viewer.orbit/pan/zoom); this only turns DOM events into calls.

// Keys that fly the camera: [forward, right, up] per second, at the viewer's fly speed.
/** @type {Record<string, [number, number, number]>} */
const FLY_KEYS = {
  KeyW: [1, 0, 0],
  KeyS: [-1, 0, 0],
  KeyD: [0, 1, 0],
  KeyA: [0, -1, 0],
  KeyE: [0, 0, 1],
  KeyQ: [0, 0, -1],
};

/** @typedef {import('../../pkg/relicview.js').FrameStats} FrameStats */

export class Viewport {
  /** @param {HTMLCanvasElement} canvas @param {import('../ground/state.js').Viewer} viewer */
  constructor(canvas, viewer) {
    this.canvas = canvas;
    this.viewer = viewer;
    // What the page does on these (main.js gives them): a frame drawn (its stats), a draw
    // that failed, a fly key pressed, a key on the view (→ whether it was taken), a pick at
    // view point (x, y), a double click; and whether the keys may fly the camera (unset: they do).
    /** @type {((stats: FrameStats) => void) | null} */
    this.onFrame = null;
    /** @type {((err: Error) => void) | null} */
    this.onError = null;
    /** @type {(() => void) | null} */
    this.onFly = null;
    /** @type {((e: KeyboardEvent) => boolean) | null} */
    this.onKey = null;
    /** @type {((x: number, y: number) => void) | null} */
    this.onPick = null;
    /** @type {(() => void) | null} */
    this.onDoubleClick = null;
    /** @type {(() => boolean) | null} */
    this.flyAllowed = null;
    /** @type {{ resolve: (stats: FrameStats) => void, reject: (err: unknown) => void }[]} */
    this.pending = [];
    this.scheduled = false;
    /** @type {Map<number, { x: number, y: number, button: number, startX: number, startY: number }>} */
    this.pointers = new Map();
    this.lastClick = false;
    // Fly keys held down, and the time of the last frame that moved by them.
    /** @type {Set<string>} */
    this.keys = new Set();
    /** @type {number | null} */
    this.lastFly = null;
    this.resize();
    new ResizeObserver(() => {
      this.resize();
      this.requestFrame();
    }).observe(canvas);
    this.bindInput();
  }

  // The core's viewer drawn with (a new one after the core restarts from a trap).
  /** @param {import('../ground/state.js').Viewer} viewer */
  useViewer(viewer) {
    this.viewer = viewer;
  }

  // Hold or release a fly key from an on-screen control (the fly pad).
  /** @param {string} code @param {boolean} down */
  hold(code, down) {
    if (!(code in FLY_KEYS)) return;
    if (down) this.keys.add(code);
    else this.keys.delete(code);
    this.requestFrame();
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
  /** @returns {Promise<FrameStats>} */
  requestFrame() {
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      requestAnimationFrame(now => {
        this.scheduled = false;
        const waiting = this.pending.splice(0);
        try {
          const stats = this.drawFrame(now);
          waiting.forEach(p => p.resolve(stats));
        } catch (e) {
          waiting.forEach(p => p.reject(e));
          if (this.onError) this.onError(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
  }

  // Draw now, in this task, instead of at the next animation frame (the first frame of a
  // file: its rasterising starts without waiting for the display); → the frame's stats.
  drawNow() {
    return this.drawFrame(performance.now());
  }

  // Resolves once the GPU has finished what was drawn so far (a fence, looked at between
  // tasks), or after `limitMs` whatever it says (a lost context never signals); → ms waited.
  /** @returns {Promise<number>} */
  rasterised(limitMs = 10000) {
    const gl = this.canvas.getContext('webgl2');
    const t0 = performance.now();
    const fence = gl?.fenceSync ? gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0) : null;
    if (!gl || !fence) return Promise.resolve(0);
    gl.flush();
    return new Promise(resolve => {
      const look = () => {
        const status = gl.isContextLost() ? null : gl.getSyncParameter(fence, gl.SYNC_STATUS);
        if (status === gl.SIGNALED || status === null || performance.now() - t0 > limitMs) {
          if (!gl.isContextLost()) gl.deleteSync(fence);
          resolve(performance.now() - t0);
        } else setTimeout(look, 2);
      };
      setTimeout(look, 0);
    });
  }

  /** @param {number} now @returns {FrameStats} */
  drawFrame(now) {
    this.resize();
    this.flyStep(now);
    const stats = this.viewer.render(now);
    if (this.onFrame) this.onFrame(stats);
    // Moving things, an upload under way and held fly keys need a steady stream of
    // frames; everything else draws on demand.
    const moving = (stats.animating && stats.playing) || stats.uploading || this.keys.size > 0;
    if (moving && !document.hidden) this.requestFrame();
    return stats;
  }

  // Move the camera by the fly keys held, for the time since the last frame.
  /** @param {number} now */
  flyStep(now) {
    if (this.keys.size === 0) {
      this.lastFly = null;
      return;
    }
    const dt = this.lastFly === null ? 1 / 60 : Math.min(0.1, (now - this.lastFly) / 1000);
    this.lastFly = now;
    const speed =
      this.viewer.flySpeed() * (this.keys.has('ShiftLeft') || this.keys.has('ShiftRight') ? 4 : 1) * dt;
    let [ahead, right, up] = [0, 0, 0];
    for (const k of this.keys) {
      const [a, r, u] = FLY_KEYS[k] || [0, 0, 0];
      [ahead, right, up] = [ahead + a, right + r, up + u];
    }
    if (ahead || right || up) {
      if (this.viewer.cameraMode() !== 'fly') this.viewer.setCameraMode('fly');
      this.viewer.fly(ahead * speed, right * speed, up * speed);
      if (this.onFly) this.onFly();
    }
  }

  bindInput() {
    const c = this.canvas;
    // The canvas takes the keyboard once clicked (or tabbed to): W A S D Q E fly where
    // flying is on (`flyAllowed`), every other key goes to `onKey` (true: it was used).
    c.addEventListener('keydown', e => {
      const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
      const flying = plain && (this.flyAllowed ? this.flyAllowed() : true);
      if (flying && (e.code in FLY_KEYS || e.code.startsWith('Shift'))) {
        e.preventDefault();
        this.keys.add(e.code);
        this.requestFrame();
        return;
      }
      if (this.onKey?.(e)) {
        e.preventDefault();
        this.requestFrame();
      }
    });
    c.addEventListener('keyup', e => this.keys.delete(e.code));
    c.addEventListener('blur', () => this.keys.clear());
    c.addEventListener('contextmenu', e => e.preventDefault());
    c.addEventListener('pointerdown', e => {
      c.focus({ preventScroll: true });
      this.pointers.set(e.pointerId, {
        x: e.clientX,
        y: e.clientY,
        button: e.button,
        startX: e.clientX,
        startY: e.clientY,
      });
      // Capture keeps a drag alive outside the canvas; it throws for pointers the browser
      // does not track (e.g. synthetic ones), which must not stop the gesture.
      try {
        c.setPointerCapture(e.pointerId);
      } catch {
        /* gesture works without capture */
      }
    });
    const release = (/** @type {PointerEvent} */ e) => this.pointers.delete(e.pointerId);
    c.addEventListener('pointerup', e => {
      const p = this.pointers.get(e.pointerId);
      release(e);
      // A click (not a drag) with the primary button picks what is under it; the second
      // click of a double-click does not (it frames, and `onDoubleClick` undoes the first
      // click's pick).
      this.lastClick =
        Boolean(p) && p?.button === 0 && Math.hypot(e.clientX - p.startX, e.clientY - p.startY) < 4;
    });
    c.addEventListener('click', e => {
      if (!this.lastClick || e.detail > 1 || !this.onPick) return;
      const r = c.getBoundingClientRect();
      const dpr = c.width / Math.max(1, r.width);
      this.onPick((e.clientX - r.left) * dpr, (e.clientY - r.top) * dpr);
    });
    c.addEventListener('pointercancel', release);
    c.addEventListener('pointermove', e => {
      const p = this.pointers.get(e.pointerId);
      if (!p) return;
      const dx = e.clientX - p.x;
      const dy = e.clientY - p.y;
      if (this.pointers.size === 2) {
        // Pinch: the change in finger distance zooms, the midpoint's motion pans.
        const [a, b] = [...this.pointers.values()];
        if (!a || !b) return;
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        p.x = e.clientX;
        p.y = e.clientY;
        const after = Math.hypot(a.x - b.x, a.y - b.y);
        if (before > 0 && after > 0) this.viewer.zoom(Math.log(after / before) / 0.15);
        this.viewer.pan(dx / 2, dy / 2);
      } else {
        p.x = e.clientX;
        p.y = e.clientY;
        if (p.button === 2 || p.button === 1 || e.shiftKey) this.viewer.pan(dx, dy);
        else this.viewer.orbit(dx, dy);
      }
      this.requestFrame();
    });
    c.addEventListener(
      'wheel',
      e => {
        e.preventDefault();
        // Pixel, line and page deltas all become "notches" of about 100 px.
        const scale = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
        // Towards the point under the cursor (the viewer stops short of the surface there).
        const r = c.getBoundingClientRect();
        const dpr = c.width / Math.max(1, r.width);
        this.viewer.zoomAt(-(e.deltaY * scale) / 100, (e.clientX - r.left) * dpr, (e.clientY - r.top) * dpr);
        this.requestFrame();
      },
      { passive: false },
    );
    c.addEventListener('dblclick', () => {
      if (this.onDoubleClick) this.onDoubleClick();
      else this.viewer.home();
      this.requestFrame();
    });
  }
}
