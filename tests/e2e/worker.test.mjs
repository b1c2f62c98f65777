// Big files open in a worker (www/sources/opener.js): what the page shows must not depend on which
// thread opened the file, the page's thread must stay free while a big file is read and
// parsed, and a file asked for later abandons one still parsing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  makeArchive,
  startServer,
  launch,
  newPage,
  nativeInfo,
  relicview,
  walk,
  loadFolder,
} from './harness.mjs';

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  // A generated terrain of ~50 MB beside the demo (2,007,040 triangles).
  relicview('demo', dir, '--large', '50');
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// Everything a user or a script sees of an open file: the open's result or error, the frame,
// a pick at the centre, the info panel, the inspector and its hex bytes.
async function look(page, path) {
  return page.evaluate(async path => {
    const r = window.relicview;
    const result = await r.open(path).then(
      v => v,
      e => ({ error: e.message, offset: e.offset ?? null }),
    );
    // What is on the screen: the panes as the next frame paints them (the hex view fits the
    // rows to its height once the page is laid out, before that frame is painted).
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const canvas = document.getElementById('viewport');
    const view = r.inspector.view();
    return {
      result,
      worker: r.lastOpen()?.path === path ? r.lastOpen().worker : null,
      stats: (({ triangles, drawCalls, instances, lod, lodCount, placements }) => ({
        triangles,
        drawCalls,
        instances,
        lod,
        lodCount,
        placements,
      }))(r.stats()),
      pixels: r.pixelStats(),
      pick: r.pick(canvas.width / 2, canvas.height / 2),
      title: document.getElementById('info-title').textContent,
      info: document.getElementById('info-body').textContent,
      error: document.getElementById('info-error').textContent,
      view,
      hex: document.getElementById('hex-rows').textContent,
    };
  }, path);
}

