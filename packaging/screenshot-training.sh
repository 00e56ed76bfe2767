#!/usr/bin/env bash
# Reproduces resources/screenshots/training.png: the explorer on the embedded sample's resnet_001,
# the Training tab raised (it grows), "This file only" chosen (20% of the configurations held out,
# so the held-out Kendall shows beside the built-in model's) and a run started with the default
# settings, shot live about 14 s in; all by xdotool clicks (packaging/explorer-shot.sh).
#   packaging/screenshot-training.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/training.png}
FILE=$BUILD/resources/sample/npz/layout/xla/random/train/resnet_001.npz
bash "$ROOT/packaging/explorer-shot.sh" "$BUILD" "$OUT" "$FILE" "
    xdotool mousemove 285 511 click 1; sleep 2   # the Training tab
    xdotool mousemove 22 808 click 1; sleep 1    # This file only
    xdotool mousemove 69 560 click 1; sleep 14   # Start
"
