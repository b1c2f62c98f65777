// @ts-check
// Export all: every file of the archive exported as `relicview export --all` exports it
// (the core names the outputs and writes the report the same way), into one zip. Each
// file's part of the zip is handed to the browser's blob storage as soon as it is final, so
// the page never holds the zip; the download starts when the last part is in. Progress in
// the sidebar; cancel stops between two files.

import { $, count, fileName, message, nextTask, ready, state } from '../ground/state.js';
import { download, exportRig, exportsAllLods } from '../ground/exporting.js';
import { withTools } from '../ground/modules.js';
import { warmContainers } from '../sources/containers.js';

// The Export all under way ({cancelled}), or null.
/** @type {{ cancelled: boolean } | null} */
let exportJob = null;

// The archive's files as the zip names them: a dropped folder's own name is the zip's,
// not a folder inside it (as `export --all GAME` writes DEMO/…, not GAME/DEMO/…).
/** @param {Entry[]} entries @returns {{ folder: string | null, files: { path: string, zipPath: string }[] }} */
function zipPaths(entries) {
  const tops = new Set(entries.map(e => e.path.split('/')[0]));
  const folder = tops.size === 1 && entries.every(e => e.path.includes('/')) ? ([...tops][0] ?? null) : null;
  return {
    folder,
    files: entries.map(e => ({ path: e.path, zipPath: folder ? e.path.slice(folder.length + 1) : e.path })),
  };
}

// → {files, written, bytes, failed, name} once the download has been handed over, or
// {cancelled: true}.
export async function exportAll() {
  await ready;
  if (exportJob) throw new Error('an export is already under way');
  const generation = state.generation;
  const entries = state.entries.slice();
  const { folder, files } = zipPaths(entries);
  const name = `${folder || state.archiveName || (state.source.archive ? 'archive' : 'files')}-export.zip`;
  const job = { cancelled: false };
  const allScenes = exportsAllLods();
  const rig = exportRig();
  exportJob = job;
  try {
    // (Loading the tools module the first time is part of the export.)
    return await withTools(tools =>
      exportWith(tools, {
        job,
        generation,
        files,
        name,
        allScenes,
        rig,
        source: folder || state.source.archive || 'dropped files',
      }),
    );
  } finally {
    exportJob = null;
  }
}

/**
 * @param {{ glue: typeof import('../../pkg/relicview_tools.js') }} tools
 * @param {{ job: { cancelled: boolean }, generation: number, files: { path: string, zipPath: string }[], name: string, allScenes: boolean, rig: import('../../pkg/relicview.js').Rig, source: string }} asked
 */
async function exportWith({ glue }, { job, generation, files, name, allScenes, rig, source }) {
  const exporter = new glue.ArchiveExport(source);
  /** @type {Blob[]} */
  const parts = [];
  const bar = $('export-progress');
  const status = $('export-status');
  const button = $('export-all-button');
  bar.hidden = false;
  bar.max = files.length;
  bar.value = 0;
  button.textContent = 'Cancel export';
  try {
    // A solid 7z's entries decoded once, block by block, before they are read one by one.
    await warmContainers((/** @type {number} */ done, /** @type {number} */ total) => {
      status.textContent = `decoding the solid archives: ${done} of ${total} files`;
    });
    for (const [i, { path, zipPath }] of files.entries()) {
      if (job.cancelled || generation !== state.generation) return { cancelled: true };
      try {
        // The core opens the file and hands over what its export is made from; the tools
        // module writes the glTF and the PNGs.
        const file = glue.exportFile(await state.session.exportInput(path), allScenes, rig);
        const chunk = exporter.add(zipPath, file);
        file.free();
        if (chunk.length) parts.push(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (chunk)]));
      } catch (err) {
        exporter.unreadable(zipPath, message(err));
      }
      bar.value = i + 1;
      status.textContent = `${i + 1} of ${files.length} · ${fileName(path)}`;
      // Input and frames get in between two files.
      await nextTask();
    }
    const summary = exporter.summary();
    parts.push(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (exporter.finish())]));
    download(new Blob(parts, { type: 'application/zip' }), name);
    // The outcome stays in the export's own line (the info pane keeps the file on show)
    // until the reader clears it or exports again.
    const failed = summary.failed ? ` · ${summary.failed} failed (report.json in the zip says why)` : '';
    status.textContent = `${name}: ${count(summary.written, 'file')} written from ${count(summary.files, 'file')}${failed}`;
    return { files: summary.written, bytes: summary.bytes, failed: summary.failed, name };
  } finally {
    exporter.free();
    bar.hidden = true;
    button.textContent = 'Export all';
    if (job.cancelled) status.textContent = 'export cancelled';
    $('export-dismiss').hidden = !status.textContent;
  }
}

// The button starts an export, or cancels the one under way.
export function bindExportAll() {
  $('export-all-button').addEventListener('click', () => {
    if (exportJob) exportJob.cancelled = true;
    else {
      clearStatus();
      exportAll().catch(err => {
        $('export-status').textContent = message(err);
        $('export-dismiss').hidden = false;
      });
    }
  });
  $('export-dismiss').addEventListener('click', () => {
    clearStatus();
    $('export-all-button').focus();
  });
}

// The export's line, emptied (its bar folds away with it).
function clearStatus() {
  $('export-status').textContent = '';
  $('export-dismiss').hidden = true;
}
