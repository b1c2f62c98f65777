// A shared link opened by someone whose cache is empty: the path users take when a permalink
// is posted. Two archives are published with `relicview publish` (the demo, and a real FF7
// field folder: MD1_1.BSX with FIELD.TDB and FIELD.BIN beside it) and served by Debian's
// nginx as docs/publishing.md configures it; beside them, on the same host, the peer: a
// three.js + GLTFLoader page bundled and minified by esbuild (tests/bench/peer/), given the
// .glb `relicview export` writes for the same model, drawn from relicview's camera on its
// background on a canvas of relicview's size.
//
// Each run is a fresh browser context (an empty cache) with Chromium's network emulation
// (DevTools protocol) at two lines, a home line (20 Mbit/s, 40 ms) and a phone's (5 Mbit/s,
// 150 ms); the two sides alternate. The clock runs from navigation start to the model's
// first rasterised frame: relicview's `relicview:frame` event (a pixel read back there), the
// peer's first render (read back). Bytes are the network's encoded lengths of the responses
// that had ended by then. Then, per side of relicview:
// - a second visit: the same link in a new tab of the same context (a warm cache);
// - a second model of the same site, opened in the first page: what it fetched, and whether
//   any of it was the page's own code.
// Reports medians and ratios, the requests of one cold load, and every asset's size raw /
// gzip / brotli. Asserts nothing about time.
//
// node tests/bench/cold-link.mjs [REPETITIONS]
//   (RELICVIEW_BENCH_SMOKE: one repetition, the demo and the home line only)

import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { repo, relicview, launch, walk, median } from '../e2e/harness.mjs';
import { startNginx } from '../e2e/nginx.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const smoke = Boolean(process.env.RELICVIEW_BENCH_SMOKE);
const reps = smoke ? 1 : Math.max(3, Number(process.argv[2]) || 7);
const WINDOW = { width: 1000, height: 700 };
const NETWORKS = [
  { name: 'home line, 20 Mbit/s, 40 ms', down: 20e6 / 8, up: 5e6 / 8, latency: 40 },
  { name: 'phone line, 5 Mbit/s, 150 ms', down: 5e6 / 8, up: 1e6 / 8, latency: 150 },
].slice(0, smoke ? 1 : 2);

const root = scratchDir('cold-link');
const host = join(root, 'host');
mkdirSync(host);

// The archives: the demo, and the real FF7 files under the names they have on the disc.
const demo = join(root, 'DEMO-ARCHIVE');
relicview('demo', demo);
const ff7 = join(root, 'FF7');
mkdirSync(join(ff7, 'FIELD'), { recursive: true });
const shared = join(repo, '../shared/testdata/ff7');
for (const [from, to] of [
  ['MD1_1_u.BSX', 'FIELD/MD1_1.BSX'],
  ['NMKIN_1_u.BSX', 'FIELD/NMKIN_1.BSX'],
  ['FIELD.TDB_u', 'FIELD/FIELD.TDB'],
  ['FIELD.BIN_u', 'FIELD/FIELD.BIN'],
])
  copyFileSync(join(shared, from), join(ff7, to));
const SITES = [
  { name: 'demo', archive: demo, model: 'DEMO/VIDEO/WALKER.BGF', second: 'DEMO/VIDEO/TOWER.BGF' },
  { name: 'ff7', archive: ff7, model: 'FIELD/MD1_1.BSX', second: 'FIELD/NMKIN_1.BSX' },
].slice(0, smoke ? 1 : 2);

// The peer's code, bundled and minified once, named by its content as relicview's is.
const esbuild = join(repo, 'node_modules/.bin/esbuild');
const peerJs = join(root, 'peer.js');
execFileSync(
  esbuild,
  [
    join(repo, 'tests/bench/peer/three-viewer.js'),
    '--bundle',
    '--minify',
    '--format=esm',
    `--outfile=${peerJs}`,
  ],
  {
    stdio: 'ignore',
    env: { ...process.env, NODE_PATH: join(repo, 'tests/e2e/node_modules') },
    cwd: join(repo, 'tests/e2e'),
  },
);
const peerName = `viewer.${createHash('sha256').update(readFileSync(peerJs)).digest('hex').slice(0, 12)}.js`;

