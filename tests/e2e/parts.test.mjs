// The Parts view on the demo's walker, a model whose parts are named by SPECIAL words: a
// destroyed zone takes exactly its pixels with it, each zone shows in its own colour, the
// beacon blinks on the clock, the wireframe aerial is lines, the searchlight adds to what
// is behind it, and a link keeps the destroyed zones and the colours.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeArchive, startServer, launch, newPage, withThree, axeClean as axe } from './harness.mjs';
import { discArchive, open, picture, servedBeside } from './fixtures.mjs';

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

const WALKER = 'DEMO/VIDEO/WALKER.BGF';

async function walker(page) {
  await page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length > 0);
  await page.evaluate(p => window.relicview.open(p), WALKER);
  // Still and unlit: a zone's colour is drawn exactly, the beacon shown (first half second).
  await page.evaluate(() => window.relicview.setClock({ time: 0.25, playing: false }));
  await page.evaluate(() => window.relicview.setOptions({ lighting: 'stored' }));
}

const pixels = page => page.evaluate(() => window.relicview.readPixels());
const css = c => c.match(/\d+/g).map(Number);
const near = (d, i, c, tol = 2) =>
  Math.abs(d[i] - c[0]) <= tol && Math.abs(d[i + 1] - c[1]) <= tol && Math.abs(d[i + 2] - c[2]) <= tol;

