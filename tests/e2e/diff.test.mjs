// Comparing two files in the page: window.relicview.compare() gives what the CLI's
// `relicview diff --json` prints for the same two files.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { makeArchive, startServer, launch, newPage, bin, loadFolder, walk } from './harness.mjs';

let dir, server, browser;

before(async () => {
  dir = makeArchive();
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// `relicview diff --json` exits 1 when the files differ and still prints the JSON.
function cliDiff(a, b) {
  try {
    return JSON.parse(execFileSync(bin, ['diff', '--json', '--root', dir, join(dir, a), join(dir, b)], { encoding: 'utf8' }));
  } catch (e) {
    if (e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

test('compare() in the page equals the CLI diff of the same files', async () => {
  const { page, problems } = await newPage(browser, server.url);
  await loadFolder(page, dir, walk(dir).length);
  for (const [a, b] of [
    ['DEMO/VIDEO/CUBE.BGF', 'DEMO/VIDEO/CRATE.BGF'],
    ['DEMO/VIDEO/CUBE.BGF', 'DEMO/VIDEO/CUBE.BGF'],
    ['DEMO/MAPS/ARENA1.MAP', 'DEMO/MAPS/CITY.MAP'],
    ['DEMO/FIELD/PARTY.BSX', 'DEMO/FIELD/ROBOT.BSX'],
    ['DEMO/VIDEO/CUBE.BGF', 'DEMO/MAPS/ARENA1.MAP'],
  ]) {
    const page_ = await page.evaluate(([x, y]) => window.relicview.compare(x, y), [`GAME/${a}`, `GAME/${b}`]);
    const cli = cliDiff(a, b);
    assert.deepEqual(page_, cli, `${a} vs ${b}`);
  }
  const same = await page.evaluate(() => window.relicview.compare('GAME/DEMO/VIDEO/CUBE.BGF', 'GAME/DEMO/VIDEO/CUBE.BGF'));
  assert.equal(same.same, true);
  const crate = await page.evaluate(() => window.relicview.compare('GAME/DEMO/VIDEO/CUBE.BGF', 'GAME/DEMO/VIDEO/CRATE.BGF'));
  assert.ok(crate.changed.some((c) => c.path_a === 'OBJECT[0]/NAME[0]' && c.fields[0].b === '"crate"'), JSON.stringify(crate.changed));
  assert.deepEqual(problems, []);
  await page.close();
});
