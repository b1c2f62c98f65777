// Scratch folders of the browser tests and benchmarks, each removed when the process that
// made it ends, passed or failed (node's test runner runs each test file in a process of its
// own). Without this every run of the suite left its archives, exports and servers' folders
// behind in the temporary folder, and a machine's disk filled.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** @type {string[]} */
const made = [];

process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

// A new empty folder `relicview-NAME-…` under the system's temporary folder.
/** @param {string} name */
export function scratchDir(name) {
  const dir = mkdtempSync(join(tmpdir(), `relicview-${name}-`));
  made.push(dir);
  return dir;
}
