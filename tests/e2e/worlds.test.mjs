// Worlds in the page: the demo arena and city open with their placements instanced, doors
// slide and smoke drifts with the clock, dropzones are viewpoints, the fly camera moves with
// keys, layers hide what they hold, a world view survives a permalink, and the exported .glb
// validates, loads in GLTFLoader and carries the door's slide.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import validator from 'gltf-validator';
import { makeArchive, startServer, launch, newPage, bin, walk, withThree, loadFolder } from './harness.mjs';
import { scratchDir } from './scratch.mjs';

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

const ARENA = 'DEMO/MAPS/ARENA1.MAP';
const CITY = 'DEMO/MAPS/CITY.MAP';

function worldInfo(path) {
  return JSON.parse(
    execFileSync(bin, ['info', '--json', '--root', dir, join(dir, path)], { encoding: 'utf8' }),
  );
}

async function served() {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length > 0);
  return { page, problems };
}

const near = (a, b, eps = 1e-3) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < eps);

test('a world draws all its placements: placements and triangles as the native core counts, draw calls by unique mesh, not by placement', async () => {
  const { page, problems } = await served();
  for (const path of [ARENA, CITY]) {
    const native = worldInfo(path);
    const opened = await page.evaluate(p => window.relicview.open(p), path);
    const stats = await page.evaluate(() => window.relicview.stats());
    assert.equal(stats.placements, native.placements, path);
    assert.equal(opened.triangles, native.triangles, path);
    assert.equal(stats.triangles, native.triangles, path);
    assert.ok(stats.instances >= native.placements, `${path}: ${stats.instances} instances`);
    console.log(
      `# ${path}: ${stats.placements} placements, ${stats.instances} instances, ${stats.triangles} triangles, ${stats.drawCalls} draw calls`,
    );
    assert.ok(
      (await page.evaluate(() => window.relicview.pixelStats())).nonBackground > 5000,
      `${path} is drawn`,
    );
  }
  const city = await page.evaluate(() => window.relicview.stats());
  // 6,400 placements of three models: the draws follow the models, not the placements.
  assert.ok(city.placements === 6400 && city.drawCalls <= 8, `${city.drawCalls} draw calls`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('doors slide by their MotionExtent over TravelTime, dwell, slide back; the smoke texture drifts', async () => {
  const { page, problems } = await served();
  await page.evaluate(p => window.relicview.open(p), ARENA);
  const at = async time => {
    await page.evaluate(t => window.relicview.setClock({ time: t, playing: false }), time);
    return page.evaluate(() => ({
      dr1: window.relicview.nodePosition('dr1'),
      dr2: window.relicview.nodePosition('dr2'),
      smoke: window.relicview.uvOffset('arena:smoke_mtl'),
      pixels: window.relicview.readPixels().data,
    }));
  };
  const shut = await at(0);
  const open = await at(4); // TravelTime 4 s
  const dwell = await at(5); // DeadTime 2 s
  const back = await at(10); // 4 + 2 + 4: shut again
  // The door placement is not turned: the leaves slide along world X, -3 and +3.
  assert.ok(
    near([open.dr1[0] - shut.dr1[0], open.dr1[1] - shut.dr1[1], open.dr1[2] - shut.dr1[2]], [-3, 0, 0]),
    `${shut.dr1} → ${open.dr1}`,
  );
  assert.ok(near([open.dr2[0] - shut.dr2[0], 0, 0], [3, 0, 0]));
  assert.ok(near(dwell.dr1, open.dr1), 'at rest while it dwells');
  assert.ok(near(back.dr1, shut.dr1), 'and back after TravelTime');
  // SCROLL 0 0 0 0.2: v grows 0.2 a second.
  assert.ok(
    near(open.smoke, [0, 0.8], 1e-4) && near(shut.smoke, [0, 0], 1e-4),
    `${shut.smoke} → ${open.smoke}`,
  );
  let changed = 0;
  for (let i = 0; i < shut.pixels.length; i += 4)
    if (Math.abs(shut.pixels[i] - open.pixels[i]) > 8) changed++;
  assert.ok(changed > 20, `${changed} pixels change as the door opens`);
  // The timeline shows for a world that moves, with one door period as its range.
  assert.equal(await page.locator('#timeline').isVisible(), true);
  assert.equal(await page.locator('#scrub').getAttribute('max'), '12');
  await page.locator('#play-button').click();
  const t0 = await page.evaluate(() => window.relicview.clock().time);
  await page.waitForFunction(t => window.relicview.clock().time > t + 0.2, t0);
  await page.evaluate(() => window.relicview.setClock({ speed: 4 }));
  assert.equal((await page.evaluate(() => window.relicview.clock())).speed, 4);
  assert.deepEqual(problems, []);
  await page.close();
});

test('play after a pause goes on from the paused time, not from where the pause would have run to', async () => {
  const { page, problems } = await served();
  await page.evaluate(p => window.relicview.open(p), ARENA);
  await page.evaluate(() => window.relicview.setClock({ time: 8.5, playing: false }));
  const paused = await page.evaluate(() => window.relicview.clock().time);
  // Paused, nothing moves and no frame is drawn; two seconds go by.
  await page.waitForFunction(
    t0 => performance.now() - t0 > 2000,
    await page.evaluate(() => performance.now()),
  );
  assert.equal(await page.evaluate(() => window.relicview.clock().time), paused, 'a paused clock stays');
  // Play through the button, as a user does; the first frames after it are within a frame or two.
  const started = await page.evaluate(() => performance.now());
  await page.locator('#play-button').click();
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const { time, since } = await page.evaluate(
    t0 => ({ time: window.relicview.clock().time, since: (performance.now() - t0) / 1000 }),
    started,
  );
  assert.ok(
    time >= paused && time <= paused + since + 1 / 30,
    `resumed at ${time} s from ${paused} s, ${since.toFixed(3)} s after play: the pause must not be added`,
  );
  // The label counts within the door's 12 s cycle, as the slider does.
  await page.evaluate(() => window.relicview.setClock({ time: 23.16, playing: false }));
  assert.equal(await page.locator('#clock-label').textContent(), '11.16/12.00 s');
  assert.equal(await page.locator('#step-forward').getAttribute('title'), 'One step forward (0.1 s)');
  assert.deepEqual(problems, []);
  await page.close();
});

test('dropzones are red markers and viewpoints: the eye above the dropzone, looking along it', async () => {
  const { page, problems } = await served();
  await page.evaluate(p => window.relicview.open(p), ARENA);
  const points = await page.evaluate(() => window.relicview.viewpoints());
  assert.equal(points.length, 4);
  const cam = await page.evaluate(() => window.relicview.setCamera(1));
  const v = points[1];
  assert.ok(
    near(cam.position, [v.position[0], v.position[1] + 2, v.position[2]]),
    `${cam.position} vs ${v.position}`,
  );
  const dir = cam.target.map((t, i) => t - cam.position[i]);
  const len = Math.hypot(...dir);
  assert.ok(
    near(
      dir.map(d => d / len),
      v.forward,
      1e-3,
    ),
    'looking along the dropzone',
  );
  // Each dropzone faces the arena's centre.
  assert.ok(v.forward[0] * -v.position[0] + v.forward[2] * -v.position[2] > 0);
  assert.equal(await page.locator('#camera-select').inputValue(), 'view:1');
  // Red pyramids are drawn: from above, red pixels.
  await page.evaluate(() => window.relicview.axisView('top'));
  const px = await page.evaluate(() => window.relicview.readPixels().data);
  let red = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i] > 180 && px[i + 1] < 80 && px[i + 2] < 80) red++;
  assert.ok(red > 4, `${red} red pixels of dropzone markers`);
  await page.evaluate(() => window.relicview.setLayers({ dropzones: false }));
  const px2 = await page.evaluate(() => window.relicview.readPixels().data);
  let red2 = 0;
  for (let i = 0; i < px2.length; i += 4) if (px2[i] > 180 && px2[i + 1] < 80 && px2[i + 2] < 80) red2++;
  assert.ok(red2 < red, 'hiding the layer hides the markers');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the fly camera moves with W A S D and turns with a drag', async () => {
  const { page, problems } = await served();
  await page.evaluate(p => window.relicview.open(p), ARENA);
  await page.evaluate(() => window.relicview.setCamera(0));
  const before = await page.evaluate(() => window.relicview.camera());
  const canvas = page.locator('#viewport');
  await canvas.focus();
  await page.keyboard.down('KeyW');
  await page.waitForFunction(
    p => Math.hypot(...window.relicview.camera().position.map((x, i) => x - p[i])) > 1,
    before.position,
  );
  await page.keyboard.up('KeyW');
  const after = await page.evaluate(() => window.relicview.camera());
  const moved = after.position.map((x, i) => x - before.position[i]);
  const forward = before.target.map((t, i) => t - before.position[i]);
  const cos =
    moved.reduce((s, m, i) => s + m * forward[i], 0) / (Math.hypot(...moved) * Math.hypot(...forward));
  assert.ok(cos > 0.99, `W moves forward (cos ${cos})`);
  assert.equal(await page.evaluate(() => window.relicview.cameraMode()), 'fly');
  assert.equal(await page.locator('#camera-select').inputValue(), 'fly', 'moving leaves the dropzone view');
  // A drag turns the view and keeps the eye where it is.
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + 200, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 300, box.y + 200, { steps: 5 });
  await page.mouse.up();
  const turned = await page.evaluate(() => window.relicview.camera());
  assert.ok(near(turned.position, after.position, 1e-3), 'the eye stays');
  assert.ok(!near(turned.target, after.target, 1e-2), 'the view turns');
  assert.deepEqual(problems, []);
  await page.close();
});

