#!/usr/bin/env bash
# Reproduces resources/screenshots/explorer.png: the real explorer window under Xvfb on the
# embedded sample (or, before the sample exists, a synthetic dataset written by bench_viz),
# with a configurable node selected and configuration 0 chosen.
#
#   packaging/screenshot.sh [BUILD_DIR] [OUT.png]      (defaults: build-gui, resources/screenshots/explorer.png)
#
# Needs xvfb-run, imagemagick (import, convert) and Debian's python3 with numpy.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-gui}
OUT=${2:-$ROOT/resources/screenshots/explorer.png}
EXE=$BUILD/app/tpugraphs-explorer
PY=/usr/bin/python3
WAIT_SECONDS=${WAIT_SECONDS:-8}
[ -x "$EXE" ] || { echo "no $EXE: build the tpugraphs-explorer target first" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SAMPLE=$BUILD/resources/sample
if ! find "$SAMPLE" -name '*.npz' 2>/dev/null | grep -q .; then
    SAMPLE=$WORK/sample
    "$BUILD/tests/bench/bench_viz" --write-dataset "$SAMPLE" >/dev/null
fi

# The layout graph that is best drawn whole (the largest one under the layout limit), and a
# configurable node in its middle.
read -r FILE NODE < <("$PY" - "$SAMPLE" <<'PYEOF'
import glob, sys, numpy as np
files = sorted(glob.glob(sys.argv[1] + "/**/layout/**/*.npz", recursive=True))
sizes = [(np.load(f)["node_opcode"].shape[0], f) for f in files]
fits = [s for s in sizes if s[0] <= 1200]
n, f = max(fits) if fits else min(sizes)
ids = np.load(f)["node_config_ids"].ravel()
print(f, int(ids[len(ids) // 2]) if len(ids) else 0)
PYEOF
)
echo "screenshot of $FILE, node $NODE"

export HOME=$WORK/home  # a fresh session: no saved window state or recent files
mkdir -p "$HOME"
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c "
    '$EXE' -qwindowgeometry 1600x1000+0+0 --node $NODE --config 0 '$FILE' &
    pid=\$!
    sleep $WAIT_SECONDS
    import -window root '$WORK/shot.png'
    kill \$pid"
mkdir -p "$(dirname "$OUT")"
convert "$WORK/shot.png" -strip "$OUT"
size=$(stat -c %s "$OUT")
echo "wrote $OUT ($size bytes)"
[ "$size" -lt 512000 ] || echo "warning: screenshot is over 500 KB" >&2
