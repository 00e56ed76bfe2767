#!/usr/bin/env bash
# Reproduces resources/screenshots/tile.png: the explorer on the embedded sample's tile kernel
# conv_fusion_002 with configuration 11 (an output tile two lanes wide), the Explain tab raised:
# its tiles drawn over the kernel's output; all by xdotool clicks (packaging/explorer-shot.sh).
#   packaging/screenshot-tile.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/tile.png}
FILE=$BUILD/resources/sample/npz/tile/xla/train/conv_fusion_002.npz
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$FILE" "
    xdotool mousemove 215 511 click 1; sleep 3   # the Explain tab
" --config 11
