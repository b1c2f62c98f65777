// Reads a stack trace from the page with the functions' names put back. The shipped modules
// carry no names section (it was an eighth of the core); scripts/build.sh keeps each module
// with its names in target/wasm-names/, whose functions are numbered as the shipped one's
// (the same wasm-bindgen output, the names section aside). A browser writes a wasm frame as
// `relicview_bg.07038bbbb269.wasm:wasm-function[1234]:0x5678`; each becomes the Rust path.
//
// node scripts/wasm-names.mjs < trace.txt      (or: node scripts/wasm-names.mjs trace.txt)

import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');

// A reader of a wasm module's bytes from `at` (past the magic and version): bytes, LEB128
// numbers and UTF-8 strings, `at` moving on past what it reads.
/** @param {Buffer} b @param {number} [at] */
export function reader(b, at = 8) {
  const r = {
    at,
    byte: () => b[r.at++],
    leb: () => {
      let value = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = b[r.at++];
        value += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return value;
      }
    },
    /** @param {number} length */
    text: length => {
      const text = b.toString('utf8', r.at, r.at + length);
      r.at += length;
      return text;
    },
  };
  return r;
}

// Each section of a module: `visit(id, r, end)`, `r` at the section's contents, which end at
// `end`; the next section is read from `end`, whatever the visit read.
/** @param {Buffer} b @param {(id: number, r: ReturnType<typeof reader>, end: number) => void} visit */
export function eachSection(b, visit) {
  const r = reader(b);
  while (r.at < b.length) {
    const id = r.byte();
    const size = r.leb();
    const end = r.at + size;
    visit(id, r, end);
    r.at = end;
  }
}

// The function names of a module: index → name, from its "name" custom section.
/** @param {Buffer} b */
export function functionNames(b) {
  const names = new Map();
  eachSection(b, (id, r, end) => {
    if (id !== 0 || r.text(r.leb()) !== 'name') return;
    while (r.at < end) {
      const sub = r.byte();
      const size = r.leb();
      const subEnd = r.at + size;
      if (sub === 1) {
        for (let n = r.leb(); n > 0; n--) {
          const index = r.leb();
          names.set(index, r.text(r.leb()));
        }
      }
      r.at = subEnd;
    }
  });
  return names;
}

// Rust's legacy mangling (_ZN…E) as a path, its hash left off.
export function demangle(name) {
  const m = /^_ZN(.*)E$/.exec(name);
  if (!m) return name;
  const parts = [];
  let s = m[1];
  while (/^\d/.test(s)) {
    const len = Number(/^\d+/.exec(s)[0]);
    s = s.slice(String(len).length);
    parts.push(s.slice(0, len));
    s = s.slice(len);
  }
  return parts
    .filter(p => !/^h[0-9a-f]{16}$/.test(p))
    .join('::')
    .replaceAll('$LT$', '<')
    .replaceAll('$GT$', '>')
    .replaceAll('$u20$', ' ')
    .replaceAll('$RF$', '&')
    .replaceAll('$C$', ',')
    .replaceAll('$u7b$', '{')
    .replaceAll('$u7d$', '}')
    .replaceAll('..', '::');
}

/** @param {string} path */
const namesOf = path => functionNames(readFileSync(path));

if (process.argv[1] === import.meta.filename) {
  const text = process.argv[2] ? readFileSync(process.argv[2], 'utf8') : readFileSync(0, 'utf8');
  const modules = new Map();
  process.stdout.write(
    text.replace(
      /([\w-]+?)(?:\.[0-9a-f]{12})?\.wasm:wasm-function\[(\d+)\](:0x[0-9a-f]+)?/g,
      (all, base, index) => {
        const file = join(repo, 'target/wasm-names', `${base}.wasm`);
        if (!modules.has(base)) modules.set(base, existsSync(file) ? namesOf(file) : null);
        const name = modules.get(base)?.get(Number(index));
        return name ? `${all} ${demangle(name)}` : all;
      },
    ),
  );
}
