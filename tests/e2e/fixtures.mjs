// The archives and the steps the journey tests share: each archive is the demo's with the
// files a group of journeys needs beside it, made fresh in a scratch folder (makeArchive), and
// each step is what a reader does or sees (a row clicked, what is on screen, the pixels).

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, after } from 'node:test';
import { makeArchive, repo, sizedPage, listedPage, launch, startServer } from './harness.mjs';
import { compressLzs } from './ff7.mjs';
import { scratchDir } from './scratch.mjs';

const testdata = (/** @type {string} */ name) => readFileSync(join(repo, '../shared/testdata', name));
export const MD1_1 = testdata('ff7/MD1_1_u.BSX');
// MD1_1 as on the disc, rebuilt by the tests' own LZS encoder (written from the notes, not
// relicview's), then cut at three quarters of its container (past its models section: half
// decodes to less than that); and Cloud's BCX as on the disc, cut to half.
export const PACKED = compressLzs(MD1_1);
export const HALF = PACKED.subarray(0, Math.floor(PACKED.length * 0.75));
export const CLOUD = testdata('ff7-disc/CLOUD.BCX');
const ff7 = (/** @type {string} */ name) => testdata(`ff7/${name}`);

// Writes `bytes` at `path` under `dir`, making its folders.
const writerIn = dir => (path, bytes) => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), bytes);
};

// FF7 field models as on the disc (LZS), whole and cut, a character's BCX whole and cut, and
// a note beside the game.
export function discArchive() {
  const dir = makeArchive();
  const put = writerIn(dir);
  put('FF7/HALF.BSX', HALF);
  put('FF7/CLOUDCUT.BCX', CLOUD.subarray(0, CLOUD.length >> 1));
  put('FF7/MD1_1.BSX', MD1_1);
  put('FF7/CLOUD.BCX', CLOUD);
  put('TEXTS/README.TXT', 'a note beside the game\n');
  return dir;
}

// Files that fail or are odd: field models cut short or with a wrong size word, a TGA that
// promises more than it holds, a zip and an ISO made by real tools then cut, a long text, bytes
// of no kind; FIELD.BIN and FIELD.TDB beside the models.
export function oddArchive() {
  const dir = makeArchive();
  const put = writerIn(dir);
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
  const scratch = scratchDir('odd');
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
  return dir;
}

// The demo with the real FIELD.TDB (a sheet of images).
export function sheetArchive() {
  const dir = makeArchive();
  // The real FIELD.TDB, as extracted from the disc (not LZS-wrapped).
  writerIn(dir)('FF7/FIELD.TDB', ff7('FIELD.TDB_u'));
  return dir;
}

// A file opened through the API: its summary, or {error}.
export const open = (page, path) =>
  page.evaluate(
    p =>
      window.relicview.open(p).then(
        r => r,
        e => ({ error: e.message }),
      ),
    path,
  );

// A row of the list clicked as a reader finds it: its name typed in the search box (the
// list draws only the rows in sight).
export async function clickRow(page, path) {
  await page.locator('#search').fill(path.split('/').pop());
  await page.locator(`#file-list li[data-path="${path}"]`).click();
  await page.locator('#search').fill('');
}

// The controls of a 3D view, of a comparison, and every control and pane the tests watch.
export const THREE_D = [
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

export const COMPARING = ['compare-controls', 'split-handle', 'compare-legend', 'compare-body'];

export const WATCHED = [
  ...THREE_D,
  ...COMPARING,
  'inspector',
  'inspector-body',
  'view',
  'picture-pane',
  'texture-gallery',
  'text-pane',
  'gallery',
  'view-message',
];

// What is on screen of the watched controls and panes: an element counts when it is laid
// out with a size, not hidden by any ancestor, and inside the window.
export function onScreen(page) {
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

// What has the focus: its id, or else its class or tag.
export const focused = page =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? el.id || el.className || el.tagName : null;
  });

