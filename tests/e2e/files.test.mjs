// The shell's folder walking, in Node with fake FileSystemEntry objects: Chromium hands out
// directory entries in batches (about 100 per readEntries call), and a drop of a folder must
// still yield every file, with its path inside the dropped folder.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectDrop } from '../../www/sources/files.js';

function fakeFile(name, size) {
  return { name, size, arrayBuffer: async () => new ArrayBuffer(size) };
}

function fileEntry(fullPath, size) {
  return {
    isFile: true,
    isDirectory: false,
    fullPath,
    file: ok => ok(fakeFile(fullPath.split('/').pop(), size)),
  };
}

function dirEntry(fullPath, children, batch = 100) {
  return {
    isFile: false,
    isDirectory: true,
    fullPath,
    createReader() {
      let next = 0;
      return {
        readEntries(ok) {
          const slice = children.slice(next, next + batch);
          next += slice.length;
          setTimeout(() => ok(slice), 0);
        },
      };
    },
  };
}

function dropOf(entries, files = []) {
  return { items: entries.map(e => ({ kind: 'file', webkitGetAsEntry: () => e })), files };
}

test('a dropped folder of 250 files in nested folders yields every file, batch by batch', async () => {
  const video = Array.from({ length: 230 }, (_, i) => fileEntry(`/GAME/VIDEO/M${i}.BGF`, i));
  const material = Array.from({ length: 20 }, (_, i) => fileEntry(`/GAME/MATERIAL/L${i}.BMF`, 1));
  const root = dirEntry('/GAME', [
    dirEntry('/GAME/VIDEO', video),
    dirEntry('/GAME/MATERIAL', material, 7),
    dirEntry('/GAME/EMPTY', []),
  ]);
  const entries = await collectDrop(dropOf([root]));
  assert.equal(entries.length, 250);
  const paths = new Set(entries.map(e => e.path));
  assert.ok(paths.has('GAME/VIDEO/M229.BGF'));
  assert.ok(paths.has('GAME/MATERIAL/L19.BMF'));
  const m7 = entries.find(e => e.path === 'GAME/VIDEO/M7.BGF');
  assert.equal(m7.size, 7);
  assert.equal((await m7.read()).byteLength, 7);
});

test('a drop without folder entries falls back to the plain file list', async () => {
  const file = fakeFile('CUBE.BGF', 3);
  const entries = await collectDrop({
    items: [{ kind: 'file', webkitGetAsEntry: () => null }],
    files: [file],
  });
  assert.deepEqual(
    entries.map(e => [e.path, e.size]),
    [['CUBE.BGF', 3]],
  );
});

test('dropping loose files and folders together keeps both', async () => {
  const entries = await collectDrop(
    dropOf([fileEntry('/A.BGF', 1), dirEntry('/D', [fileEntry('/D/B.BGF', 2)])]),
  );
  assert.deepEqual(entries.map(e => e.path).sort(), ['A.BGF', 'D/B.BGF']);
});
