// What a new user trips over: a second archive after a first, loading that says what it
// loads, the phone and small-window layouts, and files that are not 3D in views of their own.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeArchive,
  startServer,
  launch,
  newPage,
  sizedPage,
  walk,
  loadFolder,
  nativeInfo,
  repo,
} from './harness.mjs';
import { scratchDir } from './scratch.mjs';

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  // The real FIELD.TDB, as extracted from the disc (not LZS-wrapped).
  mkdirSync(join(dir, 'FF7'), { recursive: true });
  writeFileSync(join(dir, 'FF7/FIELD.TDB'), readFileSync(join(repo, '../shared/testdata/ff7/FIELD.TDB_u')));
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// A folder of its own in a fresh temp dir: {relative path: bytes}.
function folder(name, files) {
  const root = join(scratchDir('drop'), name);
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
    selected: [...document.querySelectorAll('#file-list [aria-selected="true"]')].map(e => e.textContent),
    message: document.getElementById('view-message').hidden
      ? ''
      : document.getElementById('view-message').textContent,
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
  await page.evaluate(() => {
    location.hash = '#path=MORE/VIDEO/GONE.BGF';
  });
  await page.waitForFunction(() =>
    /not in this archive/.test(document.getElementById('view-message').textContent),
  );
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
  await page.waitForFunction(() =>
    /does not match the link/.test(document.getElementById('view-message').textContent),
  );
  await loadFolder(page, dir, walk(dir).length);
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'GAME/DEMO/VIDEO/HEXPOD.BGF');
  assert.equal(await page.locator('#view-message').isVisible(), false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the same folder chosen again is read again, and the input keeps no paths once a folder is taken', async () => {
  const { page, problems } = await newPage(browser, server.url);
  const models = folder('MODELS', { 'VIDEO/CUBE.BGF': readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')) });
  // An open of the model newer than the one seen last (the last open's record stays until
  // the next one ends: a new listing alone must not count).
  const drawn = async () => {
    await page.waitForFunction(() => {
      const o = window.relicview.lastOpen();
      return o && o !== window.seenOpen && o.path === 'MODELS/VIDEO/CUBE.BGF';
    });
    return page.evaluate(() => {
      window.seenOpen = window.relicview.lastOpen();
      return { start: window.relicview.indexTimeline().start, triangles: window.relicview.stats().triangles };
    });
  };
  await loadFolder(page, models, 1);
  const first = await drawn();
  // (The browser writes an input's chosen paths into every history entry the page updates:
  // a folder of 20,000 kept the page busy for seconds while a model played.)
  assert.equal(await page.evaluate(() => document.getElementById('folder-input').files.length), 0);
  // The file changed on disk, under the same name; the reader chooses the same folder again.
  writeFileSync(join(models, 'VIDEO/CUBE.BGF'), readFileSync(join(dir, 'DEMO/VIDEO/HEXPOD.BGF')));
  await page.locator('#folder-input').setInputFiles(models);
  const second = await drawn();
  assert.notEqual(second.start, first.start, 'a listing of its own');
  const hexpod = nativeInfo(join(dir, 'DEMO/VIDEO/HEXPOD.BGF'));
  assert.notEqual(first.triangles, second.triangles);
  assert.equal(second.triangles, hexpod.triangles);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a slow open says which file it is opening and dims what is still on show', async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, dir, walk(dir).length);
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
  const labels = page.evaluate(
    () =>
      new Promise(resolve => {
        const seen = new Set();
        const look = () => {
          const box = document.getElementById('loading');
          if (!box.hidden)
            seen.add(
              `${document.getElementById('loading-label').textContent}|${document.getElementById('view').classList.contains('dim')}`,
            );
          if (window.relicview.lastOpen()?.path.endsWith('CITY.MAP')) resolve([...seen]);
          else requestAnimationFrame(look);
        };
        look();
      }),
  );
  await page.evaluate(() => window.relicview.open('GAME/DEMO/MAPS/CITY.MAP'));
  const seen = await labels;
  // It reads its maps, objects and libraries (and uploads in batches where there are more
  // vertices than a frame takes); the previous model is dimmed all along.
  assert.ok(seen.length > 0, 'the open said something');
  assert.ok(
    seen.every(s => /^Opening CITY\.MAP( — (reading GAME\/DEMO\/\S+|batch \d+ of \d+))?\|true$/.test(s)),
    JSON.stringify(seen),
  );
  assert.ok(
    seen.some(s => /reading GAME\/DEMO\//.test(s)),
    JSON.stringify(seen),
  );
  assert.equal(await page.locator('#loading').isVisible(), false, 'gone once the world is up');
  assert.equal(await page.evaluate(() => document.getElementById('view').classList.contains('dim')), false);
  assert.deepEqual(problems, []);
  await page.close();
});

// The served archive at `size`, once its first model has opened.
async function sized(size, url = server.url, options = {}) {
  const opened = await sizedPage(browser, url, size, options);
  await opened.page.waitForFunction(() => window.relicview.lastOpen());
  return opened;
}

// The toolbar's rows (its visible controls grouped by where they sit) and the view's share
// of the window's height.
async function layout(page) {
  return page.evaluate(() => {
    const shown = [...document.getElementById('toolbar').children].filter(
      c => c.offsetParent !== null && c.getBoundingClientRect().width > 0,
    );
    const centres = shown
      .map(c => {
        const r = c.getBoundingClientRect();
        return (r.top + r.bottom) / 2;
      })
      .sort((a, b) => a - b);
    let rows = 0;
    let last = -Infinity;
    for (const y of centres) {
      if (y - last > 12) rows++;
      last = y;
    }
    const view = document.getElementById('view').getBoundingClientRect();
    const visible = id => {
      const e = document.getElementById(id);
      return Boolean(e && e.offsetParent !== null);
    };
    return {
      rows,
      viewShare: view.height / innerHeight,
      lod: visible('lod-select'),
      display: visible('display-menu'),
      camera: visible('camera-menu'),
      frame: visible('frame-button'),
    };
  });
}

for (const size of [
  [1400, 850],
  [1024, 640],
])
  test(`at ${size.join('×')} the toolbar is at most two rows, the view at least 60 % of the height, and only what applies shows`, async () => {
    const { page, problems, close } = await sized(size);
    for (const path of ['DEMO/VIDEO/HEXPOD.BGF', 'DEMO/FIELD/ROBOT.BSX', 'DEMO/MAPS/ARENA1.MAP']) {
      await page.evaluate(p => window.relicview.open(p), path);
      const l = await layout(page);
      assert.ok(l.rows <= 2, `${path}: ${l.rows} toolbar rows`);
      assert.ok(
        l.viewShare >= 0.6 - 1e-3,
        `${path}: the view is ${(l.viewShare * 100).toFixed(1)} % of the height`,
      );
      assert.ok(l.display && l.camera && l.frame, `${path}: the 3D controls show`);
    }
    for (const path of ['DEMO/MATERIAL/DEMO.BMF', 'DEMO/TEXTURE/WATER.TGA', 'DEMO/FIELD/FIELD.TDB']) {
      await page.evaluate(p => window.relicview.open(p), path);
      const l = await layout(page);
      assert.deepEqual(
        [l.lod, l.display, l.camera, l.frame],
        [false, false, false, false],
        `${path}: no 3D controls`,
      );
      assert.ok(l.viewShare >= 0.6 - 1e-3);
    }
    // Where there is nothing to export, the button is greyed and says why.
    await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
    assert.equal(await page.locator('#export-button').isDisabled(), true);
    assert.match(
      await page.locator('#export-button').getAttribute('title'),
      /^Nothing to export: DEMO\.BMF has no 3D scene/,
    );
    await page.evaluate(() => window.relicview.open('DEMO/TEXTURE/WATER.TGA'));
    assert.equal(await page.locator('#export-button').isDisabled(), true);
    assert.match(
      await page.locator('#export-button').getAttribute('title'),
      /^Nothing to export: WATER\.TGA is a picture/,
    );
    // A model of one LOD has no LOD picker; one of several has.
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
    assert.equal(
      await page.locator('#lod-select').isVisible(),
      (await page.evaluate(() => window.relicview.stats().lodCount)) > 1,
    );
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
    assert.equal(await page.locator('#lod-select').isVisible(), true);
    assert.deepEqual(problems, []);
    await close();
  });

test('an image opens flat fitted to the view, zooms to the texel about the pointer, and reads out the texel under it', async () => {
  const { page, problems, close } = await sized([1400, 850]);
  await page.evaluate(() => window.relicview.open('DEMO/TEXTURE/WATER.TGA'));
  const flat = await page.evaluate(() => window.relicview.flatView());
  const box = await page.locator('#picture-canvas').boundingBox();
  // (The view's size as the page lays it out: whole CSS pixels.)
  const client = await page
    .locator('#picture-canvas')
    .evaluate(c => ({ width: c.clientWidth, height: c.clientHeight }));
  // A small picture fills the view, a whole number of pixels a texel (nearest texel).
  assert.deepEqual(
    [flat.mode, flat.zoom, flat.width, flat.height],
    ['picture', Math.floor(Math.min(client.width / 32, client.height / 32)), 32, 32],
  );
  assert.ok(flat.zoom >= 8, `a 32 × 32 picture is enlarged: ${flat.zoom}`);
  // From here one texel to a pixel, still centred.
  assert.equal(await page.evaluate(() => window.relicview.setPictureZoom(1)), 1);
  // The picture is centred: the pointer goes to the middle of texel (20, 20), minus the 5
  // pixels added below.
  const centre = { x: (box.width - 32) / 2 + 20.5 - 5, y: (box.height - 32) / 2 + 20.5 - 5 };
  const drawn = async (x, y) =>
    page
      .locator('#picture-canvas')
      .evaluate((c, [x, y]) => [...c.getContext('2d').getImageData(x, y, 1, 1).data], [x, y]);
  // The wheel zooms by two about the pointer; the texel under it stays under it.
  await page.mouse.move(box.x + centre.x + 5, box.y + centre.y + 5);
  const under = await page.evaluate(
    ([x, y]) => window.relicview.pictureAt(x, y),
    [centre.x + 5, centre.y + 5],
  );
  for (let k = 0; k < 6; k++) await page.mouse.wheel(0, -100);
  await page.waitForFunction(() => window.relicview.flatView().zoom === 64);
  const still = await page.evaluate(
    ([x, y]) => window.relicview.pictureAt(x, y),
    [centre.x + 5, centre.y + 5],
  );
  assert.deepEqual([still.x, still.y], [under.x, under.y], 'zoom keeps the texel under the pointer');
  // At 64× a texel is a 64 × 64 block of one colour, the one the readout names.
  const t = await page.evaluate(([x, y]) => window.relicview.pictureAt(x, y), [centre.x + 5, centre.y + 5]);
  const hex = t.rgba
    .slice(0, 3)
    .map(v => v.toString(16).padStart(2, '0'))
    .join('');
  assert.match(
    await page.locator('#picture-readout').textContent(),
    new RegExp(`^x ${t.x}, y ${t.y} · #${hex} · alpha ${t.rgba[3]}`),
  );
  assert.deepEqual(
    (await drawn(centre.x + 5, centre.y + 5)).slice(0, 3),
    t.rgba.slice(0, 3),
    'the block shows the texel as stored',
  );
  assert.equal(t.rgba[3], 255);
  // Zoom stops at 64, fit returns to a whole number of pixels per texel that fits.
  assert.equal(await page.evaluate(() => window.relicview.setPictureZoom(1000)), 64);
  const fitted = await page.evaluate(() => window.relicview.fitPicture());
  assert.equal(fitted.zoom, Math.floor(Math.min(client.width / 32, client.height / 32)));
  // The keys: 1 one texel to a pixel, + and - by two, 0 fits.
  await page.locator('#picture-canvas').focus();
  const zoomAfter = async key => {
    await page.keyboard.press(key);
    return (await page.evaluate(() => window.relicview.flatView())).zoom;
  };
  assert.deepEqual(
    [
      await zoomAfter('1'),
      await zoomAfter('+'),
      await zoomAfter('+'),
      await zoomAfter('-'),
      await zoomAfter('0'),
    ],
    [1, 2, 4, 2, fitted.zoom],
  );
  assert.deepEqual(problems, []);
  await close();
});

test('FIELD.TDB shows its sheet: every image numbered, its palette named under the pointer, a checkerboard where it is transparent', async () => {
  const { page, problems, close } = await sized([1400, 850]);
  // The real FIELD.TDB: its header says how many images there are and where they start.
  const real = readFileSync(join(repo, '../shared/testdata/ff7/FIELD.TDB_u'));
  const [images, imageOffset] = [real.readUInt16LE(4), real.readUInt32LE(8)];
  await page.evaluate(() => window.relicview.open('FF7/FIELD.TDB'));
  const flat = await page.evaluate(() => window.relicview.flatView());
  assert.equal(flat.regions, images, 'one labelled region per image');
  assert.deepEqual(
    [flat.width, flat.height],
    [16 * 32, Math.ceil(images / 16) * 32],
    'a sheet of 16 columns of 32 × 32',
  );
  const box = await page.locator('#picture-canvas').boundingBox();
  const origin = f => ({ x: (box.width - f.width * f.zoom) / 2, y: (box.height - f.height * f.zoom) / 2 });
  // Image 17 sits in row 1, column 1; images 0-79 are eight to a face, in face i/8's palette.
  let o = origin(flat);
  const at = { x: o.x + (32 + 16.5) * flat.zoom, y: o.y + (32 + 16.5) * flat.zoom };
  const t = await page.evaluate(([x, y]) => window.relicview.pictureAt(x, y), [at.x, at.y]);
  assert.deepEqual([t.x, t.y], [48, 48]);
  assert.equal(t.region.label, 'image 17 · palette 2');
  // What the texel is stored as, from the header: texel (16, 16) of image 17 is a nibble of
  // its row's 16 bytes (the low one first), an index into face 2's palette at u32[0xC] + 2 · 32.
  const byte = real[imageOffset + 17 * 512 + 16 * 16 + 8];
  const colour = real.readUInt16LE(real.readUInt32LE(12) + 2 * 32 + 2 * (byte & 15));
  assert.equal(
    t.source,
    `CLUT index ${byte & 15} · colour word 0x${colour.toString(16).toUpperCase().padStart(4, '0')}`,
  );
  assert.match(
    await page.locator('#picture-readout').textContent(),
    /image 17 · palette 2 · CLUT index \d+ · colour word 0x/,
  );
  // A click on it selects its bytes: 32 × 32 at 4 bits, where the header puts image 17.
  await page.mouse.click(box.x + at.x, box.y + at.y);
  const sel = await page.evaluate(() => window.relicview.inspector.selection());
  assert.deepEqual([sel.start, sel.end], [imageOffset + 17 * 512, imageOffset + 18 * 512]);
  // The demo's sheet has empty cells: their transparent texels show the checker's two greys.
  await page.evaluate(() => window.relicview.open('DEMO/FIELD/FIELD.TDB'));
  const demo = await page.evaluate(() => window.relicview.flatView());
  o = origin(demo);
  const empty = { x: o.x + (32 + 16.5) * demo.zoom, y: o.y + (32 + 16.5) * demo.zoom };
  const clear = await page.evaluate(([x, y]) => window.relicview.pictureAt(x, y), [empty.x, empty.y]);
  assert.equal(clear.rgba[3], 0, 'image 17 of the demo sheet is empty');
  const px = await page
    .locator('#picture-canvas')
    .evaluate((c, [x, y]) => [...c.getContext('2d').getImageData(x, y, 1, 1).data], [empty.x, empty.y]);
  assert.ok(
    [102, 153].includes(px[0]) && px[0] === px[1] && px[1] === px[2] && px[3] === 255,
    `checker grey under alpha: ${px}`,
  );
  assert.deepEqual(problems, []);
  await close();
});

test('a material library shows one card per material: swatch, thumbnail, texture link, and the files that use it', async () => {
  const { page, problems, close } = await sized([1400, 850]);
  await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
  const native = nativeInfo(join(dir, 'DEMO/MATERIAL/DEMO.BMF'));
  const defs = native.material_defs;
  assert.deepEqual(await page.evaluate(() => window.relicview.flatView()), {
    mode: 'gallery',
    cards: defs.length,
  });
  const cards = await page.locator('#gallery .card').evaluateAll(els =>
    els.map(c => ({
      name: c.querySelector('.card-name').textContent,
      swatch: c.querySelector('.swatch').style.backgroundColor,
      thumb: [c.querySelector('canvas').width, c.querySelector('canvas').height],
      texture: c.querySelector('.card-texture').textContent,
      link: c.querySelector('.card-texture a')?.textContent ?? null,
    })),
  );
  assert.deepEqual(
    cards.map(c => c.name),
    defs.map(d => d.name),
  );
  const rgb = d => `rgb(${d.map(c => Math.round(c * 255)).join(', ')})`;
  cards.forEach((c, i) => {
    assert.equal(c.swatch, rgb(defs[i].diffuse), `${c.name}: its diffuse colour`);
    if (defs[i].texture === null) assert.equal(c.texture, 'no texture');
    else
      assert.ok(c.texture.startsWith(defs[i].texture), `${c.name}: names ${defs[i].texture}: ${c.texture}`);
  });
  const textured = cards.filter(c => c.link);
  assert.ok(textured.length >= 2, 'water and sign have maps in the archive');
  assert.ok(
    textured.every(c => c.thumb[0] > 1 && c.thumb[0] <= 64 && c.thumb[1] <= 64),
    JSON.stringify(textured),
  );
  // The files that take each material, as links.
  await page.waitForFunction(() => document.querySelectorAll('#gallery .card-users a').length > 0);
  const crate = page.locator('#gallery .card', { hasText: 'crate_mtl' });
  assert.match(await crate.locator('.card-users').textContent(), /^used by \d+ files?: .*CUBE\.BGF/);
  assert.ok((await crate.locator('.card-users a').allTextContents()).includes('CUBE.BGF'));
  // A texture link opens the picture.
  await page.locator('#gallery .card', { hasText: 'water_mtl' }).locator('.card-texture a').click();
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/TEXTURE/WATER.TGA');
  assert.equal((await page.evaluate(() => window.relicview.flatView())).mode, 'picture');
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone the list comes first, a tap on a file brings the view into sight, a swipe near the edge scrolls, and fly mode has buttons', async () => {
  const { page, problems, close } = await sized([430, 900], server.url, { hasTouch: true });
  const rect = id =>
    page.evaluate(i => {
      const r = document.getElementById(i).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, width: r.width, height: r.height };
    }, id);
  const list = await rect('file-list');
  const view = await rect('view');
  assert.ok(list.top < 200, `the list starts ${Math.round(list.top)} px down`);
  assert.ok(list.top < view.top, 'the list is above the view');
  // A tap on a file: it opens, and the page scrolls so the view is in sight.
  await page.locator('#search').fill('HEXPOD.BGF');
  await page.locator('#file-list li[data-path="DEMO/VIDEO/HEXPOD.BGF"]').click();
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/HEXPOD.BGF');
  const after = await rect('viewport');
  const height = await page.evaluate(() => innerHeight);
  assert.ok(
    after.top >= -1 && after.bottom <= height + 1,
    `the canvas is in sight: ${JSON.stringify(after)} of ${height}`,
  );
  assert.ok((await page.evaluate(() => scrollY)) > 0, 'the page scrolled to it');
  // One-finger swipes down (touch events, as a phone sends them): near the left edge the
  // page scrolls back up; over the middle the camera orbits instead.
  const cdp = await page.context().newCDPSession(page);
  const swipe = async x => {
    const v = await rect('view');
    const [sx, sy] = [Math.round(v.left + x), Math.round(v.top + Math.min(v.height, height) / 3)];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: sx, y: sy }] });
    for (let k = 1; k <= 10; k++)
      await cdp.send('Input.dispatchTouchEvent', {
        type: 'touchMove',
        touchPoints: [{ x: sx, y: sy + k * 25 }],
      });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    // A fling goes on after the finger lifts: wait until the page is still for 20 frames.
    await page.evaluate(
      () =>
        new Promise(resolve => {
          let [y, still] = [scrollY, 0];
          const look = () => {
            still = scrollY === y ? still + 1 : 0;
            y = scrollY;
            if (still >= 20) resolve();
            else requestAnimationFrame(look);
          };
          requestAnimationFrame(look);
        }),
    );
  };
  const scroll0 = await page.evaluate(() => scrollY);
  const cam0 = await page.evaluate(() => window.relicview.camera());
  await swipe(12);
  const scroll1 = await page.evaluate(() => scrollY);
  assert.ok(scroll1 < scroll0 - 50, `the edge swipe scrolled the page: ${scroll0} → ${scroll1}`);
  assert.deepEqual(await page.evaluate(() => window.relicview.camera()), cam0, 'and did not move the camera');
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
  await page.locator('#stage').evaluate(s => s.scrollIntoView({ block: 'start' }));
  await page.evaluate(() => window.relicview.rasterMs());
  const scroll2 = await page.evaluate(() => scrollY);
  const cam1 = await page.evaluate(() => window.relicview.camera());
  await swipe(view.width / 2);
  const scroll3 = await page.evaluate(() => scrollY);
  assert.ok(
    Math.abs(scroll3 - scroll2) < 2,
    `a swipe over the middle leaves the page where it is: ${scroll2} → ${scroll3}`,
  );
  assert.notDeepEqual(
    (await page.evaluate(() => window.relicview.camera())).position,
    cam1.position,
    'and orbits',
  );
  // Fly mode shows a pad; holding ▲ flies forward, letting go stops.
  await page.evaluate(() => window.relicview.setCamera('fly'));
  assert.equal(await page.locator('#fly-pad').isVisible(), true);
  const before = await page.evaluate(() => window.relicview.camera());
  const forward = page.locator('#fly-pad [data-fly="KeyW"]');
  await forward.hover();
  await page.mouse.down();
  // Held until the camera has gone a step forward, then let go.
  await page.waitForFunction(p => {
    const c = window.relicview.camera();
    return Math.hypot(...c.position.map((x, i) => x - p[i])) > 0;
  }, before.position);
  await page.mouse.up();
  const moved = await page.evaluate(() => window.relicview.camera());
  const toward = before.target.map((t, i) => t - before.position[i]);
  const step = moved.position.map((p, i) => p - before.position[i]);
  assert.ok(step.reduce((s, d, i) => s + d * toward[i], 0) > 0, `flew forward: ${step}`);
  // Ten frames after letting go the camera is where it was one frame after.
  const [settled, later] = await page.evaluate(
    () =>
      new Promise(resolve => {
        requestAnimationFrame(() => {
          const first = window.relicview.camera().position;
          let n = 0;
          const look = () =>
            ++n < 10 ? requestAnimationFrame(look) : resolve([first, window.relicview.camera().position]);
          requestAnimationFrame(look);
        });
      }),
  );
  assert.deepEqual(later, settled, 'stopped once let go');
  await page.evaluate(() => window.relicview.setCamera('orbit'));
  assert.equal(await page.locator('#fly-pad').isVisible(), false);
  assert.deepEqual(problems, []);
  await close();
});

