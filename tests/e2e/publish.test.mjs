// An archive published by `relicview publish` and served by nginx (Debian's, not ours): the
// site on one origin, the same archive indexed on a second origin with CORS, and hosts that
// get it wrong (no CORS, Content-Range not exposed, no Range support). Containers made by
// real tools (Python's zipfile, xorriso, chdman) open by Range requests with the loose
// files' triangles and pixels, and the archive grid folds the same file in every container into
// one card; what each step transferred is read from nginx's access log.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, rmSync, statSync, cpSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';
import { launch, newPage, relicview, buildContainers, makeDiscImage, walk } from './harness.mjs';
import { startNginx } from './nginx.mjs';
import { createServer } from 'node:net';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { execFileSync } from 'node:child_process';
import { scratchDir } from './scratch.mjs';

const CONTAINERS = ['GAME.zip', 'GAME.iso', 'FF7.cue', 'FF7.chd'];
const MODEL_KINDS = new Set(['biz2-geometry', 'map', 'mod', 'bsx']);

let root, dir, site, big, bigModel, nginx, browser;

before(async () => {
  root = scratchDir('publish');
  dir = join(root, 'DROP');
  buildContainers(dir);
  // Containers inside a container: the zip and the ISO in a zip of their own (Python's
  // zipfile; the zip deflated, the ISO stored).
  execFileSync('python3', [
    '-c',
    "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[3], 'w', zipfile.ZIP_DEFLATED) as z:\n  z.write(sys.argv[1], 'PACKS/GAME.zip')\n  z.write(sys.argv[2], 'PACKS/GAME.iso', compress_type=zipfile.ZIP_STORED)\n",
    join(dir, 'GAME.zip'),
    join(dir, 'GAME.iso'),
    join(dir, 'NESTED.zip'),
  ]);
  site = join(root, 'hosts/site');
  mkdirSync(site, { recursive: true });
  relicview('publish', dir, join(site, 'same'));
  // The archive indexed where it is, for the second origin (the index's base is itself).
  relicview('index', dir);
  // A generated 650 MB disc of a thousand field models, alone in a folder of its own.
  big = join(root, 'BIG');
  mkdirSync(join(big, 'host'), { recursive: true });
  bigModel = makeDiscImage(big, 1000, 650);
  renameSync(join(big, 'disc.iso'), join(big, 'host/DISC.ISO'));
  relicview('index', join(big, 'host'));
  nginx = await startNginx({
    big: { root: join(big, 'host'), cors: true },
    bignorange: { root: join(big, 'host'), cors: true, noRange: true },
    site: { root: site },
    data: { root: dir, cors: true },
    bare: { root: dir },
    noexpose: { root: dir, cors: true, noExpose: true },
    norange: { root: dir, cors: true, noRange: true },
    flaky: { root: dir, cors: true, flaky: true },
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  nginx?.stop();
});

// A page on the site origin at `path`, once its hosted listing shows (or its error does).
async function sitePage(path, { listed = true } = {}) {
  const { page, problems } = await newPage(browser, `${nginx.url('site')}${path}`);
  if (listed)
    await page.waitForFunction(() =>
      /hosted at/.test(document.getElementById('archive-summary').textContent),
    );
  // The page's probe for `relicview serve`'s archive.json is a 404 on a static host.
  return { page, problems: () => problems.filter(p => !/404/.test(p)) };
}

const indexOf = path => JSON.parse(readFileSync(path, 'utf8'));

async function draw(page, path) {
  const r = await page.evaluate(p => window.relicview.open(p), path);
  await page.evaluate(() => window.relicview.setClock({ time: 0, playing: false }));
  return {
    triangles: r.triangles,
    pixels: (await page.evaluate(() => window.relicview.pixelStats())).nonBackground,
  };
}

test("a published site lists every container from index.json alone, and every model inside opens by range with the loose files' triangles and pixels", async () => {
  const mark = nginx.mark();
  const { page, problems } = await sitePage('same/index.html');
  // Listing read the page and index.json, and nothing of any container (the page opens its
  // first model after the listing).
  await page.waitForFunction(() => window.relicview.indexTimeline()?.listed);
  const listed = await page.evaluate(() => performance.timeOrigin + window.relicview.indexTimeline().listed);
  const listing = nginx.since(mark).filter(r => r.at <= listed);
  assert.ok(
    listing.some(r => r.uri.endsWith('/index.json')),
    JSON.stringify(listing),
  );
  const containerBytes = listing.filter(r => /\.(zip|iso|bin|chd)$/.test(r.uri));
  assert.deepEqual(containerBytes, [], 'no container byte read to list');
  const index = indexOf(join(site, 'same/index.json'));
  assert.equal(index.base, 'archive/');
  const shown = await page.evaluate(() => window.relicview.shownFiles(100000));
  for (const c of CONTAINERS)
    assert.ok(shown.includes(`${c}/DEMO/VIDEO/HEXPOD.BGF`), `${c} lists its models`);
  assert.ok(!shown.some(p => p.startsWith('FF7.bin')), 'the cue names the disc; its bin is not listed again');
  const models = index.files
    .filter(f => f.path.startsWith('tree/') && MODEL_KINDS.has(f.kind))
    .map(f => f.path.slice('tree/'.length));
  assert.ok(models.length >= 25, `${models.length} models`);
  for (const model of models) {
    const loose = await draw(page, `tree/${model}`);
    assert.ok(loose.triangles > 0, model);
    for (const c of CONTAINERS) {
      const inside = await draw(page, `${c}/${model}`);
      assert.deepEqual(inside, loose, `${model} in ${c}`);
    }
  }
  const hosted = await page.evaluate(() => window.relicview.hostStats());
  assert.ok(hosted.requests > 0 && hosted.inFlight === 0, JSON.stringify(hosted));
  assert.equal(
    await page.locator('#host-status').isHidden(),
    true,
    'the reading line is gone once nothing is in flight',
  );
  assert.deepEqual(await page.evaluate(() => window.relicview.containerProblems()), []);
  assert.deepEqual(problems(), []);
  await page.close();
});

test('a zip and an ISO inside a hosted zip list as folders and their models open as the loose files do, read by ranges of the outer zip', async () => {
  const { page, problems } = await sitePage('same/index.html');
  await page.waitForFunction(() => window.relicview.indexTimeline()?.listed);
  const shown = await page.evaluate(() => window.relicview.shownFiles(100000));
  for (const inner of ['NESTED.zip/PACKS/GAME.zip', 'NESTED.zip/PACKS/GAME.iso']) {
    assert.ok(shown.includes(`${inner}/DEMO/VIDEO/HEXPOD.BGF`), `${inner} is a folder`);
    assert.ok(!shown.includes(inner), `${inner} is not also a file`);
  }
  const mark = nginx.mark();
  for (const model of ['DEMO/VIDEO/HEXPOD.BGF', 'FF7/FIELD/MD1_1.BSX']) {
    const loose = await draw(page, `tree/${model}`);
    for (const inner of ['NESTED.zip/PACKS/GAME.zip', 'NESTED.zip/PACKS/GAME.iso'])
      assert.deepEqual(await draw(page, `${inner}/${model}`), loose, `${model} in ${inner}`);
  }
  const reads = nginx.since(mark).filter(r => r.uri.endsWith('/NESTED.zip'));
  assert.ok(
    reads.length > 0 && reads.every(r => r.range),
    `the outer zip is read by ranges: ${JSON.stringify(reads)}`,
  );
  assert.deepEqual(await page.evaluate(() => window.relicview.containerProblems()), []);
  assert.deepEqual(problems(), []);
  await page.close();
});

test('one field model inside a hosted disc costs about its own size in transfer, and a permalink into the disc reopens in a fresh page', async () => {
  const { page, problems } = await sitePage('same/index.html');
  const size = statSync(join(dir, 'tree/FF7/FIELD/MD1_1.BSX')).size;
  for (const c of ['FF7.cue', 'GAME.iso', 'FF7.chd']) {
    const mark = nginx.mark();
    await draw(page, `${c}/FF7/FIELD/MD1_1.BSX`);
    const file = c === 'FF7.cue' ? 'FF7.bin' : c;
    const reads = nginx.since(mark).filter(r => r.uri.endsWith(`/archive/${file}`));
    const sent = reads.reduce((n, r) => n + r.bytes, 0);
    assert.ok(reads.length > 0 && reads.every(r => r.status === 206 && r.range), JSON.stringify(reads));
    // FIELD.TDB and FIELD.BIN are read with it (its faces and its lighting): at most a few
    // times the model itself, however large the disc.
    const others = ['FIELD.TDB', 'MD1_1.BSX']
      .map(n => statSync(join(dir, 'tree/FF7/FIELD', n)).size)
      .reduce((a, b) => a + b, 0);
    console.log(
      `${c}: MD1_1.BSX (${size} bytes) with what it reads beside it (${others} bytes): ${sent} bytes sent in ${reads.length} requests`,
    );
    assert.ok(sent <= 3 * others, `${c}: ${sent} bytes sent for ${others}`);
  }
  await page.evaluate(() => window.relicview.open('FF7.cue/FF7/FIELD/MD1_1.BSX'));
  const link = await page.evaluate(() => window.relicview.permalink());
  assert.match(link, /#archive=index\.json&path=FF7\.cue%2FFF7%2FFIELD%2FMD1_1\.BSX/);
  const triangles = (await page.evaluate(() => window.relicview.stats())).triangles;
  const fresh = await newPage(browser, link);
  await fresh.page.waitForFunction(
    () => document.getElementById('info-title').textContent === 'FF7.cue/FF7/FIELD/MD1_1.BSX',
  );
  assert.equal((await fresh.page.evaluate(() => window.relicview.stats())).triangles, triangles);
  assert.deepEqual(
    fresh.problems.filter(p => !/404/.test(p)),
    [],
  );
  assert.deepEqual(problems(), []);
  await fresh.page.close();
  await page.close();
});

test('the grid of a published site: a file in each container is one card with its count, drawn from reads by Range', async () => {
  const { page, problems } = await sitePage('same/index.html');
  // (Cards out of sight are asked for as they come into view: a page in front scrolls.)
  await page.bringToFront();
  const mark = nginx.mark();
  await page.evaluate(() => window.relicview.setView('grid'));
  await page.waitForFunction(
    () => {
      const body = document.getElementById('grid-body');
      body.scrollTop += body.clientHeight / 2;
      if (body.scrollTop + body.clientHeight >= body.scrollHeight - 2) body.scrollTop = 0;
      const grid = window.relicview.grid();
      return !grid.folding && grid.cards.every(c => c.state !== 'pending');
    },
    null,
    { timeout: 120_000, polling: 100 },
  );
  const grid = await page.evaluate(() => window.relicview.grid());
  // What the test expects, from the loose files hashed by node: one card for each content of
  // the pictured files, its paths that content's files in the tree and in every container.
  const tree = join(dir, 'tree');
  const byHash = new Map();
  for (const f of walk(tree)) {
    if (!/\.(bgf|mod|map|bsx|bcx|tga|rgb|tdb)$/i.test(f)) continue;
    const h = createHash('sha256').update(readFileSync(f)).digest('hex');
    byHash.set(h, [...(byHash.get(h) || []), relative(tree, f)]);
  }
  const holders = ['tree', ...CONTAINERS, 'NESTED.zip/PACKS/GAME.zip', 'NESTED.zip/PACKS/GAME.iso'];
  assert.equal(grid.cards.length, byHash.size, grid.cards.map(c => c.path).join(', '));
  for (const files of byHash.values()) {
    const card = grid.cards.find(c => c.paths.includes(`tree/${files[0]}`));
    const expected = holders.flatMap(h => files.map(f => `${h}/${f}`));
    assert.deepEqual([...(card?.paths ?? [])].sort(), expected.sort(), `one card for ${files[0]}`);
    assert.equal(card.state, 'drawn', `${card.path}: ${card.failure}`);
  }
  // The containers were read by Range, never whole (a 304: the browser revalidated a range
  // it had cached, the bytes coming from its cache).
  const reads = nginx.since(mark).filter(r => /\/archive\/[^/]+\.(zip|iso|bin|chd)$/.test(r.uri));
  assert.ok(reads.length > 0);
  for (const r of reads) assert.ok((r.status === 206 || r.status === 304) && r.range, JSON.stringify(r));
  assert.deepEqual(problems(), []);
  await page.close();
});

test("an index and its containers on a second origin with CORS open as on the page's own", async () => {
  const indexUrl = `${nginx.url('data')}index.json`;
  const { page, problems } = await sitePage(`same/index.html#archive=${encodeURIComponent(indexUrl)}`);
  for (const c of CONTAINERS) {
    const loose = await draw(page, `tree/DEMO/VIDEO/HEXPOD.BGF`);
    assert.deepEqual(await draw(page, `${c}/DEMO/VIDEO/HEXPOD.BGF`), loose, c);
  }
  const fromData = nginx.log().filter(r => r.origin === 'data' && r.range);
  assert.ok(fromData.length > 0, 'ranges were read from the second origin');
  assert.deepEqual(problems(), []);
  await page.close();
});

test('hosts that get it wrong say what they lack, and the rest of the archive stays usable', async () => {
  // No CORS at all: the listing cannot be read, and the page says which header is missing.
  {
    const { page } = await sitePage(
      `same/index.html#archive=${encodeURIComponent(`${nginx.url('bare')}index.json`)}`,
      { listed: false },
    );
    await page.waitForFunction(() => /Access-Control-Allow-Origin/.test(document.body.textContent));
    await page.close();
  }
  // CORS, but Content-Range not exposed: loose files open, a container's entry says why not.
  {
    const { page } = await sitePage(
      `same/index.html#archive=${encodeURIComponent(`${nginx.url('noexpose')}index.json`)}`,
    );
    const err = await page.evaluate(() =>
      window.relicview.open('GAME.iso/DEMO/VIDEO/HEXPOD.BGF').then(
        () => 'opened',
        e => e.message,
      ),
    );
    assert.match(err, /Access-Control-Expose-Headers: Content-Range/);
    assert.ok((await draw(page, 'tree/DEMO/VIDEO/HEXPOD.BGF')).triangles > 0, 'a loose file still opens');
    await page.close();
  }
  // No Range support: a small container is read whole, once, and says so in the console.
  {
    const mark = nginx.mark();
    const { page } = await sitePage(
      `same/index.html#archive=${encodeURIComponent(`${nginx.url('norange')}index.json`)}`,
    );
    const loose = await draw(page, 'tree/DEMO/VIDEO/HEXPOD.BGF');
    assert.deepEqual(await draw(page, 'GAME.iso/DEMO/VIDEO/HEXPOD.BGF'), loose);
    assert.deepEqual(
      await draw(page, 'GAME.iso/DEMO/VIDEO/CUBE.BGF'),
      await draw(page, 'tree/DEMO/VIDEO/CUBE.BGF'),
    );
    const isoReads = nginx.since(mark).filter(r => r.uri === '/GAME.iso');
    assert.equal(isoReads.length, 1, 'read whole once, then from memory');
    assert.equal(isoReads[0].status, 200);
    await page.close();
  }
  // A file gone from the host, and a container changed after it was indexed.
  const copy = join(root, 'hosts/site/broken');
  cpSync(join(site, 'same'), copy, { recursive: true });
  rmSync(join(copy, 'archive/tree/DEMO/VIDEO/CUBE.BGF'));
  const bin = readFileSync(join(copy, 'archive/FF7.bin'));
  const index = indexOf(join(copy, 'index.json'));
  const disc = index.containers.find(c => c.path === 'FF7.cue');
  const md1 = disc.entries.find(e => e[0] === 'FF7/FIELD/MD1_1.BSX');
  bin[md1[5][0][0] + 24 + 100] ^= 0xff;
  writeFileSync(join(copy, 'archive/FF7.bin'), bin);
  const zip = readFileSync(join(copy, 'archive/GAME.zip'));
  writeFileSync(join(copy, 'archive/GAME.zip'), Buffer.concat([zip, Buffer.alloc(10)]));
  {
    const { page } = await sitePage('broken/index.html');
    const openError = p =>
      page.evaluate(
        x =>
          window.relicview.open(x).then(
            () => 'opened',
            e => e.message,
          ),
        p,
      );
    assert.match(await openError('tree/DEMO/VIDEO/CUBE.BGF'), /not on the host \(HTTP 404\)/);
    assert.match(await openError('FF7.cue/FF7/FIELD/MD1_1.BSX'), /not those indexed.*publish it again/);
    assert.match(
      await openError('GAME.zip/DEMO/VIDEO/HEXPOD.BGF'),
      /the host's file is \d+ bytes; the index says \d+.*publish it again/,
    );
    assert.ok(
      (await draw(page, 'GAME.iso/DEMO/VIDEO/HEXPOD.BGF')).triangles > 0,
      'the rest of the archive still opens',
    );
    assert.ok(
      (await draw(page, 'FF7.cue/FF7/FIELD/ELEVTR1.BSX')).triangles > 0,
      'and the rest of the changed disc',
    );
    await page.close();
  }
  // An index tampered with (read as hostile as any file): a container of a kind no reader
  // knows, a row whose CRC is not 8 hex digits, and a container that is not one. What is
  // wrong is left out and said; the rest lists and opens.
  const hostile = join(root, 'hosts/site/hostile');
  cpSync(join(site, 'same'), hostile, { recursive: true });
  for (const packed of ['index.json.gz', 'index.json.br']) rmSync(join(hostile, packed));
  const tampered = indexOf(join(hostile, 'index.json'));
  tampered.containers.find(c => c.path === 'GAME.zip').kind = 'rar';
  const iso = tampered.containers.find(c => c.path === 'GAME.iso');
  const cube = iso.entries.find(e => e[0] === 'DEMO/VIDEO/CUBE.BGF');
  cube[4] = 'not-a-crc';
  tampered.containers.push('x');
  writeFileSync(join(hostile, 'index.json'), JSON.stringify(tampered));
  {
    const { page, problems } = await sitePage('hostile/index.html');
    const listed = p => page.evaluate(x => window.relicview.entry(x) !== null, p);
    assert.ok(!(await listed('GAME.zip/DEMO/VIDEO/HEXPOD.BGF')), 'the unknown kind lists nothing');
    assert.ok(!(await listed('GAME.iso/DEMO/VIDEO/CUBE.BGF')), 'nor the bad row');
    assert.ok(await listed('GAME.iso/DEMO/VIDEO/HEXPOD.BGF'), 'the rest of its container does');
    const said = (await page.evaluate(() => window.relicview.containerProblems())).join('\n');
    assert.match(said, /index\.json: container \d+: unknown variant `rar`/);
    assert.match(said, /GAME\.iso: entry \d+: CRC-32 "not-a-crc": expected 8 hex digits/);
    assert.match(said, /container \d+: not an object/);
    assert.ok((await draw(page, 'GAME.iso/DEMO/VIDEO/HEXPOD.BGF')).triangles > 0);
    assert.deepEqual(problems(), []);
    await page.close();
  }
});

test('a 650 MB hosted disc lists without reading it, one field model inside transfers about its own size, and a host without Range is not made to send it whole', async () => {
  const disc = statSync(join(big, 'host/DISC.ISO')).size;
  assert.ok(disc > 650e6, `${disc} bytes`);
  const path = `DISC.ISO/FIELD/${bigModel.folder}/${bigModel.name}`;
  const size = statSync(join(big, 'tree/FIELD', bigModel.folder, bigModel.name)).size;
  const mark = nginx.mark();
  const { page, problems } = await sitePage(
    `same/index.html#archive=${encodeURIComponent(`${nginx.url('big')}index.json`)}`,
  );
  await page.waitForFunction(() => window.relicview.indexTimeline()?.listed);
  const listed = await page.evaluate(() => performance.timeOrigin + window.relicview.indexTimeline().listed);
  const toList = nginx.since(mark).filter(r => r.origin === 'big' && r.at <= listed);
  assert.deepEqual(
    toList.map(r => r.uri),
    ['/index.json'],
    'listing read the index alone',
  );
  assert.equal(await page.evaluate(() => window.relicview.listing().files), 1020);
  // The page's first model opened; then the one measured.
  await page.waitForFunction(
    () => window.relicview.hostStats().requests > 0 && window.relicview.hostStats().inFlight === 0,
  );
  // What the status line says while the model is read.
  await page.evaluate(() => {
    window.hostLines = [];
    const el = document.getElementById('host-status');
    new MutationObserver(() => {
      if (!el.hidden) window.hostLines.push(el.textContent);
    }).observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  const before = nginx.mark();
  assert.ok((await draw(page, path)).triangles > 0);
  const lines = await page.evaluate(() => window.hostLines);
  assert.ok(
    lines.some(l => /^Reading from the host… [\d.]+ (kB|MB) fetched$/.test(l)),
    JSON.stringify(lines),
  );
  assert.equal(await page.locator('#host-status').isHidden(), true);
  const reads = nginx.since(before).filter(r => r.uri === '/DISC.ISO');
  const sent = reads.reduce((n, r) => n + r.bytes, 0);
  console.log(
    `650 MB disc: index.json ${statSync(join(big, 'host/index.json')).size} bytes for 1,020 files; ${path} (${size} bytes): ${sent} bytes sent in ${reads.length} requests (${(sent / size).toFixed(2)}×)`,
  );
  assert.ok(reads.length >= 1 && sent <= 2 * size, `${sent} bytes sent for a file of ${size}`);
  assert.deepEqual(problems(), []);
  await page.close();
  // The same disc on a host that ignores Range: refused after the first answer's head.
  const m2 = nginx.mark();
  const { page: bare } = await sitePage(
    `same/index.html#archive=${encodeURIComponent(`${nginx.url('bignorange')}index.json`)}`,
  );
  const err = await bare.evaluate(
    p =>
      window.relicview.open(p).then(
        () => 'opened',
        e => e.message,
      ),
    path,
  );
  assert.match(err, /does not serve byte ranges.*not downloaded whole/);
  await bare.close();
  const whole = nginx
    .since(m2)
    .filter(r => r.uri === '/DISC.ISO')
    .reduce((n, r) => n + r.bytes, 0);
  assert.ok(whole < 64e6, `${whole} bytes of the disc went out before the page stopped it`);
});

test('a host that asks the page to wait (503 with Retry-After) is waited for, and one that asks too long a wait is not', async () => {
  // A host in front of the archive's origin that refuses the next `refuse` requests as busy,
  // asking for `retryAfter` seconds (exposed to the page, as docs/publishing.md's
  // configuration does); the rest go through.
  const upstream = new URL(nginx.url('data'));
  // (Lower case, as node gives the upstream's: one header each, never two.)
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'Content-Range, Content-Length, Retry-After',
  };
  let refuse = 0;
  let retryAfter = '1';
  /** @type {{ at: number, url: string, refused: boolean }[]} */
  const asked = [];
  const busy = createHttpServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-headers': 'Range' });
      res.end();
      return;
    }
    const refused = refuse > 0;
    asked.push({ at: Date.now(), url: req.url ?? '', refused });
    if (refused) {
      refuse--;
      res.writeHead(503, { ...cors, 'retry-after': retryAfter });
      res.end('busy');
      return;
    }
    const headers = req.headers.range ? { range: req.headers.range } : {};
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      up => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, ...cors });
        up.pipe(res);
      },
    );
    forward.on('error', () => {
      res.writeHead(502, cors);
      res.end();
    });
    forward.end();
  });
  await new Promise(resolve => busy.listen(0, '127.0.0.1', resolve));
  try {
    const index = indexOf(join(site, 'same/index.json'));
    index.base = `http://127.0.0.1:${busy.address().port}/`;
    mkdirSync(join(site, 'busy'), { recursive: true });
    writeFileSync(join(site, 'busy/index.json'), JSON.stringify(index));
    // (A link to a file the archive lacks: the page opens nothing of its own.)
    const { page, problems } = await sitePage(
      `same/index.html#archive=${encodeURIComponent('../busy/index.json')}&path=NOPE.BGF`,
    );
    await page.waitForFunction(() => window.relicview.hostStats().inFlight === 0);
    // Two refusals asking for a second: each read asked again no sooner, and the model opens.
    refuse = 2;
    const r = await page.evaluate(() => window.relicview.open('GAME.iso/DEMO/VIDEO/CUBE.BGF'));
    assert.ok(r.triangles > 0);
    const refusals = asked.filter(a => a.refused);
    assert.equal(refusals.length, 2, JSON.stringify(asked));
    for (const no of refusals) {
      const again = asked.find(a => a.url === no.url && a.at > no.at);
      assert.ok(again, `${no.url} was asked again after its 503: ${JSON.stringify(asked)}`);
      assert.ok(again.at - no.at >= 1000, `asked again ${again.at - no.at} ms after a 503 asking for 1 s`);
    }
    // An hour asked: the read fails at once and says so.
    const retries = (await page.evaluate(() => window.relicview.hostStats())).retries;
    refuse = 1;
    retryAfter = '3600';
    const err = await page.evaluate(() =>
      window.relicview.open('GAME.zip/DEMO/VIDEO/CUBE.BGF').then(
        () => 'opened',
        e => e.message,
      ),
    );
    assert.match(err, /HTTP 503 from the host, asking to wait 3600 s/);
    assert.equal((await page.evaluate(() => window.relicview.hostStats())).retries, retries);
    assert.deepEqual(
      problems().filter(p => !/503/.test(p)),
      [],
    );
    await page.close();
  } finally {
    busy.close();
  }
});

