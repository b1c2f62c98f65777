#!/usr/bin/env bash
# Benchmarks (not tests), each reported as ratios measured in one run:
# - native parse / triangulate throughput against memcpy of the same bytes, and the wasm
#   build against the native one;
# - relicview diff of two 50 MB models with 10 differences against parsing both;
# - the first rasterised frame of a 500k-triangle model against three.js + GLTFLoader on the
#   same triangles (relicview's own .glb export) and against the floor (raw WebGL2 drawing
#   them as one mesh ready for the GPU), all three from relicview's camera with the pixels
#   each covered, with the parts of relicview's open, in a dropped folder and a served
#   archive at two window sizes;
# - a 50 MB model opened in the worker and on the page's thread: peak wasm memory against
#   the file, reuse, main-thread long tasks before and from the upload;
# - a picked folder of 2,000 and 20,000 files, a third named .DAT, from the change event and
#   against a bare page given the same files: listed, typed by name (by content where the
#   name says nothing), then every name confirmed by content in the background;
# - a world (CITY.MAP, 6,400 placements), dropped, against the floor drawing its triangles
#   as one mesh from relicview's camera;
# - a real FF7 field model opened with the game's lighting (FIELD.BIN beside it) against
#   without, dropped;
# - a dropped 650 MB disc rip (.bin + .cue): its listing against reading its directory
#   sectors alone, a field model opened inside it against the same file loose; the same
#   disc published and served by nginx: index.json's size, the hosted listing against the
#   dropped one, a field model's open and its bytes transferred against its size;
# - a dropped 650 MB solid 7z (one LZMA2 block, made by 7-Zip): its listing, the last file of
#   the block opened against decoding the block alone (the core in a bare worker) and
#   against 7-Zip natively, and the second open after a reload, from the browser's store;
# - census of a solid 7z of 3,000 small files (one LZMA2 block, one PPMd block) against
#   7-Zip testing the same archive (`7zz t`);
# - export --all of an archive against exporting each of its files alone: time, and peak
#   memory against the largest single export;
# - export of the real FF7 field files as a glTF skin against a node per bone: time, and the
#   .glb sizes;
# - a shared link opened with an empty cache: the demo and a real FF7 field folder published
#   and served by nginx, against a three.js + GLTFLoader page (bundled by esbuild) showing
#   the same model from the same host, at a home line and a phone's, with a second visit,
#   a second model, and every file of the page raw / gzip / brotli;
# - the archive grid of 1,000 distinct models, served: its first screenful of thumbnails and
#   all of them, with the page's longest task, a second visit from the browser's store,
#   against opening models in turn.
# scripts/bench.sh [REPETITIONS]
# scripts/bench.sh --smoke: every benchmark once, on small inputs, with the build already
#   made (the cargo benches unoptimised) (./test.sh runs it so that no benchmark can rot
#   unnoticed); each must finish and print its figures, and the side-by-side frames must
#   cover the same pixels (a ratio is printed only then). Nothing is asserted about time.
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=""
if [ "${1:-}" = "--smoke" ]; then
  smoke=1
  export RELICVIEW_BENCH_SMOKE=1
  shift
fi
if [ -z "$smoke" ]; then
  scripts/setup.sh --tests
  scripts/build.sh
fi
echo "# $(date -u +%Y-%m-%d) on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), headless Chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}') + SwiftShader"

# Each benchmark ends: stopped past this many seconds (its own waits end sooner and say what
# they saw; this is for a wait they do not have).
limit=${RELICVIEW_BENCH_S:-$([ -n "$smoke" ] && echo 600 || echo 3600)}

# Run one benchmark; in a smoke run, its output must hold what it reports (`expect`).
run() {
  local expect="$1"
  shift
  if [ -z "$smoke" ]; then
    timeout --kill-after=30 "$limit" "$@" || { local rc=$?; [ "$rc" -ne 124 ] || echo "bench.sh: '$*' stopped after $limit s" >&2; return "$rc"; }
    return
  fi
  local out rc=0
  out=$(timeout --kill-after=30 "$limit" "$@" 2>&1) || rc=$?
  if [ "$rc" -eq 124 ]; then echo "$out"; echo "bench.sh --smoke: '$*' stopped after $limit s" >&2; return 1; fi
  if [ "$rc" -ne 0 ]; then echo "$out"; echo "bench.sh --smoke: '$*' failed" >&2; return 1; fi
  echo "$out"
  grep -q -- "$expect" <<<"$out" || { echo "bench.sh --smoke: '$*' printed no '$expect'" >&2; return 1; }
}

if [ -n "$smoke" ]; then
  # The cargo benches in the test profile: the library ./test.sh's cargo test built serves,
  # where `cargo bench` would compile an optimised one of its own (two minutes of CI).
  run "of memcpy" cargo test --locked --bench throughput -- --mb 2
  run "parsing both" cargo test --locked --bench diff -- --mb 2
  run "ratio drawn / shown" cargo test --locked --bench describe
  run "wasm time / native time" node tests/bench/wasm-throughput.mjs
  run "ratio relicview / floor" node tests/bench/first-frame.mjs 1
  run "first frame rasterised" node tests/bench/big-model.mjs
  run "the browser's share, a bare page" node tests/bench/listing.mjs 300
  run "ratio world / floor" node tests/bench/world.mjs
  run "first rasterised frame, with the game's lighting" node tests/bench/field-lighting.mjs
  run "ratio field scene / its models alone" node tests/bench/field-scene.mjs
  run "bytes sent / file size" node tests/bench/disc.mjs 40 20
  run "second open / first" node tests/bench/sevenz.mjs 8
  run "ratio census / 7zz t" python3 tests/bench/sevenz-census.py --files 300 --runs 1
  run "ratio: time" python3 tests/bench/export-all.py --models 1 --mb 1 --runs 1
  run "ratio skin / nodes" python3 tests/bench/rig-export.py --runs 1
  run "ratio cold link relicview / three.js" node tests/bench/cold-link.mjs
  run "ratio grid / opening in turn" node tests/bench/grid.mjs
  exit 0
fi
cargo bench --bench throughput
cargo bench --bench diff
cargo bench --bench describe
node tests/bench/wasm-throughput.mjs
node tests/bench/first-frame.mjs "${1:-9}"
node tests/bench/big-model.mjs
node tests/bench/listing.mjs 2000 20000
node tests/bench/world.mjs "${1:-9}"
node tests/bench/field-lighting.mjs "${1:-9}"
node tests/bench/field-scene.mjs "${1:-9}"
node tests/bench/disc.mjs
node tests/bench/sevenz.mjs
python3 tests/bench/sevenz-census.py
python3 tests/bench/export-all.py
python3 tests/bench/rig-export.py
node tests/bench/cold-link.mjs "${1:-9}"
node tests/bench/grid.mjs 1000
