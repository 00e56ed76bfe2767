#!/usr/bin/env bash
# Reproduces resources/screenshots/program.png: the Program view of a 44,473-node program
# (`tpugraphs synth --seed 5`, 40,000-45,000 nodes), which opens with its big computation open,
# and its first range of blocks opened by a double-click (packaging/explorer-shot.sh).
#   packaging/screenshot-program.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/program.png}
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
"$BUILD/app/tpugraphs" synth --out "$DATA" --seed 5 --layout-graphs 1 --tile-graphs 0 --configs 50 \
    --min-nodes 40000 --max-nodes 45000 --collections layout:xla:random --quiet
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$DATA/npz/layout/xla/random/train/resnet_000.npz" "
    sleep 3
    xdotool mousemove 759 103 click --repeat 2 --delay 80 1; sleep 3   # the first range of blocks
"
