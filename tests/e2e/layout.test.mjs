// The page at the sizes people use: a phone with touch (the list first, the help, the
// display menu, the Parts switches, fly buttons) and small windows (the toolbar's rows, a
// comparison's trees and hex panes at 1024×640).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sizedPage, axeClean as axe } from './harness.mjs';
import { discArchive, oddArchive, sheetArchive, open, layout, launched, servedBeside } from './fixtures.mjs';

const ctx = launched();

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test("a phone (430 × 900, touch): the help table fits its card, the display menu stays inside the window, a comparison's second file brings the view into sight", async () => {
    const phone = await sizedPage(ctx.browser, on.server.url, [430, 900], { hasTouch: true, isMobile: true });
    const { page: p, problems } = phone;
    await p.waitForFunction(
      () => window.relicview.listing().files > 0 && window.relicview.lastOpen() !== null,
    );
    await open(p, 'DEMO/MAPS/ARENA1.MAP');
    await p.locator('#display-menu > summary').tap();
    const menu = await p.evaluate(() => ({
      right: document.querySelector('#display-menu .menu-body').getBoundingClientRect().right,
      width: document.documentElement.clientWidth,
      page: document.documentElement.scrollWidth,
    }));
    assert.ok(
      menu.right <= menu.width && menu.page <= menu.width,
      `the menu inside the window: ${JSON.stringify(menu)}`,
    );
    await p.locator('#display-menu > summary').tap();
    await p.locator('#help-button').tap();
    const help = await p.evaluate(() => ({
      table: document.getElementById('help-keys').scrollWidth,
      card: document.querySelector('.help-card').clientWidth,
    }));
    assert.ok(help.table <= help.card, `the keys' table fits its card: ${JSON.stringify(help)}`);
    await axe(p, 'the help on a phone');
    await p.locator('#help-close').tap();
    // A comparison: the second file chosen in the list, the view comes into sight.
    await open(p, 'DEMO/VIDEO/CUBE.BGF');
    await p.locator('#compare-with-button').tap();
    await p.locator('#search').fill('TOWER');
    await p.locator('#file-list li[data-path="DEMO/VIDEO/TOWER.BGF"]').tap();
    await p.waitForFunction(() => window.relicview.comparison()?.b === 'DEMO/VIDEO/TOWER.BGF');
    await p.waitForFunction(() => {
      const r = document.getElementById('stage').getBoundingClientRect();
      return r.top < innerHeight / 2 && r.bottom > 0;
    });
    assert.deepEqual(problems, []);
    await phone.close();
  });

  test("a phone: the Parts switches sit right under the view, and a picture's tools above it, in sight once it opens", async () => {
    const phone = await sizedPage(ctx.browser, on.server.url, [430, 900], { hasTouch: true, isMobile: true });
    const { page: p, problems } = phone;
    await p.waitForFunction(
      () => window.relicview.listing().files > 0 && window.relicview.lastOpen() !== null,
    );
    await p.locator('#search').fill('WALKER');
    await p.locator('#file-list li[data-path="DEMO/VIDEO/WALKER.BGF"]').tap();
    await p.waitForFunction(
      () =>
        window.relicview.lastOpen()?.path === 'DEMO/VIDEO/WALKER.BGF' &&
        !document.getElementById('parts').hidden,
    );
    const gap = await p.evaluate(
      () =>
        document.getElementById('opt-zone-colours').getBoundingClientRect().top -
        document.getElementById('view').getBoundingClientRect().bottom,
    );
    assert.ok(gap >= 0 && gap < 120, `the zone switches ${gap} px under the view`);
    await p.locator('#opt-zone-colours').tap();
    assert.equal(
      await p.evaluate(() => window.relicview.permalink().includes('zones=1')),
      true,
      'the switch works where it sits',
    );
    await axe(p, 'the Parts under the view on a phone');
    await p.locator('#search').fill('WATER');
    await p.locator('#file-list li[data-path="DEMO/TEXTURE/WATER.TGA"]').tap();
    await p.waitForFunction(() => window.relicview.flatView()?.mode === 'picture');
    const tools = await p.evaluate(() => {
      const t = document.getElementById('picture-tools').getBoundingClientRect();
      const c = document.getElementById('picture-canvas').getBoundingClientRect();
      return { top: t.top, bottom: t.bottom, canvas: c.top, height: innerHeight };
    });
    assert.ok(
      tools.bottom <= tools.canvas + 1 && tools.top >= 0 && tools.bottom <= tools.height,
      `the picture's tools above it and in sight: ${JSON.stringify(tools)}`,
    );
    assert.deepEqual(problems, []);
    await phone.close();
  });
}

