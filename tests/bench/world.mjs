// A world's first frame against the floor, on the path users take (the demo archive dropped
// as a folder): CITY.MAP (6,400 placements, its meshes baked into one draw) opened in
// relicview, and the same triangles as one mesh ready for the GPU (relicview's own .glb
// export of the world, its placements applied: tests/bench/floor.mjs) drawn by raw WebGL2
// from relicview's camera, each in a fresh page, alternating. relicview's clock stops at the
// page's relicview:frame event (the file drawn and rasterised), the floor's after its draw,
// each with one pixel read back. Both count the pixels they cover; where those differ by
// more than 1 % the run says so and reports no ratio. Reports when open() resolved (the
// panes filled after the frame), the longest main-thread task of each whole open, and where
// the time went: the open's own work before its draw calls, the first frame's raster (from
// the last batch's draw calls), a second frame alone.
// Asserts nothing about time.
//
// node tests/bench/world.mjs [REPETITIONS]

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { relicview, startServer, launch, median } from '../e2e/harness.mjs';
import { flatGlb, floorPage } from './floor.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const reps = process.env.RELICVIEW_BENCH_SMOKE ? 1 : Math.max(3, Number(process.argv[2]) || 5);
const root = scratchDir('world-bench');
relicview('demo', root);
const folder = join(root, 'DEMO');
const world = 'DEMO/MAPS/CITY.MAP';
// The floor's file, outside the folder given to relicview: the world exported, then flattened.
const exported = join(root, 'city.glb');
const flat = join(root, 'city.flat.glb');
relicview('export', join(root, world), '--root', root, '-o', exported);
const floorTriangles = flatGlb(exported, flat).triangles;

// The page is served with an empty archive: the folder is what it is given.
const served = scratchDir('world-served');
const server = await startServer(served);
const browser = await launch();

// One open in a fresh page with the folder dropped: → {ms, triangles, longest task (ms),
// camera, background, covered pixels, …}.
async function run(path) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}#folder=none`);
    await page.evaluate(() => window.relicview.ready);
    await page.locator('#folder-input').setInputFiles(folder);
    // The folder at rest: listed, typed, every name confirmed by content in the background
    // (an open asked for before then shares the thread with that confirmation).
    await page.waitForFunction(() => window.relicview.indexTimeline()?.confirmed, null, { timeout: 120000 });
    return await page.evaluate(async p => {
      const tasks = [];
      new PerformanceObserver(l => {
        for (const e of l.getEntries()) tasks.push(e);
      }).observe({ type: 'longtask' });
      const gl = document.getElementById('viewport').getContext('webgl2');
      // The clock stops at the page's relicview:frame event (the file drawn, every batch,
      // and rasterised; its panes are filled after), with a read-back there.
      let frameAt = null;
      const onFrame = e => {
        if (frameAt !== null || e.detail.path.toLowerCase() !== p.toLowerCase()) return;
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
        frameAt = performance.now();
      };
      document.addEventListener('relicview:frame', onFrame);
      const warm = window.relicview.coreWarmUp();
      const t0 = performance.now();
      await window.relicview.open(p);
      const tOpen = performance.now();
      document.removeEventListener('relicview:frame', onFrame);
      if (frameAt === null) throw new Error(`no relicview:frame event for ${p}`);
      const ms = frameAt - t0;
      // (Long tasks are reported after they end.) The whole open counts, panes included.
      await new Promise(r => setTimeout(r, 50));
      const longest = Math.max(
        0,
        ...tasks.filter(t => t.startTime >= t0 && t.startTime < tOpen).map(t => t.duration),
      );
      // The rasteriser alone: a second frame of the same view, drawn and read back.
      const r0 = performance.now();
      window.relicview.pixelStats();
      const second = performance.now() - r0;
      const o = window.relicview.lastOpen();
      const before = o.readMs + o.parseMs + o.assetsMs + o.buildMs + o.showMs + o.drawMs;
      // After the clock: the pixels covered (not within 2 of the background in any channel).
      const bg = window.relicview.pixelStats().background;
      const all = window.relicview.readPixels().data;
      let covered = 0;
      for (let i = 0; i < all.length; i += 4)
        if (
          Math.abs(all[i] - bg[0]) > 2 ||
          Math.abs(all[i + 1] - bg[1]) > 2 ||
          Math.abs(all[i + 2] - bg[2]) > 2
        )
          covered++;
      const canvas = document.getElementById('viewport');
      return {
        ms,
        open: tOpen - t0,
        triangles: window.relicview.stats().triangles,
        longest,
        second,
        before,
        raster: o.rasterMs,
        warmRounds: warm.rounds,
        warmMs: warm.ms,
        camera: window.relicview.camera(),
        background: bg,
        covered,
        size: [canvas.width, canvas.height],
      };
    }, path);
  } finally {
    await context.close();
  }
}

