// Files that are cut short or wrong, as a reader meets them: what decoded is drawn and the
// damage said where it is, every failing kind says why over the view, a cut container in a
// folder is a red row, and a model missing what it needs says so.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sizedPage, axeClean as axe, loadFolder, walk } from './harness.mjs';
import { trianglesInside, unwrapLzs } from './ff7.mjs';
import { scratchDir } from './scratch.mjs';
import {
  discArchive,
  oddArchive,
  MD1_1,
  PACKED,
  HALF,
  open,
  clickRow,
  onScreen,
  THREE_D,
  launched,
  servedBeside,
} from './fixtures.mjs';

const ctx = launched();

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test('a field model as on the disc (LZS) cut short is read as its container: what decoded is drawn, damaged where the compressed data ends', async () => {
    const decoded = Buffer.from(
      unwrapLzs(Buffer.concat([Buffer.from(new Uint32Array([HALF.length - 4]).buffer), HALF.subarray(4)])),
    );
    const expected = trianglesInside(decoded);
    assert.ok(
      expected.some(m => m.triangles > 0) && decoded.length < MD1_1.length,
      `half the container holds whole parts: ${JSON.stringify(expected)}`,
    );
    const { page: p, problems, close } = await on.page();
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

  test('the damage note sits at the top of the view, off the model it says is drawn, and can be dismissed; the info pane keeps it', async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'FF7/HALF.BSX');
    const [box, view] = await Promise.all(
      ['#view-message', '#viewport'].map(s => p.locator(s).boundingBox()),
    );
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
}

// On files that fail or are odd (fixtures.mjs, oddArchive).
{
  const on = servedBeside(() => ctx.browser, oddArchive);

  test('every failing kind says why over the view when opened: a cut zip, a cut ISO, a bad BGF, a bad BSX, a bad image', async () => {
    const { page: p, problems, close } = await on.page();
    const cases = [
      ['BAD/CUT.ZIP', /zip/i],
      ['BAD/CUT.ISO', /ISO|9660|directory|sector|extent/i],
      ['DEMO/VIDEO/BROKEN.BGF', /at byte \d+/],
      ['FF7/BAD.BSX', /size_file says 100 bytes, the file has 69744/],
      [
        'BAD/BAD.TGA',
        /TGA cut short: its header promises 4096 × 4096 texels at 32 bits, 67108882 bytes in all; the file has 82/,
      ],
    ];
    for (const [path, why] of cases) {
      // As a reader opens it: a click on its row.
      await clickRow(p, path);
      await p.waitForFunction(
        path =>
          document.getElementById('info-title').textContent === path &&
          !document.getElementById('view-message').hidden,
        path,
      );
      const box = p.locator('#view-message');
      assert.equal(await box.isVisible(), true, path);
      const said = await box.textContent();
      assert.match(said, why, path);
      // The path once, as its title, then the reason.
      assert.equal(said.split(path).length - 1, 1, `${path} named once: ${said}`);
      assert.ok(said.length > path.length + 10, said);
      assert.equal(await p.evaluate(path => window.relicview.entry(path).failed, path), true, path);
      const shown = await onScreen(p);
      assert.deepEqual(
        shown.filter(id => THREE_D.includes(id)),
        [],
        `${path}: ${JSON.stringify(shown)}`,
      );
    }
    await axe(p, 'a failed file');
    assert.deepEqual(problems, []);
    await close();
  });

  test('a cut zip dropped as part of a folder is a red row that says why when opened', async () => {
    const {
      page: p,
      problems,
      close,
    } = await sizedPage(ctx.browser, on.server.url + '#folder=none', [1400, 850]);
    const own = scratchDir('dropcut');
    mkdirSync(join(own, 'D'));
    writeFileSync(join(own, 'D/CUT.ZIP'), readFileSync(join(on.dir, 'BAD/CUT.ZIP')));
    writeFileSync(join(own, 'D/CUT.ISO'), readFileSync(join(on.dir, 'BAD/CUT.ISO')));
    writeFileSync(join(own, 'D/CUBE.BGF'), readFileSync(join(on.dir, 'DEMO/VIDEO/CUBE.BGF')));
    await loadFolder(p, own, walk(own).length);
    const top = own.split('/').pop();
    for (const path of [`${top}/D/CUT.ZIP`, `${top}/D/CUT.ISO`]) {
      assert.equal(
        await p.evaluate(path => window.relicview.entry(path)?.failed, path),
        true,
        `${path} stays a file, marked`,
      );
      await clickRow(p, path);
      await p.waitForFunction(
        path =>
          document.getElementById('info-title').textContent === path &&
          !document.getElementById('view-message').hidden,
        path,
      );
      assert.match(
        await p.locator('#view-message').textContent(),
        new RegExp(`${path.replace('.', '\\.')}\\n\\S`),
      );
    }
    assert.deepEqual(problems, []);
    await close();
  });

  test('a field model cut short draws the models and parts that lie wholly inside, is marked damaged and says where it ends', async () => {
    const { page: p, problems, close } = await on.page();
    const expected = trianglesInside(MD1_1.subarray(0, 36000));
    const whole = trianglesInside(MD1_1);
    assert.ok(
      expected[2].triangles === whole[2].triangles &&
        expected[3].triangles > 0 &&
        expected[3].triangles < whole[3].triangles &&
        expected.length === 7,
      JSON.stringify(expected),
    );
    await clickRow(p, 'FF7/CUT36000.BSX');
    await p.waitForFunction(() => window.relicview.lastOpen()?.path === 'FF7/CUT36000.BSX');
    assert.equal(await p.evaluate(() => window.relicview.entry('FF7/CUT36000.BSX').damaged), true);
    assert.match(
      await p.locator('#view-message').textContent(),
      /CUT36000\.BSX is damaged: .*the file ends at byte 36000, size_file says 69744 bytes; left out: model\[3\]: parts 7 to 14/s,
    );
    // Each model of its own (not a character's) draws what the bytes hold of it.
    const options = await p.evaluate(() => window.relicview.choice().options);
    for (const [k, m] of expected.entries()) {
      if (m.character) continue;
      const at = options.findIndex(o => o === `model ${k}` || o.startsWith(`model ${k} (`));
      assert.ok(at >= 0, `model ${k} in ${JSON.stringify(options)}`);
      const drawn = await p.evaluate(at => window.relicview.choose(at), at);
      assert.equal(drawn.triangles, m.triangles, `model ${k}`);
    }
    // Cut before its models section: nothing to draw, and it says so.
    await open(p, 'FF7/CUT30000.BSX');
    assert.equal(await p.evaluate(() => window.relicview.entry('FF7/CUT30000.BSX').damaged), true);
    assert.match(
      await p.locator('#view-message').textContent(),
      /ends at byte 30000.*the models section starts at byte 34636, past the end/s,
    );
    assert.deepEqual(problems, []);
    await close();
  });

  test('a model that needs a character file not in the archive says so over the view; the picker shows whole labels', async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'FF7/MD1_1.BSX');
    const options = await p.evaluate(() => window.relicview.choice().options);
    // Model 1 is character 3, whose BALLET.BCX is nowhere in the archive.
    const at = options.findIndex(o => o.startsWith('model 1 (BALLET.BCX'));
    assert.ok(at >= 0, JSON.stringify(options));
    await p.locator('#choice-select').selectOption(String(at));
    await p.waitForFunction(() => !document.getElementById('view-message').hidden);
    const said = await p.locator('#view-message').textContent();
    assert.match(said, /^Nothing to draw for model 1 \(BALLET\.BCX.*\)\.\n/);
    assert.match(said, /character 3: BALLET\.BCX is not in the archive/);
    // The picker is as wide as its label.
    const fits = await p.locator('#choice-select').evaluate(s => {
      const g = document.createElement('canvas').getContext('2d');
      g.font = getComputedStyle(s).font;
      return { text: g.measureText(s.options[s.selectedIndex].textContent).width, box: s.clientWidth };
    });
    assert.ok(fits.box >= fits.text + 16, JSON.stringify(fits));
    // A model that draws takes the note down.
    const drawn = options.indexOf('model 2');
    await p.locator('#choice-select').selectOption(String(drawn));
    await p.waitForFunction(() => document.getElementById('view-message').hidden);
    assert.deepEqual(problems, []);
    await close();
  });
}
