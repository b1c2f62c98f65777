// Archives as people share them, dropped into the page beside the same files loose: 7z
// archives made by 7-Zip (solid LZMA2, PPMd, BZip2 apart, BCJ + LZMA), zips in each method
// 7-Zip writes, a self-extracting program (a zip appended and adjusted by `zip -A`), and an
// encrypted zip. Every model inside opens with the loose file's triangles and pixels; an
// encrypted entry says so, and the rest stays usable. The same archives served by
// `relicview serve` open as the dropped ones do.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launch, newPage, relicview, repo, lzsLiterals, walk, loadFolder } from './harness.mjs';
import { scratchDir } from './scratch.mjs';

const SEVENZ = {
  'SOLID.7z': ['-m0=LZMA2', '-ms=on'],
  'PPMD.7z': ['-m0=PPMd', '-ms=on'],
  'BZIP2.7z': ['-m0=BZip2', '-ms=off'],
  'BCJ.7z': ['-m0=BCJ', '-m1=LZMA', '-ms=on'],
};
const ZIPS = ['Deflate64', 'BZip2', 'LZMA', 'PPMd', 'XZ'];
let dir, tree, server, browser;

before(async () => {
  dir = join(scratchDir('archives'), 'SHARED');
  tree = join(dir, 'tree');
  relicview('demo', tree);
  mkdirSync(join(tree, 'FF7/FIELD'), { recursive: true });
  writeFileSync(
    join(tree, 'FF7/FIELD/MD1_1.BSX'),
    lzsLiterals(readFileSync(join(repo, '../shared/testdata/ff7/MD1_1_u.BSX'))),
  );
  writeFileSync(
    join(tree, 'FF7/FIELD/FIELD.TDB'),
    readFileSync(join(repo, '../shared/testdata/ff7/FIELD.TDB_u')),
  );
  const z7 = (out, args, what = '.') =>
    execFileSync('7zz', ['a', '-bso0', '-bsp0', ...args, '-r', join(dir, out), what], { cwd: tree });
  for (const [name, args] of Object.entries(SEVENZ)) z7(name, ['-t7z', ...args]);
  for (const m of ZIPS) z7(`${m}.zip`, ['-tzip', `-mm=${m}`]);
  // A self-extracting program: a small executable, the zip after it, offsets adjusted.
  z7('plain.zip', ['-tzip']);
  writeFileSync(
    join(dir, 'SETUP.EXE'),
    Buffer.concat([readFileSync('/usr/bin/true'), readFileSync(join(dir, 'plain.zip'))]),
  );
  execFileSync('zip', ['-q', '-A', join(dir, 'SETUP.EXE')]);
  // A program with nothing after it stays a file.
  writeFileSync(join(dir, 'TRUE.EXE'), readFileSync('/usr/bin/true'));
  // The field model encrypted, the rest in the clear.
  execFileSync(
    '7zz',
    ['a', '-bso0', '-bsp0', '-tzip', '-psecret', '-mem=AES256', join(dir, 'LOCKED.zip'), 'FF7'],
    { cwd: tree },
  );
  execFileSync('7zz', ['a', '-bso0', '-bsp0', '-tzip', '-r', join(dir, 'LOCKED.zip'), 'DEMO'], { cwd: tree });
  // A solid 7z whose field model comes after 48 MB of a picture's bytes in its one block
  // (named so that its kind is known by name: nothing reads it before the model opens).
  const big = join(dir, '..', 'BIG');
  mkdirSync(join(big, 'src/ANIM'), { recursive: true });
  mkdirSync(join(big, 'src/FIELD'), { recursive: true });
  const movie = Buffer.alloc(48e6);
  for (let i = 0; i < movie.length; i++) movie[i] = (Math.imul(i, 2654435761) >>> 24) & 0x0f;
  writeFileSync(join(big, 'src/ANIM/OPENING.TGA'), movie);
  writeFileSync(join(big, 'src/FIELD/MD1_1.BSX'), readFileSync(join(tree, 'FF7/FIELD/MD1_1.BSX')));
  mkdirSync(join(big, 'drop'));
  execFileSync(
    '7zz',
    [
      'a',
      '-bso0',
      '-bsp0',
      '-t7z',
      '-m0=LZMA2',
      '-mx=1',
      '-ms=on',
      join(big, 'drop/BIG.7z'),
      'ANIM',
      'FIELD',
    ],
    { cwd: join(big, 'src') },
  );
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const CONTAINERS = () => [...Object.keys(SEVENZ), ...ZIPS.map(m => `${m}.zip`), 'plain.zip', 'SETUP.EXE'];

async function draw(page, path) {
  const r = await page.evaluate(p => window.relicview.open(p), path);
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  return {
    triangles: r.triangles,
    pixels: (await page.evaluate(() => window.relicview.pixelStats())).nonBackground,
  };
}

// A model in every container; a world (which reads a dozen files) and a field model in one
// of each kind (each zip method's bytes are checked entry for entry in tests/containers.rs).
async function checkModels(page, prefix) {
  const some = ['SOLID.7z', 'BCJ.7z', 'PPMd.zip', 'SETUP.EXE'];
  for (const [model, within] of [
    ['DEMO/VIDEO/HEXPOD.BGF', CONTAINERS()],
    ['DEMO/MAPS/ARENA1.MAP', some],
    ['FF7/FIELD/MD1_1.BSX', some],
  ]) {
    const loose = await draw(page, `${prefix}tree/${model}`);
    assert.ok(loose.triangles > 0, model);
    for (const c of within)
      assert.deepEqual(await draw(page, `${prefix}${c}/${model}`), loose, `${model} in ${c}`);
  }
}

test('7z archives, zips in every method and a self-extracting program list as folders, and their models draw as the loose files do', async () => {
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  const loose = walk(tree).length;
  // The tree, each container's copy of it, LOCKED.zip's (DEMO and FF7), and TRUE.EXE.
  const locked = walk(join(tree, 'DEMO')).length + walk(join(tree, 'FF7')).length;
  await loadFolder(page, dir, (CONTAINERS().length + 1) * loose + locked + 1);
  const shown = await page.evaluate(() => window.relicview.shownFiles(100000));
  for (const c of CONTAINERS())
    assert.ok(shown.includes(`SHARED/${c}/FF7/FIELD/MD1_1.BSX`), `${c} is a folder`);
  assert.ok(shown.includes('SHARED/TRUE.EXE'), 'a program with no zip after it stays a file');
  await checkModels(page, 'SHARED/');
  // The self-extracting program's prefix is said, as a note on the container, not a problem.
  const said = await page.evaluate(() => window.relicview.containerNotes());
  assert.ok(
    said.some(p => p.startsWith('SHARED/SETUP.EXE') && /first entry starts at byte \d+/.test(p)),
    JSON.stringify(said),
  );
  const found = await page.evaluate(() => window.relicview.containerProblems());
  assert.ok(!found.some(p => p.startsWith('SHARED/SETUP.EXE')), JSON.stringify(found));
  // The encrypted entry says so on its own row; the zip's other files open.
  const err = await page.evaluate(() =>
    window.relicview.open('SHARED/LOCKED.zip/FF7/FIELD/MD1_1.BSX').then(
      () => 'opened',
      e => e.message,
    ),
  );
  assert.match(err, /encrypted \(ZipCrypto or AES\): not read/);
  assert.equal(
    await page.evaluate(() => window.relicview.entry('SHARED/LOCKED.zip/FF7/FIELD/MD1_1.BSX').failed),
    true,
  );
  assert.ok((await draw(page, 'SHARED/LOCKED.zip/DEMO/VIDEO/HEXPOD.BGF')).triangles > 0);
  assert.deepEqual(
    problems.filter(p => !/encrypted/.test(p)),
    [],
  );
  await page.close();
});

test('the same archives served by relicview serve open inside as the loose files do', async () => {
  const { page, problems } = await newPage(browser, `${server.url}#archive=archive.json`);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  await checkModels(page, '');
  // An entry the server cannot read: its answer says why, and the page says it on the row.
  const err = await page.evaluate(() =>
    window.relicview.open('LOCKED.zip/FF7/FIELD/MD1_1.BSX').then(
      () => 'opened',
      e => e.message,
    ),
  );
  assert.match(
    err,
    /LOCKED\.zip\/FF7\/FIELD\/MD1_1\.BSX: cannot be read: .*encrypted \(ZipCrypto or AES\): not read/,
  );
  assert.ok(
    (await draw(page, 'LOCKED.zip/DEMO/VIDEO/HEXPOD.BGF')).triangles > 0,
    'the rest of the zip opens',
  );
  assert.deepEqual(
    problems.filter(p => !/422/.test(p)),
    [],
  );
  await page.close();
});

test("a field model after a large file in a solid 7z says which block it decodes, and how far it got; opened again after a reload, it comes from the browser's storage", async () => {
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  const openWatched = async () => {
    await loadFolder(page, join(dir, '..', 'BIG', 'drop'), 2);
    await page.evaluate(() => {
      window.labels = [];
      const label = document.getElementById('loading-label');
      new MutationObserver(() => window.labels.push(label.textContent)).observe(label, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    const opened = await draw(page, 'drop/BIG.7z/FIELD/MD1_1.BSX');
    return {
      opened,
      labels: await page.evaluate(() => window.labels),
      cache: await page.evaluate(() => window.relicview.decodedCache()),
    };
  };
  const model = readFileSync(join(tree, 'FF7/FIELD/MD1_1.BSX')).length;
  const first = await openWatched();
  assert.ok(first.opened.triangles > 0 && first.opened.pixels > 0, JSON.stringify(first.opened));
  assert.ok(
    first.labels.some(l => l === 'Opening MD1_1.BSX — decoding block 1 of 1 (49 MB)'),
    JSON.stringify(first.labels),
  );
  // Both entries were stored as they were decoded: the model, and the 48 MB before it in
  // pieces on its way (too large to hold in memory).
  assert.deepEqual(first.cache, {
    hits: 0,
    bytesRead: 0,
    stored: 2,
    bytesWritten: 48e6 + model,
    refused: null,
    blocksDecoded: 1,
  });
  // The page reloaded (a new worker, nothing in memory) and the archive dropped again: the
  // model is read back from the Origin Private File System, nothing is decoded.
  await page.reload();
  await page.evaluate(() => window.relicview.ready);
  const again = await openWatched();
  assert.deepEqual(again.opened, first.opened);
  assert.ok(!again.labels.some(l => /decoding/.test(l)), JSON.stringify(again.labels));
  assert.deepEqual(again.cache, {
    hits: 1,
    bytesRead: model,
    stored: 0,
    bytesWritten: 0,
    refused: null,
    blocksDecoded: 0,
  });
  // Dropped a third time in the same page: the last listing's store is let go, and the new
  // one opens over the same files.
  const third = await openWatched();
  assert.deepEqual(third.opened, first.opened);
  assert.equal(third.cache.refused, null);
  assert.ok(third.cache.hits >= 2, JSON.stringify(third.cache));
  assert.deepEqual(problems, []);
  await page.close();
});

test('Export all of a solid 7z decodes each of its blocks once, and its zip holds what export --all writes', async () => {
  // The demo's files in a 7z whose blocks hold 10 files each, dropped alone.
  const drop = scratchDir('solid-export');
  execFileSync(
    '7zz',
    ['a', '-bso0', '-bsp0', '-t7z', '-m0=LZMA2', '-ms=10f', '-r', join(drop, 'DEMO.7z'), 'DEMO'],
    { cwd: tree },
  );
  const blocks = Number(
    /^Blocks = (\d+)$/m.exec(
      execFileSync('7zz', ['l', '-slt', join(drop, 'DEMO.7z')], { encoding: 'utf8' }),
    )[1],
  );
  assert.ok(blocks >= 3, `${blocks} blocks`);
  const cliOut = scratchDir('solid-export-cli');
  relicview('export', '--all', join(drop, 'DEMO.7z'), '-o', cliOut);
  const cliReport = JSON.parse(readFileSync(join(cliOut, 'report.json'), 'utf8'));
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  await loadFolder(page, drop, walk(join(tree, 'DEMO')).length);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate(() => window.relicview.exportAll()),
  ]);
  const listing = JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        'import sys, json, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({i.filename: i.file_size for i in z.infolist()}))',
        await download.path(),
      ],
      { encoding: 'utf8' },
    ),
  );
  const pageReport = JSON.parse(
    execFileSync(
      'python3',
      [
        '-c',
        "import sys, zipfile\nsys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('report.json').decode())",
        await download.path(),
      ],
      { encoding: 'utf8' },
    ),
  );
  // The page's zip holds the dropped folder's DEMO.7z as a folder; the CLI's archive is DEMO.7z itself.
  const inside = p => p.replace(/^DEMO\.7z\//, '');
  assert.deepEqual(
    Object.keys(listing).map(inside).sort(),
    [...walk(cliOut).map(f => f.slice(cliOut.length + 1))].sort(),
    'the same files as the CLI writes',
  );
  for (const key of ['written', 'skipped', 'failed'])
    assert.deepEqual(
      pageReport[key].map(w => inside(w.path)),
      cliReport[key].map(w => w.path),
      key,
    );
  const cache = await page.evaluate(() => window.relicview.decodedCache());
  assert.equal(
    cache.blocksDecoded,
    blocks,
    `each of the ${blocks} blocks decoded once: ${JSON.stringify(cache)}`,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('a disc lists its files by their Rock Ridge names, and the info pane says what the disc itself calls each', async () => {
  const drop = scratchDir('long-names');
  const src = join(drop, 'src/Game Models');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'Hexpod Walker.BGF'), readFileSync(join(tree, 'DEMO/VIDEO/HEXPOD.BGF')));
  mkdirSync(join(drop, 'in'));
  execFileSync(
    'xorriso',
    [
      '-outdev',
      join(drop, 'in/LONG.iso'),
      '-map',
      join(drop, 'src'),
      '/',
      '-rockridge',
      'on',
      '-joliet',
      'on',
      '-commit',
    ],
    { stdio: 'ignore' },
  );
  const { page, problems } = await newPage(browser, `${server.url}#folder=none`);
  await loadFolder(page, join(drop, 'in'), 1);
  const path = (await page.evaluate(() => window.relicview.shownFiles(10))).find(p =>
    p.endsWith('Hexpod Walker.BGF'),
  );
  assert.ok(path?.includes('LONG.iso/Game Models/'), `listed by its Rock Ridge name: ${path}`);
  const entry = await page.evaluate(p => window.relicview.entry(p), path);
  assert.match(entry.writtenAs, /LONG\.iso\/GAME_MOD[A-Z0-9_]*\/HEXPOD_W[A-Z0-9_.;]*/, JSON.stringify(entry));
  assert.ok((await draw(page, path)).triangles > 0);
  const rows = await page.locator('#info-body dt').allTextContents();
  const values = await page.locator('#info-body dd').allTextContents();
  assert.equal(values[rows.indexOf('on the disc as')], entry.writtenAs);
  assert.deepEqual(problems, []);
  await page.close();
});
