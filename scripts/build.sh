#!/usr/bin/env bash
# Builds the page's wasm modules into pkg/, the site the servers and publish hand out into
# site/ (scripts/site.mjs), and the native CLI into target/release/relicview.
# Usage: scripts/build.sh [--test-build]
#   --test-build: the core with the test-only fault trigger (feature test-trap), which the
#   browser tests use to prove the page recovers from a trapped core, and no release CLI:
#   ./test.sh runs the test build's (target/debug/relicview, which its cargo test built;
#   the release one was five of CI's minutes). The three modules are built in one profile,
#   the core's (for size, fat LTO), so that the dependencies they share compile once: the
#   same code, the modules loaded when first used a few percent slower (they ship built for
#   speed); 111 s alone against 180 s for the two profiles. The core, whose size and speed
#   the tests and benchmarks see, is built as it ships. ./run.sh builds without it.
set -euo pipefail
cd "$(dirname "$0")/.."
release_cli=1
# The page's three wasm modules: the core (this crate: what viewing a file needs, the page's
# first download), built for size (the wasm profile), and the modules loaded when first used,
# containers and tools (crates/web-containers, crates/web-tools), built for speed
# (wasm-speed; Cargo.toml says why).
speed=wasm-speed
if [ "${1:-}" = "--test-build" ]; then
  release_cli=""
  speed=wasm
  cargo build --profile wasm --locked --target wasm32-unknown-unknown --lib -p relicview -p relicview-web-containers -p relicview-web-tools --features relicview/test-trap
else
  cargo build --profile wasm --locked --target wasm32-unknown-unknown --lib -p relicview
  cargo build --profile wasm-speed --locked --target wasm32-unknown-unknown --lib -p relicview-web-containers -p relicview-web-tools
fi
mkdir -p pkg target/wasm-names
for module in wasm/relicview:relicview "$speed/relicview_web_containers:relicview_containers" "$speed/relicview_web_tools:relicview_tools"; do
  crate=target/wasm32-unknown-unknown/${module%%:*}
  name=${module##*:}
  # The functions' names are kept beside the build (target/wasm-names/, for reading a trace
  # from the page: scripts/wasm-names.mjs) and not shipped: they were an eighth of the core.
  wasm-bindgen "$crate.wasm" --target web --out-dir target/wasm-names --out-name "$name"
  wasm-bindgen "$crate.wasm" --target web --out-dir pkg --out-name "$name" --remove-name-section --remove-producers-section
done
node scripts/site.mjs
if [ -n "$release_cli" ]; then cargo build --release --locked --bin relicview; fi
