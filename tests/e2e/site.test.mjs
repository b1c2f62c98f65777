// A published site as a static host serves it: Debian's nginx with docs/publishing.md's lines
// (brotli_static, gzip_static, the cache headers). The page's files come compressed as the
// browser accepts them, byte for byte the files publish wrote beside them; the files named
// by their content are kept for good and the rest asked again; a cold link fetches its
// model once, and nothing of the modules loaded when first used; and a page opened before a
// new publish with a changed core loads its own build's modules afterwards, never the new
// one's, while a new page has the new build's alone.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { canvasCoverage, launch, relicview, repo } from './harness.mjs';
import { startNginx } from './nginx.mjs';
import { scratchDir } from './scratch.mjs';

let root, host, demo, nginx, browser;

before(async () => {
  root = scratchDir('site');
  host = join(root, 'host');
  mkdirSync(host);
  demo = join(root, 'GAME');
  relicview('demo', demo);
  relicview('publish', demo, join(host, 'one'), '--site', join(repo, 'site'));
  nginx = await startNginx({ host: { root: host, site: true } });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  nginx?.stop();
});

// A GET of `path` on the host as a client that accepts `encoding`: → {status, headers, body}
// as sent (not decompressed).
function get(path, encoding) {
  return new Promise((resolve, reject) => {
    const req = request(`${nginx.url('host')}${path}`, { headers: { 'Accept-Encoding': encoding } }, res => {
      const parts = [];
      res.on('data', d => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }),
      );
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${path}: no answer from nginx in 30 s`)));
    req.end();
  });
}

const assetsOf = site => JSON.parse(readFileSync(join(site, 'assets.json'), 'utf8'));

test("the page's files come as publish compressed them, as the browser accepts; named by content they are kept for good, the rest asked again", async () => {
  const site = join(host, 'one');
  const names = Object.values(assetsOf(site));
  assert.ok(names.length >= 10, JSON.stringify(names));
  for (const name of names) {
    const plain = readFileSync(join(site, 'assets', name));
    for (const [encoding, suffix, decode] of [
      ['br', 'br', brotliDecompressSync],
      ['gzip', 'gz', gunzipSync],
    ]) {
      const got = await get(`one/assets/${name}`, encoding);
      assert.equal(got.status, 200, name);
      assert.equal(got.headers['content-encoding'], encoding, `${name} as ${encoding}`);
      assert.deepEqual(
        got.body,
        readFileSync(join(site, 'assets', `${name}.${suffix}`)),
        `${name}: the ${suffix} publish wrote`,
      );
      assert.deepEqual(decode(got.body), plain, `${name}: its ${suffix} holds the file`);
      assert.equal(got.headers['cache-control'], 'public, max-age=31536000, immutable', name);
    }
    const identity = await get(`one/assets/${name}`, 'identity');
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.deepEqual(identity.body, plain);
  }
  for (const path of ['one/index.html', 'one/index.json']) {
    const got = await get(path, 'br');
    assert.equal(got.headers['content-encoding'], 'br', path);
    assert.equal(got.headers['cache-control'], 'no-cache', `${path} is asked again each time`);
  }
  const wasm = await get(`one/assets/${assetsOf(site).core}`, 'br');
  assert.equal(wasm.headers['content-type'], 'application/wasm', 'compiled as it streams');
});

// A page in a fresh context at `url` that records the requests it made.
async function recordedPage(url) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', e => problems.push(e.message));
  const asked = [];
  page.on('request', r => asked.push(new URL(r.url()).pathname));
  const cdp = await context.newCDPSession(page);
  const encodings = new Map();
  cdp.on('Network.responseReceived', e =>
    encodings.set(
      new URL(e.response.url).pathname,
      e.response.headers['content-encoding'] || e.response.headers['Content-Encoding'] || null,
    ),
  );
  await cdp.send('Network.enable');
  await page.addInitScript(() =>
    document.addEventListener('relicview:frame', e => {
      window.framed ??= e.detail.path;
    }),
  );
  await page.goto(url);
  return { page, asked, encodings, problems, close: () => context.close() };
}

test("a cold link fetches its model once, the page's files compressed, and none of the modules loaded when first used", async () => {
  const site = join(host, 'one');
  const assets = assetsOf(site);
  const mark = nginx.mark();
  // (Its clock stopped: nothing redraws the view but the page itself.)
  const { page, asked, encodings, problems, close } = await recordedPage(
    `${nginx.url('host')}one/index.html#archive=index.json&path=DEMO%2FVIDEO%2FWALKER.BGF&t=0&paused=1`,
  );
  await page.waitForFunction(() => window.framed === 'DEMO/VIDEO/WALKER.BGF', null, { timeout: 30000 });
  const served = nginx.since(mark);
  assert.equal(
    served.filter(r => r.uri.endsWith('/DEMO/VIDEO/WALKER.BGF')).length,
    1,
    'the model, once (index.html started its fetch)',
  );
  assert.equal(served.filter(r => r.uri.endsWith('/index.json')).length, 1, 'the listing, once');
  for (const module of [assets.containers, assets.tools, assets.containersGlue, assets.toolsGlue])
    assert.ok(!asked.some(p => p.endsWith(module)), `${module} not fetched`);
  assert.equal(encodings.get(`/one/assets/${assets.core}`), 'br', 'the core came as brotli');
  assert.equal(encodings.get(`/one/assets/${assets.page}`), 'br');
  // Sent: the .br publish wrote, not the module.
  const core = served.find(r => r.uri.endsWith(assets.core));
  const br = readFileSync(join(site, 'assets', `${assets.core}.br`)).length;
  assert.ok(core.bytes >= br && core.bytes < br + 1000, `${core.bytes} bytes sent for a .br of ${br}`);
  // The viewer's other shaders are compiled once the page is idle after the frame (their
  // warm-up draws to the canvas): the model is still on screen after it.
  await page.waitForFunction(() => window.relicview.warmUpMs() > 0, null, { timeout: 30000 });
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
  const { differing, total } = await canvasCoverage(page);
  assert.ok(differing > total / 20, `the model on screen after the warm-up: ${differing} of ${total} pixels`);
  assert.deepEqual(problems, []);
  await close();
});

