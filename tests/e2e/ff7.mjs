// The tests' own reader and writer of FF7 field models (.BSX) and characters (.BCX), written
// from the format notes (docs/formats/bsx.md: the LZS wrapper, the models section, the
// skeleton, the animation channels, the pose) and sharing no code with relicview's Rust.
// What the rig tests expect of an export (where every joint is at every frame of every
// clip) is computed here, from the bytes.

// ---- reading ----

// The LZS wrapper: u32 compressed length (the file's length less 4), then an LZSS stream
// (control bits LSB first, 1 a literal; a reference is 12 bits of ring position and 4 of
// length − 3; the ring starts zeroed, written from 0xFEE). A file whose first word is not
// its length less 4 is returned as it is.
export function unwrapLzs(bytes) {
  if (bytes.length < 4 || readU32(bytes, 0) !== bytes.length - 4) return bytes;
  const out = [];
  let at = 4;
  while (at < bytes.length) {
    const control = bytes[at++];
    for (let bit = 0; bit < 8 && at < bytes.length; bit++) {
      if ((control >> bit) & 1) {
        out.push(bytes[at++]);
        continue;
      }
      if (at + 1 >= bytes.length) break;
      const [b0, b1] = [bytes[at], bytes[at + 1]];
      at += 2;
      const raw = b0 | ((b1 & 0xf0) << 4);
      const len = (b1 & 0x0f) + 3;
      const distance = (out.length + 0xfee - raw) & 0xfff;
      const from = out.length - distance;
      for (let k = 0; k < len; k++) out.push(from + k < 0 ? 0 : out[from + k]);
    }
  }
  return Uint8Array.from(out);
}

const readU16 = (b, at) => b[at] | (b[at + 1] << 8);
const readS16 = (b, at) => (readU16(b, at) << 16) >> 16;
const readU32 = (b, at) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const RAM = 0x7fffffff;

function readBones(b, at, n) {
  return Array.from({ length: n }, (_, k) => ({
    length: readS16(b, at + 4 * k),
    parent: (b[at + 4 * k + 2] << 24) >> 24,
  }));
}

function readParts(b, at, n) {
  return Array.from({ length: n }, (_, k) => ({
    bone: b[at + 32 * k + 1],
    polygons: [...b.subarray(at + 32 * k + 4, at + 32 * k + 12)].reduce((x, y) => x + y, 0),
  }));
}

// An animation header and its data block: the channels and the three value tables.
function readAnimations(b, at, n) {
  return Array.from({ length: n }, (_, k) => {
    const h = at + 16 * k;
    const frames = readU16(b, h);
    const bones = b[h + 2];
    const [nTrans, nStatic, nRot] = [b[h + 3], b[h + 4], b[h + 5]];
    const [offTrans, offStatic, offRot] = [readU16(b, h + 6), readU16(b, h + 8), readU16(b, h + 10)];
    const base = readU32(b, h + 12) & RAM;
    const channels = Array.from({ length: bones }, (_, c) => {
      const d = base + 4 + 8 * c;
      return {
        mask: b[d],
        rotation: [b[d + 1], b[d + 2], b[d + 3]],
        translation: [b[d + 4], b[d + 5], b[d + 6]],
      };
    });
    const translations = Array.from({ length: nTrans * frames }, (_, i) =>
      readS16(b, base + offTrans + 2 * i),
    );
    const statics = Array.from({ length: nStatic }, (_, i) => readS16(b, base + offStatic + 2 * i));
    const rotations = [...b.subarray(base + offRot, base + offRot + nRot * frames)];
    return { frames, bones, channels, translations, statics, rotations };
  });
}

// A field file's models: per record its character (global id), scale, the ranges' starts and
// its own bones, parts and animations.
export function readBsx(bytes) {
  const b = unwrapLzs(bytes);
  const models = readU32(b, 4);
  const count = readU32(b, models + 4);
  return Array.from({ length: count }, (_, i) => {
    const r = models + 0x10 + 0x30 * i;
    const range = (start, n) => ({ start: b[r + start], count: b[r + n] });
    const [bones, parts, anims] = [range(0x12, 0x17), range(0x1e, 0x23), range(0x2a, 0x2f)];
    const skeleton = r + readU32(b, r + 4);
    return {
      character: b[r + 1],
      scale: readU16(b, r + 2),
      starts: [bones.start, parts.start, anims.start],
      bones: readBones(b, skeleton, bones.count),
      parts: readParts(b, skeleton + 4 * bones.count, parts.count),
      animations: readAnimations(b, skeleton + 4 * bones.count + 32 * parts.count, anims.count),
    };
  });
}

