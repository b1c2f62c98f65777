// How soon a dropped folder is listed (by name), and typed (by content), for 2,000 and
// 20,000 files: copies of the demo archive's files in nested folders, given to the page's
// folder input. Reports the page's own figures (from the input's change event) and the
// long tasks of the typing phase; asserts nothing about time.
//
// node tests/bench/listing.mjs [COUNTS...]

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, relicview, walk, startServer, launch, newPage } from '../e2e/harness.mjs';

const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const demo = mkdtempSync(join(tmpdir(), 'relicview-listing-'));
relicview('demo', demo);
const files = walk(join(demo, 'DEMO'));
const server = await startServer(demo);
const browser = await launch();
try {
  for (const n of counts.length ? counts : [2000, 20000]) {
    const dir = join(repo, `target/bench/listing-${n}`);
    if (!existsSync(join(dir, '.complete'))) {
      rmSync(dir, { recursive: true, force: true });
      for (let i = 0; i < n; i++) {
        const f = files[i % files.length];
        const out = join(dir, `TREE${String(Math.floor(i / files.length)).padStart(4, '0')}`, f.slice(join(demo, 'DEMO').length + 1));
        mkdirSync(join(out, '..'), { recursive: true });
        copyFileSync(f, out);
      }
      copyFileSync(files[0], join(dir, '.complete'));
    }
    const total = walk(dir).length - 1;
    const { page } = await newPage(browser, server.url + '#folder=none');
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask' });
    });
    const t0 = Date.now();
    await page.locator('#folder-input').setInputFiles(dir);
    await page.waitForFunction(() => window.relicview.indexTimeline()?.typed, null, { timeout: 600000 });
    const line = await page.evaluate(() => window.relicview.indexTimeline());
    const long = await page.evaluate(([from, to]) => window.longTasks.filter((t) => t.start >= from && t.start < to).map((t) => t.duration), [line.listed, line.typed]);
    console.log(`${String(total).padStart(6)} files: listed ${(line.listed - line.start).toFixed(0).padStart(5)} ms after the page got the files, typed by content ${(line.typed - line.listed).toFixed(0).padStart(6)} ms later; long tasks while typing ${long.length} (longest ${Math.max(0, ...long).toFixed(0)} ms); ${Date.now() - t0} ms from setInputFiles (includes the browser making the FileList)`);
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
  rmSync(demo, { recursive: true, force: true });
}
