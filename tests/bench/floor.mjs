// The floor of a first frame: what raw WebGL2 takes to show triangles it is handed ready for
// the GPU. `flatGlb` prepares the file (outside any clock): every triangle of a glTF's
// default scene, its node transforms applied, as one mesh of positions, normals and 32-bit
// indices in a .glb of one primitive. `floorPage` is the page that opens it: the bytes
// fetched (or read from a File), three buffers made straight from them, one draw with a
// one-light shader from the camera it is given, one pixel read back. No viewer can open the
// same triangles for less on the same canvas; a viewer's first frame is reported against it.

import { readFileSync, writeFileSync } from 'node:fs';

// The JSON and binary chunks of a .glb.
function readGlb(path) {
  const b = readFileSync(path);
  if (b.readUInt32LE(0) !== 0x46546c67) throw new Error(`${path}: not a .glb`);
  const jsonLength = b.readUInt32LE(12);
  const json = JSON.parse(b.subarray(20, 20 + jsonLength).toString('utf8'));
  const binAt = 20 + jsonLength;
  const bin = b.subarray(binAt + 8, binAt + 8 + b.readUInt32LE(binAt));
  return { json, bin };
}

// A glTF accessor's values as a typed array (tightly packed views only, as relicview writes).
function accessor(json, bin, k) {
  const a = json.accessors[k];
  const view = json.bufferViews[a.bufferView];
  if (view.byteStride || a.sparse) throw new Error(`accessor ${k}: strided or sparse data is not read here`);
  const width = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[a.type];
  const Type = { 5121: Uint8Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array }[
    a.componentType
  ];
  const start = bin.byteOffset + (view.byteOffset || 0) + (a.byteOffset || 0);
  return new Type(bin.buffer.slice(start, start + a.count * width * Type.BYTES_PER_ELEMENT));
}

// Column-major 4×4 matrices, as glTF stores them.
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}
function nodeMatrix(node) {
  if (node.matrix) return node.matrix;
  const [x, y, z, w] = node.rotation || [0, 0, 0, 1];
  const [sx, sy, sz] = node.scale || [1, 1, 1];
  const [tx, ty, tz] = node.translation || [0, 0, 0];
  return [
    (1 - 2 * (y * y + z * z)) * sx,
    2 * (x * y + z * w) * sx,
    2 * (x * z - y * w) * sx,
    0,
    2 * (x * y - z * w) * sy,
    (1 - 2 * (x * x + z * z)) * sy,
    2 * (y * z + x * w) * sy,
    0,
    2 * (x * z + y * w) * sz,
    2 * (y * z - x * w) * sz,
    (1 - 2 * (x * x + y * y)) * sz,
    0,
    tx,
    ty,
    tz,
    1,
  ];
}

// Area-weighted vertex normals, for a primitive stored without them.
function vertexNormals(positions, indices) {
  const n = new Float32Array(positions.length);
  for (let i = 0; i + 2 < indices.length; i += 3) {
    const [a, b, c] = [indices[i] * 3, indices[i + 1] * 3, indices[i + 2] * 3];
    const e1 = [0, 1, 2].map(k => positions[b + k] - positions[a + k]);
    const e2 = [0, 1, 2].map(k => positions[c + k] - positions[a + k]);
    const f = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    for (const v of [a, b, c]) for (let k = 0; k < 3; k++) n[v + k] += f[k];
  }
  return n;
}

