// What a new user trips over, round four: a field model as it is on the disc (LZS) and cut
// short, a pause that does not follow into the next file, the search's ↓ going to the first
// match, and a character's clips named as the game plays them.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { makeArchive, startServer, launch, sizedPage, listedPage, axeClean, repo } from './harness.mjs';
import { compressLzs, unwrapLzs, trianglesInside } from './ff7.mjs';
import { scratchDir } from './scratch.mjs';

const ff7 = name => readFileSync(join(repo, '../shared/testdata', name));
const MD1_1 = ff7('ff7/MD1_1_u.BSX');
// MD1_1 as on the disc, rebuilt by the tests' own LZS encoder (written from the notes, not
// relicview's), then cut at three quarters of its container (past its models section: half
// decodes to less than that); and Cloud's BCX as on the disc, cut to half.
const PACKED = compressLzs(MD1_1);
const HALF = PACKED.subarray(0, Math.floor(PACKED.length * 0.75));
const CLOUD = ff7('ff7-disc/CLOUD.BCX');

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  const put = (path, bytes) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  };
  put('FF7/HALF.BSX', HALF);
  put('FF7/CLOUDCUT.BCX', CLOUD.subarray(0, CLOUD.length >> 1));
  put('FF7/MD1_1.BSX', MD1_1);
  put('FF7/CLOUD.BCX', CLOUD);
  put('TEXTS/README.TXT', 'a note beside the game\n');
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const page = size => listedPage(browser, server.url, size);

const open = (page, path) =>
  page.evaluate(
    p =>
      window.relicview.open(p).then(
        r => r,
        e => ({ error: e.message }),
      ),
    path,
  );

const axe = axeClean;

test('a field model as on the disc (LZS) cut short is read as its container: what decoded is drawn, damaged where the compressed data ends', async () => {
  const decoded = Buffer.from(
    unwrapLzs(Buffer.concat([Buffer.from(new Uint32Array([HALF.length - 4]).buffer), HALF.subarray(4)])),
  );
  const expected = trianglesInside(decoded);
  assert.ok(
    expected.some(m => m.triangles > 0) && decoded.length < MD1_1.length,
    `half the container holds whole parts: ${JSON.stringify(expected)}`,
  );
  const { page: p, problems, close } = await page();
  await open(p, 'FF7/HALF.BSX');
  assert.equal(await p.evaluate(() => window.relicview.entry('FF7/HALF.BSX').damaged), true);
  const message = await p.locator('#view-message').textContent();
  assert.match(
    message,
    new RegExp(
      `the LZS container ends at byte ${HALF.length} of the ${PACKED.length} its header says, which decompress to ${decoded.length} bytes, size_file says ${MD1_1.length} bytes`,
    ),
  );
  const info = await p.locator('#info-body').textContent();
  assert.match(info, /compressed \(LZS, cut short/, 'the info pane says it is compressed and cut');
  assert.doesNotMatch(info, /not compressed/);
  // Each model of its own draws what decoded of it.
  const options = await p.evaluate(() => window.relicview.choice().options);
  let drawn = 0;
  for (const [k, m] of expected.entries()) {
    if (m.character || !m.triangles) continue;
    const at = options.findIndex(o => o === `model ${k}` || o.startsWith(`model ${k} (`));
    const shown = await p.evaluate(at => window.relicview.choose(at), at);
    assert.equal(shown.triangles, m.triangles, `model ${k}`);
    drawn++;
  }
  assert.ok(drawn > 0);
  // Cloud's BCX from the disc, cut: an LZS container cut short, its header past what decoded.
  await open(p, 'FF7/CLOUDCUT.BCX');
  assert.match(
    await p.locator('#view-message').textContent(),
    /the LZS container ends at byte \d+ of the \d+ its header says/,
  );
  await axe(p, 'a cut container');
  assert.deepEqual(problems, []);
  await close();
});

test('each file opens playing: a pause stays with the file it was made on, a link that says paused pauses', async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/MAPS/ARENA1.MAP');
  await p.locator('#play-button').click();
  assert.equal(await p.evaluate(() => window.relicview.clock().playing), false, 'paused');
  await open(p, 'DEMO/VIDEO/POOL.BGF');
  assert.equal(await p.locator('#play-button').textContent(), 'pause', 'the water runs in the next file');
  assert.equal(await p.evaluate(() => window.relicview.clock().playing), true);
  await p.locator('#play-button').click();
  await open(p, 'FF7/MD1_1.BSX');
  assert.equal(await p.evaluate(() => window.relicview.clock().playing), true, 'the field model plays');
  // A link made while paused opens paused.
  await p.locator('#play-button').click();
  const link = await p.evaluate(() => window.relicview.permalink());
  assert.match(link, /paused/);
  const other = await sizedPage(browser, link, [1400, 850]);
  await other.page.waitForFunction(() => window.relicview.lastOpen()?.path === 'FF7/MD1_1.BSX');
  assert.equal(
    await other.page.evaluate(() => window.relicview.clock().playing),
    false,
    'the link says paused',
  );
  await other.close();
  assert.deepEqual(problems, []);
  await close();
});

