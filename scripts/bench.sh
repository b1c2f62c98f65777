#!/usr/bin/env bash
# Benchmarks (not tests), each reported as ratios measured in one run:
# - native parse / triangulate throughput against memcpy of the same bytes, and the wasm
#   build against the native one;
# - relicview diff of two 50 MB models with 10 differences against parsing both;
# - the first rasterised frame of a 500k-triangle model against three.js + GLTFLoader on the
#   same triangles (relicview's own .glb export), with the parts of relicview's open;
# - a 50 MB model opened in the worker and on the page's thread: peak wasm memory against
#   the file, reuse, main-thread long tasks before and from the upload;
# - a dropped folder of 2,000 and 20,000 files: listed by name, then typed by content;
# - a dropped 650 MB disc rip (.bin + .cue): its listing against reading its directory
#   sectors alone, a field model opened inside it against the same file loose;
# - export --all of an archive against exporting each of its files alone: time, and peak
#   memory against the largest single export.
# scripts/bench.sh [REPETITIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --browser
scripts/build.sh
echo "# $(date -u +%Y-%m-%d) on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), headless Chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}') + SwiftShader"
cargo bench --bench throughput
cargo bench --bench diff
node tests/bench/wasm-throughput.mjs
node tests/bench/first-frame.mjs "${1:-9}"
node tests/bench/big-model.mjs
node tests/bench/listing.mjs 2000 20000
node tests/bench/disc.mjs
python3 tests/bench/export-all.py
