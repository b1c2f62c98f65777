#!/usr/bin/env bash
# Benchmarks (not tests): native vs wasm throughput, and open() of a large model in headless
# Chromium split into read / parse / build / upload / draw. Prints ratios measured in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --browser
scripts/build.sh
cargo bench --bench throughput -- "$@"
node tests/bench/wasm-throughput.mjs
node tests/bench/open-timing.mjs
