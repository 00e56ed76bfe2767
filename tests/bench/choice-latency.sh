#!/usr/bin/env bash
# What choosing a configuration costs the explorer's GUI thread, on the real executable under Xvfb:
#   tests/bench/choice-latency.sh BUILD_DIR [CHOICES] [ROUNDS] [FILE]
# Without FILE: a 44,941-node synthetic file (2,594 configurable nodes, 20,000 configurations;
# `synth --seed 5`, cached in /tmp/tpg-choice). The explorer opens it at 1600x1000 with a fresh
# session; a row of the Configurations table is clicked, then each round presses Down
# CHOICES times (default 10) half a second apart, between idle stretches as long. A round's figure
# is the GUI thread's on-CPU time (/proc/PID/task/PID/schedstat, ns) over its presses minus the mean
# of the idle stretches either side, per press: what a choice costs beyond the scoring's progress
# and repaints, which go on meanwhile (the file is still being scored). SHOT=PREFIX also saves
# screenshots before and after the rounds (PREFIX.start.png, PREFIX.end.png), to see what was chosen.
set -euo pipefail
build=$(cd "${1:?usage: choice-latency.sh BUILD_DIR [CHOICES] [ROUNDS] [FILE]}" && pwd)
choices=${2:-10}
rounds=${3:-5}
file=${4:-}
if [ -z "$file" ]; then
    cache=/tmp/tpg-choice
    if ! find "$cache/npz" -name '*.npz' 2> /dev/null | grep -q .; then
        "$build/app/tpugraphs" synth --out "$cache" --overwrite --seed 5 --layout-graphs 1 \
            --tile-graphs 0 --configs 20000 --min-nodes 45000 --max-nodes 45000 \
            --collections layout:xla:random --quiet
    fi
    file=$(find "$cache/npz" -name '*.npz' | head -1)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
cat > "$work/run.sh" <<'SH'
set -euo pipefail
build=$1 file=$2 choices=$3 rounds=$4 home=$5
gui_ns() { cut -d' ' -f1 "/proc/$pid/task/$pid/schedstat"; }
HOME=$home "$build/app/tpugraphs-explorer" -qwindowgeometry 1600x1000+0+0 "$file" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
xdotool search --sync --onlyvisible --pid "$pid" > /dev/null
sleep 8                                        # the file read and its table filled
xdotool mousemove 60 700 click 1; sleep 2      # a row of the Configurations table (raised on open)
[ -z "${SHOT:-}" ] || import -window root "$SHOT.start.png"
stretch=$(awk "BEGIN { print $choices * 0.5 }")
a=$(gui_ns); sleep "$stretch"; b=$(gui_ns)
for r in $(seq "$rounds"); do
    for _ in $(seq "$choices"); do xdotool key Down; sleep 0.5; done
    c=$(gui_ns); sleep "$stretch"; d=$(gui_ns)
    echo "$r $(( (c - b) - ((b - a) + (d - c)) / 2 ))"
    a=$c b=$d
done
[ -z "${SHOT:-}" ] || import -window root "$SHOT.end.png"
kill -0 "$pid"                                 # still running: no crash on the way
SH
xvfb-run -a -s "-screen 0 1600x1000x24" bash "$work/run.sh" "$build" "$file" "$choices" "$rounds" \
    "$work/home" > "$work/rounds.txt"
echo "file: $file"
python3 - "$work/rounds.txt" "$choices" <<'PY'
import statistics, sys
ms = [int(l.split()[1]) / 1e6 / int(sys.argv[2]) for l in open(sys.argv[1])]
for i, m in enumerate(ms, 1):
    print("round %d: %.1f ms of GUI-thread CPU a choice" % (i, m))
print("median %.1f ms, range %.1f-%.1f ms over %d rounds of %s choices"
      % (statistics.median(ms), min(ms), max(ms), len(ms), sys.argv[2]))
# A press that chooses nothing (the click missed the table) costs next to nothing.
if min(ms) < 2:
    sys.exit("choice-latency.sh: a round cost under 2 ms a press: were configurations chosen?")
PY
