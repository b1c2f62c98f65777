// @ts-check
// The archive check: every file parsed on its own (as `relicview census` does), failures
// listed with their reasons.

import { $, count, nextTask, ready, state } from '../ground/state.js';
import { addRow } from '../panes/infopane.js';

// The archive check: every file parsed on its own (as `relicview census` does), failures
// and damage marked in the list as they are found, then a report in the info pane with a
// link to each file that fails. Stops when another archive is loaded. → {checked, failed,
// damaged}, each entry {path, message, offset}.
/**
 * @typedef {{ path: string, message: string, offset: number | null }} CheckedFile
 * @typedef {{ checked: number, failed: CheckedFile[], damaged: CheckedFile[] }} CheckReport
 */
export async function checkArchive() {
  await ready;
  const generation = state.generation;
  const entries = state.entries.slice();
  const status = $('check-status');
  const button = $('check-button');
  button.disabled = true;
  /** @type {CheckReport} */
  const report = { checked: 0, failed: [], damaged: [] };
  try {
    for (const e of entries) {
      const r = await state.session.check(e.path);
      if (generation !== state.generation) return null;
      report.checked++;
      if (r.error && !r.damaged) report.failed.push({ path: e.path, ...r.error });
      if (r.damaged) report.damaged.push({ path: e.path, message: '', offset: null, ...r.error });
      state.files.setVerdict(e, { failed: Boolean(r.error && !r.damaged), damaged: r.damaged });
      // What its content says it is (a file typed by its name may be something else).
      if (r.kind !== e.kind) state.files.setKind(e, r.kind);
      if (report.checked % 50 === 0) {
        state.files.refresh();
        status.textContent = `${report.checked} of ${entries.length}…`;
        await nextTask();
      }
    }
  } finally {
    button.disabled = false;
    state.files.refresh();
  }
  status.textContent = `${report.checked} checked · ${report.failed.length} failing · ${report.damaged.length} damaged`;
  showReport(report);
  return report;
}

/** @param {CheckReport} report */
function showReport(report) {
  $('info-title').textContent = 'Archive check';
  $('info-error').hidden = true;
  $('info-more').replaceChildren();
  const dl = $('info-body');
  dl.replaceChildren();
  addRow(dl, 'checked', count(report.checked, 'file'));
  addRow(dl, 'failing', String(report.failed.length), report.failed.length > 0);
  addRow(dl, 'damaged', String(report.damaged.length), report.damaged.length > 0);
  for (const [what, list] of /** @type {[string, CheckedFile[]][]} */ ([
    ['fails', report.failed],
    ['damaged', report.damaged],
  ])) {
    for (const f of list.slice(0, 500))
      addRow(dl, what, `${f.path} — ${f.message.slice(f.path.length + 2)}`, true, { links: [f.path] });
    if (list.length > 500) addRow(dl, what, `… and ${list.length - 500} more`);
  }
  if (!report.failed.length && !report.damaged.length) addRow(dl, 'result', 'every file parses');
}
