// The archive grid, checked against what the test finds itself: the files that draw are
// found by their names, the copies by hashing the files with node's crypto, a thumbnail
// against the viewer drawing that file on a canvas of the thumbnail's size (a core
// instance of the test's own), the failures against the CLI's. The grid is driven by the
// keyboard alone, is axe-clean, follows the list's filter, keeps its place, comes back from
// a link, fits a phone's screen, and a second visit takes its thumbnails from the browser's
// store.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { PNG } from 'pngjs';
import {
  makeArchive,
  startServer,
  launch,
  sizedPage,
  walk,
  axeClean,
  withSourceModules,
  nativeInfo,
} from './harness.mjs';
import { join } from 'node:path';

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// The files the grid draws, by their names: models, worlds, field models, pictures.
const PICTURED = /\.(bgf|mod|map|bsx|bcx|tga|rgb|tdb)$/i;

function archiveFiles() {
  return walk(dir).map(f => ({ path: relative(dir, f), bytes: readFileSync(f) }));
}

// A page with the served archive listed and typed, and the grid on show with every card's
// thumbnail (or failure) in.
async function gridPage(size = [1200, 850]) {
  const p = await sizedPage(browser, server.url, size);
  await p.page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await p.page.evaluate(() => window.relicview.setView('grid'));
  await p.page.waitForFunction(() => !window.relicview.grid().folding);
  return p;
}

// Scroll the grid through, so every card comes into view, until none is waiting.
async function everyThumbnail(page) {
  // (A page the browser draws in the background gets no scroll events and no intersection
  // reports: the cards out of sight would never be asked for. A reader's page is in front.)
  await page.bringToFront();
  const waited = page.waitForFunction(
    () => {
      const body = document.getElementById('grid-body');
      body.scrollTop += body.clientHeight / 2;
      if (body.scrollTop + body.clientHeight >= body.scrollHeight - 2) body.scrollTop = 0;
      return window.relicview.grid().cards.every(c => c.state !== 'pending');
    },
    null,
    { timeout: 120_000, polling: 100 },
  );
  await waited.catch(async err => {
    const now = await page.evaluate(async () => ({
      waiting: window.relicview
        .grid()
        .cards.filter(c => c.state === 'pending')
        .map(c => c.path),
      thumbnails: await window.relicview.thumbnails(),
      host: window.relicview.hostStats(),
    }));
    throw new Error(`${err.message}: ${JSON.stringify(now)}`);
  });
  return page.evaluate(() => window.relicview.grid());
}

