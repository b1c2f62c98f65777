// What a new user trips over, round two: the keyboard through a comparison and the texture
// gallery, each view showing only its own controls, text and unknown bytes in the main
// view, every failure explained over the view, a field model cut short drawn as far as it
// goes, a comparison readable at 1024×640, the help, small pictures and small oddities.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeArchive,
  startServer,
  launch,
  sizedPage,
  listedPage,
  axeClean,
  loadFolder,
  walk,
  repo,
  withSourceModules,
} from './harness.mjs';
import { trianglesInside } from './ff7.mjs';
import { scratchDir } from './scratch.mjs';

const ff7 = name => readFileSync(join(repo, '../shared/testdata/ff7', name));
const MD1_1 = ff7('MD1_1_u.BSX');

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  const put = (path, bytes) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  };
  put('FF7/MD1_1.BSX', MD1_1);
  put('FF7/FIELD.BIN', ff7('FIELD.BIN_u'));
  put('FF7/FIELD.TDB', ff7('FIELD.TDB_u'));
  // Cut short inside model 3's part headers, and before the models section.
  put('FF7/CUT36000.BSX', MD1_1.subarray(0, 36000));
  put('FF7/CUT30000.BSX', MD1_1.subarray(0, 30000));
  // A size_file smaller than the file: not damage where it ends, an error.
  const small = Buffer.from(MD1_1);
  small.writeUInt32LE(100, 0);
  put('FF7/BAD.BSX', small);
  put(
    'README.TXT',
    `relicview test archive\n${'wide '.repeat(200)}\n${Array.from({ length: 600 }, (_, i) => `line ${i + 3}${i === 500 ? ' needle here' : ''}`).join('\n')}\n`,
  );
  put('NOISE.DAT', Buffer.from(Array.from({ length: 700 }, (_, i) => (i * 37) & 255)));
  // A TGA whose header promises 4096 × 4096 truecolour texels it does not hold.
  const tga = Buffer.alloc(18 + 64);
  tga[2] = 2;
  tga.writeUInt16LE(4096, 12);
  tga.writeUInt16LE(4096, 14);
  tga[16] = 32;
  put('BAD/BAD.TGA', tga);
  // Containers made by real tools, then cut: Python's zipfile, and xorriso.
  const scratch = scratchDir('trips');
  execFileSync('python3', [
    '-c',
    `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
z.write(sys.argv[2], 'CUBE.BGF')
z.close()`,
    join(scratch, 'full.zip'),
    join(dir, 'DEMO/VIDEO/CUBE.BGF'),
  ]);
  put('BAD/CUT.ZIP', readFileSync(join(scratch, 'full.zip')).subarray(0, 200));
  mkdirSync(join(scratch, 'tree/DIR'), { recursive: true });
  writeFileSync(join(scratch, 'tree/DIR/CUBE.BGF'), readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')));
  execFileSync(
    'xorriso',
    ['-as', 'mkisofs', '-quiet', '-iso-level', '2', '-o', join(scratch, 'full.iso'), join(scratch, 'tree')],
    { stdio: 'ignore' },
  );
  // The volume descriptors, not the directory they point at.
  put('BAD/CUT.ISO', readFileSync(join(scratch, 'full.iso')).subarray(0, 36000));
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const page = size => listedPage(browser, server.url, size);

// A row of the list clicked as a reader finds it: its name typed in the search box (the
// list draws only the rows in sight).
async function clickRow(page, path) {
  await page.locator('#search').fill(path.split('/').pop());
  await page.locator(`#file-list li[data-path="${path}"]`).click();
  await page.locator('#search').fill('');
}

const open = (page, path) =>
  page.evaluate(
    p =>
      window.relicview.open(p).then(
        r => r,
        e => ({ error: e.message }),
      ),
    path,
  );

// What is on screen of the page's controls and panes: an element counts when it is laid
// out with a size, not hidden by any ancestor, and inside the window.
const WATCHED = [
  'lod-controls',
  'choice-label',
  'display-menu',
  'camera-menu',
  'measure-button',
  'frame-button',
  'screenshot-button',
  'export-button',
  'timeline',
  'hud',
  'gizmo',
  'compare-controls',
  'split-handle',
  'compare-legend',
  'compare-body',
  'inspector',
  'inspector-body',
  'view',
  'picture-pane',
  'texture-gallery',
  'text-pane',
  'gallery',
  'view-message',
];
function onScreen(page) {
  return page.evaluate(
    ids =>
      ids.filter(id => {
        const el = document.getElementById(id);
        if (!el?.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 &&
          r.height > 0 &&
          r.right > 0 &&
          r.bottom > 0 &&
          r.left < innerWidth &&
          r.top < innerHeight
        );
      }),
    WATCHED,
  );
}

const THREE_D = [
  'lod-controls',
  'choice-label',
  'display-menu',
  'camera-menu',
  'measure-button',
  'frame-button',
  'screenshot-button',
  'export-button',
  'timeline',
  'hud',
  'gizmo',
];
const COMPARING = ['compare-controls', 'split-handle', 'compare-legend', 'compare-body'];

const axe = axeClean;

const focused = page =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? el.id || el.className || el.tagName : null;
  });