test("a link's model and what its open reads (the index's refs) are fetched once each, ahead; a second model fetches only what the first did not", async () => {
  const site = join(host, 'one');
  const index = JSON.parse(readFileSync(join(site, 'index.json'), 'utf8'));
  const row = p => index.files.find(f => f.path === p);
  assert.deepEqual(row('DEMO/VIDEO/WALKER.BGF').refs, ['DEMO/MATERIAL/DEMO.BMF']);
  assert.ok(
    row('DEMO/MAPS/ARENA1.MAP').refs.length >= 10,
    'a world reads its includes, objects, models, libraries and textures',
  );
  for (const model of [
    'DEMO/VIDEO/WALKER.BGF',
    'DEMO/VIDEO/POOL.BGF',
    'DEMO/MAPS/ARENA1.MAP',
    'DEMO/FIELD/PARTY.BSX',
  ]) {
    const mark = nginx.mark();
    const { page, problems, close } = await recordedPage(
      `${nginx.url('host')}one/index.html#archive=index.json&path=${encodeURIComponent(model)}`,
    );
    await page.waitForFunction(m => window.framed === m, model, { timeout: 30000 });
    await page.evaluate(() => window.relicview.idle());
    const fetched = nginx
      .since(mark)
      .filter(r => r.uri.startsWith('/one/archive/'))
      .map(r => r.uri.slice('/one/archive/'.length));
    assert.deepEqual(
      fetched.slice().sort(),
      [model, ...row(model).refs].sort(),
      `${model}: the file and its refs, once each`,
    );
    if (model === 'DEMO/VIDEO/WALKER.BGF') {
      // TOWER.BGF takes DEMO.BMF too, which the archive holds already.
      const again = nginx.mark();
      await page.evaluate(() => window.relicview.open('DEMO/VIDEO/TOWER.BGF'));
      await page.evaluate(() => window.relicview.idle());
      assert.deepEqual(
        nginx.since(again).map(r => r.uri),
        ['/one/archive/DEMO/VIDEO/TOWER.BGF'],
      );
    }
    assert.deepEqual(problems, []);
    await close();
  }
});

