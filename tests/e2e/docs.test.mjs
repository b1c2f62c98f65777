// docs/keys.md against the page's help dialog (?), row by row: the dialog lists the tables
// the keys are dispatched from (www/panes/keys.js, www/flows/compare.js) and each pane's own, so a key
// changed there and not in the docs fails here. And docs/publishing.md's nginx lines against
// the ones the publishing tests and the cold-link benchmark serve a site with.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeArchive, startServer, launch, newPage, repo } from './harness.mjs';
import { SITE_CONFIG } from './nginx.mjs';

let server, browser;

before(async () => {
  server = await startServer(makeArchive());
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// docs/keys.md as [{group, rows: [[key, does]]}]: a `## group` heading, then its table.
function documentedKeys() {
  const groups = [];
  for (const line of readFileSync(join(repo, 'docs/keys.md'), 'utf8').split('\n')) {
    if (line.startsWith('## ')) groups.push({ group: line.slice(3), rows: [] });
    else if (line.startsWith('| ') && groups.length && !/^\| (key|---)/.test(line)) {
      const cells = line
        .slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map(c => c.replaceAll('\\|', '|'));
      groups[groups.length - 1].rows.push(cells);
    }
  }
  return groups;
}

test('docs/keys.md lists every key the help dialog does, in its groups and words', async () => {
  const documented = documentedKeys();
  assert.ok(
    documented.length >= 8 && documented[0].rows.length >= 10,
    JSON.stringify(documented.slice(0, 1)),
  );
  const { page, problems } = await newPage(browser, server.url);
  await page.keyboard.press('?');
  await page.waitForFunction(() => !document.getElementById('help').hidden);
  const shown = await page.evaluate(() => {
    const groups = [];
    for (const tr of document.querySelectorAll('#help-keys tr')) {
      if (tr.className === 'group') groups.push({ group: tr.textContent, rows: [] });
      else
        groups[groups.length - 1].rows.push([
          tr.querySelector('th').textContent,
          tr.querySelector('td').textContent,
        ]);
    }
    return groups;
  });
  assert.deepEqual(documented, shown);
  assert.deepEqual(problems, []);
  await page.close();
});

test('docs/publishing.md gives a host the nginx lines the tests serve a published site with', () => {
  const doc = readFileSync(join(repo, 'docs/publishing.md'), 'utf8');
  const block = doc.split('## Compression and caching')[1]?.match(/```nginx\n([\s\S]*?)```/)?.[1];
  assert.ok(block, 'docs/publishing.md has the nginx block under "Compression and caching"');
  assert.equal(block.trim(), SITE_CONFIG.trim());
});
