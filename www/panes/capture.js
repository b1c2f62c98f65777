// @ts-check
// Captures of the view, from the capture menu, the keys (K, R) and `capture()`: a still
// at 1×, 2× or 4× the view's size, with or without the background; a turntable or the
// timeline as a WebM video or a zip of numbered PNG frames. The core plans the frames (their
// size, times and turns: crates/view/src/capture.rs), draws each off the screen and names the
// file; this module encodes them, shows the progress, stops a capture when asked and hands
// the file over. It owns the capture under way.

import { $, ready, message, nextTask, state, fileName, viewWords } from '../ground/state.js';
import { download } from '../ground/exporting.js';
import { withTools } from '../ground/modules.js';
import { assetUrl } from '../ground/assets.js';

/** @typedef {import('../../pkg/relicview.js').CaptureRequest} CaptureRequest */
/** @typedef {import('../../pkg/relicview.js').CapturePlan} CapturePlan */

/**
 * What a capture handed over: its file's name, its size, frames and length, how it was
 * encoded, what the browser could not do (`notes`), and whether it was stopped early.
 * @typedef {{ name: string, kind: string, format: string | null, width: number, height: number, frames: number, fps: number, seconds: number, bytes: number, transparent: boolean, codec: string | null, notes: string[], stopped: boolean }} Captured
 */

// Frames of a still's or a frame's upload are waited for at most this many times (a scene
// still going up to the GPU is captured whole).
const UPLOAD_FRAMES = 600;

/** @type {{ stop: boolean, frame: number, frames: number } | null} */
let job = null;

// The capture under way, for the API: {frame, frames} or null.
export function captureProgress() {
  return job ? { frame: job.frame, frames: job.frames } : null;
}

// End the capture under way after the frame it is drawing; what it has so far is handed
// over. → whether one was under way.
export function stopCapture() {
  if (job) job.stop = true;
  return Boolean(job);
}

// The name of the file on show without its folder and extension.
function stem() {
  return fileName(state.current || 'relicview').replace(/\.[^.]*$/, '') || 'relicview';
}

// Capture the view as `asked` says; → what was handed over, once the download is.
/** @param {Partial<CaptureRequest>} asked @returns {Promise<Captured>} */
export async function capture(asked = {}) {
  await ready;
  if (job) throw new Error('a capture is already under way: stop it first');
  const plan = state.viewer.capturePlan(asked);
  const current = { stop: false, frame: 0, frames: plan.frames };
  job = current;
  showProgress(plan);
  try {
    // What is on show is drawn whole: a scene still going up to the GPU first finishes.
    for (let k = 0; k < UPLOAD_FRAMES && state.viewer.stats().uploading; k++)
      await state.viewport.requestFrame();
    const captured =
      plan.kind === 'still'
        ? await still(plan)
        : plan.format === 'webm'
          ? await video(plan, current)
          : await frames(plan, current);
    say(describe(captured));
    return captured;
  } catch (err) {
    say(`No capture: ${message(err)}`);
    throw err;
  } finally {
    job = null;
    $('capture-progress').hidden = true;
    $('capture-stop').hidden = true;
    $('capture-start').disabled = false;
  }
}

/** @param {CapturePlan} plan @param {number} i */
function frameImage(plan, i) {
  const rgba = state.viewer.captureFrame(plan, i);
  // (The core's bytes are a copy, on an ArrayBuffer of their own, never a shared one.)
  const bytes = /** @type {Uint8Array<ArrayBuffer>} */ (rgba);
  return new ImageData(
    new Uint8ClampedArray(bytes.buffer, bytes.byteOffset, bytes.length),
    plan.width,
    plan.height,
  );
}

// A frame as PNG bytes, encoded by the browser.
/** @param {ImageData} image @returns {Promise<Blob>} */
function png(image) {
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('this browser gave no 2D canvas to encode the PNG with');
  context.putImageData(image, 0, 0);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** @param {CapturePlan} plan @returns {Promise<Captured>} */
async function still(plan) {
  const blob = await png(frameImage(plan, 0));
  const name = state.viewer.captureName(plan, stem(), 'png');
  download(blob, name);
  return result(plan, { name, frames: 1, bytes: blob.size });
}

/** @param {CapturePlan} plan @param {{ stop: boolean, frame: number }} current @returns {Promise<Captured>} */
async function video(plan, current) {
  const { startWebm } = /** @type {WebmModule} */ (await import(assetUrl('webm')));
  const writer = await startWebm({
    width: plan.width,
    height: plan.height,
    fps: plan.fps,
    transparent: plan.transparent,
  });
  const notes = [];
  if (plan.transparent && !writer.alpha) {
    notes.push(
      "this browser's video encoder keeps no transparency: the video has the background (PNG frames keep it)",
    );
    plan = { ...plan, transparent: false };
  }
  let done = 0;
  try {
    for (; done < plan.frames && !current.stop; done++) {
      await writer.add(state.viewer.captureFrame(plan, done), done);
      progress(current, done + 1, plan.frames);
      await nextTask();
    }
  } catch (err) {
    await writer.cancel().catch(() => {});
    throw err;
  }
  const blob = await writer.finish();
  const name = state.viewer.captureName(plan, stem(), 'webm');
  download(blob, name);
  return result(plan, {
    name,
    frames: done,
    bytes: blob.size,
    codec: writer.codec,
    notes,
    stopped: current.stop,
  });
}

/** @param {CapturePlan} plan @param {{ stop: boolean, frame: number }} current @returns {Promise<Captured>} */
async function frames(plan, current) {
  const zip = await withTools(({ glue }) => new glue.FrameZip());
  const name = state.viewer.captureName(plan, stem(), 'zip');
  const base = name.replace(/\.zip$/, '');
  const digits = Math.max(4, String(plan.frames).length);
  /** @type {Blob[]} */
  const parts = [];
  let done = 0;
  try {
    for (; done < plan.frames && !current.stop; done++) {
      const frame = await png(frameImage(plan, done));
      const bytes = new Uint8Array(await frame.arrayBuffer());
      const chunk = zip.add(`${base}_${String(done + 1).padStart(digits, '0')}.png`, bytes);
      if (chunk.length) parts.push(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (chunk)]));
      progress(current, done + 1, plan.frames);
      await nextTask();
    }
    parts.push(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (zip.finish())]));
  } finally {
    zip.free();
  }
  const blob = new Blob(parts, { type: 'application/zip' });
  download(blob, name);
  return result(plan, { name, frames: done, bytes: blob.size, stopped: current.stop });
}

