// What the user waits for: from "open this model" until its first frame has been rasterised,
// relicview against the glTF path (the same triangles exported with relicview's own exporter,
// loaded by three.js + GLTFLoader) and against the floor (the same triangles as one mesh
// ready for the GPU, drawn by raw WebGL2: tests/bench/floor.mjs). All sides run in fresh
// pages of the same headless Chromium, alternating, on canvases of the same size with
// antialiasing on, and all stop the clock only after reading one pixel back (gl.readPixels
// forces the frame to be rasterised; a returned draw call proves nothing). relicview's clock
// stops at its `relicview:frame` event (the file drawn and rasterised, before the page fills
// its info pane and inspector, as the others' stop before anything a viewer would do after
// its frame); when open() resolved, with the panes filled, is reported beside it. Prints
// medians and ratios; asserts nothing about time.
//
// Like with like: a frame's cost on a software rasteriser grows with the pixels it covers,
// so the other pages draw from relicview's own camera (window.relicview.camera(): position,
// target, vertical field of view; +Y up) on its background, and each side's covered pixels
// (not within 2 of the background in any channel) are counted after the clock. Where they
// differ by more than 1 % the run says so and reports no ratio.
//
// Two paths, each at two window sizes (the canvas is what relicview's layout gives it, and
// three.js draws on a canvas of that size): a served archive (relicview reads the model over
// HTTP; three.js fetches the .glb), and a dropped folder (relicview is given the folder through
// its folder input, as a user's drop; three.js reads the .glb from a File, as a drop onto a
// three.js viewer would).
//
// node tests/bench/first-frame.mjs [REPETITIONS] [WORKER_THRESHOLD] [--only served|dropped]
//   (scripts/bench.sh prepares the model)

import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repo, relicview, startServer, launch, withThree, median } from '../e2e/harness.mjs';
import { flatGlb, floorPage } from './floor.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

// (CI's smoke run, scripts/bench.sh --smoke, takes one repetition: it proves the bench runs.)
const reps = process.env.RELICVIEW_BENCH_SMOKE ? 1 : Math.max(5, Number(process.argv[2]) || 7);
// Optional: the size from which the page opens files in its worker (default: the page's own).
const workerThreshold =
  process.argv[3] === undefined || process.argv[3].startsWith('--') ? null : Number(process.argv[3]);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
const windows = process.env.RELICVIEW_BENCH_SMOKE
  ? [[1000, 700]]
  : [
      [1000, 700],
      [1400, 850],
    ];
const paths = (only ? [only] : ['dropped', 'served']).filter(
  p => !process.env.RELICVIEW_BENCH_SMOKE || p === 'dropped',
);
const source = join(repo, 'target/bench/open500k/TERRAIN.BGF');
if (!existsSync(source)) throw new Error(`${source} is missing: run cargo bench --bench throughput first`);
// The archive served: the model, its .glb, and a small model listed first, which the page
// opens on its own at start (the clock starts once that open is over).
const dir = join(repo, 'target/bench/first-frame');
const model = 'TERRAIN.BGF';
const glb = 'TERRAIN.glb';
mkdirSync(dir, { recursive: true });
copyFileSync(source, join(dir, model));
const demo = scratchDir('bench');
relicview('demo', demo);
copyFileSync(join(demo, 'DEMO/VIDEO/CUBE.BGF'), join(dir, 'A_CUBE.BGF'));
rmSync(demo, { recursive: true });
relicview('export', join(dir, model), '-o', join(dir, glb));
// The floor's file: the same triangles, one mesh, ready for the GPU.
const flat = 'TERRAIN.flat.glb';
flatGlb(join(dir, glb), join(dir, flat));

const f = x => x.toFixed(1).padStart(7);

