#!/usr/bin/env bash
# Reproduces resources/screenshots/lesson.png: Help › Learn on the embedded sample's resnet_001, the
# lesson's Show me / Next clicked through to step 3 (the copy the compiler inserts, on the graph and
# in the Explain tab); all by xdotool clicks (packaging/explorer-shot.sh).
#   packaging/screenshot-lesson.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/lesson.png}
FILE=$BUILD/resources/sample/npz/layout/xla/default/train/resnet_001.npz
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$FILE" "
    xdotool mousemove 189 8 click 1; sleep 1; xdotool mousemove 300 29 click 1; sleep 6  # Help › Learn
    xdotool mousemove 321 445 click 1; sleep 3   # 1: Show me selects the convolution
    xdotool mousemove 408 445 click 1; sleep 2   # Next (the What-if tab grows)
    xdotool mousemove 321 419 click 1; sleep 3   # 2: Show me changes its output layout
    xdotool mousemove 408 419 click 1; sleep 4   # Next: 3, watch the copy
"
