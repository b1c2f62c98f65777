// A fault in one file never takes the page down: every file of the test archive opened one
// after another in one page (only the intended bad ones fail), a file whose name and content
// disagree shown as the error it is, and a core that traps (the test build's trigger: a
// file named *.TRAP) replaced by a new instance while the archive stays open.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { makeArchive, startServer, launch, newPage, walk, bin, repo } from './harness.mjs';
import { scratchDir } from './scratch.mjs';

// `relicview info --json --root DIR FILE` (it exits 1 on a bad file and still prints JSON).
function nativeInfoIn(root, file) {
  try {
    return JSON.parse(execFileSync(bin, ['info', '--json', '--root', root, file], { encoding: 'utf8' }));
  } catch (e) {
    return JSON.parse(e.stdout);
  }
}

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  // Named as DIV-BIZ2, holding something else.
  writeFileSync(join(dir, 'DEMO/VIDEO/NOTBIZ.BGF'), 'this is not a model\n');
  // The test build's trap: the core panics while opening it.
  writeFileSync(join(dir, 'DEMO/VIDEO/BOOM.TRAP'), 'boom');
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// relicview.open(path) → {ok, message}.
function openIn(page, path) {
  return page.evaluate(
    p =>
      window.relicview.open(p).then(
        () => ({ ok: true }),
        e => ({ ok: false, message: e.message }),
      ),
    path,
  );
}

async function openCubeAndLook(page) {
  assert.deepEqual(await openIn(page, 'DEMO/VIDEO/CUBE.BGF'), { ok: true });
  const pixels = await page.evaluate(() => window.relicview.pixelStats());
  assert.ok(pixels.nonBackground > 1000, `the cube is drawn: ${JSON.stringify(pixels)}`);
}

test('every file of the archive opens one after another in one page; only the bad ones fail', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await page.waitForFunction(
    n => window.relicview.listing().files === n && !window.relicview.listing().pending,
    walk(dir).length,
  );
  const intended = new Set(['DEMO/VIDEO/BROKEN.BGF', 'DEMO/VIDEO/NOTBIZ.BGF', 'DEMO/VIDEO/BOOM.TRAP']);
  const files = walk(dir)
    .map(f => relative(dir, f).split('\\').join('/'))
    .sort();
  const failures = new Map();
  for (const path of files) {
    const r = await openIn(page, path);
    if (!r.ok) failures.set(path, r.message);
  }
  assert.deepEqual(
    [...failures.keys()].sort(),
    [...intended].sort(),
    JSON.stringify(Object.fromEntries(failures)),
  );
  // What each says: where and what was expected.
  assert.match(
    failures.get('DEMO/VIDEO/NOTBIZ.BGF'),
    /NOTBIZ\.BGF: at byte 0: named \.BGF, but it does not start with DIV-BIZ2: its first 8 bytes are "this is "/,
  );
  assert.match(failures.get('DEMO/VIDEO/BROKEN.BGF'), /at byte \d+/);
  assert.match(failures.get('DEMO/VIDEO/BOOM.TRAP'), /core was restarted/);
  // The list still holds the whole archive; the bad files are red with their reasons.
  assert.equal((await page.evaluate(() => window.relicview.listing())).files, files.length);
  for (const path of intended) {
    const e = await page.evaluate(p => window.relicview.entry(p), path);
    assert.ok(e.failed, path);
    assert.ok(e.failure && e.failure.length > 20, `${path}: ${e.failure}`);
  }
  const traps = await page.evaluate(() => window.relicview.traps());
  assert.deepEqual(
    traps.map(t => t.path),
    ['DEMO/VIDEO/BOOM.TRAP'],
  );
  // The page keeps working: a model opens and draws after all of it.
  await openCubeAndLook(page);
  // Nothing went wrong but the trap itself (the panic's report and the RuntimeError).
  const unexpected = problems.filter(
    p => !/test build's trap|unreachable|RuntimeError|BROKEN\.BGF|NOTBIZ\.BGF/.test(p),
  );
  assert.deepEqual(unexpected, []);
  // The panic's report carries the wasm frames by number (the shipped core has no names);
  // scripts/wasm-names.mjs gives them their names from the build's target/wasm-names/.
  const report = problems.find(p => /test build's trap/.test(p) && /wasm-function\[\d+\]/.test(p));
  assert.ok(report, 'the panic is reported with its wasm frames');
  const named = execFileSync('node', [join(repo, 'scripts/wasm-names.mjs')], {
    input: report,
    encoding: 'utf8',
  });
  assert.match(named, /wasm-function\[\d+\]:0x[0-9a-f]+ .*relicview_web_glue::install_panic_hook/, named);
  await page.close();
});