test('a card for every model, world and picture, each with its thumbnail or why not; copies folded with their count', async () => {
  const { page, problems, close } = await gridPage();
  const grid = await everyThumbnail(page);
  assert.equal(grid.shown, true);
  const files = archiveFiles().filter(f => PICTURED.test(f.path));
  // Every such file is on a card, once.
  const covered = grid.cards.flatMap(c => c.paths).sort();
  assert.deepEqual(covered, files.map(f => f.path).sort());
  // Files of the same bytes are one card, its paths all of them.
  const byHash = new Map();
  for (const f of files) {
    const h = createHash('sha256').update(f.bytes).digest('hex');
    byHash.set(h, [...(byHash.get(h) || []), f.path]);
  }
  const copies = [...byHash.values()].filter(g => g.length > 1);
  assert.ok(
    copies.some(g => g.length >= 3),
    'the archive has a file three times (CUBE.BGF)',
  );
  for (const group of copies) {
    const card = grid.cards.find(c => c.paths.includes(group[0]));
    assert.deepEqual([...card.paths].sort(), [...group].sort(), `one card for ${group.join(', ')}`);
  }
  assert.equal(grid.cards.length, byHash.size);
  const cube = grid.cards.find(c => c.paths.length >= 3);
  const meta = await page.locator(`.grid-card[data-path="${cube.path}"] .grid-kind`).textContent();
  assert.match(meta, new RegExp(`×${cube.paths.length}$`), 'the card says how many copies');
  // A broken file says why, as the CLI does; the others are drawn.
  const broken = grid.cards.find(c => c.path.endsWith('BROKEN.BGF'));
  assert.equal(broken.state, 'failed');
  const cli = nativeInfo(join(dir, 'DEMO/VIDEO/BROKEN.BGF'));
  // (The CLI names the file by its path on disk, the page by its path in the archive.)
  const why = cli.error.message.slice(cli.error.message.indexOf(': at byte') + 2);
  assert.ok(
    why.startsWith('at byte') && broken.failure.endsWith(`BROKEN.BGF: ${why}`),
    `${broken.failure} / ${why}`,
  );
  assert.match(await page.locator(`.grid-card[data-path="${broken.path}"]`).textContent(), /Cannot be shown/);
  const drawn = grid.cards.filter(c => c.state === 'drawn');
  assert.equal(
    drawn.length,
    grid.cards.length - 1,
    JSON.stringify(grid.cards.filter(c => c.state !== 'drawn')),
  );
  // Drawn by the worker: the page's thread drew none.
  const made = await page.evaluate(() => window.relicview.thumbnails());
  assert.ok(made.drawn + made.kept >= drawn.length, JSON.stringify(made));
  // Each picture shows something: not one colour.
  for (const c of drawn) {
    const png = await thumbnailPng(page, c.path);
    const first = png.data.readUInt32BE(0);
    let other = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data.readUInt32BE(i) !== first) other++;
    assert.ok(other > 50, `${c.path}: ${other} pixels differ from the first`);
  }
  await axeClean(page, 'the archive grid');
  assert.deepEqual(problems, []);
  await close();
});

// A card's thumbnail as the page holds it, decoded by pngjs.
async function thumbnailPng(page, path) {
  const bytes = await page.evaluate(async p => {
    const img = document.querySelector(`.grid-card[data-path="${CSS.escape(p)}"] img`);
    const blob = await (await fetch(img.src)).blob();
    return Array.from(new Uint8Array(await blob.arrayBuffer()));
  }, path);
  return PNG.sync.read(Buffer.from(bytes));
}

test('the cards in sight are drawn before the rest', async () => {
  // A short window: most cards are out of sight (a browser of its own: nothing kept yet).
  const { page, close } = await sizedPage(browser, server.url, [900, 420]);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await page.bringToFront();
  await page.evaluate(() => window.relicview.setView('grid'));
  // The moment the cards in sight (and those within 200 px, asked with them) all have their
  // thumbnails: how many cards have theirs then.
  const at = await page.waitForFunction(
    () => {
      const box = document.getElementById('grid-body').getBoundingClientRect();
      const cards = [...document.querySelectorAll('.grid-card')];
      const near = cards.filter(c => {
        const r = c.getBoundingClientRect();
        return r.bottom > box.top - 200 && r.top < box.bottom + 200;
      });
      if (!near.length || near.some(c => c.dataset.state === 'pending')) return null;
      const done = window.relicview.grid().cards.filter(c => c.state !== 'pending').length;
      return { near: near.length, done, all: window.relicview.grid().cards.length };
    },
    null,
    { polling: 20, timeout: 60_000 },
  );
  const { near, done, all } = await at.jsonValue();
  assert.ok(all > 2 * near, `most cards are out of sight: ${near} near of ${all}`);
  // (One out of sight may be drawing as the last in sight comes in, and one more asked.)
  assert.ok(done <= near + 2, `${done} cards drawn when the ${near} in sight were`);
  await close();
});

