// An FF7 field in the page: a real field's .DAT as the disc stores it, dropped with its .BSX,
// FIELD.TDB, FIELD.BIN and two characters' .BCX: the walkmesh drawn with its gateways and the
// models where the field's script puts them, the ones the game hides hidden until shown,
// the script's names on the models, and every section in the inspector. The walkmesh's size
// is read here from the bytes (ff7.mjs's LZS reader and the layout docs/formats/field-dat.md
// gives), not asked of relicview.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  startServer,
  launch,
  newPage,
  nativeInfo,
  relicview,
  repo,
  walk,
  lzsLiterals,
  loadFolder,
  blenderImports,
} from './harness.mjs';
import validator from 'gltf-validator';
import { PNG } from 'pngjs';
import { unwrapLzs } from './ff7.mjs';
import { scratchDir } from './scratch.mjs';

const shared = p => readFileSync(join(repo, '../shared/testdata', p));
let dir, server, browser;

before(async () => {
  dir = scratchDir('field');
  mkdirSync(join(dir, 'FIELD'), { recursive: true });
  writeFileSync(join(dir, 'FIELD/MD1_1.DAT'), shared('ff7-disc/MD1_1.DAT'));
  writeFileSync(join(dir, 'FIELD/MD1_1.BSX'), lzsLiterals(shared('ff7/MD1_1_u.BSX')));
  writeFileSync(join(dir, 'FIELD/FIELD.TDB'), shared('ff7/FIELD.TDB_u'));
  writeFileSync(join(dir, 'FIELD/FIELD.BIN'), shared('ff7/FIELD.BIN_u'));
  writeFileSync(join(dir, 'FIELD/CLOUD.BCX'), shared('ff7-disc/CLOUD.BCX'));
  writeFileSync(join(dir, 'FIELD/BALLET.BCX'), shared('ff7-disc/BALLET.BCX'));
  // A second field with its background's pixels, as the disc stores them.
  writeFileSync(join(dir, 'FIELD/NMKIN_1.DAT'), shared('ff7-disc/NMKIN_1.DAT'));
  writeFileSync(join(dir, 'FIELD/NMKIN_1.MIM'), shared('ff7-disc/NMKIN_1.MIM'));
  writeFileSync(join(dir, 'FIELD/NMKIN_1.BSX'), lzsLiterals(shared('ff7/NMKIN_1_u.BSX')));
  // A third, the elevator NMKIN_1 leads to and back from.
  writeFileSync(join(dir, 'FIELD/ELEVTR1.DAT'), shared('ff7-disc/ELEVTR1.DAT'));
  writeFileSync(join(dir, 'FIELD/ELEVTR1.MIM'), shared('ff7-disc/ELEVTR1.MIM'));
  writeFileSync(join(dir, 'FIELD/ELEVTR1.BSX'), lzsLiterals(shared('ff7/ELEVTR1_u.BSX')));
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// The walkmesh's triangle count and the gateways in use, from the unpacked bytes.
function fromBytes(name = 'MD1_1') {
  const b = unwrapLzs(shared(`ff7-disc/${name}.DAT`));
  const u32 = at => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
  const u16 = at => b[at] | (b[at + 1] << 8);
  const base = 0x80114fe4;
  const walkmesh = u32(4) - base;
  const triggers = u32(16) - base;
  const maps = [];
  for (let k = 0; k < 12; k++) {
    const map = u16(triggers + 0x38 + 24 * k + 18);
    if (map !== 0x7fff) maps.push(map);
  }
  return { triangles: u16(walkmesh), gateways: maps.length, maps };
}

test('a field draws its walkmesh, its gateways and its models where its script puts them', async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  const path = `${root}/FIELD/MD1_1.DAT`;
  assert.equal(await page.evaluate(p => window.relicview.entry(p).kind, path), 'field-dat');
  const opened = await page.evaluate(p => window.relicview.open(p), path);
  const { triangles, gateways } = fromBytes();
  assert.equal(triangles, 100);
  // The floor and its outline, a line and an arrow a gateway, and the models.
  assert.ok(opened.triangles > 2 * triangles + 2 * gateways + 500, `${opened.triangles} triangles`);
  const layers = await page.evaluate(() => window.relicview.layers());
  const shown = Object.fromEntries(layers.map(l => [l.name, l.shown]));
  assert.deepEqual(
    [shown.walkmesh, shown['walkmesh outline'], shown.gateways, shown['hidden by the game']],
    [true, true, true, false],
  );
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  const all = (await page.evaluate(() => window.relicview.pixelStats())).nonBackground;
  assert.ok(all > 2000, `${all} pixels`);
  // Without the floor, fewer pixels; the models and lines stay.
  await page.evaluate(() => window.relicview.setLayers({ walkmesh: false }));
  const noFloor = (await page.evaluate(() => window.relicview.pixelStats())).nonBackground;
  assert.ok(noFloor < all && noFloor > 0, `${noFloor} of ${all}`);
  // The model the game hides (Barret: a party member, not the leader) can be shown.
  await page.evaluate(() => window.relicview.setLayers({ walkmesh: true, 'hidden by the game': true }));
  const withHidden = (await page.evaluate(() => window.relicview.pixelStats())).nonBackground;
  assert.ok(withHidden >= all, `${withHidden} with the hidden model, ${all} without`);
  // The link keeps it shown: a fresh page shows it too.
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /show=hidden\+by\+the\+game/);
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(
    () => window.relicview.layers().find(l => l.name === 'hidden by the game')?.shown === true,
  );
  await fresh.close();
  // The script's names are on the models, as info --json gives them.
  const native = nativeInfo(join(dir, 'FIELD/MD1_1.DAT'));
  const names = native.field.models.map(m => m.entity);
  assert.deepEqual(names, ['cl', 'ba', 'av_m', 'av_l', 'av_s', 'drL', 'drR']);
  // Every section is in the inspector, the scripts as opcodes.
  const rows = await page.evaluate(() => window.relicview.inspector.view().chunks.map(c => c.name));
  for (const name of ['sections', 'script', 'op', 'string', 'triangle', 'camera', 'gateway', 'model_slot'])
    assert.ok(rows.includes(name), `no ${name} row`);
  assert.deepEqual(problems, []);
  await page.close();
});

