// DIV-BIZ2 models written from the format notes (docs/formats/biz2.md, worlds.md), not by
// the project's writer: the browser half of the conformance matrix (tests/conformance.rs is
// the native half, with its own emitter in Rust).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A chunk: u16 tag word (length width in its top two bits: 0 u8, 1 u16, 2 u32), the length,
// the payload (bytes, or child chunks).
function chunk(id, body) {
  const payload = Array.isArray(body) ? Buffer.concat(body) : Buffer.from(body);
  const n = payload.length;
  const head =
    n <= 0xff ? Buffer.from([id & 0xff, id >> 8, n]) : n <= 0xffff ? Buffer.alloc(4) : Buffer.alloc(6);
  if (n > 0xff && n <= 0xffff) {
    head.writeUInt16LE(id | 0x4000, 0);
    head.writeUInt16LE(n, 2);
  }
  if (n > 0xffff) {
    head.writeUInt16LE(id | 0x8000, 0);
    head.writeUInt32LE(n, 2);
  }
  return Buffer.concat([head, payload]);
}
const cstr = s => Buffer.from(`${s}\0`, 'latin1');
const f32 = values => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeFloatLE(v, 4 * i));
  return b;
};
const i32 = values => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeInt32LE(v, 4 * i));
  return b;
};
const file = (magic, chunks) => Buffer.concat([Buffer.from(magic), ...chunks, chunk(0x0005, [])]);

// The notes' vertex table: id, and which of normal, rgba, luminance + alpha, uv, uvw.
export const FORMATS = [
  [0x080, ''],
  [0x081, 'n'],
  [0x082, 'c'],
  [0x083, 'nc'],
  [0x084, 'l'],
  [0x085, 'nl'],
  [0x088, 'u'],
  [0x089, 'nu'],
  [0x08a, 'cu'],
  [0x08c, 'lu'],
  [0x090, 'w'],
  [0x091, 'nw'],
  [0x092, 'cw'],
  [0x094, 'lw'],
].map(([id, has]) => ({
  id,
  normal: has.includes('n'),
  rgba: has.includes('c'),
  la: has.includes('l'),
  uv: has.includes('u'),
  uvw: has.includes('w'),
}));

function vertex(fmt, x, y) {
  const v = [x, y, 0];
  if (fmt.normal) v.push(0, 0, 1);
  if (fmt.rgba) v.push(0.2, 0.6, 1.0, 1.0);
  if (fmt.la) v.push(0.8, 1.0);
  if (fmt.uv) v.push(x * 0.25, y * 0.25);
  if (fmt.uvw) v.push(x * 0.25, y * 0.25, 0);
  return v;
}

export const MATERIALS = ['none', 'plain', 'textured', 'missing library', 'scroll', 'back same as front'];
export const wantsTexture = mat => ['textured', 'scroll', 'back same as front'].includes(mat);

function materialRefs(mat, ns) {
  const named = s => Buffer.concat([Buffer.from([1]), cstr(s)]);
  return {
    none: [],
    plain: [chunk(0x2030 & ns, named('lib:plain_mtl'))],
    textured: [chunk(0x2030 & ns, named('lib:tex_mtl'))],
    'missing library': [chunk(0x2030 & ns, named('nolib:gone_mtl'))],
    scroll: [chunk(0x2030 & ns, named('lib:scroll_mtl'))],
    'back same as front': [chunk(0x2030 & ns, named('lib:tex_mtl')), chunk(0x2031 & ns, Buffer.from([3]))],
  }[mat];
}

const ngon = (cx, n) =>
  Array.from({ length: n }, (_, k) => [
    cx + Math.cos((2 * Math.PI * k) / n),
    Math.sin((2 * Math.PI * k) / n),
  ]);

