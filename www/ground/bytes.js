// @ts-check
// Reading bytes for the inspector's hex view: the values at a byte (u8 … f32, little-endian),
// an offset as a reader types it, and the bytes or text a reader searches for.

import { hex } from './hexview.js';

// The values the bytes at `o` read as, little-endian: [name, value] rows ('—' where the
// bytes run out).
/** @param {Uint8Array} b @param {number} o @returns {[string, string][]} */
export function valueRows(b, o) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const fits = (/** @type {number} */ k) => o + k <= b.length;
  const f32 = fits(4) ? view.getFloat32(o, true) : null;
  return [
    ['offset', `${o} (0x${hex(o, 1)})`],
    ['u8', `${view.getUint8(o)} (0x${hex(view.getUint8(o), 2)})`],
    ['i8', String(view.getInt8(o))],
    ['u16', fits(2) ? String(view.getUint16(o, true)) : '—'],
    ['i16', fits(2) ? String(view.getInt16(o, true)) : '—'],
    ['u32', fits(4) ? `${view.getUint32(o, true)} (0x${hex(view.getUint32(o, true), 8)})` : '—'],
    ['i32', fits(4) ? String(view.getInt32(o, true)) : '—'],
    [
      'f32',
      f32 === null
        ? '—'
        : Number.isFinite(f32) && Math.abs(f32) < 1e7 && (Math.abs(f32) > 1e-5 || f32 === 0)
          ? String(Number(f32.toPrecision(7)))
          : f32.toExponential(4),
    ],
  ];
}

// An offset as a reader types it: decimal, or hex with 0x (or a trailing h); null for
// anything else.
/** @param {string} text @returns {number | null} */
export function parseOffset(text) {
  const m = /^(?:0x([0-9a-f]+)|([0-9a-f]+)h|(\d+))$/i.exec(text.trim());
  if (!m) return null;
  return m[3] !== undefined ? Number(m[3]) : parseInt(m[1] ?? m[2] ?? '', 16);
}

// Hex bytes ("DE AD 00", "dead00") when the text reads as such, else the text's bytes.
/** @param {string} text @returns {number[]} */
export function parseNeedle(text) {
  const t = String(text).trim();
  if (!t) return [];
  // "quoted" is always text.
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"'))
    return [...new TextEncoder().encode(t.slice(1, -1))];
  const compact = t.replace(/\s+/g, '');
  if (
    /^(?:[0-9a-f]{2})+$/i.test(compact) &&
    (/\s/.test(t) || (/^0x/i.test(t) === false && compact.length >= 2 && /[0-9]/.test(compact)))
  ) {
    const out = [];
    for (let i = 0; i < compact.length; i += 2) out.push(parseInt(compact.slice(i, i + 2), 16));
    return out;
  }
  return [...new TextEncoder().encode(t)];
}

// Where `needle` next lies in `b` after byte `from` (`direction` -1: before it), wrapping at
// the ends; -1 where it is nowhere.
/** @param {Uint8Array} b @param {number[]} needle @param {number} from @param {number} direction */
export function findBytes(b, needle, from, direction) {
  const matchAt = (/** @type {number} */ i) => {
    for (let k = 0; k < needle.length; k++) if (b[i + k] !== needle[k]) return false;
    return true;
  };
  const last = b.length - needle.length;
  let found = -1;
  if (direction > 0) {
    for (let i = from + 1; i <= last && found < 0; i++) if (b[i] === needle[0] && matchAt(i)) found = i;
    for (let i = 0; i <= Math.min(from, last) && found < 0; i++)
      if (b[i] === needle[0] && matchAt(i)) found = i;
  } else {
    for (let i = Math.min(from - 1, last); i >= 0 && found < 0; i--)
      if (b[i] === needle[0] && matchAt(i)) found = i;
    for (let i = last; i > from && found < 0; i--) if (b[i] === needle[0] && matchAt(i)) found = i;
  }
  return found;
}