// On files that fail or are odd (fixtures.mjs, oddArchive).
{
  const on = servedBeside(() => ctx.browser, oddArchive);

  test('at 1024×640 a comparison shows at least 12 rows of its trees and of each hex pane, and its controls never push the view', async () => {
    const { page: p, problems, close } = await on.page([1024, 640]);
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
}

// On the demo with the real FIELD.TDB (fixtures.mjs, sheetArchive).
{
  const on = servedBeside(() => ctx.browser, sheetArchive);

  for (const size of [
    [1400, 850],
    [1024, 640],
  ])
    test(`at ${size.join('×')} the toolbar is at most two rows, the view at least 60 % of the height, and only what applies shows`, async () => {
      const { page, problems, close } = await on.sized(size);
      for (const path of ['DEMO/VIDEO/HEXPOD.BGF', 'DEMO/FIELD/ROBOT.BSX', 'DEMO/MAPS/ARENA1.MAP']) {
        await page.evaluate(p => window.relicview.open(p), path);
        const l = await layout(page);
        assert.ok(l.rows <= 2, `${path}: ${l.rows} toolbar rows`);
        assert.ok(
          l.viewShare >= 0.6 - 1e-3,
          `${path}: the view is ${(l.viewShare * 100).toFixed(1)} % of the height`,
        );
        assert.ok(l.display && l.camera && l.frame, `${path}: the 3D controls show`);
      }
      for (const path of ['DEMO/MATERIAL/DEMO.BMF', 'DEMO/TEXTURE/WATER.TGA', 'DEMO/FIELD/FIELD.TDB']) {
        await page.evaluate(p => window.relicview.open(p), path);
        const l = await layout(page);
        assert.deepEqual(
          [l.lod, l.display, l.camera, l.frame],
          [false, false, false, false],
          `${path}: no 3D controls`,
        );
        assert.ok(l.viewShare >= 0.6 - 1e-3);
      }
      // Where there is nothing to export, the button is greyed and says why.
      await page.evaluate(() => window.relicview.open('DEMO/MATERIAL/DEMO.BMF'));
      assert.equal(await page.locator('#export-button').isDisabled(), true);
      assert.match(
        await page.locator('#export-button').getAttribute('title'),
        /^Nothing to export: DEMO\.BMF has no 3D scene/,
      );
      await page.evaluate(() => window.relicview.open('DEMO/TEXTURE/WATER.TGA'));
      assert.equal(await page.locator('#export-button').isDisabled(), true);
      assert.match(
        await page.locator('#export-button').getAttribute('title'),
        /^Nothing to export: WATER\.TGA is a picture/,
      );
      // A model of one LOD has no LOD picker; one of several has.
      await page.evaluate(() => window.relicview.open('DEMO/VIDEO/CUBE.BGF'));
      assert.equal(
        await page.locator('#lod-select').isVisible(),
        (await page.evaluate(() => window.relicview.stats().lodCount)) > 1,
      );
      await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
      assert.equal(await page.locator('#lod-select').isVisible(), true);
      assert.deepEqual(problems, []);
      await close();
    });

  test('on a phone the list comes first, a tap on a file brings the view into sight, a swipe near the edge scrolls, and fly mode has buttons', async () => {
    const { page, problems, close } = await on.sized([430, 900], on.server.url, { hasTouch: true });
    const rect = id =>
      page.evaluate(i => {
        const r = document.getElementById(i).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, width: r.width, height: r.height };
      }, id);
    const list = await rect('file-list');
    const view = await rect('view');
    assert.ok(list.top < 200, `the list starts ${Math.round(list.top)} px down`);
    assert.ok(list.top < view.top, 'the list is above the view');
    // A tap on a file: it opens, and the page scrolls so the view is in sight.
    await page.locator('#search').fill('HEXPOD.BGF');
    await page.locator('#file-list li[data-path="DEMO/VIDEO/HEXPOD.BGF"]').click();
    await page.waitForFunction(() => window.relicview.lastOpen()?.path === 'DEMO/VIDEO/HEXPOD.BGF');
    const after = await rect('viewport');
    const height = await page.evaluate(() => innerHeight);
    assert.ok(
      after.top >= -1 && after.bottom <= height + 1,
      `the canvas is in sight: ${JSON.stringify(after)} of ${height}`,
    );
    assert.ok((await page.evaluate(() => scrollY)) > 0, 'the page scrolled to it');
    // One-finger swipes down (touch events, as a phone sends them): near the left edge the
    // page scrolls back up; over the middle the camera orbits instead.
    const cdp = await page.context().newCDPSession(page);
    const swipe = async x => {
      const v = await rect('view');
      const [sx, sy] = [Math.round(v.left + x), Math.round(v.top + Math.min(v.height, height) / 3)];
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: sx, y: sy }] });
      for (let k = 1; k <= 10; k++)
        await cdp.send('Input.dispatchTouchEvent', {
          type: 'touchMove',
          touchPoints: [{ x: sx, y: sy + k * 25 }],
        });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      // A fling goes on after the finger lifts: wait until the page is still for 20 frames.
      await page.evaluate(
        () =>
          new Promise(resolve => {
            let [y, still] = [scrollY, 0];
            const look = () => {
              still = scrollY === y ? still + 1 : 0;
              y = scrollY;
              if (still >= 20) resolve();
              else requestAnimationFrame(look);
            };
            requestAnimationFrame(look);
          }),
      );
    };
    const scroll0 = await page.evaluate(() => scrollY);
    const cam0 = await page.evaluate(() => window.relicview.camera());
    await swipe(12);
    const scroll1 = await page.evaluate(() => scrollY);
    assert.ok(scroll1 < scroll0 - 50, `the edge swipe scrolled the page: ${scroll0} → ${scroll1}`);
    assert.deepEqual(
      await page.evaluate(() => window.relicview.camera()),
      cam0,
      'and did not move the camera',
    );
    await page.evaluate(() => window.relicview.open('DEMO/VIDEO/HEXPOD.BGF'));
    await page.locator('#stage').evaluate(s => s.scrollIntoView({ block: 'start' }));
    await page.evaluate(() => window.relicview.rasterMs());
    const scroll2 = await page.evaluate(() => scrollY);
    const cam1 = await page.evaluate(() => window.relicview.camera());
    await swipe(view.width / 2);
    const scroll3 = await page.evaluate(() => scrollY);
    assert.ok(
      Math.abs(scroll3 - scroll2) < 2,
      `a swipe over the middle leaves the page where it is: ${scroll2} → ${scroll3}`,
    );
    assert.notDeepEqual(
      (await page.evaluate(() => window.relicview.camera())).position,
      cam1.position,
      'and orbits',
    );
    // Fly mode shows a pad; holding ▲ flies forward, letting go stops.
    await page.evaluate(() => window.relicview.setCamera('fly'));
    assert.equal(await page.locator('#fly-pad').isVisible(), true);
    const before = await page.evaluate(() => window.relicview.camera());
    const forward = page.locator('#fly-pad [data-fly="KeyW"]');
    await forward.hover();
    await page.mouse.down();
    // Held until the camera has gone a step forward, then let go.
    await page.waitForFunction(p => {
      const c = window.relicview.camera();
      return Math.hypot(...c.position.map((x, i) => x - p[i])) > 0;
    }, before.position);
    await page.mouse.up();
    const moved = await page.evaluate(() => window.relicview.camera());
    const toward = before.target.map((t, i) => t - before.position[i]);
    const step = moved.position.map((p, i) => p - before.position[i]);
    assert.ok(step.reduce((s, d, i) => s + d * toward[i], 0) > 0, `flew forward: ${step}`);
    // Ten frames after letting go the camera is where it was one frame after.
    const [settled, later] = await page.evaluate(
      () =>
        new Promise(resolve => {
          requestAnimationFrame(() => {
            const first = window.relicview.camera().position;
            let n = 0;
            const look = () =>
              ++n < 10 ? requestAnimationFrame(look) : resolve([first, window.relicview.camera().position]);
            requestAnimationFrame(look);
          });
        }),
    );
    assert.deepEqual(later, settled, 'stopped once let go');
    await page.evaluate(() => window.relicview.setCamera('orbit'));
    assert.equal(await page.locator('#fly-pad').isVisible(), false);
    assert.deepEqual(problems, []);
    await close();
  });
}