test("keyboard only: a comparison picked in the list, from the list's menu and from the info pane; a texture opened from the gallery and back", async () => {
  const { page: p, problems, close } = await page();
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  await p.locator('#file-list').focus();
  // Shift+F10: the row's menu, focus on its first item; ↓ to "Compare with…", Enter.
  await p.keyboard.press('Shift+F10');
  assert.equal(await p.locator('#row-menu').isVisible(), true);
  await p.keyboard.press('ArrowDown');
  assert.equal(await p.evaluate(() => document.activeElement.dataset.act), 'compare-pick');
  await p.keyboard.press('Enter');
  assert.equal(await p.locator('#compare-pick').isVisible(), true);
  assert.equal(await focused(p), 'file-list', 'the choice is made in the list: focus is there');
  // ↓ moves to the next file without opening it; Enter compares with it.
  const listed = await p.evaluate(() => window.relicview.shownFiles());
  const next = listed[listed.indexOf('DEMO/VIDEO/CUBE.BGF') + 1];
  await p.keyboard.press('ArrowDown');
  const cursor = await p.evaluate(
    () => document.querySelector('#file-list li[aria-selected="true"]')?.dataset.path,
  );
  assert.equal(cursor, next);
  assert.equal(await p.evaluate(() => window.relicview.comparison()), null, 'nothing compared before Enter');
  assert.equal(
    await p.evaluate(() => window.relicview.lastOpen().path),
    'DEMO/VIDEO/CUBE.BGF',
    'the cursor opens nothing while choosing',
  );
  await p.keyboard.press('Enter');
  await p.waitForFunction(next => window.relicview.comparison()?.b === next, next);
  assert.equal((await p.evaluate(() => window.relicview.comparison())).a, 'DEMO/VIDEO/CUBE.BGF');
  await p.waitForFunction(() => document.activeElement?.id === 'viewport');
  assert.equal(await p.locator('#compare-pick').isVisible(), false);
  // Enter again on the file on show, back in the list, leaves the comparison as it is.
  await p.locator('#file-list').focus();
  await p.keyboard.press('Enter');
  // (An open the key asked for would be queued by now: once the queue is idle, it has run.)
  await p.evaluate(() => window.relicview.idle());
  assert.equal((await p.evaluate(() => window.relicview.comparison()))?.b, next);

  // From the info pane: its Compare with… (reached by Tab, pressed with Enter).
  await open(p, 'DEMO/VIDEO/DR2.BGF');
  await p.locator('#compare-with-button').focus();
  await p.keyboard.press('Enter');
  assert.equal(await focused(p), 'file-list');
  // Escape withdraws the question and stays in the list, on the file on show.
  await p.keyboard.press('ArrowUp');
  await p.keyboard.press('Escape');
  assert.equal(await p.locator('#compare-pick').isVisible(), false);
  assert.equal(await focused(p), 'file-list');
  assert.equal(
    await p.evaluate(() => document.querySelector('#file-list li[aria-selected="true"]')?.dataset.path),
    'DEMO/VIDEO/DR2.BGF',
  );
  await p.locator('#compare-with-button').focus();
  await p.keyboard.press('Enter');
  await p.keyboard.press('ArrowUp');
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => window.relicview.comparison()?.b === 'DEMO/VIDEO/DR1.BGF');
  assert.equal((await p.evaluate(() => window.relicview.comparison())).a, 'DEMO/VIDEO/DR2.BGF');

  // The texture gallery: Enter on a card's name opens it, focus on the picture (its keys
  // zoom it), Escape goes back to the gallery on that card.
  await p.locator('#textures-button').focus();
  await p.keyboard.press('Enter');
  await p.waitForFunction(() =>
    /\d+ textures?:/.test(document.getElementById('texture-gallery-status').textContent),
  );
  const name = p.locator('#texture-cards .texture-card[data-path="DEMO/TEXTURE/WATER.TGA"] .card-name');
  await name.focus();
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  assert.equal(await focused(p), 'picture-canvas');
  const zoom = (await p.evaluate(() => window.relicview.flatView())).zoom;
  await p.keyboard.press('-');
  assert.equal(
    (await p.evaluate(() => window.relicview.flatView())).zoom,
    zoom / 2,
    'the picture takes the keys',
  );
  await p.keyboard.press('Escape');
  await p.waitForFunction(() => window.relicview.flatView()?.mode === 'textures');
  assert.equal(
    await p.evaluate(() => document.activeElement.closest('.texture-card')?.dataset.path),
    'DEMO/TEXTURE/WATER.TGA',
  );
  assert.equal(await p.evaluate(() => document.activeElement.className), 'card-name');
  assert.deepEqual(problems, []);
  await close();
});

