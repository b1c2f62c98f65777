// What a link and a drop restore: a link to a file inside a dropped zip, a link waiting for
// its folder, a second drop after a first, the same folder chosen again, and the landing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { newPage, sizedPage, axeClean as axe, loadFolder, walk, nativeInfo } from './harness.mjs';
import { scratchDir } from './scratch.mjs';
import { discArchive, sheetArchive, folder, onShow, launched, servedBeside } from './fixtures.mjs';

const ctx = launched();

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test('a link to a file inside a dropped zip asks for that zip by name, and comes back from the zip or the folder that holds it', async () => {
    // A zip made by Python's zipfile, in a folder of its own with a file beside it.
    const holder = scratchDir('link');
    mkdirSync(join(holder, 'GAMES'));
    execFileSync('python3', [
      '-c',
      `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
for name in sys.argv[3:]:
    z.write(sys.argv[2] + '/' + name, name)
z.close()`,
      join(holder, 'GAMES/demo.zip'),
      on.dir,
      'DEMO/VIDEO/TOWER.BGF',
      'DEMO/VIDEO/CUBE.BGF',
    ]);
    writeFileSync(join(holder, 'GAMES/README.TXT'), 'the demo, zipped\n');
    const zip = join(holder, 'GAMES/demo.zip');
    const target = 'demo.zip/DEMO/VIDEO/TOWER.BGF';

    // Dropped alone, opened at the tower: the link.
    const first = await sizedPage(ctx.browser, on.server.url + '#folder=none', [1400, 850]);
    await first.page.locator('#files-input').setInputFiles([zip]);
    await first.page.waitForFunction(t => window.relicview.shownFiles().includes(t), target);
    await first.page.evaluate(t => window.relicview.open(t), target);
    const link = await first.page.evaluate(() => window.relicview.permalink());
    assert.match(decodeURIComponent(link), /folder=[^&]+.*path=demo\.zip\/DEMO\/VIDEO\/TOWER\.BGF/);
    await first.close();

    // A fresh page at the link asks for the zip by name, and offers to open it.
    for (const chosen of [[zip], join(holder, 'GAMES')]) {
      const fresh = await sizedPage(ctx.browser, link, [1400, 850]);
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
}

// On the demo with the real FIELD.TDB (fixtures.mjs, sheetArchive).
{
  const on = servedBeside(() => ctx.browser, sheetArchive);

  test('a second drop after a first leaves no trace of the first: list, view, info, inspector, link', async () => {
    const { page, problems } = await newPage(ctx.browser, on.server.url + '#folder=none');
    await loadFolder(page, on.dir, walk(on.dir).length);
    await page.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
    const first = await onShow(page);
    assert.ok(first.triangles > 0 && first.drawn > 0 && first.records > 0);
    assert.match(first.hash, /folder=[^&]+&path=GAME\//);
    const firstPrint = first.hash.match(/folder=([^&]+)/)[1];

    // A folder with nothing to draw (a zip the viewer does not open yet, a note).
    const plain = folder('OTHER', {
      'GAME.ZIP': Buffer.from('PK\x03\x04not really'),
      'README.TXT': 'hello\n',
    });
    await loadFolder(page, plain, 2);
    await page.evaluate(() => window.relicview.rasterMs());
    const second = await onShow(page);
    assert.equal(second.triangles, 0, 'no triangles of the first archive');
    assert.equal(second.drawn, 0, 'the view is empty');
    assert.equal(second.title, 'No file open');
    assert.equal(second.info, '');
    assert.equal(second.records, 0, 'the inspector is empty');
    assert.deepEqual(second.selected, []);
    assert.deepEqual(second.listed.sort(), ['OTHER/GAME.ZIP', 'OTHER/README.TXT']);
    assert.doesNotMatch(second.message, /does not match|fingerprint/);
    assert.doesNotMatch(second.hash, /GAME\/|path=/, 'the address names nothing of the first archive');
    assert.ok(!second.hash.includes(firstPrint), second.hash);

    // A folder with a model: it opens, and the link is this folder's.
    const models = folder('MORE', { 'VIDEO/CUBE.BGF': readFileSync(join(on.dir, 'DEMO/VIDEO/CUBE.BGF')) });
    await loadFolder(page, models, 1);
    await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'MORE/VIDEO/CUBE.BGF');
    await page.evaluate(() => window.relicview.rasterMs());
    const third = await onShow(page);
    assert.ok(third.triangles > 0);
    assert.doesNotMatch(third.message, /does not match|fingerprint/);
    assert.match(third.hash, /path=MORE\/VIDEO\/CUBE\.BGF/);
    assert.ok(!third.hash.includes(firstPrint));
    assert.equal(third.title, 'MORE/VIDEO/CUBE.BGF');

    // A link to a file that is not there: its message over an empty view, not the old scene.
    await page.evaluate(() => {
      location.hash = '#path=MORE/VIDEO/GONE.BGF';
    });
    await page.waitForFunction(() =>
      /not in this archive/.test(document.getElementById('view-message').textContent),
    );
    await page.evaluate(() => window.relicview.rasterMs());
    const missing = await onShow(page);
    assert.equal(missing.triangles, 0);
    assert.equal(missing.drawn, 0);
    assert.equal(missing.records, 0);
    assert.deepEqual(missing.selected, []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a link waiting for its folder survives a wrong folder and comes back with the right one', async () => {
    const { page: maker } = await newPage(ctx.browser, on.server.url + '#folder=none');
    await loadFolder(maker, on.dir, walk(on.dir).length);
    await maker.evaluate(() => window.relicview.open('GAME/DEMO/VIDEO/HEXPOD.BGF'));
    const link = await maker.evaluate(() => window.relicview.permalink());
    await maker.close();
    const { page, problems } = await newPage(ctx.browser, link);
    const wrong = folder('WRONG', { 'VIDEO/CUBE.BGF': readFileSync(join(on.dir, 'DEMO/VIDEO/CUBE.BGF')) });
    await loadFolder(page, wrong, 1);
    await page.waitForFunction(() =>
      /does not match the link/.test(document.getElementById('view-message').textContent),
    );
    await loadFolder(page, on.dir, walk(on.dir).length);
    await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'GAME/DEMO/VIDEO/HEXPOD.BGF');
    assert.equal(await page.locator('#view-message').isVisible(), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the same folder chosen again is read again, and the input keeps no paths once a folder is taken', async () => {
    const { page, problems } = await newPage(ctx.browser, on.server.url);
    const models = folder('MODELS', { 'VIDEO/CUBE.BGF': readFileSync(join(on.dir, 'DEMO/VIDEO/CUBE.BGF')) });
    // An open of the model newer than the one seen last (the last open's record stays until
    // the next one ends: a new listing alone must not count).
    const drawn = async () => {
      await page.waitForFunction(() => {
        const o = window.relicview.lastOpen();
        return o && o !== window.seenOpen && o.path === 'MODELS/VIDEO/CUBE.BGF';
      });
      return page.evaluate(() => {
        window.seenOpen = window.relicview.lastOpen();
        return {
          start: window.relicview.indexTimeline().start,
          triangles: window.relicview.stats().triangles,
        };
      });
    };
    await loadFolder(page, models, 1);
    const first = await drawn();
    // (The browser writes an input's chosen paths into every history entry the page updates:
    // a folder of 20,000 kept the page busy for seconds while a model played.)
    assert.equal(await page.evaluate(() => document.getElementById('folder-input').files.length), 0);
    // The file changed on disk, under the same name; the reader chooses the same folder again.
    writeFileSync(join(models, 'VIDEO/CUBE.BGF'), readFileSync(join(on.dir, 'DEMO/VIDEO/HEXPOD.BGF')));
    await page.locator('#folder-input').setInputFiles(models);
    const second = await drawn();
    assert.notEqual(second.start, first.start, 'a listing of its own');
    const hexpod = nativeInfo(join(on.dir, 'DEMO/VIDEO/HEXPOD.BGF'));
    assert.notEqual(first.triangles, second.triangles);
    assert.equal(second.triangles, hexpod.triangles);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the landing speaks to the device, and offers the served archive as a demo', async () => {
    for (const [size, words] of [
      [[1400, 850], 'Drop a game folder here'],
      [[430, 900], "Open a game's files"],
    ]) {
      const { page, problems, close } = await sizedPage(
        ctx.browser,
        `${on.server.url.replace(/\/$/, '')}/index.html#archive=none.json`,
        size,
      );
      assert.equal(await page.locator('#landing h2').innerText(), words);
      await page.locator('#demo-link').waitFor();
      await page.locator('#demo-link').click();
      await page.waitForFunction(() => window.relicview.lastOpen() && window.relicview.stats().triangles > 0);
      assert.equal(await page.locator('#landing').isVisible(), false);
      assert.doesNotMatch(await page.evaluate(() => location.hash), /none\.json/);
      assert.deepEqual(problems, []);
      await close();
    }
  });
}
