// The viewer as a person uses it: panes that never overlap at any window size, a first
// screen that invites, the keyboard (and a screen reader) reaching everything, the
// inspector's tools, viewing comforts, consistent selection, and lists that say what they
// hide. Accessibility is checked with axe-core.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { makeArchive, startServer, launch, walk, repo, malformed, bin, sizedPage } from './harness.mjs';

let dir, server, browser;
const SIZES = [
  [1400, 850],
  [1024, 640],
  [430, 900],
];
const AXE = readFileSync(join(repo, 'tests/e2e/node_modules/axe-core/axe.min.js'), 'utf8');

before(async () => {
  dir = makeArchive();
  // The alphabetically first model is broken: the first screen must pass over it.
  mkdirSync(join(dir, 'AAA'), { recursive: true });
  writeFileSync(join(dir, 'AAA/AAA.BGF'), malformed(readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF'))));
  // And the next one is damaged where it ends: drawn, but not the first thing shown.
  writeFileSync(join(dir, 'AAA/AAB.BGF'), readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')).subarray(0, 100));
  // A material library written with the geometry magic.
  mkdirSync(join(dir, 'LIBS'), { recursive: true });
  const lib = Buffer.from(readFileSync(join(dir, 'DEMO/MATERIAL/DEMO.BMF')));
  lib.write('DIV-BIZ2', 0, 'latin1');
  writeFileSync(join(dir, 'LIBS/OLD.BMF'), lib);
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const open = (url, size, options) => sizedPage(browser, url, size, options);

const served = (size, options) => open(server.url, size, options);
const landing = size => open(`${server.url.replace(/\/$/, '')}/index.html#archive=none.json`, size);

async function shown(page) {
  await page.waitForFunction(() => window.relicview.lastOpen() && window.relicview.stats().triangles > 0);
}

// The bounding boxes of the page's main regions that are on show.
async function regions(page) {
  return page.evaluate(() =>
    ['topbar', 'sidebar', 'toolbar', 'view', 'timeline', 'inspector', 'info-panel'].flatMap(id => {
      const el = document.getElementById(id);
      if (!el || el.hidden || getComputedStyle(el).display === 'none') return [];
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0
        ? [{ id, left: r.left, top: r.top, right: r.right, bottom: r.bottom }]
        : [];
    }),
  );
}

function overlaps(boxes) {
  const out = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5) out.push(`${a.id} × ${b.id} (${w.toFixed(0)}×${h.toFixed(0)})`);
    }
  }
  return out;
}

async function axe(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map(v => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ')),
    }));
  });
  return result.filter(v => v.impact === 'serious' || v.impact === 'critical');
}

for (const size of SIZES) {
  test(`at ${size[0]}×${size[1]} no region lies over another, the view keeps its share, and the buttons are where they look`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    const boxes = await regions(page);
    assert.deepEqual(overlaps(boxes), [], JSON.stringify(boxes));
    for (const id of ['topbar', 'toolbar', 'view', 'inspector', 'info-panel', 'sidebar'])
      assert.ok(
        boxes.some(b => b.id === id),
        `${id} on show`,
      );
    const canvas = await page.locator('#viewport').boundingBox();
    const desktop = size[0] >= 1000;
    assert.ok(canvas.width >= size[0] * (desktop ? 0.5 : 0.9), `canvas ${canvas.width} px of ${size[0]}`);
    assert.ok(canvas.height >= 150, `canvas ${canvas.height} px high`);
    // Nothing covers the controls: the centre of each top-bar button is that button.
    for (const id of ['folder-button', 'files-button', 'help-button']) {
      const hit = await page.evaluate(id => {
        const r = document.getElementById(id).getBoundingClientRect();
        return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.id;
      }, id);
      assert.equal(hit, id);
    }
    // Nothing lies over the canvas but its own corner furniture (stats, gizmo) and, on a
    // phone, the clear strips at its sides that let a finger scroll the page. (A phone's
    // list comes first: the view is scrolled to, as a tap on a file does.)
    if (!desktop) await page.locator('#stage').evaluate(s => s.scrollIntoView({ block: 'start' }));
    const covered = await page.evaluate(() => {
      const r = document.getElementById('viewport').getBoundingClientRect();
      let n = 0;
      for (let y = r.top + 40; y < r.bottom - 60; y += 23)
        for (let x = r.left + 5; x < r.right - 80; x += 23) {
          const e = document.elementFromPoint(x, y);
          if (e?.id !== 'viewport' && !e?.classList.contains('scroll-edge')) n++;
        }
      return n;
    });
    assert.equal(covered, 0, 'points of the canvas covered by something');
    // Framing fits the whole model in the canvas (the cube's 8 corners inside it).
    const corners = await page.evaluate(() => {
      const c = window.relicview.camera();
      const f = c.target.map((t, i) => t - c.position[i]);
      const norm = a => {
        const l = Math.hypot(...a);
        return a.map(x => x / l);
      };
      const cross = (a, b) => [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
      ];
      const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
      const fw = norm(f);
      const r = norm(cross(fw, [0, 1, 0]));
      const u = cross(r, fw);
      const canvas = document.getElementById('viewport');
      const k = 1 / Math.tan((c.fov * Math.PI) / 360);
      const out = [];
      for (const x of [-1, 1])
        for (const y of [-1, 1])
          for (const z of [-1, 1]) {
            const d = [x - c.position[0], y - c.position[1], z - c.position[2]];
            out.push([
              ((dot(d, r) / dot(d, fw)) * k) / (canvas.width / canvas.height),
              (dot(d, u) / dot(d, fw)) * k,
            ]);
          }
      return out;
    });
    assert.ok(
      corners.every(([x, y]) => Math.abs(x) < 1 && Math.abs(y) < 1),
      `every corner in view: ${JSON.stringify(corners)}`,
    );
    assert.deepEqual(problems, []);
    await close();
  });
}

