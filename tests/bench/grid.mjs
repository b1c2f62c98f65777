// The archive grid over a generated folder of 1,000 distinct models (the demo's models, each
// copy's scale float changed so that no two hold the same bytes), served by `relicview
// serve`: from setView('grid') until the first screenful of cards has its thumbnails, and
// until every card has (scrolled through), with the page's longest task meanwhile (the
// thumbnails are drawn by a worker); a second visit, its thumbnails from the browser's store;
// against opening models in turn in the viewer (each until its first frame is rasterised),
// per model. Asserts nothing about time.
//
// node tests/bench/grid.mjs [MODELS]

import { mkdirSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { relicview, startServer, launch, median } from '../e2e/harness.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const smoke = Boolean(process.env.RELICVIEW_BENCH_SMOKE);
const models = smoke ? 60 : Math.max(100, Number(process.argv[2]) || 1000);
const demo = join(scratchDir('grid-bench-demo'), 'GAME');
relicview('demo', demo);
const root = scratchDir('grid-bench');
const game = join(root, 'GAME');
mkdirSync(join(game, 'DEMO/VIDEO'), { recursive: true });
for (const d of ['MATERIAL', 'TEXTURE'])
  cpSync(join(demo, 'DEMO', d), join(game, 'DEMO', d), { recursive: true });
// The demo's models whose first float 1.0 is their SCALE: each copy scaled a little
// differently (in folders of 100, as a game's are).
const one = Buffer.from(new Float32Array([1]).buffer);
const sources = ['HEXPOD', 'CRATE', 'CUBE', 'STACK', 'TOWER', 'WALKER', 'BLDG', 'WH1'].map(n =>
  readFileSync(join(demo, 'DEMO/VIDEO', `${n}.BGF`)),
);
for (let k = 0; k < models; k++) {
  const bytes = Buffer.from(sources[k % sources.length]);
  const at = bytes.indexOf(one);
  bytes.writeFloatLE(1 + 0.001 * (k + 1), at);
  const folder = join(game, 'DEMO/VIDEO', `SET${String(Math.floor(k / 100)).padStart(2, '0')}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `M${String(k).padStart(4, '0')}.BGF`), bytes);
}

// The longest the grid may take to draw every card (a thumbnail takes well under 100 ms
// here): past it the benchmark fails, naming the cards still pending and why.
const gridLimitMs = Math.max(120_000, models * 1_000);
const server = await startServer(root);
const browser = await launch();

// A page on the served folder, typed, with long tasks recorded from now.
async function listedPage(context) {
  const page = await context.newPage();
  await page.bringToFront();
  await page.goto(server.url);
  await page.evaluate(() => window.relicview.ready);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed, null, { timeout: 120_000 });
  await page.evaluate(() => {
    window.longest = 0;
    new PerformanceObserver(list => {
      for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration);
    }).observe({ type: 'longtask' });
  });
  return page;
}

// The grid shown: ms until the first screenful is drawn, until all are, the longest task.
async function gridRun(context) {
  const page = await listedPage(context);
  // (The page's own bound, below, ends it first and says more.)
  page.evaluateMs = gridLimitMs + 60_000;
  const run = await page.evaluate(async limitMs => {
    const t0 = performance.now();
    await window.relicview.setView('grid');
    const body = document.getElementById('grid-body');
    const inView = () => {
      const box = body.getBoundingClientRect();
      return [...body.querySelectorAll('.grid-card')].filter(c => {
        const r = c.getBoundingClientRect();
        return r.bottom > box.top && r.top < box.bottom;
      });
    };
    // What the page shows: the cards in view by their state, the grid's box and scroll.
    const seen = () => {
      const states = inView().map(c => c.dataset.state);
      const box = body.getBoundingClientRect();
      return `${states.length} cards (${[...new Set(states)].join(', ')}), the grid ${box.width}×${box.height} scrolled to ${body.scrollTop} of ${body.scrollHeight}, ${body.querySelectorAll('.grid-card').length} cards laid out, view ${document.body.dataset.view ?? '?'}`;
    };
    // Until `done()`, or an error after `limitMs` naming what was awaited and the cards
    // still pending, each with why (grid().cards[].waiting), and what is in view.
    const wait = async (what, done) => {
      while (!done()) {
        if (performance.now() - t0 > limitMs) {
          const g = window.relicview.grid();
          const pending = g.cards.filter(c => c.state === 'pending');
          const stats = await window.relicview.thumbnails();
          throw new Error(
            `the grid did not reach ${what} in ${limitMs / 1000} s: ${pending.length} of ${g.cards.length} cards pending` +
              ` (${pending
                .slice(0, 10)
                .map(c => `${c.path}: ${c.waiting}`)
                .join(
                  '; ',
                )}), folding ${g.folding}; the worker: ${JSON.stringify({ ...stats, store: undefined })}` +
              `; in view ${seen()}`,
          );
        }
        await new Promise(r => setTimeout(r, 10));
      }
      return performance.now() - t0;
    };
    const screenful = await wait('its first screenful', () => {
      const cards = inView();
      return cards.length > 0 && cards.every(c => c.dataset.state !== 'pending');
    });
    const cardsInView = inView().length;
    const all = await wait('every card', () => {
      const g = window.relicview.grid();
      if (g.folding || g.cards.some(c => c.state === 'pending')) {
        body.scrollTop += body.clientHeight;
        if (body.scrollTop + body.clientHeight >= body.scrollHeight - 2) body.scrollTop = 0;
        return false;
      }
      return true;
    });
    const g = window.relicview.grid();
    return {
      screenful,
      cardsInView,
      all,
      cards: g.cards.length,
      drawn: g.cards.filter(c => c.state === 'drawn').length,
      kept: g.cards.filter(c => c.cached).length,
      longest: window.longest,
    };
  }, gridLimitMs);
  await page.close();
  return run;
}

// `count` models opened one after another in the viewer → ms per model (first frame).
async function openRun(context, count) {
  const page = await listedPage(context);
  const run = await page.evaluate(async n => {
    const paths = window.relicview
      .shownFiles(100000)
      .filter(p => /\/M\d+\.BGF$/.test(p))
      .slice(0, n);
    const t0 = performance.now();
    for (const p of paths) {
      await window.relicview.open(p);
    }
    return { perModel: (performance.now() - t0) / paths.length, longest: window.longest };
  }, count);
  await page.close();
  return run;
}

try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  const first = await gridRun(context);
  const second = await gridRun(context);
  const opened = await openRun(context, smoke ? 10 : 100);
  await context.close();
  const perThumb = first.all / first.cards;
  console.log(
    `the archive grid of ${models} distinct models (served, a 1400×900 window, thumbnails drawn by a worker)`,
  );
  console.log(
    `  first visit: first screenful (${first.cardsInView} cards) ${first.screenful.toFixed(0)} ms, all ${first.cards} cards ${first.all.toFixed(0)} ms (${first.drawn} drawn), page's longest task ${first.longest.toFixed(0)} ms`,
  );
  console.log(
    `  second visit (thumbnails from the browser's store): first screenful ${second.screenful.toFixed(0)} ms, all ${second.all.toFixed(0)} ms (${second.kept} kept), longest task ${second.longest.toFixed(0)} ms`,
  );
  console.log(
    `  opening models in turn: ${opened.perModel.toFixed(1)} ms a model to its first frame (longest task ${opened.longest.toFixed(0)} ms); the screenful that way: ${(opened.perModel * first.cardsInView).toFixed(0)} ms`,
  );
  console.log(
    `  ratio grid / opening in turn, per model: first visit ${(perThumb / opened.perModel).toFixed(2)}, second visit ${(second.all / second.cards / opened.perModel).toFixed(2)}; first screenful ${(first.screenful / (opened.perModel * first.cardsInView)).toFixed(2)}`,
  );
  void median;
} finally {
  await browser.close();
  server.stop();
}
