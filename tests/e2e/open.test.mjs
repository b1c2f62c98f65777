// Opening a file, as a reader meets it: it plays, its clips and rows are named, the view
// shows only its own controls and stays readable, text, bytes, pictures, sheets and libraries
// in views of their own, a slow open says what it opens, and paths in the info pane open
// their files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPage, sizedPage, axeClean as axe, loadFolder, walk, nativeInfo, repo } from './harness.mjs';
import {
  discArchive,
  oddArchive,
  sheetArchive,
  open,
  onScreen,
  THREE_D,
  COMPARING,
  contrast,
  launched,
  servedBeside,
} from './fixtures.mjs';

const ctx = launched();

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test('each file opens playing: a pause stays with the file it was made on, a link that says paused pauses', async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/MAPS/ARENA1.MAP');
    await p.locator('#play-button').click();
    assert.equal(await p.evaluate(() => window.relicview.clock().playing), false, 'paused');
    await open(p, 'DEMO/VIDEO/POOL.BGF');
    assert.equal(await p.locator('#play-button').textContent(), 'pause', 'the water runs in the next file');
    assert.equal(await p.evaluate(() => window.relicview.clock().playing), true);
    await p.locator('#play-button').click();
    await open(p, 'FF7/MD1_1.BSX');
    assert.equal(await p.evaluate(() => window.relicview.clock().playing), true, 'the field model plays');
    // A link made while paused opens paused.
    await p.locator('#play-button').click();
    const link = await p.evaluate(() => window.relicview.permalink());
    assert.match(link, /paused/);
    const other = await sizedPage(ctx.browser, link, [1400, 850]);
    await other.page.waitForFunction(() => window.relicview.lastOpen()?.path === 'FF7/MD1_1.BSX');
    assert.equal(
      await other.page.evaluate(() => window.relicview.clock().playing),
      false,
      'the link says paused',
    );
    await other.close();
    assert.deepEqual(problems, []);
    await close();
  });

  test("a playable character's first three clips are named stand, walk and run in the picker; a field's own keep their numbers", async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'FF7/CLOUD.BCX');
    const bcx = await p.evaluate(() => window.relicview.choice().options);
    assert.match(bcx[1], /^model 0: animation 0, stand \(/);
    assert.match(bcx[2], /^model 0: animation 1, walk \(/);
    assert.match(bcx[3], /^model 0: animation 2, run \(/);
    await open(p, 'FF7/MD1_1.BSX');
    const field = await p.evaluate(() => window.relicview.choice().options);
    // Cloud (model 0) with his BCX's three and the field's own after them; an NPC's by number.
    assert.ok(
      field.some(o => /^model 0: animation 1, walk \(/.test(o)),
      JSON.stringify(field),
    );
    assert.ok(
      field.some(o => /^model 0: animation 3 \(/.test(o)),
      "the field's own clip keeps its number",
    );
    assert.ok(
      field.some(o => /^model 3: animation 0 \(/.test(o)),
      "an NPC's clips keep their numbers",
    );
    assert.ok(!field.some(o => /^model 3: animation \d, (stand|walk|run)/.test(o)));
    assert.deepEqual(problems, []);
    await close();
  });

  test("the info pane's drawn row follows the LOD on show", async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/VIDEO/HEXPOD.BGF');
    const row = () =>
      p.evaluate(() => {
        const dt = [...document.querySelectorAll('#info-body dt')].find(d =>
          d.textContent.startsWith('drawn'),
        );
        return `${dt.textContent}: ${dt.nextElementSibling.textContent}`;
      });
    assert.match(await row(), /^drawn \(LOD 0\): 26 triangles/);
    const rowSays = text =>
      p.waitForFunction(
        t => [...document.querySelectorAll('#info-body dt')].some(d => d.textContent === t),
        text,
      );
    await p.locator('#lod-select').selectOption('1');
    await rowSays('drawn (LOD 1)');
    assert.equal(await row(), 'drawn (LOD 1): 20 triangles');
    await p.locator('#lod-select').selectOption('0');
    await rowSays('drawn (LOD 0)');
    assert.match(await row(), /^drawn \(LOD 0\): 26 triangles · \d+ vertices/);
    assert.deepEqual(problems, []);
    await close();
  });

  test("the view's corner figures are readable over a bright model and on every background", async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/VIDEO/CUBE.BGF');
    for (const bg of ['dark', 'light', 'checker']) {
      await p.evaluate(b => window.relicview.setOptions({ background: b }), bg);
      const { color, plate } = await p.evaluate(() => {
        const s = getComputedStyle(document.getElementById('hud'));
        return { color: s.color, plate: s.backgroundColor };
      });
      const rgb = c =>
        c
          .match(/[\d.]+/g)
          .slice(0, 3)
          .map(Number);
      const alpha = Number(plate.match(/[\d.]+/g)[3] ?? 1);
      assert.ok(alpha >= 0.75, `${bg}: the figures sit on a plate (${plate})`);
      // The plate over the brightest thing that can be behind it (white) and the darkest.
      for (const under of [
        [255, 255, 255],
        [0, 0, 0],
      ]) {
        const seen = rgb(plate).map((c, k) => c * alpha + under[k] * (1 - alpha));
        assert.ok(
          contrast(rgb(color), seen) >= 4.5,
          `${bg}: ${color} on ${plate} over ${under}: ${contrast(rgb(color), seen).toFixed(2)}`,
        );
      }
    }
    assert.deepEqual(problems, []);
    await close();
  });

  test('a .txt is badged as text in the list and opens as text', async () => {
    const { page: p, problems, close } = await on.page();
    await p.locator('#search').fill('README.TXT');
    const badge = await p.locator('#file-list li[data-path="TEXTS/README.TXT"] .kind').textContent();
    assert.equal(badge.trim(), 'TXT');
    await p.locator('#search').fill('');
    const opened = await open(p, 'TEXTS/README.TXT');
    assert.ok(!opened.error, JSON.stringify(opened));
    assert.match(await p.locator('#info-body').textContent(), /formattext/);
    assert.deepEqual(problems, []);
    await close();
  });
}

// On files that fail or are odd (fixtures.mjs, oddArchive).
{
  const on = servedBeside(() => ctx.browser, oddArchive);

  test('each view shows only its own controls: a model, the gallery, a comparison, a picture, text and bytes', async () => {
    const { page: p, problems, close } = await on.page();
    const seen = async what => ({ what, shown: await onScreen(p) });
    // An animated field model: its 3D controls and timeline, its inspector, its row.
    await open(p, 'DEMO/FIELD/PARTY.BSX');
    let s = await seen('model');
    for (const id of ['display-menu', 'frame-button', 'hud', 'gizmo', 'timeline', 'inspector'])
      assert.ok(s.shown.includes(id), `${id}: ${JSON.stringify(s)}`);
    assert.deepEqual(
      s.shown.filter(id => COMPARING.includes(id)),
      [],
    );
    // The gallery: no 3D control, no timeline, no inspector, no file's row selected.
    await p.locator('#textures-button').click();
    await p.waitForFunction(() => window.relicview.flatView()?.mode === 'textures');
    s = await seen('gallery');
    assert.deepEqual(
      s.shown.filter(id => THREE_D.includes(id) || COMPARING.includes(id) || id === 'inspector'),
      [],
      JSON.stringify(s),
    );
    assert.ok(s.shown.includes('texture-gallery'));
    assert.equal(await p.locator('#file-list li[aria-selected="true"]').count(), 0, 'no file is on show');
    assert.equal(await p.locator('#info-title').textContent(), 'The archive’s textures');
    await axe(p, 'texture gallery');
    // A texture from it at full size: the picture and its tools only.
    await p
      .locator('#texture-cards .texture-card[data-path="DEMO/FIELD/PARTY.BSX"] .card-name')
      .first()
      .click();
    await p.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
    s = await seen('texture');
    assert.deepEqual(
      s.shown.filter(id => THREE_D.includes(id) || COMPARING.includes(id) || id === 'inspector'),
      [],
      JSON.stringify(s),
    );
    await axe(p, 'a texture at full size');
    // A comparison: its controls over the view; then a picture: none of them.
    await p.evaluate(() => window.relicview.compare('DEMO/VIDEO/DR1.BGF', 'DEMO/VIDEO/DR2.BGF'));
    await p.evaluate(() => window.relicview.setCompareView({ mode: 'split' }));
    s = await seen('comparison');
    for (const id of ['compare-controls', 'split-handle', 'compare-body', 'hud'])
      assert.ok(s.shown.includes(id), `${id}: ${JSON.stringify(s)}`);
    assert.equal(s.shown.includes('inspector-body'), false);
    await open(p, 'DEMO/TEXTURE/WATER.TGA');
    s = await seen('picture');
    assert.deepEqual(
      s.shown.filter(id => THREE_D.includes(id) || COMPARING.includes(id)),
      [],
      JSON.stringify(s),
    );
    assert.ok(s.shown.includes('picture-pane') && s.shown.includes('inspector'));
    // Back to a model: its controls again, nothing of the picture's.
    await open(p, 'DEMO/VIDEO/CUBE.BGF');
    s = await seen('model again');
    assert.ok(s.shown.includes('display-menu') && s.shown.includes('hud'));
    assert.deepEqual(
      s.shown.filter(id =>
        ['picture-pane', 'texture-gallery', 'text-pane', 'timeline', ...COMPARING].includes(id),
      ),
      [],
      JSON.stringify(s),
    );
    assert.deepEqual(problems, []);
    await close();
  });

  test('text and unknown files open in the main view: lines numbered and searchable, bytes in the hex view; no 3D controls', async () => {
    const { page: p, problems, close } = await on.page();
    const text = readFileSync(join(on.dir, 'README.TXT'), 'utf8');
    const lines = text.split('\n').length - 1;
    await open(p, 'README.TXT');
    let shown = await onScreen(p);
    assert.ok(shown.includes('text-pane'), JSON.stringify(shown));
    assert.deepEqual(
      shown.filter(id => THREE_D.includes(id)),
      [],
      JSON.stringify(shown),
    );
    assert.deepEqual(await p.evaluate(() => window.relicview.flatView()), { mode: 'text', lines });
    // In the main view, wider than the info pane would be; the first lines and their numbers.
    const pane = await p.locator('#text-pane').boundingBox();
    const view = await p.locator('#view').boundingBox();
    assert.ok(
      pane.width >= view.width - 2 && pane.height >= view.height * 0.9,
      `${JSON.stringify(pane)} in ${JSON.stringify(view)}`,
    );
    assert.match(
      await p.locator('#text-pane pre.text-view').textContent(),
      /^relicview test archive\nwide wide/,
    );
    assert.match(await p.locator('#text-pane pre.line-numbers').textContent(), /^1\n2\n3\n/);
    assert.equal(await p.locator('#info-more pre.text-view').count(), 0, 'not squeezed into the info pane');
    // The long line scrolls sideways instead of wrapping: one line stays one line high.
    const wrap = p.locator('#text-pane .text-wrap');
    assert.ok(await wrap.evaluate(w => w.scrollWidth > w.clientWidth));
    // Find: the line with the words is marked and scrolled into sight, far down the file.
    await p.locator('#text-find').fill('NEEDLE');
    await p.locator('#text-find').press('Enter');
    const needle = text.split('\n').findIndex(l => l.includes('needle')) + 1;
    assert.equal(await p.locator('#text-find-status').textContent(), `line ${needle} · 1 of 1`);
    const hit = await p.evaluate(() => {
      const w = document.querySelector('#text-pane .text-wrap');
      const bar = w.querySelector('.text-hit').getBoundingClientRect();
      const box = w.getBoundingClientRect();
      return {
        inside: bar.top >= box.top && bar.bottom <= box.bottom,
        numbers: w.querySelector('.line-numbers').textContent.split('\n').map(Number),
      };
    });
    assert.ok(hit.inside && hit.numbers.includes(needle), JSON.stringify(hit).slice(0, 200));
    await p.locator('#text-find').fill('no such words');
    await p.locator('#text-find').press('Enter');
    assert.equal(await p.locator('#text-find-status').textContent(), 'not found');
    await axe(p, 'a text file');
    // Bytes: the hex view is the main view, no 3D view under it.
    await open(p, 'NOISE.DAT');
    shown = await onScreen(p);
    assert.ok(shown.includes('inspector') && !shown.includes('view'), JSON.stringify(shown));
    assert.deepEqual(
      shown.filter(id => THREE_D.includes(id)),
      [],
      JSON.stringify(shown),
    );
    const hex = await p.locator('#hex').boundingBox();
    assert.ok(hex.height > 400, `the bytes take the height: ${hex.height}`);
    assert.equal(await p.locator('#hex .hexrow').first().locator('.b').first().textContent(), '00');
    await axe(p, 'an unknown file');
    assert.deepEqual(problems, []);
    await close();
  });

  test("small pictures fill the view, a sheet's labels sit beside its images, and a VRAM page's thumbnail is the part its model samples", async () => {
    const { page: p, problems, close } = await on.page();
    // A 16 × 16 SGI image: whole pixels a texel, as large as fits.
    await open(p, 'DEMO/TEXTURE/SIGN.RGB');
    const box = await p
      .locator('#picture-canvas')
      .evaluate(c => ({ width: c.clientWidth, height: c.clientHeight }));
    const sign = await p.evaluate(() => window.relicview.flatView());
    assert.equal(sign.zoom, Math.floor(Math.min(box.width / 16, box.height / 16)));
    // FIELD.TDB: the texels at each image's top-left corner are the image's own, not a label.
    await open(p, 'FF7/FIELD.TDB');
    const sheet = await p.evaluate(() => window.relicview.flatView());
    const corners = await p.evaluate(f => {
      const c = document.getElementById('picture-canvas');
      const r = c.getBoundingClientRect();
      const [x0, y0] = [(r.width - f.width * f.zoom) / 2, (r.height - f.height * f.zoom) / 2];
      const g = c.getContext('2d');
      const out = [];
      for (const k of [0, 1, 17, 33]) {
        const [cx, cy] = [(k % 16) * 32, Math.floor(k / 16) * 32];
        const want = window.relicview.pictureAt(x0 + (cx + 2.5) * f.zoom, y0 + (cy + 2.5) * f.zoom).rgba;
        const got = [
          ...g.getImageData(Math.round(x0 + (cx + 2.5) * f.zoom), Math.round(y0 + (cy + 2.5) * f.zoom), 1, 1)
            .data,
        ];
        out.push({ k, want, got });
      }
      // Labels beside: something drawn left of the sheet, at the first row's middle.
      const left = [
        ...g.getImageData(Math.round(x0 - 12), Math.round(y0 + 16 * f.zoom) - 4, 10, 8).data,
      ].some((v, i) => i % 4 === 3 && v > 0);
      return { out, left, x0 };
    }, sheet);
    assert.ok(corners.x0 >= 30, `room for the labels: ${corners.x0}`);
    assert.equal(corners.left, true, 'row labels beside the sheet');
    for (const { k, want, got } of corners.out) {
      // Opaque texels as stored; transparent ones show the checker's greys.
      if (want[3] === 255) assert.deepEqual(got.slice(0, 3), want.slice(0, 3), `image ${k}'s corner`);
    }
    // The gallery's VRAM page thumbnails: the part the model samples.
    const cards = await p.evaluate(() => window.relicview.textures());
    const pages = cards.filter(c => c.texture !== null);
    assert.ok(pages.length > 0);
    for (const c of pages) {
      assert.ok(
        Array.isArray(c.used) &&
          c.used[2] > 0 &&
          c.used[3] > 0 &&
          c.used[0] + c.used[2] <= c.width &&
          c.used[1] + c.used[3] <= c.height,
        JSON.stringify(c),
      );
    }
    assert.ok(
      pages.some(c => c.used[2] * c.used[3] < (c.width * c.height) / 2),
      'pages are sampled in part',
    );
    await p.locator('#textures-button').click();
    await p.waitForFunction(() =>
      /\d+ textures?:/.test(document.getElementById('texture-gallery-status').textContent),
    );
    const meta = await p
      .locator('#texture-cards .texture-card[data-texture] .card-meta')
      .first()
      .textContent();
    assert.match(meta, /the model samples \d+ × \d+ at \(\d+, \d+\)/);
    const thumb = await p
      .locator('#texture-cards .texture-card[data-texture] canvas')
      .first()
      .evaluate(c => [c.width, c.height]);
    const first = pages.find(c =>
      meta.includes(`${c.used[2]} × ${c.used[3]} at (${c.used[0]}, ${c.used[1]})`),
    );
    assert.ok(first, meta);
    assert.ok(thumb[0] <= first.used[2] && thumb[1] <= first.used[3], `${thumb} of ${first.used}`);
    assert.deepEqual(problems, []);
    await close();
  });

  test('small oddities: a still model has no timeline, a one-frame animation reads frame 0/1, "link copied" goes with the view, errors name their file once', async () => {
    const { page: p, problems, close } = await on.page();
    await p.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await open(p, 'FF7/MD1_1.BSX');
    const options = await p.evaluate(() => window.relicview.choice().options);
    // A model of no animation (its face still blinks on its own cadence): no play, no clock.
    const still = options.findIndex(o => o.startsWith('model 1 ('));
    await p.evaluate(k => window.relicview.choose(k), still);
    assert.equal(await p.evaluate(() => window.relicview.hasBlink()), true);
    assert.equal(await p.locator('#timeline').isVisible(), false);
    await open(p, 'DEMO/VIDEO/CUBE.BGF');
    assert.equal(await p.locator('#timeline').isVisible(), false);
    await open(p, 'FF7/MD1_1.BSX');
    const one = options.findIndex(o => /animation \d+ \(1 frame\)$/.test(o));
    assert.ok(one >= 0, JSON.stringify(options));
    await p.evaluate(k => window.relicview.choose(k), one);
    assert.equal(await p.locator('#timeline').isVisible(), true);
    // Whatever the clock reads as it runs on (several whole loops of the one frame).
    for (let i = 0; i < 4; i++) {
      assert.match(await p.locator('#clock-label').textContent(), /^frame 0\/1 · 0\.0\d\/0\.03 s$/);
      const t = await p.evaluate(() => window.relicview.animationTime());
      await p.waitForFunction(t => window.relicview.animationTime() > t + 0.1, t);
    }
    // The share note is about the view it copied: another view takes it away.
    await p.locator('#share-button').click();
    await p.waitForFunction(() => document.getElementById('share-status').textContent !== '');
    // The clock running on is no other view: the note stays while the address follows it.
    const copied = await p.evaluate(() => ({ t: window.relicview.animationTime(), hash: location.hash }));
    await p.waitForFunction(
      ({ t, hash }) => window.relicview.animationTime() > t + 0.3 && location.hash !== hash,
      copied,
    );
    assert.notEqual(await p.locator('#share-status').textContent(), '');
    await open(p, 'DEMO/VIDEO/CUBE.BGF');
    await p.waitForFunction(() => document.getElementById('share-status').textContent === '');
    // A damaged file's note names it once.
    await open(p, 'DEMO/VIDEO/CUT.BGF');
    const note = await p.locator('#view-message').textContent();
    assert.equal(note.split('DEMO/VIDEO/CUT.BGF').length - 1, 1, note);
    assert.deepEqual(problems, []);
    await close();
  });
}

// On the demo with the real FIELD.TDB (fixtures.mjs, sheetArchive).
{
  const on = servedBeside(() => ctx.browser, sheetArchive);

  test('a slow open says which file it is opening and dims what is still on show', async () => {
    const { page, problems } = await newPage(ctx.browser, on.server.url + '#folder=none');
    await loadFolder(page, on.dir, walk(on.dir).length);
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

  test('an image opens flat fitted to the view, zooms to the texel about the pointer, and reads out the texel under it', async () => {
    const { page, problems, close } = await on.sized([1400, 850]);
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
    const { page, problems, close } = await on.sized([1400, 850]);
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
    const { page, problems, close } = await on.sized([1400, 850]);
    await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
    const native = nativeInfo(join(on.dir, 'DEMO/MATERIAL/DEMO.BMF'));
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

  test("paths in the info pane are links that open their files: a model's library and maps, a world's includes and models, a field model's BCX and TDB", async () => {
    const { page, problems, close } = await on.sized([1400, 850]);
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
}
