#!/usr/bin/env bash
# Reproduces resources/screenshots/whatif.png: the explorer on the embedded sample's resnet_001
# with node 391 and configuration 0, the What-if tab raised, one input-layout edit chosen from its
# list and the output layout swept, all by xdotool clicks (packaging/explorer-shot.sh).
#   packaging/screenshot-whatif.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/whatif.png}
FILE=$BUILD/resources/sample/npz/layout/xla/random/train/resnet_001.npz
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$FILE" "
    xdotool mousemove 146 511 click 1; sleep 2   # the What-if tab
    xdotool mousemove 680 634 click 1; sleep 1   # the input layout list
    xdotool key Down Down Down Return; sleep 2   # a permutation three down
    xdotool mousemove 773 604 click 1; sleep 3   # sweep the output layout
" --node 391 --config 0
