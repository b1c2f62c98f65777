#!/usr/bin/env bash
# Installs what a fresh machine lacks. Usage: scripts/setup.sh [--tests]
#   always (what viewing needs: ./run.sh): the wasm32 target, the wasm-bindgen CLI pinned in
#     Cargo.lock, and esbuild (package.json), which bundles the page (scripts/site.mjs)
#   --tests (./test.sh, scripts/bench.sh): the tools the tests make their containers with
#     (xorriso, bchunk, chdman, 7-Zip and its SFX module, Info-ZIP's zip, zstd, python-zstandard),
#     the readers ours are compared with (ImageMagick), Debian's nginx, Chromium,
#     Blender and ffmpeg, and the npm packages of the browser tests. Debian's packages come
#     through scripts/apt.sh, which waits while another program holds apt's locks.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "setup: $*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# ./test.sh checks the formatting and clippy's lints.
for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    log "adding the $component component"
    rustup component add "$component"
  fi
done

# The CLI must match the wasm-bindgen crate exactly, or it refuses the module.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
if [ -z "$want" ]; then echo "setup: no wasm-bindgen version in Cargo.lock" >&2; exit 1; fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
bindgen_install=""
if [ "$have" != "$want" ]; then
  log "installing wasm-bindgen-cli $want (two minutes of compiling, once, beside the rest of the set-up)"
  # It compiles while the rest downloads and installs (npm's and Debian's packages), its
  # output kept for a failure. Only the wasm-bindgen program, without the TLS its test
  # runner downloads browsers with (ring's C and rustls: a tenth of the compiling). Not
  # --locked: its lockfile names a crate version this registry does not serve.
  bindgen_log=$(mktemp)
  cargo install wasm-bindgen-cli --version "$want" --bin wasm-bindgen --no-default-features >"$bindgen_log" 2>&1 &
  bindgen_install=$!
  # (set -e holds inside the trap: a kill of an install already ended must not fail the set-up.)
  trap 'kill "$bindgen_install" 2>/dev/null || true; rm -f "$bindgen_log"' EXIT
fi

# The page's bundler (scripts/site.mjs), formatter and linter, from the npm registry as
# package-lock.json pins them.
if [ ! -x node_modules/.bin/esbuild ] || [ ! -x node_modules/.bin/biome ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing the page's build tools (esbuild, Prettier, Biome)"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ "${1:-}" = "--tests" ]; then
  # Debian's packages the tests need, gathered, then installed in one go by scripts/apt.sh,
  # which waits while another program holds apt's locks (a new machine's own updates).
  debian=()
  # (Chromium with its recommended fonts and codecs, as it was always installed here.)
  with_recommends=()
  # The container tests build their ZIPs, ISOs, raw rips and CHDs with real tools (Python's
  # zipfile, 7-Zip, Info-ZIP's zip, xorriso, bchunk, MAME's chdman), not with ours, and
  # Zstandard frames with python-zstandard and the zstd tool; p7zip-full for 7-Zip's
  # self-extracting module (/usr/lib/p7zip/7zCon.sfx).
  if ! command -v xorriso >/dev/null || ! command -v bchunk >/dev/null || ! command -v chdman >/dev/null || ! command -v 7zz >/dev/null || ! command -v zip >/dev/null || ! command -v zstd >/dev/null || [ ! -e /usr/lib/p7zip/7zCon.sfx ]; then
    log "xorriso, bchunk, chdman (mame-tools), 7-Zip and its SFX module, Info-ZIP's zip and zstd are needed"
    debian+=(xorriso bchunk mame-tools 7zip p7zip-full zip zstd)
  fi
  # The memory tests read a command's peak from the kernel through GNU time (tests/cli.rs).
  if [ ! -x /usr/bin/time ]; then
    log "GNU time is needed"
    debian+=(time)
  fi
  # PlayStation pictures are checked against ImageMagick's own TIM reader.
  if ! command -v convert-im6.q16 >/dev/null; then
    log "ImageMagick is needed"
    debian+=(imagemagick-6.q16)
  fi
  # The static host of the publishing tests and the cold-link benchmark
  # (tests/e2e/publish.test.mjs, tests/bench/cold-link.mjs): Debian's nginx, started by the
  # tests on loopback with a config of their own, with its module that sends a file's .br
  # beside it (docs/publishing.md).
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ] || [ ! -e /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ]; then
    log "Debian's nginx-light and its brotli_static module are needed"
    debian+=(nginx-light libnginx-mod-http-brotli-static)
  fi
  if [ ! -x /usr/bin/chromium ]; then
    log "Debian's chromium is needed"
    with_recommends+=(chromium)
  fi
  # The exports' real client: Debian's Blender, run headless by tests/e2e/blender.test.mjs,
  # with Debian's numpy (its glTF importer needs it).
  if ! command -v blender >/dev/null || ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    log "Debian's blender and python3-numpy are needed"
    debian+=(blender python3-numpy)
  fi
  # The captures' real client: Debian's ffprobe (ffmpeg) reads the WebM videos the page
  # records (tests/e2e/capture.test.mjs).
  if ! command -v ffprobe >/dev/null; then
    log "Debian's ffmpeg (ffprobe) is needed"
    debian+=(ffmpeg)
  fi
  if [ ${#debian[@]} -gt 0 ]; then
    log "installing ${debian[*]}"
    scripts/apt.sh install --no-install-recommends "${debian[@]}"
  fi
  if [ ${#with_recommends[@]} -gt 0 ]; then
    log "installing ${with_recommends[*]}"
    scripts/apt.sh install "${with_recommends[@]}"
  fi
  if ! python3 -c 'import zstandard' 2>/dev/null; then
    log "installing python-zstandard"
    python3 -m pip install -q 'zstandard==0.23.0'
  fi
  if [ ! -d tests/e2e/node_modules/playwright-core ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]; then
    log "installing the browser tests' npm packages"
    (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

if [ -n "$bindgen_install" ]; then
  if ! wait "$bindgen_install"; then
    cat "$bindgen_log" >&2
    echo "setup: installing wasm-bindgen-cli $want failed (its output above)" >&2
    exit 1
  fi
  log "wasm-bindgen-cli $want installed"
fi
