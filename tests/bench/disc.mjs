// A dropped PlayStation disc rip on the path users take: a generated 650 MB disc (a few
// thousand files, the real MD1_1.BSX among them, LZS-wrapped) as an ISO made by xorriso and
// turned into MODE2/2352 sectors with a cue sheet, given to the page's folder input.
// Reports: the listing (the worker's walk of the directory) against reading the directory's
// sectors alone in the same page (a ratio); opening a field model inside it; the wasm
// memory against the same files loose. Then the same disc published (`relicview publish`)
// and served by nginx: index.json's size, the hosted listing against the dropped one, a
// field model's open and the bytes it transferred against its size. Asserts nothing about
// time.
//
// node tests/bench/disc.mjs [FILES] [MEGABYTES]

import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { repo, relicview, startServer, launch, newPage, makeDiscImage } from '../e2e/harness.mjs';
import { startNginx } from '../e2e/nginx.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const files = Number(process.argv[2]) || 3000;
const megabytes = Number(process.argv[3]) || 650;
const root = join(repo, `target/bench/disc-${files}-${megabytes}`);
const tree = join(root, 'tree');
const drop = join(root, 'DISC');
if (!existsSync(join(root, '.complete'))) {
  rmSync(root, { recursive: true, force: true });
  makeDiscImage(root, files, megabytes);
  mkdirSync(drop, { recursive: true });
  execFileSync('python3', [
    '-c',
    `import sys
src, dst = open(sys.argv[1], 'rb'), open(sys.argv[2], 'wb')
bcd = lambda n: (n // 10) << 4 | n % 10
i = 0
while True:
  s = src.read(2048)
  if not s: break
  lba = i + 150
  dst.write(bytes([0] + [255] * 10 + [0, bcd(lba // 4500), bcd(lba // 75 % 60), bcd(lba % 75), 2, 0, 0, 8, 0, 0, 0, 8, 0]) + s.ljust(2048, b'\\0') + bytes(280))
  i += 1`,
    join(root, 'disc.iso'),
    join(drop, 'DISC.BIN'),
  ]);
  writeFileSync(
    join(drop, 'DISC.CUE'),
    'FILE "DISC.BIN" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n',
  );
  // The directory's sectors, from the ISO's own records (python reads them independently).
  const dirs = execFileSync('python3', [
    '-c',
    `import sys, struct
iso = open(sys.argv[1], 'rb')
def sector(n): iso.seek(n * 2048); return iso.read(2048)
pvd = sector(16)
todo = [(struct.unpack_from('<I', pvd, 156 + 2)[0], struct.unpack_from('<I', pvd, 156 + 10)[0])]
seen, out = set(), []
while todo:
  ext, ln = todo.pop()
  if ext in seen: continue
  seen.add(ext); out.append((ext, ln))
  for s in range((ln + 2047) // 2048):
    b, p = sector(ext + s), 0
    while p + 34 <= 2048 and b[p]:
      n = b[p]; e, l = struct.unpack_from('<I', b, p + 2)[0], struct.unpack_from('<I', b, p + 10)[0]
      if b[p + 25] & 2 and b[p + 33] not in (0, 1): todo.append((e, l))
      p += n
print(' '.join(f'{e}:{l}' for e, l in out))`,
    join(root, 'disc.iso'),
  ])
    .toString()
    .trim();
  writeFileSync(join(root, 'dirs.txt'), dirs);
  writeFileSync(join(root, '.complete'), '');
}
// The model opened: one in the middle of the disc's field folders.
const mid = Math.floor(files / 2);
const midFolder = `F${String(Math.floor(mid / 100)).padStart(2, '0')}`;
const midName = `M${String(mid).padStart(5, '0')}.BSX`;
const dirs = readFileSync(join(root, 'dirs.txt'), 'utf8')
  .split(' ')
  .map(d => d.split(':').map(Number));