test("a file opened by the worker shows exactly what the page's thread shows", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, dir, walk(dir).length);
  const files = [
    'GAME/DEMO/VIDEO/HEXPOD.BGF', // materials from the archive's library
    'GAME/DEMO/VIDEO/POOL.BGF', // a texture that scrolls
    'GAME/DEMO/MAPS/DEMO.MAP', // a world: its models, libraries and doors read by the worker
    'GAME/DEMO/FIELD/PARTY.BSX', // LZS, a BCX merged, FIELD.TDB
    'GAME/DEMO/MATERIAL/DEMO.BMF',
    'GAME/DEMO/TEXTURE/WATER.TGA', // a picture
    'GAME/DEMO/MODELS/HEXPOD.MOD', // text
    'GAME/DEMO/VIDEO/BROKEN.BGF', // an error at a byte offset
  ];
  for (const path of files) {
    await page.evaluate(() => window.relicview.setWorkerThreshold(Infinity));
    const here = await look(page, path);
    await page.evaluate(() => window.relicview.setWorkerThreshold(0));
    const there = await look(page, path);
    // A file that fails to open leaves no lastOpen to ask.
    const failed = Boolean(here.result.error);
    assert.equal(there.worker, failed ? null : true, `${path} opened in the worker`);
    assert.equal(here.worker, failed ? null : false, `${path} opened on the page's thread`);
    assert.ok(here.hex.length > 0 && here.view.chunks.length > 0, `${path} has bytes and records to compare`);
    delete here.worker;
    delete there.worker;
    assert.deepEqual(there, here, path);
  }
  const broken = await look(page, 'GAME/DEMO/VIDEO/BROKEN.BGF');
  assert.equal(
    broken.result.offset,
    nativeInfo(join(dir, 'DEMO/VIDEO/BROKEN.BGF')).error.offset,
    'the error keeps its offset',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("a served archive's file is fetched by the worker itself", async () => {
  const { page, problems } = await newPage(browser, server.url + '#path=DEMO/VIDEO/CUBE.BGF');
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/CUBE.BGF');
  await page.evaluate(() => window.relicview.setWorkerThreshold(0));
  const there = await look(page, 'DEMO/VIDEO/TOWER.BGF');
  assert.equal(there.worker, true);
  assert.equal(there.result.triangles, nativeInfo(join(dir, 'DEMO/VIDEO/TOWER.BGF')).triangles);
  assert.ok(there.pixels.nonBackground > 1000);
  const missing = await page.evaluate(() =>
    window.relicview.open('DEMO/VIDEO/NOPE.BGF').then(
      () => null,
      e => e.message,
    ),
  );
  assert.match(missing, /no such file/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a 50 MB model parses in the worker: no long task on the page's thread before its upload, and a file asked for meanwhile abandons it", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, dir, walk(dir).length);
  const native = nativeInfo(join(dir, 'LARGE.BGF'));
  const r = await page.evaluate(async () => {
    const long = [];
    new PerformanceObserver(l => {
      for (const e of l.getEntries()) long.push({ start: e.startTime, end: e.startTime + e.duration });
    }).observe({ type: 'longtask' });
    // Timers keep firing while it is read and parsed.
    let beat = performance.now();
    let gap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - beat);
      beat = now;
    }, 10);
    const t0 = performance.now();
    const opened = await window.relicview.open('GAME/LARGE.BGF');
    const show = performance.getEntriesByName('relicview:show').pop().startTime;
    const gapBeforeShow = gap;
    clearInterval(timer);
    // The long-task entries arrive in tasks of their own: wait until the page is idle.
    await new Promise(resolve => requestIdleCallback(resolve));
    return {
      opened,
      t0,
      show,
      gapBeforeShow,
      long,
      last: window.relicview.lastOpen(),
      pixels: window.relicview.pixelStats(),
    };
  });
  assert.equal(r.opened.triangles, native.triangles);
  assert.equal(r.last.worker, true, 'opened by the worker');
  assert.ok(r.pixels.nonBackground > 1000, 'and drawn');
  const beforeShow = r.long.filter(t => t.start >= r.t0 && t.end <= r.show);
  const fmt = ts => ts.map(t => (t.end - t.start).toFixed(0)).join(' ') || 'none';
  console.log(
    `# ${(r.show - r.t0).toFixed(0)} ms to the upload, long tasks before it: ${fmt(beforeShow)}; from it on: ${fmt(r.long.filter(t => t.end > r.show))}; longest timer gap before it ${r.gapBeforeShow.toFixed(0)} ms`,
  );
  assert.deepEqual(
    beforeShow.filter(t => t.end - t.start > 100),
    [],
    'no task longer than 100 ms while it was read and parsed',
  );

  // Asked for another file while it parses: its worker is ended and the other file shows.
  const [big, cube, workers] = await page.evaluate(async () => {
    const big = window.relicview.open('GAME/LARGE.BGF');
    // Until its worker is at work on it (30 s at most).
    const until = performance.now() + 30_000;
    while (!window.relicview.workers().busy) {
      if (performance.now() > until)
        throw new Error(`no worker took LARGE.BGF in 30 s: ${JSON.stringify(window.relicview.workers())}`);
      await new Promise(resolve => requestAnimationFrame(resolve));
    }
    const busy = window.relicview.workers();
    const cube = await window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF');
    return [await big, cube, { busy, after: window.relicview.workers() }];
  });
  assert.deepEqual(big, { abandoned: true });
  assert.equal(cube.triangles, nativeInfo(join(dir, 'DEMO/VIDEO/CUBE.BGF')).triangles);
  assert.equal(workers.busy.busy, true, 'the worker was parsing when the cube was asked for');
  assert.equal(workers.after.abandoned, workers.busy.abandoned + 1, 'and was ended');
  assert.equal(workers.after.busy, false);
  assert.equal(await page.locator('#info-title').textContent(), 'GAME/DEMO/VIDEO/CUBE.BGF');
  assert.equal(await page.evaluate(() => window.relicview.stats().triangles), cube.triangles);
  // The next big open starts a fresh worker and succeeds.
  const again = await page.evaluate(() => window.relicview.open('GAME/LARGE.BGF'));
  assert.equal(again.triangles, native.triangles);
  assert.deepEqual(problems, []);
  await page.close();
});
