// A field scene's open against its models' alone, on the path users take: NMKIN_1 as the disc
// stores it (.DAT and .MIM LZS-wrapped) in a dropped folder with its .BSX, FIELD.TDB,
// FIELD.BIN and the two characters' .BCX. One side opens the .DAT (the walkmesh, every model
// where the script puts it, the background composed from the .MIM), the other the .BSX
// (its first model). Each open in a fresh page, alternating, the clock read where the page
// says the file is on show (`lastOpen().frameMs`: drawn and rasterised). Reports the ratio
// and where the time went. Asserts nothing about time.
//
// node tests/bench/field-scene.mjs [REPETITIONS]

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launch, repo, lzsLiterals, median } from '../e2e/harness.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const reps = process.env.RELICVIEW_BENCH_SMOKE ? 1 : Math.max(3, Number(process.argv[2]) || 9);
const shared = name => readFileSync(join(repo, '../shared/testdata', name));
const root = scratchDir('field-scene-bench');
const dir = join(root, 'NMKIN', 'FIELD');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'NMKIN_1.DAT'), shared('ff7-disc/NMKIN_1.DAT'));
writeFileSync(join(dir, 'NMKIN_1.MIM'), shared('ff7-disc/NMKIN_1.MIM'));
writeFileSync(join(dir, 'NMKIN_1.BSX'), lzsLiterals(shared('ff7/NMKIN_1_u.BSX')));
writeFileSync(join(dir, 'FIELD.TDB'), shared('ff7/FIELD.TDB_u'));
writeFileSync(join(dir, 'FIELD.BIN'), shared('ff7/FIELD.BIN_u'));
for (const f of ['CLOUD.BCX', 'BALLET.BCX']) writeFileSync(join(dir, f), shared(`ff7-disc/${f}`));

const served = scratchDir('field-scene-served');
const server = await startServer(served);
const browser = await launch();

// One open of `file` in a fresh page with the folder dropped → {ms, triangles, parts}.
async function run(file) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}#folder=none`);
    await page.evaluate(() => window.relicview.ready);
    await page.locator('#folder-input').setInputFiles(join(root, 'NMKIN'));
    await page.waitForFunction(() => window.relicview.indexTimeline()?.confirmed, null, { timeout: 120000 });
    return await page.evaluate(async p => {
      await window.relicview.open(p);
      const o = window.relicview.lastOpen();
      return {
        ms: o.frameMs,
        triangles: window.relicview.stats().triangles,
        background: Boolean(window.relicview.gameCamera()?.background),
        read: o.readMs,
        parse: o.parseMs,
        assets: o.assetsMs,
        build: o.buildMs,
        show: o.showMs,
        draw: o.drawMs,
        raster: o.rasterMs,
      };
    }, `NMKIN/FIELD/${file}`);
  } finally {
    await context.close();
  }
}

try {
  const keys = ['ms', 'read', 'parse', 'assets', 'build', 'show', 'draw', 'raster'];
  const scene = Object.fromEntries(keys.map(k => [k, []]));
  const models = Object.fromEntries(keys.map(k => [k, []]));
  let notes = {};
  for (let i = 0; i < reps; i++) {
    const x = await run('NMKIN_1.DAT');
    const y = await run('NMKIN_1.BSX');
    if (!x.background) throw new Error('the field scene has no background: the .MIM was not read');
    notes = { triangles: [x.triangles, y.triangles] };
    for (const k of keys) {
      scene[k].push(x[k]);
      models[k].push(y[k]);
    }
  }
  const ms = xs =>
    `median ${median(xs).toFixed(0).padStart(5)} ms (runs: ${xs.map(x => x.toFixed(0)).join(' ')})`;
  console.log(
    `a field scene's first rasterised frame against its .BSX alone, a dropped folder, a 1000×700 window, ${reps} alternating fresh pages`,
  );
  console.log(`  NMKIN_1.DAT (scene, background composed) ${notes.triangles[0]} triangles  ${ms(scene.ms)}`);
  console.log(`  NMKIN_1.BSX (its first model)            ${notes.triangles[1]} triangles  ${ms(models.ms)}`);
  console.log(`  ratio field scene / its models alone: ${(median(scene.ms) / median(models.ms)).toFixed(3)}`);
  const parts = x =>
    `read ${median(x.read).toFixed(1)}, parse ${median(x.parse).toFixed(1)}, assets ${median(x.assets).toFixed(1)}, build ${median(x.build).toFixed(1)}, show ${median(x.show).toFixed(1)}, draw ${median(x.draw).toFixed(1)}, raster ${median(x.raster).toFixed(1)} ms`;
  console.log(`  scene: ${parts(scene)}`);
  console.log(`  models: ${parts(models)}`);
} finally {
  await browser.close();
  server.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(served, { recursive: true, force: true });
}
