// PlayStation TIM images in the page (docs/formats/tim.md): written here from the layout in
// the notes into the demo archive, a 4-bit one with two CLUT rows opens in the flat view at
// its size, zooms, and reads out under the pointer the texel's CLUT index and colour word as
// the test computes them from the bytes; the texture gallery lists each with its size.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { servedArchive, newPage, walk, loadFolder } from './harness.mjs';

// tag 0x10, flags (bits 0–1 the depth, bit 3 a CLUT), then each block: u32 length (its
// 12-byte header included), u16 x, y, width, height, then width × height halfwords.
function tim(depth, clut, width, height, data) {
  const block = (x, y, w, h, bytes) => {
    const head = Buffer.alloc(12);
    head.writeUInt32LE(12 + bytes.length, 0);
    [x, y, w, h].forEach((v, i) => head.writeUInt16LE(v, 4 + 2 * i));
    return Buffer.concat([head, bytes]);
  };
  const header = Buffer.alloc(8);
  header.writeUInt32LE(0x10, 0);
  header.writeUInt32LE({ 4: 0, 8: 1, 16: 2, 24: 3 }[depth] | (clut ? 8 : 0), 4);
  return Buffer.concat([
    header,
    ...(clut ? [block(0, 480, clut.colours, clut.rows, clut.bytes)] : []),
    block(640, 0, width, height, data),
  ]);
}

// Halfword colours: (i * 2 + 1) in red, i in blue, and colour 0 left 0x0000 (transparent).
const colours = Buffer.alloc(2 * 16 * 2);
for (let i = 1; i < 32; i++) colours.writeUInt16LE(((i % 16) * 2 + 1) | ((i % 16) << 10), 2 * i);
// 6 halfwords × 4 lines at 4 bits: 24 × 4 texels, indices counting up from the low nibble.
const texels = Buffer.alloc(6 * 4 * 2);
for (let i = 0; i < texels.length; i++) texels[i] = ((2 * i) % 16) | (((2 * i + 1) % 16) << 4);

const ctx = servedArchive(dir => {
  mkdirSync(join(dir, 'PSX'), { recursive: true });
  writeFileSync(join(dir, 'PSX/FOUR.TIM'), tim(4, { colours: 16, rows: 2, bytes: colours }, 6, 4, texels));
  writeFileSync(join(dir, 'PSX/TRUE.TIM'), tim(16, null, 3, 2, colours.subarray(2, 14)));
});

const expand = v => (v << 3) | (v >> 2);

test("a TIM opens in the flat view at its size and reads out each texel's CLUT index and colour word; the gallery lists it", async () => {
  const { dir } = ctx;
  const { page, problems } = await newPage(ctx.browser, ctx.server.url);
  await loadFolder(page, dir, walk(dir).length);
  const entry = await page.evaluate(() => window.relicview.entry('GAME/PSX/FOUR.TIM'));
  assert.equal(entry.kind, 'tim', JSON.stringify(entry));
  await page.evaluate(() => window.relicview.open('GAME/PSX/FOUR.TIM'));
  await page.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  // 6 halfwords at 4 bits a texel: 24 texels a row (the notes' arithmetic).
  const view = await page.evaluate(() => window.relicview.flatView());
  assert.deepEqual([view.width, view.height], [24, 4]);
  assert.equal(await page.evaluate(() => window.relicview.setPictureZoom(16)), 16);
  // Texels far apart: found from the one under the middle of the view, 16 screen pixels a
  // texel away.
  const middle = await page.evaluate(() => {
    const c = document.getElementById('picture-canvas').getBoundingClientRect();
    return { w: c.width / 2, h: c.height / 2, texel: window.relicview.pictureAt(c.width / 2, c.height / 2) };
  });
  assert.ok(middle.texel, 'a texel under the middle of the view');
  for (const [tx, ty] of [
    [1, 0],
    [22, 3],
    [13, 2],
  ]) {
    const t = await page.evaluate(
      ([x, y]) => window.relicview.pictureAt(x, y),
      [middle.w + 16 * (tx - middle.texel.x), middle.h + 16 * (ty - middle.texel.y)],
    );
    assert.deepEqual([t?.x, t?.y], [tx, ty], JSON.stringify(t));
    // The texel's halfword, its nibble from the low bits, and the first CLUT row's colour.
    const word = texels.readUInt16LE(2 * (t.y * 6 + Math.floor(t.x / 4)));
    const index = (word >> (4 * (t.x % 4))) & 15;
    const colour = colours.readUInt16LE(2 * index);
    const hex = `0x${colour.toString(16).toUpperCase().padStart(4, '0')}`;
    assert.equal(t.source, `CLUT index ${index} · colour word ${hex}`, JSON.stringify(t));
    const rgb = [colour & 31, (colour >> 5) & 31, (colour >> 10) & 31].map(expand);
    assert.deepEqual(t.rgba, colour === 0 ? [0, 0, 0, 0] : [...rgb, 255], JSON.stringify(t));
    assert.match(
      await page.locator('#picture-readout').textContent(),
      new RegExp(`CLUT index ${index} · colour word ${hex}`),
    );
  }
  // The last open is the TIM's.
  const info = await page.evaluate(() => window.relicview.lastOpen());
  assert.equal(info.path, 'GAME/PSX/FOUR.TIM');
  // The gallery: both TIMs, with their sizes and their depth.
  await page.locator('#textures-button').click();
  await page.waitForFunction(
    () => /textures?:/.test(document.getElementById('texture-gallery-status').textContent),
    null,
    { timeout: 60000 },
  );
  const list = await page.evaluate(() => window.relicview.textures());
  const four = list.find(t => t.path === 'GAME/PSX/FOUR.TIM');
  const truecolour = list.find(t => t.path === 'GAME/PSX/TRUE.TIM');
  assert.deepEqual([four?.width, four?.height, four?.texture], [24, 4, null], JSON.stringify(four));
  assert.match(four.format, /TIM, 4 bits/);
  assert.deepEqual([truecolour?.width, truecolour?.height], [3, 2], JSON.stringify(truecolour));
  // Opened from its card it reads out as in the flat view.
  await page.locator('#texture-cards .texture-card[data-path="GAME/PSX/TRUE.TIM"] .card-name').click();
  await page.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  await page.evaluate(() => window.relicview.setPictureZoom(32));
  const t = await page.evaluate(() => {
    const c = document.getElementById('picture-canvas').getBoundingClientRect();
    return window.relicview.pictureAt(c.width / 2, c.height / 2);
  });
  const word = colours.readUInt16LE(2 + 2 * (t.y * 3 + t.x));
  assert.equal(
    t.source,
    `colour word 0x${word.toString(16).toUpperCase().padStart(4, '0')}`,
    JSON.stringify(t),
  );
  assert.deepEqual(problems, []);
  await page.close();
});