test('search then ↓ (or Enter) opens the first match, whichever file was open', async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/TOWER.BGF');
  await p.locator('#search').fill('.BGF');
  const first = await p.evaluate(() => window.relicview.shownFiles()[0]);
  assert.notEqual(first, 'DEMO/VIDEO/TOWER.BGF', 'the open file is not the first match');
  await p.locator('#search').press('ArrowDown');
  await p.waitForFunction(f => window.relicview.lastOpen()?.path === f, first);
  await open(p, 'DEMO/VIDEO/TOWER.BGF');
  await p.locator('#search').focus();
  await p.locator('#search').press('Enter');
  await p.waitForFunction(f => window.relicview.lastOpen()?.path === f, first);
  assert.deepEqual(problems, []);
  await close();
});

test("a playable character's first three clips are named stand, walk and run in the picker; a field's own keep their numbers", async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'FF7/CLOUD.BCX');
  const bcx = await p.evaluate(() => window.relicview.choice().options);
  assert.match(bcx[1], /^model 0: animation 0, stand \(/);
  assert.match(bcx[2], /^model 0: animation 1, walk \(/);
  assert.match(bcx[3], /^model 0: animation 2, run \(/);
  await open(p, 'FF7/MD1_1.BSX');
  const field = await p.evaluate(() => window.relicview.choice().options);
  // Cloud (model 0) with his BCX's three and the field's own after them; an NPC's by number.
  assert.ok(
    field.some(o => /^model 0: animation 1, walk \(/.test(o)),
    JSON.stringify(field),
  );
  assert.ok(
    field.some(o => /^model 0: animation 3 \(/.test(o)),
    "the field's own clip keeps its number",
  );
  assert.ok(
    field.some(o => /^model 3: animation 0 \(/.test(o)),
    "an NPC's clips keep their numbers",
  );
  assert.ok(!field.some(o => /^model 3: animation \d, (stand|walk|run)/.test(o)));
  assert.deepEqual(problems, []);
  await close();
});

test('Export all leaves the file on show in the info pane; its outcome stays in its own line until cleared', async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/HEXPOD.BGF');
  const title = await p.locator('#info-title').textContent();
  const [download] = await Promise.all([p.waitForEvent('download'), p.locator('#export-all-button').click()]);
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

// The canvas's pixels, as a hash.
// (The clock held at 0: a scroll or a door would change it from frame to frame.)
const picture = page =>
  page.evaluate(async () => {
    await window.relicview.setClock({ time: 0, playing: false });
    await window.relicview.frame();
    const { data } = window.relicview.readPixels();
    let h = 0;
    for (let i = 0; i < data.length; i += 7) h = (h * 31 + data[i]) | 0;
    return h;
  });

test("colour by zone is the zoned files' mode: a file without zones keeps its colours and its link leaves it out", async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/TOWER.BGF');
  const own = await picture(p);
  await open(p, 'DEMO/VIDEO/WALKER.BGF');
  const plainWalker = await picture(p);
  await p.locator('#opt-zone-colours').check();
  assert.notEqual(await picture(p), plainWalker, "the walker in its zones' colours");
  assert.match(await p.evaluate(() => window.relicview.permalink()), /zones=1/);
  await open(p, 'DEMO/VIDEO/TOWER.BGF');
  assert.equal(await picture(p), own, 'the tower as it always is: textures and colours');
  assert.doesNotMatch(
    await p.evaluate(() => window.relicview.permalink()),
    /zones=/,
    'its link does not carry the mode',
  );
  await open(p, 'FF7/MD1_1.BSX');
  assert.doesNotMatch(await p.evaluate(() => window.relicview.permalink()), /zones=/);
  // Back to a zoned file: coloured again, and the switch that turns it off beside it.
  await open(p, 'DEMO/VIDEO/WALKER.BGF');
  assert.equal(await p.locator('#opt-zone-colours').isChecked(), true);
  await p.locator('#opt-zone-colours').uncheck();
  assert.equal(await picture(p), plainWalker);
  await axe(p, 'the walker in its own colours');
  assert.deepEqual(problems, []);
  await close();
});

test('the damage note sits at the top of the view, off the model it says is drawn, and can be dismissed; the info pane keeps it', async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'FF7/HALF.BSX');
  const [box, view] = await Promise.all(['#view-message', '#viewport'].map(s => p.locator(s).boundingBox()));
  const middle = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
  assert.ok(
    box.y + box.height < middle.y - view.height * 0.15,
    `the note (${JSON.stringify(box)}) stays off the middle of the view (${JSON.stringify(view)})`,
  );
  await axe(p, 'the damage note');
  await p.locator('#view-message-actions button', { hasText: 'dismiss' }).click();
  assert.equal(await p.locator('#view-message').isVisible(), false);
  assert.match(
    await p.locator('#info-body').textContent(),
    /damaged.*LZS container ends at byte/s,
    'the info pane still says why',
  );
  assert.deepEqual(problems, []);
  await close();
});

test("the info pane's drawn row follows the LOD on show", async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/HEXPOD.BGF');
  const row = () =>
    p.evaluate(() => {
      const dt = [...document.querySelectorAll('#info-body dt')].find(d => d.textContent.startsWith('drawn'));
      return `${dt.textContent}: ${dt.nextElementSibling.textContent}`;
    });
  assert.match(await row(), /^drawn \(LOD 0\): 26 triangles/);
  const rowSays = text =>
    p.waitForFunction(
      t => [...document.querySelectorAll('#info-body dt')].some(d => d.textContent === t),
      text,
    );
  await p.locator('#lod-select').selectOption('1');
  await rowSays('drawn (LOD 1)');
  assert.equal(await row(), 'drawn (LOD 1): 20 triangles');
  await p.locator('#lod-select').selectOption('0');
  await rowSays('drawn (LOD 0)');
  assert.match(await row(), /^drawn \(LOD 0\): 26 triangles · \d+ vertices/);
  assert.deepEqual(problems, []);
  await close();
});

test('after a comparison chosen with the keyboard its keys work at once, and ? opens the help, never typed into the search box', async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  await p.locator('#file-list').focus();
  await p.keyboard.press('Shift+F10');
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('Enter');
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => window.relicview.comparison()?.b);
  await p.waitForFunction(() => document.activeElement?.id === 'viewport');
  const mode = (await p.evaluate(() => window.relicview.comparison())).mode;
  await p.keyboard.press('c');
  await p.waitForFunction(m => window.relicview.comparison().mode !== m, mode);
  await p.keyboard.press('?');
  assert.equal(await p.locator('#help').isVisible(), true, 'the help');
  await p.keyboard.press('Escape');
  // From the list too: ? is the help's, not a search.
  await p.locator('#file-list').focus();
  await p.keyboard.press('?');
  assert.equal(await p.locator('#help').isVisible(), true);
  await p.keyboard.press('Escape');
  assert.equal(await p.locator('#search').inputValue(), '', 'nothing typed into the search box');
  assert.equal(await p.locator('#no-matches').isVisible(), false);
  await axe(p, 'a comparison chosen by keyboard');
  assert.deepEqual(problems, []);
  await close();
});

