#!/usr/bin/env bash
# Reproduces resources/screenshots/training.png: the real explorer under Xvfb (1600x1000, fresh
# session) on the embedded sample's resnet_001, the Training tab raised and a run started on the
# file's measured configurations with the default settings, shot live about 14 s in; all by xdotool
# clicks at this geometry's coordinates. The run trains on this file only (20% of its configurations
# held out), so the held-out Kendall is shown beside the built-in model's.
#   packaging/screenshot-training.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/training.png}
FILE=$BUILD/resources/sample/npz/layout/xla/random/train/resnet_001.npz
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home
mkdir -p "$HOME"
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c "
    '$BUILD/app/tpugraphs-explorer' -qwindowgeometry 1600x1000+0+0 '$FILE' &
    pid=\$!
    sleep 7
    xdotool mousemove 216 607 click 1; sleep 2                      # the Training tab (it grows)
    xdotool mousemove 22 742 click 1; sleep 1                       # This file only
    xdotool mousemove 61 510 click 1; sleep 14                      # Start
    import -window root '$WORK/shot.png'
    kill \$pid"
convert "$WORK/shot.png" -strip "$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