test('each view shows only its own controls: a model, the gallery, a comparison, a picture, text and bytes', async () => {
  const { page: p, problems, close } = await page();
  const seen = async what => ({ what, shown: await onScreen(p) });
  // An animated field model: its 3D controls and timeline, its inspector, its row.
  await open(p, 'DEMO/FIELD/PARTY.BSX');
  let s = await seen('model');
  for (const id of ['display-menu', 'frame-button', 'hud', 'gizmo', 'timeline', 'inspector'])
    assert.ok(s.shown.includes(id), `${id}: ${JSON.stringify(s)}`);
  assert.deepEqual(
    s.shown.filter(id => COMPARING.includes(id)),
    [],
  );
  // The gallery: no 3D control, no timeline, no inspector, no file's row selected.
  await p.locator('#textures-button').click();
  await p.waitForFunction(() => window.relicview.flatView()?.mode === 'textures');
  s = await seen('gallery');
  assert.deepEqual(
    s.shown.filter(id => THREE_D.includes(id) || COMPARING.includes(id) || id === 'inspector'),
    [],
    JSON.stringify(s),
  );
  assert.ok(s.shown.includes('texture-gallery'));
  assert.equal(await p.locator('#file-list li[aria-selected="true"]').count(), 0, 'no file is on show');
  assert.equal(await p.locator('#info-title').textContent(), 'The archive’s textures');
  await axe(p, 'texture gallery');
  // A texture from it at full size: the picture and its tools only.
  await p
    .locator('#texture-cards .texture-card[data-path="DEMO/FIELD/PARTY.BSX"] .card-name')
    .first()
    .click();
  await p.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
  s = await seen('texture');
  assert.deepEqual(
    s.shown.filter(id => THREE_D.includes(id) || COMPARING.includes(id) || id === 'inspector'),
    [],
    JSON.stringify(s),
  );
  await axe(p, 'a texture at full size');
  // A comparison: its controls over the view; then a picture: none of them.
  await p.evaluate(() => window.relicview.compare('DEMO/VIDEO/DR1.BGF', 'DEMO/VIDEO/DR2.BGF'));
  await p.evaluate(() => window.relicview.setCompareView({ mode: 'split' }));
  s = await seen('comparison');
  for (const id of ['compare-controls', 'split-handle', 'compare-body', 'hud'])
    assert.ok(s.shown.includes(id), `${id}: ${JSON.stringify(s)}`);
  assert.equal(s.shown.includes('inspector-body'), false);
  await open(p, 'DEMO/TEXTURE/WATER.TGA');
  s = await seen('picture');
  assert.deepEqual(
    s.shown.filter(id => THREE_D.includes(id) || COMPARING.includes(id)),
    [],
    JSON.stringify(s),
  );
  assert.ok(s.shown.includes('picture-pane') && s.shown.includes('inspector'));
  // Back to a model: its controls again, nothing of the picture's.
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  s = await seen('model again');
  assert.ok(s.shown.includes('display-menu') && s.shown.includes('hud'));
  assert.deepEqual(
    s.shown.filter(id =>
      ['picture-pane', 'texture-gallery', 'text-pane', 'timeline', ...COMPARING].includes(id),
    ),
    [],
    JSON.stringify(s),
  );
  assert.deepEqual(problems, []);
  await close();
});

