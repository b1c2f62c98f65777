// The conformance matrix in the page: every vertex format × every way of giving a patch its
// material × every context (alone, placed once, three times, under a nested map), the
// structures and the 1994 / 1996 layouts taken in turn, written from the format notes
// (matrix.mjs). Each is opened in one page, one after another: its triangles, its pixels,
// a pick, the info panel's word on textures, and its export through the Khronos validator
// and three.js's GLTFLoader. Then one world places every model with a textured material on
// a format without UVs, three times each (the world that used to take the tab down).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import validator from 'gltf-validator';
import { startServer, launch, newPage, withThree } from './harness.mjs';
import {
  FORMATS,
  MATERIALS,
  PRIMS,
  CONTEXTS,
  SQUARE_NORMALS,
  SQUARE_COLOURS,
  square,
  triangles,
  wantsTexture,
  writeMatrix,
  worldOfAll,
} from './matrix.mjs';
import { scratchDir } from './scratch.mjs';

let root, server, browser, combos;

// Every file the archive lists: two per combination (model and game object), a map for each
// placed one, the library and the texture, and the squares.
const listed = () =>
  combos.length * 2 +
  2 +
  combos.filter(c => c.ctx !== 'alone').length +
  SQUARE_NORMALS.length * SQUARE_COLOURS.length;

const squarePath = (normals, colour) =>
  `GAME/VIDEO/SQ_${normals.replace(' ', '_')}_${colour}.BGF`.toUpperCase();

