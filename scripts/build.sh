#!/usr/bin/env bash
# Builds the wasm core into pkg/ and the native CLI into target/release/relicview.
# Usage: scripts/build.sh [--test-build]
#   --test-build: the wasm core with the test-only fault trigger (feature test-trap), which
#   the browser tests use to prove the page recovers from a trapped core. ./run.sh builds
#   without it.
set -euo pipefail
cd "$(dirname "$0")/.."
features=()
if [ "${1:-}" = "--test-build" ]; then features=(--features test-trap); fi
cargo build --release --locked --target wasm32-unknown-unknown --lib "${features[@]}"
wasm-bindgen target/wasm32-unknown-unknown/release/relicview.wasm --target web --out-dir pkg
cargo build --release --locked --bin relicview
