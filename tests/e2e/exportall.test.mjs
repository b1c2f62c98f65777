// Export all: `relicview export --all` over the browser tests' archive and over a zip of it
// made by Python's zipfile — every .glb passes the Khronos validator with no error and loads
// in three.js's GLTFLoader with the triangles the viewer draws for its file, every PNG
// decodes, the report names the bad files; and the page's Export all downloads a zip that
// holds the same entries, byte for byte.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import validator from 'gltf-validator';
import { PNG } from 'pngjs';
import { servedArchive, newPage, bin, walk, withThree, loadFolder, axeClean as axe } from './harness.mjs';
import { scratchDir } from './scratch.mjs';
import { discArchive, open, servedBeside } from './fixtures.mjs';

// `relicview export --all SRC -o OUT --json` → {code, report}.
function exportAllCli(src, dest) {
  const run = spawnSync(bin, ['export', '--all', '--json', src, '-o', dest], { encoding: 'utf8' });
  return { code: run.status, report: JSON.parse(run.stdout) };
}

// Two numbers the same but for their last places: wasm and native code round a few float
// operations differently (native uses fused and vector instructions).
const close = (x, y) => Math.abs(x - y) <= 1e-5 * Math.max(1, Math.abs(x));

// Two JSON values alike, their numbers `close`; → how many numbers differ at all.
function alike(name, a, b) {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(close(a, b), `${name}: ${a} against ${b}`);
    return a === b ? 0 : 1;
  }
  if (a === null || typeof a !== 'object') {
    assert.equal(a, b, name);
    return 0;
  }
  assert.deepEqual(Object.keys(a), Object.keys(b), name);
  return Object.keys(a).reduce((n, k) => n + alike(`${name}.${k}`, a[k], b[k]), 0);
}

// Two .glb files of one scene, one made in the page (wasm) and one by the CLI (native):
// the same glTF, and the same binary chunk, numbers `close`; → how many floats differ.
function sameGlb(name, a, b) {
  const chunks = glb => {
    const n = glb.readUInt32LE(12);
    return [JSON.parse(glb.subarray(20, 20 + n).toString('utf8')), glb.subarray(20 + n + 8)];
  };
  const [[ja, ba], [jb, bb]] = [chunks(a), chunks(b)];
  let apart = alike(name, ja, jb);
  assert.equal(ba.length, bb.length, `${name}: the same binary chunk length`);
  for (let i = 0; i + 4 <= ba.length; i += 4) {
    if (ba.readUInt32LE(i) === bb.readUInt32LE(i)) continue;
    assert.ok(
      close(ba.readFloatLE(i), bb.readFloatLE(i)),
      `${name}: binary byte ${i}: ${ba.readFloatLE(i)} against ${bb.readFloatLE(i)}`,
    );
    apart++;
  }
  return apart;
}

// Every file under `d` by its path relative to it.
function filesUnder(d) {
  return new Map(walk(d).map(f => [relative(d, f), readFileSync(f)]));
}

let out, report;
const ctx = servedArchive(dir => {
  out = scratchDir('all');
  ({ report } = exportAllCli(dir, out));
});

