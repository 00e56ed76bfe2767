#!/usr/bin/env bash
# `tpugraphs tune` against its baselines (issue 13), on the real executable:
#   tests/bench/tune.sh BUILD_DIR [SECONDS] [FILE...]
# Without files: the embedded sample's layout graphs with runtimes (random search, train and
# valid) and a fresh synthetic set (`synth --seed 99 --layout-graphs 10`, 500-5,000 nodes, both
# collections). Per graph, for the same wall clock (tune's search; its scoring of the file's own
# configurations first, which the explorer has done already when it opens a file, is not counted): the found
# configuration's synthetic-TPU runtime vs the file's best measured one, vs random search, vs
# greedy coordinate descent on the synthetic TPU alone (the oracle). Prints a markdown table and
# the shares that meet the targets (beats the best measured; within 5% of the oracle).
set -euo pipefail
build=$(cd "${1:?usage: tune.sh BUILD_DIR [SECONDS] [FILE...]}" && pwd)
seconds=${2:-10}
shift $(( $# >= 2 ? 2 : 1 ))
files=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ${#files[@]} -eq 0 ]; then
    "$build/app/tpugraphs" synth --out "$work/synth" --seed 99 --layout-graphs 10 --tile-graphs 0 \
        --min-nodes 500 --max-nodes 5000 > /dev/null
    mapfile -t files < <(find "$build/resources/sample/npz/layout" "$work/synth/npz/layout" -path '*/random/*' \
        \( -path '*/train/*' -o -path '*/valid/*' \) -name '*.npz' | sort)
fi
echo "| graph | nodes | best measured | tune | random | oracle greedy | tune vs best | tune vs oracle |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for f in "${files[@]}"; do
    "$build/app/tpugraphs" tune "$f" --budget-seconds "$seconds" --out "$work/tune.json" > "$work/tune.txt" 2>&1
    total=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tune']; print(t['seconds'])" "$work/tune.json")
    "$build/tests/bench/bench_tune" "$f" "$total" > "$work/base.json"
    python3 - "$f" "$work/tune.json" "$work/base.json" >> "$work/rows.txt" <<'PY'
import json, sys
f, tune, base = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
found = tune["configurations"][0]["synthetic_tpu_ns"]
print(json.dumps({"file": f, "nodes": base["nodes"], "best": base["best_file_ns"], "tune": found,
                  "random": base["random_ns"], "greedy": base["greedy_ns"]}))
PY
    python3 - "$work/rows.txt" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
name = "/".join(r["file"].split("/")[-5:])
pct = lambda a, b: "%+.1f%%" % (100 * (a / b - 1))
print("| %s | %d | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %s | %s |" % (name, r["nodes"], r["best"] / 1e6, r["tune"] / 1e6,
      r["random"] / 1e6, r["greedy"] / 1e6, pct(r["tune"], r["best"]), pct(r["tune"], r["greedy"])))
PY
done
python3 - "$work/rows.txt" "$seconds" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n = len(rows)
beats = sum(r["tune"] < r["best"] for r in rows)
near = sum(r["tune"] <= 1.05 * r["greedy"] for r in rows)
beats_random = sum(r["tune"] < r["random"] for r in rows)
print()
print("%d graphs, %s s budget: tune beats the best measured on %d (%.0f%%; target 80%%), is within 5%% of the oracle "
      "greedy on %d (%.0f%%), beats random search on %d" % (n, sys.argv[2], beats, 100 * beats / n, near, 100 * near / n, beats_random))
PY