const binBytes = statSync(join(drop, 'DISC.BIN')).size;
// The page is served with an empty archive (target/bench's 20,000-file listings would be
// typed by the server and offered by the page while the disc is read).
const served = scratchDir('disc-served');
const server = await startServer(served);
const browser = await launch();
try {
  const { page } = await newPage(browser, `${server.url}#folder=none`);
  // The Files as picked (the page empties its input once it has taken them).
  await page.evaluate(() =>
    document.getElementById('folder-input').addEventListener(
      'change',
      e => {
        window.picked = [...e.target.files];
      },
      { capture: true },
    ),
  );
  const t0 = Date.now();
  await page.locator('#folder-input').setInputFiles(drop);
  await page.waitForFunction(() => window.relicview.indexTimeline()?.listed, null, { timeout: 600000 });
  const listMs = await page.evaluate(() => window.relicview.lastListMs());
  const listed = await page.evaluate(() => window.relicview.listing().files);
  // Reading the directory's sectors alone, from the same File, in a worker (as the listing).
  const readDirsMs = await page.evaluate(async sectors => {
    const bin = window.picked.find(f => f.name === 'DISC.BIN');
    const src = `self.onmessage = (e) => { const r = new FileReaderSync(); const t = performance.now();
      for (const [ext, len] of e.data.sectors) for (let s = 0; s < Math.ceil(len / 2048); s++) { const at = (ext + s) * 2352 + 24; r.readAsArrayBuffer(e.data.bin.slice(at, at + 2048)); }
      self.postMessage(performance.now() - t); };`;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    const ms = await new Promise((resolve, reject) => {
      w.onmessage = e => resolve(e.data);
      w.onerror = e => reject(new Error(`the directory reader failed: ${e.message}`));
      w.postMessage({ bin, sectors });
    });
    w.terminate();
    return ms;
  }, dirs);
  const memListed = await page.evaluate(() => window.relicview.memoryBytes());
  const open = await page.evaluate(async p => {
    await window.relicview.open(p);
    return window.relicview.lastOpen();
  }, `DISC/DISC.CUE/FIELD/${midFolder}/${midName}`);
  const memOpened = await page.evaluate(() => window.relicview.memoryBytes());
  console.log(
    `# disc: ${(binBytes / 1e6).toFixed(0)} MB raw MODE2 rip, ${listed} files listed in ${listMs.toFixed(0)} ms (from the drop: ${Date.now() - t0} ms wall)`,
  );
  console.log(
    `# reading its ${dirs.length} directories' sectors alone: ${readDirsMs.toFixed(0)} ms; listing / directory read = ${(listMs / readDirsMs).toFixed(2)}`,
  );
  console.log(
    `# a field model inside it opened in ${open.totalMs.toFixed(0)} ms (read ${open.readMs.toFixed(0)}, parse ${open.parseMs.toFixed(0)}, assets ${open.assetsMs.toFixed(0)})`,
  );
  console.log(
    `# wasm memory: ${(memListed / 1048576).toFixed(1)} MiB listed, ${(memOpened / 1048576).toFixed(1)} MiB with the model open (the listing's worker has its own)`,
  );
  await page.close();
  // The same model loose, for the memory against the loose-file case.
  const { page: loose } = await newPage(browser, `${server.url}#folder=none`);
  await loose.locator('#folder-input').setInputFiles(join(tree, 'FIELD', midFolder));
  await loose.waitForFunction(() => window.relicview.indexTimeline()?.typed);
  const lo = await loose.evaluate(async p => {
    await window.relicview.open(p);
    return { open: window.relicview.lastOpen(), mem: window.relicview.memoryBytes() };
  }, `${midFolder}/${midName}`);
  console.log(
    `# loose: opened in ${lo.open.totalMs.toFixed(0)} ms; wasm memory ${(lo.mem / 1048576).toFixed(1)} MiB (disc − loose: ${((memOpened - lo.mem) / 1048576).toFixed(1)} MiB)`,
  );
  await loose.close();

  // The same disc published (`relicview publish --base-url`) and served by nginx: the site
  // on one origin, the disc on a second with CORS. Listing reads index.json alone; the model
  // is read by Range requests (bytes from nginx's access log).
  const hosts = join(root, 'hosts');
  rmSync(hosts, { recursive: true, force: true });
  mkdirSync(hosts, { recursive: true });
  const nginx = await startNginx({ site: { root: hosts }, data: { root: drop, cors: true } });
  try {
    const p0 = Date.now();
    relicview('publish', drop, join(hosts, 'site'), '--base-url', nginx.url('data'));
    const publishMs = Date.now() - p0;
    const indexBytes = statSync(join(hosts, 'site/index.json')).size;
    const gzipped = gzipSync(readFileSync(join(hosts, 'site/index.json'))).length;
    console.log(
      `# published: index.json ${(indexBytes / 1e3).toFixed(0)} kB for ${listed} files (${(gzipped / 1e3).toFixed(0)} kB gzipped), written in ${publishMs} ms (every entry read once for its CRC)`,
    );
    const mark = nginx.mark();
    const { page: hosted } = await newPage(browser, `${nginx.url('site')}site/index.html`);
    await hosted.waitForFunction(() => window.relicview.indexTimeline()?.listed, null, { timeout: 600000 });
    const shown = await hosted.evaluate(() => ({
      sinceStart: window.relicview.indexTimeline().listed,
      at: performance.timeOrigin + window.relicview.indexTimeline().listed,
      list: window.relicview.lastListMs(),
      files: window.relicview.listing().files,
    }));
    // (Then the page opens its first model, as after any listing: not the listing's reads.)
    const listingReads = nginx.since(mark).filter(r => r.origin === 'data' && r.at <= shown.at);
    console.log(
      `# hosted disc: ${shown.files} files listed ${shown.list.toFixed(0)} ms after index.json came (${shown.sinceStart.toFixed(0)} ms from the page's start); hosted listing / dropped listing = ${(shown.list / listMs).toFixed(2)}; bytes of the disc read to list: ${listingReads.reduce((n, r) => n + r.bytes, 0)}`,
    );
    // The first model's open done, so that what follows is the measured open's alone.
    await hosted.waitForFunction(
      () => window.relicview.hostStats().requests > 0 && window.relicview.hostStats().inFlight === 0,
    );
    const before = nginx.mark();
    const ho = await hosted.evaluate(async p => {
      await window.relicview.open(p);
      return window.relicview.lastOpen();
    }, `DISC.CUE/FIELD/${midFolder}/${midName}`);
    const reads = nginx.since(before).filter(r => r.origin === 'data');
    const sent = reads.reduce((n, r) => n + r.bytes, 0);
    const size = statSync(join(tree, 'FIELD', midFolder, midName)).size;
    console.log(
      `# hosted disc: a field model opened in ${ho.totalMs.toFixed(0)} ms (read ${ho.readMs.toFixed(0)}), ${sent} bytes in ${reads.length} requests for its ${size}: bytes sent / file size = ${(sent / size).toFixed(2)}`,
    );
    await hosted.close();
  } finally {
    nginx.stop();
  }
} finally {
  await browser.close();
  server.stop();
  rmSync(served, { recursive: true, force: true });
}