// The field's camera from the unpacked bytes (docs/formats/field-dat.md, "Camera"), and the
// scroll range the picture is framed in ("Triggers").
function cameraFromBytes(name) {
  const b = unwrapLzs(shared(`ff7-disc/${name}.DAT`));
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const base = 0x80114fe4;
  const c = dv.getUint32(12, true) - base;
  const t = dv.getUint32(16, true) - base;
  const r = [...Array(9)].map((_, i) => dv.getInt16(c + 2 * i, true) / 4096);
  const tr = [0, 1, 2].map(k => dv.getInt32(c + 0x14 + 4 * k, true));
  const h = dv.getUint16(c + 0x24, true);
  const frame = [0, 1, 2, 3].map(k => dv.getInt16(t + 0x0c + 2 * k, true));
  // Field point → pixels from the projection centre (y down).
  const project = p => {
    const v = [0, 1, 2].map(i => r[3 * i] * p[0] + r[3 * i + 1] * p[1] + r[3 * i + 2] * p[2] + tr[i]);
    return [(h * v[0]) / v[2], (h * v[1]) / v[2]];
  };
  return { h, frame, project };
}

test("a field seen through its game camera: its background on the picture's frame, its models where the camera puts them, and the link keeps it", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  const path = `${root}/FIELD/NMKIN_1.DAT`;
  await page.evaluate(p => window.relicview.open(p), path);
  const game = await page.evaluate(() => window.relicview.gameCamera());
  assert.equal(game.background, true, JSON.stringify(game));
  const { h, frame, project } = cameraFromBytes('NMKIN_1');
  assert.deepEqual(game.frame, frame);
  assert.equal(game.projection, h);
  const options = await page.locator('#camera-select option').evaluateAll(os => os.map(o => o.value));
  assert.ok(options.includes('game'), options.join());
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  await page.evaluate(() => window.relicview.setCamera('game'));
  assert.equal(await page.evaluate(() => window.relicview.cameraMode()), 'game');
  // Every layer of the scene off but the background's: the background alone, against the
  // picture relicview export writes (itself checked pixel for pixel against a compositor of
  // the tests, tests/field_background.rs).
  const names = (await page.evaluate(() => window.relicview.layers()))
    .filter(l => l.tiles === 0)
    .map(l => l.name);
  await page.evaluate(n => window.relicview.setLayers(Object.fromEntries(n.map(x => [x, false]))), names);
  const bare = await page.evaluate(() => window.relicview.readPixels());
  // Under the tiles drawn among the models, the picture behind is magenta in this field (the
  // artists' key colour, which the composed background never shows): no seam between the
  // cards lets it through.
  let keyed = 0;
  for (let i = 0; i < bare.data.length; i += 4)
    if (bare.data[i] > 200 && bare.data[i + 1] < 60 && bare.data[i + 2] > 200) keyed++;
  assert.equal(keyed, 0, `${keyed} pixels of the key colour show between the cards`);
  // (Written beside the folder: a file more in it would make it another folder to the link.)
  const out = join(scratchDir('bg'), 'NMKIN_1.png');
  relicview('export', '--background', '-o', out, join(dir, 'FIELD/NMKIN_1.DAT'));
  const png = PNG.sync.read(readFileSync(out));
  const { width: W, height: H } = bare;
  const aspect = W / H;
  const [x0, y0, x1, y1] = frame;
  const t = Math.max(Math.max(-y0, y1) / h, Math.max(-x0, x1) / h / aspect);
  // Picture point (pixels from the projection centre) → canvas pixel, and back.
  const canvas = ([px, py]) => [W / 2 + (px / (h * t * aspect)) * (W / 2), H / 2 + (py / (h * t)) * (H / 2)];
  const picture = ([cx, cy]) => [((cx - W / 2) / (W / 2)) * h * t * aspect, ((cy - H / 2) / (H / 2)) * h * t];
  // Canvas pixels inside the frame, each the picture's pixel under its centre (or a
  // neighbour's: the view may be smaller than the picture).
  const [left, top] = canvas([x0, y0]).map(Math.ceil);
  const [right, bottom] = canvas([x1, y1]).map(Math.floor);
  let same = 0;
  let sampled = 0;
  for (let cy = top + 1; cy < bottom - 1; cy += 7) {
    for (let cx = left + 1; cx < right - 1; cx += 7) {
      const [px, py] = picture([cx + 0.5, cy + 0.5]).map(Math.floor);
      const at = 4 * (cy * W + cx);
      sampled++;
      const near = [-1, 0, 1].flatMap(dy =>
        [-1, 0, 1].map(dx => 4 * ((py - y0 + dy) * png.width + (px - x0 + dx))),
      );
      if (near.some(want => [0, 1, 2].every(k => Math.abs(bare.data[at + k] - png.data[want + k]) <= 2)))
        same++;
    }
  }
  assert.ok(same > sampled * 0.97, `${same} of ${sampled} samples are the picture's`);
  // With the models: each model shown lands where the field's camera projects its place.
  await page.evaluate(
    n => window.relicview.setLayers(Object.fromEntries(n.map(x => [x, true]))),
    names.filter(n => n !== 'hidden by the game' && !n.startsWith('walkmesh') && n !== 'gateways'),
  );
  const dressed = await page.evaluate(() => window.relicview.readPixels());
  const models = nativeInfo(join(dir, 'FIELD/NMKIN_1.DAT')).field.models.filter(m => m.visible && m.position);
  assert.ok(models.length > 0);
  for (const m of models) {
    // The model stands on its place: its feet there, its body above (up the picture).
    const [cx, cy] = canvas(project(m.position)).map(Math.round);
    let changed = 0;
    for (let dy = -40; dy <= 4; dy++)
      for (let dx = -12; dx <= 12; dx++) {
        const at = 4 * ((cy + dy) * W + cx + dx);
        if ([0, 1, 2].some(k => Math.abs(dressed.data[at + k] - bare.data[at + k]) > 8)) changed++;
      }
    assert.ok(changed > 20, `${m.entity}: ${changed} pixels changed around (${cx}, ${cy})`);
  }
  // A pick on a model names its actor: the record it selects is its model slot's, which says
  // which actor the script binds there (the nearest pixel of it above its feet that picks).
  const chunks = await page.evaluate(() => window.relicview.inspector.view().chunks);
  let named = 0;
  for (const m of models) {
    const [cx, cy] = canvas(project(m.position)).map(Math.round);
    for (let dy = 4; dy <= 40; dy += 4) {
      const hit = await page.evaluate(([x, y]) => window.relicview.pick(x, y), [cx, cy - dy]);
      const chunk = hit && chunks.find(c => c.index === hit.source);
      if (chunk?.name !== 'model_slot') continue;
      assert.equal(chunk.label, `model slot ${m.model}`, `${m.entity} at (${cx}, ${cy - dy})`);
      assert.ok(chunk.summary.startsWith(`${m.entity}: `), chunk.summary);
      named++;
      break;
    }
  }
  assert.ok(named >= models.length / 2, `${named} of ${models.length} models picked by name`);
  // A drag leaves the game's camera for orbiting; the link of the game's view brings it back.
  await page.evaluate(() => window.relicview.setCamera('game'));
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /mode=game/);
  const box = await page.locator('#viewport').boundingBox();
  await page.mouse.move(box.x + 300, box.y + 300);
  await page.mouse.down();
  await page.mouse.move(box.x + 340, box.y + 310, { steps: 4 });
  await page.mouse.up();
  assert.equal(await page.evaluate(() => window.relicview.cameraMode()), 'orbit');
  assert.equal(await page.locator('#camera-select').inputValue(), 'orbit');
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(() => window.relicview.cameraMode() === 'game');
  assert.equal(await fresh.locator('#camera-select').inputValue(), 'game');
  await fresh.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a capture through a field's game camera is the view at its size: the background and the models where they are; a turntable is refused there", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  await page.evaluate(p => window.relicview.open(p), `${root}/FIELD/NMKIN_1.DAT`);
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  await page.evaluate(() => window.relicview.setCamera('game'));
  const view = await page.evaluate(() => window.relicview.readPixels());
  const [download, made] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate(() => window.relicview.capture({ kind: 'still', scale: 2 })),
  ]);
  assert.equal(download.suggestedFilename(), 'NMKIN_1_game-camera_2x.png');
  const png = PNG.sync.read(readFileSync(await download.path()));
  assert.deepEqual([png.width, png.height, made.width], [view.width * 2, view.height * 2, view.width * 2]);
  // Each view pixel against the mean of its 2 × 2 block: the same picture, drawn finer.
  let same = 0;
  for (let y = 0; y < view.height; y++)
    for (let x = 0; x < view.width; x++) {
      const i = 4 * (y * view.width + x);
      const close = [0, 1, 2].every(k => {
        let sum = 0;
        for (const [dx, dy] of [
          [0, 0],
          [1, 0],
          [0, 1],
          [1, 1],
        ])
          sum += png.data[4 * ((2 * y + dy) * png.width + 2 * x + dx) + k];
        return Math.abs(sum / 4 - view.data[i + k]) <= 24;
      });
      if (close) same++;
    }
  const total = view.width * view.height;
  // (93 % here: the picture behind, sampled twice as finely, differs at its texels' edges.)
  assert.ok(same > total * 0.85, `${same} of ${total} pixels as the view draws them`);
  const why = await page.evaluate(() =>
    window.relicview.capture({ kind: 'turntable', format: 'frames' }).then(
      () => 'made',
      e => e.message,
    ),
  );
  assert.match(why, /game's camera/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("each layer of a field's background is a switch: hidden in the pane, the picture through the game camera loses it, and the link keeps it", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  await page.evaluate(p => window.relicview.open(p), `${root}/FIELD/NMKIN_1.DAT`);
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  await page.evaluate(() => window.relicview.setCamera('game'));
  const layers = await page.evaluate(() => window.relicview.layers());
  const background = layers.filter(l => l.tiles > 0).map(l => l.name);
  assert.ok(background.includes('background layer 1'), JSON.stringify(layers));
  assert.ok(
    background.every(n => /^background layer [1-4]$/.test(n)),
    background.join(),
  );
  // The models, the walkmesh and the gateways off: the picture alone.
  await page.evaluate(
    n => window.relicview.setLayers(Object.fromEntries(n.map(x => [x, false]))),
    layers.filter(l => l.tiles === 0).map(l => l.name),
  );
  const whole = await page.evaluate(() => window.relicview.readPixels());
  const differing = (a, b) => {
    let n = 0;
    for (let i = 0; i < a.data.length; i += 4)
      if ([0, 1, 2].some(k => Math.abs(a.data[i + k] - b.data[i + k]) > 2)) n++;
    return n;
  };
  // The pane's switch, as a person clicks it: layer 1 (the bulk of a field's picture) goes.
  const box = page.locator('#layers input[data-layer="background layer 1"]');
  assert.equal(await box.isChecked(), true);
  await box.click();
  await page.waitForFunction(
    () => !window.relicview.layers().find(l => l.name === 'background layer 1')?.shown,
  );
  await page.evaluate(() => window.relicview.setLayers({}));
  const without = await page.evaluate(() => window.relicview.readPixels());
  const pixels = whole.data.length / 4;
  assert.ok(differing(whole, without) > pixels * 0.1, `${differing(whole, without)} of ${pixels} changed`);
  // The link hides it again in a fresh page.
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /hide=[^&]*background(\+|%20)layer(\+|%20)1/);
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(() => window.relicview.cameraMode() === 'game');
  const restored = await fresh.evaluate(() => window.relicview.layers());
  assert.equal(restored.find(l => l.name === 'background layer 1')?.shown, false);
  assert.equal(restored.find(l => l.name === 'background layer 3')?.shown ?? true, true);
  await fresh.close();
  // Every layer of the picture off: nothing of it is drawn, only the view's own backdrop.
  await page.evaluate(
    n => window.relicview.setLayers(Object.fromEntries(n.map(x => [x, false]))),
    background,
  );
  const none = await page.evaluate(() => window.relicview.readPixels());
  const colours = new Set();
  for (let i = 0; i < none.data.length; i += 4 * 97) colours.add(none.data.slice(i, i + 3).join());
  assert.ok(colours.size <= 3, `${colours.size} colours left: ${[...colours].slice(0, 5).join(' ')}`);
  // And all on again: the picture as composed, pixel for pixel.
  await page.evaluate(n => window.relicview.setLayers(Object.fromEntries(n.map(x => [x, true]))), background);
  const again = await page.evaluate(() => window.relicview.readPixels());
  assert.equal(differing(whole, again), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test(
  "a field's glTF: the Khronos validator finds no error, and Blender imports the walkmesh, each model where its script puts it, the gateways by name and the game's camera",
  { timeout: 600_000 },
  async () => {
    const folder = scratchDir('field-glb');
    relicview('export', join(dir, 'FIELD/NMKIN_1.DAT'), '--root', dir, '-o', join(folder, 'NMKIN_1.glb'));
    const glb = readFileSync(join(folder, 'NMKIN_1.glb'));
    const report = await validator.validateBytes(new Uint8Array(glb), { maxIssues: 100 });
    assert.equal(report.issues.numErrors, 0, JSON.stringify(report.issues.messages.slice(0, 5)));
    const imported = blenderImports(folder, {
      each: `    import mathutils
    for o in bpy.context.scene.objects:
        m = o.matrix_world
        entry[o.name] = {'type': o.type, 'at': list(m.translation), 'polygons': len(o.data.polygons) if o.type == 'MESH' else 0,
                         'ahead': list(m.to_3x3() @ mathutils.Vector((0, 0, -1))) if o.type == 'CAMERA' else None}`,
    })['NMKIN_1.glb'];
    // Blender turns glTF's y up into its z up: the field's own axes (its z is up), so its
    // numbers are the field's, as info --json gives them.
    const field = nativeInfo(join(dir, 'FIELD/NMKIN_1.DAT')).field;
    const close = (a, b, tol) => a.every((x, i) => Math.abs(x - b[i]) <= tol);
    const camera = imported['game camera'];
    assert.equal(camera?.type, 'CAMERA', Object.keys(imported).join(', '));
    assert.ok(close(camera.at, field.camera.position, 0.5), `${camera.at} vs ${field.camera.position}`);
    assert.ok(close(camera.ahead, field.camera.axis, 1e-3), `${camera.ahead} vs ${field.camera.axis}`);
    const placed = field.models.filter(m => m.position);
    assert.ok(placed.length >= 5);
    for (const m of placed) {
      const o = imported[`${m.entity} (model ${m.model})`];
      // The model's root 10 units below its place, as the engine draws it.
      const want = [m.position[0], m.position[1], m.position[2] - 10];
      assert.ok(o && close(o.at, want, 0.5), `${m.entity}: ${o?.at} vs ${want}`);
    }
    const { triangles, maps } = fromBytes('NMKIN_1');
    assert.equal(imported.walkmesh.polygons, triangles);
    for (const map of maps)
      assert.equal(imported[`gateway to map ${map}`]?.type, 'MESH', `gateway to map ${map}`);
  },
);

// Where the party leader arrives in field `into` coming from field `from`, from the bytes:
// `into`'s map id (FIELD.BIN's table, 24 bytes an id at 0x3A5B8, holds each field's .DAT
// and .MIM sizes as the disc stores them), the MAPJUMPs to it in `from`'s script section
// (`60 map:u16 x:s16 y:s16 triangle:u16 direction:u8`, found as runs of bytes of that shape),
// and z on the plane of the arrival's triangle of `into`'s walkmesh.
function arrivalFromBytes(from, into) {
  const bin = shared('ff7/FIELD.BIN_u');
  const size = f => shared(`ff7-disc/${f}`).length;
  const ids = [];
  for (let id = 0; id < 787; id++) {
    const at = 0x3a5b8 + 24 * id;
    if (bin.readUInt32LE(at + 4) === size(`${into}.DAT`) && bin.readUInt32LE(at + 12) === size(`${into}.MIM`))
      ids.push(id);
  }
  assert.equal(ids.length, 1, `${into}: map ids ${ids}`);
  const base = 0x80114fe4;
  const b = Buffer.from(unwrapLzs(shared(`ff7-disc/${from}.DAT`)));
  const jumps = [];
  for (let at = b.readUInt32LE(0) - base; at < b.readUInt32LE(4) - base - 10; at++)
    if (b[at] === 0x60 && b.readUInt16LE(at + 1) === ids[0])
      jumps.push({
        x: b.readInt16LE(at + 3),
        y: b.readInt16LE(at + 5),
        triangle: b.readUInt16LE(at + 7),
        direction: b[at + 9],
      });
  assert.equal(jumps.length, 1, JSON.stringify(jumps));
  const { x, y, triangle, direction } = jumps[0];
  const w = Buffer.from(unwrapLzs(shared(`ff7-disc/${into}.DAT`)));
  const corner = k => {
    const at = w.readUInt32LE(4) - base + 4 + 24 * triangle + 8 * k;
    return [w.readInt16LE(at), w.readInt16LE(at + 2), w.readInt16LE(at + 4)];
  };
  const [a, p, q] = [0, 1, 2].map(corner);
  const u = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
  const v = [q[0] - a[0], q[1] - a[1], q[2] - a[2]];
  const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const z = a[2] - (n[0] * (x - a[0]) + n[1] * (y - a[1])) / n[2];
  return { position: [x, y, z], direction };
}

test("a field's party leader comes in where the field that leads here puts it: the entrance picker, the info pane, the link", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  // The fields that lead here are found by their sizes, which a picked folder's files give
  // up in the background.
  await page.waitForFunction(() => window.relicview.indexTimeline()?.sized);
  await page.evaluate(p => window.relicview.open(p), `${root}/FIELD/NMKIN_1.DAT`);
  const choice = await page.evaluate(() => window.relicview.choice());
  assert.deepEqual(choice, { name: 'entrance', options: ['from ELEVTR1 (MAPJUMP)'], selected: 0 });
  assert.equal(await page.locator('#choice-label').isVisible(), true);
  assert.equal(await page.locator('#choice-name').textContent(), 'entrance');
  assert.match(await page.locator('#info-body').textContent(), /entrances.*from ELEVTR1 \(MAPJUMP\)/s);
  // Cloud, the party's head with every variable 0, stands there: the model's root is 10
  // units under its place, and the field's z is the view's y (field (x, y, z) is (x, z, −y)).
  const { position } = arrivalFromBytes('ELEVTR1', 'NMKIN_1');
  const cloud = nativeInfo(join(dir, 'FIELD/NMKIN_1.DAT')).field.models.find(m => m.character === 'Cloud');
  const node = `${cloud.entity} (model ${cloud.model})`;
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  const at = await page.evaluate(n => window.relicview.nodePosition(n), node);
  const want = [position[0], position[2] - 10, -position[1]];
  assert.ok(
    at?.every((c, k) => Math.abs(c - want[k]) < 1.5),
    `${node} at ${JSON.stringify(at)}, the entrance at ${JSON.stringify(want)}`,
  );
  // A fresh page from the link puts it there again.
  const link = await page.evaluate(() => window.relicview.permalink());
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(() => window.relicview.choice()?.name === 'entrance');
  await fresh.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  assert.deepEqual(await fresh.evaluate(n => window.relicview.nodePosition(n), node), at);
  await fresh.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a story moment set in the page: the field opens again with the init's other branches taken, and the link keeps it", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  const path = `${root}/FIELD/MD1_1.DAT`;
  await page.evaluate(p => window.relicview.open(p), path);
  assert.equal(await page.locator('#state-label').isVisible(), true);
  const hiddenNodes = () =>
    page.evaluate(() => window.relicview.layers().find(l => l.name === 'hidden by the game')?.nodes ?? 0);
  const before = await hiddenNodes();
  // What relicview info says of the same moment: more of the station's people hidden.
  const native = nativeInfo(join(dir, 'FIELD/MD1_1.DAT'));
  const later = JSON.parse(relicview('info', '--json', '--set', '2:0=7', join(dir, 'FIELD/MD1_1.DAT')));
  const hiddenIn = info => info.field.models.filter(m => !m.visible).length;
  assert.ok(hiddenIn(later) > hiddenIn(native));
  // Typed in the toolbar's field, as a person does.
  await page.locator('#state-input').fill('2:0=7');
  await page.locator('#state-input').press('Enter');
  await page.waitForFunction(b => {
    const l = window.relicview.layers().find(x => x.name === 'hidden by the game');
    return l && l.nodes > b;
  }, before);
  assert.equal(await page.evaluate(() => window.relicview.gameState()), '2:0=7');
  // The info pane (filled once the frame is drawn) names the state.
  await page.waitForFunction(() =>
    /2:0=7, every other variable 0/.test(document.getElementById('info-body')?.textContent ?? ''),
  );
  // Text that does not read is refused, the state kept.
  await assert.rejects(
    page.evaluate(() => window.relicview.setGameState('9:0=1')),
    /BANK:ADDRESS=VALUE/,
  );
  assert.equal(await page.evaluate(() => window.relicview.gameState()), '2:0=7');
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /state=2%3A0%3D7/);
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(
    () => window.relicview.gameState() === '2:0=7' && window.relicview.stats().triangles > 0,
  );
  const again = await fresh.evaluate(
    () => window.relicview.layers().find(l => l.name === 'hidden by the game')?.nodes,
  );
  assert.ok(again > before, `${again} hidden nodes after the link, ${before} at 0`);
  assert.equal(await fresh.locator('#state-input').inputValue(), '2:0=7');
  await fresh.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a field's .MIM alone shows its blocks one under another, and a click on a block selects that block's bytes", async () => {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  const root = dir.split('/').pop();
  await loadFolder(page, dir, walk(dir).length);
  await page.evaluate(p => window.relicview.open(p), `${root}/FIELD/NMKIN_1.MIM`);
  await page.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  // The blocks, read here from the unpacked bytes (docs/formats/mim.md): a u32 size, x, y,
  // width in halfwords and height, then the halfwords; the next block at the size, rounded
  // down to a word.
  const mim = Buffer.from(unwrapLzs(shared('ff7-disc/NMKIN_1.MIM')));
  const blocks = [];
  for (let at = 0; at + 12 <= mim.length;) {
    const size = mim.readUInt32LE(at);
    if (size === 0) break;
    const [width, height] = [mim.readUInt16LE(at + 8), mim.readUInt16LE(at + 10)];
    blocks.push([at, at + 12 + 2 * width * height]);
    at += size & ~3;
  }
  const flat = await page.evaluate(() => window.relicview.flatView());
  assert.equal(flat.regions, blocks.length, `a region per block: ${JSON.stringify(blocks)}`);
  const box = await page.locator('#picture-canvas').boundingBox();
  const o = { x: (box.width - flat.width * flat.zoom) / 2, y: (box.height - flat.height * flat.zoom) / 2 };
  // The first block's region is at the sheet's top, the last's at its bottom.
  for (const [k, ty] of [
    [0, 0.5],
    [blocks.length - 1, flat.height - 0.5],
  ]) {
    const [x, y] = [o.x + 0.5 * flat.zoom, o.y + ty * flat.zoom];
    const t = await page.evaluate(([x, y]) => window.relicview.pictureAt(x, y), [x, y]);
    assert.ok(t?.region, `a region under (${x}, ${y})`);
    await page.mouse.click(box.x + x, box.y + y);
    const sel = await page.evaluate(() => window.relicview.inspector.selection());
    assert.deepEqual([sel.start, sel.end], blocks[k], `block ${k}: ${t.region.label}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