// The page's Worker wrapped before the page's own script runs, as a faulty browser or a
// lost message would treat the thumbnail worker (nothing of the page is changed): each
// thumbnail worker kept in `window.thumbWorkers`; a request for a thumbnail dropped on its
// way to the worker when `window.dropRequest(message)` says so, an answer on its way back
// when `window.dropAnswer(message)` says so; the worker ended by the browser as soon as it
// is asked to draw a path `window.endOn(path)` names.
const WORKER_FAULTS = `(() => {
  const Real = window.Worker;
  window.thumbWorkers = [];
  window.Worker = class extends Real {
    constructor(url, options) {
      super(url, options);
      if (!String(url).includes('thumb-worker')) return;
      window.thumbWorkers.push(this);
      const post = this.postMessage.bind(this);
      this.postMessage = (m, transfer) => {
        if (m?.type === 'thumb' && window.dropRequest?.(m)) return;
        post(m, transfer);
        if (m?.type === 'thumb' && window.endOn?.(m.path)) this.terminate();
      };
      this.addEventListener('message', e => {
        if (e.data?.type === 'thumb' && window.dropAnswer?.(e.data)) e.stopImmediatePropagation();
      });
    }
  };
})();`;

// The grid shown on a page whose thumbnail worker meets `faults` (set in the page before
// the grid is shown) → {page, grid (once every card is in), thumbnails, close}.
async function faultyGrid(faults) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 850 }, deviceScaleFactor: 1 });
  await context.addInitScript(WORKER_FAULTS);
  const page = await context.newPage();
  await page.goto(server.url);
  await page.evaluate(() => window.relicview.ready);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await page.evaluate(faults);
  await page.evaluate(() => window.relicview.setView('grid'));
  const grid = await everyThumbnail(page);
  const thumbnails = await page.evaluate(() => window.relicview.thumbnails());
  return { page, grid, thumbnails, close: () => context.close() };
}

// Every card drawn but BROKEN.BGF (which fails as the CLI says), and those in `failing`.
function drawnBut(grid, failing = []) {
  const odd = grid.cards.filter(
    c => (c.state !== 'drawn') !== (c.path.endsWith('BROKEN.BGF') || failing.includes(c.path)),
  );
  assert.deepEqual(odd, [], 'every card drawn but those that fail');
}

test('a request or an answer lost on the way is asked again: the grid completes, every card drawn', async () => {
  // The third request never reaches the worker; the fifth answer never reaches the page.
  const { grid, thumbnails, close } = await faultyGrid(() => {
    let [requests, answers] = [0, 0];
    window.dropRequest = () => ++requests === 3;
    window.dropAnswer = () => ++answers === 5;
  });
  drawnBut(grid);
  assert.ok(thumbnails.resent >= 2, JSON.stringify(thumbnails));
  assert.equal(thumbnails.lost, 0, 'no worker was ended for it');
  await close();
});

test('a worker ended mid-grid is replaced and its thumbnail drawn again; one that ends it each time fails, saying so', async () => {
  // Two pages at once (each waits for a silent worker): on one the worker is ended by the
  // browser after three thumbnails, on the other every time it is asked for
  // DEMO/VIDEO/CRATE.BGF.
  const [once, always] = await Promise.all([
    faultyGrid(() => {
      let asked = 0;
      window.endOn = () => ++asked === 4;
    }),
    faultyGrid(() => {
      window.endOn = path => path === 'DEMO/VIDEO/CRATE.BGF';
    }),
  ]);
  drawnBut(once.grid);
  assert.equal(once.thumbnails.lost, 1, JSON.stringify(once.thumbnails));
  assert.match(once.thumbnails.stopped, /said nothing for \d+ s while drawing/);
  const crate = always.grid.cards.filter(c => c.path === 'DEMO/VIDEO/CRATE.BGF').map(c => c.path);
  assert.equal(crate.length, 1, 'a card of DEMO/VIDEO/CRATE.BGF');
  drawnBut(always.grid, crate);
  const failed = always.grid.cards.find(c => c.path === crate[0]);
  assert.match(failed.failure, /the thumbnail worker was ended twice while drawing it/);
  assert.equal(always.thumbnails.lost, 2, JSON.stringify(always.thumbnails));
  assert.match(
    await always.page.locator(`.grid-card[data-path="${crate[0]}"]`).textContent(),
    /Cannot be shown: the thumbnail worker was ended twice/,
  );
  await once.close();
  await always.close();
});