// The structures: [name, triangles by the notes' formulas, chunk].
export const PRIMS = [
  'tristrip',
  'polygon',
  'polystrip',
  'pconn3',
  'pconn4',
  'pconn5',
  'pconn6',
  'conn+pconn',
];
export function triangles(prim) {
  if (prim.startsWith('pconn')) return 3 * (Number(prim.slice(5)) - 2);
  return prim === 'conn+pconn' ? 2 + 2 * 2 : 6 - 2;
}
function primitive(fmt, prim) {
  const block = vs => chunk(fmt.id, f32(vs.flatMap(([x, y]) => vertex(fmt, x, y))));
  if (prim === 'tristrip')
    return chunk(0x0044, [block(Array.from({ length: 6 }, (_, i) => [Math.floor(i / 2), i % 2]))]);
  if (prim === 'polygon' || prim === 'polystrip')
    return chunk(prim === 'polygon' ? 0x0043 : 0x0045, [block(ngon(0, 6))]);
  if (prim.startsWith('pconn')) {
    const ppf = Number(prim.slice(5));
    const vs = [0, 1, 2].flatMap(f => ngon(3 * f, ppf));
    return chunk(0x0046, [
      block(vs),
      chunk(0x004d, Buffer.concat([Buffer.from([ppf]), i32(vs.map((_, i) => i))])),
    ]);
  }
  const vs = [...ngon(0, 4), ...ngon(3, 4), [6, -1], [8, -1], [8, 1], [6, 1]];
  return chunk(0x0046, [
    block(vs),
    chunk(0x004d, Buffer.concat([Buffer.from([4]), i32([0, 1, 2, 3, 4, 5, 6, 7])])),
    chunk(0x0047, i32([8, 9, 10, 8, 10, 11])),
  ]);
}

// 1994: patches under OBJECT, ids without the 0x2000 namespace bit, the material on the
// object; 1996: OBJECT → LOD → PATCH, namespaced ids, the material on the patch.
export function model(fmt, mat, prim, era) {
  const ns = era === 1994 ? ~0x2000 & 0xffff : 0xffff;
  const patch = [
    chunk(0x2008 & ns, cstr('p0')),
    ...(era === 1996 ? materialRefs(mat, ns) : []),
    primitive(fmt, prim),
  ];
  const object = [chunk(0x2008 & ns, cstr('m')), ...(era === 1994 ? materialRefs(mat, ns) : [])];
  object.push(
    era === 1994
      ? chunk(0x0042, patch)
      : chunk(0x0041, [chunk(0x2046, f32([0, 1000])), chunk(0x0042, patch)]),
  );
  return file('DIV-BIZ2', [chunk(0x0003, []), chunk(0x0040, object)]);
}

// A flat square facing +z (one PCONN face of four points), coloured 0.8, 0.5, 0.25 by its
// vertices or by its material (LIB's plain_mtl, the same colour), with no normals, every
// normal (0, 0, 1), or one of them zero (which the notes' files use for none: that
// triangle is lit as a facet).
export const SQUARE_NORMALS = ['none', 'every', 'one zero'];
export const SQUARE_COLOURS = ['vertex', 'material'];
export function square(normals, colour) {
  const fmt = FORMATS.find(
    f => f.normal === (normals !== 'none') && f.rgba === (colour === 'vertex') && !f.la && !f.uv && !f.uvw,
  );
  const corners = [
    [-1, -1],
    [1, -1],
    [1, 1],
    [-1, 1],
  ];
  const values = corners.flatMap(([x, y], k) => [
    x,
    y,
    0,
    ...(fmt.normal ? (normals === 'one zero' && k === 1 ? [0, 0, 0] : [0, 0, 1]) : []),
    ...(fmt.rgba ? [0.8, 0.5, 0.25, 1] : []),
  ]);
  const face = chunk(0x0046, [
    chunk(fmt.id, f32(values)),
    chunk(0x004d, Buffer.concat([Buffer.from([4]), i32([0, 1, 2, 3])])),
  ]);
  const patch = [
    chunk(0x2008, cstr('p0')),
    ...materialRefs(colour === 'vertex' ? 'none' : 'plain', 0xffff),
    face,
  ];
  const object = [
    chunk(0x2008, cstr('square')),
    chunk(0x0041, [chunk(0x2046, f32([0, 1000])), chunk(0x0042, patch)]),
  ];
  return file('DIV-BIZ2', [chunk(0x0003, []), chunk(0x0040, object)]);
}

