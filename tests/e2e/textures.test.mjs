// The texture gallery: every picture of the archive and every VRAM page its field models
// decode, with sizes from the files (a TGA's header; 256 × 256 pages), the users from the
// archive's references (the library naming WATER.TGA, the pool taking its material); one
// at full size with the texel read out (a page's: VRAM's word, CLUT index, colour); a PNG
// download per texture that decodes to its size.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { servedArchive, newPage, walk, loadFolder, axeClean as axe } from './harness.mjs';
import { discArchive, servedBeside } from './fixtures.mjs';

const ctx = servedArchive();

test('the gallery lists every texture with its size, format and users, opens one at full size with its texels read out, and downloads each as a PNG', async () => {
  const { dir } = ctx;
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await loadFolder(page, dir, walk(dir).length);
  await page.locator('#textures-button').click();
  await page.waitForFunction(
    () => /textures?:/.test(document.getElementById('texture-gallery-status').textContent),
    null,
    { timeout: 60000 },
  );
  const list = await page.evaluate(() => window.relicview.textures());
  // Every picture file of the archive is in it; every field model's pages are.
  const pictures = walk(dir)
    .map(f => f.slice(dir.length + 1))
    .filter(f => /\.(TGA|RGB)$/.test(f));
  for (const p of pictures)
    assert.ok(
      list.some(t => t.path === `GAME/${p}` && t.texture === null),
      p,
    );
  const pages = list.filter(t => t.texture !== null);
  for (const f of ['PARTY.BSX', 'ROBOT.BSX', 'CLOUD.BCX'])
    assert.ok(
      pages.some(t => t.path === `GAME/DEMO/FIELD/${f}`),
      f,
    );
  assert.ok(
    pages.every(
      t =>
        t.width === 256 &&
        t.height === 256 &&
        /page \(\d+, \d+\) clut \(\d+, \d+\)/.test(t.format) &&
        t.materials.length > 0,
    ),
    JSON.stringify(pages),
  );
  assert.equal(await page.locator('#texture-cards .texture-card').count(), list.length);
  // WATER.TGA: its TGA header's size (u16 at bytes 12 and 14), its format, its users.
  const tga = readFileSync(join(dir, 'DEMO/TEXTURE/WATER.TGA'));
  const water = list.find(t => t.path === 'GAME/DEMO/TEXTURE/WATER.TGA');
  assert.deepEqual([water.width, water.height], [tga.readUInt16LE(12), tga.readUInt16LE(14)]);
  assert.match(water.format, /TGA/);
  assert.deepEqual(water.users.materials, ['demo:water_mtl']);
  assert.ok(
    water.users.files.includes('GAME/DEMO/MATERIAL/DEMO.BMF') &&
      water.users.files.includes('GAME/DEMO/VIDEO/POOL.BGF'),
    JSON.stringify(water.users),
  );
  // On the page its card links to each user; a link opens it.
  const card = page.locator('#texture-cards .texture-card[data-path="GAME/DEMO/TEXTURE/WATER.TGA"]');
  await page.waitForFunction(() =>
    document.querySelector(
      '#texture-cards .texture-card[data-path="GAME/DEMO/TEXTURE/WATER.TGA"] .card-users a',
    ),
  );
  const links = await card.locator('.card-users a').evaluateAll(as => as.map(a => a.dataset.path));
  assert.deepEqual(links.sort(), water.users.files.slice().sort());
  assert.match(
    await card.locator('.card-meta').textContent(),
    new RegExp(`^${water.width} × ${water.height} · `),
  );
  // A page at full size: the texel under the pointer, and what VRAM holds there.
  const party = page.locator('#texture-cards .texture-card[data-path="GAME/DEMO/FIELD/PARTY.BSX"]').first();
  await party.locator('.card-name').click();
  await page.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  const view = await page.evaluate(() => window.relicview.flatView());
  assert.deepEqual([view.width, view.height], [256, 256]);
  await page.evaluate(() => window.relicview.setPictureZoom(1));
  const texel = await page.evaluate(() => {
    const c = document.getElementById('picture-canvas').getBoundingClientRect();
    return window.relicview.pictureAt(c.width / 2, c.height / 2);
  });
  assert.ok(
    texel &&
      /^VRAM word 0x[0-9A-F]{4} at \(\d+, \d+\)( · CLUT index \d+ of the CLUT at \(\d+, \d+\))? · colour 0x[0-9A-F]{4}: red \d+ green \d+ blue \d+ of 31/.test(
        texel.source,
      ),
    JSON.stringify(texel),
  );
  assert.match(await page.locator('#picture-readout').textContent(), /VRAM word/);
  // Its PNG: 256 × 256, decoded by pngjs.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#picture-png').click()]);
  assert.match(download.suggestedFilename(), /^PARTY\.BSX\.page\d+\.png$/);
  const png = PNG.sync.read(readFileSync(await download.path()));
  assert.deepEqual([png.width, png.height], [256, 256]);
  // Back to the gallery; the water's PNG from its card.
  await page.locator('#picture-back').click();
  await page.waitForFunction(() => window.relicview.flatView()?.mode === 'textures');
  const [waterPng] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('#texture-cards .texture-card[data-path="GAME/DEMO/TEXTURE/WATER.TGA"] .button').click(),
  ]);
  assert.equal(waterPng.suggestedFilename(), 'WATER.TGA.png');
  const decoded = PNG.sync.read(readFileSync(await waterPng.path()));
  assert.deepEqual([decoded.width, decoded.height], [water.width, water.height]);
  // A user's link opens that file.
  await page
    .locator(
      '#texture-cards .texture-card[data-path="GAME/DEMO/TEXTURE/WATER.TGA"] .card-users a[data-path="GAME/DEMO/VIDEO/POOL.BGF"]',
    )
    .click();
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'GAME/DEMO/VIDEO/POOL.BGF');
  assert.equal(await page.evaluate(() => window.relicview.flatView()), null);
  assert.deepEqual(problems, []);
  await page.close();
});

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test('a texture opened at full size from the gallery fills the info pane: its size, where it comes from, who uses it', async () => {
    const { page: p, problems, close } = await on.page();
    await p.locator('#textures-button').click();
    await p.waitForFunction(() =>
      /\d+ textures?:/.test(document.getElementById('texture-gallery-status').textContent),
    );
    await p.locator('#texture-cards .texture-card[data-path="DEMO/TEXTURE/WATER.TGA"] .card-name').click();
    await p.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
    assert.equal(await p.locator('#info-title').textContent(), 'DEMO/TEXTURE/WATER.TGA');
    const info = await p.locator('#info-body').textContent();
    assert.match(info, /texture\d+ × \d+/);
    assert.match(info, /fromDEMO\/TEXTURE\/WATER\.TGA/);
    await axe(p, 'a texture at full size');
    assert.deepEqual(problems, []);
    await close();
  });
}
