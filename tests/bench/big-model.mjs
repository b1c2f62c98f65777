// A ~50 MB model in the page: peak wasm memory as a multiple of the file, whether that memory
// is reused when other files are opened after it, and the main thread's long tasks (> 50 ms,
// PerformanceObserver) while it opens. Asserts nothing about time.
//
// node tests/bench/big-model.mjs   (cargo bench --bench throughput writes target/bench/big.bgf)

import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repo, relicview, startServer, launch, newPage } from '../e2e/harness.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const source = join(repo, 'target/bench/big.bgf');
if (!existsSync(source)) throw new Error(`${source} is missing: run cargo bench --bench throughput first`);
const dir = join(repo, 'target/bench/big-model');
mkdirSync(dir, { recursive: true });
copyFileSync(source, join(dir, 'BIG.BGF'));
const demo = scratchDir('big');
relicview('demo', demo);
copyFileSync(join(demo, 'DEMO/VIDEO/CUBE.BGF'), join(dir, 'A_CUBE.BGF'));
rmSync(demo, { recursive: true });
const size = statSync(join(dir, 'BIG.BGF')).size;

const server = await startServer(dir);
const browser = await launch();
const mb = b => `${(b / 1e6).toFixed(1)} MB`;
try {
  // First in a worker (the page's default for big files), then on the page's thread.
  for (const threshold of [null, Infinity]) {
    const { page } = await newPage(browser, server.url);
    await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'A_CUBE.BGF');
    const r = await page.evaluate(async threshold => {
      if (threshold !== null) window.relicview.setWorkerThreshold(threshold);
      const long = [];
      new PerformanceObserver(l => {
        for (const e of l.getEntries()) long.push({ start: e.startTime, ms: e.duration });
      }).observe({ type: 'longtask' });
      const before = window.relicview.memoryBytes();
      const t0 = performance.now();
      const opened = await window.relicview.open('BIG.BGF');
      const canvas = document.getElementById('viewport');
      const gl = canvas.getContext('webgl2');
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      const ms = performance.now() - t0;
      // Let the observer deliver the last entries.
      await new Promise(resolve => setTimeout(resolve, 100));
      const show = performance.getEntriesByName('relicview:show').pop().startTime;
      const afterFirst = window.relicview.memoryBytes();
      const parts = window.relicview.lastOpen();
      const longFirst = long.splice(0);
      await window.relicview.open('A_CUBE.BGF');
      await window.relicview.open('BIG.BGF');
      await window.relicview.open('A_CUBE.BGF');
      await window.relicview.open('BIG.BGF');
      return {
        before,
        afterFirst,
        afterMore: window.relicview.memoryBytes(),
        ms,
        opened,
        parts,
        longFirst,
        show,
        t0,
      };
    }, threshold);
    const where = r.parts.worker ? 'parsed in a worker' : "parsed on the page's thread";
    // The task that makes the mark uploads and draws; the rasteriser's wait for the read-back
    // is in it too.
    const beforeShow = r.longFirst.filter(t => t.start + t.ms < r.show);
    const fromShow = r.longFirst.filter(t => t.start + t.ms >= r.show);
    const list = ts => (ts.length ? ts.map(t => t.ms.toFixed(0)).join(' ') : 'none');
    console.log(
      `BIG.BGF ${mb(size)}, ${r.opened.triangles} triangles, ${where}: first frame rasterised ${r.ms.toFixed(0)} ms after open()`,
    );
    const packed = r.parts.worker
      ? ` · worker's packing ${r.parts.packMs.toFixed(0)} · delivery ${r.parts.deliverMs.toFixed(0)}`
      : '';
    console.log(
      `  parts: read ${r.parts.readMs.toFixed(0)} · parse ${r.parts.parseMs.toFixed(0)}${packed} · show ${r.parts.showMs.toFixed(0)} · upload ${r.parts.uploadMs.toFixed(0)} ms (${mb(r.parts.uploadBytes)} to the GPU) · inspector ${r.parts.inspectMs.toFixed(0)}`,
    );
    const worker = r.parts.worker
      ? `; the worker's ${mb(r.parts.workerMemoryBytes)} (${(r.parts.workerMemoryBytes / size).toFixed(2)}×)`
      : '';
    console.log(
      `  page's wasm memory: ${mb(r.before)} before, ${mb(r.afterFirst)} after (${(r.afterFirst / size).toFixed(2)}× the file)${worker}; after opening it twice more with other files between: ${mb(r.afterMore)} (${r.afterMore === r.afterFirst ? 'reused, no growth' : `grew by ${mb(r.afterMore - r.afterFirst)}`})`,
    );
    console.log(
      `  main-thread long tasks (ms) before the upload: ${list(beforeShow)} (${(r.show - r.t0).toFixed(0)} ms from open()); from the upload on (upload, draw, rasteriser): ${list(fromShow)}`,
    );
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
}
