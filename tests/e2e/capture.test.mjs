// Captures of the view, checked by readers we did not write: the PNGs by pngjs, the zips by
// Python's zipfile, the videos by Debian's ffprobe and ffmpeg. A still is the view's size
// times its scale, transparent where the background was and opaque on the model; a
// turntable's WebM has the frame rate and length asked for and turns; the timeline's PNG
// frames are numbered, as many as asked, and move where the clock moves the door; a long
// capture stops when asked and keeps its frames; a browser without a video encoder is told
// so; the menu and the keys make the same files, at a phone's size too.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { PNG } from 'pngjs';
import { makeArchive, startServer, launch, sizedPage, axeClean } from './harness.mjs';
import { scratchDir } from './scratch.mjs';

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

const WALKER = 'DEMO/VIDEO/WALKER.BGF';
const ARENA = 'DEMO/MAPS/ARENA1.MAP';

// A page at `size` with `path` open and its clock stopped at `time`.
async function opened(path, { size = [1000, 760], time = 0.25, hasTouch = false } = {}) {
  const p = await sizedPage(browser, server.url, size, { acceptDownloads: true, hasTouch });
  await p.page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length > 0);
  await p.page.evaluate(path => window.relicview.open(path), path);
  await p.page.evaluate(t => window.relicview.setClock({ time: t, playing: false }), time);
  return p;
}

// What `act` downloads, with what it resolved to: {name, path, value}.
async function downloaded(page, act) {
  const [download, value] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), act()]);
  return { name: download.suggestedFilename(), path: await download.path(), value };
}

const capture = (page, asked) =>
  downloaded(page, () => page.evaluate(a => window.relicview.capture(a), asked));

// ffprobe's reading of a video: its stream and format, frames counted by decoding.
function probe(path) {
  const out = execFileSync(
    'ffprobe',
    [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=codec_name,width,height,avg_frame_rate,r_frame_rate,nb_read_frames:format=duration,format_name',
      '-of',
      'json',
      path,
    ],
    { encoding: 'utf8' },
  );
  const j = JSON.parse(out);
  return { ...j.streams[0], ...j.format };
}