// WCAG's contrast ratio of two sRGB colours ([r, g, b], 0–255).
function contrast(a, b) {
  const lum = ([r, g, bl]) =>
    [r, g, bl]
      .map(c => c / 255)
      .map(c => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      .reduce((s, c, k) => s + c * [0.2126, 0.7152, 0.0722][k], 0);
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

test("the view's corner figures are readable over a bright model and on every background", async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  for (const bg of ['dark', 'light', 'checker']) {
    await p.evaluate(b => window.relicview.setOptions({ background: b }), bg);
    const { color, plate } = await p.evaluate(() => {
      const s = getComputedStyle(document.getElementById('hud'));
      return { color: s.color, plate: s.backgroundColor };
    });
    const rgb = c =>
      c
        .match(/[\d.]+/g)
        .slice(0, 3)
        .map(Number);
    const alpha = Number(plate.match(/[\d.]+/g)[3] ?? 1);
    assert.ok(alpha >= 0.75, `${bg}: the figures sit on a plate (${plate})`);
    // The plate over the brightest thing that can be behind it (white) and the darkest.
    for (const under of [
      [255, 255, 255],
      [0, 0, 0],
    ]) {
      const seen = rgb(plate).map((c, k) => c * alpha + under[k] * (1 - alpha));
      assert.ok(
        contrast(rgb(color), seen) >= 4.5,
        `${bg}: ${color} on ${plate} over ${under}: ${contrast(rgb(color), seen).toFixed(2)}`,
      );
    }
  }
  assert.deepEqual(problems, []);
  await close();
});

test('a texture opened at full size from the gallery fills the info pane: its size, where it comes from, who uses it', async () => {
  const { page: p, problems, close } = await page();
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

test("a phone (430 × 900, touch): the help table fits its card, the display menu stays inside the window, a comparison's second file brings the view into sight", async () => {
  const phone = await sizedPage(browser, server.url, [430, 900], { hasTouch: true, isMobile: true });
  const { page: p, problems } = phone;
  await p.waitForFunction(() => window.relicview.listing().files > 0 && window.relicview.lastOpen() !== null);
  await open(p, 'DEMO/MAPS/ARENA1.MAP');
  await p.locator('#display-menu > summary').tap();
  const menu = await p.evaluate(() => ({
    right: document.querySelector('#display-menu .menu-body').getBoundingClientRect().right,
    width: document.documentElement.clientWidth,
    page: document.documentElement.scrollWidth,
  }));
  assert.ok(
    menu.right <= menu.width && menu.page <= menu.width,
    `the menu inside the window: ${JSON.stringify(menu)}`,
  );
  await p.locator('#display-menu > summary').tap();
  await p.locator('#help-button').tap();
  const help = await p.evaluate(() => ({
    table: document.getElementById('help-keys').scrollWidth,
    card: document.querySelector('.help-card').clientWidth,
  }));
  assert.ok(help.table <= help.card, `the keys' table fits its card: ${JSON.stringify(help)}`);
  await axe(p, 'the help on a phone');
  await p.locator('#help-close').tap();
  // A comparison: the second file chosen in the list, the view comes into sight.
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  await p.locator('#compare-with-button').tap();
  await p.locator('#search').fill('TOWER');
  await p.locator('#file-list li[data-path="DEMO/VIDEO/TOWER.BGF"]').tap();
  await p.waitForFunction(() => window.relicview.comparison()?.b === 'DEMO/VIDEO/TOWER.BGF');
  await p.waitForFunction(() => {
    const r = document.getElementById('stage').getBoundingClientRect();
    return r.top < innerHeight / 2 && r.bottom > 0;
  });
  assert.deepEqual(problems, []);
  await phone.close();
});

test('a link to a file inside a dropped zip asks for that zip by name, and comes back from the zip or the folder that holds it', async () => {
  // A zip made by Python's zipfile, in a folder of its own with a file beside it.
  const holder = scratchDir('round4');
  mkdirSync(join(holder, 'GAMES'));
  execFileSync('python3', [
    '-c',
    `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
for name in sys.argv[3:]:
    z.write(sys.argv[2] + '/' + name, name)
z.close()`,
    join(holder, 'GAMES/demo.zip'),
    dir,
    'DEMO/VIDEO/TOWER.BGF',
    'DEMO/VIDEO/CUBE.BGF',
  ]);
  writeFileSync(join(holder, 'GAMES/README.TXT'), 'the demo, zipped\n');
  const zip = join(holder, 'GAMES/demo.zip');
  const target = 'demo.zip/DEMO/VIDEO/TOWER.BGF';

  // Dropped alone, opened at the tower: the link.
  const first = await sizedPage(browser, server.url + '#folder=none', [1400, 850]);
  await first.page.locator('#files-input').setInputFiles([zip]);
  await first.page.waitForFunction(t => window.relicview.shownFiles().includes(t), target);
  await first.page.evaluate(t => window.relicview.open(t), target);
  const link = await first.page.evaluate(() => window.relicview.permalink());
  assert.match(decodeURIComponent(link), /folder=[^&]+.*path=demo\.zip\/DEMO\/VIDEO\/TOWER\.BGF/);
  await first.close();

  // A fresh page at the link asks for the zip by name, and offers to open it.
  for (const chosen of [[zip], join(holder, 'GAMES')]) {
    const fresh = await sizedPage(browser, link, [1400, 850]);
    const p = fresh.page;
    await p.waitForFunction(() => /demo\.zip/.test(document.getElementById('view-message').textContent));
    const note = await p.locator('#view-message').textContent();
    assert.match(note, /DEMO\/VIDEO\/TOWER\.BGF inside demo\.zip/);
    assert.doesNotMatch(note, /Drop that folder/);
    assert.equal(
      await p.locator('#view-message-actions button', { hasText: 'Open demo.zip…' }).isVisible(),
      true,
    );
    await axe(p, 'a link waiting for its zip');
    // The zip itself, or the folder that holds it (with a file beside it): the view comes back.
    await p.locator(Array.isArray(chosen) ? '#files-input' : '#folder-input').setInputFiles(chosen);
    await p.waitForFunction(
      () => /demo\.zip\/DEMO\/VIDEO\/TOWER\.BGF$/.test(window.relicview.lastOpen()?.path || ''),
      null,
      { timeout: 20_000 },
    );
    assert.doesNotMatch(await p.locator('#info-title').textContent(), /does not match/);
    assert.deepEqual(fresh.problems, [], String(chosen));
    await fresh.close();
  }
});

test('a .txt is badged as text in the list and opens as text', async () => {
  const { page: p, problems, close } = await page();
  await p.locator('#search').fill('README.TXT');
  const badge = await p.locator('#file-list li[data-path="TEXTS/README.TXT"] .kind').textContent();
  assert.equal(badge.trim(), 'TXT');
  await p.locator('#search').fill('');
  const opened = await open(p, 'TEXTS/README.TXT');
  assert.ok(!opened.error, JSON.stringify(opened));
  assert.match(await p.locator('#info-body').textContent(), /formattext/);
  assert.deepEqual(problems, []);
  await close();
});

test("a phone: the Parts switches sit right under the view, and a picture's tools above it, in sight once it opens", async () => {
  const phone = await sizedPage(browser, server.url, [430, 900], { hasTouch: true, isMobile: true });
  const { page: p, problems } = phone;
  await p.waitForFunction(() => window.relicview.listing().files > 0 && window.relicview.lastOpen() !== null);
  await p.locator('#search').fill('WALKER');
  await p.locator('#file-list li[data-path="DEMO/VIDEO/WALKER.BGF"]').tap();
  await p.waitForFunction(
    () =>
      window.relicview.lastOpen()?.path === 'DEMO/VIDEO/WALKER.BGF' &&
      !document.getElementById('parts').hidden,
  );
  const gap = await p.evaluate(
    () =>
      document.getElementById('opt-zone-colours').getBoundingClientRect().top -
      document.getElementById('view').getBoundingClientRect().bottom,
  );
  assert.ok(gap >= 0 && gap < 120, `the zone switches ${gap} px under the view`);
  await p.locator('#opt-zone-colours').tap();
  assert.equal(
    await p.evaluate(() => window.relicview.permalink().includes('zones=1')),
    true,
    'the switch works where it sits',
  );
  await axe(p, 'the Parts under the view on a phone');
  await p.locator('#search').fill('WATER');
  await p.locator('#file-list li[data-path="DEMO/TEXTURE/WATER.TGA"]').tap();
  await p.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  const tools = await p.evaluate(() => {
    const t = document.getElementById('picture-tools').getBoundingClientRect();
    const c = document.getElementById('picture-canvas').getBoundingClientRect();
    return { top: t.top, bottom: t.bottom, canvas: c.top, height: innerHeight };
  });
  assert.ok(
    tools.bottom <= tools.canvas + 1 && tools.top >= 0 && tools.bottom <= tools.height,
    `the picture's tools above it and in sight: ${JSON.stringify(tools)}`,
  );
  assert.deepEqual(problems, []);
  await phone.close();
});
