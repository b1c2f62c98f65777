// open() of a ~500k-triangle model in headless Chromium (SwiftShader), split into read /
// parse / assets / build / upload / draw. SwiftShader renders on the CPU, so the draw figure
// is far above what a GPU gives; the other parts are the same code a user runs.

import { join } from 'node:path';
import { repo, startServer, launch, newPage } from '../e2e/harness.mjs';

const dir = join(repo, 'target/bench/open500k');
const server = await startServer(dir);
const browser = await launch();
try {
  const { page } = await newPage(browser, server.url + '#path=NONE');
  await page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length === 1);
  for (const run of ['first', 'second']) {
    const r = await page.evaluate(() => window.relicview.open('TERRAIN.BGF'));
    const t = await page.evaluate(() => window.relicview.lastOpen());
    const f = (x) => x.toFixed(1).padStart(7);
    console.log(`open() ${run}: ${r.triangles} triangles, ${r.drawCalls} draw call(s), total ${f(t.totalMs)} ms`);
    console.log(`  read ${f(t.readMs)} · parse ${f(t.parseMs)} · inspector ${f(t.inspectMs)} · assets ${f(t.assetsMs)} · build ${f(t.buildMs)} · upload ${f(t.uploadMs)} · first frame ${f(t.drawMs)}`);
  }
} finally {
  await browser.close();
  server.stop();
}
