#!/usr/bin/env bash
# Reproduces resources/screenshots/suggest.png: the explorer on the embedded sample's resnet_001
# from configuration 0, the What-if tab's Suggest page, "Suggest faster configurations" clicked
# and its 30 s search finished, all by xdotool clicks (packaging/explorer-shot.sh).
#   packaging/screenshot-suggest.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/suggest.png}
FILE=$BUILD/resources/sample/npz/layout/xla/random/train/resnet_001.npz
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$FILE" "
    xdotool mousemove 146 511 click 1; sleep 2   # the What-if tab
    xdotool mousemove 826 625 click 1; sleep 1   # its Suggest page
    xdotool mousemove 765 648 click 1; sleep 34  # Suggest faster configurations (30 s budget)
" --config 0
