#!/usr/bin/env bash
# Runs every test: the Rust suite, the wasm build, the browser tests in headless Chromium, and
# a smoke run of every benchmark.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --tests
echo "== cargo test"
cargo test --workspace --locked
echo "== the fuzz targets compile (scripts/fuzz.sh runs them)"
cargo check --locked --manifest-path fuzz/Cargo.toml --bins
echo "== wasm build"
scripts/build.sh --test-build
echo "== tsc: the page's modules and workers against the core's own declarations (pkg/relicview.d.ts)"
tests/e2e/node_modules/.bin/tsc -p tsconfig.json
tests/e2e/node_modules/.bin/tsc -p www/workers.tsconfig.json
echo "== browser tests"
(cd tests/e2e && node --test --test-reporter=spec --test-concurrency=1 ./*.test.mjs)
echo "== benchmarks, smoke run (each once on small inputs: they must run; no timing is asserted)"
scripts/bench.sh --smoke