test("a browser whose worker has no WebGL says so on every card, and the grid's wait ends", async () => {
  // (As WebKit's workers have none.) The worker's canvas refuses a WebGL2 context.
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 1 });
  await context.route('**/thumb-worker*.js', async route => {
    const response = await route.fetch();
    const body = `OffscreenCanvas.prototype.getContext = function () { return null; };\n${await response.text()}`;
    await route.fulfill({ response, body });
  });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.evaluate(() => window.relicview.ready);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await page.evaluate(() => window.relicview.setView('grid'));
  const grid = await everyThumbnail(page);
  assert.ok(grid.cards.length > 5);
  for (const c of grid.cards) assert.match(c.failure ?? '', /the thumbnail worker cannot start/, c.path);
  assert.match(
    await page.locator('.grid-card .grid-picture.failed').first().textContent(),
    /Cannot be shown/,
  );
  await context.close();
});

test("a thumbnail is the viewer's own drawing of its file at that size", async () => {
  const { page, close } = await gridPage();
  await everyThumbnail(page);
  await withSourceModules(page);
  for (const path of ['DEMO/VIDEO/HEXPOD.BGF', 'DEMO/MAPS/ARENA1.MAP', 'DEMO/FIELD/ROBOT.BSX']) {
    const thumb = await thumbnailPng(page, path);
    // The same core, an instance of the test's own, on a canvas of the thumbnail's size,
    // the archive read from the server, the file opened and drawn once its upload is done.
    const drawn = await page.evaluate(
      async ([p, w, h]) => {
        const glue = await import('/__source/pkg/relicview.js');
        await glue.default({ module_or_path: '/__source/pkg/relicview_bg.wasm' });
        const listing = await (await fetch('archive.json')).json();
        const base = new URL(listing.base ?? '', new URL('archive.json', location.href));
        const url = path => new URL(path.split('/').map(encodeURIComponent).join('/'), base).href;
        const session = new glue.Session(async path => (await fetch(url(path))).arrayBuffer());
        const words = glue.kindWords();
        const files = listing.files;
        session.setListing(
          files.map(f => f.path).join(''),
          Uint32Array.from(files, f => f.path.length),
          Uint8Array.from(files, f => Math.max(0, words.indexOf(f.kind))),
          Float64Array.from(files, f => f.size),
        );
        const canvas = document.createElement('canvas');
        [canvas.width, canvas.height] = [w, h];
        const viewer = new glue.Viewer(canvas);
        const file = await session.open(p);
        viewer.show(file);
        viewer.setPlaying(false);
        viewer.setAnimationTime(0);
        for (let k = 0; k < 1000 && viewer.render(performance.now()).uploading; k++);
        return Array.from(viewer.readPixels());
      },
      [path, thumb.width, thumb.height],
    );
    let apart = 0;
    for (let i = 0; i < drawn.length; i += 4)
      if ([0, 1, 2, 3].some(k => Math.abs(drawn[i + k] - thumb.data[i + k]) > 8)) apart++;
    assert.ok(apart <= (thumb.width * thumb.height) / 200, `${path}: ${apart} pixels apart`);
  }
  await close();
});

