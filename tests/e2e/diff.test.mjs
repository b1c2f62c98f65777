// Comparing two files in the page: window.relicview.compare() gives what the CLI's
// `relicview diff --json` prints for the same two files, once both are shown; the aligned
// trees, the two hex views, the overlay, split and difference views, picks, links, and the
// ways a reader starts a comparison.
//
// The pairs: the demo's crate and the bigger crate of another game tree (every vertex
// moved), and a copy of the crate with one vertex moved here, its bytes found by the
// vertex's position as the format notes store it (three little-endian f32, x y z).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { servedArchive, newPage, bin, loadFolder, walk } from './harness.mjs';

const f32s = (...xs) =>
  Buffer.concat(
    xs.map(x => {
      const b = Buffer.alloc(4);
      b.writeFloatLE(x);
      return b;
    }),
  );

let moved;
const ctx = servedArchive(dir => {
  // The crate with its corner (1, 0, -1) raised to y 0.5: f32 0.0 → 0.5 changes one byte,
  // the y's last (00 00 00 00 → 00 00 00 3F).
  const crate = readFileSync(join(dir, 'DEMO/VIDEO/CRATE.BGF'));
  const at = crate.indexOf(f32s(1, 0, -1));
  assert.ok(at > 0, 'the corner is in the vertex list');
  assert.equal(crate.indexOf(f32s(1, 0, -1), at + 1), -1, 'once');
  const edited = Buffer.from(crate);
  f32s(0.5).copy(edited, at + 4);
  writeFileSync(join(dir, 'DEMO/VIDEO/CRATE2.BGF'), edited);
  moved = { vertex: at, byte: at + 7 };
  // A second arena: the first crate moved, the well gone, a crate added after the others.
  const arena = readFileSync(join(dir, 'DEMO/MAPS/ARENA1.MAP'), 'latin1');
  const arena2 =
    arena
      .replace('instance=crate 6 0 -6 0 0.3 0', 'instance=crate 6 0 -16 0 0.3 0')
      .replace(/instance=well -22 0 22 0 0 0\r?\n/, '')
      .trimEnd() + '\r\ninstance=crate 0 0 0 0 0 0\r\n';
  assert.notEqual(arena2, arena);
  writeFileSync(join(dir, 'DEMO/MAPS/ARENA2.MAP'), arena2, 'latin1');
});