// The floor on a canvas of relicview's size, from its camera, its file read from a File.
async function floorRun(size, camera, background) {
  const context = await browser.newContext({
    viewport: { width: size[0] + 20, height: size[1] + 60 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  try {
    await page.route('**/__bench/floor.html', route =>
      route.fulfill({ status: 200, contentType: 'text/html', body: floorPage(size[0], size[1]) }),
    );
    await page.goto(`${server.url}/__bench/floor.html`);
    await page.waitForFunction(() => window.ready === true);
    await page.locator('#file').setInputFiles(flat);
    return await page.evaluate(
      async ([camera, background]) => {
        window.useCamera = camera;
        window.background = background;
        const out = await window.openFlatFile();
        return { ...out, second: window.again(), covered: window.covered() };
      },
      [camera, background],
    );
  } finally {
    await context.close();
  }
}

try {
  const keys = ['ms', 'open', 'longest', 'second', 'before', 'raster', 'warmRounds', 'warmMs', 'covered'];
  const w = Object.fromEntries(keys.map(k => [k, []]));
  const floor = { ms: [], second: [], covered: [] };
  let triangles = null;
  let size = null;
  for (let i = 0; i < reps; i++) {
    const a = await run(world);
    triangles = a.triangles;
    size = a.size;
    for (const k of keys) w[k].push(a[k]);
    const b = await floorRun(a.size, a.camera, a.background);
    floor.ms.push(b.totalMs);
    floor.second.push(b.second);
    floor.covered.push(b.covered);
  }
  const runs = xs => xs.map(x => x.toFixed(0)).join(' ');
  console.log(
    `a world's first rasterised frame, a dropped folder, a 1000×700 window (canvas ${size[0]}×${size[1]}), ${reps} alternating fresh pages, antialias on, 1-pixel read-back`,
  );
  console.log(
    `  CITY.MAP (6,400 placements)    ${String(triangles).padStart(8)} triangles  median ${median(w.ms).toFixed(0).padStart(6)} ms (runs: ${runs(w.ms)}); longest task ${Math.max(...w.longest).toFixed(0)} ms`,
  );
  console.log(
    `  floor: the same, one mesh      ${String(floorTriangles).padStart(8)} triangles  median ${median(floor.ms).toFixed(0).padStart(6)} ms (runs: ${runs(floor.ms)})`,
  );
  const [pa, pb] = [median(w.covered), median(floor.covered)];
  const apart = Math.abs(pa - pb) / Math.max(1, Math.min(pa, pb));
  console.log(
    `  pixels covered, from relicview's camera: relicview ${pa}, floor ${pb} (${(apart * 100).toFixed(2)} % apart)`,
  );
  if (apart > 0.01 || triangles !== floorTriangles)
    console.log(
      `  NOT LIKE WITH LIKE: ${triangles !== floorTriangles ? 'the triangles differ' : 'the frames cover pixels more than 1 % apart'}; no ratio is reported`,
    );
  else
    console.log(
      `  ratio world / floor: ${(median(w.ms) / median(floor.ms)).toFixed(2)}; the rasterisers alone (second frame): ${(median(w.second) / median(floor.second)).toFixed(2)}`,
    );
  console.log(`  open() resolved, the panes filled: ${median(w.open).toFixed(0)} ms`);
  // Where the time goes (medians): the open's own work before the draw calls, the first
  // frame's raster, and the rasteriser alone on a second frame (drawn and read back).
  console.log(
    `  CITY.MAP: before the draw calls ${median(w.before).toFixed(0)} ms, the last draw calls' raster ${median(w.raster).toFixed(0)} ms, a second frame ${median(w.second).toFixed(0)} ms; the floor's second frame ${median(floor.second).toFixed(0)} ms`,
  );
  console.log(
    `  before the clock, in idle time: the core's warm-up (a small built-in world and model opened from memory) ran ${median(w.warmRounds)} rounds in ${median(w.warmMs).toFixed(0)} ms (medians)`,
  );
} finally {
  await browser.close();
  server.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(served, { recursive: true, force: true });
}
