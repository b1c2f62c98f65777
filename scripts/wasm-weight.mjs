// What weighs what in a wasm module: each function's code (its body in the code section) by
// the crate its name starts with, read from the names section that scripts/build.sh keeps in
// target/wasm-names/ (the shipped modules carry none). Generic code is counted under the crate
// that defines it (a sort of the formats' records is Rust's). docs/benchmarks.md quotes it.
//
// node scripts/wasm-weight.mjs relicview_tools            the module's code by crate
// node scripts/wasm-weight.mjs relicview_tools --names relicview_formats
//                                                         every function of that crate, by size

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demangle, eachSection, functionNames } from './wasm-names.mjs';

const repo = resolve(import.meta.dirname, '..');

// Each function's body size in the code section, by function index (the imported functions
// take the first indices: `imported` of them).
/** @param {Buffer} b @returns {{ imported: number, sizes: number[] }} */
export function bodySizes(b) {
  let imported = 0;
  /** @type {number[]} */
  const sizes = [];
  eachSection(b, (id, r) => {
    if (id === 2) {
      for (let n = r.leb(); n > 0; n--) {
        // Its module's name and its own, then what it is.
        r.text(r.leb());
        r.text(r.leb());
        const kind = r.byte();
        if (kind === 0) {
          r.leb();
          imported++;
        } else if (kind === 1 || kind === 2) {
          // A table (its element type first) or a memory: limits, with a maximum or not.
          if (kind === 1) r.byte();
          const flags = r.leb();
          r.leb();
          if (flags & 1) r.leb();
        } else if (kind === 3) {
          // A global: its type and whether it is mutable.
          r.at += 2;
        } else {
          // A tag: its attribute and type.
          r.byte();
          r.leb();
        }
      }
    } else if (id === 10) {
      for (let n = r.leb(); n > 0; n--) {
        const body = r.leb();
        sizes.push(body);
        r.at += body;
      }
    }
  });
  return { imported, sizes };
}

/** @param {string} name @returns {string} */
export function crateOf(name) {
  const path = demangle(name);
  // `<T as Trait>::f` and `<impl …>`: the crate of the type the code is for.
  const m = /^<?\s*(?:&(?:mut )?)?([A-Za-z_][\w]*)/.exec(path);
  return m ? m[1] : path;
}

/** @param {string} module @returns {Map<string, number>} */
export function weightByCrate(module) {
  const file = readFileSync(join(repo, 'target/wasm-names', `${module}_bg.wasm`));
  const names = functionNames(file);
  const { imported, sizes } = bodySizes(file);
  /** @type {Map<string, number>} */
  const out = new Map();
  sizes.forEach((size, i) => {
    const name = names.get(imported + i) ?? '(unnamed)';
    const crate = crateOf(name);
    out.set(crate, (out.get(crate) ?? 0) + size);
  });
  return out;
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) {
  const [module, flag, crate] = process.argv.slice(2);
  if (!module) throw new Error('usage: node scripts/wasm-weight.mjs <module> [--names <crate>]');
  if (flag === '--names') {
    const file = readFileSync(join(repo, 'target/wasm-names', `${module}_bg.wasm`));
    const names = functionNames(file);
    const { imported, sizes } = bodySizes(file);
    const rows = sizes
      .map((size, i) => ({ size, name: demangle(names.get(imported + i) ?? '(unnamed)') }))
      .filter(r => crateOf(r.name) === crate)
      .sort((a, b) => b.size - a.size);
    for (const r of rows) console.log(`${r.size}\t${r.name}`);
  } else {
    const rows = [...weightByCrate(module)].sort((a, b) => b[1] - a[1]);
    const total = rows.reduce((s, [, n]) => s + n, 0);
    for (const [crate, size] of rows) console.log(`${(size / 1000).toFixed(1).padStart(8)} kB  ${crate}`);
    console.log(`${(total / 1000).toFixed(1).padStart(8)} kB  code in all`);
  }
}