// A character's BCX: one model, its skeleton after the 36-byte header.
export function readBcx(bytes) {
  const b = unwrapLzs(bytes);
  const h = readU32(b, 4);
  const [nb, np, na] = [b[h + 2], b[h + 3], b[h + 4]];
  const skeleton = h + 36;
  return {
    character: 0,
    scale: readU16(b, h + 0x16),
    starts: [0, 0, 0],
    bones: readBones(b, skeleton, nb),
    parts: readParts(b, skeleton + readU16(b, h + 0x18), np),
    animations: readAnimations(b, skeleton + readU16(b, h + 0x1a), na),
  };
}

export const CHARACTERS = [
  'CLOUD.BCX',
  'EARITH.BCX',
  'BALLET.BCX',
  'TIFA.BCX',
  'RED.BCX',
  'CID.BCX',
  'YUFI.BCX',
  'KETCY.BCX',
  'VINCENT.BCX',
];

// A model as the engine assembles it: a character's BCX fills the first slots, the record's
// own bones, parts and animations go at their ranges' starts. `bcx(name)` gives a character's
// model, or null where it is not at hand.
export function assemble(model, bcx) {
  const isCharacter = model.character >= 1 && model.character <= 9;
  const character = isCharacter ? bcx(CHARACTERS[model.character - 1]) : null;
  const slots = (own, from, start) => {
    const out = from ? [...from] : [];
    own.forEach((x, k) => (out[(isCharacter ? start : 0) + k] = x));
    return out;
  };
  return {
    scale: model.scale,
    bones: slots(model.bones, character?.bones, model.starts[0]),
    parts: slots(model.parts, character?.parts, model.starts[1]),
    animations: slots(model.animations, character?.animations, model.starts[2]),
  };
}

// Bone b's rotation (256 steps a turn) and translation at frame f: an animated axis reads its
// row of frames, a fixed rotation is the byte itself, a fixed translation the clip's static
// value it names (0xFF: 0).
export function channelAt(anim, b, f) {
  const ch = anim.channels[b];
  if (!ch) return { rotation: [0, 0, 0], translation: [0, 0, 0] };
  const rotation = [0, 1, 2].map(a =>
    (ch.mask >> a) & 1 ? anim.rotations[ch.rotation[a] * anim.frames + f] : ch.rotation[a],
  );
  const translation = [0, 1, 2].map(a => {
    const t = ch.translation[a];
    if ((ch.mask >> (a + 4)) & 1) return anim.translations[t * anim.frames + f];
    return t === 0xff ? 0 : anim.statics[t];
  });
  return { rotation, translation };
}

// 3×4 matrices as rows [r00 r01 r02 t0; …], applied to column vectors.
const mul = (a, b) =>
  [0, 1, 2].map(i =>
    [0, 1, 2, 3].map(
      j => a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + (j === 3 ? a[i][3] : 0),
    ),
  );
const IDENTITY = [
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
];

// Every joint's place at frame f of `anim` in the export's space: the bone's matrix is its
// parent's times [Ry·Rx·Rz | (tx, ty, length + tz)], the model's matrix the model's scale
// (scale/4096) and the half turn about X that makes the console's Y-down space Y-up. A
// joint is where its matrix puts the origin.
export function jointsAt(rig, anim, f) {
  const matrices = [];
  const s = rig.scale / 4096;
  const model = [
    [s, 0, 0, 0],
    [0, -s, 0, 0],
    [0, 0, -s, 0],
  ];
  rig.bones.forEach((bone, b) => {
    if (!bone) return;
    const { rotation, translation } = channelAt(anim, b, f);
    const [rx, ry, rz] = rotation.map(a => (a * 2 * Math.PI) / 256);
    const [cx, sx, cy, sy, cz, sz] = [
      Math.cos(rx),
      Math.sin(rx),
      Math.cos(ry),
      Math.sin(ry),
      Math.cos(rz),
      Math.sin(rz),
    ];
    const Rx = [
      [1, 0, 0, 0],
      [0, cx, -sx, 0],
      [0, sx, cx, 0],
    ];
    const Ry = [
      [cy, 0, sy, 0],
      [0, 1, 0, 0],
      [-sy, 0, cy, 0],
    ];
    const Rz = [
      [cz, -sz, 0, 0],
      [sz, cz, 0, 0],
      [0, 0, 1, 0],
    ];
    const local = mul(mul(Ry, Rx), Rz);
    local[0][3] = translation[0];
    local[1][3] = translation[1];
    local[2][3] = bone.length + translation[2];
    const parent =
      bone.parent >= 0 && bone.parent < b && matrices[bone.parent] ? matrices[bone.parent] : IDENTITY;
    matrices[b] = mul(parent, local);
  });
  return rig.bones.map((bone, b) => (bone ? mul(model, matrices[b]).map(row => row[3]) : null));
}

