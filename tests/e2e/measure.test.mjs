// Measuring: two points of the demo cube's surface at the ends of an edge measure the edge's
// length (the cube's box as `relicview info --json` reads it from the file), in file units
// and in metres by each reading of the file's UNIT; the model's and a record's sizes; the
// ground grid and its scale bar; the measurement and the grid in the link.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { servedArchive, newPage, nativeInfo } from './harness.mjs';

const ctx = servedArchive();

test("two clicks at the ends of the cube's edge measure its length, in units and in metres by each reading of UNIT", async () => {
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await page.waitForFunction(
    () => window.relicview.listing().files > 0 && window.relicview.indexTimeline()?.typed,
  );
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
  const info = nativeInfo(join(ctx.dir, 'DEMO/VIDEO/CUBE.BGF'));
  const [min, max] = [info.bounds.min, info.bounds.max];
  const edge = max[0] - min[0];
  assert.ok(edge > 0, JSON.stringify(info.bounds));
  // The model's size is its box.
  const sizes = await page.evaluate(() => window.relicview.sizes());
  sizes.scene.forEach((s, k) => assert.ok(Math.abs(s - (max[k] - min[k])) < 1e-4, `${sizes.scene}`));
  assert.match(await page.locator('#info-body').textContent(), /size\s*2 × 2 × 2 units/);
  await page.evaluate(() => window.relicview.axisView('front'));
  // The front top edge's ends, a few pixels inside the face: the corners snap.
  const ends = [
    [min[0], max[1], max[2]],
    [max[0], max[1], max[2]],
  ];
  const px = await page.evaluate(e => e.map(p => window.relicview.project(p)), ends);
  const inside = [
    [px[0][0] + 4, px[0][1] + 4],
    [px[1][0] - 4, px[1][1] + 4],
  ];
  // With the mouse, in measure mode (M): a point, then another.
  await page.locator('#viewport').focus();
  await page.keyboard.press('m');
  assert.equal(await page.locator('#measure-button').getAttribute('aria-pressed'), 'true');
  assert.match(await page.locator('#measure-readout').textContent(), /click a point/);
  const box = await page.locator('#viewport').boundingBox();
  const dpr = await page.evaluate(
    () =>
      document.getElementById('viewport').width /
      document.getElementById('viewport').getBoundingClientRect().width,
  );
  await page.mouse.click(box.x + inside[0][0] / dpr, box.y + inside[0][1] / dpr);
  assert.match(await page.locator('#measure-readout').textContent(), /click the second point/);
  await page.mouse.click(box.x + inside[1][0] / dpr, box.y + inside[1][1] / dpr);
  const clicked = await page.evaluate(() => window.relicview.measurement());
  assert.ok(Math.abs(clicked.distance - edge) < 1e-4, `${clicked.distance} against the edge ${edge}`);
  clicked.points.forEach((p, i) =>
    p.forEach((v, k) => assert.ok(Math.abs(v - ends[i][k]) < 1e-4, `${p} snapped to ${ends[i]}`)),
  );
  assert.match(await page.locator('#measure-readout').textContent(), /^2\.000 units/);
  // UNIT 1: a metre by the bgf notes, an inch by the b2z notes.
  assert.match(
    clicked.text,
    /^2\.000 units · 2\.000 m \(bgf notes: a unit is a metre\) · 0\.05080 m \(b2z notes: a unit is an inch\)$/,
  );
  // The same through the API, from the same pixels.
  const m = await page.evaluate(p => window.relicview.measure(p[0], p[1]), inside);
  assert.deepEqual(m, clicked);
  // The marks are drawn over the model: the measured colour on screen.
  const { data } = await page.evaluate(() => window.relicview.readPixels());
  let marked = 0;
  for (let i = 0; i < data.length; i += 4)
    if (data[i] < 120 && data[i + 1] > 180 && data[i + 2] > 200) marked++;
  assert.ok(marked > 20, `${marked} pixels of the measuring marks`);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the selected record's size, the ground grid and its scale bar; the link keeps the measurement and the grid", async () => {
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await page.waitForFunction(
    () => window.relicview.listing().files > 0 && window.relicview.indexTimeline()?.typed,
  );
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
  // A record with geometry: its box's size beside it.
  const rows = await page.evaluate(() => window.relicview.inspector.view().chunks.map(c => c.name));
  const patch = rows.indexOf('PATCH');
  await page.evaluate(i => window.relicview.inspector.selectChunk(i), patch);
  const selection = await page.evaluate(() => window.relicview.sizes().selection);
  assert.ok(
    selection?.some(s => s > 0),
    JSON.stringify(selection),
  );
  assert.match(
    await page.locator('#inspector-detail').textContent(),
    /its geometry [\d.]+ × [\d.]+ × [\d.]+ units/,
  );
  // The grid: drawn under the model, a scale bar saying its step.
  const before = (await page.evaluate(() => window.relicview.pixelStats())).nonBackground;
  await page.locator('#display-menu summary').click();
  await page.locator('#opt-grid').check();
  const after = (await page.evaluate(() => window.relicview.pixelStats())).nonBackground;
  assert.ok(after > before + 500, `${before} → ${after} pixels with the grid`);
  const step = (await page.evaluate(() => window.relicview.sizes())).gridStep;
  assert.ok(step > 0);
  assert.equal(await page.locator('#scale-bar').isVisible(), true);
  assert.equal(
    await page.locator('#scale-bar .label').textContent(),
    `${Number(step.toPrecision(4))} units (a grid square)`,
  );
  // Measured, linked, opened in a fresh page: the same points, the grid on.
  const m = await page.evaluate(() => window.relicview.measure([0, 0, 0], [0, 1.8, 0]));
  assert.ok(Math.abs(m.distance - 1.8) < 1e-6);
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /grid=1/);
  assert.match(link, /measure=0%2C0%2C0%2C0%2C1\.8%2C0|measure=0,0,0,0,1\.8,0/);
  const fresh = await newPage(ctx.browser, link);
  await fresh.page.waitForFunction(() => window.relicview.measurement()?.distance > 0, null, {
    timeout: 30000,
  });
  const restored = await fresh.page.evaluate(() => window.relicview.measurement());
  assert.deepEqual(restored.points, m.points);
  assert.equal(
    await fresh.page.evaluate(() =>
      window.relicview.setOptions({}).then(() => document.getElementById('opt-grid').checked),
    ),
    true,
  );
  assert.deepEqual(fresh.problems, []);
  await fresh.page.close();
  assert.deepEqual(problems, []);
  await page.close();
});
