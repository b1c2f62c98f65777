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
    // Every 50th file without its extension: its name says nothing, its content types it.
    if (!existsSync(join(dir, '.complete-2'))) {
      rmSync(dir, { recursive: true, force: true });
      for (let i = 0; i < n; i++) {
        const f = files[i % files.length];
        const rel = f.slice(join(demo, 'DEMO').length + 1);
        const out = join(dir, `TREE${String(Math.floor(i / files.length)).padStart(4, '0')}`, i % 50 === 49 ? rel.replace(/\.[^./]+$/, '') : rel);
        mkdirSync(join(out, '..'), { recursive: true });
        copyFileSync(f, out);
      }
      copyFileSync(files[0], join(dir, '.complete-2'));
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
    // The listing's own work (after the browser has made the FileList, itself one task of
    // seconds for 20,000 files under Playwright, which the page cannot split).
    const listing = await page.evaluate(([from, to]) => window.longTasks.filter((t) => t.start + t.duration > from && t.start < to).map((t) => Math.min(t.start + t.duration, to) - Math.max(t.start, from)), [line.start, line.listed]);
    console.log(`${String(total).padStart(6)} files: listed ${(line.listed - line.start).toFixed(0).padStart(5)} ms after the page got the files, typed ${(line.typed - line.listed).toFixed(0).padStart(6)} ms later (by name, ${Math.floor(total / 50)} by content); long tasks while typing ${long.length} (longest ${Math.max(0, ...long).toFixed(0)} ms), the listing's longest ${Math.max(0, ...listing).toFixed(0)} ms; ${Date.now() - t0} ms from setInputFiles (includes the browser making the FileList)`);
    // Then every name is confirmed by its content in the background.
    await page.waitForFunction(() => window.relicview.indexTimeline()?.confirmed, null, { timeout: 600000 });
    const done = await page.evaluate(() => window.relicview.indexTimeline());
    const longAfter = await page.evaluate(([from, to]) => window.longTasks.filter((t) => t.start >= from && t.start < to).map((t) => t.duration), [done.typed, done.confirmed]);
    console.log(`${''.padStart(6)}        names confirmed by content in the background ${(done.confirmed - done.typed).toFixed(0).padStart(6)} ms after that (${done.corrected} kinds corrected); long tasks meanwhile ${longAfter.length} (longest ${Math.max(0, ...longAfter).toFixed(0)} ms)`);
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
  rmSync(demo, { recursive: true, force: true });
}