test('the landing speaks to the device, and offers the served archive as a demo', async () => {
  for (const [size, words] of [
    [[1400, 850], 'Drop a game folder here'],
    [[430, 900], "Open a game's files"],
  ]) {
    const { page, problems, close } = await sizedPage(
      browser,
      `${server.url.replace(/\/$/, '')}/index.html#archive=none.json`,
      size,
    );
    assert.equal(await page.locator('#landing h2').innerText(), words);
    await page.locator('#demo-link').waitFor();
    await page.locator('#demo-link').click();
    await page.waitForFunction(() => window.relicview.lastOpen() && window.relicview.stats().triangles > 0);
    assert.equal(await page.locator('#landing').isVisible(), false);
    assert.doesNotMatch(await page.evaluate(() => location.hash), /none\.json/);
    assert.deepEqual(problems, []);
    await close();
  }
});

test("paths in the info pane are links that open their files: a model's library and maps, a world's includes and models, a field model's BCX and TDB", async () => {
  const { page, problems, close } = await sized([1400, 850]);
  const links = () => page.locator('#info-body a.file-link').evaluateAll(as => as.map(a => a.dataset.path));
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CRATE.BGF'));
  const model = await links();
  assert.ok(
    model.some(p => /MATERIAL\/[^/]+\.BMF$/.test(p)),
    `the library: ${model}`,
  );
  await page.evaluate(() => window.relicview.open('DEMO/MAPS/ARENA1.MAP'));
  const world = await links();
  assert.ok(world.includes('DEMO/MAPS/BLOCKS.MAP'), `the include: ${world}`);
  assert.ok(
    world.some(p => p.endsWith('.MOD')),
    `the objects it uses: ${world}`,
  );
  await page.evaluate(() => window.relicview.open('DEMO/FIELD/PARTY.BSX'));
  const field = await links();
  assert.ok(
    field.includes('DEMO/FIELD/CLOUD.BCX') && field.includes('DEMO/FIELD/FIELD.TDB'),
    `the BCX and TDB: ${field}`,
  );
  // A click opens the file the link names.
  await page.locator('#info-body a.file-link[data-path="DEMO/FIELD/CLOUD.BCX"]').first().click();
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/FIELD/CLOUD.BCX');
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/POOL.BGF'));
  const maps = await links();
  assert.ok(
    maps.some(p => /TEXTURE\/[^/]+\.(TGA|RGB)$/.test(p)),
    `texture maps: ${maps}`,
  );
  assert.deepEqual(problems, []);
  await close();
});