test('the keyboard alone: O shows the grid, arrows move, Enter opens, O comes back to the same card; the filter and a link follow', async () => {
  const { page, problems, close } = await gridPage();
  await page.evaluate(() => window.relicview.setView('list'));
  assert.equal(await page.evaluate(() => window.relicview.grid().shown), false);
  await page.locator('#search').focus();
  await page.keyboard.press('Escape');
  await page.locator('#viewport').focus();
  await page.keyboard.press('o');
  await page.waitForFunction(() => window.relicview.grid().shown);
  const cards = await page.evaluate(() => window.relicview.grid().cards.map(c => c.path));
  const focusedPath = () => page.evaluate(() => document.activeElement?.dataset?.path ?? null);
  assert.equal(await focusedPath(), cards[0], 'the first card has the focus');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focusedPath(), cards[2]);
  await page.keyboard.press('ArrowDown');
  const below = await focusedPath();
  const [a, b] = await page.evaluate(
    ([x, y]) =>
      [x, y].map(
        p => document.querySelector(`.grid-card[data-path="${CSS.escape(p)}"]`).getBoundingClientRect().top,
      ),
    [cards[2], below],
  );
  assert.ok(b > a, `down goes to a lower card (${a} → ${b})`);
  await page.keyboard.press('End');
  assert.equal(await focusedPath(), cards[cards.length - 1]);
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  const chosen = await focusedPath();
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    p => window.relicview.entry(p) && document.getElementById('info-title').textContent === p,
    chosen,
  );
  assert.equal(await page.evaluate(() => window.relicview.grid().shown), false);
  await page.locator('#viewport').focus();
  await page.keyboard.press('o');
  await page.waitForFunction(() => window.relicview.grid().shown);
  assert.equal(await focusedPath(), chosen, 'back on the card it left');
  // The link says the grid is on show; a fresh page from it shows the grid.
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /[#&]browse=grid(&|$)/);
  const fresh = await sizedPage(browser, link, [1000, 800]);
  await fresh.page.waitForFunction(
    () => window.relicview.grid().shown && window.relicview.grid().cards.length > 0,
  );
  await fresh.close();
  // The list's search filters the grid.
  await page.locator('#search').fill('HEXPOD.BGF');
  await page.waitForFunction(() => window.relicview.grid().cards.length === 1);
  assert.equal(await page.evaluate(() => window.relicview.grid().cards[0].path), 'DEMO/VIDEO/HEXPOD.BGF');
  await page.locator('#search').fill('');
  assert.deepEqual(problems, []);
  await close();
});

test("at a phone's size: the Grid button brings the grid into sight, its cards fit the screen two a row, a tap opens one and the button comes back to it", async () => {
  const { page, problems, close } = await sizedPage(browser, server.url, [390, 844], {
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 2,
  });
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await page.bringToFront();
  await page.tap('#grid-button');
  await page.waitForFunction(() => window.relicview.grid().shown && !window.relicview.grid().folding);
  // The cards on the screen, once each has its thumbnail (or why not).
  const onScreen = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.grid-card')]
        .map(c => ({ path: c.dataset.path, state: c.dataset.state, ...c.getBoundingClientRect().toJSON() }))
        .filter(r => r.top < innerHeight && r.bottom > 0),
    );
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.grid-card')]
      .filter(c => c.getBoundingClientRect().top < innerHeight)
      .every(c => c.dataset.state !== 'pending'),
  );
  const screen = await page.evaluate(() => ({
    width: innerWidth,
    height: innerHeight,
    scrollWidth: document.scrollingElement.scrollWidth,
    grid: document.getElementById('grid-body').getBoundingClientRect().toJSON(),
  }));
  assert.equal(screen.scrollWidth, screen.width, 'nothing is wider than the screen');
  // The grid, not the list above it, fills the screen.
  const gridHeight = Math.min(screen.grid.bottom, screen.height) - Math.max(screen.grid.top, 0);
  assert.ok(gridHeight > 0.6 * screen.height, `the grid takes ${gridHeight} of ${screen.height} px`);
  const cards = await onScreen();
  assert.ok(cards.length >= 4, JSON.stringify(cards));
  for (const c of cards) assert.ok(c.left >= 0 && c.right <= screen.width, `${c.path} is within the screen`);
  const rows = new Map();
  for (const c of cards) rows.set(Math.round(c.top), (rows.get(Math.round(c.top)) || 0) + 1);
  assert.ok(
    [...rows.values()].some(n => n >= 2),
    `two cards a row: ${JSON.stringify([...rows])}`,
  );
  assert.ok(
    cards.some(c => c.state === 'drawn'),
    'a thumbnail is on the screen',
  );
  // A tap opens a card's file; the Grid button (up with the list) shows the grid again with
  // that card on the screen.
  const chosen = cards[cards.length > 4 ? 3 : 1].path;
  await page.tap(`.grid-card[data-path="${chosen}"]`);
  await page.waitForFunction(p => document.getElementById('info-title').textContent === p, chosen);
  await page.tap('#grid-button');
  await page.waitForFunction(() => window.relicview.grid().shown);
  const back = (await onScreen()).find(c => c.path === chosen);
  assert.ok(back && back.top >= 0 && back.bottom <= screen.height, `${chosen} is on the screen again`);
  await axeClean(page, 'the archive grid on a phone');
  assert.deepEqual(problems, []);
  await close();
});

