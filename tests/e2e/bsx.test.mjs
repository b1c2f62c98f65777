// FF7 field models in the page: a real model, LZS-wrapped as on the disc, from a dropped
// folder: drawn, animated (the pose changes with the clock), its models and animations to
// choose from, the container's bytes one view away, and an export GLTFLoader plays with the
// viewer's bone positions.

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
  repo,
  walk,
  withThree,
  lzsLiterals,
  loadFolder,
} from './harness.mjs';
import { scratchDir } from './scratch.mjs';

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  mkdirSync(join(dir, 'FF7'), { recursive: true });
  // MD1_1: seven models, four with skeletons of their own, animations, two VRAM rectangles.
  writeFileSync(
    join(dir, 'FF7/MD1_1.BSX'),
    lzsLiterals(readFileSync(join(repo, '../shared/testdata/ff7/MD1_1_u.BSX'))),
  );
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

async function withFolder() {
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, dir, walk(dir).length);
  return { page, problems };
}

test('a real field model, LZS-wrapped, draws its models and plays their animations', async () => {
  const { page, problems } = await withFolder();
  const native = nativeInfo(join(dir, 'FF7/MD1_1.BSX'));
  assert.equal(native.compressed, true);
  assert.equal(await page.evaluate(() => window.relicview.entry('GAME/FF7/MD1_1.BSX').kind), 'bsx');
  const opened = await page.evaluate(() => window.relicview.open('GAME/FF7/MD1_1.BSX'));
  // Model 0 is Cloud: this field's record adds nothing, the folder's CLOUD.BCX (the demo's
  // stand-in, the only one) brings the figure. It is the first model drawn, on show.
  const bcx = nativeInfo(join(dir, 'DEMO/FIELD/CLOUD.BCX'));
  assert.deepEqual([native.models[0].character, native.models[0].triangles], [1, 0]);
  assert.equal(opened.triangles, bcx.models[0].triangles);
  const choice = await page.evaluate(() => window.relicview.choice());
  // Cloud's first clip is his stand (a character's BCX clips are stand, walk and run).
  assert.equal(choice.options[choice.selected], 'model 0: animation 0, stand (1 frame)');
  assert.equal(choice.options[0], 'model 0 (CLOUD.BCX)');
  // Model 1 is Barret, whose BALLET.BCX is not here: nothing to draw.
  assert.equal(
    choice.options.find(o => o.startsWith('model 1')),
    'model 1 (BALLET.BCX is not here: nothing of its own)',
  );
  // The first model with parts of its own, standing.
  const first = native.models.findIndex(m => m.parts > 0);
  const standing = await page.evaluate(
    k => window.relicview.choose(k),
    choice.options.indexOf(`model ${first}: animation 0 (1 frame)`),
  );
  assert.equal(standing.triangles, native.models[first].triangles);
  assert.ok(
    (await page.evaluate(() => window.relicview.pixelStats())).nonBackground > 500,
    'the figure is drawn',
  );
  // Animation 0 is a one-frame standing pose; animation 1 walks. Its pose changes with the
  // clock: a bone is elsewhere half a second later.
  const walk1 = choice.options.indexOf(`model ${first}: animation 1 (30 frames)`);
  assert.ok(walk1 > 0, choice.options.join(' | '));
  await page.evaluate(k => window.relicview.choose(k), walk1);
  const bone = async t => {
    await page.evaluate(s => window.relicview.setClock({ time: s, playing: false }), t);
    return page.evaluate(() => window.relicview.nodePosition('bone 5'));
  };
  const a = await bone(0);
  const b = await bone(0.5);
  assert.ok(Math.hypot(...a.map((x, i) => x - b[i])) > 1e-3, `bone 5 moves: ${a} → ${b}`);
  const p0 = await page.evaluate(() => window.relicview.readPixels().data);
  await bone(1.0);
  const p1 = await page.evaluate(() => window.relicview.readPixels().data);
  let changed = 0;
  for (let i = 0; i < p0.length; i += 4) if (Math.abs(p0[i] - p1[i]) > 8) changed++;
  assert.ok(changed > 20, `${changed} pixels change as it moves`);
  // Another model, chosen from the picker: its own triangles.
  const other = native.models.findIndex((m, k) => k > first && m.parts > 0);
  const label = (await page.evaluate(() => window.relicview.choice())).options.indexOf(`model ${other}`);
  const chosen = await page.evaluate(k => window.relicview.choose(k), label);
  assert.equal(chosen.triangles, native.models[other].triangles);
  assert.equal(await page.locator('#choice-select').inputValue(), String(label));
  // The hex view shows the decompressed bytes; the container is one view away.
  const views = await page.evaluate(() => window.relicview.inspector.view().views);
  assert.deepEqual(
    views.map(v => v.label),
    ['decompressed', 'container'],
  );
  assert.equal(views[0].len, native.decompressed_bytes);
  // The inspector names the structures, picking a polygon in 3D finds its record.
  const names = await page.evaluate(() => [
    ...new Set(window.relicview.inspector.view().chunks.map(c => c.name)),
  ]);
  for (const n of [
    'header',
    'part data',
    'vertices',
    'polygon',
    'quad_color',
    'animation data',
    'rotation frames',
    'models',
    'model',
    'bones',
    'part',
    'textures',
    'vram',
  ])
    assert.ok(names.includes(n), `${n} in ${names}`);
  // A click on the figure selects the polygon it hit: its own record in the tree (under its
  // kind), its bytes in the hex view.
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  const canvas = await page.locator('#viewport').boundingBox();
  let spot = null;
  for (let dy = 0; dy < 0.3 && !spot; dy += 0.05) {
    const [x, y] = [canvas.x + canvas.width / 2, canvas.y + canvas.height * (0.5 - dy)];
    const hit = await page.evaluate(
      ([x, y]) => {
        const c = document.getElementById('viewport');
        const r = c.getBoundingClientRect();
        return window.relicview.pick(((x - r.left) * c.width) / r.width, ((y - r.top) * c.height) / r.height);
      },
      [x, y],
    );
    if (hit) spot = { x, y, hit };
  }
  assert.ok(spot, 'the figure is under the middle of the view');
  await page.mouse.click(spot.x, spot.y);
  const sel = await page.evaluate(() => window.relicview.inspector.selection());
  const view = await page.evaluate(() => window.relicview.inspector.view());
  const record = view.chunks[sel.chunk];
  assert.equal(record.name, 'polygon', JSON.stringify(record));
  assert.equal(view.chunks[record.parent].name, record.polygon.kind, 'under its kind');
  assert.deepEqual([sel.start, sel.end], [record.offset, record.end], "the record's bytes");
  assert.equal(await page.locator('#hex .b.sel').count(), sel.end - sel.start);
  assert.equal(
    await page.locator('#chunk-tree [aria-selected="true"]').getAttribute('data-chunk'),
    String(sel.chunk),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('the demo robot shows its textured face, a skeleton overlay, and survives a permalink', async () => {
  const { page, problems } = await withFolder();
  await page.evaluate(() => window.relicview.open('GAME/DEMO/FIELD/ROBOT.BSX'));
  await page.evaluate(() => window.relicview.setOptions({ skeleton: true }));
  assert.equal(await page.locator('#opt-skeleton').isChecked(), true);
  const stats = await page.evaluate(() => window.relicview.stats());
  // The timeline steps by the animation's frames.
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  await page.locator('#step-forward').click();
  const t = await page.evaluate(() => window.relicview.clock().time);
  assert.ok(Math.abs(t - 1 / 30) < 1e-6, `one frame is 1/30 s: ${t}`);
  // The nod (option 2), paused at frame 5, skeleton on: a link brings it back.
  await page.evaluate(() => window.relicview.choose(2));
  await page.evaluate(() => window.relicview.setClock({ time: 5 / 30, playing: false }));
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /choice=2/);
  assert.match(link, /skeleton=1/);
  const head = await page.evaluate(() => window.relicview.nodePosition('bone 2'));
  // The link names the local folder: a fresh page asks for it and restores the view once
  // the same folder is picked.
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.locator('#folder-input').setInputFiles(dir);
  await fresh.waitForFunction(
    () => window.relicview.stats().choice === 2 && !window.relicview.clock().playing,
  );
  const clock = await fresh.evaluate(() => window.relicview.clock());
  assert.ok(Math.abs(clock.time - 5 / 30) < 1e-4, JSON.stringify(clock));
  assert.equal(await fresh.locator('#opt-skeleton').isChecked(), true);
  const again = await fresh.evaluate(() => window.relicview.nodePosition('bone 2'));
  assert.ok(Math.hypot(...head.map((x, i) => x - again[i])) < 1e-4, `${head} vs ${again}`);
  await fresh.close();
  assert.ok(stats.triangles > 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a field model exports with its textures and animations: GLTFLoader plays the clip where the viewer poses it', async () => {
  const { page, problems } = await withFolder();
  await withThree(page);
  await page.evaluate(() => window.relicview.open('GAME/DEMO/FIELD/ROBOT.BSX'));
  await page.evaluate(() => window.relicview.setClock({ time: 6 / 30, playing: false }));
  const viewer = await page.evaluate(() => window.relicview.nodePosition('bone 3'));
  const hand = await page.evaluate(async () => {
    const THREE = await import('/__three/build/three.module.js');
    const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
    const glb = await window.relicview.exportGlb();
    const gltf = await new GLTFLoader().parseAsync(
      glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
      '',
    );
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const clip = gltf.animations.find(a => a.name === 'model 0 animation 0');
    mixer.clipAction(clip).play();
    mixer.setTime(6 / 30);
    gltf.scene.updateMatrixWorld(true);
    const p = new THREE.Vector3();
    gltf.scene.getObjectByName(THREE.PropertyBinding.sanitizeNodeName('bone 3')).getWorldPosition(p);
    let textured = 0;
    gltf.scene.traverse(o => {
      if (o.isMesh && o.material.map) textured++;
    });
    return {
      p: [p.x, p.y, p.z],
      animations: gltf.animations.map(a => a.name),
      textured,
      filter: gltf.scene.getObjectByProperty('isMesh', true) && true,
    };
  });
  assert.ok(hand.animations.includes('model 0 animation 1'), hand.animations.join(', '));
  assert.ok(hand.textured > 0, 'the face texture comes along');
  assert.ok(
    Math.hypot(...viewer.map((x, i) => x - hand.p[i])) < 1e-3,
    `viewer ${viewer} vs GLTFLoader ${hand.p}`,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

/// A folder of its own: FF7/MD1_1.BSX, and FIELD.TDB beside it when `faces`.
function fieldFolder(faces) {
  const own = scratchDir('ff7');
  mkdirSync(join(own, 'FIELD'));
  writeFileSync(
    join(own, 'FIELD/MD1_1.BSX'),
    lzsLiterals(readFileSync(join(repo, '../shared/testdata/ff7/MD1_1_u.BSX'))),
  );
  if (faces)
    writeFileSync(
      join(own, 'FIELD/FIELD.TDB'),
      lzsLiterals(readFileSync(join(repo, '../shared/testdata/ff7/FIELD.TDB_u'))),
    );
  return own;
}

test('with FIELD.TDB in the folder a real NPC gets its eyes and mouth; without it they are grey and the panel says why', async () => {
  const frames = {};
  for (const faces of [false, true]) {
    const own = fieldFolder(faces);
    const { page, problems } = await newPage(browser, server.url + '#folder=none');
    await loadFolder(page, own, faces ? 2 : 1);
    const root = (await page.evaluate(() => window.relicview.shownFiles(1)[0])).split('/')[0];
    await page.evaluate(p => window.relicview.open(p), `${root}/FIELD/MD1_1.BSX`);
    await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
    await page.evaluate(() => window.relicview.axisView('front'));
    frames[faces] = (await page.evaluate(() => window.relicview.readPixels())).data;
    const info = await page.locator('#info-body').textContent();
    if (faces) assert.match(info, new RegExp(`eyes and mouths\\s*from ${root}/FIELD/FIELD\\.TDB`));
    else assert.match(info, /FIELD\.TDB is not in the archive: drawn grey/);
    if (faces) {
      assert.equal(
        await page.evaluate(p => window.relicview.entry(p).kind, `${root}/FIELD/FIELD.TDB`),
        'tdb',
      );
      // FIELD.TDB opened alone: its 127 images in a grid of 16 columns, in the picture view.
      await page.locator(`#file-list li[data-path="${root}/FIELD/FIELD.TDB"]`).click();
      await page.waitForFunction(p => window.relicview.lastOpen()?.path === p, `${root}/FIELD/FIELD.TDB`);
      const sheet = await page.evaluate(() => {
        const f = window.relicview.flatView();
        const box = document.getElementById('picture-canvas').getBoundingClientRect();
        const [x0, y0] = [(box.width - f.width * f.zoom) / 2, (box.height - f.height * f.zoom) / 2];
        // Cells with something drawn: 5 × 5 samples of each of the 32 × 32 images.
        const cells = new Set();
        for (let ty = 3; ty < f.height; ty += 6)
          for (let tx = 3; tx < f.width; tx += 6) {
            const t = window.relicview.pictureAt(x0 + (tx + 0.5) * f.zoom, y0 + (ty + 0.5) * f.zoom);
            if (t && t.rgba[3] > 0 && t.region) cells.add(t.region.label);
          }
        return { ...f, drawnCells: cells.size };
      });
      assert.deepEqual([sheet.mode, sheet.width, sheet.height, sheet.regions], ['picture', 512, 256, 127]);
      assert.ok(sheet.drawnCells > 100, `${sheet.drawnCells} of 127 images have eyes or mouths drawn`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
  let changed = 0;
  for (let i = 0; i < frames.true.length; i += 4)
    if (Math.abs(frames.true[i] - frames.false[i]) + Math.abs(frames.true[i + 2] - frames.false[i + 2]) > 30)
      changed++;
  console.log(`# MD1_1 from the front: ${changed} pixels change when FIELD.TDB supplies the eyes and mouths`);
  assert.ok(changed > 15, `${changed} pixels of eyes and mouth differ from the grey stand-ins`);
});

test('a character from its BCX with what the field adds, and a glow that adds light to what is behind it', async () => {
  const { page, problems } = await withFolder();
  const bcx = nativeInfo(join(dir, 'DEMO/FIELD/CLOUD.BCX'));
  const party = nativeInfo(join(dir, 'DEMO/FIELD/PARTY.BSX'));
  assert.equal(bcx.format, 'bcx');
  assert.equal(party.models[0].character, 1);
  const opened = await page.evaluate(() => window.relicview.open('GAME/DEMO/FIELD/PARTY.BSX'));
  assert.equal(
    opened.triangles,
    bcx.models[0].triangles + party.models[0].triangles,
    "the BCX's parts and the field's sword",
  );
  const choice = await page.evaluate(() => window.relicview.choice());
  assert.equal(choice.options[0], 'model 0 (CLOUD.BCX)');
  assert.ok(
    choice.options.includes('model 0: animation 3 (12 frames)'),
    "the field adds a fourth animation after the BCX's three",
  );
  const info = await page.locator('#info-body').textContent();
  assert.match(info, /merged from GAME\/DEMO\/FIELD\/CLOUD\.BCX/);
  assert.match(info, /eyes and mouths\s*from GAME\/DEMO\/FIELD\/FIELD\.TDB/);
  // A click on the character selects what stands for it in this file: the record that
  // brought it (its parts are in the BCX), or the sword's polygons.
  const canvas = await page.locator('#viewport').boundingBox();
  await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  const sel = await page.evaluate(() => window.relicview.inspector.selection());
  const rows = (await page.evaluate(() => window.relicview.inspector.view())).chunks;
  assert.ok(['model', 'polygon'].includes(rows[sel.chunk]?.name), JSON.stringify(sel));
  assert.ok(sel.end > sel.start, 'its bytes are selected');
  // The skeleton overlay adds one draw.
  const plain = await page.evaluate(() => window.relicview.setOptions({ skeleton: false }));
  const bones = await page.evaluate(() => window.relicview.setOptions({ skeleton: true }));
  assert.equal(bones.drawCalls, plain.drawCalls + 1);
  await page.evaluate(() => window.relicview.setOptions({ skeleton: false }));
  // The lamp: its glow's texels all blend by B + F, warm light over the background.
  const lamp = await page.evaluate(() =>
    window.relicview.choose(window.relicview.choice().options.indexOf('model 1')),
  );
  assert.equal(lamp.triangles, party.models[1].triangles);
  const bg = (await page.evaluate(() => window.relicview.pixelStats())).background;
  const { data } = await page.evaluate(() => window.relicview.readPixels());
  let warm = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] > bg[0] + 40 && data[i] > data[i + 2] + 40) warm++;
  assert.ok(warm > 500, `${warm} pixels of glow`);
  // The BCX alone: the character with its own face, its header and skeleton in the inspector.
  const alone = await page.evaluate(() => window.relicview.open('GAME/DEMO/FIELD/CLOUD.BCX'));
  assert.equal(alone.triangles, bcx.models[0].triangles);
  const names = await page.evaluate(() => [
    ...new Set(window.relicview.inspector.view().chunks.map(c => c.name)),
  ]);
  for (const n of ['header', 'character header', 'bones', 'part', 'animation', 'part data', 'animation data'])
    assert.ok(names.includes(n), `${n} in ${names}`);
  assert.match(
    await page.locator('#info-body').textContent(),
    /eyes and mouths\s*from GAME\/DEMO\/FIELD\/FIELD\.TDB/,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('the skeleton overlay draws bones over the mesh in a colour the model does not have, from every side', async () => {
  const { page, problems } = await withFolder();
  // Magenta as the bones are drawn, shaded by their faces' light (never below 55 %).
  const magenta = async () => {
    const { data } = await page.evaluate(() => window.relicview.readPixels());
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] > 120 && data[i + 2] > 100 && data[i + 1] < 80) n++;
    return n;
  };
  for (const path of ['GAME/FF7/MD1_1.BSX', 'GAME/DEMO/FIELD/ROBOT.BSX', 'GAME/DEMO/FIELD/PARTY.BSX']) {
    await page.evaluate(p => window.relicview.open(p), path);
    assert.equal(await page.evaluate(() => window.relicview.hasSkeleton()), true, path);
    await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
    for (const axis of ['front', 'side', 'top']) {
      await page.evaluate(() => window.relicview.setOptions({ skeleton: false }));
      await page.evaluate(a => window.relicview.axisView(a), axis);
      const without = await magenta();
      await page.evaluate(() => window.relicview.setOptions({ skeleton: true }));
      const withBones = await magenta();
      // The model itself has (almost) none of the colour; the bones add hundreds of pixels.
      console.log(
        `# ${path} from the ${axis}: ${without} magenta pixels without the overlay, ${withBones} with it`,
      );
      assert.ok(without < 50, `${path} ${axis}: ${without} magenta pixels without the overlay`);
      // From above a standing figure's bones are end on: fewer pixels, still there.
      const least = axis === 'top' ? 10 : 300;
      assert.ok(withBones - without > least, `${path} ${axis}: the bones add ${withBones - without} pixels`);
    }
    await page.evaluate(() => window.relicview.setOptions({ skeleton: false }));
  }
  // A part picked in the view: its bone turns from magenta to the highlight's yellow.
  await page.evaluate(() => window.relicview.open('GAME/DEMO/FIELD/ROBOT.BSX'));
  await page.evaluate(() => window.relicview.axisView('front'));
  await page.evaluate(() => window.relicview.setOptions({ skeleton: true }));
  const yellow = async () => {
    const { data } = await page.evaluate(() => window.relicview.readPixels());
    let n = 0;
    for (let i = 0; i < data.length; i += 4)
      if (data[i] > 130 && data[i + 1] > 100 && data[i + 2] < 60 && data[i] > data[i + 1]) n++;
    return n;
  };
  const [bonesBefore, yellowBefore] = [await magenta(), await yellow()];
  const canvas = await page.locator('#viewport').boundingBox();
  await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  await page.waitForFunction(() => window.relicview.highlightedTriangles() > 0);
  await page.evaluate(() => window.relicview.rasterMs());
  const [bonesPicked, yellowPicked] = [await magenta(), await yellow()];
  await page.evaluate(() => window.relicview.setOptions({ skeleton: false }));
  const outlineOnly = await yellow();
  console.log(
    `# ROBOT picked: magenta ${bonesBefore} → ${bonesPicked}; yellow ${yellowBefore} → ${yellowPicked}, ${outlineOnly} of them the outline`,
  );
  assert.ok(bonesPicked < bonesBefore - 20, 'the picked bone is no longer magenta');
  assert.ok(yellowPicked > outlineOnly + 20, 'it is yellow, over the outline');
  assert.deepEqual(problems, []);
  await page.close();
});
