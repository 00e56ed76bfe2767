#!/usr/bin/env bash
# Reproduces resources/screenshots/whatif.png: the real explorer under Xvfb (1600x1000, fresh
# session) on the embedded sample's resnet_001 with node 391 and configuration 0, the What-if tab
# raised, one input-layout edit chosen from its list and the output layout swept, all by xdotool
# clicks at this geometry's coordinates.
#   packaging/screenshot-whatif.sh [BUILD_DIR] [OUT.png]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/resources/screenshots/whatif.png}
FILE=$BUILD/resources/sample/npz/layout/xla/random/train/resnet_001.npz
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home
mkdir -p "$HOME"
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c "
    '$BUILD/app/tpugraphs-explorer' -qwindowgeometry 1600x1000+0+0 --node 391 --config 0 '$FILE' &
    pid=\$!
    sleep 7
    xdotool mousemove 146 653 click 1; sleep 2                      # the What-if tab
    xdotool mousemove 734 681 click 1; sleep 1                      # the input layout list
    xdotool key Down Down Down Return; sleep 2                      # a permutation three down
    xdotool mousemove 796 653 click 1; sleep 3                      # sweep the output layout
    import -window root '$WORK/shot.png'
    kill \$pid"
convert "$WORK/shot.png" -strip "$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