test("requests are few at a time, a host's 503s are waited out, and a host that never answers times out with a message", async () => {
  // A world inside the disc reads its models at once: never more than 4 requests out.
  {
    const { page, problems } = await sitePage('same/index.html');
    await page.waitForFunction(() => window.relicview.hostStats().inFlight === 0);
    assert.ok((await draw(page, 'GAME.iso/DEMO/MAPS/ARENA1.MAP')).triangles > 0);
    const s = await page.evaluate(() => window.relicview.hostStats());
    assert.ok(s.peak > 1 && s.peak <= 4, JSON.stringify(s));
    assert.deepEqual(problems(), []);
    await page.close();
  }
  // nginx's limit_req answers 503 to requests that come too fast: retried after back-off.
  {
    const mark = nginx.mark();
    const { page, problems } = await sitePage(
      `same/index.html#archive=${encodeURIComponent(`${nginx.url('flaky')}index.json`)}`,
    );
    const loose = await draw(page, 'tree/DEMO/VIDEO/CUBE.BGF');
    assert.ok(loose.triangles > 0);
    assert.deepEqual(await draw(page, 'GAME.iso/DEMO/VIDEO/CUBE.BGF'), loose);
    const s = await page.evaluate(() => window.relicview.hostStats());
    const refused = nginx.since(mark).filter(r => r.origin === 'flaky' && r.status === 503);
    assert.ok(
      refused.length > 0 && s.retries >= refused.length,
      `${refused.length} 503s, ${s.retries} retries`,
    );
    assert.deepEqual(
      problems().filter(p => !/503/.test(p)),
      [],
    );
    await page.close();
  }
  // A host that takes the connection and never answers.
  const silent = createServer(() => {});
  await new Promise(resolve => silent.listen(0, '127.0.0.1', resolve));
  try {
    const index = indexOf(join(site, 'same/index.json'));
    index.base = `http://127.0.0.1:${silent.address().port}/`;
    mkdirSync(join(site, 'silent'), { recursive: true });
    writeFileSync(join(site, 'silent/index.json'), JSON.stringify(index));
    // (A link to a file the archive lacks: the page opens nothing of its own.)
    const { page } = await sitePage(
      `same/index.html#archive=${encodeURIComponent('../silent/index.json')}&path=NOPE.BGF`,
    );
    await page.evaluate(() => window.relicview.setHostTimeout(300));
    const t0 = Date.now();
    const err = await page.evaluate(() =>
      window.relicview.open('GAME.iso/DEMO/VIDEO/CUBE.BGF').then(
        () => 'opened',
        e => e.message,
      ),
    );
    assert.match(err, /no answer from the host in 0\.3 s/);
    const s = await page.evaluate(() => window.relicview.hostStats());
    assert.equal(s.retries, 3, 'three tries more, then the error');
    assert.ok(Date.now() - t0 >= 4300, 'after back-off of 0.3, 1 and 3 s');
    await page.close();
  } finally {
    silent.close();
  }
});