// A copy of the wasm module at `from` with a custom section added: another build's module,
// which does the same.
function rebuilt(from, to, mark) {
  const name = Buffer.from('relicview-test-build');
  const payload = Buffer.from(mark);
  const body = Buffer.concat([Buffer.from([name.length]), name, payload]);
  if (body.length > 127) throw new Error('one LEB byte holds the size here');
  writeFileSync(to, Buffer.concat([readFileSync(from), Buffer.from([0, body.length]), body]));
}

test("a page opened before a new publish with a changed core loads its own build's modules afterwards; a new page has the new build's alone", async () => {
  const out = join(host, 'two');
  relicview('publish', demo, out, '--site', join(repo, 'site'));
  const first = assetsOf(out);
  // The second build: the core and the tools changed, the rest as it was.
  const pkg = join(root, 'pkg2');
  mkdirSync(pkg);
  for (const f of readdirSync(join(repo, 'pkg'))) copyFileSync(join(repo, 'pkg', f), join(pkg, f));
  rebuilt(join(repo, 'pkg/relicview_bg.wasm'), join(pkg, 'relicview_bg.wasm'), 'build 2');
  rebuilt(join(repo, 'pkg/relicview_tools_bg.wasm'), join(pkg, 'relicview_tools_bg.wasm'), 'build 2');
  const site2 = join(root, 'site2');
  execFileSync('node', [join(repo, 'scripts/site.mjs'), site2, '--pkg', pkg], { stdio: 'ignore' });
  const second = assetsOf(site2);
  assert.notEqual(second.core, first.core);
  assert.notEqual(second.tools, first.tools);
  assert.notEqual(second.page, first.page, 'the page names the new core');
  const link = `${nginx.url('host')}two/index.html#archive=index.json&path=DEMO%2FVIDEO%2FWALKER.BGF`;
  const old = await recordedPage(link);
  await old.page.waitForFunction(() => window.framed, null, { timeout: 30000 });
  const before = old.asked.length;
  relicview('publish', demo, out, '--site', site2);
  // The old page's first export after the publish: its own build's tools module.
  const glb = await old.page.evaluate(async () => (await window.relicview.exportGlb()).length);
  assert.ok(glb > 1000);
  const own = new Set(Object.values(first));
  const theirs = new Set(Object.values(second).filter(n => !own.has(n)));
  const after = old.asked
    .slice(before)
    .filter(p => p.includes('/assets/'))
    .map(p => p.split('/').pop());
  assert.ok(after.includes(first.tools), `the old page loaded its tools module: ${after}`);
  assert.deepEqual(
    after.filter(n => theirs.has(n)),
    [],
    'nothing of the new build',
  );
  assert.deepEqual(old.problems, []);
  // A new page: the new build alone.
  const fresh = await recordedPage(link);
  await fresh.page.waitForFunction(() => window.framed, null, { timeout: 30000 });
  assert.ok((await fresh.page.evaluate(async () => (await window.relicview.exportGlb()).length)) > 1000);
  const loaded = fresh.asked.filter(p => p.includes('/assets/')).map(p => p.split('/').pop());
  assert.ok(loaded.includes(second.core) && loaded.includes(second.tools), String(loaded));
  assert.deepEqual(
    loaded.filter(n => !Object.values(second).includes(n)),
    [],
    'nothing of the old build',
  );
  assert.deepEqual(fresh.problems, []);
  await old.close();
  await fresh.close();
});