for (const size of SIZES.slice(0, 2))
  test(`panes fold away from the top bar, resize by pointer and keyboard, and come back the same after a reload (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    const width = () => page.locator('#viewport').evaluate(c => c.getBoundingClientRect().width);
    const before = await width();
    const infoButton = page.locator('.pane-toggle[data-pane="info-panel"]');
    assert.equal(await infoButton.getAttribute('aria-expanded'), 'true');
    await infoButton.click();
    assert.equal(await infoButton.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('#info-panel').isVisible(), false);
    await page.waitForFunction(
      w => document.getElementById('viewport').getBoundingClientRect().width > w + 100,
      before,
    );
    await infoButton.click();
    assert.equal(await page.locator('#info-panel').isVisible(), true);
    // The sidebar's splitter: dragged 80 px right, the list is 80 px wider.
    const list0 = (await page.locator('#sidebar').boundingBox()).width;
    const split = await page.locator('#split-sidebar').boundingBox();
    await page.mouse.move(split.x + split.width / 2, split.y + 200);
    await page.mouse.down();
    await page.mouse.move(split.x + split.width / 2 + 80, split.y + 200, { steps: 4 });
    await page.mouse.up();
    const list1 = (await page.locator('#sidebar').boundingBox()).width;
    assert.ok(Math.abs(list1 - list0 - 80) < 3, `list ${list0} → ${list1}`);
    // The info pane's splitter by keyboard: ← widens it (the splitter moves left).
    const info0 = (await page.locator('#info-panel').boundingBox()).width;
    await page.locator('#split-info').focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const info1 = (await page.locator('#info-panel').boundingBox()).width;
    assert.ok(Math.abs(info1 - info0 - 32) < 2, `info ${info0} → ${info1}`);
    assert.ok(Number(await page.locator('#split-info').getAttribute('aria-valuenow')) > 0);
    // The splitter between the tree and the hex view.
    const hex0 = (await page.locator('#hex-pane').boundingBox()).width;
    await page.locator('#split-hex').focus();
    await page.keyboard.press('ArrowLeft');
    const hex1 = (await page.locator('#hex-pane').boundingBox()).width;
    assert.ok(Math.abs(hex1 - hex0 - 16) < 2, `hex ${hex0} → ${hex1}`);
    // A long detail line wraps instead of losing its end.
    await page.evaluate(() => window.relicview.inspector.selectByte(20));
    const detail = await page
      .locator('#inspector-detail')
      .evaluate(d => ({ scroll: d.scrollWidth, client: d.clientWidth }));
    assert.ok(detail.scroll <= detail.client + 1, 'nothing cut off sideways');
    // The inspector hidden; after a reload the sizes and the hidden pane are as they were.
    await page.locator('.pane-toggle[data-pane="inspector"]').click();
    await page.reload();
    await page.evaluate(() => window.relicview.ready);
    await shown(page);
    assert.ok(Math.abs((await page.locator('#sidebar').boundingBox()).width - list1) < 2);
    assert.ok(Math.abs((await page.locator('#info-panel').boundingBox()).width - info1) < 2);
    assert.equal(await page.locator('#inspector').isVisible(), false);
    assert.equal(
      await page.locator('.pane-toggle[data-pane="inspector"]').getAttribute('aria-expanded'),
      'false',
    );
    assert.deepEqual(problems, []);
    await close();
  });

test('the first screen invites: a drop target with real buttons; a served archive opens its first model that is not broken', async () => {
  for (const size of SIZES) {
    const { page, close } = await landing(size);
    assert.equal(await page.locator('#landing').isVisible(), true);
    assert.equal(
      await page.locator('#landing h2').innerText(),
      size[0] > 760 ? 'Drop a game folder here' : "Open a game's files",
    );
    for (const id of ['landing-folder', 'landing-files', 'folder-button']) {
      assert.equal(await page.locator(`#${id}`).evaluate(b => b.tagName), 'BUTTON');
      assert.equal(await page.locator(`#${id}`).isVisible(), true, `${id} at ${size}`);
    }
    // The empty furniture of a file is away: no toolbar, no inspector.
    assert.equal(await page.locator('#toolbar').isVisible(), false);
    assert.equal(await page.locator('#inspector').isVisible(), false);
    // The landing's button opens the folder picker.
    const choosing = page.waitForEvent('filechooser');
    // A round trip after the listener: the browser intercepts the chooser before the click.
    await page.evaluate(() => true);
    await page.locator('#landing-folder').click();
    const chooser = await choosing;
    assert.ok(chooser.isMultiple());
    await close();
  }
  const { page, problems, close } = await served();
  await shown(page);
  const first = await page.evaluate(() => window.relicview.lastOpen().path);
  assert.notEqual(first, 'AAA/AAA.BGF');
  assert.equal(
    await page.evaluate(() => window.relicview.entry('AAA/AAA.BGF').failed),
    true,
    'the broken one is marked in the list',
  );
  assert.equal(await page.locator('#view-message').isVisible(), false, 'no error over the view');
  assert.deepEqual(problems, []);
  await close();
});

