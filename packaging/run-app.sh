#!/usr/bin/env bash
# Fresh Debian 12 -> the explorer running on the embedded sample: install, configure, build, launch.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/packaging/install-deps.sh"
build="${TPUGRAPHS_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --target tpugraphs-explorer sample
exec "$build/app/tpugraphs-explorer" "$@"
