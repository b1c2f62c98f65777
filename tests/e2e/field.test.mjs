// An FF7 field in the page: a real field's .DAT as the disc stores it, dropped with its .BSX,
// FIELD.TDB, FIELD.BIN and two characters' .BCX: the walkmesh drawn with its gateways and the
// models where the field's script puts them, the ones the game hides hidden until shown,
// the script's names on the models, and every section in the inspector. The walkmesh's size
// is read here from the bytes (ff7.mjs's LZS reader and the layout docs/formats/field-dat.md
// gives), not asked of relicview.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, newPage, nativeInfo, repo, walk, lzsLiterals, loadFolder } from './harness.mjs';
import { unwrapLzs } from './ff7.mjs';

const shared = p => readFileSync(join(repo, '../shared/testdata', p));
let dir, server, browser;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'relicview-field-'));
  mkdirSync(join(dir, 'FIELD'), { recursive: true });
  writeFileSync(join(dir, 'FIELD/MD1_1.DAT'), shared('ff7-disc/MD1_1.DAT'));
  writeFileSync(join(dir, 'FIELD/MD1_1.BSX'), lzsLiterals(shared('ff7/MD1_1_u.BSX')));
  writeFileSync(join(dir, 'FIELD/FIELD.TDB'), shared('ff7/FIELD.TDB_u'));
  writeFileSync(join(dir, 'FIELD/FIELD.BIN'), shared('ff7/FIELD.BIN_u'));
  writeFileSync(join(dir, 'FIELD/CLOUD.BCX'), shared('ff7-disc/CLOUD.BCX'));
  writeFileSync(join(dir, 'FIELD/BALLET.BCX'), shared('ff7-disc/BALLET.BCX'));
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// The walkmesh's triangle count and the gateways in use, from the unpacked bytes.
function fromBytes() {
  const b = unwrapLzs(shared('ff7-disc/MD1_1.DAT'));
  const u32 = at => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
  const u16 = at => b[at] | (b[at + 1] << 8);
  const base = 0x80114fe4;
  const walkmesh = u32(4) - base;
  const triggers = u32(16) - base;
  let gateways = 0;
  for (let k = 0; k < 12; k++) if (u16(triggers + 0x38 + 24 * k + 18) !== 0x7fff) gateways++;
  return { triangles: u16(walkmesh), gateways };
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
