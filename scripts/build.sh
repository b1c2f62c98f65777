#!/usr/bin/env bash
# Builds the wasm core into pkg/ and the native CLI into target/release/relicview.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --target wasm32-unknown-unknown --lib
wasm-bindgen target/wasm32-unknown-unknown/release/relicview.wasm --target web --out-dir pkg --no-typescript
cargo build --release --locked --bin relicview