// `relicview diff --json` exits 1 when the files differ and still prints the JSON.
function cliDiff(a, b) {
  try {
    return JSON.parse(
      execFileSync(bin, ['diff', '--json', '--root', ctx.dir, join(ctx.dir, a), join(ctx.dir, b)], {
        encoding: 'utf8',
      }),
    );
  } catch (e) {
    if (e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

async function folderPage() {
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await loadFolder(page, ctx.dir, walk(ctx.dir).length);
  return { page, problems };
}

// Pixels of the frame: a predicate's count.
async function countPixels(page, test) {
  const { data } = await page.evaluate(() => window.relicview.readPixels());
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (test(data[i], data[i + 1], data[i + 2])) n++;
  return n;
}

test('compare() in the page equals the CLI diff of the same files, and shows both', async () => {
  const { page, problems } = await folderPage();
  for (const [a, b] of [
    ['DEMO/VIDEO/CUBE.BGF', 'DEMO/VIDEO/CRATE.BGF'],
    ['DEMO/VIDEO/CRATE.BGF', 'DEMO/VIDEO/CRATE2.BGF'],
    ['DEMO/VIDEO/CUBE.BGF', 'DEMO/VIDEO/CUBE.BGF'],
    ['DEMO/MAPS/ARENA1.MAP', 'DEMO/MAPS/CITY.MAP'],
    ['DEMO/MAPS/ARENA1.MAP', 'DEMO/MAPS/ARENA2.MAP'],
    ['DEMO/FIELD/PARTY.BSX', 'DEMO/FIELD/ROBOT.BSX'],
    ['DEMO/VIDEO/CUBE.BGF', 'DEMO/MAPS/ARENA1.MAP'],
  ]) {
    const inPage = await page.evaluate(
      ([x, y]) => window.relicview.compare(x, y),
      [`GAME/${a}`, `GAME/${b}`],
    );
    assert.deepEqual(inPage, cliDiff(a, b), `${a} vs ${b}`);
    const shown = await page.evaluate(() => window.relicview.comparison());
    assert.deepEqual(
      [shown.a, shown.b],
      [`GAME/${a}`, `GAME/${b}`],
      'both are on show when compare() resolves',
    );
  }
  const same = await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CUBE.BGF', 'GAME/DEMO/VIDEO/CUBE.BGF'),
  );
  assert.equal(same.same, true);
  // What the edit made, computed here rather than taken from the CLI (the same Rust): one
  // record changed, at the same offset on both sides, and it is the vertex list holding the
  // moved vertex (a chunk is a tag word, a 1-, 2- or 4-byte length, then the payload:
  // vertices of three f32 each); one vertex moved, by the 0.5 written.
  const one = await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CRATE.BGF', 'GAME/DEMO/VIDEO/CRATE2.BGF'),
  );
  assert.deepEqual([one.same, one.records.changed, one.records.added, one.records.removed], [false, 1, 0, 0]);
  const [record] = one.changed;
  assert.equal(record.offset_a, record.offset_b);
  const intoPayload = header => moved.vertex - record.offset_a - header;
  assert.ok(
    [3, 4, 6].some(h => intoPayload(h) >= 0 && intoPayload(h) % 12 === 0),
    `the moved vertex (byte ${moved.vertex}) is a whole vertex into the record at ${record.offset_a}`,
  );
  assert.match(record.path_a, /VERTEX_XYZ/);
  assert.deepEqual([one.geometry.vertices_moved, one.geometry.max_displacement], [1, 0.5]);
  // Opening a file alone ends the comparison.
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  assert.equal(await page.evaluate(() => window.relicview.comparison()), null);
  assert.equal(await page.locator('#compare-body').isHidden(), true);
  assert.equal(await page.locator('#inspector-body').isVisible(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the aligned trees mark the one changed record, filter to the differences, and step to it; the hex views mark its byte and scroll together', async () => {
  const { page, problems } = await folderPage();
  const result = await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CRATE.BGF', 'GAME/DEMO/VIDEO/CRATE2.BGF'),
  );
  assert.deepEqual(result.records, { same: result.records.same, changed: 1, added: 0, removed: 0 });
  let c = await page.evaluate(() => window.relicview.comparison());
  const rows = c.inspector.rows;
  assert.equal(rows.filter(r => r.status === 'changed').length, 1);
  assert.ok(rows.filter(r => r.status === 'inner').length >= 2, 'the containers above it say they hold it');
  assert.ok(
    rows.every(r => r.a !== null && r.b !== null),
    'the same structure: every row has both sides',
  );
  // On the page: a changed row with the vertex chunk's record on both sides.
  const changed = page.locator('#compare-tree .crow.changed');
  assert.equal(await changed.count(), 1);
  assert.match(await changed.locator('.cside.a').textContent(), /VERTEX/);
  // Only the differences: the changed row and the containers over it.
  await page.locator('#compare-only').check();
  c = await page.evaluate(() => window.relicview.comparison());
  assert.ok(c.inspector.rows.length < rows.length);
  assert.ok(c.inspector.rows.every(r => r.status !== 'same'));
  assert.equal(await page.locator('#compare-tree .crow.same').count(), 0);
  // N steps to it: both records selected, their bytes in sight, the one byte marked.
  await page.locator('#compare-tree').focus();
  await page.keyboard.press('n');
  c = await page.evaluate(() => window.relicview.comparison());
  const row = c.inspector.rows.find(r => r.status === 'changed');
  assert.equal(c.inspector.selected !== null, true);
  assert.ok(
    c.inspector.selection.a[0] <= moved.vertex && moved.vertex < c.inspector.selection.a[1],
    "A's selected bytes hold the vertex",
  );
  assert.deepEqual(c.inspector.selection.a, c.inspector.selection.b);
  assert.ok(row);
  for (const side of ['a', 'b']) {
    const marked = await page
      .locator(`#compare-hex-${side} .b.diff`)
      .evaluateAll(els => els.map(e => Number(e.dataset.o)));
    assert.deepEqual(marked, [moved.byte], `side ${side}: the y's last byte, and nothing else`);
  }
  assert.match(await page.locator('#compare-detail').textContent(), /changed/);
  // Both records outlined in 3D.
  assert.ok((await page.evaluate(() => window.relicview.highlightedTrianglesOn('a'))) > 0);
  assert.ok((await page.evaluate(() => window.relicview.highlightedTrianglesOn('b'))) > 0);
  // Scrolling A's bytes scrolls B's to the same place of the aligned record.
  await page.evaluate(() => {
    const a = document.getElementById('compare-hex-a');
    a.scrollTop = 18 * 4;
    a.dispatchEvent(new Event('scroll'));
  });
  // (Fails by timing out when B's bytes never follow.)
  await page.waitForFunction(() => {
    const [a, b] = ['a', 'b'].map(s => document.getElementById(`compare-hex-${s}`).scrollTop);
    return a > 0 && b === a;
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("overlay, split and difference views: B's ghost beyond A, each half its file, the moved vertex in the difference colour", async () => {
  const { page, problems } = await folderPage();
  const bg = (await page.evaluate(() => window.relicview.pixelStats())).background;
  const isBg = (r, g, b) => Math.abs(r - bg[0]) + Math.abs(g - bg[1]) + Math.abs(b - bg[2]) <= 12;
  await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CRATE.BGF', 'GAME/OTHER/VIDEO/CRATE.BGF'),
  );
  assert.equal((await page.evaluate(() => window.relicview.comparison())).mode, 'overlay');
  const frame = async mode => {
    await page.evaluate(m => window.relicview.setCompareView({ mode: m, split: 0.5 }), mode);
    return page.evaluate(() => window.relicview.readPixels());
  };
  const a = await frame('a');
  const b = await frame('b');
  const overlay = await frame('overlay');
  // B is three times A's size: where A leaves background, B's ghost shows, tinted blue.
  let ghost = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    const [r, g, bl] = [overlay.data[i], overlay.data[i + 1], overlay.data[i + 2]];
    if (isBg(a.data[i], a.data[i + 1], a.data[i + 2]) && !isBg(r, g, bl) && bl > r) ghost++;
  }
  assert.ok(ghost > 2000, `${ghost} pixels of B's ghost outside A`);
  // Where A is drawn, the overlay keeps A under the ghost: not the background.
  let covered = 0;
  for (let i = 0; i < a.data.length; i += 4)
    if (
      !isBg(a.data[i], a.data[i + 1], a.data[i + 2]) &&
      isBg(overlay.data[i], overlay.data[i + 1], overlay.data[i + 2])
    )
      covered++;
  assert.equal(covered, 0);
  // Split at the middle: the left half is A's frame, the right half B's, pixel for pixel
  // (one camera), the column at the split aside.
  const split = await frame('split');
  const w = split.width;
  let mismatched = 0;
  for (let y = 0; y < split.height; y++) {
    for (let x = 0; x < w; x++) {
      if (Math.abs(x - w / 2) < 2) continue;
      const i = (y * w + x) * 4;
      const want = x < w / 2 ? a : b;
      if (
        Math.abs(split.data[i] - want.data[i]) +
          Math.abs(split.data[i + 1] - want.data[i + 1]) +
          Math.abs(split.data[i + 2] - want.data[i + 2]) >
        6
      )
        mismatched++;
    }
  }
  assert.equal(mismatched, 0, `${mismatched} pixels of the split are neither A's nor B's`);
  assert.equal(await page.locator('#split-handle').isVisible(), true);
  // The difference view of the crate and its copy with one vertex raised: the scale's far
  // end (red) near that vertex only; the identical copy has none of it.
  // (Unlit: the colours as the view gives them.)
  const red = (r, g, bl) => r > g + 50 && r > bl + 50;
  await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CRATE.BGF', 'GAME/DEMO/VIDEO/CRATE2.BGF'),
  );
  await page.evaluate(() => window.relicview.setOptions({ lighting: 'none' }));
  await page.evaluate(() => window.relicview.setCompareView({ mode: 'difference' }));
  assert.equal(await page.locator('#compare-legend').isVisible(), true);
  const moving = await countPixels(page, red);
  const grey = await countPixels(
    page,
    (r, g, bl) => Math.abs(r - g) < 12 && Math.abs(g - bl) < 12 && !isBg(r, g, bl),
  );
  assert.ok(moving > 50, `${moving} pixels in the moved colour`);
  assert.ok(grey > moving, `the rest unchanged grey: ${grey}`);
  await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CRATE.BGF', 'GAME/DEMO/VIDEO/CRATE.BGF'),
  );
  await page.evaluate(() => window.relicview.setCompareView({ mode: 'difference' }));
  assert.equal(await countPixels(page, red), 0, 'nothing moved: no red');
  // The stats count what the frame draws: A and B's ghost in the overlay.
  await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/VIDEO/CUBE.BGF', 'GAME/DEMO/VIDEO/CRATE.BGF'),
  );
  const one = await page.evaluate(async () => {
    await window.relicview.setCompareView({ mode: 'a' });
    return window.relicview.stats().triangles;
  });
  const both = await page.evaluate(async () => {
    await window.relicview.setCompareView({ mode: 'overlay' });
    return window.relicview.stats().triangles;
  });
  assert.equal(both, one + 12, "the crate's 12 triangles ghosted over the cube");
  assert.deepEqual(problems, []);
  await page.close();
});

test('a face picked on either side selects its record on both sides; a link restores the comparison in a fresh page', async () => {
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await page.waitForFunction(
    () => window.relicview.listing().files > 0 && window.relicview.indexTimeline()?.typed,
  );
  await page.evaluate(() => window.relicview.compare('DEMO/VIDEO/CRATE.BGF', 'OTHER/VIDEO/CRATE.BGF'));
  await page.evaluate(() => window.relicview.setCompareView({ mode: 'split', split: 0.5 }));
  await page.evaluate(() => window.relicview.axisView('front'));
  const { width, height } = await page.evaluate(() => window.relicview.pixelStats());
  // The right half is B (the big crate): a click there picks B's face (the first point
  // right of the split, at mid height, that the crate covers).
  const { at, hit } = await page.evaluate(
    ([width, height]) => {
      for (let x = Math.round(width * 0.52); x < width; x += 4) {
        const hit = window.relicview.pick(x, Math.round(height * 0.5));
        if (hit) return { at: [x, Math.round(height * 0.5)], hit };
      }
      return { at: null, hit: null };
    },
    [width, height],
  );
  assert.ok(hit && hit.side === 'b', JSON.stringify(hit));
  const box = await page.locator('#viewport').boundingBox();
  await page.mouse.click(box.x + at[0], box.y + at[1]);
  const c = await page.evaluate(() => window.relicview.comparison());
  assert.ok(c.inspector.selected !== null, 'a row is selected');
  const picked = c.inspector.rows[c.inspector.selected];
  assert.ok(picked.a !== null && picked.b !== null, `the row has both records: ${JSON.stringify(picked)}`);
  assert.ok(c.inspector.selection.a && c.inspector.selection.b, 'both sides selected');
  assert.ok(
    (await page.evaluate(() => window.relicview.highlightedTrianglesOn('a'))) > 0,
    "A's record outlined too",
  );
  assert.ok((await page.evaluate(() => window.relicview.highlightedTrianglesOn('b'))) > 0);
  // The link: file A, file B, the mode, the split, the camera, the row.
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /compare=OTHER%2FVIDEO%2FCRATE\.BGF/);
  assert.match(link, /cmode=split/);
  const camera = await page.evaluate(() => window.relicview.camera());
  const fresh = await newPage(ctx.browser, link);
  await fresh.page.waitForFunction(() => window.relicview.comparison()?.b === 'OTHER/VIDEO/CRATE.BGF', null, {
    timeout: 30000,
  });
  const restored = await fresh.page.evaluate(() => window.relicview.comparison());
  assert.equal(restored.a, 'DEMO/VIDEO/CRATE.BGF');
  assert.equal(restored.mode, 'split');
  assert.equal(restored.split, 0.5);
  assert.equal(restored.inspector.selected, c.inspector.selected);
  const cam2 = await fresh.page.evaluate(() => window.relicview.camera());
  for (let k = 0; k < 3; k++)
    assert.ok(
      Math.abs(cam2.position[k] - camera.position[k]) < 1e-3,
      `${cam2.position} vs ${camera.position}`,
    );
  assert.deepEqual(fresh.problems, []);
  await fresh.page.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a comparison starts from a file's menu in the list, from Compare with…, and from the info pane's other candidates", async () => {
  const { page, problems } = await folderPage();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  // The list: a right-click on another file, "Compare CUBE.BGF (on show) with this".
  const crateRow = page.locator('#file-list li[data-path="GAME/DEMO/VIDEO/CRATE.BGF"]');
  await crateRow.scrollIntoViewIfNeeded();
  await crateRow.click({ button: 'right' });
  const item = page.locator('#row-menu [data-act="compare-current"]');
  assert.match(await item.textContent(), /Compare CUBE\.BGF \(on show\) with this/);
  await item.click();
  await page.waitForFunction(() => window.relicview.comparison()?.b === 'GAME/DEMO/VIDEO/CRATE.BGF');
  assert.equal((await page.evaluate(() => window.relicview.comparison())).a, 'GAME/DEMO/VIDEO/CUBE.BGF');
  assert.match(await page.locator('#info-title').textContent(), /CUBE\.BGF ↔ .*CRATE\.BGF/);
  // Compare with…: the file on show waits for the one chosen next in the list.
  await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/TOWER.BGF'));
  await page.locator('#compare-with-button').click();
  assert.equal(await page.locator('#compare-pick').isVisible(), true);
  const hexpod = page.locator('#file-list li[data-path="GAME/DEMO/VIDEO/HEXPOD.BGF"]');
  await hexpod.scrollIntoViewIfNeeded();
  await hexpod.click();
  await page.waitForFunction(() => window.relicview.comparison()?.b === 'GAME/DEMO/VIDEO/HEXPOD.BGF');
  assert.equal((await page.evaluate(() => window.relicview.comparison())).a, 'GAME/DEMO/VIDEO/TOWER.BGF');
  assert.equal(await page.locator('#compare-pick').isHidden(), true);
  // A world whose crate answers to two files: the info pane offers to compare them.
  await page.evaluate(() => window.relicview.open('GAME/DEMO/MAPS/ARENA1.MAP'));
  const button = page.locator('#info-body .compare-link').first();
  assert.match(await button.getAttribute('title'), /CRATE\.BGF with .*CRATE\.BGF/);
  await button.click();
  await page.waitForFunction(() => window.relicview.comparison() !== null);
  const c = await page.evaluate(() => window.relicview.comparison());
  assert.deepEqual([c.a, c.b].map(p => p.replace(/^GAME\//, '')).sort(), [
    'DEMO/VIDEO/CRATE.BGF',
    'OTHER/VIDEO/CRATE.BGF',
  ]);
  assert.deepEqual(problems, []);
  await page.close();
});

test('two worlds compare by placements: listed in the info pane, each in its colour in the difference view', async () => {
  const { page, problems } = await folderPage();
  const result = await page.evaluate(() =>
    window.relicview.compare('GAME/DEMO/MAPS/ARENA1.MAP', 'GAME/DEMO/MAPS/ARENA2.MAP'),
  );
  const p = result.placements;
  assert.deepEqual([p.counts.moved, p.counts.removed, p.counts.added], [1, 1, 1], JSON.stringify(p.counts));
  const info = await page.locator('#info-more').textContent();
  assert.match(info, /placements moved \(1\)/);
  assert.match(info, /crate\[0\] crate\.mod \(6, 0, -6\) → \(6, 0, -16\)/);
  assert.match(info, /placements only in A \(1\)/);
  assert.match(info, /well\[0\]/);
  await page.evaluate(() => window.relicview.setCompareView({ mode: 'difference' }));
  await page.evaluate(() => window.relicview.axisView('top'));
  const layers = await page.evaluate(() => window.relicview.layers().map(l => l.name));
  assert.ok(layers.includes('only in B') && layers.includes('moved, in B'), layers.join(', '));
  const legend = await page.evaluate(
    () =>
      window.relicview.comparison() && getComputedStyle(document.getElementById('compare-legend')).display,
  );
  assert.notEqual(legend, 'none');
  // Green: the crate only B places; magenta: the well only A places.
  const green = await countPixels(page, (r, g, b) => g > 150 && r < 110 && b < 130);
  const magenta = await countPixels(page, (r, g, b) => r > 150 && b > 140 && g < 100);
  assert.ok(green > 20, `${green} pixels of what only B places`);
  assert.ok(magenta > 20, `${magenta} pixels of what only A places`);
  // Hiding the layer of what only B has takes the green away.
  await page.evaluate(() => window.relicview.setLayers({ 'only in B': false }));
  assert.ok((await countPixels(page, (r, g, b) => g > 150 && r < 110 && b < 130)) < green / 4);
  assert.deepEqual(problems, []);
  await page.close();
});