for (const size of SIZES)
  test(`a link to a file the archive does not have says so over the view and keeps the URL (${size.join('×')})`, async () => {
    const url = `${server.url.replace(/\/$/, '')}/index.html#archive=archive.json&path=NOPE/GONE.BGF&lod=1`;
    const { page, problems, close } = await open(url, size);
    await page.waitForFunction(() => !document.getElementById('view-message').hidden);
    assert.match(
      await page.locator('#view-message').textContent(),
      /NOPE\/GONE\.BGF[\s\S]*not in this archive/,
    );
    // After a frame has been drawn and read back (the frame is where the view writes the hash).
    await page.evaluate(() => window.relicview.rasterMs());
    assert.equal(new URL(page.url()).hash, '#archive=archive.json&path=NOPE/GONE.BGF&lod=1');
    assert.equal(await page.evaluate(() => window.relicview.lastOpen()), null, 'nothing opened in its place');
    // Its button shows the first model instead.
    await page.locator('#view-message-actions button').click();
    await shown(page);
    assert.equal(await page.locator('#view-message').isVisible(), false);
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`keyboard only: Tab to the folder button, open a file, orbit, zoom and switch with keys, help, walk the tree and the bytes (${size.join('×')})`, async () => {
    const { page, problems, close } = await landing(size);
    // Tab from the start of the page reaches the folder button first.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'folder-button');
    const focusRing = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(focusRing, 'none', 'the focus is visible');
    // (The chooser is intercepted once the listener is in place in the browser.)
    const choosing = page.waitForEvent('filechooser');
    // A round trip after the listener: the browser intercepts the chooser before the key.
    await page.evaluate(() => true);
    await page.keyboard.press('Enter');
    const chooser = await choosing;
    await chooser.setFiles(dir);
    await page.waitForFunction(n => window.relicview.listing().files === n, walk(dir).length);
    await shown(page);
    // Only the keyboard from here: Tab to the search box, type, Enter opens the match.
    await tabTo(page, el => el.id === 'search');
    await page.keyboard.press('Tab');
    assert.ok(
      await page.evaluate(() => document.activeElement.matches('#kinds button[data-kind]')),
      'Tab goes from the search to the chips',
    );
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type('HEXPOD.BGF');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.relicview.lastOpen()?.path.endsWith('HEXPOD.BGF'));
    assert.equal(
      await page.evaluate(() => document.activeElement.id),
      'file-list',
      'Enter moves into the list',
    );
    await page.keyboard.press('Home');
    await page.waitForFunction(() => window.relicview.lastOpen()?.path.endsWith('HEXPOD.BGF'));
    // Tab on to the canvas (past the toolbar's controls).
    await tabTo(page, el => el.id === 'viewport');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'viewport');
    const cam0 = await page.evaluate(() => window.relicview.camera());
    await page.keyboard.press('ArrowLeft');
    const cam1 = await page.evaluate(() => window.relicview.camera());
    assert.notDeepEqual(cam1.position, cam0.position, 'an arrow orbits');
    assert.ok(Math.abs(dist(cam1) - dist(cam0)) < 1e-3, 'orbiting keeps the distance');
    await page.keyboard.press('+');
    assert.ok(dist(await page.evaluate(() => window.relicview.camera())) < dist(cam1), '+ zooms in');
    await page.keyboard.press('w');
    await page.waitForFunction(() => document.getElementById('opt-wireframe').checked);
    await page.keyboard.press('l');
    await page.waitForFunction(() => window.relicview.stats().lod === 1);
    await page.keyboard.press('f');
    await page.keyboard.press('?');
    assert.equal(await page.locator('#help').isVisible(), true);
    const keys = await page.locator('#help-keys').textContent();
    for (const k of ['orbit', 'zoom', 'wireframe', 'level of detail', 'frame', 'fly'])
      assert.ok(keys.includes(k), `help lists ${k}`);
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#help').isVisible(), false);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'viewport', 'focus comes back');
    // The inspector tree: Tab to it, walk it with the arrows, fold with ←.
    await tabTo(page, el => el.id === 'chunk-tree');
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => window.relicview.inspector.selection().chunk), 0);
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => window.relicview.inspector.selection().chunk), 1);
    assert.equal(await page.locator('#chunk-tree [aria-selected="true"]').getAttribute('data-chunk'), '1');
    await page.keyboard.press('ArrowLeft'); // a leaf: to its parent
    assert.equal(await page.evaluate(() => window.relicview.inspector.selection().chunk), 0);
    const rows = () => page.locator('#chunk-tree [role="treeitem"]').count();
    const open = await rows();
    await page.keyboard.press('ArrowLeft'); // the header folds
    assert.ok((await rows()) < open, 'the record folds');
    assert.equal(await page.locator('#chunk-tree [data-chunk="0"]').getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('ArrowRight');
    assert.equal(await rows(), open);
    // The hex view: a byte cursor with its values.
    await tabTo(page, el => el.id === 'hex');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const at = Number(await page.locator('#value-inspector').getAttribute('data-offset'));
    assert.ok(at >= 1);
    assert.match(await page.locator('#value-inspector').textContent(), /u8.*u16.*u32.*i32.*f32/s);
    assert.deepEqual(problems, []);
    await close();
  });

