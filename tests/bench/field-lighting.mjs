// A field model's open with the game's lighting against without, on the path users take: a
// real field file (MD1_1, LZS-wrapped as on the disc) dropped in a folder with FIELD.TDB, and
// FIELD.BIN beside it (as the disc stores it: gzip behind an 8-byte header) or not. Each open
// in a fresh page, alternating, the clock stopped where the page says the file is on show
// (`lastOpen().frameMs`: drawn and rasterised). With FIELD.BIN the open also reads and
// unpacks it and lights every colour word; both sides draw the same triangles from the same
// camera (the pixels each covers are printed). Reports the ratio and where the time went.
// Asserts nothing about time.
//
// node tests/bench/field-lighting.mjs [REPETITIONS]

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startServer, launch, repo, lzsLiterals, median } from '../e2e/harness.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const reps = process.env.RELICVIEW_BENCH_SMOKE ? 1 : Math.max(3, Number(process.argv[2]) || 9);
const shared = name => readFileSync(join(repo, '../shared/testdata/ff7', name));
const root = scratchDir('lighting-bench');
const folder = (name, withFieldBin) => {
  const dir = join(root, name, 'FIELD');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'MD1_1.BSX'), lzsLiterals(shared('MD1_1_u.BSX')));
  writeFileSync(join(dir, 'FIELD.TDB'), shared('FIELD.TDB_u'));
  if (withFieldBin) {
    const module = shared('FIELD.BIN_u');
    const head = Buffer.alloc(8);
    head.writeUInt32LE(module.length, 0);
    writeFileSync(join(dir, 'FIELD.BIN'), Buffer.concat([head, gzipSync(module)]));
  }
  return join(root, name);
};
const lit = folder('LIT', true);
const stored = folder('STORED', false);

const served = scratchDir('lighting-served');
const server = await startServer(served);
const browser = await launch();

// One open in a fresh page with `dir` dropped → {ms, pixels, lighting, parts of the open}.
async function run(dir, name) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}#folder=none`);
    await page.evaluate(() => window.relicview.ready);
    await page.locator('#folder-input').setInputFiles(dir);
    await page.waitForFunction(() => window.relicview.indexTimeline()?.confirmed, null, { timeout: 120000 });
    const path = `${name}/FIELD/MD1_1.BSX`;
    return await page.evaluate(async p => {
      await window.relicview.open(p);
      const o = window.relicview.lastOpen();
      const lighting =
        [...document.querySelectorAll('#info-body dt')].find(d => d.textContent === 'lighting')
          ?.nextElementSibling?.textContent ?? '';
      return {
        ms: o.frameMs,
        pixels: window.relicview.pixelStats().nonBackground,
        triangles: window.relicview.stats().triangles,
        lighting,
        read: o.readMs,
        parse: o.parseMs,
        assets: o.assetsMs,
        build: o.buildMs,
        show: o.showMs,
        upload: o.uploadMs,
        draw: o.drawMs,
        raster: o.rasterMs,
      };
    }, path);
  } finally {
    await context.close();
  }
}

try {
  const keys = ['ms', 'pixels', 'read', 'parse', 'assets', 'build', 'show', 'upload', 'draw', 'raster'];
  const a = Object.fromEntries(keys.map(k => [k, []]));
  const b = Object.fromEntries(keys.map(k => [k, []]));
  let notes = {};
  for (let i = 0; i < reps; i++) {
    const x = await run(lit, 'LIT');
    const y = await run(stored, 'STORED');
    notes = { lit: x.lighting, stored: y.lighting, triangles: [x.triangles, y.triangles] };
    for (const k of keys) {
      a[k].push(x[k]);
      b[k].push(y[k]);
    }
  }
  console.log(
    `a field model's first rasterised frame, with the game's lighting and without, a dropped folder, a 1000×700 window, ${reps} alternating fresh pages`,
  );
  console.log(
    `  with FIELD.BIN    ${notes.triangles[0]} triangles, ${median(a.pixels)} pixels  median ${median(a.ms).toFixed(0).padStart(5)} ms (runs: ${a.ms.map(x => x.toFixed(0)).join(' ')}) · ${notes.lit}`,
  );
  console.log(
    `  without FIELD.BIN ${notes.triangles[1]} triangles, ${median(b.pixels)} pixels  median ${median(b.ms).toFixed(0).padStart(5)} ms (runs: ${b.ms.map(x => x.toFixed(0)).join(' ')}) · ${notes.stored}`,
  );
  const apart = Math.abs(median(a.pixels) - median(b.pixels)) / Math.max(1, median(b.pixels));
  if (apart > 0.01) console.log(`  the two sides cover pixels ${(apart * 100).toFixed(1)} % apart: no ratio`);
  else console.log(`  ratio with / without the game's lighting: ${(median(a.ms) / median(b.ms)).toFixed(3)}`);
  const parts = x =>
    `read ${median(x.read).toFixed(1)}, parse ${median(x.parse).toFixed(1)}, assets ${median(x.assets).toFixed(1)} (FIELD.TDB${x === a ? ', FIELD.BIN unpacked' : ''}), build ${median(x.build).toFixed(1)}, show ${median(x.show).toFixed(1)} (upload ${median(x.upload).toFixed(1)}), draw ${median(x.draw).toFixed(1)}, raster ${median(x.raster).toFixed(1)} ms`;
  console.log(`  with: ${parts(a)}`);
  console.log(`  without: ${parts(b)}`);
} finally {
  await browser.close();
  server.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(served, { recursive: true, force: true });
}
