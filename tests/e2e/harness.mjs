// Shared set-up of the browser tests: a generated archive, `relicview serve` on a free port,
// and headless Debian Chromium (SwiftShader WebGL2) driven by playwright-core.

import { before, after } from 'node:test';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { scratchDir } from './scratch.mjs';

export const repo = resolve(import.meta.dirname, '../..');
export const bin = process.env.RELICVIEW_BIN || join(repo, 'target/release/relicview');

// The middle of `xs` (the mean of the two middle ones for an even count): what a benchmark
// reports of its runs.
/** @param {number[]} xs */
export const median = xs => {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Every file under `d`, recursively.
export function walk(d) {
  return readdirSync(d).flatMap(n => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
}

export function relicview(...args) {
  return execFileSync(bin, args, { encoding: 'utf8' });
}

// `relicview info --json`; on a bad file it exits 1 and still prints JSON.
export function nativeInfo(path) {
  try {
    return JSON.parse(relicview('info', path, '--json'));
  } catch (e) {
    if (e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

// The demo archive plus hostile extras, in a fresh temp folder.
export function makeArchive() {
  const root = scratchDir('e2e');
  const dir = join(root, 'GAME');
  relicview('demo', dir);
  // A malformed model: the first chunk inside its OBJECT has an invalid tag word.
  const hexpod = readFileSync(join(dir, 'DEMO/VIDEO/HEXPOD.BGF'));
  writeFileSync(join(dir, 'DEMO/VIDEO/BROKEN.BGF'), malformed(hexpod));
  // A model cut short in the middle of its OBJECT chunk: damaged where it ends.
  writeFileSync(join(dir, 'DEMO/VIDEO/CUT.BGF'), hexpod.subarray(0, hexpod.length - 40));
  // A second game tree whose own material library is cut short: its models must still draw.
  mkdirSync(join(dir, 'BROKENTREE/MATERIAL'), { recursive: true });
  mkdirSync(join(dir, 'BROKENTREE/VIDEO'), { recursive: true });
  const lib = readFileSync(join(dir, 'DEMO/MATERIAL/DEMO.BMF'));
  writeFileSync(join(dir, 'BROKENTREE/MATERIAL/DEMO.BMF'), lib.subarray(0, 100));
  writeFileSync(join(dir, 'BROKENTREE/VIDEO/CUBE.BGF'), readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')));
  // The text twin of the format, which is shown as text.
  mkdirSync(join(dir, 'TEXTS'), { recursive: true });
  writeFileSync(
    join(dir, 'TEXTS/BOX.VGF'),
    'DIV-VIZ2\nHEADER {\n  VERSION 2.8\n}\nOBJECT "box" {\n  <script>alert(1)</script>\n}\n',
  );
  // A name that would run script if it ever reached the page as HTML.
  writeFileSync(
    join(dir, 'DEMO/VIDEO/<img src=x onerror=alert(1)>.BGF'),
    readFileSync(join(dir, 'DEMO/VIDEO/CUBE.BGF')),
  );
  return dir;
}

// A copy of a DIV-BIZ2 file whose second top-level chunk's first child has a tag word of
// length width 3 (invalid): an error in the middle of the file, not at its end.
export function malformed(bytes) {
  const out = Buffer.from(bytes);
  const width = at => [1, 2, 4][out.readUInt16LE(at) >> 14];
  const length = at =>
    ({ 1: () => out[at + 2], 2: () => out.readUInt16LE(at + 2), 4: () => out.readUInt32LE(at + 2) })[
      width(at)
    ]();
  const second = 8 + 2 + width(8) + length(8);
  const child = second + 2 + width(second);
  out[child + 1] |= 0xc0;
  return out;
}

// The demo tree with two real FF7 field models and FIELD.TDB at `dir/tree`, and the same
// tree as containers made by real tools beside it: GAME.zip (Python's zipfile), GAME.iso
// (xorriso), FF7.bin of MODE2/2352 sectors with its FF7.cue, and FF7.chd (MAME's chdman).
export function buildContainers(dir) {
  const tree = join(dir, 'tree');
  relicview('demo', tree);
  mkdirSync(join(tree, 'FF7/FIELD'), { recursive: true });
  for (const n of ['MD1_1', 'ELEVTR1'])
    writeFileSync(
      join(tree, `FF7/FIELD/${n}.BSX`),
      lzsLiterals(readFileSync(join(repo, `../shared/testdata/ff7/${n}_u.BSX`))),
    );
  writeFileSync(
    join(tree, 'FF7/FIELD/FIELD.TDB'),
    readFileSync(join(repo, '../shared/testdata/ff7/FIELD.TDB_u')),
  );
  execFileSync('python3', [
    '-c',
    `import os, sys, zipfile
root = sys.argv[1]
with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:
  for d, _, fs in sorted(os.walk(root)):
    for f in sorted(fs):
      p = os.path.join(d, f); z.write(p, os.path.relpath(p, root))`,
    tree,
    join(dir, 'GAME.zip'),
  ]);
  execFileSync(
    'xorriso',
    ['-as', 'mkisofs', '-quiet', '-iso-level', '2', '-o', join(dir, 'GAME.iso'), tree],
    { stdio: 'ignore' },
  );
  // The ISO as raw CD-ROM XA mode 2 form 1 sectors, and the cue sheet that names them.
  execFileSync('python3', [
    '-c',
    `import sys
iso = open(sys.argv[1], 'rb').read()
out = bytearray()
bcd = lambda n: (n // 10) << 4 | n % 10
for i in range(0, len(iso), 2048):
  lba = i // 2048 + 150
  out += bytes([0] + [255] * 10 + [0, bcd(lba // 4500), bcd(lba // 75 % 60), bcd(lba % 75), 2, 0, 0, 8, 0, 0, 0, 8, 0]) + iso[i:i + 2048] + bytes(280)
open(sys.argv[2], 'wb').write(out)`,
    join(dir, 'GAME.iso'),
    join(dir, 'FF7.bin'),
  ]);
  writeFileSync(
    join(dir, 'FF7.cue'),
    'FILE "FF7.BIN" BINARY\r\n  TRACK 01 MODE2/2352\r\n    INDEX 01 00:00:00\r\n',
  );
  // The same rip compressed by MAME's chdman (from a cue of its own, gone before the drop).
  const chdCue = join(dir, 'chdman.cue');
  writeFileSync(chdCue, 'FILE "FF7.bin" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n');
  execFileSync('chdman', ['createcd', '-i', chdCue, '-o', join(dir, 'FF7.chd')], { stdio: 'ignore' });
  rmSync(chdCue);
}

// A generated PlayStation-like disc at `root/disc.iso` (xorriso), from `root/tree`: `files`
// copies of the real MD1_1.BSX (LZS-wrapped) in FIELD/Fnn folders of 100, and filler movies
// (sparse files) making the disc about `megabytes` MB. → the field model in the middle,
// {folder, name}.
export function makeDiscImage(root, files, megabytes) {
  const tree = join(root, 'tree');
  const md1 = lzsLiterals(readFileSync(join(repo, '../shared/testdata/ff7/MD1_1_u.BSX')));
  for (let i = 0; i < files; i++) {
    const folder = join(tree, 'FIELD', `F${String(Math.floor(i / 100)).padStart(2, '0')}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `M${String(i).padStart(5, '0')}.BSX`), md1);
  }
  mkdirSync(join(tree, 'MOVIE'), { recursive: true });
  const used = files * md1.length;
  const fillers = 20;
  const each = Math.max(0, Math.floor((megabytes * 1e6 - used) / fillers));
  for (let k = 0; k < fillers; k++)
    execFileSync('truncate', ['-s', String(each), join(tree, 'MOVIE', `MOV${k}.STR`)]);
  execFileSync(
    'xorriso',
    ['-as', 'mkisofs', '-quiet', '-iso-level', '2', '-o', join(root, 'disc.iso'), tree],
    { stdio: 'ignore' },
  );
  const mid = Math.floor(files / 2);
  return {
    folder: `F${String(Math.floor(mid / 100)).padStart(2, '0')}`,
    name: `M${String(mid).padStart(5, '0')}.BSX`,
  };
}

// The usual set-up of a file of browser tests: the archive (and what `prepare(dir)` adds to
// it), `relicview serve` over it and a browser, made before the file's tests and ended after
// them. → {dir, server, browser}, filled in once the tests run.
export function servedArchive(prepare = () => {}) {
  const ctx = {};
  before(async () => {
    ctx.dir = makeArchive();
    await prepare(ctx.dir);
    ctx.server = await startServer(ctx.dir);
    ctx.browser = await launch();
  });
  after(async () => {
    await ctx.browser?.close();
    ctx.server?.stop();
  });
  return ctx;
}

export async function startServer(dir) {
  const child = spawn(bin, ['serve', dir, '--port', '0', '--site', join(repo, 'site')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await within(
    new Promise((resolvePromise, reject) => {
      child.stdout.on('data', d => {
        out += d;
        const m = out.match(/at (http:\/\/[^\s]+)/);
        if (m) resolvePromise(m[1]);
      });
      child.on('exit', code => reject(new Error(`relicview serve exited with ${code}`)));
    }),
    60_000,
    async () => {
      child.kill();
      return `relicview serve ${dir} printed no address in 60 s; it printed: ${JSON.stringify(out.slice(-500))}`;
    },
  );
  return { url, stop: () => child.kill() };
}

// Every wait of a browser test or benchmark ends, and says what it waited for and what the
// page showed then. A page's `evaluate` ends within EVALUATE_MS (a page can set its own:
// `page.evaluateMs`), its `waitForFunction` within the timeout it is given or Playwright's;
// either failing names the function awaited and the page's state (`pageSeen`).
const EVALUATE_MS = Number(process.env.RELICVIEW_EVALUATE_MS) || 300_000;
const SEEN_MS = 5_000;
const BOUNDED = Symbol('bounded');

// `promise`, or an error after `ms` saying `what()` did not end.
/** @template T @param {Promise<T>} promise @param {number} ms @param {() => Promise<string>} what */
export function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(async () => reject(new Error(await what())), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// A function's source, short, for a message.
const described = fn =>
  (typeof fn === 'function' ? fn.toString() : String(fn)).replace(/\s+/g, ' ').slice(0, 240);

// What the page shows, in one line: its link, the file open and the one opening, the view's
// loading line, the grid's pending cards and why each waits, the thumbnail worker; or that
// the page did not answer (its thread busy).
export async function pageSeen(page) {
  const evaluate = page[BOUNDED] ?? page.evaluate.bind(page);
  const look = () => {
    const r = window.relicview;
    const call = f => {
      try {
        return f();
      } catch (e) {
        return `(${e.message})`;
      }
    };
    const text = id => document.getElementById(id)?.textContent?.trim().slice(0, 200) || undefined;
    const grid = r && call(() => r.grid());
    return JSON.stringify({
      hash: location.hash.slice(0, 200),
      lastOpen: r && call(() => r.lastOpen()?.path),
      listed: r && call(() => r.listing()?.files),
      loading: document.getElementById('loading')?.hidden === false ? text('loading-label') : undefined,
      grid: grid?.shown
        ? {
            folding: grid.folding,
            cards: grid.cards.length,
            pending: grid.cards
              .filter(c => c.state === 'pending')
              .slice(0, 12)
              .map(c => `${c.path}: ${c.waiting}`),
            status: text('grid-status'),
          }
        : undefined,
    });
  };
  return within(evaluate(look), SEEN_MS, async () => `the page did not answer in ${SEEN_MS / 1000} s`).catch(
    e => e.message,
  );
}

// `page` with bounded waits (above); once per page.
export function bounded(page) {
  if (page[BOUNDED]) return page;
  const evaluate = page.evaluate.bind(page);
  const waitForFunction = page.waitForFunction.bind(page);
  page[BOUNDED] = evaluate;
  page.evaluate = (fn, arg) => {
    const ms = page.evaluateMs ?? EVALUATE_MS;
    return within(
      evaluate(fn, arg),
      ms,
      async () =>
        `page.evaluate did not end in ${ms / 1000} s: ${described(fn)}; the page: ${await pageSeen(page)}`,
    );
  };
  page.waitForFunction = (fn, arg, options) =>
    waitForFunction(fn, arg, options).catch(async e => {
      throw new Error(
        `waited for ${described(fn)} (${e.message.split('\n')[0]}); the page: ${await pageSeen(page)}`,
      );
    });
  return page;
}

// A context whose pages are bounded.
function boundedContext(context) {
  const newPage = context.newPage.bind(context);
  context.newPage = async (...args) => bounded(await newPage(...args));
  context.on('page', bounded);
  return context;
}

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => boundedContext(await newContext(...args));
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => bounded(await newPage(...args));
  return browser;
}

export async function newPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
  const problems = [];
  page.on('pageerror', e => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', d => {
    problems.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
  page.on('console', m => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  await page.evaluate(() => window.relicview.ready);
  return { page, problems };
}

// A page in a context of its own at `[width, height]` (context `options` such as
// {hasTouch}), once the page is up; `problems` collects page errors and console errors
// (a 404 aside: a probe for a listing that is not there). `close` ends the context.
export async function sizedPage(browser, url, [width, height] = [1400, 850], options = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', e => problems.push(`pageerror: ${e.message}`));
  page.on('console', m => {
    if (m.type() === 'error' && !/404/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  await page.evaluate(() => window.relicview.ready);
  return { page, problems, close: () => context.close() };
}

// Drop the folder (or file) at `path` on the page's middle, as a file manager's drag does:
// through the DevTools protocol, so the page sees real folder entries (a DataTransfer made
// in the page can carry files only).
export async function dropFolder(page, path) {
  const cdp = await page.context().newCDPSession(page);
  const { width, height } = page.viewportSize();
  const data = { items: [], files: [path], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'])
    await cdp.send('Input.dispatchDragEvent', { type, x: width / 2, y: height / 2, data });
  await cdp.detach();
}

// Give the page a folder through its folder input; resolves once its `count` files are
// listed and typed by content (the list shows first, the kinds follow).
export async function loadFolder(page, dir, count) {
  await page.locator('#folder-input').setInputFiles(dir);
  await page.waitForFunction(n => window.relicview.listing().files === n, count);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.typed);
}

// An LZS container of literals only: every group is a control byte of ones and its bytes.
export function lzsLiterals(data) {
  const out = [];
  for (let i = 0; i < data.length; i += 8) {
    const n = Math.min(8, data.length - i);
    out.push((1 << n) - 1, ...data.subarray(i, i + n));
  }
  const head = Buffer.alloc(4);
  head.writeUInt32LE(out.length);
  return Buffer.concat([head, Buffer.from(out)]);
}

// three.js from tests/e2e/node_modules, served to the page under /__three/ (for GLTFLoader).
export async function withThree(page) {
  const root = join(import.meta.dirname, 'node_modules/three');
  await page.route('**/__three/**', route => {
    const path = new URL(route.request().url()).pathname.replace(/^\/__three\//, '');
    const body = readFileSync(join(root, path), 'utf8').replaceAll(
      /from 'three'/g,
      "from '/__three/build/three.module.js'",
    );
    route.fulfill({ status: 200, contentType: 'text/javascript', body });
  });
}

// The source tree's page modules (www/<tier>/, pkg/), served to the page under /__source/: the
// served page is the built one (one bundle), so a test that reads a module's own tables
// (the keys a view is dispatched by) imports that module from the source tree.
export async function withSourceModules(page) {
  await page.route('**/__source/**', route => {
    const path = new URL(route.request().url()).pathname.replace(/^\/__source\//, '');
    if (!/^(www\/[\w-]+|pkg)\/[\w.-]+\.(js|wasm)$/.test(path))
      return route.fulfill({ status: 404, body: 'not a page module' });
    route.fulfill({
      status: 200,
      contentType: path.endsWith('.wasm') ? 'application/wasm' : 'text/javascript',
      body: readFileSync(join(repo, path)),
    });
  });
}

// Pixels of the canvas as the compositor shows them that differ from the background colour.
// The overlays drawn over the canvas (info panel, HUD) are masked out.
export async function canvasCoverage(page) {
  const png = PNG.sync.read(await page.locator('#viewport').screenshot());
  const { bg, masks } = await page.evaluate(() => {
    const c = document.getElementById('viewport').getBoundingClientRect();
    const masks = ['info-panel', 'hud', 'toolbar'].map(id => {
      const r = document.getElementById(id).getBoundingClientRect();
      return [r.left - c.left, r.top - c.top, r.right - c.left, r.bottom - c.top];
    });
    return { bg: window.relicview.pixelStats().background, masks };
  });
  let differing = 0;
  let total = 0;
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      if (masks.some(([l, t, r, b]) => x >= l && x < r && y >= t && y < b)) continue;
      total++;
      const i = (y * png.width + x) * 4;
      if (
        Math.abs(png.data[i] - bg[0]) +
          Math.abs(png.data[i + 1] - bg[1]) +
          Math.abs(png.data[i + 2] - bg[2]) >
        12
      )
        differing++;
    }
  }
  return { differing, total, png };
}

// Debian's Blender, headless, imports every .glb of `folder`, each into an empty scene: the
// Python of `before` runs once the scene is emptied (a frame rate, say), that of `each` after
// the import (both indented for the loop's body, four spaces), filling the dict `entry`;
// → {file name: entry}. No other Python's variables or shims: Debian's Blender with Debian's
// numpy, whose 1.24 removed numpy.bool, which the Blender 3.4 importer still uses.
export function blenderImports(folder, { before = '', each }) {
  const script = join(folder, 'import.py');
  writeFileSync(
    script,
    `import json, os, sys
import numpy
numpy.bool = bool
import bpy
folder = sys.argv[sys.argv.index('--') + 1]
report = {}
for name in sorted(os.listdir(folder)):
    if not name.endswith('.glb'):
        continue
    bpy.ops.wm.read_factory_settings(use_empty=True)
${before}
    bpy.ops.import_scene.gltf(filepath=os.path.join(folder, name))
    entry = {}
${each}
    report[name] = entry
print('REPORT ' + json.dumps(report))
`,
  );
  const env = { PATH: '/usr/bin:/bin', HOME: folder, LANG: 'C.UTF-8' };
  const out = execFileSync(
    'blender',
    ['-b', '--factory-startup', '--python-exit-code', '1', '--python', script, '--', folder],
    { env, encoding: 'utf8', maxBuffer: 256 << 20, timeout: 600_000 },
  );
  const line = out.split('\n').find(l => l.startsWith('REPORT '));
  if (!line) throw new Error(`Blender printed no report:\n${out.slice(-2000)}`);
  return JSON.parse(line.slice('REPORT '.length));
}

// A page at `[width, height]` once its archive is listed, typed and its first file opened.
export async function listedPage(browser, url, size = [1400, 850]) {
  const p = await sizedPage(browser, url, size);
  await p.page.waitForFunction(
    () => window.relicview.listing().files > 0 && window.relicview.indexTimeline()?.typed,
  );
  await p.page.waitForFunction(() => window.relicview.lastOpen() !== null);
  return p;
}

// axe-core's serious and critical findings on the page as it is: none, or the test fails
// naming them (`what`: the state checked).
export async function axeClean(page, what) {
  await page.addScriptTag({
    content: readFileSync(join(import.meta.dirname, 'node_modules/axe-core/axe.min.js'), 'utf8'),
  });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter(v => v.impact === 'serious' || v.impact === 'critical')
      .map(v => ({ id: v.id, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ')) }));
  });
  if (found.length) throw new Error(`axe: ${what}: ${JSON.stringify(found)}`);
}