test('layers hide doors and LAB_ONLY content, and a world view survives a permalink in a fresh page', async () => {
  const { page, problems } = await served();
  await page.evaluate(p => window.relicview.open(p), ARENA);
  const all = (await page.evaluate(() => window.relicview.stats())).triangles;
  const layers = await page.evaluate(() => window.relicview.layers());
  assert.deepEqual(
    layers.map(l => [l.name, l.nodes > 0]),
    [
      ['dropzones', true],
      ['doors', true],
      ['fx', true],
      ['lab only', true],
    ],
  );
  const tri = name =>
    JSON.parse(
      execFileSync(bin, ['info', '--json', join(dir, `DEMO/VIDEO/${name}.BGF`)], { encoding: 'utf8' }),
    ).triangles;
  await page.evaluate(() => window.relicview.setLayers({ doors: false, 'lab only': false }));
  const fewer = (await page.evaluate(() => window.relicview.stats())).triangles;
  assert.equal(
    fewer,
    all - tri('DRW') - tri('DR1') - tri('DR2') - tri('CRATE'),
    'the door and the LAB_ONLY crate are hidden',
  );
  assert.equal(await page.locator('#layers input[data-layer="doors"]').isChecked(), false);
  // A view from dropzone 2, paused at 3 s, doors hidden.
  await page.evaluate(() => window.relicview.setCamera(2));
  await page.evaluate(() => window.relicview.setClock({ time: 3, playing: false }));
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /view=2/);
  assert.match(link, /hide=doors%2Clab\+only|hide=doors,lab\+only|hide=doors%2Clab%20only/);
  assert.match(link, /[#&]t=3(&|$)/);
  const cam = await page.evaluate(() => window.relicview.camera());
  const fresh = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await fresh.goto(link);
  await fresh.evaluate(() => window.relicview.ready);
  await fresh.waitForFunction(
    () => window.relicview.stats().placements === 19 && !window.relicview.stats().uploading,
  );
  await fresh.waitForFunction(
    c => Math.hypot(...window.relicview.camera().position.map((x, i) => x - c[i])) < 1e-3,
    cam.position,
  );
  assert.equal((await fresh.evaluate(() => window.relicview.stats())).triangles, fewer);
  const clock = await fresh.evaluate(() => window.relicview.clock());
  assert.ok(Math.abs(clock.time - 3) < 1e-6 && !clock.playing, JSON.stringify(clock));
  assert.equal(await fresh.locator('#camera-select').inputValue(), 'view:2');
  await fresh.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test('a world exports as one .glb: a mesh per unique model, a node per placement, the door as an animation', async () => {
  const out = join(scratchDir('world'), 'arena1.glb');
  execFileSync(bin, ['export', join(dir, ARENA), '--root', dir, '-o', out]);
  const glb = readFileSync(out);
  const report = await validator.validateBytes(new Uint8Array(glb), { maxIssues: 1000 });
  assert.equal(
    report.issues.numErrors,
    0,
    JSON.stringify(report.issues.messages.filter(m => m.severity === 0).slice(0, 5)),
  );
  const json = JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8'));
  const native = worldInfo(ARENA);
  // Hall 2 patches, building 2, crate 1, frame 1, leaves 1 + 1, stack 2, wellhead 1, laser 1.
  assert.equal(json.meshes.length, 12, json.meshes.map(m => m.name).join(', '));
  let triangles = 0;
  const stack = [...json.scenes[json.scene].nodes];
  while (stack.length) {
    const n = json.nodes[stack.pop()];
    stack.push(...(n.children || []));
    if (n.mesh !== undefined)
      for (const p of json.meshes[n.mesh].primitives) triangles += json.accessors[p.indices].count / 3;
  }
  assert.equal(triangles, native.triangles);
  assert.equal(
    json.nodes.filter(n => n.name === 'drop').length,
    8,
    'each dropzone: its placement and its marker node',
  );
  const doors = json.animations.filter(a => /^door/.test(a.name));
  assert.equal(doors.length, 2);
  const channel = doors[0].channels[0];
  assert.equal(channel.target.path, 'translation');
  assert.equal(json.nodes[channel.target.node].name, 'dr1');
  // The keyframes, read from the binary chunk: shut, open by MotionExtent, dwell, shut.
  const floats = accessor => {
    const a = json.accessors[accessor];
    const v = json.bufferViews[a.bufferView];
    const bin = glb.subarray(20 + glb.readUInt32LE(12) + 8);
    const n = a.count * { SCALAR: 1, VEC3: 3 }[a.type];
    return Array.from({ length: n }, (_, i) =>
      bin.readFloatLE((v.byteOffset || 0) + (a.byteOffset || 0) + 4 * i),
    );
  };
  const sampler = doors[0].samplers[channel.sampler];
  assert.deepEqual(floats(sampler.input), [0, 4, 6, 10, 12]);
  assert.deepEqual(
    floats(sampler.output),
    [0, 0, 0, -3, 0, 0, -3, 0, 0, 0, 0, 0, 0, 0, 0],
    'the leaf slides by MotionExtent',
  );
  // The page's export loads in GLTFLoader with the triangles the viewer draws.
  const { page, problems } = await served();
  await withThree(page);
  const drawn = await page.evaluate(p => window.relicview.open(p), ARENA);
  const loaded = await page.evaluate(async () => {
    const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
    const glb = await window.relicview.exportGlb();
    const gltf = await new GLTFLoader().parseAsync(
      glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
      '',
    );
    let triangles = 0;
    gltf.scene.traverse(o => {
      if (o.isMesh) triangles += o.geometry.index.count / 3;
    });
    return { triangles, animations: gltf.animations.map(a => a.name) };
  });
  assert.equal(loaded.triangles, drawn.triangles);
  assert.ok(loaded.animations.filter(n => n.startsWith('door')).length === 2, loaded.animations.join(', '));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a map whose models are missing or that includes itself shows what it can, or says where it goes wrong', async () => {
  const own = makeArchive();
  writeFileSync(
    join(own, 'DEMO/MAPS/GAPS.MAP'),
    '[hall]\r\ntype=model\r\nmodelfile=hall.mod\r\n[ghost]\r\ntype=model\r\nmodelfile=ghost.mod\r\n[gaps]\r\ntype=map\r\ninstance=hall 0 0 0 0 0 0\r\ninstance=ghost 0 0 0 0 0 0\r\n',
  );
  mkdirSync(join(own, 'LOOPS'), { recursive: true });
  writeFileSync(join(own, 'LOOPS/LOOP.MAP'), '[loop]\r\ntype=map\r\ninstance=loop 0 0 0 0 0 0\r\n');
  const { page, problems } = await newPage(browser, server.url + '#folder=none');
  await loadFolder(page, own, walk(own).length);
  const gaps = await page.evaluate(() => window.relicview.open('GAME/DEMO/MAPS/GAPS.MAP'));
  assert.ok(gaps.triangles > 0, 'the hall is drawn');
  assert.match(await page.locator('#info-body').textContent(), /missing.*ghost\.mod/s);
  const err = await page.evaluate(() =>
    window.relicview.open('GAME/LOOPS/LOOP.MAP').then(
      () => null,
      e => ({ message: e.message, offset: e.offset }),
    ),
  );
  assert.ok(err && /places itself/.test(err.message), JSON.stringify(err));
  assert.equal(err.offset, 18, 'the offending line');
  const next = await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/CUBE.BGF'));
  assert.equal(next.triangles, 12);
  assert.deepEqual(problems, []);
  await page.close();
});