// The three.js page: three-gltf-viewer's set-up (a PBR material lit by an ambient and a
// directional light), the renderer made before the clock starts, as relicview's context is.
// `openGlb(url)` fetches the model; `openGlbFile()` reads the File given to its input.
const threePage = (width, height) => `<!doctype html><meta charset="utf-8">
<style>html,body{margin:0;background:#000}canvas{display:block;width:${width}px;height:${height}px}</style>
<canvas id="c" width="${width}" height="${height}"></canvas><input type="file" id="file">
<script type="module">
import * as THREE from '/__three/build/three.module.js';
import { GLTFLoader } from '/__three/examples/jsm/loaders/GLTFLoader.js';
const canvas = document.getElementById('c');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
renderer.setPixelRatio(1);
renderer.setSize(${width}, ${height}, false);
const gl = renderer.getContext();
const pixel = new Uint8Array(4);
const sync = () => gl.readPixels(${width >> 1}, ${height >> 1}, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
// relicview's camera, handed over before the clock starts (null: three-gltf-viewer's own).
window.useCamera = null;
window.background = [0x1a, 0x1d, 0x24];
const show = (gltf, t0, tl) => {
  const BACKGROUND = window.background;
  const scene = new THREE.Scene();
  scene.background = new THREE.Color().setRGB(...BACKGROUND.map((c) => c / 255), THREE.SRGBColorSpace);
  scene.add(new THREE.AmbientLight(0xffffff, 0.6));
  const sun = new THREE.DirectionalLight(0xffffff, 2.5);
  sun.position.set(0.5, 0, 0.866);
  scene.add(sun);
  scene.add(gltf.scene);
  const box = new THREE.Box3().setFromObject(gltf.scene);
  const size = box.getSize(new THREE.Vector3()).length();
  const centre = box.getCenter(new THREE.Vector3());
  const given = window.useCamera;
  const camera = new THREE.PerspectiveCamera(given ? given.fov : 45, ${width} / ${height}, size / 100, size * 100);
  if (given) camera.position.set(...given.position);
  else camera.position.copy(centre).add(new THREE.Vector3(size / 2, size / 5, size / 2));
  camera.up.set(0, 1, 0);
  camera.lookAt(given ? new THREE.Vector3(...given.target) : centre);
  renderer.render(scene, camera);
  sync();
  const t1 = performance.now();
  window.again = () => { const t = performance.now(); renderer.render(scene, camera); sync(); return performance.now() - t; };
  // After the clock: the pixels the model covers (not the background colour).
  window.covered = () => {
    renderer.render(scene, camera);
    const all = new Uint8Array(${width} * ${height} * 4);
    gl.readPixels(0, 0, ${width}, ${height}, gl.RGBA, gl.UNSIGNED_BYTE, all);
    let n = 0;
    for (let i = 0; i < all.length; i += 4) if (Math.abs(all[i] - BACKGROUND[0]) > 2 || Math.abs(all[i + 1] - BACKGROUND[1]) > 2 || Math.abs(all[i + 2] - BACKGROUND[2]) > 2) n++;
    return n;
  };
  let triangles = 0;
  gltf.scene.traverse((o) => { if (o.isMesh) triangles += o.geometry.index ? o.geometry.index.count / 3 : o.geometry.attributes.position.count / 3; });
  return { totalMs: t1 - t0, loadMs: tl - t0, firstFrameMs: t1 - tl, triangles, pixel: [...pixel] };
};
window.openGlb = async (url) => {
  const t0 = performance.now();
  const gltf = await new GLTFLoader().loadAsync(url);
  return show(gltf, t0, performance.now());
};
window.openGlbFile = async () => {
  const t0 = performance.now();
  const bytes = await document.getElementById('file').files[0].arrayBuffer();
  const gltf = await new GLTFLoader().parseAsync(bytes, '');
  return show(gltf, t0, performance.now());
};
window.ready = true;
</script>`;

const server = await startServer(dir);
const browser = await launch();
// A page in a window of its own size.
const windowPage = async ([width, height]) => {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  return { context, page: await context.newPage() };
};

