// The page's wasm modules as a user meets them: a loose model opens with the core alone; the
// first container dropped loads the containers module, the first export or comparison the
// tools module, each once; a module that cannot be had says which and why, the rest of the
// page works on, and the next use asks again. What was fetched is read from the requests
// the page made, by the names the build gave the files (site/assets.json).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launch, repo, walk, loadFolder, buildContainers, makeArchive } from './harness.mjs';
import { scratchDir } from './scratch.mjs';
import { functionNames, demangle } from '../../scripts/wasm-names.mjs';

let dir, server, browser;
const assets = JSON.parse(readFileSync(join(repo, 'site/assets.json'), 'utf8'));
const MODULES = { core: assets.core, containers: assets.containers, tools: assets.tools };

before(async () => {
  dir = join(scratchDir('modules'), 'DROP');
  buildContainers(dir);
  server = await startServer(makeArchive());
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// A page of the served demo; `fetched()` counts the requests for each wasm module so far.
async function page({ block = [] } = {}) {
  const p = await browser.newPage({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
  const problems = [];
  p.on('pageerror', e => problems.push(`pageerror: ${e.message}`));
  const asked = [];
  p.on('request', r => asked.push(new URL(r.url()).pathname.split('/').pop()));
  for (const name of block)
    await p.route(`**/assets/${MODULES[name]}`, route => route.fulfill({ status: 404, body: 'gone' }));
  await p.goto(server.url);
  await p.evaluate(() => window.relicview.ready);
  await p.waitForFunction(() => window.relicview.listing().files > 30);
  const fetched = () =>
    Object.fromEntries(Object.entries(MODULES).map(([k, file]) => [k, asked.filter(a => a === file).length]));
  return { page: p, problems, fetched };
}

const looseCount = () => walk(join(dir, 'tree')).length;

test('a loose model opens with the core alone; containers, an export and a comparison each load their module once, the first time', async () => {
  const { page: p, problems, fetched } = await page();
  const opened = await p.evaluate(() => window.relicview.open('DEMO/VIDEO/WALKER.BGF'));
  assert.ok(opened.triangles > 0);
  assert.deepEqual(fetched(), { core: 1, containers: 0, tools: 0 }, 'the core alone');
  assert.deepEqual(await p.evaluate(() => window.relicview.modules()), { containers: false, tools: false });
  // A dropped zip, ISO, cue/bin and CHD: listed and read by the containers module, fetched once.
  await loadFolder(p, dir, 5 * looseCount());
  const loose = await p.evaluate(() => window.relicview.open('DROP/tree/DEMO/VIDEO/HEXPOD.BGF'));
  for (const c of ['GAME.zip', 'GAME.iso', 'FF7.cue', 'FF7.chd']) {
    const inside = await p.evaluate(x => window.relicview.open(x), `DROP/${c}/DEMO/VIDEO/HEXPOD.BGF`);
    assert.equal(inside.triangles, loose.triangles, c);
  }
  assert.deepEqual(fetched(), { core: 1, containers: 1, tools: 0 });
  // An export and a comparison: the tools module, once.
  const glb = await p.evaluate(async () => (await window.relicview.exportGlb()).length);
  assert.ok(glb > 1000, `a .glb of ${glb} bytes`);
  const diff = await p.evaluate(() =>
    window.relicview.compare('DROP/tree/DEMO/VIDEO/HEXPOD.BGF', 'DROP/GAME.zip/DEMO/VIDEO/CUBE.BGF'),
  );
  assert.equal(diff.same, false);
  assert.deepEqual(fetched(), { core: 1, containers: 1, tools: 1 });
  assert.deepEqual(await p.evaluate(() => window.relicview.modules()), { containers: true, tools: true });
  assert.deepEqual(problems, []);
  await p.close();
});

// One copy of each format: the core holds them, the tools module takes neutral data from it.
// Read from the functions' names scripts/build.sh keeps beside the modules it ships.
test('the formats are in the core alone: no function of the tools or containers module is theirs', () => {
  const formatFunctions = (/** @type {string} */ module) => {
    const names = functionNames(readFileSync(join(repo, 'target/wasm-names', `${module}_bg.wasm`)));
    assert.ok(names.size > 1000, `${module}: ${names.size} named functions`);
    return [...names.values()].map(demangle).filter(n => n.includes('relicview_formats'));
  };
  const core = formatFunctions('relicview');
  assert.ok(core.length > 500, `the core holds the formats: ${core.length} of their functions`);
  for (const module of ['relicview_tools', 'relicview_containers'])
    assert.deepEqual(formatFunctions(module).slice(0, 10), [], `${module} links no format`);
});

test('a module that cannot be had says which and why, the rest of the page works on, and the next use asks again', async () => {
  const { page: p, fetched } = await page({ block: ['containers', 'tools'] });
  // A zip dropped beside loose files: the zip's row says why it was not opened; the loose
  // files list and open.
  const drop = join(scratchDir('modules-drop'), 'SMALL');
  mkdirSync(join(drop, 'VIDEO'), { recursive: true });
  copyFileSync(join(dir, 'GAME.zip'), join(drop, 'GAME.zip'));
  copyFileSync(join(dir, 'tree/DEMO/VIDEO/CUBE.BGF'), join(drop, 'VIDEO/CUBE.BGF'));
  await loadFolder(p, drop, 2);
  const zip = await p.evaluate(() => window.relicview.entry('SMALL/GAME.zip'));
  assert.equal(zip.failed, true);
  assert.match(
    zip.failure,
    /SMALL\/GAME\.zip: not opened: relicview could not load its containers module \(.*relicview_containers_bg\.[0-9a-f]+\.wasm\): HTTP 404/,
  );
  const cube = await p.evaluate(() => window.relicview.open('SMALL/VIDEO/CUBE.BGF'));
  assert.ok(cube.triangles > 0, 'a loose file opens');
  // An export: refused with the tools module named; the view stays as it was.
  const refused = await p.evaluate(() =>
    window.relicview.exportGlb().then(
      () => 'exported',
      e => e.message,
    ),
  );
  assert.match(
    refused,
    /relicview could not load its tools module \(.*relicview_tools_bg\.[0-9a-f]+\.wasm\): HTTP 404/,
  );
  await p.locator('#export-button').click();
  await p.waitForFunction(() =>
    /No \.glb: relicview could not load its tools module/.test(
      document.getElementById('view-message-text').textContent,
    ),
  );
  assert.equal((await p.evaluate(() => window.relicview.stats())).triangles, cube.triangles);
  // Served again: the next export loads it.
  await p.unroute(`**/assets/${MODULES.tools}`);
  const glb = await p.evaluate(async () => (await window.relicview.exportGlb()).length);
  assert.ok(glb > 100);
  assert.equal(
    fetched().tools,
    3,
    'asked again at each use after a failure: the export, the button, the export that worked',
  );
  await p.close();
});