test('a trapped core is replaced: the file is marked, the view says so, the next open works', async () => {
  const { page } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.stats().triangles > 0);
  const memoryBefore = await page.evaluate(() => window.relicview.memoryBytes());
  assert.ok(memoryBefore > 0);
  const trapped = await openIn(page, 'DEMO/VIDEO/BOOM.TRAP');
  assert.equal(trapped.ok, false);
  assert.match(trapped.message, /BOOM\.TRAP: .*test build's trap.* \(the viewer's core was restarted\)/);
  const view = await page.evaluate(() => ({
    shown: !document.getElementById('view-message').hidden,
    text: document.getElementById('view-message-text').textContent,
    row: document.querySelector('[data-path="DEMO/VIDEO/BOOM.TRAP"]')?.className,
  }));
  assert.ok(view.shown, 'a message over the view');
  assert.match(
    view.text,
    /BOOM\.TRAP\nThe viewer's core stopped on this file .* It has been restarted: the archive is still open/,
  );
  assert.match(view.row, /failed/);
  // Nothing of the file before it stays in the inspector, and no progress bar runs on.
  assert.equal(await page.evaluate(() => window.relicview.inspector.view()), null);
  assert.equal(await page.locator('#open-progress').isVisible(), false);
  // The new instance has the listing: a model resolves its library and draws.
  await openCubeAndLook(page);
  assert.deepEqual(await openIn(page, 'DEMO/MAPS/ARENA1.MAP'), { ok: true });
  assert.ok(
    (await page.evaluate(() => window.relicview.stats())).triangles > 100,
    'a world assembles from the listing',
  );
  // "Used by" reads the archive through the new session.
  assert.deepEqual(await openIn(page, 'DEMO/MATERIAL/DEMO.BMF'), { ok: true });
  // A second trap is recovered from as well.
  assert.equal((await openIn(page, 'DEMO/VIDEO/BOOM.TRAP')).ok, false);
  await openCubeAndLook(page);
  assert.equal((await page.evaluate(() => window.relicview.traps())).length, 2);
  await page.close();
});

test('loose files, in no game tree, get the answers the command line gives them', async () => {
  // Picked with "Open files…": named by their names alone, beside each other.
  const loose = scratchDir('loose');
  const files = {
    'BAD.BGF': 'NOTBIZ2-and-more-bytes',
    'EMPTY.BGF': '',
    'SELFINC.MAP':
      '[me]\r\ntype=include\r\nfile=selfinc.map\r\n[selfinc]\r\ntype=map\r\ninstance=x 0 0 0 0 0 0\r\n',
    'GHOST.MOD': '[video]\r\nobject=nowhere.bgf\r\n',
    'SKY.PNG': 'GIF89a-not-a-png',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(loose, name), text);
  const { page } = await newPage(browser, `${server.url}#folder=none`);
  await page.locator('#files-input').setInputFiles(Object.keys(files).map(n => join(loose, n)));
  await page.waitForFunction(
    () => window.relicview.listing().files === 5 && !window.relicview.listing().pending,
  );
  for (const name of ['BAD.BGF', 'EMPTY.BGF', 'SELFINC.MAP', 'SKY.PNG']) {
    const r = await openIn(page, name);
    assert.equal(r.ok, false, name);
    // The command line's message, for the same file lying alone (--root its folder).
    const cli = nativeInfoIn(loose, join(loose, name));
    assert.equal(r.message, cli.error.message.replace(join(loose, name), name), name);
    assert.equal(
      (await page.evaluate(p => window.relicview.entry(p), name)).kind,
      { MAP: 'map', PNG: 'misnamed', BGF: 'biz2-unreadable' }[name.slice(-3)],
    );
  }
  // A game object whose model is nowhere opens, saying what is missing.
  assert.deepEqual(await openIn(page, 'GHOST.MOD'), { ok: true });
  const info = await page.evaluate(() => document.getElementById('info-panel').textContent);
  assert.match(info, /nowhere\.bgf/);
  await page.close();
});