test("every .glb of export --all passes the Khronos validator and loads in GLTFLoader with the viewer's triangles; every PNG decodes; the report names the bad files", async () => {
  const files = filesUnder(out);
  const glbs = [...files.keys()].filter(f => f.endsWith('.glb'));
  assert.ok(glbs.length >= 25, `${glbs.length} .glb files`);
  for (const f of glbs) {
    const v = await validator.validateBytes(new Uint8Array(files.get(f)), { maxIssues: 1000 });
    assert.equal(
      v.issues.numErrors,
      0,
      `${f}: ${JSON.stringify(v.issues.messages.filter(m => m.severity === 0).slice(0, 3))}`,
    );
  }
  const pngs = [...files.keys()].filter(f => f.endsWith('.png'));
  for (const f of pngs) {
    const png = PNG.sync.read(files.get(f));
    assert.ok(png.width > 0 && png.height > 0, f);
  }
  // The bad files: BROKEN.BGF fails with its error and byte; CUT.BGF (cut short) goes out as
  // far as it goes, with a note.
  const failed = new Map(report.failed.map(x => [x.path, x]));
  assert.ok(failed.has('DEMO/VIDEO/BROKEN.BGF'), JSON.stringify(report.failed));
  assert.match(failed.get('DEMO/VIDEO/BROKEN.BGF').error, /BROKEN\.BGF/);
  assert.equal(typeof failed.get('DEMO/VIDEO/BROKEN.BGF').offset, 'number');
  const cut = report.written.find(w => w.path === 'DEMO/VIDEO/CUT.BGF');
  assert.match(cut.note, /damaged/);
  // A name that would be markup is a file name like any other, made safe.
  assert.ok(
    report.renamed.some(r => r.from.startsWith('DEMO/VIDEO/<img') && !r.to.includes('<')),
    JSON.stringify(report.renamed),
  );
  // GLTFLoader on each model, world and field model, against what the viewer draws.
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await page.waitForFunction(
    () => window.relicview.listing().files > 0 && window.relicview.indexTimeline()?.typed,
  );
  await withThree(page);
  let checked = 0;
  for (const f of glbs) {
    const path = f.replace(/\.glb$/, '');
    if (path.includes('<img')) continue;
    const drawn = await page.evaluate(
      p =>
        window.relicview.open(p).then(
          r => r.triangles,
          () => null,
        ),
      path,
    );
    if (drawn === null) continue;
    const loaded = await page.evaluate(async b64 => {
      const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
      const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
      const gltf = await new GLTFLoader().parseAsync(bytes.buffer, '');
      let triangles = 0;
      gltf.scene.traverse(o => {
        if (o.isMesh)
          triangles += (o.geometry.index ? o.geometry.index.count : o.geometry.attributes.position.count) / 3;
      });
      return triangles;
    }, files.get(f).toString('base64'));
    assert.equal(loaded, drawn, `${path}: GLTFLoader's default scene against the viewer`);
    checked++;
  }
  assert.ok(checked >= 25, `${checked} checked`);
  console.log(
    `# ${glbs.length} .glb (0 validator errors), ${pngs.length} .png; GLTFLoader matched the viewer on ${checked}`,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('a zip of the archive made by Python exports the same files', () => {
  const zipped = join(scratchDir('zip'), 'GAME.zip');
  execFileSync('python3', [
    '-c',
    "import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\nfor d, _, fs in os.walk(sys.argv[1]):\n    for f in fs:\n        p = os.path.join(d, f)\n        z.write(p, os.path.relpath(p, sys.argv[1]))\nz.close()",
    ctx.dir,
    zipped,
  ]);
  const dest = join(dirname(zipped), 'OUT');
  const { report: fromZip } = exportAllCli(zipped, dest);
  const [a, b] = [filesUnder(out), filesUnder(dest)];
  assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
  for (const [k, v] of a) if (k !== 'report.json') assert.ok(v.equals(b.get(k)), k);
  assert.deepEqual(fromZip.written, report.written);
});

test("the page's Export all downloads a zip of the same entries as the CLI writes, with progress, and can be cancelled", async () => {
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await loadFolder(page, ctx.dir, walk(ctx.dir).length);
  // Cancelled after it starts: no download, the button back.
  const { cancelled, during } = await page.evaluate(async () => {
    const run = window.relicview.exportAll();
    // Cancelled once it shows its progress (an export over before that fails below).
    let over = false;
    run.then(
      () => {
        over = true;
      },
      () => {
        over = true;
      },
    );
    const bar = document.getElementById('export-progress');
    while (bar.hidden && !over) await new Promise(r => requestAnimationFrame(r));
    const during = {
      shown: !bar.hidden,
      max: bar.max,
      value: bar.value,
      button: document.getElementById('export-all-button').textContent,
    };
    document.getElementById('export-all-button').click();
    return { cancelled: await run, during };
  });
  assert.deepEqual(cancelled, { cancelled: true });
  assert.deepEqual(
    [during.shown, during.max, during.button],
    [true, walk(ctx.dir).length, 'Cancel export'],
    JSON.stringify(during),
  );
  assert.equal(await page.locator('#export-all-button').textContent(), 'Export all');
  const [download, result] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate(() => window.relicview.exportAll()),
  ]);
  assert.equal(download.suggestedFilename(), 'GAME-export.zip');
  const zipPath = await download.path();
  // Unzipped by Python's zipfile: names and bytes.
  const listing = JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import sys, json, zipfile, base64\nz = zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({i.filename: base64.b64encode(z.read(i)).decode() for i in z.infolist()}))',
        zipPath,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    ),
  );
  const cli = filesUnder(out);
  assert.deepEqual(Object.keys(listing).sort(), [...cli.keys()].sort());
  let floatsApart = 0;
  for (const [k, v] of cli) {
    if (k === 'report.json') continue;
    const fromPage = Buffer.from(listing[k], 'base64');
    if (k.endsWith('.png')) assert.ok(fromPage.equals(v), `${k}: the same bytes`);
    else floatsApart += sameGlb(k, fromPage, v);
  }
  // The display menu's rig (a skin, at first) reaches the page's Export all as the CLI's default.
  const party = Object.keys(listing).find(k => k.endsWith('PARTY.BSX.glb'));
  assert.ok(party, 'the field model is exported');
  const partyJson = JSON.parse(
    Buffer.from(listing[party], 'base64')
      .subarray(20, 20 + Buffer.from(listing[party], 'base64').readUInt32LE(12))
      .toString('utf8'),
  );
  assert.equal(partyJson.skins?.length, 1, `${party}: its skeleton as a skin`);
  console.log(
    `# the page's zip: ${Object.keys(listing).length} entries as the CLI's; ${floatsApart} floats of the .glb files apart in their last bits (wasm and native round a few operations differently)`,
  );
  const pageReport = JSON.parse(Buffer.from(listing['report.json'], 'base64').toString('utf8'));
  for (const key of ['written', 'skipped', 'failed', 'renamed', 'files', 'bytes'])
    assert.deepEqual(pageReport[key], report[key], key);
  assert.deepEqual(result, {
    files: report.written.length,
    bytes: report.bytes,
    failed: report.failed.length,
    name: 'GAME-export.zip',
  });
  assert.deepEqual(problems, []);
  await page.close();
});

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test('Export all leaves the file on show in the info pane; its outcome stays in its own line until cleared', async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/VIDEO/HEXPOD.BGF');
    const title = await p.locator('#info-title').textContent();
    const [download] = await Promise.all([
      p.waitForEvent('download'),
      p.locator('#export-all-button').click(),
    ]);
    assert.match(download.suggestedFilename(), /-export\.zip$/);
    await p.waitForFunction(() => /written from/.test(document.getElementById('export-status').textContent));
    assert.equal(await p.locator('#info-title').textContent(), title, 'the info pane still shows the file');
    assert.match(
      await p.locator('#export-status').textContent(),
      /failed \(report\.json in the zip says why\)/,
      'the archive has bad files: the line says where to read why',
    );
    await axe(p, 'after Export all');
    await p.locator('#export-dismiss').click();
    assert.equal(await p.locator('#export-status').textContent(), '');
    assert.equal(await p.locator('#export-bar').isVisible(), false, 'the line is gone');
    assert.deepEqual(problems, []);
    await close();
  });
}
