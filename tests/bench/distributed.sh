#!/usr/bin/env bash
# Data-parallel training (issue 15) on the real executable:
#   tests/bench/distributed.sh BUILD_DIR [EPOCHS] [REPEATS]
# On a fixed synthetic layout:xla:random set (24 train programs of 176-2,353 nodes, 1,000 configs
# each), trains for the same number of optimiser steps (global batch: 2 graphs) as
#   1 x 1: one process, 1 thread, 2 graphs per step (steps matched by size, as the workers' are)
#   2 x 1: `--world-size 2`, 1 thread each, 1 graph per worker per step
#   1 x 2: one process, 2 threads, 2 graphs per step
#   2 x 1 unmatched: the workers without size-matched steps (how much waiting for the slower costs)
# REPEATS times (default 3) in turn, since two processes on a shared machine vary from run to
# run, and prints one table of medians: wall time, training throughput (validation excluded),
# final validation Kendall, gradient all-reduce time per step (and its part once the last worker
# arrived: the exchange itself, without waiting for the slower); then the 2 x 1 / 1 x 1
# throughput ratio of each repeat and their median.
set -euo pipefail
build=$(cd "${1:?usage: distributed.sh BUILD_DIR [EPOCHS]}" && pwd)
epochs=${2:-2}
repeats=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tpg="$build/app/tpugraphs"
"$tpg" synth --out "$work/data" --seed 11 --layout-graphs 30 --tile-graphs 0 --configs 1000 \
    --min-nodes 200 --max-nodes 3000 --collections layout:xla:random --quiet
common=(train --data "$work/data" --collection layout:xla:random --minutes 0 --epochs "$epochs" --patience 1000
        --seed 3)

run() {  # name, then extra train arguments
    local name=$1
    shift
    local start end
    rm -f "$work/$name.tpgm" "$work/$name.tpgm.state"
    start=$(date +%s.%N)
    "$tpg" "${common[@]}" --out "$work/$name.tpgm" "$@" > "$work/$name.txt" 2> "$work/$name.err" ||
        { cat "$work/$name.err"; exit 1; }
    end=$(date +%s.%N)
    python3 - "$name" "$work/$name.txt" "$start" "$end" "$repeat" >> "$work/rows.txt" <<'PY'
import json, re, sys
name, text, start, end = sys.argv[1], open(sys.argv[2]).read(), float(sys.argv[3]), float(sys.argv[4])
repeat = int(sys.argv[5])
epochs = re.findall(r"^epoch +\d+(?:/\d+)?  loss .*?valid kendall ([\d.]+).*?([\d.]+) configs/s", text, re.M)
steps = re.search(r"after \d+ epochs?, ([\d,]+) steps?", text)
reduce = re.search(r"gradient all-reduce ([\d.]+) ms per step .*?: ([\d.]+) ms once the last worker arrived", text)
print(json.dumps({"name": name, "repeat": repeat, "wall": end - start, "kendall": float(epochs[-1][0]),
                  "configs_per_s": float(epochs[-1][1]), "steps": int(steps.group(1).replace(",", "")),
                  "reduce_ms": float(reduce.group(1)) if reduce else None,
                  "exchange_ms": float(reduce.group(2)) if reduce else None}))
PY
}

for ((repeat = 1; repeat <= repeats; ++repeat)); do
    run "1 x 1" --threads 1 --graphs-per-step 2 --size-matched-steps on
    run "2 x 1" --threads 1 --world-size 2
    run "1 x 2" --threads 2 --graphs-per-step 2 --size-matched-steps on
    run "2 x 1 unmatched" --threads 1 --world-size 2 --size-matched-steps off
done

python3 - "$work/rows.txt" "$epochs" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
names = list(dict.fromkeys(r["name"] for r in rows))
median = lambda name, key: statistics.median(r[key] for r in rows if r["name"] == name)
print("| workers x threads | optimiser steps | wall time | training configs/s | final valid Kendall | all-reduce per step "
      "| of it, once the last worker arrived |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name in names:
    some = next(r for r in rows if r["name"] == name)
    reduce, exchange = (("%.1f ms" % median(name, "reduce_ms"), "%.1f ms" % median(name, "exchange_ms"))
                        if some["reduce_ms"] is not None else ("-", "-"))
    print("| %s | %d | %.1f s | %.0f | %.4f | %s | %s |" % (name, some["steps"], median(name, "wall"),
                                                          median(name, "configs_per_s"), median(name, "kendall"),
                                                          reduce, exchange))
by = {(r["name"], r["repeat"]): r for r in rows}
repeats = sorted({r["repeat"] for r in rows})
ratios = [by["2 x 1", k]["configs_per_s"] / by["1 x 1", k]["configs_per_s"] for k in repeats]
walls = [by["1 x 1", k]["wall"] / by["2 x 1", k]["wall"] for k in repeats]
print()
print("%s epochs, medians of %d repeats. 2 x 1 vs 1 x 1 throughput per repeat: %s; median %.2fx (target 1.7x), "
      "wall time median %.2fx; Kendall %.4f vs %.4f"
      % (sys.argv[2], len(repeats), ", ".join("%.2fx" % r for r in ratios), statistics.median(ratios),
         statistics.median(walls), median("2 x 1", "kendall"), median("1 x 1", "kendall")))
PY
