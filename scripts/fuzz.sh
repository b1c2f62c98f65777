#!/usr/bin/env bash
# Fuzz every parser target for a while: scripts/fuzz.sh [SECONDS_PER_TARGET]
# Runs on the stable toolchain without a sanitizer (cargo-fuzz's ASan needs nightly);
# panics, hangs (-timeout) and runaway allocations (-rss_limit_mb) are still caught.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-300}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
for target in $(cargo fuzz list); do
  mkdir -p "corpus/$target"
  if [ "$target" = biz2 ] && [ -z "$(ls -A corpus/biz2)" ]; then
    # Seed with the demo archive, magic stripped (the target prepends it).
    seeds=$(mktemp -d)
    cargo run -q --manifest-path ../Cargo.toml -- demo "$seeds" >/dev/null
    i=0; for f in $(find "$seeds" -type f); do tail -c +9 "$f" > "corpus/biz2/demo$i"; i=$((i+1)); done
  fi
  cargo fuzz run --sanitizer none "$target" -- -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=1024 2>&1 | tail -n 3
done
