// The page by keyboard alone: search and ↓ open, a comparison chosen and driven from the
// keys, the texture gallery and back, and the help listing every key the view takes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axeClean as axe, withSourceModules } from './harness.mjs';
import { discArchive, oddArchive, open, focused, launched, servedBeside } from './fixtures.mjs';

const ctx = launched();

// On FF7 models as on the disc, whole and cut short (fixtures.mjs, discArchive).
{
  const on = servedBeside(() => ctx.browser, discArchive);

  test('search then ↓ (or Enter) opens the first match, whichever file was open', async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/VIDEO/TOWER.BGF');
    await p.locator('#search').fill('.BGF');
    const first = await p.evaluate(() => window.relicview.shownFiles()[0]);
    assert.notEqual(first, 'DEMO/VIDEO/TOWER.BGF', 'the open file is not the first match');
    await p.locator('#search').press('ArrowDown');
    await p.waitForFunction(f => window.relicview.lastOpen()?.path === f, first);
    await open(p, 'DEMO/VIDEO/TOWER.BGF');
    await p.locator('#search').focus();
    await p.locator('#search').press('Enter');
    await p.waitForFunction(f => window.relicview.lastOpen()?.path === f, first);
    assert.deepEqual(problems, []);
    await close();
  });

  test('after a comparison chosen with the keyboard its keys work at once, and ? opens the help, never typed into the search box', async () => {
    const { page: p, problems, close } = await on.page();
    await open(p, 'DEMO/VIDEO/CUBE.BGF');
    await p.locator('#file-list').focus();
    await p.keyboard.press('Shift+F10');
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('Enter');
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => window.relicview.comparison()?.b);
    await p.waitForFunction(() => document.activeElement?.id === 'viewport');
    const mode = (await p.evaluate(() => window.relicview.comparison())).mode;
    await p.keyboard.press('c');
    await p.waitForFunction(m => window.relicview.comparison().mode !== m, mode);
    await p.keyboard.press('?');
    assert.equal(await p.locator('#help').isVisible(), true, 'the help');
    await p.keyboard.press('Escape');
    // From the list too: ? is the help's, not a search.
    await p.locator('#file-list').focus();
    await p.keyboard.press('?');
    assert.equal(await p.locator('#help').isVisible(), true);
    await p.keyboard.press('Escape');
    assert.equal(await p.locator('#search').inputValue(), '', 'nothing typed into the search box');
    assert.equal(await p.locator('#no-matches').isVisible(), false);
    await axe(p, 'a comparison chosen by keyboard');
    assert.deepEqual(problems, []);
    await close();
  });
}

// On files that fail or are odd (fixtures.mjs, oddArchive).
{
  const on = servedBeside(() => ctx.browser, oddArchive);

  test("keyboard only: a comparison picked in the list, from the list's menu and from the info pane; a texture opened from the gallery and back", async () => {
    const { page: p, problems, close } = await on.page();
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
    assert.equal(
      await p.evaluate(() => window.relicview.comparison()),
      null,
      'nothing compared before Enter',
    );
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

  test('help opens at its top with focus in the dialog, and lists every key the view and a comparison are dispatched by', async () => {
    const { page: p, problems, close } = await on.page([1024, 640]);
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
}
