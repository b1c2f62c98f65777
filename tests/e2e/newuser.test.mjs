// What a new user trips over: a second archive after a first, loading that says what it
// loads, the phone and small-window layouts, and files that are not 3D in views of their own.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeArchive, startServer, launch, newPage, walk, loadFolder } from './harness.mjs';

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

// A folder of its own in a fresh temp dir: {relative path: bytes}.
function folder(name, files) {
  const root = join(mkdtempSync(join(tmpdir(), 'relicview-drop-')), name);
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), bytes);
  }
  return root;
}

// Everything a reader sees of the file on show.
async function onShow(page) {
  return page.evaluate(() => ({
    triangles: window.relicview.stats().triangles,
    drawn: window.relicview.pixelStats().nonBackground,
    title: document.getElementById('info-title').textContent,
    info: document.getElementById('info-body').textContent,
    records: window.relicview.inspector.view()?.chunks?.length ?? 0,
    selected: [...document.querySelectorAll('#file-list [aria-selected="true"]')].map((e) => e.textContent),
    message: document.getElementById('view-message').hidden ? '' : document.getElementById('view-message').textContent,
    hash: decodeURIComponent(location.hash),
    listed: window.relicview.shownFiles(),
  }));
}

test('a second drop after a first leaves no trace of the first: list, view, info, inspector, link', async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, dir, walk(dir).length);
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const first = await onShow(page);
  assert.ok(first.triangles > 0 && first.drawn > 0 && first.records > 0);
  assert.match(first.hash, /folder=[^&]+&path=GAME\//);
  const firstPrint = first.hash.match(/folder=([^&]+)/)[1];

  // A folder with nothing to draw (a zip the viewer does not open yet, a note).
  const plain = folder('OTHER', { 'GAME.ZIP': Buffer.from('PK\x03\x04not really'), 'README.TXT': 'hello\n' });
  await loadFolder(page, plain, 2);
  await page.evaluate(() => window.relicview.rasterMs());
  const second = await onShow(page);
  assert.equal(second.triangles, 0, 'no triangles of the first archive');
  assert.equal(second.drawn, 0, 'the view is empty');
  assert.equal(second.title, 'No file open');
  assert.equal(second.info, '');
  assert.equal(second.records, 0, 'the inspector is empty');
  assert.deepEqual(second.selected, []);
  assert.deepEqual(second.listed.sort(), ['OTHER/GAME.ZIP', 'OTHER/README.TXT']);
  assert.doesNotMatch(second.message, /does not match|fingerprint/);
  assert.doesNotMatch(second.hash, /GAME\/|path=/, 'the address names nothing of the first archive');
  assert.ok(!second.hash.includes(firstPrint), second.hash);

  // A folder with a model: it opens, and the link is this folder's.
  const models = folder('MORE', { 'VIDEO/CUBE.BGF': readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')) });
  await loadFolder(page, models, 1);
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'MORE/VIDEO/CUBE.BGF');
  await page.evaluate(() => window.relicview.rasterMs());
  const third = await onShow(page);
  assert.ok(third.triangles > 0);
  assert.doesNotMatch(third.message, /does not match|fingerprint/);
  assert.match(third.hash, /path=MORE\/VIDEO\/CUBE\.BGF/);
  assert.ok(!third.hash.includes(firstPrint));
  assert.equal(third.title, 'MORE/VIDEO/CUBE.BGF');

  // A link to a file that is not there: its message over an empty view, not the old scene.
  await page.evaluate(() => { location.hash = '#path=MORE/VIDEO/GONE.BGF'; });
  await page.waitForFunction(() => /not in this archive/.test(document.getElementById('view-message').textContent));
  await page.evaluate(() => window.relicview.rasterMs());
  const missing = await onShow(page);
  assert.equal(missing.triangles, 0);
  assert.equal(missing.drawn, 0);
  assert.equal(missing.records, 0);
  assert.deepEqual(missing.selected, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a link waiting for its folder survives a wrong folder and comes back with the right one', async () => {
  const { page: maker } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(maker, dir, walk(dir).length);
  await maker.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const link = await maker.evaluate(() => window.relicview.permalink());
  await maker.close();
  const { page, problems } = await newPage(browser, link);
  const wrong = folder('WRONG', { 'VIDEO/CUBE.BGF': readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')) });
  await loadFolder(page, wrong, 1);
  await page.waitForFunction(() => /does not match the link/.test(document.getElementById('view-message').textContent));
  await loadFolder(page, dir, walk(dir).length);
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'GAME/DEMO/VIDEO/HEXPOD.BGF');
  assert.equal(await page.locator('#view-message').isVisible(), false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a slow open says which file it is opening and dims what is still on show', async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, dir, walk(dir).length);
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const labels = page.evaluate(() => new Promise((resolve) => {
    const seen = new Set();
    const look = () => {
      const box = document.getElementById('loading');
      if (!box.hidden) seen.add(`${document.getElementById('loading-label').textContent}|${document.getElementById('view').classList.contains('dim')}`);
      if (window.relicview.lastOpen()?.path.endsWith('CITY.MAP')) resolve([...seen]);
      else requestAnimationFrame(look);
    };
    look();
  }));
  await page.evaluate(() => window.relicview.open('GAME/DEMO/MAPS/CITY.MAP'));
  const seen = await labels;
  // It reads its maps, objects and libraries (and uploads in batches where there are more
  // vertices than a frame takes); the previous model is dimmed all along.
  assert.ok(seen.length > 0, 'the open said something');
  assert.ok(seen.every((s) => /^Opening CITY\.MAP( — (reading GAME\/DEMO\/\S+|batch \d+ of \d+))?\|true$/.test(s)), JSON.stringify(seen));
  assert.ok(seen.some((s) => /reading GAME\/DEMO\//.test(s)), JSON.stringify(seen));
  assert.equal(await page.locator('#loading').isVisible(), false, 'gone once the world is up');
  assert.equal(await page.evaluate(() => document.getElementById('view').classList.contains('dim')), false);
  assert.deepEqual(problems, []);
  await page.close();
});