// Press Tab until the focused element passes `test` (at most 80 times): the way a keyboard
// user gets there.
async function tabTo(page, test) {
  for (let k = 0; k < 80; k++) {
    if (await page.evaluate(`(${test})(document.activeElement)`)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`not reached with Tab: ${test}`);
}

function dist(c) {
  return Math.hypot(...c.position.map((p, i) => p - c.target[i]));
}

test("axe-core finds no serious or critical problem on the landing page, an opened model, its menu, a library's cards and a picture", async () => {
  for (const size of [
    [1400, 850],
    [430, 900],
  ]) {
    const { page, close } = await landing(size);
    assert.deepEqual(await axe(page), [], `landing at ${size}`);
    await close();
  }
  const { page, problems, close } = await served();
  await shown(page);
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
  await page.evaluate(() => window.relicview.inspector.selectChunk(3));
  assert.deepEqual(await axe(page), [], 'model');
  // The display menu open, over the view.
  await page.locator('#display-menu summary').click();
  assert.deepEqual(await axe(page), [], 'display menu');
  await page.keyboard.press('Escape');
  await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
  // The library's cards, with the files that use each material filled in.
  await page.waitForFunction(() => document.querySelectorAll('#gallery .card-users a').length > 0);
  assert.deepEqual(await axe(page), [], 'library');
  await page.evaluate(() => window.relicview.open('DEMO/FIELD/FIELD.TDB'));
  assert.deepEqual(await axe(page), [], 'picture');
  await page.locator('#help-button').click();
  assert.deepEqual(await axe(page), [], 'help');
  assert.deepEqual(problems, []);
  await close();
});

for (const size of SIZES)
  test(`viewing comforts: light and checker backgrounds, lighting switches, a gizmo that turns with the camera (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
    const dark = await page.evaluate(() => window.relicview.pixelStats());
    // The display menu holds the background and light switches (the frame is read from the
    // GL buffer, under the menu).
    await page.locator('#display-menu summary').click();
    await page.locator('#background-select').selectOption('light');
    const light = await page.evaluate(() => window.relicview.pixelStats());
    assert.notDeepEqual(light.background, dark.background);
    assert.ok(
      light.background.every(c => c > 150),
      `light background ${light.background}`,
    );
    assert.ok(
      Math.abs(light.nonBackground - dark.nonBackground) < dark.nonBackground * 0.05,
      'the model covers what it covered',
    );
    // The checker: both squares' colours in a corner of the frame, and the model over it.
    await page.locator('#background-select').selectOption('checker');
    const colors = await page.evaluate(() => {
      const { width, data } = window.relicview.readPixels();
      const seen = new Set();
      for (let y = 0; y < 40; y++)
        for (let x = 0; x < 40; x++) {
          const i = (y * width + x) * 4;
          seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
        }
      return [...seen];
    });
    assert.equal(colors.length, 2, `the corner shows two colours: ${colors}`);
    const checker = await page.evaluate(() => window.relicview.pixelStats());
    assert.ok(Math.abs(checker.nonBackground - dark.nonBackground) < dark.nonBackground * 0.05);
    // Lighting: unlit (the stored colours), the cube's three visible faces are one colour; under the
    // sun (the default's light for a file without the game's), three.
    const faceColours = async () =>
      page.evaluate(() => {
        const { width, height, data } = window.relicview.readPixels();
        const counts = new Map();
        for (let y = 0; y < height; y += 3)
          for (let x = 0; x < width; x += 3) {
            const i = (y * width + x) * 4;
            const key = `${data[i] >> 3},${data[i + 1] >> 3},${data[i + 2] >> 3}`;
            counts.set(key, (counts.get(key) || 0) + 1);
          }
        const bg = window.relicview
          .pixelStats()
          .background.map(c => c >> 3)
          .join(',');
        return [...counts].filter(([k, n]) => k !== bg && n > 200).length;
      });
    await page.locator('#background-select').selectOption('dark');
    const sun = await faceColours();
    await page.locator('#lighting-select').selectOption('stored');
    const none = await faceColours();
    await page.locator('#lighting-select').selectOption('camera');
    const camera = await faceColours();
    assert.ok(sun >= 3, `sun: ${sun} face colours`);
    assert.equal(none, 1, 'unlit: one colour');
    assert.ok(camera >= 2, `camera light: ${camera}`);
    // The gizmo follows the camera.
    const axes0 = await page.locator('#gizmo').getAttribute('data-axes');
    await page.evaluate(() => window.relicview.axisView('top'));
    await page.waitForFunction(a => document.getElementById('gizmo').dataset.axes !== a, axes0);
    const top = await page.locator('#gizmo').getAttribute('data-axes');
    assert.match(top, /Y:0,0/, `from above the Y axis points at the eye: ${top}`);
    // The switches travel in the link.
    await page.locator('#opt-wireframe').check();
    const link = new URLSearchParams(
      new URL(await page.evaluate(() => window.relicview.permalink())).hash.slice(1),
    );
    assert.equal(link.get('wire'), '1');
    assert.equal(link.get('light'), 'camera');
    const fresh = await open(await page.evaluate(() => window.relicview.permalink()), size);
    await shown(fresh.page);
    const o = await fresh.page.evaluate(() => ({
      wire: document.getElementById('opt-wireframe').checked,
      light: document.getElementById('lighting-select').value,
    }));
    assert.deepEqual(o, { wire: true, light: 'camera' });
    await fresh.close();
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`the wheel zooms towards the surface under the cursor and never passes it (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
    const box = await page.locator('#viewport').boundingBox();
    // A point of the cube off the view's centre.
    const [x, y] = [box.x + box.width * 0.5 - 30, box.y + box.height * 0.5 + 25];
    const before = await page.evaluate(([x, y]) => window.relicview.pick(x, y), [x - box.x, y - box.y]);
    assert.ok(before, 'the cube is under the cursor');
    await page.mouse.move(x, y);
    for (let k = 0; k < 60; k++) await page.mouse.wheel(0, -300);
    await page.evaluate(() => window.relicview.setOptions({}));
    const cam = await page.evaluate(() => window.relicview.camera());
    const inside = cam.position.every(p => Math.abs(p) < 1);
    assert.ok(!inside, `the eye stays outside the cube: ${cam.position}`);
    const after = await page.evaluate(([x, y]) => window.relicview.pick(x, y), [x - box.x, y - box.y]);
    assert.ok(
      after && after.distance < before.distance * 0.2,
      `closer to the point: ${before.distance} → ${after?.distance}`,
    );
    assert.equal(after.source, before.source, 'the same face stays under the cursor');
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`selection: a pick outlines exactly its face, the outline follows the LOD, a double-click frames without picking, F frames the selection (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
    await page.evaluate(() => window.relicview.setLod(0));
    const box = await page.locator('#viewport').boundingBox();
    // Find a pixel whose triangle came from a quad (a side of the prism).
    const spot = await page.evaluate(
      ([w, h]) => {
        for (let y = h * 0.3; y < h * 0.8; y += 7)
          for (let x = w * 0.3; x < w * 0.7; x += 7) {
            const hit = window.relicview.pick(x, y);
            if (hit && hit.end - hit.start === 16) return [x, y, hit];
          }
        return null;
      },
      [box.width, box.height],
    );
    assert.ok(spot, 'a quad side is in view');
    await page.mouse.click(box.x + spot[0], box.y + spot[1]);
    assert.equal(
      await page.evaluate(() => window.relicview.highlightedTriangles()),
      2,
      'the quad: two triangles, not its whole index list',
    );
    const sel = await page.evaluate(() => window.relicview.inspector.selection());
    assert.deepEqual([sel.start, sel.end], [spot[2].start, spot[2].end]);
    // Another LOD: the outline of a LOD-0 face goes.
    await page.evaluate(() => window.relicview.setLod(1));
    assert.equal(await page.evaluate(() => window.relicview.highlightedTriangles()), 0);
    await page.evaluate(() => window.relicview.setLod(0));
    assert.equal(
      await page.evaluate(() => window.relicview.highlightedTriangles()),
      2,
      'and comes back with its LOD',
    );
    // F frames the selection: the camera comes close to the face.
    const far = await page.evaluate(() => window.relicview.camera());
    await page.locator('#viewport').focus();
    await page.keyboard.press('f');
    const near = await page.evaluate(() => window.relicview.camera());
    assert.ok(dist(near) < dist(far) * 0.8, `framed closer: ${dist(far)} → ${dist(near)}`);
    // A double-click elsewhere frames the model and leaves the selection as it was.
    await page.evaluate(() => window.relicview.inspector.selectChunk(0));
    await page.mouse.dblclick(box.x + spot[0], box.y + spot[1]);
    // Once the double-click has framed the model again.
    await page.waitForFunction(d => {
      const c = window.relicview.camera();
      return Math.hypot(...c.position.map((p, i) => p - c.target[i])) > d;
    }, dist(near));
    assert.equal(
      await page.evaluate(() => window.relicview.inspector.selection().chunk),
      0,
      'no pick left behind',
    );
    const home = await page.evaluate(() => window.relicview.camera());
    assert.ok(dist(home) > dist(near), 'the model framed again');
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`lists: no matches is said, chip counts follow the search, ↑/↓ after folding the current folder stay in place (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    await page.locator('#search').fill('zzzz-nothing');
    assert.equal(await page.locator('#no-matches').isVisible(), true);
    assert.match(await page.locator('#no-matches').textContent(), /No files match “zzzz-nothing”/);
    await page.locator('#search').fill('HEXPOD');
    assert.equal(await page.locator('#no-matches').isVisible(), false);
    const chips = await page
      .locator('#kinds [data-kind]')
      .evaluateAll(cs => Object.fromEntries(cs.map(c => [c.dataset.kind, Number(c.dataset.count)])));
    const shownFiles = await page.evaluate(() => window.relicview.shownFiles());
    const total = Object.values(chips).reduce((a, b) => a + b, 0);
    assert.equal(
      total,
      shownFiles.length,
      `chips ${JSON.stringify(chips)} count the ${shownFiles.length} files shown`,
    );
    assert.equal(await page.locator('#kinds [data-kind]').first().getAttribute('aria-pressed'), 'false');
    await page.locator('#search').fill('');
    // Open a file, fold its folder, then ↓: the file after the folder, not the list's top.
    await page.evaluate(() => window.relicview.open('DEMO/MODELS/DRW.MOD'));
    await page.locator('#file-list').focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(
      await page.locator('#file-list li[data-folder="DEMO/MODELS"]').getAttribute('aria-expanded'),
      'false',
    );
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(
      () =>
        window.relicview.lastOpen()?.path === 'DEMO/TEXTURE/SIGN.RGB' ||
        /SIGN\.RGB/.test(document.getElementById('info-title').textContent),
    );
    await page.evaluate(() => window.relicview.open('DEMO/MODELS/DRW.MOD'));
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => /DEMO\.BMF$/.test(document.getElementById('info-title').textContent));
    assert.equal(await page.locator('#file-list').getAttribute('role'), 'tree');
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`inspector: column headings, full text in tooltips, go to offset, find bytes and text, values at the cursor, problems land on their chunk (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
    assert.match(await page.locator('#tree-pane .column-heads').textContent(), /record/);
    assert.match(await page.locator('#hex-pane .column-heads').textContent(), /offset.*text/);
    // The text column is whole: rows hold 16 bytes where they fit, else 8.
    const fits = await page.evaluate(() => {
      const box = document.getElementById('hex').getBoundingClientRect();
      const rows = [...document.querySelectorAll('#hex-rows .hexrow')];
      const ascii = rows[0].querySelector('.ascii').getBoundingClientRect();
      return { right: ascii.right, box: box.right, bytes: rows[0].querySelectorAll('.b').length };
    });
    assert.ok(
      fits.right <= fits.box + 0.5,
      `the text column ends at ${fits.right}, the hex view at ${fits.box}`,
    );
    assert.ok([8, 16].includes(fits.bytes));
    const row = page.locator('#chunk-tree [data-chunk="1"]');
    const title = await row.getAttribute('title');
    const view = await page.evaluate(() => window.relicview.inspector.view());
    assert.ok(title.includes(view.chunks[1].label) && title.includes(view.chunks[1].summary), title);
    // Go to an offset in hex: the cursor and the chunk that holds it.
    await page.locator('#goto-offset').fill('0x10');
    await page.locator('#goto-offset').press('Enter');
    assert.equal(await page.locator('#value-inspector').getAttribute('data-offset'), '16');
    assert.equal(await page.locator('#hex .b.cursor').getAttribute('data-o'), '16');
    await page.locator('#goto-offset').fill('999999');
    await page.locator('#goto-offset').press('Enter');
    assert.match(await page.locator('#find-status').textContent(), /past the end/);
    // Values at the cursor: the magic "DIV-" as a little-endian u32.
    await page.locator('#goto-offset').fill('0');
    await page.locator('#goto-offset').press('Enter');
    const values = await page.locator('#value-inspector').textContent();
    assert.match(values, new RegExp(`u32${0x2d564944}`));
    // Find text, then hex bytes.
    await page.locator('#find-bytes').fill('cube');
    await page.locator('#find-bytes').press('Enter');
    const at = Number(await page.locator('#value-inspector').getAttribute('data-offset'));
    const bytes = readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF'));
    assert.equal(at, bytes.indexOf('cube'));
    const needle = bytes.subarray(200, 203);
    await page.locator('#find-bytes').fill([...needle].map(b => b.toString(16).padStart(2, '0')).join(' '));
    await page.locator('#find-bytes').press('Enter');
    const expected =
      bytes.indexOf(needle, at + 1) >= 0 ? bytes.indexOf(needle, at + 1) : bytes.indexOf(needle);
    assert.equal(Number(await page.locator('#value-inspector').getAttribute('data-offset')), expected);
    assert.match(await page.locator('#find-status').textContent(), new RegExp(`at ${expected}`));
    await page.locator('#find-bytes').fill('"no such text here"');
    await page.locator('#find-bytes').press('Enter');
    assert.equal(await page.locator('#find-status').textContent(), 'not found');
    // A broken file: its problem's link lands on the chunk at the error's offset.
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/BROKEN.BGF').catch(() => {}));
    await page.waitForFunction(() => document.querySelectorAll('#diagnostics li').length > 0);
    const problem = page.locator('#diagnostics li').first();
    const offset = Number(await problem.getAttribute('data-offset'));
    await problem.focus();
    await page.keyboard.press('Enter');
    const s = await page.evaluate(() => window.relicview.inspector.selection());
    const v2 = await page.evaluate(() => window.relicview.inspector.view());
    const named = v2.chunks.filter(c => c.offset === offset).pop();
    if (named) assert.equal(s.chunk, named.index, 'the chunk the error names');
    else assert.ok(s.start <= offset && offset < s.end);
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`a file damaged where it ends draws what it has, says so over the view, and is marked; the CLI still fails on it (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    const cut = await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUT.BGF'));
    const whole = await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUT.BGF'));
    assert.ok(
      cut.triangles > 0 && cut.triangles <= whole.triangles,
      `drawn: ${cut.triangles} of ${whole.triangles}`,
    );
    assert.ok(
      (await page.evaluate(() => window.relicview.pixelStats())).nonBackground > 500,
      'pixels on screen',
    );
    const note = await page.locator('#view-message').textContent();
    assert.match(note, /CUT\.BGF is damaged: .*at byte \d+.*cut short/s);
    assert.equal(await page.locator('#view-message').isVisible(), true);
    assert.equal(await page.evaluate(() => window.relicview.entry('DEMO/VIDEO/CUT.BGF').damaged), true);
    assert.equal(
      await page.locator('#file-list li[data-path="DEMO/VIDEO/CUT.BGF"]').getAttribute('class'),
      'damaged',
    );
    assert.match(await page.locator('#info-body').textContent(), /damaged/);
    // Its error in the inspector lands on the chunk the cut went through.
    const li = page.locator('#diagnostics li.error');
    const offset = Number(await li.getAttribute('data-offset'));
    await li.click();
    const sel = await page.evaluate(() => window.relicview.inspector.selection());
    const view = await page.evaluate(() => window.relicview.inspector.view());
    assert.equal(view.chunks[sel.chunk].offset, offset, 'the chunk the error names');
    assert.ok(view.chunks[sel.chunk].flags.includes('truncated'));
    // The CLI keeps its exit 1 and the diagnostic.
    let failed = false;
    try {
      execFileSync(bin, ['info', join(dir, 'DEMO/VIDEO/CUT.BGF')], { stdio: 'pipe' });
    } catch (e) {
      failed = e.status === 1 && /cut short/.test(String(e.stderr) + String(e.stdout));
    }
    assert.ok(failed, 'relicview info exits 1 naming the cut');
    // Opening a whole file clears the note.
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
    assert.equal(await page.locator('#view-message').isVisible(), false);
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`libraries: colour swatches beside colours, "used by" entries are links that open the file, a BIZ2-magic library counts as BMF (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
    const swatch = await page.evaluate(() => {
      const dt = [...document.querySelectorAll('#info-body dt')].find(
        d => d.textContent === 'material crate_mtl',
      );
      const chip = dt.nextElementSibling.querySelector('.swatch');
      return chip ? getComputedStyle(chip).backgroundColor : null;
    });
    assert.equal(swatch, 'rgb(204, 140, 64)', 'crate_mtl diffuse 0.80, 0.55, 0.25');
    await page.locator('#used-by-button').click();
    await page.waitForFunction(() => document.querySelectorAll('#info-body a.file-link').length > 0);
    const link = page.locator('#info-body a.file-link').first();
    const target = await link.getAttribute('data-path');
    assert.equal(
      new URLSearchParams((await link.getAttribute('href')).slice(1)).get('path'),
      target,
      'the link is a permalink to the file',
    );
    await link.click();
    await page.waitForFunction(t => window.relicview.lastOpen()?.path === t, target);
    // The library with the geometry magic is typed a library.
    assert.equal(await page.evaluate(() => window.relicview.entry('LIBS/OLD.BMF').kind), 'biz2-materials');
    const bmf = await page.locator('#kinds [data-kind="biz2-materials"]').getAttribute('data-count');
    assert.equal(Number(bmf), walk(dir).filter(p => /\.BMF$/i.test(p)).length);
    assert.deepEqual(problems, []);
    await close();
  });

for (const size of SIZES)
  test(`the archive check parses every file and lists the failing ones with links; they are marked in the list before being opened (${size.join('×')})`, async () => {
    const { page, problems, close } = await served(size);
    await shown(page);
    const report = await page.evaluate(() => window.relicview.checkArchive());
    assert.equal(report.checked, walk(dir).length);
    const failing = report.failed.map(f => f.path).sort();
    for (const p of ['AAA/AAA.BGF', 'DEMO/VIDEO/BROKEN.BGF', 'BROKENTREE/MATERIAL/DEMO.BMF'])
      assert.ok(failing.includes(p) || report.damaged.some(d => d.path === p), `${p} reported: ${failing}`);
    assert.ok(report.damaged.some(d => d.path === 'DEMO/VIDEO/CUT.BGF'));
    // The same verdicts as the native census.
    const census = JSON.parse(execFileSync(bin, ['census', dir, '--json'], { encoding: 'utf8' }));
    assert.deepEqual(
      failing.concat(report.damaged.map(d => d.path)).sort(),
      census.failed.map(f => f.path).sort(),
    );
    assert.equal(await page.locator('#info-title').textContent(), 'Archive check');
    assert.equal(await page.evaluate(() => window.relicview.entry('DEMO/VIDEO/BROKEN.BGF').failed), true);
    assert.match(
      await page.locator('#check-status').textContent(),
      new RegExp(`${report.failed.length} failing`),
    );
    await page.locator('#info-body a.file-link[data-path="DEMO/VIDEO/CUT.BGF"]').click();
    await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/CUT.BGF');
    // The info pane folds from the keyboard.
    await page.locator('#info-fold').focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('#info-fold').getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('#info-body').isVisible(), false);
    assert.deepEqual(problems, []);
    await close();
  });

test('the file list keeps its rows when it gets a few pixels shorter, and shows every row in sight when scrolled past them', async () => {
  const { page, problems, close } = await sizedPage(browser, server.url + '#folder=none');
  const files = 600;
  await page.evaluate(
    n =>
      window.relicview.loadFiles(
        Array.from({ length: n }, (_, i) => new File([`note ${i}\n`], `N${String(i).padStart(4, '0')}.TXT`)),
      ),
    files,
  );
  await page.waitForFunction(n => window.relicview.listing().files === n, files);
  // A frame laid out and painted: the next one has begun.
  const frame = () =>
    page.evaluate(() => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await frame();
  // What a row in sight is, at each row's height down the list's box: its path, or null
  // where the list shows a spacer (a row not in the DOM).
  const inSight = () =>
    page.evaluate(() => {
      const list = document.getElementById('file-list');
      const box = list.getBoundingClientRect();
      const rows = [];
      for (let y = box.top + 9; y < box.bottom - 1; y += 18) {
        const li = document.elementFromPoint(box.left + 20, y)?.closest('li');
        rows.push(
          li && !li.classList.contains('spacer') ? (li.dataset.path ?? `folder ${li.dataset.folder}`) : null,
        );
      }
      return { rows, dom: list.querySelectorAll('li[data-path]').length };
    });
  const at = await inSight();
  assert.ok(at.rows.length > 10 && at.rows.every(Boolean), JSON.stringify(at));
  assert.ok(at.dom < 200, `${at.dom} rows in the DOM, not ${files}`);
  // The kind chips above it take another line (as a new kind typed by content can): the
  // list is 12 pixels shorter and keeps the very same rows.
  await page.evaluate(() => {
    window.rowsBefore = [...document.querySelectorAll('#file-list li[data-path]')];
    const kinds = document.getElementById('kinds');
    kinds.style.minHeight = `${kinds.getBoundingClientRect().height + 12}px`;
  });
  await frame();
  const kept = await page.evaluate(() => {
    const now = [...document.querySelectorAll('#file-list li[data-path]')];
    return now.length === window.rowsBefore.length && now.every((li, i) => li === window.rowsBefore[i]);
  });
  assert.ok(kept, 'the same row elements, not rendered again');
  assert.ok((await inSight()).rows.every(Boolean), 'and every row in sight is shown');
  // Scrolled a little (within the rows rendered beyond the edge) and then far: whatever is
  // in sight is a row, in order.
  for (const rows of [5, 300, 590]) {
    await page.evaluate(y => {
      document.getElementById('file-list').scrollTop = y;
    }, rows * 18);
    await frame();
    const seen = await inSight();
    assert.ok(seen.rows.every(Boolean), `scrolled ${rows} rows: ${JSON.stringify(seen.rows)}`);
    const paths = seen.rows.filter(r => r.startsWith('N'));
    assert.deepEqual(paths, paths.slice().sort(), 'in order');
  }
  assert.deepEqual(problems, []);
  await close();
});
