// FF7 field models as the game drew them, in the page: a real field file with the real
// FIELD.BIN (gzip-compressed by Python's gzip, behind the disc's 8-byte header) is lit by
// the game's own lighting and drawn unlit; "stored" draws the file's colours; the choice
// lives in the menu and the link. FIELD.BIN itself opens as its tables and its normals on
// a sphere, a normal telling which field models use it. And `relicview inspect --json`
// lists every record the page's inspector lists, for every file of the archive.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';
import validator from 'gltf-validator';
import { servedArchive, newPage, bin, repo, walk, lzsLiterals, loadFolder, withThree } from './harness.mjs';

const shared = name => readFileSync(join(repo, '../shared/testdata/ff7', name));

// `relicview inspect --json`, whose listing of a field file runs to megabytes; on a bad file it
// exits 1 and still prints its listing.
function inspectJson(...args) {
  try {
    return JSON.parse(
      execFileSync(bin, ['inspect', '--json', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 }),
    );
  } catch (e) {
    if (e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

const ctx = servedArchive(dir => {
  mkdirSync(join(dir, 'FF7/FIELD'), { recursive: true });
  writeFileSync(join(dir, 'FF7/FIELD/MD1_1.BSX'), lzsLiterals(shared('MD1_1_u.BSX')));
  writeFileSync(join(dir, 'FF7/FIELD/FIELD.TDB'), shared('FIELD.TDB_u'));
  // As the disc stores it: the unpacked length, a word, then the gzip stream.
  const gz = execFileSync('python3', [
    '-c',
    'import gzip, sys; sys.stdout.buffer.write(gzip.compress(open(sys.argv[1], "rb").read(), mtime=0))',
    join(repo, '../shared/testdata/ff7/FIELD.BIN_u'),
  ]);
  const head = Buffer.alloc(8);
  head.writeUInt32LE(shared('FIELD.BIN_u').length, 0);
  writeFileSync(join(dir, 'FF7/FIELD/FIELD.BIN'), Buffer.concat([head, gz]));
});

async function withFolder() {
  const { dir, server, browser } = ctx;
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  assert.ok(
    await page.evaluate(() => Boolean(document.createElement('canvas').getContext('webgl2'))),
    'WebGL2 is there',
  );
  await loadFolder(page, dir, walk(dir).length);
  return { page, problems };
}

// Jessie (model 2), standing, looked at from the front.
async function standing(page) {
  await page.evaluate(() => window.relicview.open('GAME/FF7/FIELD/MD1_1.BSX'));
  const choice = await page.evaluate(() => window.relicview.choice());
  await page.evaluate(
    k => window.relicview.choose(k),
    choice.options.indexOf('model 2: animation 0 (1 frame)'),
  );
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  await page.evaluate(() => window.relicview.axisView('front'));
}

const rgb = (d, i) => [d[i], d[i + 1], d[i + 2]];
const lum = ([r, g, b]) => 0.299 * r + 0.587 * g + 0.114 * b;

test("a field model with FIELD.BIN is drawn in the colours the game lit it, unlit; stored draws the file's own", async () => {
  const { page, problems } = await withFolder();
  await standing(page);
  const info = await page.locator('#info-body').innerText();
  assert.match(info, /lighting\s+lit by GAME\/FF7\/FIELD\/FIELD\.BIN: \d+ parts/);
  assert.match(info, /face images\s+chosen by FIELD\.BIN's face tables/);
  assert.deepEqual(await page.locator('#lighting-select option').evaluateAll(os => os.map(o => o.value)), [
    'game',
    'sun',
    'camera',
    'stored',
  ]);
  assert.equal(
    await page.locator('#lighting-select').inputValue(),
    'game',
    "the game's lighting is the default",
  );
  const game = await page.evaluate(() => window.relicview.readPixels());
  await page.evaluate(() => window.relicview.setOptions({ lighting: 'stored' }));
  const stored = await page.evaluate(() => window.relicview.readPixels());
  const bg = await page.evaluate(() => window.relicview.pixelStats().background);
  // Over the figure (drawn in both), the game's light darkens the sides facing away from the
  // lights to about a quarter (the ambient alone) and leaves those facing them near the
  // stored colour: the two images differ where the normals face away.
  const ratios = [];
  for (let i = 0; i < game.data.length; i += 4) {
    const [a, b] = [rgb(game.data, i), rgb(stored.data, i)];
    const isBg = c => c.every((x, k) => Math.abs(x - bg[k]) <= 3);
    if (isBg(a) || isBg(b) || lum(b) < 40) continue;
    ratios.push(lum(a) / lum(b));
  }
  ratios.sort((x, y) => x - y);
  assert.ok(ratios.length > 2000, `${ratios.length} pixels of the figure`);
  const at = q => ratios[Math.floor(q * (ratios.length - 1))];
  assert.ok(at(0.1) < 0.5, `the darkest tenth keeps at most half: ${at(0.1).toFixed(2)}`);
  assert.ok(at(0.5) > 0.35 && at(0.5) < 0.9, `the median ratio ${at(0.5).toFixed(2)}`);
  assert.ok(
    at(0.9) - at(0.1) > 0.25,
    `shading across the figure: ${at(0.1).toFixed(2)}–${at(0.9).toFixed(2)}`,
  );
  // The link keeps the choice; the default is left out of it.
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /[#&]light=stored(&|$)/);
  // A fresh page given the link and the folder draws the stored colours again.
  const fresh = await ctx.browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(ctx.dir);
  await fresh.waitForFunction(
    () =>
      window.relicview.stats().triangles > 0 && document.getElementById('lighting-select').value === 'stored',
  );
  await fresh.close();
  await page.evaluate(() => window.relicview.setOptions({ lighting: 'game' }));
  assert.doesNotMatch(await page.evaluate(() => window.relicview.permalink()), /light=/);
  // The older word still reads.
  await page.evaluate(() => window.relicview.setOptions({ lighting: 'none' }));
  assert.equal(await page.locator('#lighting-select').inputValue(), 'stored');
  // The blink: a switch of its own, in the link when off.
  assert.equal(await page.evaluate(() => window.relicview.hasBlink()), true);
  await page.evaluate(() => window.relicview.setOptions({ blink: false }));
  assert.match(await page.evaluate(() => window.relicview.permalink()), /[#&]blink=0(&|$)/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a polygon's record shows its stored and lit colours with swatches; the export follows the view", async () => {
  const { page, problems } = await withFolder();
  await standing(page);
  const view = await page.evaluate(() => window.relicview.inspector.view());
  const row = view.chunks.find(c => c.polygon?.corners[0].lit);
  assert.ok(row, 'a lit polygon record');
  await page.evaluate(i => window.relicview.inspector.selectChunk(i), row.index);
  const chips = await page
    .locator('#inspector .polygon-colours .swatch')
    .evaluateAll(s => s.map(x => x.style.background));
  assert.equal(chips.length, 2 * row.polygon.corners.length, 'stored and lit per colour word');
  const c = row.polygon.corners[0];
  assert.equal(chips[0], `rgb(${c.stored.join(', ')})`);
  assert.equal(chips[1], `rgb(${c.lit.join(', ')})`);
  // A click on the figure picks a polygon's own record.
  const [w, h] = await page.evaluate(() => [
    document.getElementById('viewport').width,
    document.getElementById('viewport').height,
  ]);
  const hit = await page.evaluate(([x, y]) => window.relicview.pick(x, y), [w / 2, h / 2]);
  assert.ok(
    hit && view.chunks[hit.source].polygon,
    `the pick lands on a polygon record: ${JSON.stringify(hit)}`,
  );
  // The page's export is what is on show: the game's colours, unlit. The Khronos validator
  // finds no error in it, and three.js's GLTFLoader reads it as unlit (MeshBasicMaterial)
  // with the lit colours as COLOR_0; under the sun the same file exports lit materials.
  await withThree(page);
  const exported = async () => {
    const bytes = await page.evaluate(async () => [...(await window.relicview.exportGlb())]);
    const report = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 1000 });
    assert.equal(
      report.issues.numErrors,
      0,
      JSON.stringify(report.issues.messages.filter(m => m.severity === 0)),
    );
    return page.evaluate(async () => {
      const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
      const glb = await window.relicview.exportGlb();
      const gltf = await new GLTFLoader().parseAsync(
        glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
        '',
      );
      const types = new Set();
      let colours = 0;
      gltf.scene.traverse(o => {
        if (!o.isMesh) return;
        types.add(o.material.type);
        colours += o.geometry.getAttribute('color')?.count ?? 0;
      });
      return { types: [...types], colours, extensions: gltf.parser.json.extensionsUsed || [] };
    });
  };
  const game = await exported();
  assert.deepEqual(game.types, ['MeshBasicMaterial'], JSON.stringify(game));
  assert.ok(game.extensions.includes('KHR_materials_unlit') && game.colours > 0, JSON.stringify(game));
  await page.evaluate(() => window.relicview.setOptions({ lighting: 'sun' }));
  const sun = await exported();
  assert.ok(
    !sun.extensions.includes('KHR_materials_unlit') && !sun.types.includes('MeshBasicMaterial'),
    JSON.stringify(sun),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('FIELD.BIN opens as its tables and its normals on a sphere; a normal says which field models use it', async () => {
  const { page, problems } = await withFolder();
  assert.equal(
    await page.evaluate(() => window.relicview.entry('GAME/FF7/FIELD/FIELD.BIN').kind),
    'field-bin',
  );
  const opened = await page.evaluate(() => window.relicview.open('GAME/FF7/FIELD/FIELD.BIN'));
  assert.equal(opened.triangles, 240 * 8, 'a point per normal');
  const view = await page.evaluate(() => window.relicview.inspector.view());
  const normals = view.chunks.filter(c => c.entry && c.entry.table === 'normal');
  assert.equal(normals.length, 240);
  // Click a normal in 3D: its record is selected, and the info pane says who uses it.
  const pick = await page.evaluate(async () => {
    // Normal 44's tip, turned as the field models are (the console's +Y is down).
    const p = window.relicview.project([2676 / 4096, -2108 / 4096, -2273 / 4096]);
    const hit = window.relicview.pick(p[0], p[1]);
    return { hit, p };
  });
  assert.ok(pick.hit, JSON.stringify(pick));
  const picked = view.chunks[pick.hit.source];
  assert.equal(picked.entry.table, 'normal', JSON.stringify(picked));
  await page.evaluate(i => window.relicview.inspector.selectChunk(i), picked.index);
  await page.waitForFunction(() => document.querySelector('#info-selection a.file-link'));
  const users = await page.locator('#info-selection').innerText();
  assert.match(
    users,
    new RegExp(
      `normal ${picked.entry.index} used by\\s+\\d+ polygons? in 1 file: GAME/FF7/FIELD/MD1_1\\.BSX \\(\\d+\\)`,
    ),
  );
  // The count is the CLI's: polygons whose colour words name it.
  const listing = inspectJson(join(ctx.dir, 'FF7/FIELD/MD1_1.BSX'));
  const uses = listing.records.filter(r =>
    r.polygon?.corners.some(c => c.normal === picked.entry.index),
  ).length;
  assert.match(users, new RegExp(`used by\\s+${uses} polygon`));
  assert.deepEqual(problems, []);
  await page.close();
});

test("relicview inspect --json lists every record the page's inspector lists, for every file of the archive", async () => {
  const { page, problems } = await withFolder();
  const { dir } = ctx;
  const files = walk(dir).filter(f => !f.includes('<img'));
  let compared = 0;
  for (const file of files) {
    const path = 'GAME/' + relative(dir, file);
    const cli = inspectJson('--root', dir, file);
    await page.evaluate(p => window.relicview.open(p).catch(() => null), path);
    const view = await page.evaluate(() => window.relicview.inspector.view());
    assert.ok(view, path);
    assert.equal(view.chunks.length, cli.records.length, `${path}: as many records`);
    assert.deepEqual(
      view.chunks.map(c => [c.offset, c.end - c.offset]),
      cli.records.map(r => [r.offset, r.length]),
      `${path}: the same offsets and lengths`,
    );
    assert.deepEqual(view.coverage, cli.coverage, `${path}: the same coverage`);
    compared += 1;
  }
  assert.ok(compared > 40, `${compared} files`);
  assert.deepEqual(
    problems.filter(p => !/404/.test(p)),
    [],
  );
  await page.close();
});