// A visit in `context` (whose browser keeps its store between visits): the archive at `url`
// listed, the grid shown with every thumbnail in → {grid, stats (the thumbnail worker's)}.
async function visitGrid(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await page.evaluate(() => window.relicview.ready);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await page.evaluate(() => window.relicview.setView('grid'));
  await page.waitForFunction(() => !window.relicview.grid().folding);
  const grid = await everyThumbnail(page);
  const stats = await page.evaluate(() => window.relicview.thumbnails());
  await page.close();
  return { grid, stats };
}

test('a second visit takes the thumbnails from the browser; the store is bounded', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 850 } });
  const visit = () => visitGrid(context, server.url);
  const first = await visit();
  const drawnFirst = first.grid.cards.filter(c => c.state === 'drawn').length;
  // (A copy may be drawn before it is found to be one.)
  assert.ok(first.stats.drawn >= drawnFirst, 'the first visit draws each');
  const second = await visit();
  assert.equal(second.stats.drawn, 0, 'the second draws none');
  assert.ok(second.stats.kept >= drawnFirst, JSON.stringify(second.stats));
  assert.ok(second.grid.cards.filter(c => c.state === 'drawn').every(c => c.cached));
  assert.ok(
    second.stats.store.kept >= drawnFirst && second.stats.store.bytes <= 64 << 20,
    JSON.stringify(second.stats.store),
  );
  await context.close();
});

test('a kept thumbnail serves a renamed file, and is drawn again when a file its open read has changed', async t => {
  const own = makeArchive();
  const host = await startServer(own);
  const context = await browser.newContext({ viewport: { width: 1200, height: 850 } });
  // (Stopped however the test ends: a server left running keeps the test file's process up.)
  t.after(async () => {
    await context.close();
    host.stop();
  });
  const visit = async () => {
    const { grid } = await visitGrid(context, host.url);
    return new Map(grid.cards.map(c => [c.path, c]));
  };
  await visit();
  // A model renamed: its bytes and what it reads are the same, it is not drawn again.
  renameSync(join(own, 'DEMO/VIDEO/HEXPOD.BGF'), join(own, 'DEMO/VIDEO/HEXPOD2.BGF'));
  const renamed = await visit();
  assert.equal(renamed.get('DEMO/VIDEO/HEXPOD2.BGF').cached, true, 'the renamed model is not drawn again');
  // The material library its colours come from changed: drawn again; a picture that reads
  // no library is kept.
  const library = join(own, 'DEMO/MATERIAL/DEMO.BMF');
  writeFileSync(library, Buffer.concat([readFileSync(library), Buffer.alloc(16)]));
  const changed = await visit();
  assert.equal(
    changed.get('DEMO/VIDEO/HEXPOD2.BGF').cached,
    false,
    'a model whose library changed is drawn again',
  );
  assert.equal(changed.get('DEMO/VIDEO/HEXPOD2.BGF').state, 'drawn');
  assert.equal(changed.get('DEMO/TEXTURE/WATER.TGA').cached, true);
});

