#!/usr/bin/env bash
# Runs every test: the formatters' checks, the Rust suite and the wasm build (each linted by
# clippy as it compiles), the browser tests in headless Chromium, and a smoke run of every
# benchmark. docs/testing.md says what runs when, and where CI's minutes go.
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
step "formatting: rustfmt (the workspace, the fuzz targets, every .rs file named) and Prettier (www/, tests/, scripts/)"
cargo fmt --all --check
cargo fmt --manifest-path fuzz/Cargo.toml --all --check
# Every Rust file named to rustfmt itself: a module cargo fmt cannot reach (declared inside
# a macro, as the formats once were) is checked all the same.
git ls-files -z '*.rs' | xargs -0 rustfmt --edition 2021 --check
node_modules/.bin/prettier --check www tests scripts --log-level warn
step "linting: Biome (the page, the workers, the scripts and the tests; biome.jsonc)"
node_modules/.bin/biome lint --error-on-warnings
# Every Rust build of this run is linted as it compiles: clippy's driver (rustc with clippy's
# lints) compiles the workspace's crates (RUSTC_WORKSPACE_WRAPPER, as `cargo clippy` sets
# it), warnings denied (CLIPPY_ARGS, as `cargo clippy -- -D warnings` passes them). So one
# build serves the lints and the tests, and the wasm build lints the page's crates for wasm
# (a `cargo clippy` of its own compiled every dependency again: three of CI's minutes).
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver)
export RUSTC_WORKSPACE_WRAPPER
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
step "the Rust test build, every target, linted by clippy (warnings denied)"
cargo test --workspace --all-targets --locked --no-run
# cargo test runs beside the next two builds, its output kept and shown after them: its
# tests leave a third of the two cores idle (one binary at a time, several waiting on
# 7-Zip, xorriso or a server), which the builds fill. Cargo lets go of target/debug once
# the tests start, and the builds lock folders of their own (fuzz/target, the wasm
# profiles'), so none waits for another. A run that stops early stops the tests too.
step "cargo test (beside the next two steps; its output after them)"
cargo test --workspace --locked >"$run_tmp/cargo-test.log" 2>&1 &
cargo_test=$!
trap 'pkill -P "$cargo_test" 2>/dev/null || true; kill "$cargo_test" 2>/dev/null || true; rm -rf "$run_tmp"' EXIT
step "the fuzz targets compile, linted (scripts/fuzz.sh runs them)"
cargo check --locked --manifest-path fuzz/Cargo.toml --bins
step "wasm build, linted (the page's crates for wasm32)"
scripts/build.sh --test-build
step "cargo test's output"
cargo_test_rc=0
wait "$cargo_test" || cargo_test_rc=$?
trap 'rm -rf "$run_tmp"' EXIT
cat "$run_tmp/cargo-test.log"
if [ "$cargo_test_rc" -ne 0 ]; then
  echo "cargo test failed (exit $cargo_test_rc)" >&2
  exit 1
fi
# The browser tests and the benchmarks' smoke run use the test build's CLI.
export RELICVIEW_BIN=$PWD/target/debug/relicview
step "tsc: the page's modules and workers against the core's own declarations (pkg/relicview.d.ts)"
tests/e2e/node_modules/.bin/tsc -p tsconfig.json
tests/e2e/node_modules/.bin/tsc -p www/workers/tsconfig.json
tests/e2e/node_modules/.bin/tsc -p www/ground/webm.tsconfig.json
step "browser tests (two files at a time, those that time the page's own tasks alone after them; each file's time after it; a failing file fails the run at the end)"
# Every file and every test has an end: a test that runs past E2E_TEST_MS fails naming
# itself, a file past E2E_FILE_S is stopped and fails the run, saying so.
E2E_TEST_MS=${RELICVIEW_E2E_TEST_MS:-600000}
E2E_FILE_S=${RELICVIEW_E2E_FILE_S:-1200}
e2e_jobs=${RELICVIEW_E2E_JOBS:-2}
# Files whose tests time the page's own long tasks (what another browser beside them would
# lengthen): run one at a time once the rest are done. Keep such tests in these files.
alone=(api.test.mjs worker.test.mjs responsive.test.mjs)
e2e_logs=$run_tmp/e2e-logs
mkdir -p "$e2e_logs"
# One file, its output kept apart and printed whole when it ends (under a lock: two files
# ending together do not interleave), then its time; its status in NAME.rc.
run_e2e_file() {
  local name=$1 start=$SECONDS rc=0
  (cd tests/e2e && timeout --kill-after=30 "$E2E_FILE_S" node --test --test-timeout="$E2E_TEST_MS" --test-reporter=spec "./$name") >"$e2e_logs/$name.log" 2>&1 || rc=$?
  local took="-- $name: $((SECONDS - start)) s"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then took="$took: stopped after $E2E_FILE_S s (a test did not end)"; fi
  echo "$rc" >"$e2e_logs/$name.rc"
  flock "$e2e_logs/print.lock" bash -c 'cat "$1"; echo "$2"' _ "$e2e_logs/$name.log" "$took"
}
together=()
for f in tests/e2e/*.test.mjs; do
  name=${f##*/}
  [[ " ${alone[*]} " == *" $name "* ]] || together+=("$name")
done
for name in "${together[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$e2e_jobs" ]; do wait -n || true; done
  run_e2e_file "$name" &
done
wait
for name in "${alone[@]}"; do run_e2e_file "$name"; done
failed=()
for f in tests/e2e/*.test.mjs; do
  name=${f##*/}
  [ "$(cat "$e2e_logs/$name.rc" 2>/dev/null || echo missing)" = 0 ] || failed+=("$name")
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