// Every triangle of `src`'s default scene as one mesh in the .glb `out`; → {triangles, bytes}.
export function flatGlb(src, out) {
  const { json, bin } = readGlb(src);
  const parts = [];
  const walk = (k, parent) => {
    const node = json.nodes[k];
    const m = multiply(parent, nodeMatrix(node));
    for (const p of node.mesh === undefined ? [] : json.meshes[node.mesh].primitives) {
      if ((p.mode ?? 4) !== 4) continue;
      const positions = accessor(json, bin, p.attributes.POSITION);
      const indices =
        p.indices === undefined
          ? Uint32Array.from({ length: positions.length / 3 }, (_, i) => i)
          : accessor(json, bin, p.indices);
      const normals =
        p.attributes.NORMAL === undefined
          ? vertexNormals(positions, indices)
          : accessor(json, bin, p.attributes.NORMAL);
      parts.push({ m, positions, normals, indices });
    }
    for (const c of node.children || []) walk(c, m);
  };
  for (const k of json.scenes[json.scene ?? 0].nodes) walk(k, IDENTITY);
  const vertices = parts.reduce((s, p) => s + p.positions.length / 3, 0);
  const count = parts.reduce((s, p) => s + p.indices.length, 0);
  const positions = new Float32Array(vertices * 3);
  const normals = new Float32Array(vertices * 3);
  const indices = new Uint32Array(count);
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  let v = 0;
  let i = 0;
  for (const { m, positions: ps, normals: ns, indices: is } of parts) {
    for (let j = 0; j < ps.length; j += 3) {
      for (let r = 0; r < 3; r++) {
        const x = m[r] * ps[j] + m[4 + r] * ps[j + 1] + m[8 + r] * ps[j + 2] + m[12 + r];
        positions[(v + j / 3) * 3 + r] = x;
        min[r] = Math.min(min[r], x);
        max[r] = Math.max(max[r], x);
        // (Rotations and uniform scales only, as relicview's exports place things.)
        normals[(v + j / 3) * 3 + r] = m[r] * ns[j] + m[4 + r] * ns[j + 1] + m[8 + r] * ns[j + 2];
      }
    }
    for (let j = 0; j < is.length; j++) indices[i + j] = is[j] + v;
    v += ps.length / 3;
    i += is.length;
  }
  const chunks = [positions, normals, indices].map(a => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  let offset = 0;
  const bufferViews = chunks.map((c, k) => {
    const view = { buffer: 0, byteOffset: offset, byteLength: c.length, target: k === 2 ? 34963 : 34962 };
    offset += c.length;
    return view;
  });
  const gltf = {
    asset: { version: '2.0', generator: 'relicview bench: the floor' },
    buffers: [{ byteLength: offset }],
    bufferViews,
    accessors: [
      { bufferView: 0, componentType: 5126, count: vertices, type: 'VEC3', min, max },
      { bufferView: 1, componentType: 5126, count: vertices, type: 'VEC3' },
      { bufferView: 2, componentType: 5125, count, type: 'SCALAR' },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, NORMAL: 1 }, indices: 2 }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
    scene: 0,
  };
  let text = Buffer.from(JSON.stringify(gltf));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const bin2 = Buffer.concat(chunks);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(12 + 8 + text.length + 8 + bin2.length, 8);
  const chunkHead = (length, type) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(length, 0);
    h.writeUInt32LE(type, 4);
    return h;
  };
  const file = Buffer.concat([
    head,
    chunkHead(text.length, 0x4e4f534a),
    text,
    chunkHead(bin2.length, 0x004e4942),
    bin2,
  ]);
  writeFileSync(out, file);
  return { triangles: count / 3, bytes: file.length };
}

