#!/usr/bin/env bash
# Runs the viewer: ./run.sh [ARCHIVE_DIR] [--port N]
# Installs what is missing, builds, writes the demo archive when no folder is given, serves.
set -euo pipefail
cd "$(dirname "$0")"
archive=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port|--bind) args+=("$1" "$2"); shift 2 ;;
    *) archive="$1"; shift ;;
  esac
done
scripts/setup.sh
scripts/build.sh
if [ -z "$archive" ]; then
  archive=demo-archive
  rm -rf "$archive"
  target/release/relicview demo "$archive" >/dev/null
  echo "run.sh: wrote the demo archive to $archive/"
fi
exec target/release/relicview serve "$archive" --site site "${args[@]}"