for (const site of SITES) {
  relicview('publish', site.archive, join(host, `relicview-${site.name}`));
  const peer = join(host, `three-${site.name}`);
  mkdirSync(peer);
  copyFileSync(peerJs, join(peer, peerName));
  relicview('export', join(site.archive, site.model), '--root', site.archive, '-o', join(peer, 'model.glb'));
}
const nginx = await startNginx({ host: { root: host, site: true } });
const browser = await launch();

const kb = n => `${(n / 1000).toFixed(1)} kB`;

// A page in a fresh context (an empty cache) on the emulated line; `requests()` lists what
// the network did: {url, start, end (monotonic s), bytes (encoded), cached, worker}.
async function linePage(network, context = null) {
  context ||= await browser.newContext({ viewport: WINDOW, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const seen = new Map();
  let navigation = null;
  cdp.on('Network.requestWillBeSent', e => {
    if (!seen.has(e.requestId))
      seen.set(e.requestId, { url: e.request.url, start: e.timestamp, end: null, bytes: 0, cached: false });
    if (e.type === 'Document' && !navigation) navigation = { wall: e.wallTime, mono: e.timestamp };
  });
  cdp.on('Network.responseReceived', e => {
    const r = seen.get(e.requestId);
    if (r)
      r.cached = Boolean(
        e.response.fromDiskCache || e.response.fromServiceWorker || e.response.fromPrefetchCache,
      );
  });
  cdp.on('Network.loadingFinished', e => {
    const r = seen.get(e.requestId);
    if (r) Object.assign(r, { end: e.timestamp, bytes: e.encodedDataLength });
  });
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: network.latency,
    downloadThroughput: network.down,
    uploadThroughput: network.up,
  });
  // Requests ended by `ms` on the page's clock (from its navigation start).
  const endedBy = async ms => {
    const origin = await page.evaluate(() => performance.timeOrigin);
    const at = navigation.mono + (origin + ms) / 1000 - navigation.wall;
    return [...seen.values()].filter(r => r.end !== null && r.end <= at + 0.002);
  };
  return { context, page, requests: () => [...seen.values()], endedBy };
}

// relicview's link opened on `network`: → {ms, bytes, requests} at its first frame.
async function relicviewVisit(link, network, context = null) {
  const line = await linePage(network, context);
  await line.page.addInitScript(() => {
    document.addEventListener('relicview:frame', () => {
      if (window.firstFrameAt !== undefined) return;
      const canvas = document.getElementById('viewport');
      canvas
        .getContext('webgl2')
        .readPixels(
          canvas.width >> 1,
          canvas.height >> 1,
          1,
          1,
          WebGL2RenderingContext.RGBA,
          WebGL2RenderingContext.UNSIGNED_BYTE,
          new Uint8Array(4),
        );
      window.firstFrameAt = performance.now();
    });
  });
  await line.page.goto(link, { waitUntil: 'commit' });
  await line.page.waitForFunction(() => window.firstFrameAt !== undefined, null, {
    timeout: 120000,
    polling: 50,
  });
  const ms = await line.page.evaluate(() => window.firstFrameAt);
  const ended = await line.endedBy(ms);
  return { ...line, ms, bytes: ended.reduce((n, r) => n + r.bytes, 0), ended };
}

