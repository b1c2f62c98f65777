// Exports as Blender imports them: every scene of the e2e archive exported by the page, then
// imported by Debian's Blender, run headless, in one process. Blender brings the nodes of
// every glTF scene into its one scene, so an export that held each LOD as a scene of its own
// would stack them: here each import must hold exactly the triangles the viewer draws. The
// walker's damage zones must arrive as objects of their own, named by zone, holding their
// parts.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeArchive, startServer, launch, newPage, blenderImports } from './harness.mjs';
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

// Each file's mesh triangles and objects (name, type, parent), as Blender imports it.
const blenderImport = folder =>
  blenderImports(folder, {
    each: `    triangles = 0
    objects = []
    for o in bpy.context.scene.objects:
        objects.append({'name': o.name, 'type': o.type, 'parent': o.parent.name if o.parent else None})
        if o.type == 'MESH':
            triangles += sum(len(p.vertices) - 2 for p in o.data.polygons)
    entry.update({'triangles': triangles, 'objects': objects})`,
  });

test(
  'Blender imports every export of the archive with exactly the triangles the viewer draws, and the walker in parts',
  { timeout: 900_000 },
  async () => {
    const { page, problems } = await newPage(browser, server.url);
    await page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length > 0);
    const paths = await page.evaluate(() =>
      [...document.querySelectorAll('#file-list li[data-path]')].map(li => li.dataset.path),
    );
    const folder = scratchDir('blender');
    const drawn = new Map();
    for (const [k, path] of paths.entries()) {
      const exported = await page.evaluate(async p => {
        const opened = await window.relicview.open(p).catch(e => ({ error: String(e) }));
        if (opened.error || document.querySelector('#export-button').disabled) return null;
        const stats = window.relicview.stats();
        if (!stats.triangles) return null;
        const glb = await window.relicview.exportGlb();
        let text = '';
        for (let i = 0; i < glb.length; i += 0x8000)
          text += String.fromCharCode(...glb.subarray(i, i + 0x8000));
        return { triangles: stats.triangles, base64: btoa(text) };
      }, path);
      if (!exported) continue;
      const name = `${String(k).padStart(3, '0')}.glb`;
      writeFileSync(join(folder, name), Buffer.from(exported.base64, 'base64'));
      drawn.set(name, { path, triangles: exported.triangles });
    }
    assert.ok(drawn.size >= 20, `exports: ${drawn.size}`);
    const pathsExported = [...drawn.values()].map(d => d.path);
    for (const p of [
      'DEMO/VIDEO/HEXPOD.BGF',
      'DEMO/VIDEO/WALKER.BGF',
      'DEMO/MAPS/ARENA1.MAP',
      'DEMO/FIELD/PARTY.BSX',
    ])
      assert.ok(pathsExported.includes(p), `${p} exported`);

    const report = blenderImport(folder);
    console.log(`# Blender imported ${drawn.size} exports`);
    for (const [name, { path, triangles }] of drawn) {
      assert.ok(report[name], `${path}: Blender imported nothing`);
      assert.equal(report[name].triangles, triangles, `${path}: Blender's triangles against the viewer's`);
    }

    // The walker: an object per damage zone, each the parent of its parts; a part of two
    // zones (the gun arm) under its first.
    const walker = [...drawn].find(([, d]) => d.path === 'DEMO/VIDEO/WALKER.BGF')[0];
    const objects = report[walker].objects;
    const info = await page.evaluate(() =>
      window.relicview.open('DEMO/VIDEO/WALKER.BGF').then(() => window.relicview.parts()),
    );
    const zones = info.zones.map(z => z.name);
    assert.equal(zones.length, 10);
    for (const zone of zones) {
      const empty = objects.find(o => o.name === zone);
      assert.ok(empty, `${zone} is an object in Blender: ${objects.map(o => o.name)}`);
      assert.equal(empty.parent, 'walker', `${zone} hangs under its object`);
    }
    const parentOf = n => objects.find(o => o.name === n)?.parent;
    assert.equal(parentOf('left foot'), 'dz_lfoot');
    assert.equal(parentOf('right gun'), 'dz_rarm');
    assert.equal(parentOf('beacon'), 'LOD 0', 'a part of no zone stays where it was');
    assert.deepEqual(problems, []);
    await page.close();
  },
);