// The floor's page: a WebGL2 canvas of `width`×`height` with antialiasing on (as relicview's
// and three.js's), the context made before any clock starts. `openFlat(url)` fetches the
// file, `openFlatFile()` reads the File given to its input; both take the camera
// ({position, target, fov in degrees}, +Y up) and the background from `window.useCamera` and
// `window.background`; → {totalMs, loadMs, triangles}. `covered()` counts, after the clock,
// the pixels not within 2 of the background in any channel.
export const floorPage = (width, height) => `<!doctype html><meta charset="utf-8">
<style>html,body{margin:0;background:#000}canvas{display:block;width:${width}px;height:${height}px}</style>
<canvas id="c" width="${width}" height="${height}"></canvas><input type="file" id="file">
<script type="module">
const canvas = document.getElementById('c');
const gl = canvas.getContext('webgl2', { antialias: true });
const compile = (type, text) => { const s = gl.createShader(type); gl.shaderSource(s, text); gl.compileShader(s); return s; };
const program = gl.createProgram();
gl.attachShader(program, compile(gl.VERTEX_SHADER, \`#version 300 es
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 viewProjection;
out vec3 n;
void main() { n = normal; gl_Position = viewProjection * vec4(position, 1.0); }\`));
gl.attachShader(program, compile(gl.FRAGMENT_SHADER, \`#version 300 es
precision mediump float;
in vec3 n;
out vec4 colour;
void main() {
  float light = abs(dot(normalize(n), normalize(vec3(0.5, 0.8, 0.3))));
  colour = vec4(vec3(0.48, 0.48, 0.45) * (0.35 + 0.65 * light), 1.0);
}\`));
gl.linkProgram(program);
window.background = [0x1a, 0x1d, 0x24];
window.useCamera = null;
const sub = (a, b) => a.map((x, i) => x - b[i]);
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a) => { const l = Math.hypot(...a); return a.map((x) => x / l); };
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
// Perspective × look-at, column-major; near and far from the model's size, as three.js's page.
function viewProjection(camera, min, max) {
  const size = Math.hypot(...sub(max, min));
  const [near, far] = [size / 100, size * 100];
  const f = 1 / Math.tan((camera.fov * Math.PI) / 360);
  const aspect = ${width} / ${height};
  const z = unit(sub(camera.position, camera.target));
  const x = unit(cross([0, 1, 0], z));
  const y = cross(z, x);
  const e = camera.position;
  const view = [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, e), -dot(y, e), -dot(z, e), 1];
  const p = [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, (2 * far * near) / (near - far), 0];
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += p[k * 4 + r] * view[c * 4 + k];
  return out;
}
// A vertex array of positions (location 0), normals (1) and 32-bit indices, each straight
// from the bytes given; left bound.
function vertexArray(positions, normals, indices) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  for (const [location, data] of [[0, positions], [1, normals]]) {
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    gl.enableVertexAttribArray(location);
    gl.vertexAttribPointer(location, 3, gl.FLOAT, false, 0, 0);
  }
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.createBuffer());
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, indices, gl.STATIC_DRAW);
  return vao;
}
let draw = null;
// The file's three arrays straight into buffers, one draw, one pixel read back.
function show(bytes, t0, tl) {
  const head = new DataView(bytes);
  const jsonLength = head.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 20, jsonLength)));
  const bin = 20 + jsonLength + 8;
  const view = (k) => { const v = json.bufferViews[json.accessors[k].bufferView]; return new Uint8Array(bytes, bin + v.byteOffset, v.byteLength); };
  const vao = vertexArray(view(0), view(1), view(2));
  const count = json.accessors[2].count;
  const matrix = new Float32Array(viewProjection(window.useCamera, json.accessors[0].min, json.accessors[0].max));
  const pixel = new Uint8Array(4);
  draw = () => {
    gl.viewport(0, 0, ${width}, ${height});
    gl.clearColor(...window.background.map((c) => c / 255), 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(program);
    gl.uniformMatrix4fv(gl.getUniformLocation(program, 'viewProjection'), false, matrix);
    gl.bindVertexArray(vao);
    gl.drawElements(gl.TRIANGLES, count, gl.UNSIGNED_INT, 0);
    gl.readPixels(${width >> 1}, ${height >> 1}, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
  };
  draw();
  const t1 = performance.now();
  return { totalMs: t1 - t0, loadMs: tl - t0, triangles: count / 3, pixel: [...pixel] };
}
// Before any clock (relicview, too, warms its shaders and rasteriser up at page start): a
// grid of 131,072 triangles over the whole canvas, drawn twice with the same program, vertex
// layout and state and read back. Measured here, a first draw after one small triangle
// costs about twice a steady one (SwiftShader builds routines and its thread pool on first
// use); after this grid, the file's first draw costs what its second does, so the floor is
// its load and one steady draw.
{
  const N = 256;
  const grid = new Float32Array((N + 1) * (N + 1) * 3);
  for (let y = 0; y <= N; y++) for (let x = 0; x <= N; x++) grid.set([(x / N) * 1.8 - 0.9, (y / N) * 1.8 - 0.9, 0.1 * Math.sin(x + y)], (y * (N + 1) + x) * 3);
  const quads = new Uint32Array(N * N * 6);
  for (let y = 0, k = 0; y < N; y++) for (let x = 0; x < N; x++, k += 6) { const a = y * (N + 1) + x; quads.set([a, a + 1, a + N + 1, a + 1, a + N + 2, a + N + 1], k); }
  vertexArray(grid, grid, quads);
  gl.viewport(0, 0, ${width}, ${height});
  gl.enable(gl.DEPTH_TEST);
  gl.useProgram(program);
  gl.uniformMatrix4fv(gl.getUniformLocation(program, 'viewProjection'), false, new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]));
  for (let k = 0; k < 2; k++) {
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.drawElements(gl.TRIANGLES, quads.length, gl.UNSIGNED_INT, 0);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  }
  gl.bindVertexArray(null);
}
window.openFlat = async (url) => {
  const t0 = performance.now();
  const bytes = await (await fetch(url)).arrayBuffer();
  return show(bytes, t0, performance.now());
};
window.openFlatFile = async () => {
  const t0 = performance.now();
  const bytes = await document.getElementById('file').files[0].arrayBuffer();
  return show(bytes, t0, performance.now());
};
window.again = () => { const t = performance.now(); draw(); return performance.now() - t; };
window.covered = () => {
  draw();
  const all = new Uint8Array(${width} * ${height} * 4);
  gl.readPixels(0, 0, ${width}, ${height}, gl.RGBA, gl.UNSIGNED_BYTE, all);
  const bg = window.background;
  let n = 0;
  for (let i = 0; i < all.length; i += 4) if (Math.abs(all[i] - bg[0]) > 2 || Math.abs(all[i + 1] - bg[1]) > 2 || Math.abs(all[i + 2] - bg[2]) > 2) n++;
  return n;
};
window.ready = true;
</script>`;