// Per model record of a field model cut short, from the bytes alone (the layout of
// docs/formats/bsx.md): the triangles of the parts whose header and data lie wholly inside.
export function trianglesInside(b) {
  const u32 = at => b.readUInt32LE(at);
  const u16 = at => b.readUInt16LE(at);
  const om = u32(4);
  if (om + 16 > b.length) return [];
  const sizes = [0x18, 0x14, 0x0c, 0x0c, 0x08, 0x08, 0x10, 0x14];
  const weights = [2, 1, 2, 1, 1, 2, 1, 2];
  const models = [];
  for (let i = 0; i < u32(om + 4); i++) {
    const rec = om + 16 + 48 * i;
    if (rec + 48 > b.length) break;
    const [nb, np, character] = [b[rec + 0x17], b[rec + 0x23], b[rec + 1]];
    const skeleton = rec + u32(rec + 4);
    let triangles = 0;
    if (skeleton + 4 * nb <= b.length) {
      for (let j = 0; j < np; j++) {
        const h = skeleton + 4 * nb + 32 * j;
        if (h + 32 > b.length) break;
        const base = u32(h + 0x18) & 0x7fffffff;
        const counts = [...b.subarray(h + 4, h + 12)];
        const polys = counts.reduce((s, n, k) => s + n * sizes[k], 0);
        const ends = [
          base + 4 + 8 * b[h + 2],
          base + u16(h + 0x0e) + polys,
          base + u16(h + 0x12) + 4 * b[h + 0x0c],
          base + u16(h + 0x10) + 2 * b[h + 3],
          base + u16(h + 0x14) + b[h + 0x0d],
        ];
        if (ends.every(e => e <= b.length)) triangles += counts.reduce((s, n, k) => s + n * weights[k], 0);
      }
    }
    models.push({ triangles, character });
  }
  return models;
}

// ---- writing (the generated files of the cross product) ----

class Bytes {
  constructor() {
    this.b = [];
  }
  get at() {
    return this.b.length;
  }
  u8(...v) {
    for (const x of v) this.b.push(x & 0xff);
    return this;
  }
  u16(...v) {
    for (const x of v) this.u8(x, x >> 8);
    return this;
  }
  u32(...v) {
    for (const x of v) this.u8(x, x >> 8, x >> 16, x >>> 24);
    return this;
  }
  align() {
    while (this.b.length % 4) this.b.push(0);
    return this;
  }
  set32(at, v) {
    for (let k = 0; k < 4; k++) this.b[at + k] = (v >>> (8 * k)) & 0xff;
  }
  bytes() {
    return Uint8Array.from(this.b);
  }
}

// A part data block: a flat triangle (tri_mono) of three vertices on its bone.
function writePart(w, k) {
  w.align();
  const at = w.at;
  w.u32(0);
  const spread = 20 + 7 * k;
  for (const [x, y, z] of [
    [0, 0, 0],
    [spread, 0, 0],
    [0, spread, 10],
  ])
    w.u16(x, y, z, 0);
  w.u8(0, 1, 2, 0, 0x40 + k * 9, 0x80, 0xc0 - k * 5, 0);
  return at;
}

// An animation data block from its channels and tables.
function writeAnimation(w, anim) {
  w.align();
  const at = w.at;
  w.u32(0);
  for (const ch of anim.channels) w.u8(ch.mask, ...ch.rotation, ...ch.translation, 0);
  for (const v of anim.translations) w.u16(v);
  for (const v of anim.statics) w.u16(v);
  w.u8(...anim.rotations);
  return at;
}