export function library() {
  const material = (name, texture) =>
    chunk(0x0020, [
      chunk(0x2008, cstr(name)),
      chunk(0x2024, f32([0.8, 0.5, 0.25])),
      ...(texture ? [chunk(0x2021, Buffer.concat([Buffer.from([2]), cstr(texture)]))] : []),
    ]);
  const texture = (name, special) =>
    chunk(0x0010, [
      chunk(0x2008, cstr(name)),
      chunk(0x2011, cstr('c:\\art\\check.tga')),
      ...(special ? [chunk(0x2037, cstr(special))] : []),
    ]);
  return file('DIV-BMF2', [
    chunk(0x0003, [chunk(0x2007, Buffer.from([1]))]),
    texture('check_t'),
    texture('drift_t', ' SCROLL 0 0 0.5 0.25 '),
    material('plain_mtl'),
    material('tex_mtl', 'check_t'),
    material('scroll_mtl', 'drift_t'),
  ]);
}

// An 8 × 8 true-colour TGA (type 2, 32 bits, top-left origin): a checker of two colours.
export function tga() {
  const head = Buffer.from([0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 8, 0, 32, 0x28]);
  const px = [];
  for (let y = 0; y < 8; y++)
    for (let x = 0; x < 8; x++) px.push(...((x + y) % 2 ? [40, 40, 200, 255] : [255, 255, 255, 255]));
  return Buffer.concat([head, Buffer.from(px)]);
}

// Contexts: the model alone, placed once, three times, and under a nested map.
export const CONTEXTS = {
  alone: [[0, 0, 0]],
  once: [[20, 0, 0]],
  thrice: [
    [0, 0, 0],
    [20, 0, 0],
    [40, 0, 0],
  ],
  nested: [[1, 5, 0]],
};
function placing(ctx, map, name) {
  const model = `[m]\r\ntype=model\r\nmodelfile=${name}.mod\r\n`;
  if (ctx === 'nested')
    return `${model}[inner]\r\ntype=map\r\ninstance=m 1 0 0 0 0 0\r\n[${map}]\r\ntype=map\r\ninstance=inner 0 5 0 0 0 0\r\n`;
  return `${model}[${map}]\r\ntype=map\r\n${CONTEXTS[ctx].map(([x, y, z]) => `instance=m ${x} ${y} ${z} 0 0 0\r\n`).join('')}`;
}

// Write the combinations into GAME/ under `root`: → [{path, fmt, mat, prim, era, ctx}].
export function writeMatrix(root, combinations) {
  for (const d of ['MATERIAL', 'TEXTURE', 'VIDEO', 'MODELS', 'MAPS'])
    mkdirSync(join(root, 'GAME', d), { recursive: true });
  writeFileSync(join(root, 'GAME/MATERIAL/LIB.BMF'), library());
  writeFileSync(join(root, 'GAME/TEXTURE/CHECK.TGA'), tga());
  return combinations.map((c, k) => {
    const name = `M${k}`;
    writeFileSync(join(root, `GAME/VIDEO/${name}.BGF`), model(c.fmt, c.mat, c.prim, c.era));
    writeFileSync(join(root, `GAME/MODELS/${name}.MOD`), `[video]\r\nobject=${name}.bgf\r\n`);
    if (c.ctx === 'alone') return { ...c, path: `GAME/VIDEO/${name}.BGF` };
    writeFileSync(join(root, `GAME/MAPS/${name}W.MAP`), placing(c.ctx, `${name}w`, name));
    return { ...c, path: `GAME/MAPS/${name}W.MAP` };
  });
}

// One world placing every model of `names` three times in a row each.
export function worldOfAll(root, mapName, names) {
  const sections = names.map((n, i) => `[m${i}]\r\ntype=model\r\nmodelfile=${n}.mod\r\n`).join('');
  const instances = names
    .flatMap((_, i) => [0, 1, 2].map(k => `instance=m${i} ${k * 20} ${i * 4} 0 0 0 0\r\n`))
    .join('');
  writeFileSync(
    join(root, `GAME/MAPS/${mapName}.MAP`),
    `${sections}[${mapName.toLowerCase()}]\r\ntype=map\r\n${instances}`,
  );
  return `GAME/MAPS/${mapName}.MAP`;
}