async function peerVisit(url, network) {
  const line = await linePage(network);
  await line.page.goto(url, { waitUntil: 'commit' });
  await line.page.waitForFunction(() => window.firstFrameAt !== undefined || window.failed, null, {
    timeout: 120000,
    polling: 50,
  });
  const failed = await line.page.evaluate(() => window.failed);
  if (failed) throw new Error(`the three.js page failed: ${failed}`);
  const ms = await line.page.evaluate(() => window.firstFrameAt);
  const ended = await line.endedBy(ms);
  return { ...line, ms, bytes: ended.reduce((n, r) => n + r.bytes, 0), ended };
}

// The link, camera, canvas and background relicview shows the model with (one visit on a
// fast line, outside every clock).
async function linkOf(site) {
  const context = await browser.newContext({ viewport: WINDOW, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    await page.goto(`${nginx.url('host')}relicview-${site.name}/index.html`);
    await page.evaluate(() => window.relicview.ready);
    await page.waitForFunction(() =>
      /hosted at/.test(document.getElementById('archive-summary').textContent),
    );
    await page.evaluate(m => window.relicview.open(m), site.model);
    // The clock stopped at 0 and LOD 0: the pose and the detail the peer draws (it plays no
    // clip, and the export holds LOD 0).
    await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
    await page.evaluate(() => window.relicview.setLod(0));
    return await page.evaluate(() => {
      const canvas = document.getElementById('viewport');
      return {
        link: window.relicview.permalink(),
        camera: window.relicview.camera(),
        background: window.relicview.pixelStats().background,
        width: canvas.width,
        height: canvas.height,
      };
    });
  } finally {
    await context.close();
  }
}

// The peer's page, its canvas placed where relicview's is and of its size.
function writePeerPage(site, view) {
  const html = `<!doctype html><meta charset="utf-8"><title>three.js viewer</title>
<style>html,body{margin:0;background:#000}#view{display:block;width:${view.width}px;height:${view.height}px}</style>
<canvas id="view"></canvas><script type="module" src="${peerName}"></script>`;
  writeFileSync(join(host, `three-${site.name}/index.html`), html);
  const cam = [...view.camera.position, ...view.camera.target, view.camera.fov].join(',');
  return `${nginx.url('host')}three-${site.name}/index.html#glb=model.glb&cam=${cam}&bg=${view.background.join(',')}`;
}

// Pixels the model covers in relicview's frame (the same rule as the peer's).
async function relicviewCovered(page) {
  await page.evaluate(() => window.relicview.idle());
  return page.evaluate(() => {
    const bg = window.relicview.pixelStats().background;
    const all = window.relicview.readPixels().data;
    let n = 0;
    for (let i = 0; i < all.length; i += 4)
      if (
        Math.abs(all[i] - bg[0]) > 2 ||
        Math.abs(all[i + 1] - bg[1]) > 2 ||
        Math.abs(all[i + 2] - bg[2]) > 2
      )
        n++;
    return n;
  });
}

const ours = url => !/\/archive\/|index\.json$|archive\.json$/.test(new URL(url).pathname);

console.log(
  `cold link: ${reps} runs a figure, each in a fresh context (an empty cache), the sides alternating; window ${WINDOW.width}×${WINDOW.height}`,
);
for (const site of SITES) {
  const view = await linkOf(site);
  const link = view.link;
  const peerUrl = writePeerPage(site, view);
  console.log(
    `\n${site.name}: ${site.model} (second model ${site.second}); canvas ${view.width}×${view.height}; link ${link.replace(nginx.url('host'), '/')}`,
  );
  for (const network of NETWORKS) {
    const rv = {
      ms: [],
      bytes: [],
      warm: [],
      warmBytes: [],
      second: [],
      secondBytes: [],
      secondOurs: [],
      covered: [],
    };
    const three = { ms: [], bytes: [], covered: [] };
    let requests = null;
    for (let i = 0; i < reps; i++) {
      const first = await relicviewVisit(link, network);
      rv.ms.push(first.ms);
      rv.bytes.push(first.bytes);
      requests ||= first.ended;
      rv.covered.push(await relicviewCovered(first.page));
      // A second model of the same site, in the same page.
      const before = first.requests().length;
      const t0 = await first.page.evaluate(() => performance.now());
      await first.page.evaluate(m => window.relicview.open(m), site.second);
      const t1 = await first.page.evaluate(() => performance.now());
      await first.page.evaluate(() => window.relicview.idle());
      const fetched = first.requests().slice(before);
      rv.second.push(t1 - t0);
      rv.secondBytes.push(fetched.reduce((n, r) => n + r.bytes, 0));
      rv.secondOurs.push(...fetched.filter(r => ours(r.url)).map(r => r.url));
      // The same link in a new tab of the same context: a second visit, the cache warm.
      await first.page.close();
      const warm = await relicviewVisit(link, network, first.context);
      rv.warm.push(warm.ms);
      rv.warmBytes.push(warm.bytes);
      await first.context.close();
      const peer = await peerVisit(peerUrl, network);
      three.ms.push(peer.ms);
      three.bytes.push(peer.bytes);
      three.covered.push(await peer.page.evaluate(() => window.covered()));
      await peer.context.close();
    }
    const m = xs => median(xs);
    const pixels = { relicview: m(rv.covered), three: m(three.covered) };
    const apart = Math.abs(pixels.relicview - pixels.three) / Math.max(pixels.relicview, pixels.three);
    console.log(`  ${network.name}:`);
    console.log(
      `    relicview first frame  median ${m(rv.ms).toFixed(0)} ms, ${kb(m(rv.bytes))} sent   (runs: ${rv.ms.map(x => x.toFixed(0)).join(', ')} ms)`,
    );
    console.log(
      `    three.js first frame   median ${m(three.ms).toFixed(0)} ms, ${kb(m(three.bytes))} sent   (runs: ${three.ms.map(x => x.toFixed(0)).join(', ')} ms)`,
    );
    console.log(
      `    pixels covered: relicview ${pixels.relicview}, three.js ${pixels.three} (${(apart * 100).toFixed(2)} % apart)`,
    );
    console.log(
      `    ratio cold link relicview / three.js: time ${(m(rv.ms) / m(three.ms)).toFixed(2)}, bytes ${(m(rv.bytes) / m(three.bytes)).toFixed(2)}`,
    );
    console.log(
      `    second visit (warm cache, a new tab): median ${m(rv.warm).toFixed(0)} ms, ${kb(m(rv.warmBytes))} sent; ratio warm / cold ${(m(rv.warm) / m(rv.ms)).toFixed(2)}`,
    );
    console.log(
      `    a second model of the site: median ${m(rv.second).toFixed(0)} ms, ${kb(m(rv.secondBytes))} fetched; of the page's own code: ${rv.secondOurs.length ? [...new Set(rv.secondOurs)].join(', ') : 'nothing'}`,
    );
    console.log(
      `    one cold load's requests, until the frame: ${requests.map(r => `${new URL(r.url).pathname.split('/').pop() || '/'} ${kb(r.bytes)}`).join(' · ')}`,
    );
  }
}

// Every asset of the published page, raw / gzip / brotli (what a host can send).
console.log("\nthe published page's assets: raw / gzip -9 / brotli 11");
const siteRoot = join(host, `relicview-${SITES[0].name}`);
let total = [0, 0, 0];
for (const path of walk(siteRoot)
  .filter(p => /\.(html|js|css|wasm)$/.test(p))
  .sort()) {
  const bytes = readFileSync(path);
  const sizes = [
    bytes.length,
    gzipSync(bytes, { level: 9 }).length,
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  ];
  total = total.map((t, k) => t + sizes[k]);
  console.log(`  ${relative(siteRoot, path).padEnd(44)} ${sizes.map(kb).join(' / ')}`);
}
console.log(`  ${'all'.padEnd(44)} ${total.map(kb).join(' / ')}`);

await browser.close();
nginx.stop();
rmSync(root, { recursive: true, force: true });