function animationHeader(w, anim, block) {
  const nb = anim.channels.length;
  const offTrans = 4 + 8 * nb;
  const offStatic = offTrans + 2 * anim.translations.length;
  const offRot = offStatic + 2 * anim.statics.length;
  w.u16(anim.frames)
    .u8(nb, anim.translations.length / anim.frames, anim.statics.length, anim.rotations.length / anim.frames)
    .u16(offTrans, offStatic, offRot)
    .u32((block | 0x80000000) >>> 0);
}

function partHeader(w, part, block) {
  // Lit, on its bone, 3 vertices, no texcoords, one tri_mono; no texture words.
  w.u8(1, part.bone, 3, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)
    .u16(28, 36, 36, 36, 20)
    .u32((block | 0x80000000) >>> 0, 0);
}

// A clip for `bones` bones: each bone's axes take their turn at every mode (rotation fixed or
// animated; translation none, static or animated) as `seed` shifts the pattern. With
// `still`, no axis is animated (a still clip: the statics still hold the root elsewhere).
export function crossClip(bones, frames, seed, still = false) {
  const anim = { frames, channels: [], translations: [], statics: [], rotations: [] };
  for (let b = 0; b < bones; b++) {
    const ch = { mask: 0, rotation: [0, 0, 0], translation: [0xff, 0xff, 0xff] };
    for (let a = 0; a < 3; a++) {
      if (!still && (b + a + seed) % 2 === 1) {
        ch.mask |= 1 << a;
        ch.rotation[a] = anim.rotations.length / frames;
        for (let f = 0; f < frames; f++) anim.rotations.push((seed * 37 + b * 23 + a * 11 + f * 13) & 0xff);
      } else {
        ch.rotation[a] = (seed * 29 + b * 17 + a * 7) & 0xff;
      }
      const mode = still ? ((b + a + seed) % 3 === 2 ? 1 : (b + a + seed) % 3) : (b + a + seed) % 3;
      if (mode === 1) {
        ch.translation[a] = anim.statics.length;
        anim.statics.push((((seed + 1) * 31 + b * 13 + a * 5) % 200) - 100);
      } else if (mode === 2) {
        ch.mask |= 1 << (a + 4);
        ch.translation[a] = anim.translations.length / frames;
        for (let f = 0; f < frames; f++)
          anim.translations.push(((seed * 41 + b * 19 + a * 3 + f * 9) % 160) - 80);
      }
    }
    anim.channels.push(ch);
  }
  return anim;
}

// A field file of the given models ({character, scale, bones, parts, animations, starts}),
// laid out as the notes say: header, part blocks, animation blocks, the models section with
// each record's skeleton, bones, part and animation headers, then an empty texture section.
export function writeBsx(models) {
  const w = new Bytes();
  w.u32(0, 0);
  const blocks = models.map(m => ({ parts: m.parts.map((_, k) => writePart(w, k)), anims: [] }));
  models.forEach((m, i) => (blocks[i].anims = m.animations.map(a => writeAnimation(w, a))));
  w.align();
  const offsetModels = w.at;
  w.u32((offsetModels | 0x80000000) >>> 0, models.length, 0, 0);
  const records = models.map(() => {
    const at = w.at;
    for (let k = 0; k < 0x30; k++) w.u8(0);
    return at;
  });
  models.forEach((m, i) => {
    const r = records[i];
    const skeleton = w.at;
    for (const bone of m.bones)
      w.u16(bone.length).u8(bone.parent, m.parts.some(p => p.bone === bone.index) ? 1 : 0);
    m.parts.forEach((p, k) => partHeader(w, p, blocks[i].parts[k]));
    m.animations.forEach((a, k) => animationHeader(w, a, blocks[i].anims[k]));
    const put = (at, ...v) => v.forEach((x, k) => (w.b[r + at + k] = x & 0xff));
    put(0, 0x21, m.character, m.scale, m.scale >> 8);
    w.set32(r + 4, skeleton - r);
    put(8, 0x40, 0x40, 0x40);
    for (const [at, dir] of [
      [0x0c, [4096, 0, 0]],
      [0x18, [0, 4096, 0]],
      [0x24, [0, 0, 4096]],
    ])
      dir.forEach((d, k) => put(at + 2 * k, d, d >> 8));
    const range = (at, n, start, count) => {
      if (count) put(at, start, start + count - 1);
      else put(at, 0xff, 0xff);
      put(n, count);
    };
    range(0x12, 0x17, m.starts[0], m.bones.length);
    range(0x1e, 0x23, m.starts[1], m.parts.length);
    range(0x2a, 0x2f, m.starts[2], m.animations.length);
    for (const [at, rgb] of [
      [0x14, [0x80, 0x60, 0x40]],
      [0x20, [0x30, 0x30, 0x60]],
      [0x2c, [0x20, 0x40, 0x20]],
    ])
      put(at, ...rgb);
  });
  w.align();
  w.set32(offsetModels + 8, w.at - offsetModels);
  w.u32(8).u32(0);
  w.set32(0, w.at);
  w.set32(4, offsetModels);
  return w.bytes();
}

