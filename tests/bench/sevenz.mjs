// A dropped solid 7z on the path users take: a generated archive of MEGABYTES (1 MB files of
// poorly compressible bytes, as a game's movies and textures are, and the real MD1_1.BSX,
// LZS-wrapped, last in the block) made by 7-Zip as one solid LZMA2 block (-ms=4g: 7-Zip would cut it into blocks of about 64 MB), given to the page's
// folder input. Reports: the listing; the last file of the block opened (until its frame is
// rasterised) against decoding the block alone to it, by the same core in a bare worker of
// the same page, and against 7-Zip decoding the archive natively; then the page reloaded and
// the archive dropped again: the same file's open from the browser's store of decoded
// entries. Asserts nothing about time.
//
// node tests/bench/sevenz.mjs [MEGABYTES]

import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { repo, startServer, launch, lzsLiterals } from '../e2e/harness.mjs';
import { scratchDir } from '../e2e/scratch.mjs';

const megabytes = Number(process.argv[2]) || 650;
const root = join(repo, `target/bench/7z-${megabytes}`);
const drop = join(root, 'drop');
const LAST = 'ZZ/MD1_1.BSX';
// The page's files as the build named them: the bare decoder runs the containers module.
const SITE_ASSETS = JSON.parse(readFileSync(join(repo, 'site/assets.json'), 'utf8'));
if (!existsSync(join(root, '.complete'))) {
  rmSync(root, { recursive: true, force: true });
  const src = join(root, 'src');
  mkdirSync(join(src, 'DATA'), { recursive: true });
  mkdirSync(join(src, 'ZZ'), { recursive: true });
  // Six bits of every byte from a xorshift generator: LZMA2 keeps some 80 % of it.
  let x = 0x9e3779b9;
  const chunk = Buffer.alloc(1 << 20);
  for (let f = 0; f < megabytes; f++) {
    for (let i = 0; i < chunk.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      chunk[i] = x & 0x3f;
    }
    const fd = openSync(join(src, 'DATA', `D${String(f).padStart(5, '0')}.DAT`), 'w');
    writeSync(fd, chunk);
    closeSync(fd);
  }
  writeFileSync(join(src, LAST), lzsLiterals(readFileSync(join(repo, '../shared/testdata/ff7/MD1_1_u.BSX'))));
  mkdirSync(drop);
  execFileSync(
    '7zz',
    [
      'a',
      '-bso0',
      '-bsp0',
      '-t7z',
      '-m0=LZMA2',
      '-mx=1',
      '-ms=4g',
      '-mqs=off',
      join(drop, 'BIG.7z'),
      'DATA',
      'ZZ',
    ],
    { cwd: src },
  );
  rmSync(src, { recursive: true, force: true });
  writeFileSync(join(root, '.complete'), '');
}
const archive = join(drop, 'BIG.7z');
const bytes = statSync(archive).size;
const blocks = execFileSync('7zz', ['l', '-slt', archive])
  .toString()
  .match(/^Blocks = (\d+)/m)?.[1];

// 7-Zip decoding the whole archive natively (the last file ends its one block).
const n0 = Date.now();
execFileSync('7zz', ['t', '-bso0', '-bsp0', archive]);
const nativeMs = Date.now() - n0;

const served = scratchDir('7z-served');
const server = await startServer(served);
const browser = await launch();
try {
  // One context for both visits: the browser's storage outlives the page, as it does a reload.
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(`${server.url}#folder=none`);
  await page.evaluate(() => window.relicview.ready);
  const visit = async () => {
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
    const listWall = Date.now() - t0;
    const listMs = await page.evaluate(() => window.relicview.lastListMs());
    const open = await page.evaluate(async p => {
      await window.relicview.open(p);
      return window.relicview.lastOpen();
    }, `drop/BIG.7z/${LAST}`);
    return { listWall, listMs, open, cache: await page.evaluate(() => window.relicview.decodedCache()) };
  };
  const first = await visit();
  // Decoding the block alone to the last file: the core's reader in a bare worker, over the
  // same File, with no store and no page around it.
  const { ms: decodeMs, cold: coldMs } = await page.evaluate(
    async ([last, assets]) => {
      const file = window.picked.find(f => f.name === 'BIG.7z');
      const src = `import init, { ContainerReader } from '${location.origin}/assets/${assets.containersGlue}';
      self.onmessage = async (e) => {
        await init({ module_or_path: '${location.origin}/assets/${assets.containers}' });
        const sync = new FileReaderSync();
        const read = (o, n) => new Uint8Array(sync.readAsArrayBuffer(e.data.file.slice(o, o + n)));
        let reader = new ContainerReader('BIG.7z', read, e.data.file.size, '', 0, () => {}, undefined);
        const entry = reader.entries().find((x) => x.path === 'BIG.7z/' + e.data.last);
        // Twice: the first runs while the engine still tiers the fresh module's code up (the
        // page's worker gets the page's compiled module); the second is the like-with-like one.
        const times = [];
        for (let k = 0; k < 2; k++) {
          reader.free();
          const again = new ContainerReader('BIG.7z', read, e.data.file.size, '', 0, () => {}, undefined);
          const t = performance.now();
          again.read(entry.container, entry.index);
          times.push(performance.now() - t);
          reader = again;
        }
        self.postMessage({ cold: times[0], ms: times[1] });
      };`;
      const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), {
        type: 'module',
      });
      const got = await new Promise((resolve, reject) => {
        w.onmessage = e => resolve(e.data);
        w.onerror = e => reject(new Error(`the bare decoder failed: ${e.message}`));
        w.postMessage({ file, last });
      });
      w.terminate();
      return got;
    },
    [LAST, SITE_ASSETS],
  );
  await page.reload();
  await page.evaluate(() => window.relicview.ready);
  const again = await visit();
  console.log(
    `# solid 7z: ${(bytes / 1e6).toFixed(0)} MB packed (${megabytes} MB of files), ${blocks} block(s), made by 7-Zip (LZMA2 -mx=1)`,
  );
  console.log(`# listed in ${first.listMs.toFixed(0)} ms (from the drop: ${first.listWall} ms wall)`);
  console.log(
    `# the last file of the block opened in ${first.open.totalMs.toFixed(0)} ms (read ${first.open.readMs.toFixed(0)}; the store kept ${first.cache?.stored} entries, ${((first.cache?.bytesWritten ?? 0) / 1e6).toFixed(0)} MB)`,
  );
  console.log(
    `# decoding the block alone to it (the core in a bare worker, its second run; the first ${coldMs.toFixed(0)} ms): ${decodeMs.toFixed(0)} ms; open / decode alone = ${(first.open.totalMs / decodeMs).toFixed(2)}`,
  );
  console.log(
    `# 7-Zip decoding the archive natively: ${nativeMs} ms; wasm decode / native 7-Zip = ${(decodeMs / nativeMs).toFixed(2)}`,
  );
  console.log(
    `# after a reload, dropped again: listed in ${again.listMs.toFixed(0)} ms; the same file opened in ${again.open.totalMs.toFixed(0)} ms from the store (${again.cache?.hits} hit(s), ${again.cache?.bytesRead} bytes read); second open / first = ${(again.open.totalMs / first.open.totalMs).toFixed(3)}`,
  );
  await context.close();
} finally {
  await browser.close();
  server.stop();
  rmSync(served, { recursive: true, force: true });
}
