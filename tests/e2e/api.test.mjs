// docs/api.md's automation API table against the page: every member it lists exists on
// `window.relicview`, as a function where it is written with parentheses. Scripts outside
// this repo read that table.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeArchive, startServer, launch, newPage, repo } from './harness.mjs';

let server, browser;

before(async () => {
  server = await startServer(makeArchive());
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// The members of docs/api.md's table: `name(…)`, `name`, `a.b(…)`, and `.b(…)` continuing
// the previous dotted name.
function documentedMembers() {
  const readme = readFileSync(join(repo, 'docs/api.md'), 'utf8');
  const section = readme;
  const members = [];
  for (const line of section.split('\n').filter(l => l.startsWith('| `'))) {
    const cell = line.split(' | ')[0];
    let owner = null;
    for (const [, name, call] of cell.matchAll(/`([.\w]+)(\()?[^`]*`/g)) {
      const path = name.startsWith('.') && owner ? `${owner}${name}` : name;
      if (path.includes('.')) owner = path.slice(0, path.lastIndexOf('.'));
      members.push({ path, call: Boolean(call) });
    }
  }
  return members;
}

test('every member docs/api.md lists exists on window.relicview', async () => {
  const members = documentedMembers();
  assert.ok(members.length > 40, `${members.length} members read from docs/api.md`);
  assert.ok(
    members.some(m => m.path === 'inspector.selectChunk' && m.call) &&
      members.some(m => m.path === 'ready' && !m.call),
    JSON.stringify(members.slice(0, 5)),
  );
  const { page, problems } = await newPage(browser, server.url);
  const missing = await page.evaluate(
    list =>
      list
        .filter(({ path, call }) => {
          const value = path
            .split('.')
            .reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), window.relicview);
          return call ? typeof value !== 'function' : value === undefined;
        })
        .map(m => m.path),
    members,
  );
  assert.deepEqual(missing, [], 'listed in docs/api.md but not on the page');
  assert.deepEqual(problems, []);
  await page.close();
});

test('hasSkeleton() and frameTime() answer for the scene on show', async () => {
  const { page } = await newPage(browser, server.url);
  await page.waitForFunction(() => window.relicview.entry('DEMO/VIDEO/CUBE.BGF'));
  await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
  assert.equal(await page.evaluate(() => window.relicview.hasSkeleton()), false);
  assert.equal(
    await page.evaluate(() => window.relicview.frameTime()),
    null,
    'a model without frames has no frame time',
  );
  await page.evaluate(() => window.relicview.open('DEMO/FIELD/ROBOT.BSX'));
  assert.equal(await page.evaluate(() => window.relicview.hasSkeleton()), true);
  // FF7's field animations run at 30 frames a second (docs/formats/bsx.md).
  assert.ok(Math.abs((await page.evaluate(() => window.relicview.frameTime())) - 1 / 30) < 1e-6);
  // Its timeline counts frames within the animation's loop, and the step is a frame.
  const period = await page.evaluate(() => Number(document.getElementById('scrub').max));
  await page.evaluate(t => window.relicview.setClock({ time: t, playing: false }), period * 3 + 4 / 30);
  const label = await page.locator('#clock-label').textContent();
  const m = label.match(/^frame (\d+)\/(\d+) · ([\d.]+)\/([\d.]+) s$/);
  assert.ok(
    m && Number(m[1]) === 4 && Number(m[2]) === Math.round(period * 30) && Number(m[3]) <= Number(m[4]),
    label,
  );
  assert.equal(
    await page.locator('#step-forward').getAttribute('title'),
    'One step forward (1 frame, 0.033 s)',
  );
  await page.close();
});

test('the core warms up in idle time: every round runs, each a short task, and the file on show stays as it was', async () => {
  const { page, problems } = await newPage(browser, server.url + '#path=DEMO/VIDEO/CUBE.BGF');
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/CUBE.BGF');
  // What is on show, without the frame rate.
  const onShow = () =>
    page.evaluate(() => {
      const { triangles, drawCalls, instances, lod } = window.relicview.stats();
      return {
        path: window.relicview.lastOpen().path,
        triangles,
        drawCalls,
        instances,
        lod,
        pixels: window.relicview.pixelStats(),
        listing: window.relicview.listing(),
      };
    });
  const shown = await onShow();
  await page.waitForFunction(() => window.relicview.coreWarmUp().rounds >= 17, null, { timeout: 60000 });
  // Two more idle periods of the page pass without another round.
  await page.evaluate(() => new Promise(done => requestIdleCallback(() => requestIdleCallback(done))));
  const warm = await page.evaluate(() => window.relicview.coreWarmUp());
  assert.equal(warm.rounds, 17, 'and then it stops');
  assert.ok(
    warm.longestMs < 50 && warm.ms >= warm.longestMs,
    `no round is a long task: ${JSON.stringify(warm)}`,
  );
  // Nothing of the built-in world reaches the view or the archive.
  assert.deepEqual(await onShow(), shown);
  const city = await page.evaluate(() => window.relicview.open('DEMO/MAPS/CITY.MAP'));
  assert.equal(city.triangles, 134400, "the archive's own CITY.MAP opens as before");
  assert.deepEqual(problems, []);
  await page.close();
});

test('relicview:frame comes once a file is drawn and rasterised, before its panes are filled', async () => {
  const { page, problems } = await newPage(browser, server.url + '#path=DEMO/VIDEO/CUBE.BGF');
  await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/CUBE.BGF');
  let previous = 'DEMO/VIDEO/CUBE.BGF';
  for (const path of ['DEMO/VIDEO/TOWER.BGF', 'DEMO/MAPS/CITY.MAP']) {
    const r = await page.evaluate(async p => {
      const events = [];
      const onFrame = e =>
        events.push({
          detail: e.detail,
          // What the page shows at that moment.
          triangles: window.relicview.stats().triangles,
          upload: window.relicview.uploadProgress(),
          title: document.getElementById('info-title').textContent,
          mark: performance.getEntriesByName('relicview:frame').at(-1)?.detail,
        });
      document.addEventListener('relicview:frame', onFrame);
      const opened = await window.relicview.open(p);
      document.removeEventListener('relicview:frame', onFrame);
      return {
        opened,
        events,
        last: window.relicview.lastOpen(),
        title: document.getElementById('info-title').textContent,
      };
    }, path);
    assert.equal(r.events.length, 1, `${path}: one relicview:frame event`);
    const [e] = r.events;
    assert.equal(e.detail.path, path);
    assert.equal(e.mark, path, 'and a performance mark of that name');
    assert.equal(e.triangles, r.opened.triangles, `${path}: every triangle is drawn by then`);
    assert.ok(
      e.upload.total > 0 && e.upload.done === e.upload.total,
      `${path}: every batch is up by then: ${JSON.stringify(e.upload)}`,
    );
    assert.equal(e.title, previous, `${path}: the info pane still shows the file before`);
    assert.equal(r.title, path, 'and is filled once open() resolves');
    assert.equal(r.last.frameMs, e.detail.ms);
    assert.ok(
      e.detail.ms > 0 && r.last.frameMs <= r.last.totalMs && r.last.rasterMs >= 0,
      JSON.stringify(r.last),
    );
    previous = path;
  }
  assert.deepEqual(problems, []);
  await page.close();
});