/**
 * @param {CapturePlan} plan
 * @param {{ name: string, frames: number, bytes: number, codec?: string, notes?: string[], stopped?: boolean }} made
 * @returns {Captured}
 */
function result(plan, { name, frames, bytes, codec, notes = [], stopped = false }) {
  return {
    name,
    kind: plan.kind,
    format: plan.kind === 'still' ? null : plan.format,
    width: plan.width,
    height: plan.height,
    frames,
    fps: plan.fps,
    seconds: plan.fps ? frames / plan.fps : 0,
    bytes,
    transparent: plan.transparent,
    codec: codec ?? null,
    notes,
    stopped,
  };
}

/** @param {Captured} c */
function describe(c) {
  const what =
    c.kind === 'still' ? `${c.width} × ${c.height}` : `${c.frames} frames, ${c.seconds.toFixed(2)} s`;
  const stopped = c.stopped ? ' (stopped)' : '';
  return [`${c.name}: ${what}${stopped}`, ...c.notes].join(' · ');
}

/** @param {string} text */
function say(text) {
  $('capture-status').textContent = text;
}

/** @param {CapturePlan} plan */
function showProgress(plan) {
  const bar = $('capture-progress');
  bar.max = plan.frames;
  bar.value = 0;
  bar.hidden = plan.frames < 2;
  $('capture-stop').hidden = plan.frames < 2;
  $('capture-start').disabled = true;
  say(plan.frames < 2 ? 'capturing…' : `frame 0 of ${plan.frames}`);
}

/** @param {{ frame: number }} current @param {number} done @param {number} total */
function progress(current, done, total) {
  current.frame = done;
  $('capture-progress').value = done;
  say(`frame ${done} of ${total}`);
}

// What the menu asks for.
/** @param {Partial<CaptureRequest>} [over] @returns {Partial<CaptureRequest>} */
export function menuRequest(over = {}) {
  const seconds = Number($('capture-seconds').value);
  return {
    kind: /** @type {CaptureRequest['kind']} */ ($('capture-kind').value),
    scale: Number($('capture-scale').value),
    transparent: $('capture-transparent').checked,
    fps: Number($('capture-fps').value),
    format: /** @type {CaptureRequest['format']} */ ($('capture-format').value),
    ...(seconds > 0 ? { seconds } : {}),
    ...over,
  };
}

// A capture asked for by the menu or a key: its failure is said in the capture's line.
/** @param {Partial<CaptureRequest>} [over] */
export function captureFromMenu(over) {
  if (job) {
    stopCapture();
    return;
  }
  capture(menuRequest(over)).catch(() => {});
}

// The menu offers what the core takes.
export function bindCapture() {
  const words = viewWords();
  /** @type {Record<string, string>} */
  const kinds = { still: 'a still (PNG)', turntable: 'a turntable', timeline: 'the timeline' };
  /** @type {Record<string, string>} */
  const formats = { webm: 'WebM video', frames: 'PNG frames (.zip)' };
  $('capture-kind').replaceChildren(...words.captureKinds.map(k => new Option(kinds[k] || k, k)));
  $('capture-scale').replaceChildren(...words.captureScales.map(s => new Option(`${s}×`, String(s))));
  $('capture-format').replaceChildren(...words.captureFormats.map(f => new Option(formats[f] || f, f)));
  const sync = () => {
    const moving = $('capture-kind').value !== 'still';
    for (const id of /** @type {const} */ ([
      'capture-seconds-label',
      'capture-fps-label',
      'capture-format-label',
    ]))
      $(id).hidden = !moving;
  };
  $('capture-kind').addEventListener('change', sync);
  sync();
  $('capture-start').addEventListener('click', () => captureFromMenu());
  $('capture-stop').addEventListener('click', () => stopCapture());
}