test('text and unknown files open in the main view: lines numbered and searchable, bytes in the hex view; no 3D controls', async () => {
  const { page: p, problems, close } = await page();
  const text = readFileSync(join(dir, 'README.TXT'), 'utf8');
  const lines = text.split('\n').length - 1;
  await open(p, 'README.TXT');
  let shown = await onScreen(p);
  assert.ok(shown.includes('text-pane'), JSON.stringify(shown));
  assert.deepEqual(
    shown.filter(id => THREE_D.includes(id)),
    [],
    JSON.stringify(shown),
  );
  assert.deepEqual(await p.evaluate(() => window.relicview.flatView()), { mode: 'text', lines });
  // In the main view, wider than the info pane would be; the first lines and their numbers.
  const pane = await p.locator('#text-pane').boundingBox();
  const view = await p.locator('#view').boundingBox();
  assert.ok(
    pane.width >= view.width - 2 && pane.height >= view.height * 0.9,
    `${JSON.stringify(pane)} in ${JSON.stringify(view)}`,
  );
  assert.match(
    await p.locator('#text-pane pre.text-view').textContent(),
    /^relicview test archive\nwide wide/,
  );
  assert.match(await p.locator('#text-pane pre.line-numbers').textContent(), /^1\n2\n3\n/);
  assert.equal(await p.locator('#info-more pre.text-view').count(), 0, 'not squeezed into the info pane');
  // The long line scrolls sideways instead of wrapping: one line stays one line high.
  const wrap = p.locator('#text-pane .text-wrap');
  assert.ok(await wrap.evaluate(w => w.scrollWidth > w.clientWidth));
  // Find: the line with the words is marked and scrolled into sight, far down the file.
  await p.locator('#text-find').fill('NEEDLE');
  await p.locator('#text-find').press('Enter');
  const needle = text.split('\n').findIndex(l => l.includes('needle')) + 1;
  assert.equal(await p.locator('#text-find-status').textContent(), `line ${needle} · 1 of 1`);
  const hit = await p.evaluate(() => {
    const w = document.querySelector('#text-pane .text-wrap');
    const bar = w.querySelector('.text-hit').getBoundingClientRect();
    const box = w.getBoundingClientRect();
    return {
      inside: bar.top >= box.top && bar.bottom <= box.bottom,
      numbers: w.querySelector('.line-numbers').textContent.split('\n').map(Number),
    };
  });
  assert.ok(hit.inside && hit.numbers.includes(needle), JSON.stringify(hit).slice(0, 200));
  await p.locator('#text-find').fill('no such words');
  await p.locator('#text-find').press('Enter');
  assert.equal(await p.locator('#text-find-status').textContent(), 'not found');
  await axe(p, 'a text file');
  // Bytes: the hex view is the main view, no 3D view under it.
  await open(p, 'NOISE.DAT');
  shown = await onScreen(p);
  assert.ok(shown.includes('inspector') && !shown.includes('view'), JSON.stringify(shown));
  assert.deepEqual(
    shown.filter(id => THREE_D.includes(id)),
    [],
    JSON.stringify(shown),
  );
  const hex = await p.locator('#hex').boundingBox();
  assert.ok(hex.height > 400, `the bytes take the height: ${hex.height}`);
  assert.equal(await p.locator('#hex .hexrow').first().locator('.b').first().textContent(), '00');
  await axe(p, 'an unknown file');
  assert.deepEqual(problems, []);
  await close();
});

