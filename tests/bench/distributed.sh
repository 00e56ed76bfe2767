#!/usr/bin/env bash
# Data-parallel training (issue 15) on the real executable:
#   tests/bench/distributed.sh BUILD_DIR [EPOCHS]
# On a fixed synthetic layout:xla:random set (24 train programs of 176-2,353 nodes, 1,000 configs
# each), trains for the same number of optimiser steps (global batch: 2 graphs) as
#   1 x 1: one process, 1 thread, 2 graphs per step (steps matched by size, as the workers' are)
#   2 x 1: `--world-size 2`, 1 thread each, 1 graph per worker per step
#   1 x 2: one process, 2 threads, 2 graphs per step
#   2 x 1 unmatched: the workers without size-matched steps (how much waiting for the slower costs)
# and prints one table: wall time, training throughput (validation excluded), final validation
# Kendall, gradient all-reduce time per step; then the 2 x 1 / 1 x 1 throughput ratio.
set -euo pipefail
build=$(cd "${1:?usage: distributed.sh BUILD_DIR [EPOCHS]}" && pwd)
epochs=${2:-2}
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
    start=$(date +%s.%N)
    "$tpg" "${common[@]}" --out "$work/$name.tpgm" "$@" > "$work/$name.txt" 2> "$work/$name.err" ||
        { cat "$work/$name.err"; exit 1; }
    end=$(date +%s.%N)
    python3 - "$name" "$work/$name.txt" "$start" "$end" >> "$work/rows.txt" <<'PY'
import json, re, sys
name, text, start, end = sys.argv[1], open(sys.argv[2]).read(), float(sys.argv[3]), float(sys.argv[4])
epochs = re.findall(r"^epoch +\d+(?:/\d+)?  loss .*?valid kendall ([\d.]+).*?([\d.]+) configs/s", text, re.M)
steps = re.search(r"after \d+ epochs, (\d+) steps", text)
reduce = re.search(r"gradient all-reduce ([\d.]+) ms per step", text)
print(json.dumps({"name": name, "wall": end - start, "kendall": float(epochs[-1][0]),
                  "configs_per_s": float(epochs[-1][1]), "steps": int(steps.group(1)),
                  "reduce_ms": float(reduce.group(1)) if reduce else None}))
PY
}

run "1 x 1" --threads 1 --graphs-per-step 2 --size-matched-steps on
run "2 x 1" --threads 1 --world-size 2
run "1 x 2" --threads 2 --graphs-per-step 2 --size-matched-steps on
run "2 x 1 unmatched" --threads 1 --world-size 2 --size-matched-steps off

python3 - "$work/rows.txt" "$epochs" <<'PY'
import json, sys
rows = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
print("| workers x threads | optimiser steps | wall time | training configs/s | final valid Kendall | all-reduce per step |")
print("|---|---:|---:|---:|---:|---:|")
for r in rows.values():
    reduce = "%.1f ms" % r["reduce_ms"] if r["reduce_ms"] is not None else "-"
    print("| %s | %d | %.1f s | %.0f | %.4f | %s |" % (r["name"], r["steps"], r["wall"], r["configs_per_s"],
                                                     r["kendall"], reduce))
one, two = rows["1 x 1"], rows["2 x 1"]
print()
print("%s epochs: 2 x 1 vs 1 x 1 throughput %.2fx (target 1.7x), wall time %.2fx; Kendall %.4f vs %.4f"
      % (sys.argv[2], two["configs_per_s"] / one["configs_per_s"], one["wall"] / two["wall"], two["kendall"],
         one["kendall"]))
PY
