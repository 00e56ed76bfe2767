#!/usr/bin/env bash
# What choosing a configuration, or editing one in What-if, costs the explorer's GUI thread, on the
# real executable under Xvfb:
#   tests/bench/gui-latency.sh BUILD_DIR choice|edit [PRESSES] [ROUNDS] [FILE]
# Without FILE: a 44,941-node synthetic file (2,594 configurable nodes, 20,000 configurations;
# `synth --seed 5`, cached in /tmp/tpg-choice). The explorer opens it at 1600x1000 with a fresh
# session and a row of the Configurations table is clicked (the configuration chosen). choice: each
# round presses Down PRESSES times (default 10) in the table. edit: the What-if tab is raised, the
# first node of its list clicked and its output layout's box focused; each round presses Down and
# Up in turn PRESSES times, each press an edit (its layout the next in the box, then back), scored
# at once. Presses are half a second apart, between idle stretches as long. A round's figure is the
# GUI thread's on-CPU time (/proc/PID/task/PID/schedstat, ns) over its presses minus the mean of the
# idle stretches either side, per press: what a press costs beyond the file's scoring, whose
# progress and repaints go on meanwhile. SHOT=PREFIX also saves screenshots before and after the
# rounds (PREFIX.start.png, PREFIX.end.png), to see what was chosen or edited.
set -euo pipefail
usage="usage: gui-latency.sh BUILD_DIR choice|edit [PRESSES] [ROUNDS] [FILE]"
build=$(cd "${1:?$usage}" && pwd)
mode=${2:?$usage}
[ "$mode" = choice ] || [ "$mode" = edit ] || { echo "$usage" >&2; exit 2; }
presses=${3:-10}
rounds=${4:-5}
file=${5:-}
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
build=$1 mode=$2 file=$3 presses=$4 rounds=$5 home=$6
gui_ns() { cut -d' ' -f1 "/proc/$pid/task/$pid/schedstat"; }
HOME=$home "$build/app/tpugraphs-explorer" -qwindowgeometry 1600x1000+0+0 "$file" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
xdotool search --sync --onlyvisible --pid "$pid" > /dev/null
sleep 8                                        # the file read and its table filled
xdotool mousemove 60 700 click 1; sleep 2      # a row of the Configurations table (raised on open)
keys=(Down)
if [ "$mode" = edit ]; then
    xdotool mousemove 146 511 click 1; sleep 3   # the What-if tab
    xdotool mousemove 46 575 click 1; sleep 2    # the first node of its list
    xdotool mousemove 681 604 click 1; sleep 1   # its output layout's box, opened ...
    xdotool key Escape; sleep 1                  # ... and closed, keeping the focus
    keys=(Down Up)
fi
[ -z "${SHOT:-}" ] || import -window root "$SHOT.start.png"
stretch=$(awk "BEGIN { print $presses * 0.5 }")
a=$(gui_ns); sleep "$stretch"; b=$(gui_ns)
for r in $(seq "$rounds"); do
    for i in $(seq "$presses"); do xdotool key "${keys[$(( (i - 1) % ${#keys[@]} ))]}"; sleep 0.5; done
    c=$(gui_ns); sleep "$stretch"; d=$(gui_ns)
    echo "$r $(( (c - b) - ((b - a) + (d - c)) / 2 ))"
    a=$c b=$d
done
[ -z "${SHOT:-}" ] || import -window root "$SHOT.end.png"
kill -0 "$pid"                                 # still running: no crash on the way
SH
xvfb-run -a -s "-screen 0 1600x1000x24" bash "$work/run.sh" "$build" "$mode" "$file" "$presses" \
    "$rounds" "$work/home" > "$work/rounds.txt"
echo "file: $file"
python3 - "$work/rounds.txt" "$presses" "$mode" <<'PY'
import statistics, sys
mode = sys.argv[3]
ms = [int(l.split()[1]) / 1e6 / int(sys.argv[2]) for l in open(sys.argv[1])]
for i, m in enumerate(ms, 1):
    print("round %d: %.1f ms of GUI-thread CPU a%s %s" % (i, m, "n" if mode == "edit" else "", mode))
print("median %.1f ms, range %.1f-%.1f ms over %d rounds of %s presses"
      % (statistics.median(ms), min(ms), max(ms), len(ms), sys.argv[2]))
# A press that chooses or edits nothing (a click missed its target) costs next to nothing.
if min(ms) < 2:
    sys.exit("gui-latency.sh: a round cost under 2 ms a press: was anything %s?"
             % ("chosen" if mode == "choice" else "edited"))
PY
