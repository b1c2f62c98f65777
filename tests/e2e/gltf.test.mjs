// glTF export: every model and fixture `relicview export` writes passes the Khronos glTF
// validator with no errors, and the .glb the page exports loads in three.js GLTFLoader with
// the triangles the viewer draws.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import validator from 'gltf-validator';
import { makeArchive, startServer, launch, newPage, nativeInfo, bin, walk, withThree } from './harness.mjs';
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

// `relicview export`; null when the file has no scene (or fails), with the reason.
function exportFile(file, lod = 0, lods = 'shown') {
  const out = join(scratchDir('glb'), 'out.glb');
  try {
    execFileSync(bin, ['export', file, '--root', dir, '-o', out, '--lod', String(lod), '--lods', lods], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { glb: readFileSync(out) };
  } catch (e) {
    return { glb: null, why: String(e.stderr) };
  }
}

// The glb's JSON chunk.
function gltfJson(glb) {
  const len = glb.readUInt32LE(12);
  return JSON.parse(glb.subarray(20, 20 + len).toString('utf8'));
}

// Triangles in a glTF scene: every mesh node's primitives' indices / 3.
function sceneTriangles(json, scene) {
  let n = 0;
  const stack = [...json.scenes[scene].nodes];
  while (stack.length) {
    const node = json.nodes[stack.pop()];
    stack.push(...(node.children || []));
    if (node.mesh === undefined) continue;
    for (const p of json.meshes[node.mesh].primitives) n += json.accessors[p.indices].count / 3;
  }
  return n;
}

test('every model and fixture exports a .glb the Khronos validator finds no error in', async () => {
  const exported = [];
  const warnings = new Map();
  for (const file of walk(dir)) {
    const rel = relative(dir, file);
    const { glb, why } = exportFile(file);
    if (!glb) {
      assert.match(why, /has no 3D scene|at byte/, `${rel}: ${why}`);
      continue;
    }
    const report = await validator.validateBytes(new Uint8Array(glb), { maxIssues: 1000 });
    const errors = report.issues.messages.filter(m => m.severity === 0);
    assert.equal(report.issues.numErrors, 0, `${rel}: ${JSON.stringify(errors.slice(0, 5))}`);
    // Warnings, infos and hints by code, for the record (severity 1, 2, 3).
    for (const m of report.issues.messages.filter(x => x.severity > 0)) {
      const key = `${['error', 'warning', 'info', 'hint'][m.severity]} ${m.code}`;
      warnings.set(key, (warnings.get(key) || 0) + 1);
    }
    exported.push(rel);
  }
  console.log(
    `# validated ${exported.length} exports, 0 errors; other findings: ${JSON.stringify(Object.fromEntries(warnings))}`,
  );
  for (const m of ['CUBE', 'HEXPOD', 'TOWER', 'POOL', 'FORMATS'])
    assert.ok(exported.includes(`DEMO/VIDEO/${m}.BGF`), m);
  assert.ok(exported.includes('BROKENTREE/VIDEO/CUBE.BGF'), 'a model whose library is broken still exports');
  assert.ok(
    exported.includes('DEMO/TEXTURE/WATER.TGA') && exported.includes('DEMO/TEXTURE/SIGN.RGB'),
    'images export as a textured quad',
  );
  assert.ok(!exported.includes('DEMO/VIDEO/BROKEN.BGF') && !exported.includes('DEMO/MATERIAL/DEMO.BMF'));
  for (const f of ['ROBOT.BSX', 'PARTY.BSX', 'CLOUD.BCX'])
    assert.ok(
      exported.includes(`DEMO/FIELD/${f}`),
      `${f}: FF7 models with skeletons, animations, cut-outs and blending`,
    );
});

test('the export keeps the node names, the LOD on show (every LOD as a scene with --lods all), light points, vertex colours and the scroll start', async () => {
  const hexpod = join(dir, 'DEMO/VIDEO/HEXPOD.BGF');
  const native = nativeInfo(hexpod);
  for (const lod of [0, 1]) {
    const shown = gltfJson(exportFile(hexpod, lod).glb);
    assert.equal(shown.scenes.length, 1, 'the LOD on show alone: an importer stacks every scene');
    assert.equal(sceneTriangles(shown, 0), native.objects[0].lods[lod].triangles);
    const json = gltfJson(exportFile(hexpod, lod, 'all').glb);
    assert.equal(json.scenes.length, 2);
    assert.equal(json.scene, lod);
    assert.equal(sceneTriangles(json, lod), native.objects[0].lods[lod].triangles);
  }
  const json = gltfJson(exportFile(hexpod, 0, 'all').glb);
  const names = json.nodes.map(n => n.name);
  for (const n of ['HEXPOD.BGF', 'hexpod', 'LOD 0', 'LOD 1', 'light point 5'])
    assert.ok(names.includes(n), `${n} in ${names}`);
  assert.equal(
    names.filter(n => /^light point/.test(n)).length,
    6 * 2,
    'six light points, in each LOD scene',
  );

  const formats = gltfJson(exportFile(join(dir, 'DEMO/VIDEO/FORMATS.BGF')).glb);
  const attrs = formats.meshes.flatMap(m =>
    m.primitives.map(p => Object.keys(p.attributes).sort().join(',')),
  );
  assert.ok(attrs.includes('COLOR_0,POSITION'), `vertex colours: ${attrs}`);
  assert.ok(attrs.includes('NORMAL,POSITION'), 'normals where the file has them');
  assert.ok(attrs.some(a => a.includes('TEXCOORD_0')));

  const pool = gltfJson(exportFile(join(dir, 'DEMO/VIDEO/POOL.BGF')).glb);
  assert.deepEqual(pool.extensionsUsed, ['KHR_texture_transform']);
  const water = pool.materials.find(m => m.name === 'demo:water_mtl');
  assert.deepEqual(
    water.pbrMetallicRoughness.baseColorTexture.extensions.KHR_texture_transform.offset,
    [0, 0],
  );
  assert.equal(pool.images.length, 3, 'the decoded textures and the checker, embedded');
  assert.ok(pool.images.every(i => i.mimeType === 'image/png'));
});

test('the page exports each model as a .glb that GLTFLoader loads with the triangles the viewer draws', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length > 0);
  // The button downloads <file>.glb.
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('#export-button').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'HEXPOD.glb');
  const saved = readFileSync(await download.path());
  assert.equal(saved.subarray(0, 4).toString(), 'glTF');
  assert.equal(sceneTriangles(gltfJson(saved), 0), 26);
  // (Routes are set after the download: with one active, Chromium's blob downloads go unseen.)
  await withThree(page);
  for (const m of ['CUBE', 'HEXPOD', 'TOWER', 'POOL', 'FORMATS']) {
    const path = `DEMO/VIDEO/${m}.BGF`;
    const drawn = await page.evaluate(p => window.relicview.open(p), path);
    const stats = await page.evaluate(() => window.relicview.stats());
    const loaded = await page.evaluate(async () => {
      const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
      const glb = await window.relicview.exportGlb();
      const gltf = await new GLTFLoader().parseAsync(
        glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
        '',
      );
      let triangles = 0;
      let textured = 0;
      gltf.scene.traverse(o => {
        if (o.isMesh) {
          triangles += (o.geometry.index ? o.geometry.index.count : o.geometry.attributes.position.count) / 3;
          if (o.material.map) textured++;
        }
      });
      return { triangles, scenes: gltf.scenes.length, textured };
    });
    assert.equal(loaded.triangles, stats.triangles, path);
    assert.equal(loaded.triangles, drawn.triangles, path);
    assert.equal(loaded.scenes, 1, `${path}: the LOD on show only`);
    const every = await page.evaluate(async () => {
      const glb = await window.relicview.exportGlb(true);
      const len = new DataView(glb.buffer, glb.byteOffset).getUint32(12, true);
      return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + len))).scenes.length;
    });
    assert.equal(every, stats.lodCount, `${path}: with every LOD, one glTF scene each`);
    if (m === 'POOL') assert.equal(loaded.textured, 6, 'every pool patch is textured');
  }
  // Nothing to export for a file without a scene: the button is off.
  await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
  assert.equal(await page.locator('#export-button').isDisabled(), true);
  assert.deepEqual(problems, []);
  await page.close();
});