test('every failing kind says why over the view when opened: a cut zip, a cut ISO, a bad BGF, a bad BSX, a bad image', async () => {
  const { page: p, problems, close } = await page();
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
  const { page: p, problems, close } = await sizedPage(browser, server.url + '#folder=none', [1400, 850]);
  const own = scratchDir('dropcut');
  mkdirSync(join(own, 'D'));
  writeFileSync(join(own, 'D/CUT.ZIP'), readFileSync(join(dir, 'BAD/CUT.ZIP')));
  writeFileSync(join(own, 'D/CUT.ISO'), readFileSync(join(dir, 'BAD/CUT.ISO')));
  writeFileSync(join(own, 'D/CUBE.BGF'), readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')));
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
  const { page: p, problems, close } = await page();
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
  const { page: p, problems, close } = await page();
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

test('at 1024×640 a comparison shows at least 12 rows of its trees and of each hex pane, and its controls never push the view', async () => {
  const { page: p, problems, close } = await page([1024, 640]);
  await p.evaluate(() => window.relicview.compare('DEMO/VIDEO/DR1.BGF', 'DEMO/VIDEO/DR2.BGF'));
  const rowsInSight = () =>
    p.evaluate(() => {
      const whole = (box, rows) => {
        const b = box.getBoundingClientRect();
        return [...rows].filter(r => {
          const q = r.getBoundingClientRect();
          return q.top >= b.top - 0.5 && q.bottom <= b.bottom + 0.5 && q.height > 0;
        }).length;
      };
      return {
        tree: whole(
          document.getElementById('compare-tree'),
          document.querySelectorAll('#compare-tree .crow'),
        ),
        a: whole(
          document.getElementById('compare-hex-a'),
          document.querySelectorAll('#compare-hex-a .hexrow'),
        ),
        b: whole(
          document.getElementById('compare-hex-b'),
          document.querySelectorAll('#compare-hex-b .hexrow'),
        ),
      };
    });
  const rows = await rowsInSight();
  assert.ok(rows.tree >= 12 && rows.a >= 12 && rows.b >= 12, JSON.stringify(rows));
  // Each hex row whole across: offset, its bytes and their text inside the pane.
  const cut = await p.evaluate(() =>
    ['a', 'b'].map(k => {
      const pane = document.getElementById(`compare-hex-${k}`).getBoundingClientRect();
      const row = document.querySelector(`#compare-hex-${k} .hexrow .ascii`).getBoundingClientRect();
      return row.right <= pane.right + 1;
    }),
  );
  assert.deepEqual(cut, [true, true]);
  const view = await p.locator('#view').boundingBox();
  const toolbar = await p.locator('#toolbar').boundingBox();
  for (const mode of ['split', 'overlay', 'difference', 'a']) {
    await p.evaluate(mode => window.relicview.setCompareView({ mode }), mode);
    assert.deepEqual(await p.locator('#view').boundingBox(), view, mode);
    assert.deepEqual(await p.locator('#toolbar').boundingBox(), toolbar, mode);
  }
  await axe(p, 'a comparison at 1024×640');
  // Ended, the info pane folded for its room comes back.
  await p.locator('#compare-end').click();
  await p.waitForFunction(() => window.relicview.comparison() === null);
  assert.equal(await p.locator('#info-panel').isVisible(), true);
  assert.deepEqual(problems, []);
  await close();
});

test('help opens at its top with focus in the dialog, and lists every key the view and a comparison are dispatched by', async () => {
  const { page: p, problems, close } = await page([1024, 640]);
  await p.locator('#viewport').focus();
  await p.keyboard.press('?');
  await p.waitForFunction(() => !document.getElementById('help').hidden);
  const where = await p.evaluate(() => {
    const card = document.querySelector('.help-card');
    const h = document.getElementById('help-title').getBoundingClientRect();
    const c = card.getBoundingClientRect();
    return {
      top: card.scrollTop,
      inside: h.top >= c.top && h.bottom <= c.bottom,
      focus:
        document.activeElement === card ||
        (card.contains(document.activeElement) && document.activeElement.id !== 'help-close'),
    };
  });
  assert.deepEqual(where, { top: 0, inside: true, focus: true });
  const listed = await p.locator('#help-keys th[scope="row"]').allTextContents();
  await withSourceModules(p);
  const tables = await p.evaluate(async () => {
    const keys = await import(new URL('/__source/www/panes/keys.js', location.href).href);
    const compare = await import(new URL('/__source/www/flows/compare.js', location.href).href);
    return [...keys.VIEW_KEYS, ...compare.COMPARE_KEYS].map(k => k.label);
  });
  assert.ok(tables.length >= 18);
  for (const label of tables) assert.ok(listed.includes(label), `${label} listed`);
  assert.ok(
    listed.some(k => /Shift \+ F10/.test(k)),
    'the menu key is listed',
  );
  await axe(p, 'help');
  // Escape closes it; the keys it lists work over the view (W: wireframe).
  await p.keyboard.press('Escape');
  await p.locator('#viewport').focus();
  const before = await p.locator('#opt-wireframe').isChecked();
  await p.keyboard.press('w');
  await p.waitForFunction(b => document.getElementById('opt-wireframe').checked !== b, before);
  assert.deepEqual(problems, []);
  await close();
});

test("small pictures fill the view, a sheet's labels sit beside its images, and a VRAM page's thumbnail is the part its model samples", async () => {
  const { page: p, problems, close } = await page();
  // A 16 × 16 SGI image: whole pixels a texel, as large as fits.
  await open(p, 'DEMO/TEXTURE/SIGN.RGB');
  const box = await p
    .locator('#picture-canvas')
    .evaluate(c => ({ width: c.clientWidth, height: c.clientHeight }));
  const sign = await p.evaluate(() => window.relicview.flatView());
  assert.equal(sign.zoom, Math.floor(Math.min(box.width / 16, box.height / 16)));
  // FIELD.TDB: the texels at each image's top-left corner are the image's own, not a label.
  await open(p, 'FF7/FIELD.TDB');
  const sheet = await p.evaluate(() => window.relicview.flatView());
  const corners = await p.evaluate(f => {
    const c = document.getElementById('picture-canvas');
    const r = c.getBoundingClientRect();
    const [x0, y0] = [(r.width - f.width * f.zoom) / 2, (r.height - f.height * f.zoom) / 2];
    const g = c.getContext('2d');
    const out = [];
    for (const k of [0, 1, 17, 33]) {
      const [cx, cy] = [(k % 16) * 32, Math.floor(k / 16) * 32];
      const want = window.relicview.pictureAt(x0 + (cx + 2.5) * f.zoom, y0 + (cy + 2.5) * f.zoom).rgba;
      const got = [
        ...g.getImageData(Math.round(x0 + (cx + 2.5) * f.zoom), Math.round(y0 + (cy + 2.5) * f.zoom), 1, 1)
          .data,
      ];
      out.push({ k, want, got });
    }
    // Labels beside: something drawn left of the sheet, at the first row's middle.
    const left = [...g.getImageData(Math.round(x0 - 12), Math.round(y0 + 16 * f.zoom) - 4, 10, 8).data].some(
      (v, i) => i % 4 === 3 && v > 0,
    );
    return { out, left, x0 };
  }, sheet);
  assert.ok(corners.x0 >= 30, `room for the labels: ${corners.x0}`);
  assert.equal(corners.left, true, 'row labels beside the sheet');
  for (const { k, want, got } of corners.out) {
    // Opaque texels as stored; transparent ones show the checker's greys.
    if (want[3] === 255) assert.deepEqual(got.slice(0, 3), want.slice(0, 3), `image ${k}'s corner`);
  }
  // The gallery's VRAM page thumbnails: the part the model samples.
  const cards = await p.evaluate(() => window.relicview.textures());
  const pages = cards.filter(c => c.texture !== null);
  assert.ok(pages.length > 0);
  for (const c of pages) {
    assert.ok(
      Array.isArray(c.used) &&
        c.used[2] > 0 &&
        c.used[3] > 0 &&
        c.used[0] + c.used[2] <= c.width &&
        c.used[1] + c.used[3] <= c.height,
      JSON.stringify(c),
    );
  }
  assert.ok(
    pages.some(c => c.used[2] * c.used[3] < (c.width * c.height) / 2),
    'pages are sampled in part',
  );
  await p.locator('#textures-button').click();
  await p.waitForFunction(() =>
    /\d+ textures?:/.test(document.getElementById('texture-gallery-status').textContent),
  );
  const meta = await p.locator('#texture-cards .texture-card[data-texture] .card-meta').first().textContent();
  assert.match(meta, /the model samples \d+ × \d+ at \(\d+, \d+\)/);
  const thumb = await p
    .locator('#texture-cards .texture-card[data-texture] canvas')
    .first()
    .evaluate(c => [c.width, c.height]);
  const first = pages.find(c => meta.includes(`${c.used[2]} × ${c.used[3]} at (${c.used[0]}, ${c.used[1]})`));
  assert.ok(first, meta);
  assert.ok(thumb[0] <= first.used[2] && thumb[1] <= first.used[3], `${thumb} of ${first.used}`);
  assert.deepEqual(problems, []);
  await close();
});

test('small oddities: a still model has no timeline, a one-frame animation reads frame 0/1, "link copied" goes with the view, errors name their file once', async () => {
  const { page: p, problems, close } = await page();
  await p.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await open(p, 'FF7/MD1_1.BSX');
  const options = await p.evaluate(() => window.relicview.choice().options);
  // A model of no animation (its face still blinks on its own cadence): no play, no clock.
  const still = options.findIndex(o => o.startsWith('model 1 ('));
  await p.evaluate(k => window.relicview.choose(k), still);
  assert.equal(await p.evaluate(() => window.relicview.hasBlink()), true);
  assert.equal(await p.locator('#timeline').isVisible(), false);
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  assert.equal(await p.locator('#timeline').isVisible(), false);
  await open(p, 'FF7/MD1_1.BSX');
  const one = options.findIndex(o => /animation \d+ \(1 frame\)$/.test(o));
  assert.ok(one >= 0, JSON.stringify(options));
  await p.evaluate(k => window.relicview.choose(k), one);
  assert.equal(await p.locator('#timeline').isVisible(), true);
  // Whatever the clock reads as it runs on (several whole loops of the one frame).
  for (let i = 0; i < 4; i++) {
    assert.match(await p.locator('#clock-label').textContent(), /^frame 0\/1 · 0\.0\d\/0\.03 s$/);
    const t = await p.evaluate(() => window.relicview.animationTime());
    await p.waitForFunction(t => window.relicview.animationTime() > t + 0.1, t);
  }
  // The share note is about the view it copied: another view takes it away.
  await p.locator('#share-button').click();
  await p.waitForFunction(() => document.getElementById('share-status').textContent !== '');
  // The clock running on is no other view: the note stays while the address follows it.
  const copied = await p.evaluate(() => ({ t: window.relicview.animationTime(), hash: location.hash }));
  await p.waitForFunction(
    ({ t, hash }) => window.relicview.animationTime() > t + 0.3 && location.hash !== hash,
    copied,
  );
  assert.notEqual(await p.locator('#share-status').textContent(), '');
  await open(p, 'DEMO/VIDEO/CUBE.BGF');
  await p.waitForFunction(() => document.getElementById('share-status').textContent === '');
  // A damaged file's note names it once.
  await open(p, 'DEMO/VIDEO/CUT.BGF');
  const note = await p.locator('#view-message').textContent();
  assert.equal(note.split('DEMO/VIDEO/CUT.BGF').length - 1, 1, note);
  assert.deepEqual(problems, []);
  await close();
});