test('the store keeps at most its limit, the least recently used going first', async () => {
  const { page, close } = await sizedPage(browser, server.url, [800, 600]);
  await withSourceModules(page);
  const kept = await page.evaluate(async () => {
    const { openStore } = await import('/__source/www/workers/thumb-store.js');
    const store = openStore(1000);
    const png = n => new Blob([new Uint8Array(n)]);
    // The next millisecond: each use stamped after the one before.
    const later = async () => {
      const t = Date.now();
      while (Date.now() <= t) await Promise.resolve();
    };
    await store.put('a', png(400), []);
    await later();
    await store.put('b', png(400), []);
    await later();
    // Used again: now the most recent.
    await store.get('a');
    await later();
    await store.put('c', png(400), []);
    const has = {};
    for (const k of ['a', 'b', 'c']) has[k] = Boolean(await store.get(k));
    return { has, stats: await store.stats() };
  });
  assert.deepEqual(kept.has, { a: true, b: false, c: true }, JSON.stringify(kept));
  assert.ok(kept.stats.bytes <= 1000 && kept.stats.evicted === 1, JSON.stringify(kept.stats));
  await close();
});

// The picture docs/using.md shows: the grid of the test archive, made by the page itself.
test('a store that is missing or full keeps nothing and says why: the thumbnail is drawn again, never another shown', async () => {
  const { page, close } = await sizedPage(browser, server.url, [800, 600]);
  await withSourceModules(page);
  const found = await page.evaluate(async () => {
    const { openStore } = await import('/__source/www/workers/thumb-store.js');
    const png = n => new Blob([new Uint8Array(n)]);
    // Full: a store whose limit is less than one drawing keeps none of them.
    const full = openStore(100);
    await full.put('big', png(400), []);
    const fromFull = await full.get('big');
    const fullStats = await full.stats();
    // Missing: a browser that gives the page no IndexedDB (a private window's may not).
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true });
    const none = openStore(1 << 20);
    await none.put('a', png(400), []);
    return { fromFull, fullStats, fromNone: await none.get('a'), noneStats: await none.stats() };
  });
  assert.equal(found.fromFull, null, 'nothing comes back from a full store');
  assert.equal(found.fullStats.kept, 0);
  assert.equal(found.fullStats.evicted, 1);
  assert.equal(found.fromNone, null);
  assert.match(found.noneStats.refused, /no IndexedDB/);
  await close();
});

test('a store that stops answering mid-way is no store: its requests end, saying why, and nothing is waited for ever', async () => {
  const { page, close } = await sizedPage(browser, server.url, [800, 600]);
  await withSourceModules(page);
  const found = await page.evaluate(async () => {
    const { openStore } = await import('/__source/www/workers/thumb-store.js');
    const store = openStore(1 << 20);
    await store.put('a', new Blob([new Uint8Array(10)]), []);
    const before = await store.get('a');
    // From now on the browser's store takes requests and never answers them.
    const silent = () => ({ onsuccess: null, onerror: null });
    IDBObjectStore.prototype.get = silent;
    IDBObjectStore.prototype.put = silent;
    const t0 = performance.now();
    const [got] = await Promise.all([store.get('a'), store.put('b', new Blob([new Uint8Array(10)]), [])]);
    return { before: Boolean(before), got, ms: performance.now() - t0, stats: await store.stats() };
  });
  assert.equal(found.before, true, 'the store worked before');
  assert.equal(found.got, null, 'a request that gets no answer gives nothing');
  assert.ok(found.ms < 15_000, `ended in ${found.ms} ms`);
  assert.match(found.stats.refused, /did not answer in 5 s/);
  await close();
});

test('docs/using.md shows the grid', async () => {
  const { page, close } = await gridPage([1100, 760]);
  await everyThumbnail(page);
  await page.evaluate(() => (document.getElementById('grid-body').scrollTop = 0));
  const docs = join(import.meta.dirname, '../../docs');
  if (process.env.RELICVIEW_WRITE_DOCS)
    await page.locator('#view').screenshot({ path: join(docs, 'grid.png') });
  assert.match(readFileSync(join(docs, 'using.md'), 'utf8'), /!\[[^\]]+\]\(grid\.png\)/);
  const shown = PNG.sync.read(readFileSync(join(docs, 'grid.png')));
  assert.ok(shown.width > 400 && shown.height > 300, `${shown.width} × ${shown.height}`);
  await close();
});
