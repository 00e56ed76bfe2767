#!/usr/bin/env bash
# One screenshot of the real explorer under Xvfb (1600x1000, fresh session: no saved window state),
# opened on FILE with EXTRA_ARGS, after STEPS (shell lines of xdotool and sleep, at this geometry's
# coordinates) have run. The screenshot-*.sh scripts call it with their steps.
#   packaging/explorer-shot.sh BUILD_DIR OUT.png FILE 'STEPS' [EXTRA_ARGS...]
set -euo pipefail
BUILD=$1 OUT=$2 FILE=$3 STEPS=$4
shift 4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home
mkdir -p "$HOME"
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c "
    '$BUILD/app/tpugraphs-explorer' -qwindowgeometry 1600x1000+0+0 $* '$FILE' &
    pid=\$!
    sleep 7
    $STEPS
    import -window root '$WORK/shot.png'
    kill \$pid"
mkdir -p "$(dirname "$OUT")"
convert "$WORK/shot.png" -strip "$OUT"
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