// relicview: the archive listed (served, or the folder given to its folder input) and its
// first model shown before the clock starts; → what one open took.
async function relicviewRun(path, win) {
  const { context, page } = await windowPage(win);
  try {
    await page.goto(server.url);
    await page.evaluate(() => window.relicview.ready);
    // The first model the page opens on its own: the clock starts once that open is over.
    const folder = path === 'dropped' ? `${dir.split('/').pop()}/` : '';
    if (path === 'dropped') {
      await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'A_CUBE.BGF', null, {
        timeout: 60000,
      });
      await page.locator('#folder-input').setInputFiles(dir);
    }
    await page.waitForFunction(first => window.relicview.lastOpen()?.path === first, `${folder}A_CUBE.BGF`, {
      timeout: 60000,
    });
    const name = `${folder}${model}`;
    return await page.evaluate(
      async ([m, threshold]) => {
        if (threshold !== null) window.relicview.setWorkerThreshold(threshold);
        const canvas = document.getElementById('viewport');
        const gl = canvas.getContext('webgl2');
        const pixel = new Uint8Array(4);
        // The page says when the file is drawn and rasterised (before it fills its panes); the
        // clock stops at a read-back there, which waits for the GPU if it has not finished.
        let frameAt = null;
        const onFrame = e => {
          if (frameAt !== null || e.detail.path.toLowerCase() !== m.toLowerCase()) return;
          gl.readPixels(canvas.width >> 1, canvas.height >> 1, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
          frameAt = performance.now();
        };
        document.addEventListener('relicview:frame', onFrame);
        // What the page's idle warm-up of its core had done by the time the clock starts.
        const warm = window.relicview.coreWarmUp();
        const t0 = performance.now();
        const opened = await window.relicview.open(m);
        const t1 = performance.now();
        document.removeEventListener('relicview:frame', onFrame);
        if (frameAt === null) throw new Error(`no relicview:frame event for ${m}`);
        // After the clock: its camera (for three.js) and the pixels the model covers, by the
        // same rule as three.js's (not within 2 of the background in any channel).
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
        return {
          totalMs: frameAt - t0,
          openMs: t1 - t0,
          opened,
          width: canvas.width,
          height: canvas.height,
          pixel: [...pixel],
          camera: window.relicview.camera(),
          background: bg,
          covered,
          parts: window.relicview.lastOpen(),
          rasterMs: window.relicview.rasterMs(),
          warmUpMs: window.relicview.warmUpMs(),
          coreWarmUpMs: warm.ms,
          coreWarmUpRounds: warm.rounds,
        };
      },
      [name, workerThreshold],
    );
  } finally {
    await context.close();
  }
}

// Another page on a canvas of relicview's size, from relicview's camera, opening its file
// `name` fetched (served) or read from a File (dropped): three.js + GLTFLoader, or the floor.
const SIDES = {
  three: { html: threePage, file: glb, fetch: 'openGlb', read: 'openGlbFile', three: true },
  floor: { html: floorPage, file: flat, fetch: 'openFlat', read: 'openFlatFile', three: false },
};
async function otherRun(side, path, size, camera, background) {
  const { html, file, fetch, read, three } = SIDES[side];
  const { context, page } = await windowPage([Math.max(size[0] + 20, 400), size[1] + 60]);
  try {
    if (three) await withThree(page);
    await page.route(`**/__bench/${side}.html`, route =>
      route.fulfill({ status: 200, contentType: 'text/html', body: html(size[0], size[1]) }),
    );
    await page.goto(`${server.url}/__bench/${side}.html`);
    await page.waitForFunction(() => window.ready === true);
    if (path === 'dropped') await page.locator('#file').setInputFiles(join(dir, file));
    return await page.evaluate(
      async ([open, url, camera, background]) => {
        window.useCamera = camera;
        window.background = background;
        const out = await window[open](url);
        return { ...out, rasterMs: window.again(), covered: window.covered() };
      },
      [path === 'dropped' ? read : fetch, `/archive/${file}`, camera, background],
    );
  } finally {
    await context.close();
  }
}

