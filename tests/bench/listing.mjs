// How soon a picked folder is listed (by name) and typed (by content), for 2,000 and 20,000
// files: copies of the demo archive's files in nested folders, a third of them named .DAT
// (a name that says nothing, as on a real FF7 disc), given to the page's folder input.
//
// Picked: measured from the input's `change` event, against a bare page in the same run that
// only receives the same files: the browser makes the FileList in one task of its own before
// the event (seconds for 20,000 files under Playwright), which no page can split; the bare
// page shows that share, and what relicview's page adds is reported beside it.
// Dropped: the real folder dropped on the page (through the DevTools protocol, as a file
// manager's drag does), measured from the `drop` event, against a bare page that only walks
// the same drop to its Files (what any page must do before it has a file to list). Reports the page's
// own figures (listed, typed, every name confirmed), the longest task of ours after the
// event (the part of the event's task after it counts), and the long tasks of each phase.
// Asserts nothing about time.
//
// node tests/bench/listing.mjs [COUNTS...]

import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repo, relicview, walk, startServer, launch, newPage, dropFolder } from '../e2e/harness.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const counts = process.argv
  .slice(2)
  .map(Number)
  .filter(n => n > 0);
const demo = scratchDir('listing');
relicview('demo', demo);
const files = walk(join(demo, 'DEMO'));
// The page is served with an empty archive: the folder is all it is given.
const empty = scratchDir('listing-served');
const server = await startServer(empty);
const browser = await launch();

// Long tasks from now on, and when the folder input's `change` event or a `drop` came (a
// capturing listener, registered first: it runs before the page's own).
const watch = input => {
  window.longTasks = [];
  window.changeAt = null;
  new PerformanceObserver(l => {
    for (const e of l.getEntries())
      window.longTasks.push({ start: e.startTime, end: e.startTime + e.duration });
  }).observe({ type: 'longtask' });
  document.getElementById(input).addEventListener(
    'change',
    () => {
      window.changeAt = performance.now();
    },
    { capture: true },
  );
  window.addEventListener(
    'drop',
    () => {
      window.changeAt = performance.now();
    },
    { capture: true },
  );
};

// The bare page for a drop: it walks the dropped folder to its Files (directory readers in
// batches, each batch's Files asked for together) and nothing else.
const BARE_DROP = `<!doctype html><script>
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', (e) => {
  e.preventDefault();
  const root = e.dataTransfer.items[0].webkitGetAsEntry();
  (async () => {
    const files = [];
    const dirs = [root];
    while (dirs.length) {
      const reader = dirs.pop().createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const x of batch) if (x.isDirectory) dirs.push(x);
        files.push(...await Promise.all(batch.filter((x) => x.isFile).map((x) => new Promise((resolve, reject) => x.file(resolve, reject)))));
      }
    }
    window.walked = { files: files.length, at: performance.now() };
  })();
});
</script>`;
// The longest stretch of long tasks in [from, to), counted from `from` for a task begun before.
const longest = (tasks, from, to) =>
  Math.max(
    0,
    ...tasks
      .filter(t => t.end > from && t.start < to)
      .map(t => Math.min(t.end, to) - Math.max(t.start, from)),
  );

// The bare page given a drop: → {walked: ms from the drop until every File was had, longest:
// its longest task from the drop}.
async function bareDrop(dir) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  try {
    await page.route('**/__bench/bare-drop.html', r =>
      r.fulfill({ status: 200, contentType: 'text/html', body: BARE_DROP }),
    );
    await page.goto(`${server.url}/__bench/bare-drop.html`);
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver(l => {
        for (const e of l.getEntries())
          window.longTasks.push({ start: e.startTime, end: e.startTime + e.duration });
      }).observe({ type: 'longtask' });
      window.addEventListener(
        'drop',
        () => {
          window.changeAt = performance.now();
        },
        { capture: true },
      );
    });
    await dropFolder(page, dir);
    await page.waitForFunction(() => window.walked, null, { timeout: 600000 });
    await page.evaluate(() => new Promise(r => setTimeout(r, 100)));
    const r = await page.evaluate(() => ({
      walked: window.walked.at - window.changeAt,
      tasks: window.longTasks,
      at: window.changeAt,
      files: window.walked.files,
    }));
    return { walked: r.walked, files: r.files, longest: longest(r.tasks, r.at, r.at + r.walked) };
  } finally {
    await page.close();
  }
}