// A folder of its own in a fresh temp dir: {relative path: bytes}.
export function folder(name, files) {
  const root = join(scratchDir('drop'), name);
  const put = writerIn(root);
  for (const [path, bytes] of Object.entries(files)) put(path, bytes);
  return root;
}

// Everything a reader sees of the file on show.
export async function onShow(page) {
  return page.evaluate(() => ({
    triangles: window.relicview.stats().triangles,
    drawn: window.relicview.pixelStats().nonBackground,
    title: document.getElementById('info-title').textContent,
    info: document.getElementById('info-body').textContent,
    records: window.relicview.inspector.view()?.chunks?.length ?? 0,
    selected: [...document.querySelectorAll('#file-list [aria-selected="true"]')].map(e => e.textContent),
    message: document.getElementById('view-message').hidden
      ? ''
      : document.getElementById('view-message').textContent,
    hash: decodeURIComponent(location.hash),
    listed: window.relicview.shownFiles(),
  }));
}

// The canvas's pixels, as a hash.
// (The clock held at 0: a scroll or a door would change it from frame to frame.)
export const picture = page =>
  page.evaluate(async () => {
    await window.relicview.setClock({ time: 0, playing: false });
    await window.relicview.frame();
    const { data } = window.relicview.readPixels();
    let h = 0;
    for (let i = 0; i < data.length; i += 7) h = (h * 31 + data[i]) | 0;
    return h;
  });

// WCAG's contrast ratio of two sRGB colours ([r, g, b], 0–255).
export function contrast(a, b) {
  const lum = ([r, g, bl]) =>
    [r, g, bl]
      .map(c => c / 255)
      .map(c => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      .reduce((s, c, k) => s + c * [0.2126, 0.7152, 0.0722][k], 0);
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

// The toolbar's rows (its visible controls grouped by where they sit) and the view's share
// of the window's height.
export async function layout(page) {
  return page.evaluate(() => {
    const shown = [...document.getElementById('toolbar').children].filter(
      c => c.offsetParent !== null && c.getBoundingClientRect().width > 0,
    );
    const centres = shown
      .map(c => {
        const r = c.getBoundingClientRect();
        return (r.top + r.bottom) / 2;
      })
      .sort((a, b) => a - b);
    let rows = 0;
    let last = -Infinity;
    for (const y of centres) {
      if (y - last > 12) rows++;
      last = y;
    }
    const view = document.getElementById('view').getBoundingClientRect();
    const visible = id => {
      const e = document.getElementById(id);
      return Boolean(e && e.offsetParent !== null);
    };
    return {
      rows,
      viewShare: view.height / innerHeight,
      lod: visible('lod-select'),
      display: visible('display-menu'),
      camera: visible('camera-menu'),
      frame: visible('frame-button'),
    };
  });
}

// The served archive at `url` at `size`, once its first model has opened.
export async function sizedOpened(browser, url, size, options = {}) {
  const opened = await sizedPage(browser, url, size, options);
  await opened.page.waitForFunction(() => window.relicview.lastOpen());
  return opened;
}

// A browser for a file's tests, launched before them and closed after: `.browser` once
// launched.
export function launched() {
  const ctx = { browser: /** @type {import('playwright-core').Browser | null} */ (null) };
  before(async () => {
    ctx.browser = await launch();
  });
  after(async () => {
    await ctx.browser?.close();
  });
  return ctx;
}

// The archive `makeDir()` makes, served for the tests of the block that calls this (beside
// the file's browser, `browserOf()`): `.dir` and `.server` once served, `page(size)` a page
// of it with its listing shown, `sized(size)` one once its first model has opened.
export function servedBeside(browserOf, makeDir) {
  const on = {
    dir: '',
    server: /** @type {{ url: string, stop(): void } | null} */ (null),
    page: size => listedPage(browserOf(), on.server.url, size),
    sized: (size, url = on.server.url, options = {}) => sizedOpened(browserOf(), url, size, options),
  };
  before(async () => {
    on.dir = makeDir();
    on.server = await startServer(on.dir);
  });
  after(() => on.server?.stop());
  return on;
}