try {
  const glbBytes = readFileSync(join(dir, glb)).length;
  const bgfBytes = readFileSync(join(dir, model)).length;
  const flatBytes = readFileSync(join(dir, flat)).length;
  for (const path of paths) {
    for (const win of windows) {
      const rv = { total: [], open: [], raster: [], parts: [], covered: [] };
      const others = {
        three: { total: [], raster: [], load: [], covered: [] },
        floor: { total: [], raster: [], load: [], covered: [] },
      };
      let size = null;
      const triangles = {};
      for (let i = 0; i < reps; i++) {
        const r = await relicviewRun(path, win);
        size = [r.width, r.height];
        triangles.relicview = r.opened.triangles;
        rv.total.push(r.totalMs);
        rv.open.push(r.openMs);
        rv.raster.push(r.rasterMs);
        rv.parts.push({
          ...r.parts,
          warmUpMs: r.warmUpMs,
          coreWarmUpMs: r.coreWarmUpMs,
          coreWarmUpRounds: r.coreWarmUpRounds,
        });
        rv.covered.push(r.covered);
        for (const side of ['three', 'floor']) {
          const t = await otherRun(side, path, size, r.camera, r.background);
          const o = others[side];
          o.covered.push(t.covered);
          triangles[side] = t.triangles;
          o.total.push(t.totalMs);
          o.raster.push(t.rasterMs);
          o.load.push(t.loadMs);
        }
      }
      const { three, floor } = others;
      const part = k => median(rv.parts.map(p => p[k]));
      console.log(
        `first rasterised frame, ${path === 'dropped' ? 'a dropped folder' : 'a served archive'}, a ${win[0]}×${win[1]} window (canvas ${size[0]}×${size[1]}), ${reps} alternating fresh pages, antialias on, 1-pixel read-back`,
      );
      console.log(
        `  model: ${model} ${(bgfBytes / 1e6).toFixed(1)} MB, ${triangles.relicview} triangles; ${glb} ${(glbBytes / 1e6).toFixed(1)} MB, ${triangles.three} triangles in three.js; ${flat} ${(flatBytes / 1e6).toFixed(1)} MB, ${triangles.floor} triangles for the floor`,
      );
      const runs = xs => xs.map(x => x.toFixed(0)).join(' ');
      console.log(`  relicview            median ${f(median(rv.total))} ms   (runs: ${runs(rv.total)})`);
      console.log(
        `  three.js+GLTFLoader  median ${f(median(three.total))} ms   (runs: ${runs(three.total)})`,
      );
      console.log(
        `  floor (raw WebGL2)   median ${f(median(floor.total))} ms   (runs: ${runs(floor.total)})`,
      );
      // Like with like: the same camera must cover the same pixels on every side.
      const pixels = {
        relicview: median(rv.covered),
        three: median(three.covered),
        floor: median(floor.covered),
      };
      const apart = Math.max(...Object.values(pixels)) / Math.max(1, Math.min(...Object.values(pixels))) - 1;
      console.log(
        `  pixels covered, from relicview's camera: relicview ${pixels.relicview}, three.js ${pixels.three}, floor ${pixels.floor} (at most ${(apart * 100).toFixed(2)} % apart)`,
      );
      const alike = apart <= 0.01;
      if (!alike)
        console.log(
          `  NOT LIKE WITH LIKE: the frames cover pixels more than 1 % apart; no ratio is reported`,
        );
      const ratio = (a, b) => (alike ? `ratio ${(a / b).toFixed(2)}` : 'no ratio: not like with like');
      if (alike) {
        console.log(`  ratio relicview / three.js: ${(median(rv.total) / median(three.total)).toFixed(2)}`);
        console.log(
          `  ratio relicview / floor: ${(median(rv.total) / median(floor.total)).toFixed(2)} (three.js / floor: ${(median(three.total) / median(floor.total)).toFixed(2)})`,
        );
      }
      const worker = rv.parts.filter(p => p.worker).length;
      console.log(
        `  relicview opened it ${worker === reps ? 'in its worker' : worker === 0 ? "on the page's thread" : `in its worker ${worker} times of ${reps}`}${worker ? ` (packing ${f(part('packMs'))} · delivery ${f(part('deliverMs'))} · unpacking and bounds ${f(part('showMs'))})` : ''}`,
      );
      console.log(
        `  relicview parts (medians): read ${f(part('readMs'))} · parse ${f(part('parseMs'))} · inspector ${f(part('inspectMs'))} · build ${f(part('buildMs'))} · upload ${f(part('uploadMs'))} · first frame ${f(part('drawMs'))}`,
      );
      console.log(
        `  relicview open() resolved after ${f(median(rv.open))} ms, its panes (info, inspector) filled after the frame (to three.js's frame: ${ratio(median(rv.open), median(three.total))})`,
      );
      console.log(
        `  rasteriser alone (a second frame, read back): relicview ${f(median(rv.raster))} ms, three.js ${f(median(three.raster))} ms, floor ${f(median(floor.raster))} ms (relicview / floor: ${ratio(median(rv.raster), median(floor.raster))})`,
      );
      const least = part('readMs') + part('parseMs') + median(rv.raster);
      console.log(
        `  relicview total is ${f(median(rv.total) - least)} ms (${(median(rv.total) / least).toFixed(2)}×) above its own read + parse + rasteriser (${least.toFixed(1)} ms)`,
      );
      console.log(
        `  before the clock, at page start: relicview compiled its model shaders and let the rasteriser build its routines in ${f(part('warmUpMs'))} ms (page's share; three.js compiles in its first frame, not knowing the materials before the file)`,
      );
      console.log(
        `  before the clock, in idle time: relicview's core warm-up (a small built-in world and model opened from memory) ran ${part('coreWarmUpRounds')} rounds in ${f(part('coreWarmUpMs'))} ms (medians; three.js's loader runs its first file cold)`,
      );
      console.log(
        `  three.js load (${path === 'dropped' ? 'File read' : 'fetch'} + GLTFLoader) ${f(median(three.load))} ms; the floor's ${path === 'dropped' ? 'File read' : 'fetch'} ${f(median(floor.load))} ms`,
      );
    }
  }
} finally {
  await browser.close();
  server.stop();
}
