#!/usr/bin/env bash
# Runs every test: the formatters' and clippy's checks, the Rust suite, the wasm build, the
# browser tests in headless Chromium, and a smoke run of every benchmark.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --tests
# The run's temporary files in a folder of its own, removed however the run ends; at the
# end, any scratch folder a test left behind fails the run (every test removes its own:
# tests/common's Scratch, tests/e2e/scratch.mjs). Runs that left theirs once filled a disk.
run_tmp=$(mktemp -d)
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR=$run_tmp
# Each step's heading with the time the run has taken so far (where CI's minutes go).
step() { echo "== $* ($((SECONDS / 60)) min $((SECONDS % 60)) s in)"; }
step "formatting: rustfmt (the workspace and the fuzz targets) and Prettier (www/, tests/, scripts/)"
cargo fmt --all --check
cargo fmt --manifest-path fuzz/Cargo.toml --all --check
node_modules/.bin/prettier --check www tests scripts --log-level warn
step "clippy, warnings denied: natively (every target) and for the page's wasm"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --workspace --lib --locked --target wasm32-unknown-unknown -- -D warnings
step "cargo test"
cargo test --workspace --locked
step "the fuzz targets compile (scripts/fuzz.sh runs them)"
cargo check --locked --manifest-path fuzz/Cargo.toml --bins
step "wasm build"
scripts/build.sh --test-build
step "tsc: the page's modules and workers against the core's own declarations (pkg/relicview.d.ts)"
tests/e2e/node_modules/.bin/tsc -p tsconfig.json
tests/e2e/node_modules/.bin/tsc -p www/workers.tsconfig.json
tests/e2e/node_modules/.bin/tsc -p www/webm.tsconfig.json
step "browser tests (a file at a time, each file's time after it; a failing file fails the run at the end)"
failed=()
for f in tests/e2e/*.test.mjs; do
  start=$SECONDS
  (cd tests/e2e && node --test --test-reporter=spec "./${f##*/}") || failed+=("${f##*/}")
  echo "-- ${f##*/}: $((SECONDS - start)) s"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "browser tests failed in: ${failed[*]}" >&2
  exit 1
fi
step "benchmarks, smoke run (each once on small inputs: they must run; no timing is asserted)"
scripts/bench.sh --smoke
step "nothing left behind in the temporary folder"
left=$(find "$run_tmp" -mindepth 1 -maxdepth 1 -name 'relicview-*')
if [ -n "$left" ]; then
  echo "the tests left these behind (each should remove its own scratch folder):" >&2
  echo "$left" >&2
  exit 1
fi
