// The wasm build of the core on the same bytes the native bench used, in Node, beside a
// copy of the same bytes measured in the same run. Run by scripts/bench.sh after
// `cargo bench --bench throughput` has written target/bench/{big.bgf,native.json}.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initSync, countTriangles } from '../../pkg/relicview.js';

const repo = resolve(import.meta.dirname, '../..');
initSync({ module: readFileSync(join(repo, 'pkg/relicview_bg.wasm')) });
const bytes = new Uint8Array(readFileSync(join(repo, 'target/bench/big.bgf')));
const native = JSON.parse(readFileSync(join(repo, 'target/bench/native.json'), 'utf8'));
const mb = bytes.length / 1e6;

function best(budgetMs, f) {
  let bestMs = Infinity;
  const start = performance.now();
  for (let runs = 0; runs < 3 || performance.now() - start < budgetMs; runs++) {
    const t = performance.now();
    f();
    bestMs = Math.min(bestMs, performance.now() - t);
  }
  return bestMs;
}

// CI's smoke run (scripts/bench.sh --smoke): three runs each, to prove it still runs.
const budgetMs = process.env.RELICVIEW_BENCH_SMOKE ? 0 : 3000;
const copy = new Uint8Array(bytes.length);
const memcpyMs = best(budgetMs, () => copy.set(bytes));
let triangles = 0;
const fullMs = best(budgetMs, () => {
  triangles = countTriangles(bytes);
});
if (triangles !== native.triangles)
  throw new Error(`wasm counted ${triangles} triangles, native ${native.triangles}`);

const rate = ms => mb / (ms / 1000);
console.log(`wasm (Node ${process.version}), ${mb.toFixed(1)} MB, ${triangles} triangles`);
console.log(`  JS copy of the bytes          ${rate(memcpyMs).toFixed(1).padStart(8)} MB/s`);
console.log(
  `  parse + triangulate (wasm)    ${rate(fullMs).toFixed(1).padStart(8)} MB/s   ${(rate(fullMs) / rate(memcpyMs)).toFixed(3)} of the JS copy`,
);
console.log(
  `  native parse + triangulate    ${native.parse_triangulate_mb_s.toFixed(1).padStart(8)} MB/s   wasm time / native time = ${(native.parse_triangulate_mb_s / rate(fullMs)).toFixed(2)}${process.env.RELICVIEW_BENCH_SMOKE ? ' (smoke run: the native side unoptimised)' : ''}`,
);
