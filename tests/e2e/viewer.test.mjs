// End to end: a real headless Chromium loads a folder, opens models, and we check what it
// drew and what it reports against the native core.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeArchive,
  startServer,
  launch,
  newPage,
  nativeInfo,
  canvasCoverage,
  repo,
  walk,
  lzsLiterals,
  loadFolder,
  dropFolder,
} from './harness.mjs';

let dir, server, browser;
const MODELS = [
  'DEMO/VIDEO/CUBE.BGF',
  'DEMO/VIDEO/HEXPOD.BGF',
  'DEMO/VIDEO/TOWER.BGF',
  'DEMO/VIDEO/POOL.BGF',
  'DEMO/VIDEO/FORMATS.BGF',
];

before(async () => {
  dir = makeArchive();
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// Files picked through the folder input are named by webkitRelativePath, which starts with
// the picked folder's own name.
const IN_FOLDER = 'GAME/';

// Opens the page and loads the archive through the folder input, as a user picking it would.
async function pageWithFolder() {
  const { page, problems } = await newPage(browser, server.url);
  await loadFolder(page, dir, walk(dir).length);
  await page.waitForFunction(() =>
    /local files/.test(document.getElementById('archive-summary').textContent),
  );
  return { page, problems };
}

test('the page draws through its own WebGL2 context on its canvas', async () => {
  const { page } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  const found = await page.evaluate(() => {
    const canvas = document.getElementById('viewport');
    // A canvas holds one context kind: 2D is refused only because the page took WebGL.
    const refuses2d = canvas.getContext('2d') === null;
    const gl = canvas.getContext('webgl2');
    return {
      refuses2d,
      webgl2: gl instanceof WebGL2RenderingContext,
      antialias: gl.getContextAttributes().antialias,
      renderer: gl.getParameter(gl.RENDERER),
    };
  });
  assert.deepEqual(
    { ...found, renderer: typeof found.renderer },
    { refuses2d: true, webgl2: true, antialias: true, renderer: 'string' },
  );
  const pixels = await page.evaluate(() => window.relicview.pixelStats());
  assert.ok(pixels.nonBackground > 1000, 'the context shows the model');
  await page.close();
});

test('the served page lists the archive and shows a model without any action', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(() => document.getElementById('info-title').textContent.endsWith('.BGF'));
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  const listed = await page.evaluate(() => window.relicview.listing().files);
  assert.equal(listed, walk(dir).length);
  assert.deepEqual(problems, []);
  await page.close();
});

test('loadFiles returns the count, and every demo model draws the triangles the native core counts', async () => {
  const { page, problems } = await pageWithFolder();
  const files = walk(dir).length;
  for (const path of MODELS) {
    const native = nativeInfo(join(dir, path));
    assert.ok(native.triangles > 0, `${path}: native count`);
    const result = await page.evaluate(p => window.relicview.open(p), IN_FOLDER + path);
    assert.equal(result.triangles, native.triangles, path);
    // One draw per texture (or one untextured), plus one for light points where there are any.
    const points = native.objects.reduce((n, o) => n + o.points, 0);
    const textured = path.endsWith('POOL.BGF') ? 3 : 1;
    assert.equal(result.drawCalls, textured + (points ? 1 : 0), path);
    const stats = await page.evaluate(() => window.relicview.stats());
    assert.equal(stats.triangles, native.triangles);
    assert.ok(stats.fps >= 1, 'a frame was drawn in the last second');
    // Every patch of LOD 0 (or of an object without LODs) is one placed mesh.
    const patches = await page.evaluate(() => {
      const rows = window.relicview.inspector.view().chunks;
      const lodOf = r => {
        for (let p = r.parent; p !== null; p = rows[p].parent) if (rows[p].name === 'LOD') return rows[p];
        return null;
      };
      return rows
        .filter(r => r.name === 'PATCH')
        .filter(r => {
          const lod = lodOf(r);
          return !lod || rows.find(x => x.name === 'LOD' && x.parent === lod.parent) === lod;
        }).length;
    });
    assert.equal(stats.instances, patches, `${path}: instances`);
    const pixels = await page.evaluate(() => window.relicview.pixelStats());
    assert.ok(
      pixels.nonBackground > pixels.width * pixels.height * 0.02,
      `${path}: framebuffer shows the model (${pixels.nonBackground} px)`,
    );
    const shown = await canvasCoverage(page);
    assert.ok(
      shown.differing > shown.total * 0.02,
      `${path}: screenshot shows the model (${shown.differing}/${shown.total} px)`,
    );
    const title = await page.locator('#info-title').textContent();
    assert.equal(title, IN_FOLDER + path);
  }
  // loadFiles with File objects made in the page follows the drop path and returns the count.
  const count = await page.evaluate(async () => {
    const r = await fetch('archive/DEMO/VIDEO/CUBE.BGF');
    const file = new File([await r.arrayBuffer()], 'CUBE.BGF');
    return window.relicview.loadFiles([file]);
  });
  assert.deepEqual(count, { files: 1 });
  assert.ok(files > 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the hexagon/quad/triangle PMESH and its LODs are drawn with the triangles the notes give, as the native core counts them', async () => {
  // 2 hexagons × 4 + 6 quads × 2 + 6 CONN triangles in LOD 0 (docs/formats/biz2.md: a
  // polygon of n corners is n − 2 triangles).
  const lod0 = 2 * 4 + 6 * 2 + 6;
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal(native.closes_exactly, true);
  assert.equal(native.objects[0].lods.length, 2);
  assert.equal(native.objects[0].lods[0].triangles, lod0);
  const { page, problems } = await pageWithFolder();
  const opened = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal(opened.triangles, lod0, 'the page draws LOD 0 whole');
  const lod1 = await page.evaluate(() => window.relicview.setLod(1));
  assert.equal(lod1.triangles, native.objects[0].lods[1].triangles, 'and LOD 1 as the native core counts it');
  assert.ok(lod1.triangles > 0 && lod1.triangles < lod0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a malformed file shows an error naming its byte offset, and the other files still open', async () => {
  const { page, problems } = await pageWithFolder();
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/BROKEN.BGF'));
  assert.ok(native.error, 'native core rejects the file too');
  const offset = native.error.offset;
  assert.equal(typeof offset, 'number');
  const err = await page.evaluate(() =>
    window.relicview.open('GAME/DEMO/VIDEO/BROKEN.BGF').then(
      () => null,
      e => ({ message: e.message, offset: e.offset }),
    ),
  );
  assert.ok(err, 'open() rejected');
  assert.equal(err.offset, offset);
  assert.match(err.message, new RegExp(`BROKEN\\.BGF: at byte ${offset}\\b`));
  const shown = await page.locator('#info-error').textContent();
  assert.match(shown, new RegExp(`at byte ${offset}\\b`));
  assert.equal(await page.locator('#info-error').isVisible(), true);
  assert.equal(
    await page.evaluate(() => window.relicview.stats().triangles),
    0,
    'the broken file draws nothing',
  );
  assert.equal(await page.locator('#file-list li.failed').count(), 1, 'its row is red');
  assert.equal(await page.evaluate(() => window.relicview.listing().failed), 1);

  const ok = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal(ok.triangles, 26);
  assert.equal(await page.locator('#info-error').isVisible(), false);
  const pixels = await page.evaluate(() => window.relicview.pixelStats());
  assert.ok(pixels.nonBackground > 1000);
  assert.deepEqual(problems, []);
  await page.close();
});

test('garbage is an error naming its offset; a file that is not a model is shown as what it is, never as a failure', async () => {
  // Its own copy of the archive, so that no other test sees these files.
  const own = makeArchive();
  const junk = join(own, 'JUNK');
  mkdirSync(junk, { recursive: true });
  writeFileSync(join(junk, 'README.TXT'), 'not a model\r\nsecond line\r\n');
  writeFileSync(join(junk, 'EMPTY.BGF'), '');
  writeFileSync(join(junk, 'NOISE.BIN'), Buffer.from([0, 1, 2, 3, 200, 255]));
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, own, walk(own).length);
  const msg = await page.evaluate(() =>
    window.relicview.open('GAME/JUNK/EMPTY.BGF').then(
      () => 'resolved',
      e => e.message,
    ),
  );
  assert.match(
    msg,
    /EMPTY\.BGF: at byte 0: named \.BGF, but it does not start with DIV-BIZ2: the file has 0 bytes/,
  );
  // A red row whose tooltip says why.
  const row = await page.evaluate(() => ({
    entry: window.relicview.entry('GAME/JUNK/EMPTY.BGF'),
    title: document.querySelector('[data-path="GAME/JUNK/EMPTY.BGF"]')?.title,
  }));
  assert.equal(row.entry.failed, true);
  assert.equal(row.entry.failure, msg);
  assert.equal(row.title, `GAME/JUNK/EMPTY.BGF\n${msg}`);
  // Plain text: shown as text with line numbers, no error.
  const text = await page.evaluate(() => window.relicview.open('GAME/JUNK/README.TXT'));
  assert.deepEqual(text, { triangles: 0, drawCalls: 0 });
  assert.equal(await page.locator('#info-error').isVisible(), false);
  // In the main view, not the info pane.
  assert.equal(
    await page.locator('#text-pane pre.text-view').textContent(),
    'not a model\r\nsecond line\r\n',
  );
  assert.equal(await page.locator('#text-pane pre.line-numbers').textContent(), '1\n2');
  // Bytes: shown in the hex view, no error.
  await page.evaluate(() => window.relicview.open('GAME/JUNK/NOISE.BIN'));
  assert.equal(await page.locator('#info-error').isVisible(), false);
  assert.equal(await page.locator('#hex .b[data-o]').count(), 6);
  assert.match(await page.locator('#info-body').textContent(), /formatunknown/);
  // The pods' worlds and images are not models either, and not failures.
  for (const path of [
    'GAME/DEMO/MAPS/DEMO.MAP',
    'GAME/DEMO/MODELS/HEXPOD.MOD',
    'GAME/DEMO/TEXTURE/WATER.TGA',
    'GAME/DEMO/TEXTURE/SIGN.RGB',
  ]) {
    await page.evaluate(p => window.relicview.open(p), path);
    assert.equal(await page.locator('#info-error').isVisible(), false, path);
  }
  assert.equal(
    await page.evaluate(() => window.relicview.listing().failed),
    1,
    'only the empty BGF is marked as failed',
  );
  const ok = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  assert.equal(ok.triangles, 12);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an image is shown flat in a view of its own (its quad stays for export); a MOD as text with its references', async () => {
  const { page, problems } = await pageWithFolder();
  const r = await page.evaluate(() => window.relicview.open('GAME/DEMO/TEXTURE/WATER.TGA'));
  assert.deepEqual(r, { triangles: 2, drawCalls: 1 });
  assert.equal(await page.locator('#picture-canvas').isVisible(), true);
  // Fitted to the view, a whole number of pixels a texel.
  const box = await page
    .locator('#picture-canvas')
    .evaluate(c => ({ width: c.clientWidth, height: c.clientHeight }));
  assert.deepEqual(await page.evaluate(() => window.relicview.flatView()), {
    mode: 'picture',
    zoom: Math.floor(Math.min(box.width / 32, box.height / 32)),
    width: 32,
    height: 32,
    regions: 0,
  });
  assert.equal(await page.locator('#lod-select').isVisible(), false, 'no 3D controls over a picture');
  await page.evaluate(() => window.relicview.open('GAME/DEMO/MODELS/HEXPOD.MOD'));
  assert.match(await page.locator('#info-body').textContent(), /drawshexpod\.bgf.*triangles26/s);
  assert.match(
    await page.locator('#info-more pre.text-view').textContent(),
    /\[video\]\r\nobject=hexpod\.bgf/,
  );
  const rows = await page.evaluate(() => window.relicview.inspector.view().chunks.map(c => c.name));
  assert.deepEqual(rows, ['[video]', 'object', '[gamedata]', 'class']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('file names from the archive are shown as text, never as HTML', async () => {
  const { page, problems } = await pageWithFolder();
  const name = IN_FOLDER + 'DEMO/VIDEO/<img src=x onerror=alert(1)>.BGF';
  assert.equal(await page.locator('#file-list img, #info-panel img').count(), 0);
  await page.locator('#search').fill('onerror');
  const listed = await page
    .locator('#file-list li[data-path]')
    .evaluateAll(lis => lis.map(li => [li.dataset.path, li.textContent]));
  assert.ok(
    listed.some(([path, text]) => path === name && text.endsWith('<img src=x onerror=alert(1)>.BGF')),
    'the name is listed verbatim',
  );
  const r = await page.evaluate(p => window.relicview.open(p), name);
  assert.equal(r.triangles, 12);
  assert.equal(await page.locator('#info-title').textContent(), name);
  assert.equal(await page.locator('img').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

const close = (a, b, eps = 1e-3) =>
  a.every((x, i) => Math.abs(x - b[i]) <= eps * Math.max(1, Math.abs(b[i])));

test('a permalink reopens the same file, LOD and camera in a fresh page', async () => {
  const { page } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
  await page.evaluate(() => window.relicview.setLod(1));
  const box = await page.locator('#viewport').boundingBox();
  await page.mouse.move(box.x + 200, box.y + 150);
  await page.mouse.down();
  await page.mouse.move(box.x + 260, box.y + 190, { steps: 3 });
  await page.mouse.up();
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const link = await page.evaluate(() => window.relicview.permalink());
  const cam = await page.evaluate(() => window.relicview.camera());
  assert.match(link, /#archive=archive\.json&path=DEMO%2FVIDEO%2FHEXPOD\.BGF&cam=[-\d.%C]+&lod=1$/);
  // The address bar follows the view too.
  await page.waitForFunction(l => location.href === l, link);
  await page.close();

  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.waitForFunction(
    () => document.getElementById('info-title').textContent === 'DEMO/VIDEO/HEXPOD.BGF',
  );
  await fresh.waitForFunction(() => window.relicview.stats().lod === 1);
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal(
    await fresh.evaluate(() => window.relicview.stats().triangles),
    native.objects[0].lods[1].triangles,
  );
  const restored = await fresh.evaluate(() => window.relicview.camera());
  assert.ok(
    close(restored.position, cam.position) && close(restored.target, cam.target),
    `${JSON.stringify(restored)} vs ${JSON.stringify(cam)}`,
  );
  assert.equal(restored.fov, cam.fov);
  await fresh.close();
});

test('a link to a local folder asks for the folder, restores the view once it matches, and says when it does not', async () => {
  const { page } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/TOWER.BGF'));
  await page.evaluate(() => window.relicview.inspector.selectChunk(3));
  const before = await page.evaluate(() => JSON.stringify(window.relicview.camera()));
  await page.mouse.move(500, 200);
  await page.mouse.wheel(0, -300);
  await page.waitForFunction(b => JSON.stringify(window.relicview.camera()) !== b, before);
  // The folder's fingerprint needs every file's size, learnt after the listing shows.
  await page.waitForFunction(() => window.relicview.permalink().includes('#folder='));
  const link = await page.evaluate(() => window.relicview.permalink());
  const cam = await page.evaluate(() => window.relicview.camera());
  assert.match(link, /#folder=\d+-[0-9a-f]{8}&path=GAME%2FDEMO%2FVIDEO%2FTOWER\.BGF&cam=.*&chunk=3$/);
  await page.close();

  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.waitForFunction(() =>
    /Open the folder this link was made for/.test(document.getElementById('info-title').textContent),
  );
  // A request, not an error: said over the view as a note, with the folder button at hand.
  assert.equal(await fresh.locator('#view-message').getAttribute('role'), 'status');
  assert.equal(await fresh.locator('#view-message').getAttribute('class'), 'note');
  assert.equal(await fresh.locator('#info-error').isVisible(), false);
  assert.equal(
    await fresh.evaluate(() => window.relicview.listing().files),
    0,
    'the served archive is not loaded in its place',
  );
  // Another folder: the page says it does not match.
  const other = join(dir, 'DEMO');
  await fresh.locator('#folder-input').setInputFiles(other);
  await fresh.waitForFunction(() =>
    /does not match the link/.test(document.getElementById('info-title').textContent),
  );
  // The right folder: file, camera and selected chunk come back.
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(
    () => document.getElementById('info-title').textContent === 'GAME/DEMO/VIDEO/TOWER.BGF',
  );
  await fresh.waitForFunction(() => window.relicview.inspector.selection()?.chunk === 3);
  const restored = await fresh.evaluate(() => window.relicview.camera());
  assert.ok(
    close(restored.position, cam.position) && close(restored.target, cam.target),
    `${JSON.stringify(restored)} vs ${JSON.stringify(cam)}`,
  );
  await fresh.close();
});

test('back and forward move between opened files', async () => {
  const { page } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/TOWER.BGF'));
  await page.goBack();
  await page.waitForFunction(
    () => document.getElementById('info-title').textContent === 'GAME/DEMO/VIDEO/CUBE.BGF',
  );
  await page.goForward();
  await page.waitForFunction(
    () => document.getElementById('info-title').textContent === 'GAME/DEMO/VIDEO/TOWER.BGF',
  );
  await page.close();
});

test('a static index.json lets the page open an archive from any URL', async () => {
  const { relicview: run } = await import('./harness.mjs');
  run('index', dir);
  const { page, problems } = await newPage(
    browser,
    `${server.url}#archive=${encodeURIComponent('archive/index.json')}&path=DEMO%2FVIDEO%2FCUBE.BGF`,
  );
  await page.waitForFunction(
    () => document.getElementById('info-title').textContent === 'DEMO/VIDEO/CUBE.BGF',
  );
  assert.match(await page.locator('#archive-summary').textContent(), /hosted at archive\/index\.json/);
  assert.equal(await page.evaluate(() => window.relicview.stats().triangles), 12);
  assert.deepEqual(problems, []);
  await page.close();
});

test('dragging orbits and the wheel zooms the view', async () => {
  const { page } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const before = await canvasCoverage(page);
  const box = await page.locator('#viewport').boundingBox();
  const cx = box.x + box.width * 0.4;
  const cy = box.y + box.height * 0.5;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx + 120, cy + 40, { steps: 4 });
  await page.mouse.up();
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const orbited = await canvasCoverage(page);
  let changed = 0;
  for (let i = 0; i < before.png.data.length; i += 4)
    if (before.png.data[i] !== orbited.png.data[i]) changed++;
  assert.ok(changed > 500, `orbit changed ${changed} pixels`);

  await page.mouse.move(cx, cy);
  await page.mouse.wheel(0, 600);
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const zoomedOut = await canvasCoverage(page);
  assert.ok(
    zoomedOut.differing < orbited.differing * 0.8,
    `zooming out shrinks the model (${orbited.differing} → ${zoomedOut.differing} px)`,
  );
  writeFileSync(join(repo, 'target', 'e2e-hexpod.png'), await page.locator('#stage').screenshot());
  await page.close();
});

test('dropping files on the window loads and opens them', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  // A DataTransfer made in the page carries files but no folder entries (a browser limit
  // of synthetic drops); a real folder's drop is the next test.
  await page.evaluate(async () => {
    const bytes = await (await fetch('archive/DEMO/VIDEO/TOWER.BGF')).arrayBuffer();
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'DROPPED.BGF'));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
  });
  await page.waitForFunction(() => document.getElementById('info-title').textContent === 'DROPPED.BGF');
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  assert.equal(await page.evaluate(() => window.relicview.listing().files), 1);
  assert.equal(await page.locator('#drop-overlay').isVisible(), false);
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/TOWER.BGF'));
  assert.equal(await page.evaluate(() => window.relicview.stats().triangles), native.triangles);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a real folder dropped from the file manager lists every file under it and opens its models', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  const demo = join(dir, 'DEMO');
  await dropFolder(page, demo);
  const files = walk(demo)
    .map(f => `DEMO/${f.slice(demo.length + 1)}`)
    .sort();
  await page.waitForFunction(
    n => window.relicview.listing().files === n && window.relicview.indexTimeline()?.typed,
    files.length,
  );
  // Every file, by its path under the dropped folder, nested folders included.
  const listed = await page.evaluate(() => window.relicview.shownFiles(100000));
  assert.deepEqual(listed.slice().sort(), files);
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/HEXPOD.BGF');
  assert.equal(
    await page.evaluate(() => window.relicview.stats().triangles),
    nativeInfo(join(demo, 'VIDEO/HEXPOD.BGF')).triangles,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('a folder dropped while the served archive is still opening its first model replaces it', async () => {
  const { page, problems } = await newPage(browser, server.url);
  // No wait: the served archive is listing, or opening its first model, when the drop comes.
  await page.evaluate(async () => {
    const bytes = await (await fetch('archive/DEMO/VIDEO/TOWER.BGF')).arrayBuffer();
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'DROPPED.BGF'));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
  });
  await page.waitForFunction(() => document.getElementById('info-title').textContent === 'DROPPED.BGF');
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DROPPED.BGF');
  assert.equal(await page.evaluate(() => window.relicview.listing().files), 1);
  const link = new URL(await page.evaluate(() => window.relicview.permalink()));
  assert.equal(
    new URLSearchParams(link.hash.slice(1)).get('path'),
    'DROPPED.BGF',
    'the link names the dropped file, never one of the served archive',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('a two-finger pinch zooms in', async () => {
  const { page } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  const before = await canvasCoverage(page);
  await page.evaluate(async () => {
    const c = document.getElementById('viewport');
    const r = c.getBoundingClientRect();
    const cx = r.left + r.width * 0.4;
    const cy = r.top + r.height * 0.5;
    const fire = (type, id, x) =>
      c.dispatchEvent(
        new PointerEvent(type, {
          pointerId: id,
          pointerType: 'touch',
          clientX: x,
          clientY: cy,
          bubbles: true,
          isPrimary: id === 1,
        }),
      );
    fire('pointerdown', 1, cx - 20);
    fire('pointerdown', 2, cx + 20);
    for (let step = 1; step <= 8; step++) {
      fire('pointermove', 1, cx - 20 - step * 2.5);
      fire('pointermove', 2, cx + 20 + step * 2.5);
    }
    fire('pointerup', 1, cx - 40);
    fire('pointerup', 2, cx + 40);
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  const after = await canvasCoverage(page);
  assert.ok(
    after.differing > before.differing * 1.5,
    `pinch out enlarges the model (${before.differing} → ${after.differing} px)`,
  );
  await page.close();
});

test('materials resolve from the archive library and colour the model', async () => {
  const { page, problems } = await pageWithFolder();
  const sample = () =>
    page.evaluate(() => {
      // The mean colour of every pixel that is not background.
      const { data } = window.relicview.readPixels();
      const bg = window.relicview.pixelStats().background;
      const sum = [0, 0, 0];
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - bg[0]) + Math.abs(data[i + 1] - bg[1]) + Math.abs(data[i + 2] - bg[2]) > 12) {
          sum[0] += data[i];
          sum[1] += data[i + 1];
          sum[2] += data[i + 2];
          n++;
        }
      }
      return n ? sum.map(v => v / n) : null;
    });
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const hull = await sample();
  assert.ok(hull, 'model pixels in the centre');
  // hull_mtl diffuse is (0.25, 0.55, 0.85): blue above green above red.
  assert.ok(hull[2] > hull[1] && hull[1] > hull[0] + 20, `hull colour ${hull}`);
  const rows = await page.locator('#info-body').textContent();
  assert.match(rows, /material demo:hull_mtlfrom GAME\/DEMO\/MATERIAL\/DEMO\.BMF/);
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  const crate = await sample();
  // crate_mtl diffuse is (0.8, 0.55, 0.25): red above green above blue.
  assert.ok(crate[0] > crate[1] && crate[1] > crate[2] + 20, `crate colour ${crate}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('LODs can be picked, or switched by camera distance', async () => {
  const { page, problems } = await pageWithFolder();
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/HEXPOD.BGF'));
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal((await page.evaluate(() => window.relicview.stats())).lodCount, 2);
  const lod1 = await page.evaluate(() => window.relicview.setLod(1));
  assert.equal(lod1.triangles, native.objects[0].lods[1].triangles);
  assert.equal(lod1.lod, 1);
  await page.selectOption('#lod-select', '0');
  await page.waitForFunction(() => window.relicview.stats().lod === 0);
  assert.equal(
    (await page.evaluate(() => window.relicview.stats())).triangles,
    native.objects[0].lods[0].triangles,
  );

  // LOD 0 is for 0–60 units, LOD 1 for 60–400: zoom out past 60 with switching on.
  await page.locator('#opt-autolod').check();
  await page.waitForFunction(() => window.relicview.stats().lod === 0);
  const box = await page.locator('#viewport').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 300);
  await page.waitForFunction(() => window.relicview.stats().lod === 1);
  assert.equal(await page.locator('#lod-select').inputValue(), '1');
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -300);
  await page.waitForFunction(() => window.relicview.stats().lod === 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('wireframe and back-face switches change what is drawn', async () => {
  const { page, problems } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/TOWER.BGF'));
  const solid = await page.evaluate(() => window.relicview.pixelStats());
  const wired = await page.evaluate(() => window.relicview.setOptions({ wireframe: true }));
  assert.equal(wired.drawCalls, 2);
  assert.equal(await page.locator('#opt-wireframe').isChecked(), true);
  const wireShot = await canvasCoverage(page);
  // The switches are in the display menu (closed again before the screenshot).
  await page.locator('#display-menu summary').click();
  await page.locator('#opt-wireframe').uncheck();
  await page.locator('#display-menu summary').click();
  await page.waitForFunction(() => window.relicview.stats().drawCalls === 1);
  const solidShot = await canvasCoverage(page);
  let changed = 0;
  for (let i = 0; i < wireShot.png.data.length; i += 4)
    if (wireShot.png.data[i] !== solidShot.png.data[i]) changed++;
  assert.ok(changed > 200, `wire lines change ${changed} pixels`);

  // The tower is an open tube seen from above: hiding back faces removes part of its inside.
  await page.locator('#display-menu summary').click();
  await page.locator('#opt-cullback').check();
  await page.waitForFunction(() => window.relicview.stats().drawCalls === 1);
  const culled = await page.evaluate(() => window.relicview.pixelStats());
  assert.notEqual(culled.nonBackground, solid.nonBackground);
  assert.deepEqual(problems, []);
  await page.close();
});

test('light points are drawn as markers', async () => {
  const { page } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal((await page.evaluate(() => window.relicview.stats())).drawCalls, 2);
  const rows = await page.locator('#info-body').textContent();
  assert.match(rows, /object hexpod_lp6 light points/);
  // The markers' pale yellow, which nothing else in the view has.
  const marker = await page.evaluate(() => {
    const { data } = window.relicview.readPixels();
    let n = 0;
    for (let i = 0; i < data.length; i += 4)
      if (data[i] > 225 && data[i + 1] > 205 && data[i + 2] > 110 && data[i + 2] < 190) n++;
    return n;
  });
  assert.ok(marker > 30, `${marker} marker pixels`);
  await page.close();
});

test('textures decode from the archive, scroll over time, and missing maps show a checker with the reason', async () => {
  const { page, problems } = await pageWithFolder();
  const r = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/POOL.BGF'));
  // Water, rim panels and sign each have their own texture: one draw each.
  assert.equal(r.drawCalls, 3);
  const rows = await page.locator('#info-body').textContent();
  assert.match(rows, /texture water_texGAME\/DEMO\/TEXTURE\/WATER\.TGA · scrolls 0 0 0\.25 0\.1(?!\d)/);
  assert.match(rows, /texture sign_texGAME\/DEMO\/TEXTURE\/SIGN\.RGB/);
  assert.match(rows, /texture panel_texchecker: map file PANEL\.SVT is not in the archive/);

  await page.waitForFunction(() => window.relicview.stats().fps >= 5, null, { timeout: 10000 });
  assert.equal((await page.evaluate(() => window.relicview.stats())).animating, true);
  // The water scrolls: frames drawn later differ from this one in many pixels.
  const t0 = await page.evaluate(() => {
    window.firstFrame = window.relicview.readPixels().data;
    return window.relicview.animationTime();
  });
  const moved = await page.waitForFunction(
    () => {
      const b = window.relicview.readPixels().data;
      let n = 0;
      for (let i = 0; i < b.length; i += 4) if (window.firstFrame[i + 2] !== b[i + 2]) n++;
      return n > 500 && n;
    },
    null,
    { timeout: 10000 },
  );
  const t1 = await page.evaluate(() => window.relicview.animationTime());
  assert.ok(t1 > t0, `the clock moved (${t0} → ${t1})`);
  assert.ok((await moved.jsonValue()) > 500);

  // Opening a model without scrolling textures stops the frame stream.
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  assert.equal((await page.evaluate(() => window.relicview.stats())).animating, false);
  await page.waitForFunction(() => window.relicview.stats().fps === 0, null, { timeout: 5000 });
  assert.deepEqual(problems, []);
  await page.close();
});

test('every vertex format draws, with vertex colours where the format has them', async () => {
  const { page, problems } = await pageWithFolder();
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/FORMATS.BGF'));
  const r = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/FORMATS.BGF'));
  assert.equal(r.triangles, native.triangles);
  assert.equal(native.triangles, 14 * 2);
  const hues = await page.evaluate(() => {
    const { data } = window.relicview.readPixels();
    let red = 0,
      green = 0,
      blue = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (r > g + 60 && r > b + 60) red++;
      if (g > r + 60 && g > b + 60) green++;
      if (b > r + 60 && b > g + 40) blue++;
    }
    return { red, green, blue };
  });
  // Four tiles carry red/green/blue/yellow corners (0x082, 0x083, 0x08A, 0x092).
  assert.ok(hues.red > 100 && hues.green > 100 && hues.blue > 100, JSON.stringify(hues));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a broken material library is reported with its offset and the model still draws', async () => {
  const { page, problems } = await pageWithFolder();
  const native = nativeInfo(join(dir, 'BROKENTREE/MATERIAL/DEMO.BMF'));
  const r = await page.evaluate(() => window.relicview.open('GAME/BROKENTREE/VIDEO/CUBE.BGF'));
  assert.equal(r.triangles, 12);
  const rows = await page.locator('#info-body').textContent();
  // The page opened this model (the first in the list) once already: the reason is kept.
  assert.match(
    rows,
    new RegExp(
      `material demo:crate_mtllibrary unusable: GAME/BROKENTREE/MATERIAL/DEMO\\.BMF: at byte ${native.error.offset}\\b.*\\(drawn grey\\)`,
    ),
  );
  const pixels = await page.evaluate(() => window.relicview.pixelStats());
  assert.ok(pixels.nonBackground > 1000);
  assert.deepEqual(problems, []);
  await page.close();
});

test('inspector: a chunk picked in the tree highlights its bytes, a byte clicked in the hex view picks its chunk', async () => {
  const { page, problems } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const view = await page.evaluate(() => window.relicview.inspector.view());
  const pconn = view.chunks.find(c => c.name === 'PCONN_LIST');
  await page.locator(`#chunk-tree [data-chunk="${pconn.index}"] .chunk-head`).click();
  const selected = await page
    .locator('#hex .b.sel')
    .evaluateAll(els => els.map(e => [Number(e.dataset.o), e.textContent]));
  assert.equal(selected.length, pconn.end - pconn.offset, 'every byte of the chunk, header included');
  assert.equal(selected[0][0], pconn.offset);
  // The first two bytes are the tag word the row's label shows, little-endian.
  const tagWord = parseInt(pconn.label.slice(0, 4), 16);
  assert.match(pconn.label, /^[0-9A-F]{4} PCONN_LIST w\d \d+$/);
  assert.equal(selected[0][1], (tagWord & 0xff).toString(16).toUpperCase().padStart(2, '0'));
  assert.equal(selected[1][1], (tagWord >> 8).toString(16).toUpperCase().padStart(2, '0'));
  assert.match(await page.locator('#inspector-detail').textContent(), /PCONN_LIST at \d+/);

  // The object's NAME sits near the top: click its second payload byte in the hex view.
  const name = view.chunks.find(c => c.name === 'NAME' && view.chunks[c.parent].name === 'OBJECT');
  // (Picking the OBJECT in the tree brings its bytes into the hex view's sight.)
  await page.locator(`#chunk-tree [data-chunk="${name.parent}"] .chunk-head`).click();
  await page.locator(`#hex [data-o="${name.payload_offset + 1}"]`).click();
  assert.equal(
    await page.locator('#chunk-tree [aria-selected="true"]').getAttribute('data-chunk'),
    String(name.index),
  );
  assert.match(await page.locator('#inspector-detail').textContent(), /is string = "hexpod"/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('inspector: coverage shading accounts for every byte as the native core does', async () => {
  const { page } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/POOL.BGF'));
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/POOL.BGF'));
  const legend = await page
    .locator('#coverage-legend .legend')
    .evaluateAll(els => Object.fromEntries(els.map(e => [e.dataset.class, Number(e.dataset.bytes)])));
  assert.deepEqual(legend, {
    framing: native.coverage.framing,
    decoded: native.coverage.decoded,
    opaque: 0,
    unclaimed: 0,
  });
  assert.equal(legend.framing + legend.decoded, native.bytes);
  assert.ok((await page.locator('#hex .b.cov-decoded').count()) > 0);
  assert.ok((await page.locator('#hex .b.cov-framing').count()) > 0);
  await page.close();
});

test('inspector: a broken file shows its chunks up to the error, and the error links to its byte', async () => {
  const { page, problems } = await pageWithFolder();
  const native = nativeInfo(join(dir, 'DEMO/VIDEO/BROKEN.BGF'));
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/BROKEN.BGF').catch(() => null));
  const rows = await page.locator('#chunk-tree .chunk').count();
  assert.ok(rows > 5, `${rows} chunks before the error`);
  const error = page.locator('#diagnostics li.error');
  assert.match(await error.textContent(), new RegExp(`^@${native.error.offset} `));
  await error.click();
  const sel = await page.evaluate(() => window.relicview.inspector.selection());
  assert.ok(sel.start <= native.error.offset && native.error.offset < sel.end, JSON.stringify(sel));
  assert.equal(
    await page.locator(`#hex [data-o="${native.error.offset}"]`).count(),
    1,
    'the hex view shows the byte',
  );
  // The rest of the archive still opens.
  const ok = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/TOWER.BGF'));
  assert.ok(ok.triangles > 0);
  assert.equal(await page.locator('#diagnostics li').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('share copies the permalink and screenshot saves a PNG named after the file', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: server.url.replace(/\/$/, ''),
  });
  const page = await context.newPage();
  await page.goto(server.url + '#archive=archive.json&path=DEMO%2FVIDEO%2FHEXPOD.BGF');
  await page.waitForFunction(
    () => document.getElementById('info-title').textContent === 'DEMO/VIDEO/HEXPOD.BGF',
  );
  await page.locator('#share-button').click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.evaluate(() => window.relicview.permalink()));
  assert.match(copied, /path=DEMO%2FVIDEO%2FHEXPOD\.BGF&cam=/);
  assert.equal(await page.locator('#share-status').textContent(), 'link copied', 'share says so');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('#screenshot-button').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'HEXPOD.png');
  const { PNG } = await import('pngjs');
  const png = PNG.sync.read(readFileSync(await download.path()));
  const bg = await page.evaluate(() => window.relicview.pixelStats().background);
  let model = 0;
  for (let i = 0; i < png.data.length; i += 4)
    if (Math.abs(png.data[i] - bg[0]) + Math.abs(png.data[i + 2] - bg[2]) > 20) model++;
  assert.ok(model > png.width * png.height * 0.02, `${model} model pixels in the saved PNG`);
  await context.close();
});

test('a click on the model selects the face it hit, in the tree and in the bytes; a tree pick outlines its geometry', async () => {
  const { page, problems } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const view = await page.evaluate(() => window.relicview.inspector.view());
  const canvas = await page.locator('#viewport').boundingBox();
  // The roof's apex is at the centre of the framed view: look for the model under the centre.
  const cx = canvas.x + canvas.width / 2;
  const cy = canvas.y + canvas.height / 2;
  const hit = await page.evaluate(
    ([x, y]) => {
      const c = document.getElementById('viewport');
      const r = c.getBoundingClientRect();
      return window.relicview.pick(((x - r.left) * c.width) / r.width, ((y - r.top) * c.height) / r.height);
    },
    [cx, cy],
  );
  assert.ok(hit, 'the centre of the view is on the model');
  await page.mouse.click(cx, cy);
  const sel = await page.evaluate(() => window.relicview.inspector.selection());
  const source = view.chunks[hit.source];
  assert.equal(sel.chunk, hit.source);
  assert.ok(['PCONN_LIST', 'CONNECTION_LIST'].includes(source.name), source.name);
  // The selection is one face: 12 bytes of a CONN triangle, or ppf × 4 bytes of a PCONN face.
  assert.ok(sel.start >= source.payload_offset && sel.end <= source.end);
  assert.ok([12, 16, 24].includes(sel.end - sel.start), `${sel.end - sel.start} bytes`);
  assert.equal(
    await page.locator('#chunk-tree [aria-selected="true"]').getAttribute('data-chunk'),
    String(hit.source),
  );
  assert.equal(view.chunks[view.chunks[hit.source].parent].name, 'PMESH');
  assert.equal(view.chunks[hit.patch].name, 'PATCH');
  assert.equal(await page.locator('#hex .b.sel').count(), sel.end - sel.start);

  // Tree → 3D: a chunk without geometry (HEADER) outlines nothing; the PATCH outlines its
  // triangles: one more draw, and the outline changes pixels.
  await page.locator('#chunk-tree [data-chunk="0"] .chunk-head').click();
  const plain = await page.evaluate(() => window.relicview.setOptions({}));
  const plainPixels = await page.evaluate(() =>
    Array.from(window.relicview.readPixels().data.filter((_, i) => i % 4 === 0)),
  );
  await page.locator(`#chunk-tree [data-chunk="${hit.patch}"] .chunk-head`).click();
  const outlined = await page.evaluate(() => window.relicview.setOptions({}));
  assert.equal(outlined.drawCalls, plain.drawCalls + 1);
  const outlinedPixels = await page.evaluate(() =>
    Array.from(window.relicview.readPixels().data.filter((_, i) => i % 4 === 0)),
  );
  let changed = 0;
  for (let i = 0; i < plainPixels.length; i++) if (plainPixels[i] !== outlinedPixels[i]) changed++;
  assert.ok(changed > 200, `outline changed ${changed} pixels`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('text twins (DIV-VIZ2) are typed by content and shown as text', async () => {
  const { page, problems } = await pageWithFolder();
  assert.equal(await page.evaluate(() => window.relicview.entry('GAME/TEXTS/BOX.VGF').kind), 'viz2-text');
  await page.evaluate(() => window.relicview.open('GAME/TEXTS/BOX.VGF'));
  const text = await page.locator('#text-pane pre.text-view').textContent();
  assert.match(text, /^DIV-VIZ2\nHEADER \{/);
  assert.match(text, /<script>alert\(1\)<\/script>/, 'markup in the file stays text');
  assert.equal(await page.locator('#info-panel script, #text-pane script').count(), 0);
  assert.equal(
    await page.locator('#coverage-legend .legend[data-class="text"]').getAttribute('data-bytes'),
    String(readFileSync(join(dir, 'TEXTS/BOX.VGF')).length),
  );
  assert.equal(await page.locator('#info-error').isVisible(), false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a material library lists the models that take each of its materials from it', async () => {
  const { page, problems } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/MATERIAL/DEMO.BMF'));
  await page.locator('#used-by-button').click();
  await page.waitForFunction(() => /used: hull_mtl/.test(document.getElementById('info-body').textContent));
  const rows = await page
    .locator('#info-body dt')
    .evaluateAll(dts =>
      Object.fromEntries(
        dts
          .filter(d => d.textContent.startsWith('used: '))
          .map(d => [d.textContent.slice(6), d.nextElementSibling.textContent]),
      ),
    );
  assert.equal(rows.hull_mtl, 'GAME/DEMO/VIDEO/HEXPOD.BGF, GAME/DEMO/VIDEO/WALKER.BGF');
  // BROKENTREE's cube takes crate_mtl from its own (broken) library, not from this one.
  assert.equal(
    rows.crate_mtl,
    'GAME/DEMO/VIDEO/<img src=x onerror=alert(1)>.BGF, GAME/DEMO/VIDEO/CUBE.BGF, GAME/DEMO/VIDEO/WALKER.BGF',
  );
  assert.equal(rows.tower_mtl.split(', ').length, 3, 'TOWER, the FORMATS tiles and the walker');
  assert.equal(rows.lamp_mtl, 'GAME/DEMO/VIDEO/WALKER.BGF', "the walker's searchlight");
  assert.deepEqual(problems, []);
  await page.close();
});

test('a permalink carries the animation clock of scrolling textures', async () => {
  const { page } = await newPage(browser, server.url + '#archive=archive.json&path=DEMO%2FVIDEO%2FPOOL.BGF');
  await page.waitForFunction(() => window.relicview.stats().animating);
  const link = await page.evaluate(() => window.relicview.permalink());
  const m = link.match(/&t=([\d.]+)$/);
  assert.ok(m, link);
  await page.close();
  // A link made 100 s into the animation resumes at that phase.
  const later = link.replace(/&t=[\d.]+$/, '&t=100.00');
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(later);
  await fresh.waitForFunction(() => window.relicview.stats().animating);
  const t = await fresh.evaluate(() => window.relicview.animationTime());
  assert.ok(t >= 100 && t < 110, `animation clock ${t}`);
  await fresh.close();
});

test('picking tells the patches of a model apart, and an LOD picked in the tree is shown and outlined', async () => {
  const { page, problems } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/POOL.BGF'));
  const view = await page.evaluate(() => window.relicview.inspector.view());
  const patchName = patch => view.chunks.find(c => c.parent === patch && c.name === 'NAME').summary;
  // Project the centre of the water, and a point on the sign, to the canvas, and click.
  const at = (x, y, z) =>
    page.evaluate(
      ([x, y, z]) => {
        const c = window.relicview.camera();
        const sub = (a, b) => a.map((v, i) => v - b[i]);
        const cross = (a, b) => [
          a[1] * b[2] - a[2] * b[1],
          a[2] * b[0] - a[0] * b[2],
          a[0] * b[1] - a[1] * b[0],
        ];
        const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        const norm = a => a.map(v => v / Math.hypot(...a));
        const f = norm(sub(c.target, c.position));
        const r = norm(cross(f, [0, 1, 0]));
        const u = cross(r, f);
        const d = sub([x, y, z], c.position);
        const k = 1 / Math.tan((c.fov * Math.PI) / 360);
        const canvas = document.getElementById('viewport');
        const aspect = canvas.width / canvas.height;
        const px = ((((dot(d, r) / dot(d, f)) * k) / aspect + 1) / 2) * canvas.width;
        const py = ((1 - (dot(d, u) / dot(d, f)) * k) / 2) * canvas.height;
        const box = canvas.getBoundingClientRect();
        return [box.left + (px * box.width) / canvas.width, box.top + (py * box.height) / canvas.height];
      },
      [x, y, z],
    );
  const [wx, wy] = await at(0.3, 0.0, 0.7);
  await page.mouse.click(wx, wy);
  let sel = await page.evaluate(() => window.relicview.inspector.selection());
  const waterPatch = view.chunks[view.chunks[view.chunks[sel.chunk].parent].parent];
  assert.equal(patchName(waterPatch.index), 'string = "water"');
  // Fold the info panel away from the sign.
  await page.locator('#info-title').click();
  const [sx, sy] = await at(0.0, 0.8, -2.05);
  const covering = await page.evaluate(([x, y]) => document.elementFromPoint(x, y).id, [sx, sy]);
  assert.equal(
    covering,
    'viewport',
    `the sign's point (${sx.toFixed(0)}, ${sy.toFixed(0)}) is on the canvas`,
  );
  await page.mouse.click(sx, sy);
  sel = await page.evaluate(() => window.relicview.inspector.selection());
  const signPatch = view.chunks[view.chunks[view.chunks[sel.chunk].parent].parent];
  assert.equal(patchName(signPatch.index), 'string = "sign"');

  // HEXPOD's second LOD, picked in the tree: drawn (20 triangles) and outlined (+1 draw).
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const hex = await page.evaluate(() => window.relicview.inspector.view());
  const lods = hex.chunks.filter(c => c.name === 'LOD');
  await page.locator('#chunk-tree [data-chunk="0"] .chunk-head').click();
  const plain = await page.evaluate(() => window.relicview.setOptions({}));
  await page.locator(`#chunk-tree [data-chunk="${lods[1].index}"] .chunk-head`).click();
  const shown = await page.evaluate(() => window.relicview.setOptions({}));
  assert.equal(shown.lod, 1);
  assert.equal(shown.triangles, 20);
  assert.equal(shown.drawCalls, plain.drawCalls + 1);
  assert.equal(await page.locator('#lod-select').inputValue(), '1');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a model lists the MODs that draw it and the MAPs that place those MODs', async () => {
  const { page, problems } = await pageWithFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  await page.locator('#used-by-button').click();
  await page.waitForFunction(() => /used by MAPs/.test(document.getElementById('info-body').textContent));
  const rows = await page
    .locator('#info-body dt')
    .evaluateAll(dts =>
      Object.fromEntries(
        dts
          .filter(d => d.textContent.startsWith('used by'))
          .map(d => [d.textContent, d.nextElementSibling.textContent]),
      ),
    );
  assert.equal(rows['used by MODs'], 'GAME/DEMO/MODELS/HEXPOD.MOD');
  assert.equal(rows['used by MAPs'], 'GAME/DEMO/MAPS/DEMO.MAP (via hexpod.mod)');
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  await page.locator('#used-by-button').click();
  await page.waitForFunction(() => /used by MAPs/.test(document.getElementById('info-body').textContent));
  assert.match(await page.locator('#info-body').textContent(), /used by MODsnone in this archive/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a compressed container shows its decompressed bytes, and its own bytes one view away', async () => {
  const own = makeArchive();
  mkdirSync(join(own, 'FF7'), { recursive: true });
  const text = Buffer.from('FIELD NOTES\r\nline two\r\n');
  writeFileSync(join(own, 'FF7/NOTES.LZS'), lzsLiterals(text));
  const startmap = readFileSync(join(repo, '../shared/testdata/ff7/STARTMAP_u.BSX'));
  writeFileSync(join(own, 'FF7/STARTMAP.BSX'), lzsLiterals(startmap));
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, own, walk(own).length);
  assert.equal(await page.evaluate(() => window.relicview.entry('GAME/FF7/NOTES.LZS').kind), 'lzs');
  await page.evaluate(() => window.relicview.open('GAME/FF7/NOTES.LZS'));
  assert.equal(await page.locator('#info-error').isVisible(), false);
  const views = await page.evaluate(() => window.relicview.inspector.view().views);
  const container = text.length + Math.ceil(text.length / 8) + 4;
  assert.deepEqual(views, [
    { label: 'decompressed', len: text.length },
    { label: 'container', len: container },
  ]);
  const hexText = () =>
    page.locator('#hex .b[data-o]').evaluateAll(els => els.map(e => parseInt(e.textContent, 16)));
  assert.deepEqual(await hexText(), [...text], 'the hex view shows the decompressed bytes');
  await page.locator('#byte-view').selectOption('1');
  const stored = await hexText();
  assert.equal(stored.length, container);
  assert.deepEqual(
    stored.slice(0, 4),
    [container - 4, 0, 0, 0],
    'the container starts with its compressed length',
  );
  assert.equal(await page.evaluate(() => window.relicview.inspector.byteView()), 1);
  // Picking a record goes back to the bytes it refers to.
  await page.evaluate(() => window.relicview.inspector.setByteView(0));
  assert.equal((await hexText()).length, text.length);

  // A real field model's bytes, wrapped: its size_file agrees with what was decompressed.
  await page.evaluate(() => window.relicview.open('GAME/FF7/STARTMAP.BSX'));
  assert.equal(await page.locator('#info-error').isVisible(), false);
  assert.match(await page.locator('#info-body').textContent(), new RegExp(`${startmap.length} decompressed`));
  assert.doesNotMatch(await page.locator('#info-body').textContent(), /warning/);
  assert.match(
    await page.locator('#hex .b[data-o="0"]').getAttribute('class'),
    /cov-decoded/,
    'size_file is decoded',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

// A container chunk's header with a 4-byte length.
const container = (word, len) => {
  const b = Buffer.alloc(6);
  b.writeUInt16LE(word | 0x8000, 0);
  b.writeUInt32LE(len, 2);
  return b;
};

test('a file of a million tiny chunks opens with a bounded inspector and model, and the rest of the archive stays usable', async () => {
  const own = makeArchive();
  const n = 1_000_000;
  // One PATCH of a million 4-byte SV_FACETED leaves, and one OBJECT of a million empty PATCHes.
  const leaves = Buffer.alloc(4 * n);
  for (let k = 0; k < n; k++) leaves.set([0x35, 0x20, 1, k & 1], 4 * k);
  writeFileSync(
    join(own, 'DEMO/VIDEO/LEAVES.BGF'),
    Buffer.concat([
      Buffer.from('DIV-BIZ2'),
      container(0x40, 6 + 4 * n),
      container(0x42, 4 * n),
      leaves,
      Buffer.from([5, 0, 0]),
    ]),
  );
  writeFileSync(
    join(own, 'DEMO/VIDEO/FLOOD.BGF'),
    Buffer.concat([
      Buffer.from('DIV-BIZ2'),
      container(0x40, 3 * n),
      Buffer.alloc(3 * n).fill(Buffer.from([0x42, 0, 0])),
      Buffer.from([5, 0, 0]),
    ]),
  );
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, own, walk(own).length);
  const before = await page.evaluate(() => window.relicview.memoryBytes());

  const opened = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/LEAVES.BGF'));
  assert.equal(opened.triangles, 0);
  const view = await page.evaluate(() => {
    const v = window.relicview.inspector.view();
    return {
      rows: v.chunks.length,
      total: v.rows_total,
      last: v.runs[v.runs.length - 1],
      dropped: v.diagnostics_dropped,
    };
  });
  assert.equal(view.rows, 50000, 'the inspector lists the first records');
  assert.equal(view.total, n + 3, 'and counts them all');
  assert.equal(view.last.class, 'unlisted');
  assert.equal(view.dropped, n - 1 - 500, 'every repeated SV_FACETED counted, 500 listed');
  assert.match(
    await page.locator('#inspector-detail').textContent(),
    /the first 50000 of 1000003 records listed/,
  );
  assert.equal(await page.locator('#coverage-legend [data-class="unlisted"]').count(), 1);
  assert.ok((await page.locator('#chunk-tree .chunk').count()) <= 50000);

  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/FLOOD.BGF'));
  const info = await page.locator('#info-body').textContent();
  assert.match(info, /not built/, 'the model stopped, and says so');
  const grown = (await page.evaluate(() => window.relicview.memoryBytes())) - before;
  const files = 4 * n + 3 * n;
  console.log(
    `# wasm memory grew by ${(grown / 2 ** 20).toFixed(1)} MB for ${(files / 2 ** 20).toFixed(1)} MB of such files (${(grown / files).toFixed(2)}×)`,
  );
  assert.ok(grown < 12 * files, `wasm memory grew by ${grown} bytes`);

  const cube = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  assert.equal(cube.triangles, 12, 'the next file opens');
  assert.ok((await page.evaluate(() => window.relicview.pixelStats())).nonBackground > 1000);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an open replaced by a later one before it shows is abandoned: the last file asked for is the one shown', async () => {
  const { page, problems } = await pageWithFolder();
  const [first, second, third] = await page.evaluate(() =>
    Promise.all([
      window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'),
      window.relicview.open('GAME/DEMO/MATERIAL/DEMO.BMF'),
      window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'),
    ]),
  );
  assert.deepEqual(first, { abandoned: true });
  assert.deepEqual(second, { abandoned: true });
  assert.equal(third.triangles, nativeInfo(join(dir, 'DEMO/VIDEO/CUBE.BGF')).triangles);
  assert.equal(await page.locator('#info-title').textContent(), 'GAME/DEMO/VIDEO/CUBE.BGF');
  assert.equal(await page.evaluate(() => window.relicview.lastOpen().path), 'GAME/DEMO/VIDEO/CUBE.BGF');
  assert.equal(await page.evaluate(() => window.relicview.stats().triangles), third.triangles);
  // An open after one that finished is not abandoned.
  const again = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  assert.equal(again.triangles, nativeInfo(join(dir, 'DEMO/VIDEO/HEXPOD.BGF')).triangles);
  assert.deepEqual(problems, []);
  await page.close();
});