// A character's BCX (one model, no texture section), LZS-wrapped as on the disc (literals).
export function writeBcx(model) {
  const w = new Bytes();
  w.u32(0, 0);
  const parts = model.parts.map((_, k) => writePart(w, k));
  const anims = model.animations.map(a => writeAnimation(w, a));
  w.align();
  const h = w.at;
  const [nb, np] = [model.bones.length, model.parts.length];
  w.u16(0xff01).u8(nb, np, model.animations.length);
  for (let k = 0; k < 17; k++) w.u8(0);
  w.u16(model.scale, 4 * nb, 4 * nb + 32 * np).u32(((h + 36) | 0x80000000) >>> 0, 0);
  for (const bone of model.bones)
    w.u16(bone.length).u8(bone.parent, model.parts.some(p => p.bone === bone.index) ? 1 : 0);
  model.parts.forEach((p, k) => partHeader(w, p, parts[k]));
  model.animations.forEach((a, k) => animationHeader(w, a, anims[k]));
  w.set32(0, w.at);
  w.set32(4, h);
  return wrapLzs(w.bytes());
}

// The LZS wrapper around `bytes`, all literals: 0xFF then 8 bytes, a shorter last group.
export function wrapLzs(bytes) {
  const out = [0, 0, 0, 0];
  for (let at = 0; at < bytes.length; at += 8) {
    const group = bytes.subarray(at, at + 8);
    out.push((1 << group.length) - 1, ...group);
  }
  const len = out.length - 4;
  out.splice(0, 4, len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, len >>> 24);
  return Uint8Array.from(out);
}

// A skeleton of `n` bones: a root, then a chain with a branch (parents always earlier).
export function skeleton(n) {
  return Array.from({ length: n }, (_, b) => ({
    index: b,
    length: b === 0 ? 0 : -30 - 11 * b,
    parent: b === 0 ? -1 : b === 1 ? 0 : b % 3 === 0 ? 1 : b - 1,
  }));
}

// The LZS wrapper around `bytes`, compressed greedily as the notes' encoder does: at each
// position the longest earlier run (3 to 18 bytes, at most 4095 back, overlapping allowed)
// becomes a reference (12 bits of ring position, (source + 0xFEE) & 0xFFF, and 4 of length
// − 3), else a literal. Positions are found by their first three bytes.
export function compressLzs(bytes) {
  const out = [0, 0, 0, 0];
  const seen = new Map();
  const key = p => bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16);
  let pos = 0;
  let control = -1;
  let bit = 8;
  const item = literal => {
    if (bit === 8) {
      control = out.length;
      out.push(0);
      bit = 0;
    }
    if (literal) out[control] |= 1 << bit;
    bit++;
  };
  const remember = p => {
    if (p + 2 >= bytes.length) return;
    const k = key(p);
    const list = seen.get(k) || [];
    list.push(p);
    if (list.length > 64) list.shift();
    seen.set(k, list);
  };
  while (pos < bytes.length) {
    let best = 0;
    let from = 0;
    if (pos + 2 < bytes.length) {
      for (const src of seen.get(key(pos)) || []) {
        if (pos - src > 4095) continue;
        let len = 0;
        while (len < 18 && pos + len < bytes.length && bytes[src + len] === bytes[pos + len]) len++;
        if (len > best) [best, from] = [len, src];
      }
    }
    if (best >= 3) {
      item(false);
      const raw = (from + 0xfee) & 0xfff;
      out.push(raw & 0xff, ((raw >> 4) & 0xf0) | (best - 3));
      for (let k = 0; k < best; k++) remember(pos + k);
      pos += best;
    } else {
      item(true);
      out.push(bytes[pos]);
      remember(pos);
      pos++;
    }
  }
  const len = out.length - 4;
  out.splice(0, 4, len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, len >>> 24);
  return Uint8Array.from(out);
}