// The bare page: an input and nothing else. → {before: the browser's task up to the event (ms),
// after: the rest of that task}.
async function bare(dir) {
  const page = await browser.newPage();
  try {
    await page.route('**/__bench/bare.html', r =>
      r.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><input type="file" id="folder" webkitdirectory multiple>',
      }),
    );
    await page.goto(`${server.url}/__bench/bare.html`);
    await page.evaluate(watch, 'folder');
    await page.locator('#folder').setInputFiles(dir);
    await page.waitForFunction(() => window.changeAt !== null, null, { timeout: 600000 });
    // (Long tasks are reported after they end.)
    await page.evaluate(() => new Promise(r => setTimeout(r, 100)));
    return await page.evaluate(() => {
      const task = window.longTasks.find(t => t.start <= window.changeAt && t.end >= window.changeAt);
      return {
        before: task ? window.changeAt - task.start : 0,
        after: task ? task.end - window.changeAt : 0,
      };
    });
  } finally {
    await page.close();
  }
}

try {
  for (const n of counts.length ? counts : [2000, 20000]) {
    const dir = join(repo, `target/bench/listing-${n}`);
    // Every third file named .DAT: its name says nothing, its content types it.
    if (!existsSync(join(dir, '.complete-3'))) {
      rmSync(dir, { recursive: true, force: true });
      for (let i = 0; i < n; i++) {
        const f = files[i % files.length];
        const rel = f.slice(join(demo, 'DEMO').length + 1);
        const out = join(
          dir,
          `TREE${String(Math.floor(i / files.length)).padStart(4, '0')}`,
          i % 3 === 2 ? rel.replace(/\.[^./]+$/, '.DAT') : rel,
        );
        mkdirSync(join(out, '..'), { recursive: true });
        copyFileSync(f, out);
      }
      copyFileSync(files[0], join(dir, '.complete-3'));
    }
    const total = walk(dir).length - 1;
    const named = `${String(total).padStart(6)} files (${Math.floor(total / 3)} named .DAT)`;
    // relicview's page given the folder by `give`, timed from `event`: its figures printed;
    // → its longest task from the event until every name was confirmed.
    const measure = async (give, event) => {
      const { page } = await newPage(browser, server.url);
      try {
        await page.evaluate(watch, 'folder-input');
        await give(page);
        // (This folder's timeline: the page's own empty archive had one before it.)
        await page.waitForFunction(
          () =>
            window.changeAt !== null &&
            window.relicview.indexTimeline()?.start >= window.changeAt &&
            window.relicview.indexTimeline().typed,
          null,
          { timeout: 600000 },
        );
        const line = await page.evaluate(() => window.relicview.indexTimeline());
        const eventAt = await page.evaluate(() => window.changeAt);
        const typing = await page.evaluate(
          ([from, to]) =>
            window.longTasks.filter(t => t.start >= from && t.start < to).map(t => t.end - t.start),
          [line.listed, line.typed],
        );
        console.log(
          `${named} ${event}: listed ${(line.listed - eventAt).toFixed(0).padStart(5)} ms after the ${event} event, typed ${(line.typed - line.listed).toFixed(0).padStart(6)} ms after the listing (by name, ${Math.floor(total / 3)} by content); long tasks while typing ${typing.length} (longest ${Math.max(0, ...typing).toFixed(0)} ms)`,
        );
        // Then every name is confirmed by its content in the background.
        await page.waitForFunction(() => window.relicview.indexTimeline()?.confirmed, null, {
          timeout: 600000,
        });
        await page.evaluate(() => new Promise(r => setTimeout(r, 100)));
        const done = await page.evaluate(() => window.relicview.indexTimeline());
        const tasks = await page.evaluate(() => window.longTasks);
        const confirming = tasks
          .filter(t => t.start >= done.typed && t.start < done.confirmed)
          .map(t => t.end - t.start);
        console.log(
          `${''.padStart(6)}        names confirmed by content in the background ${(done.confirmed - done.typed).toFixed(0).padStart(6)} ms after that (${done.corrected} kinds corrected); long tasks meanwhile ${confirming.length} (longest ${Math.max(0, ...confirming).toFixed(0)} ms)`,
        );
        return longest(tasks, eventAt, done.confirmed);
      } finally {
        await page.close();
      }
    };
    const browserShare = await bare(dir);
    const picked = await measure(page => page.locator('#folder-input').setInputFiles(dir), 'change');
    console.log(
      `${''.padStart(6)}        the browser's share, a bare page given the same files: one task of ${browserShare.before.toFixed(0)} ms before the change event (${browserShare.after.toFixed(0)} ms after it); relicview's longest task from the change event until every name was confirmed: ${picked.toFixed(0)} ms`,
    );
    const walked = await bareDrop(dir);
    // (The folder holds its marker file too.)
    if (walked.files !== total + 1)
      throw new Error(`the bare page walked ${walked.files} files of the drop, not ${total + 1}`);
    const dropped = await measure(page => dropFolder(page, dir), 'drop');
    console.log(
      `${''.padStart(6)}        a bare page walking the same drop to its Files: ${walked.walked.toFixed(0)} ms from the drop event (longest task ${walked.longest.toFixed(0)} ms); relicview's longest task from the drop event until every name was confirmed: ${dropped.toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  server.stop();
  rmSync(demo, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
}
