#!/usr/bin/env bash
# Runs every test: the formatters' and clippy's checks, the Rust suite, the wasm build, the
# browser tests in headless Chromium, and a smoke run of every benchmark.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --tests
echo "== formatting: rustfmt (the workspace and the fuzz targets) and Prettier (www/, tests/, scripts/)"
cargo fmt --all --check
cargo fmt --manifest-path fuzz/Cargo.toml --all --check
node_modules/.bin/prettier --check www tests scripts --log-level warn
echo "== clippy, warnings denied: natively (every target) and for the page's wasm"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --workspace --lib --locked --target wasm32-unknown-unknown -- -D warnings
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
