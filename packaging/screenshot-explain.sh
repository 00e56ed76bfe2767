#!/usr/bin/env bash
# Reproduces resources/screenshots/explain.png: the explorer on the embedded sample's resnet_001
# with node 391 and configuration 0, the Explain tab raised and configuration 0 compared with the
# worst measured one; all by xdotool clicks (packaging/explorer-shot.sh).
#   packaging/screenshot-explain.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/explain.png}
FILE=$BUILD/resources/sample/npz/layout/xla/random/train/resnet_001.npz
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$FILE" "
    xdotool mousemove 215 511 click 1; sleep 2   # the Explain tab (it grows)
    xdotool mousemove 300 612 click 1; sleep 3   # compare with the worst measured configuration
" --node 391 --config 0