test('the Parts view lists the zones and words; destroying a zone removes exactly its pixels; each zone shows in its colour', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await walker(page);
  const parts = await page.evaluate(() => window.relicview.parts());
  assert.deepEqual(
    parts.zones.map(z => z.name),
    [
      'dz_utorso',
      'dz_hip',
      'dz_larm',
      'dz_rarm',
      'dz_rgun',
      'dz_lleg',
      'dz_lfoot',
      'dz_rleg',
      'dz_rfoot',
      'dz_searchlight',
    ],
  );
  assert.ok(
    parts.zones.every(z => z.patches === 1 && z.triangles === 12 && !z.hidden),
    JSON.stringify(parts.zones),
  );
  for (const w of ['BLINK', 'WIREFRAME', 'ADDITIVE_LODS', 'PUNCH', 'GEOMETRIZE'])
    assert.ok(parts.words[w] > 0, `${w} in ${Object.keys(parts.words)}`);
  assert.equal(parts.words.GEOMETRIZE, 11, "the object's word is every part's");
  assert.equal(await page.locator('#parts-zones li').count(), 10);
  assert.equal(
    await page.locator('#layers input[data-layer^="dz_"]').count(),
    0,
    'zones are not in the layer switches',
  );
  // The words filter lists the parts that carry one.
  await page.locator('#parts-word').selectOption('BLINK');
  assert.deepEqual(await page.locator('#parts-list li button').allInnerTexts(), ['beacon']);
  // The info pane says which words are drawn how, and that BLINK's cadence is ours.
  assert.match(
    await page.locator('#info-body').innerText(),
    /BLINK blinks on the timeline \(0\.5 s shown, 0\.5 s hidden: the cadence is relicview's own\)/,
  );

  // Colour by zone: every zone seen from here in its own colour, unlit.
  await page.evaluate(() => window.relicview.setZoneColours(true));
  const coloured = await pixels(page);
  const count = (img, c) => {
    let n = 0;
    for (let i = 0; i < img.data.length; i += 4) if (near(img.data, i, c)) n++;
    return n;
  };
  const seen = parts.zones.filter(z => count(coloured, css(z.colour)) > 20);
  assert.ok(seen.length >= 8, `zones seen in their colour: ${seen.map(z => z.name)}`);
  const swatch = await page
    .locator('#parts-zones li[data-zone="dz_larm"] .swatch')
    .evaluate(e => e.style.background);
  assert.deepEqual(css(swatch), css(parts.zones[2].colour), 'the legend is the colour drawn');

  // Destroying the left arm takes exactly its pixels: what changes lies on the arm or on
  // its edge, and no pixel keeps its colour.
  const arm = css(parts.zones[2].colour);
  const after = await page.evaluate(() => window.relicview.setPart('dz_larm', { hidden: true }));
  assert.equal(after.zones[2].hidden, true);
  const destroyed = await pixels(page);
  const { width, height } = coloured;
  const onArm = new Uint8Array(width * height);
  for (let p = 0; p < width * height; p++) onArm[p] = near(coloured.data, p * 4, arm) ? 1 : 0;
  const nearArm = p => {
    const x = p % width,
      y = (p / width) | 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const q = (y + dy) * width + x + dx;
        if (x + dx >= 0 && x + dx < width && y + dy >= 0 && y + dy < height && onArm[q]) return true;
      }
    return false;
  };
  let changed = 0,
    offArm = 0,
    armLeft = 0;
  for (let p = 0; p < width * height; p++) {
    if (near(destroyed.data, p * 4, arm, 0)) armLeft++;
    if (
      near(
        coloured.data,
        p * 4,
        [destroyed.data[p * 4], destroyed.data[p * 4 + 1], destroyed.data[p * 4 + 2]],
        0,
      )
    )
      continue;
    changed++;
    if (!nearArm(p)) offArm++;
  }
  const armPixels = onArm.reduce((a, b) => a + b, 0);
  console.log(`# the arm: ${armPixels} pixels, ${changed} changed`);
  assert.ok(armPixels > 200, `the arm covers ${armPixels} pixels`);
  assert.ok(changed >= armPixels * 0.9, `${changed} pixels changed, the arm had ${armPixels}`);
  assert.equal(offArm, 0, 'nothing changes away from the arm');
  assert.equal(armLeft, 0, 'none of the arm is left');
  assert.equal(await page.locator('#parts-zones li[data-zone="dz_larm"] input').isChecked(), false);

  // Hovering a zone outlines its triangles; its name selects its part in the inspector.
  await page.locator('#parts-zones li[data-zone="dz_utorso"]').hover();
  assert.equal(await page.evaluate(() => window.relicview.highlightedTriangles()), 12, 'the torso outlined');
  await page.locator('#parts-zones li[data-zone="dz_rgun"] button').click();
  const selected = await page.evaluate(() => window.relicview.inspector.selection());
  const record = await page.evaluate(c => window.relicview.inspector.view().chunks[c], selected.chunk);
  assert.match(
    `${record.name} ${record.summary}`,
    /PATCH/,
    `the part's record is selected: ${JSON.stringify(record)}`,
  );
  const gun = (await page.evaluate(() => window.relicview.parts())).parts.find(p => p.name === 'right gun');
  assert.equal(selected.chunk, gun.record);

  // A link keeps the destroyed zone and the colours; a fresh page restores both.
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /[#&]hide=dz_larm(&|$)/);
  assert.match(link, /[#&]zones=1(&|$)/);
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.waitForFunction(() => window.relicview.parts().zones.length === 10);
  const restored = await fresh.evaluate(() => window.relicview.parts());
  assert.deepEqual(
    restored.zones.filter(z => z.hidden).map(z => z.name),
    ['dz_larm'],
  );
  assert.equal(await fresh.evaluate(() => document.querySelector('#opt-zone-colours').checked), true);
  await fresh.close();

  // The Z key turns the colours off; an unknown zone is an error, not a silent no-op.
  await page.locator('#viewport').focus();
  await page.keyboard.press('z');
  await page.waitForFunction(() => !document.querySelector('#opt-zone-colours').checked);
  await assert.rejects(
    page.evaluate(() => window.relicview.setPart('dz_nothing', { hidden: true })),
    /no damage zone dz_nothing/,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('the beacon blinks on the clock, the aerial is lines, the searchlight adds to what is behind it', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await walker(page);
  // Everything destroyed but the searchlight: left are the searchlight, the beacon (no
  // zone) and the aerial (no zone).
  await page.evaluate(() => window.relicview.setAllZones(true));
  const shown = async t => {
    await page.evaluate(time => window.relicview.setClock({ time, playing: false }), t);
    return (await page.evaluate(() => window.relicview.pixelStats())).nonBackground;
  };
  const [on, off, again] = [await shown(0.25), await shown(0.75), await shown(1.25)];
  assert.ok(on > off + 20, `the beacon shows at 0.25 s (${on}) and not at 0.75 s (${off})`);
  assert.equal(again, on, 'and again at 1.25 s');
  // At 0.75 s only the aerial is drawn: lines along its twelve triangles cover a small
  // share of the square it spans on screen.
  const corners = [
    [0.45, 3.85, -0.52],
    [1.35, 3.85, -0.52],
    [0.45, 4.75, -0.52],
    [1.35, 4.75, -0.52],
  ];
  const xy = await page.evaluate(cs => cs.map(c => window.relicview.project(c)), corners);
  const [xs, ys] = [xy.map(p => p[0]), xy.map(p => p[1])];
  const area = (Math.max(...xs) - Math.min(...xs)) * (Math.max(...ys) - Math.min(...ys));
  console.log(`# beacon ${on}/${off}, the aerial ${off} of ${area.toFixed(0)}`);
  assert.ok(area > 400, `the aerial spans ${area} pixels`);
  assert.ok(off > 20 && off < area * 0.5, `lines: ${off} pixels of a ${area.toFixed(0)}-pixel square`);
  // The searchlight, added to what is behind it: its pixels (what restoring it changes) are
  // lighter over the light background than over the dark one by about what the two differ
  // by (their darkest channels: 200 and 24); an opaque surface would be the same over both.
  const without = await pixels(page);
  await page.evaluate(() => window.relicview.setPart('dz_searchlight', { hidden: false }));
  const overDark = await pixels(page);
  await page.evaluate(() => window.relicview.setOptions({ background: 'light' }));
  const overLight = await pixels(page);
  const darkest = (d, i) => Math.min(d[i], d[i + 1], d[i + 2]);
  const [dark, light] = [[], []];
  for (let i = 0; i < overDark.data.length; i += 4) {
    if (near(without.data, i, [overDark.data[i], overDark.data[i + 1], overDark.data[i + 2]], 0)) continue;
    dark.push(darkest(overDark.data, i));
    light.push(darkest(overLight.data, i));
  }
  const median = v => v.sort((a, b) => a - b)[v.length >> 1];
  console.log(
    `# searchlight: ${dark.length} pixels, darkest channel ${median(dark)} over dark, ${median(light)} over light`,
  );
  assert.ok(dark.length > 100, `the searchlight covers ${dark.length} pixels`);
  assert.ok(
    median(light) - median(dark) > 150,
    `added to what is behind: ${median(dark)} over dark, ${median(light)} over light`,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("three.js GLTFLoader finds a node per damage zone holding its parts' triangles, and the beacon's blink as a stepped animation", async () => {
  const { page, problems } = await newPage(browser, server.url);
  await walker(page);
  await withThree(page);
  const parts = await page.evaluate(() => window.relicview.parts());
  // Each zone's node holds the parts whose first zone it is (the gun arm's two zones: dz_rarm).
  const expected = Object.fromEntries(parts.zones.map(z => [z.name, 0]));
  for (const p of parts.parts) if (p.zones.length) expected[p.zones[0]] += p.triangles;
  const loaded = await page.evaluate(
    async names => {
      const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
      const glb = await window.relicview.exportGlb();
      const gltf = await new GLTFLoader().parseAsync(
        glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
        '',
      );
      const triangles = o => {
        let n = 0;
        o.traverse(m => {
          if (m.isMesh) n += m.geometry.index.count / 3;
        });
        return n;
      };
      const zones = {};
      for (const name of names) {
        const node = gltf.scene.getObjectByName(name);
        zones[name] = node
          ? { triangles: triangles(node), parent: node.parent.name, zone: node.userData.zone }
          : null;
      }
      const blink = gltf.animations.map(a => ({
        name: a.name,
        tracks: a.tracks.map(t => ({
          name: t.name,
          interpolation: t.getInterpolation(),
          times: [...t.times],
          values: [...t.values],
        })),
      }));
      return { zones, blink };
    },
    parts.zones.map(z => z.name),
  );
  for (const z of parts.zones) {
    assert.ok(loaded.zones[z.name], `${z.name}: a node`);
    assert.equal(loaded.zones[z.name].triangles, expected[z.name], `${z.name}: its parts' triangles`);
    assert.equal(loaded.zones[z.name].parent, 'walker', `${z.name} under the object`);
    assert.equal(loaded.zones[z.name].zone, z.name, 'the zone in its extras');
  }
  assert.equal(loaded.zones.dz_rgun.triangles, 0, 'the gun arm sits under dz_rarm, its first zone');
  const [scale] = loaded.blink.flatMap(a => a.tracks).filter(t => t.name.endsWith('.scale'));
  assert.ok(scale, JSON.stringify(loaded.blink));
  assert.equal(scale.interpolation, 2300, 'InterpolateDiscrete: a step');
  assert.deepEqual(scale.times, [0, 0.5, 1]);
  assert.deepEqual(scale.values, [1, 1, 1, 0, 0, 0, 1, 1, 1]);
  assert.deepEqual(problems, []);
  await page.close();
});

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => browser, discArchive);

  test("colour by zone is the zoned files' mode: a file without zones keeps its colours and its link leaves it out", async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/VIDEO/TOWER.BGF');
    const own = await picture(p);
    await open(p, 'DEMO/VIDEO/WALKER.BGF');
    const plainWalker = await picture(p);
    await p.locator('#opt-zone-colours').check();
    assert.notEqual(await picture(p), plainWalker, "the walker in its zones' colours");
    assert.match(await p.evaluate(() => window.relicview.permalink()), /zones=1/);
    await open(p, 'DEMO/VIDEO/TOWER.BGF');
    assert.equal(await picture(p), own, 'the tower as it always is: textures and colours');
    assert.doesNotMatch(
      await p.evaluate(() => window.relicview.permalink()),
      /zones=/,
      'its link does not carry the mode',
    );
    await open(p, 'FF7/MD1_1.BSX');
    assert.doesNotMatch(await p.evaluate(() => window.relicview.permalink()), /zones=/);
    // Back to a zoned file: coloured again, and the switch that turns it off beside it.
    await open(p, 'DEMO/VIDEO/WALKER.BGF');
    assert.equal(await p.locator('#opt-zone-colours').isChecked(), true);
    await p.locator('#opt-zone-colours').uncheck();
    assert.equal(await picture(p), plainWalker);
    await axe(p, 'the walker in its own colours');
    assert.deepEqual(problems, []);
    await close();
  });
}