// A video's frames decoded by ffmpeg as RGBA bytes, one Buffer per frame.
function decodedFrames(path, width, height) {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], {
    maxBuffer: 1 << 30,
  });
  const size = width * height * 4;
  return Array.from({ length: raw.length / size }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

// Pixels whose colour differs by more than `by` in some channel.
function differing(a, b, by = 24) {
  let n = 0;
  for (let i = 0; i < a.length; i += 4)
    if (
      Math.abs(a[i] - b[i]) > by ||
      Math.abs(a[i + 1] - b[i + 1]) > by ||
      Math.abs(a[i + 2] - b[i + 2]) > by
    )
      n++;
  return n;
}

// A zip's entries as Python's zipfile reads them: [{name, size, method}] and their bytes.
function unzipped(path) {
  const out = scratchDir('capture-zip');
  const listing = execFileSync(
    'python3',
    [
      '-c',
      `import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
z.extractall(sys.argv[2])
print(json.dumps([{"name": i.filename, "size": i.file_size, "method": i.compress_type} for i in z.infolist()]))`,
      path,
      out,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(listing).map(e => ({ ...e, bytes: readFileSync(join(out, e.name)) }));
}

test('a still is the view times its scale: opaque it is the view, transparent where the background was, named for the zone destroyed', async () => {
  const { page, problems, close } = await opened(WALKER);
  await page.evaluate(() => window.relicview.setPart('dz_larm', { hidden: true }));
  const view = await page.evaluate(() => window.relicview.readPixels());
  const bg = await page.evaluate(() => window.relicview.pixelStats().background);

  const one = await capture(page, { kind: 'still' });
  assert.equal(one.name, 'WALKER_dz-larm-destroyed_1x.png');
  const opaque = PNG.sync.read(readFileSync(one.path));
  assert.deepEqual([opaque.width, opaque.height], [view.width, view.height]);
  assert.equal(one.value.width, view.width);
  // The view drawn again off the screen: the same picture but for antialiased edges.
  const apart = differing(opaque.data, Buffer.from(view.data), 24);
  assert.ok(apart < view.width * view.height * 0.01, `${apart} pixels differ from the view`);
  let model = 0;
  for (let i = 0; i < opaque.data.length; i += 4)
    if (opaque.data[i + 3] !== 255) assert.fail(`pixel ${i / 4} is not opaque`);
  const isBackground = (d, i) =>
    Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) <= 3;

  for (const scale of [2, 4]) {
    const shot = await capture(page, { kind: 'still', scale, transparent: true });
    assert.equal(shot.name, `WALKER_dz-larm-destroyed_${scale}x.png`);
    const png = PNG.sync.read(readFileSync(shot.path));
    assert.deepEqual([png.width, png.height], [view.width * scale, view.height * scale]);
    // Each pixel of the 1× picture against the middle of its block in this one: background
    // there is transparent here; the model is opaque (edges aside).
    let [clear, solid, agree, total] = [0, 0, 0, 0];
    for (let y = 0; y < view.height; y++)
      for (let x = 0; x < view.width; x++) {
        const i = (y * view.width + x) * 4;
        const j = ((y * scale + scale / 2) * png.width + x * scale + scale / 2) * 4;
        const a = png.data[j + 3];
        if (a === 0) clear++;
        if (a === 255) solid++;
        const background = isBackground(opaque.data, i);
        if (!background) model++;
        if ((background && a === 0) || (!background && a === 255)) agree++;
        total++;
      }
    assert.ok(
      agree > total * 0.98,
      `${scale}×: ${agree} of ${total} pixels transparent where the background was and opaque on the model`,
    );
    assert.ok(clear > total * 0.3 && solid > total * 0.02, `${scale}×: ${clear} clear, ${solid} solid`);
  }
  assert.ok(model > 0);
  assert.deepEqual(problems, []);
  await close();
});

test("a turntable's WebM decodes in ffprobe with the asked frame rate and length, and turns", async () => {
  const { page, problems, close } = await opened(WALKER);
  const made = await capture(page, { kind: 'turntable', seconds: 2, fps: 12, format: 'webm' });
  assert.equal(made.name, 'WALKER_turntable_1x.webm');
  assert.equal(made.value.frames, 24);
  const p = probe(made.path);
  assert.match(p.format_name, /webm/);
  assert.ok(['vp9', 'vp8'].includes(p.codec_name), p.codec_name);
  assert.deepEqual([p.width, p.height], [made.value.width, made.value.height]);
  assert.equal(Number(p.nb_read_frames), 24, 'frames decoded');
  assert.ok(Math.abs(Number(p.duration) - 2) < 0.01, `duration ${p.duration}`);
  const [n, d] = p.avg_frame_rate.split('/').map(Number);
  assert.ok(Math.abs(n / d - 12) < 0.05, `frame rate ${p.avg_frame_rate}`);
  // A quarter turn apart the model is seen from another side; a whole turn is back where it
  // started (the frame after the last would be the first).
  const frames = decodedFrames(made.path, p.width, p.height);
  assert.equal(frames.length, 24);
  const quarter = differing(frames[0], frames[6]);
  const step = differing(frames[0], frames[1]);
  assert.ok(quarter > p.width * p.height * 0.01, `${quarter} pixels change over a quarter turn`);
  assert.ok(differing(frames[23], frames[0]) <= quarter, 'the last frame leads back to the first');
  assert.ok(step < quarter, `a frame's step (${step}) is less than a quarter turn (${quarter})`);
  assert.deepEqual(problems, []);
  await close();
});

test("the timeline's PNG frames are numbered, as many as asked, and move where the door moves", async () => {
  const { page, problems, close } = await opened(ARENA, { time: 0 });
  await page.evaluate(() => window.relicview.setCamera('orbit'));
  const made = await capture(page, {
    kind: 'timeline',
    seconds: 2,
    fps: 5,
    format: 'frames',
    transparent: true,
  });
  assert.equal(made.name, 'ARENA1_timeline_1x.zip');
  const entries = unzipped(made.path);
  assert.deepEqual(
    entries.map(e => e.name),
    Array.from({ length: 10 }, (_, i) => `ARENA1_timeline_1x_${String(i + 1).padStart(4, '0')}.png`),
  );
  const pngs = entries.map(e => PNG.sync.read(e.bytes));
  for (const png of pngs) assert.deepEqual([png.width, png.height], [made.value.width, made.value.height]);
  // The doors slide 3 units in 4 s (docs/formats/map.md): two seconds in, they have moved.
  const moved = differing(pngs[0].data, pngs[9].data);
  assert.ok(moved > 20, `${moved} pixels move from the first frame to the last`);
  // The frames keep their transparency.
  assert.ok(
    pngs[0].data.some((v, i) => i % 4 === 3 && v === 0),
    'transparent pixels',
  );
  // The page's own clock is where it was: the capture ran a clock of its own.
  assert.equal(await page.evaluate(() => window.relicview.clock().time), 0);
  // The walker's beacon blinks on the clock (BLINK, docs/formats/biz2.md): shown half a
  // second, hidden half a second.
  await page.evaluate(p => window.relicview.open(p), WALKER);
  await page.evaluate(() => window.relicview.setClock({ time: 0.1, playing: false }));
  const walker = await capture(page, { kind: 'timeline', seconds: 1, fps: 2, format: 'frames' });
  const [lit, dark] = unzipped(walker.path).map(e => PNG.sync.read(e.bytes).data);
  const blinked = differing(lit, dark);
  assert.ok(blinked > 10, `${blinked} pixels change as the beacon blinks`);
  assert.deepEqual(problems, []);
  await close();
});

test('a long capture shows its progress and stops when asked, keeping the frames so far', async () => {
  const { page, problems, close } = await opened(WALKER);
  const [download, result] = await Promise.all([
    page.waitForEvent('download', { timeout: 120_000 }),
    page.evaluate(async () => {
      const running = window.relicview.capture({ kind: 'timeline', seconds: 60, fps: 30, format: 'frames' });
      while ((window.relicview.captureProgress()?.frame ?? 0) < 5) await new Promise(requestAnimationFrame);
      const seen = {
        progress: window.relicview.captureProgress(),
        bar: !document.getElementById('capture-progress').hidden,
        stop: !document.getElementById('capture-stop').hidden,
      };
      window.relicview.stopCapture();
      return { seen, made: await running };
    }),
  ]);
  assert.equal(result.seen.progress.frames, 1800);
  assert.ok(result.seen.bar && result.seen.stop, 'the bar and the stop button show');
  assert.equal(result.made.stopped, true);
  assert.ok(result.made.frames >= 5 && result.made.frames < 1800, `${result.made.frames} frames`);
  assert.equal(unzipped(await download.path()).length, result.made.frames);
  assert.match(await page.locator('#capture-status').textContent(), /stopped/);
  assert.equal(await page.evaluate(() => window.relicview.captureProgress()), null);
  assert.deepEqual(problems, []);
  await close();
});

test('what cannot be made is said: no video encoder; a scale, length or rate out of range; a misspelt option', async () => {
  const { page, close } = await opened(WALKER);
  const refused = asked =>
    page.evaluate(
      a =>
        window.relicview.capture(a).then(
          () => 'made',
          e => String(e.message || e),
        ),
      asked,
    );
  await page.evaluate(() => {
    // @ts-expect-error: a browser without WebCodecs
    delete window.VideoEncoder;
  });
  const why = await refused({ kind: 'turntable', seconds: 1, fps: 4, format: 'webm' });
  assert.match(why, /VideoEncoder/);
  assert.match(await page.locator('#capture-status').textContent(), /No capture: .*VideoEncoder.*PNG frames/);
  assert.match(await refused({ kind: 'timeline', seconds: 61 }), /at most 60 seconds/);
  assert.match(await refused({ kind: 'still', scale: 3 }), /1×, 2× or 4×/);
  assert.match(await refused({ kind: 'timeline', fps: 0 }), /frames a second/);
  assert.match(await refused({ kind: 'still', size: 2 }), /unknown field/);
  // The PNG frames still work without a video encoder.
  const made = await capture(page, { kind: 'turntable', seconds: 0.5, fps: 4, format: 'frames' });
  assert.equal(unzipped(made.path).length, 2);
  await close();
});

test('the capture menu and the keys make the same captures, at a phone size too; the menu is accessible', async () => {
  for (const [size, hasTouch] of [
    [[1000, 760], false],
    [[390, 844], true],
  ]) {
    const { page, problems, close } = await opened(WALKER, { size, hasTouch });
    // K keeps a still as the menu is set (1×, with the background).
    await page.locator('#viewport').focus();
    const still = await downloaded(page, () => page.keyboard.press('k'));
    assert.equal(still.name, 'WALKER_1x.png');
    const png = PNG.sync.read(readFileSync(still.path));
    assert.equal(png.width, await page.evaluate(() => document.getElementById('viewport').width));
    // The menu: a turntable of PNG frames at 2×.
    await page.locator('#capture-menu summary').click();
    await page.locator('#capture-kind').selectOption('turntable');
    assert.equal(await page.locator('#capture-seconds').isVisible(), true, 'a turntable asks how long');
    await page.locator('#capture-scale').selectOption('2');
    await page.locator('#capture-seconds').fill('0.5');
    await page.locator('#capture-fps').selectOption('12');
    await page.locator('#capture-format').selectOption('frames');
    if (!hasTouch) await axeClean(page, 'the capture menu open');
    const turn = await downloaded(page, () => page.locator('#capture-start').click());
    assert.equal(turn.name, 'WALKER_turntable_2x.zip');
    const frames = unzipped(turn.path);
    assert.equal(frames.length, 6);
    assert.equal(PNG.sync.read(frames[0].bytes).width, png.width * 2);
    assert.match(await page.locator('#capture-status').textContent(), /WALKER_turntable_2x\.zip: 6 frames/);
    // R records the menu's turntable.
    await page.locator('#viewport').focus();
    const recorded = await downloaded(page, () => page.keyboard.press('r'));
    assert.equal(recorded.name, 'WALKER_turntable_2x.zip');
    assert.deepEqual(problems, []);
    await close();
  }
});

// The picture docs/using.md shows: the demo walker, its left arm destroyed, 2× without its
// background, made by the feature itself.
test('docs/using.md shows a capture the page made', async () => {
  const { page, close } = await opened(WALKER, { size: [520, 420] });
  await page.evaluate(() => window.relicview.setPart('dz_larm', { hidden: true }));
  const made = await capture(page, { kind: 'still', scale: 2, transparent: true });
  if (process.env.RELICVIEW_WRITE_DOCS)
    writeFileSync(join(import.meta.dirname, '../../docs/capture.png'), readFileSync(made.path));
  const doc = readFileSync(join(import.meta.dirname, '../../docs/using.md'), 'utf8');
  assert.match(doc, /!\[[^\]]+\]\(capture\.png\)/, 'docs/using.md shows docs/capture.png');
  const shown = PNG.sync.read(readFileSync(join(import.meta.dirname, '../../docs/capture.png')));
  const now = PNG.sync.read(readFileSync(made.path));
  assert.deepEqual(
    [shown.width, shown.height],
    [now.width, now.height],
    'the picture in the docs is a 2× capture',
  );
  assert.ok(
    shown.data.some((v, i) => i % 4 === 3 && v === 0),
    'with its background transparent',
  );
  await close();
});