before(async () => {
  root = scratchDir('matrix');
  const wanted = [];
  FORMATS.forEach((fmt, f) =>
    MATERIALS.forEach((mat, m) =>
      Object.keys(CONTEXTS).forEach((ctx, c) => {
        wanted.push({
          fmt,
          mat,
          ctx,
          prim: PRIMS[(f + m + c) % PRIMS.length],
          era: (f + m) % 2 ? 1994 : 1996,
        });
      }),
    ),
  );
  combos = writeMatrix(join(root, 'ARCHIVE'), wanted);
  for (const n of SQUARE_NORMALS)
    for (const c of SQUARE_COLOURS) writeFileSync(join(root, 'ARCHIVE', squarePath(n, c)), square(n, c));
  server = await startServer(join(root, 'ARCHIVE'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// In the page: open, draw, pick at the middle, read the info panel, export and load the
// export with GLTFLoader → what a person would check.
function look(page, path) {
  return page.evaluate(async p => {
    const r = window.relicview;
    let opened;
    try {
      opened = await r.open(p);
    } catch (e) {
      return { error: e.message };
    }
    const pixels = r.pixelStats();
    const hit = r.pick(pixels.width / 2, pixels.height / 2);
    const rows = [...document.querySelectorAll('#info-body dt')].map(dt => dt.textContent);
    const glb = await r.exportGlb();
    const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
    const gltf = await new GLTFLoader().parseAsync(
      glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
      '',
    );
    let loaded = 0;
    let mapped = 0;
    gltf.scene.traverse(o => {
      if (!o.isMesh) return;
      loaded += (o.geometry.index ? o.geometry.index.count : o.geometry.attributes.position.count) / 3;
      if (o.material.map) mapped++;
    });
    return {
      opened,
      drawn: pixels.nonBackground,
      hit,
      untextured: rows.includes('untextured'),
      loaded,
      mapped,
      glb: Array.from(glb),
    };
  }, path);
}

test('every vertex format × material × context opens, draws, picks and exports in one page', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await withThree(page);
  await page.waitForFunction(
    n => window.relicview.listing().files === n && !window.relicview.listing().pending,
    listed(),
  );
  const failures = [];
  const findings = new Map();
  for (const c of combos) {
    const name = `${c.fmt.id.toString(16)} ${c.mat} ${c.prim} ${c.era} ${c.ctx} (${c.path})`;
    const expect = triangles(c.prim) * CONTEXTS[c.ctx].length;
    const textured = wantsTexture(c.mat) && (c.fmt.uv || c.fmt.uvw);
    try {
      const r = await look(page, c.path);
      assert.equal(r.error, undefined, r.error);
      assert.equal(r.opened.triangles, expect, 'triangles drawn');
      assert.ok(r.drawn > 50, `pixels drawn: ${r.drawn}`);
      assert.ok(r.hit, 'a pick in the middle of the framed model lands on it');
      if (c.ctx === 'alone')
        assert.ok(r.hit.source !== null && r.hit.end > r.hit.start, 'the pick names its bytes');
      assert.equal(
        r.untextured,
        wantsTexture(c.mat) && !(c.fmt.uv || c.fmt.uvw),
        'the info panel says why no texture shows',
      );
      assert.equal(r.loaded, expect, 'GLTFLoader loads every triangle');
      assert.equal(r.mapped, textured ? CONTEXTS[c.ctx].length : 0, 'textured meshes in three.js');
      const report = await validator.validateBytes(new Uint8Array(r.glb), { maxIssues: 100 });
      const errors = report.issues.messages.filter(m => m.severity === 0);
      assert.equal(errors.length, 0, JSON.stringify(errors.slice(0, 3)));
      for (const m of report.issues.messages.filter(x => x.severity === 1))
        findings.set(m.code, (findings.get(m.code) || 0) + 1);
    } catch (e) {
      failures.push(`${name}: ${e.message.split('\n')[0]}`);
    }
  }
  console.log(
    `# ${combos.length} combinations in the page, ${failures.length} failed; validator warnings: ${JSON.stringify(Object.fromEntries(findings))}`,
  );
  assert.deepEqual(failures, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a flat square is lit alike whatever its normals and wherever its colour comes from', async () => {
  // Each way of shading passes the fragment shader only what it needs (a normal where every
  // vertex has a usable one, the position where facets are made, a colour per vertex only
  // where the colours differ): all six must show the same colour over the whole square, and
  // a zero normal must not darken its triangle.
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(
    n => window.relicview.listing().files === n && !window.relicview.listing().pending,
    listed(),
  );
  const seen = {};
  for (const n of SQUARE_NORMALS) {
    for (const c of SQUARE_COLOURS) {
      seen[`${n}, ${c} colour`] = await page.evaluate(
        async p => {
          await window.relicview.open(p);
          const { data } = window.relicview.readPixels();
          // The most common colour among the pixels that are not the background (a corner).
          const key = i => `${data[i]},${data[i + 1]},${data[i + 2]}`;
          const background = key(0);
          const counts = new Map();
          let covered = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (key(i) === background) continue;
            covered++;
            counts.set(key(i), (counts.get(key(i)) || 0) + 1);
          }
          const [colour, pixels] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] || ['', 0];
          return { colour: colour.split(',').map(Number), share: pixels / Math.max(1, covered), covered };
        },
        squarePath(n, c),
      );
    }
  }
  const [first, ...rest] = Object.entries(seen);
  for (const [name, s] of [first, ...rest]) {
    assert.ok(s.covered > 1000, `${name}: the square covers ${s.covered} pixels`);
    // The square is one colour inside its antialiased edges.
    assert.ok(
      s.share > 0.8,
      `${name}: ${Math.round(s.share * 100)} % of the square has its colour ${s.colour}`,
    );
    assert.ok(
      s.colour.some(v => v > 40),
      `${name}: lit, not black (${s.colour})`,
    );
    const off = Math.max(...s.colour.map((v, k) => Math.abs(v - first[1].colour[k])));
    assert.ok(off <= 2, `${name}: ${s.colour} against ${first[0]}: ${first[1].colour}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('a world placing every textured material on every format without UVs, thrice each, draws and exports', async () => {
  const names = combos
    .filter(c => c.ctx === 'alone' && wantsTexture(c.mat))
    .map(c => c.path.match(/(M\d+)\.BGF$/)[1]);
  const noUv = combos.filter(c => c.ctx === 'alone' && wantsTexture(c.mat) && !(c.fmt.uv || c.fmt.uvw));
  assert.ok(noUv.length >= 6, `${noUv.length} models with a texture they cannot sample`);
  const path = worldOfAll(join(root, 'ARCHIVE'), 'ALLTEX', names);
  const { page, problems } = await newPage(browser, `${server.url}#path=${path}`);
  await withThree(page);
  await page.waitForFunction(p => window.relicview.entry(p) !== null, path);
  const expect = names.reduce(
    (n, name) => n + 3 * triangles(combos.find(c => c.path.endsWith(`/${name}.BGF`)).prim),
    0,
  );
  const r = await look(page, path);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.opened.triangles, expect);
  assert.ok(r.drawn > 1000, `pixels: ${r.drawn}`);
  assert.equal(r.untextured, true);
  assert.equal(r.loaded, expect);
  const report = await validator.validateBytes(new Uint8Array(r.glb), { maxIssues: 100 });
  assert.equal(
    report.issues.numErrors,
    0,
    JSON.stringify(report.issues.messages.filter(m => m.severity === 0).slice(0, 3)),
  );
  // And the page goes on: another world opens after it.
  const next = combos.find(c => c.ctx === 'thrice');
  assert.equal((await look(page, next.path)).opened.triangles, triangles(next.prim) * 3);
  assert.deepEqual(problems, []);
  await page.close();
});
