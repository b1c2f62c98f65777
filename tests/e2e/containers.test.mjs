// Containers dropped into the page: a ZIP (Python's zipfile), an ISO (xorriso), a disc rip
// (.bin of MODE2/2352 sectors with its .cue) and a CHD of it (chdman) beside the same files
// loose. They list as
// folders of their own names; models inside them open with the triangles and pixels of
// the loose files; a link into the disc reopens once the same folder is dropped again.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launch, newPage, walk, loadFolder, buildContainers } from './harness.mjs';
import { scratchDir } from './scratch.mjs';

let dir, server, browser;

before(async () => {
  dir = join(scratchDir('containers'), 'DROP');
  buildContainers(dir);
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// Files the page lists for the drop: the loose tree, and each container's entries.
const looseCount = () => walk(join(dir, 'tree')).length;

async function dropped() {
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  await loadFolder(page, dir, 5 * looseCount());
  return { page, problems };
}

test('a dropped zip, ISO, cue/bin and CHD list as folders, and their models draw as the loose files do', async () => {
  const { page, problems } = await dropped();
  const shown = await page.evaluate(() => window.relicview.shownFiles(100000));
  for (const c of ['GAME.zip', 'GAME.iso', 'FF7.cue', 'FF7.chd']) {
    assert.ok(shown.includes(`DROP/${c}/DEMO/VIDEO/HEXPOD.BGF`), `${c} lists its models`);
    assert.equal(
      await page.evaluate(p => window.relicview.entry(p).kind, `DROP/${c}/FF7/FIELD/MD1_1.BSX`),
      'bsx',
    );
  }
  assert.ok(
    !shown.some(p => p.startsWith('DROP/FF7.bin')),
    'the cue names the disc; its bin is not listed again',
  );
  assert.ok(!shown.includes('DROP/GAME.zip'), 'the zip itself is a folder, not a file');
  assert.deepEqual(await page.evaluate(() => window.relicview.containerProblems()), []);
  for (const model of ['DEMO/VIDEO/HEXPOD.BGF', 'DEMO/MAPS/ARENA1.MAP', 'FF7/FIELD/MD1_1.BSX']) {
    const draw = async p => {
      const r = await page.evaluate(x => window.relicview.open(x), p);
      await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
      const rows = await page.$$eval('#info-body dt', dts =>
        dts.map(dt => [dt.textContent, dt.nextElementSibling.textContent]),
      );
      return {
        triangles: r.triangles,
        pixels: (await page.evaluate(() => window.relicview.pixelStats())).nonBackground,
        info: rows,
      };
    };
    const loose = await draw(`DROP/tree/${model}`);
    assert.ok(loose.triangles > 0 && loose.pixels > 0, model);
    for (const c of ['GAME.zip', 'GAME.iso', 'FF7.cue', 'FF7.chd']) {
      const inside = await draw(`DROP/${c}/${model}`);
      assert.equal(inside.triangles, loose.triangles, `${model} in ${c}: triangles`);
      assert.equal(inside.pixels, loose.pixels, `${model} in ${c}: pixels`);
      // What a file resolves to is found inside the container, as in the folder (where
      // several files answer to a name, the other copies are listed, and they differ: the
      // loose file's include the container's, and the other way round).
      const own = info =>
        info
          .filter(([label]) => !label.startsWith('several '))
          .map(([label, value]) => `${label}: ${value.split('; also ')[0]}`)
          .join('\n');
      assert.equal(
        own(inside.info).replaceAll(`DROP/${c}/`, 'DROP/tree/'),
        own(loose.info),
        `${model} in ${c}: the same info`,
      );
      assert.ok(
        !own(inside.info).includes('DROP/tree/'),
        `${model} in ${c}: takes nothing from outside the container`,
      );
    }
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("the listing bar counts a disc's directories and a zip's entries as it goes", async () => {
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  // Every label and bar the listing shows, as it shows them.
  await page.evaluate(() => {
    window.seen = [];
    const label = document.getElementById('loading-label');
    const bar = document.getElementById('open-progress');
    new MutationObserver(() =>
      window.seen.push({
        text: label.textContent,
        max: bar.max,
        value: bar.value,
        determinate: bar.hasAttribute('value'),
      }),
    ).observe(label, { childList: true, characterData: true, subtree: true });
  });
  await loadFolder(page, dir, 5 * looseCount());
  const seen = await page.evaluate(() => window.seen);
  // Every folder of the tree the ISO was made from, its root among them.
  const treeRoot = join(dir, 'tree');
  const folders = new Set([treeRoot]);
  for (const f of walk(treeRoot))
    for (
      let d = f.slice(0, f.lastIndexOf('/'));
      d.length > treeRoot.length;
      d = d.slice(0, d.lastIndexOf('/'))
    )
      folders.add(d);
  const iso = seen.find(s => s.text.startsWith('Listing DROP/GAME.iso') && s.determinate);
  assert.ok(iso, JSON.stringify(seen));
  assert.ok(iso.determinate && iso.value >= 1, JSON.stringify(iso));
  assert.equal(iso.max, folders.size, "the disc's directories, the root among them (its path table)");
  assert.match(iso.text, /Listing DROP\/GAME\.iso… \d+ %$/);
  const zip = seen.find(s => s.text.startsWith('Listing DROP/GAME.zip') && s.determinate);
  assert.equal(zip?.max, looseCount(), "the zip's entries");
  assert.deepEqual(problems, []);
  await page.close();
});

test('a zip inside a zip inside a folder opens in the page as a folder of folders', async () => {
  const nest = join(scratchDir('nested'), 'NEST');
  mkdirSync(nest, { recursive: true });
  execFileSync('python3', [
    '-c',
    `import sys, zipfile
with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_STORED) as z:
  z.write(sys.argv[1], 'INNER/GAME.ZIP')
  z.writestr('README.TXT', 'a zip in a zip')`,
    join(dir, 'GAME.zip'),
    join(nest, 'OUTER.zip'),
  ]);
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  await loadFolder(page, nest, looseCount() + 1);
  const shown = await page.evaluate(() => window.relicview.shownFiles(100000));
  assert.ok(
    shown.includes('NEST/OUTER.zip/INNER/GAME.ZIP/DEMO/VIDEO/HEXPOD.BGF'),
    shown.slice(0, 5).join(' '),
  );
  assert.ok(!shown.includes('NEST/OUTER.zip/INNER/GAME.ZIP'), 'the inner zip is a folder, not a file');
  const inner = await page.evaluate(() =>
    window.relicview.open('NEST/OUTER.zip/INNER/GAME.ZIP/DEMO/MAPS/ARENA1.MAP'),
  );
  await page.close();
  const { page: loose } = await dropped();
  const outside = await loose.evaluate(() => window.relicview.open('DROP/tree/DEMO/MAPS/ARENA1.MAP'));
  assert.equal(inner.triangles, outside.triangles);
  assert.ok(inner.triangles > 0);
  assert.deepEqual(problems, []);
  await loose.close();
});

test('a 7z of a rip and its cue sheet (7-Zip, solid) lists the disc under the sheet, dropped and served, and its model draws as the loose one', async () => {
  const rip = join(scratchDir('rip7z'), 'RIP');
  mkdirSync(join(rip, 'holder'), { recursive: true });
  writeFileSync(join(rip, 'holder/FF7.bin'), readFileSync(join(dir, 'FF7.bin')));
  writeFileSync(join(rip, 'holder/FF7.cue'), readFileSync(join(dir, 'FF7.cue')));
  execFileSync(
    '7zz',
    ['a', '-bso0', '-bsp0', '-t7z', '-m0=LZMA2', '-ms=on', join(rip, 'FF7.7z'), 'FF7.bin', 'FF7.cue'],
    { cwd: join(rip, 'holder') },
  );
  rmSync(join(rip, 'holder'), { recursive: true });
  // The loose files beside it, to compare with.
  mkdirSync(join(rip, 'loose/FIELD'), { recursive: true });
  for (const n of ['MD1_1.BSX', 'FIELD.TDB'])
    writeFileSync(join(rip, 'loose/FIELD', n), readFileSync(join(dir, 'tree/FF7/FIELD', n)));
  const draw = async (page, p) => {
    const r = await page.evaluate(x => window.relicview.open(x), p);
    await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
    return {
      triangles: r.triangles,
      pixels: (await page.evaluate(() => window.relicview.pixelStats())).nonBackground,
    };
  };
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  await loadFolder(page, rip, looseCount() + 2);
  const shown = await page.evaluate(() => window.relicview.shownFiles(100000));
  assert.ok(shown.includes('RIP/FF7.7z/FF7.cue/FF7/FIELD/MD1_1.BSX'), shown.slice(0, 8).join(' '));
  assert.ok(
    !shown.some(p => p.startsWith('RIP/FF7.7z/FF7.bin')),
    'the cue names the disc; its bin is not listed again',
  );
  const loose = await draw(page, 'RIP/loose/FIELD/MD1_1.BSX');
  assert.ok(loose.triangles > 0 && loose.pixels > 0);
  assert.deepEqual(await draw(page, 'RIP/FF7.7z/FF7.cue/FF7/FIELD/MD1_1.BSX'), loose);
  assert.deepEqual(problems, []);
  await page.close();
  const ripServer = await startServer(rip);
  try {
    const { page: served, problems: servedProblems } = await newPage(browser, ripServer.url);
    await served.waitForFunction(() => window.relicview.indexTimeline()?.typed);
    assert.deepEqual(await draw(served, 'FF7.7z/FF7.cue/FF7/FIELD/MD1_1.BSX'), loose);
    assert.deepEqual(servedProblems, []);
    await served.close();
  } finally {
    ripServer.stop();
  }
});

test('a link into the disc reopens after the same folder is dropped again', async () => {
  const { page } = await dropped();
  await page.evaluate(() => window.relicview.open('DROP/FF7.cue/FF7/FIELD/MD1_1.BSX'));
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(decodeURIComponent(link), /path=DROP\/FF7\.cue\/FF7\/FIELD\/MD1_1\.BSX/);
  await page.close();
  const { page: fresh, problems } = await newPage(browser, link);
  await loadFolder(fresh, dir, 5 * looseCount());
  await fresh.waitForFunction(() => window.relicview.lastOpen()?.path === 'DROP/FF7.cue/FF7/FIELD/MD1_1.BSX');
  assert.ok((await fresh.evaluate(() => window.relicview.stats())).triangles > 0);
  assert.deepEqual(problems, []);
  await fresh.close();
});

test('a served folder with containers lists them as folders and opens what is inside', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.lastOpen());
  const r = await page.evaluate(() => window.relicview.open('FF7.cue/FF7/FIELD/MD1_1.BSX'));
  assert.ok(r.triangles > 0);
  const z = await page.evaluate(() => window.relicview.open('GAME.zip/DEMO/MAPS/ARENA1.MAP'));
  assert.ok(z.triangles > 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('hostile containers: a zip cut short, a CHD whose map overruns and a cue without its bin stay red files saying why; a bomb fails its own entry', async () => {
  const bad = join(scratchDir('badcontainers'), 'BAD');
  mkdirSync(bad, { recursive: true });
  execFileSync('python3', [
    '-c',
    `import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
  z.writestr('ZEROS.BIN', bytes(64 << 20))
  z.writestr('OK.TXT', b'fine')`,
    join(bad, 'BOMB.zip'),
  ]);
  const whole = readFileSync(join(dir, 'GAME.zip'));
  writeFileSync(join(bad, 'CUT.zip'), whole.subarray(0, whole.length >> 1));
  writeFileSync(
    join(bad, 'LOST.cue'),
    'FILE "LOST.BIN" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n',
  );
  // chdman's image with its map's Huffman table made to overrun (code lengths run-length
  // coded after the map's 16-byte header: "1, 2, 15" is length 2 eighteen times in a table
  // of sixteen), which the chd crate indexes past; beside it the good CHD and zip.
  const chd = Buffer.from(readFileSync(join(dir, 'FF7.chd')));
  const map = Number(chd.readBigUInt64BE(40));
  chd[map + 16] = 0x12;
  chd[map + 17] = 0xf0;
  writeFileSync(join(bad, 'BROKEN.chd'), chd);
  writeFileSync(join(bad, 'GOOD.chd'), readFileSync(join(dir, 'FF7.chd')));
  writeFileSync(join(bad, 'GOOD.zip'), whole);
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  await page.locator('#folder-input').setInputFiles(bad);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  const cut = await page.evaluate(() => window.relicview.entry('BAD/CUT.zip'));
  assert.equal(cut.failed, true);
  assert.match(cut.failure, /^BAD\/CUT\.zip: not a readable zip/);
  const broken = await page.evaluate(() => window.relicview.entry('BAD/BROKEN.chd'));
  assert.equal(broken.failed, true);
  assert.match(broken.failure, /^BAD\/BROKEN\.chd: /);
  // The other containers, listed after it, still open.
  for (const path of ['BAD/GOOD.chd/FF7/FIELD/MD1_1.BSX', 'BAD/GOOD.zip/DEMO/VIDEO/CUBE.BGF']) {
    await page.evaluate(p => window.relicview.open(p), path);
    assert.ok((await page.evaluate(() => window.relicview.stats().triangles)) > 0, path);
  }
  const lost = await page.evaluate(() => window.relicview.entry('BAD/LOST.cue'));
  assert.equal(lost.failed, true);
  assert.equal(lost.failure, "BAD/LOST.cue: line 2: the track's file LOST.BIN is not beside it");
  // The bomb's entry fails by itself, naming the container, the entry and the byte.
  const err = await page.evaluate(() =>
    window.relicview.open('BAD/BOMB.zip/ZEROS.BIN').then(
      () => null,
      e => e.message,
    ),
  );
  assert.match(
    err,
    /BAD\/BOMB\.zip: ZEROS\.BIN at byte \d+: declares 67108864 bytes from \d+ stored: more than 1000 times as many/,
  );
  assert.equal(await page.evaluate(() => window.relicview.entry('BAD/BOMB.zip/ZEROS.BIN').failed), true);
  await page.evaluate(() => window.relicview.open('BAD/BOMB.zip/OK.TXT'));
  assert.match(await page.locator('#text-pane pre.text-view').textContent(), /fine/);
  // The one thing logged: the broken CHD's reader trapping in its own worker.
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0], /^console: panicked at .*chd-0\.4\.0\/src\/huffman\/decode\.rs/);
  await page.close();
});
