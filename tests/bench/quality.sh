#!/usr/bin/env bash
# Ranking quality of the cost model against its baselines (issue 14), on the real executable:
#   tests/bench/quality.sh [--minutes M] [--build DIR] [--work DIR] [--collections LIST] [--jobs J]
#                          [--threads T] [--label TEXT] [--programs XLA[,NLP]] [--eval-only]
#                          [--seeds N[,N...]] [-- TRAIN_ARGS...]
# Generates a fixed synthetic dataset (seed 2024, 100-5,000 nodes, 1,000 configurations each) with
# as many programs per layout source as the real collections hold (--programs 80,240: layout:xla
# has 84 / 76 programs in its random / default search, layout:nlp 244 / 235; one number sets
# both sources; other counts need another --work folder) and 300 tile kernels, and a fresh-seed
# test set (seed 7777, 20 programs per source and 100 kernels, every split timed) that no choice
# is ever made on. Trains one model per collection with `tpugraphs train --minutes M
# --held-out-configs 0.2`, J trainings at a time (default 1, so each has the machine to itself
# as a lone `tpugraphs train` does), each with T = cores/J threads unless given; then
# prints one markdown table per collection:
#   layout: Kendall and OPA on the held-out valid graphs and on the fresh test graphs, GNN vs the
#           graph-blind linear baseline; Kendall on the held-out 20% of the train graphs' configs,
#           GNN vs the per-graph linear model fitted on the other 80%.
#   tile:   top-1 / top-5 slowdown and score (1 - top-5 slowdown), the same three comparisons.
# Each row also shows the ceiling: the synthetic TPU's own noise-free runtime ranking the measured
# (noisy) runtimes, the best any model can do on these files.
# The dataset, the baselines' figures and every run's model and logs stay in the work folder
# (default: /tmp/tpg-quality), so later runs with other TRAIN_ARGS reuse them (not when another
# synth made them: tests/bench/synth-fingerprint.sh); --eval-only re-evaluates
# the models a run with the same label already trained. Runs with different labels may share the folder
# at the same time.
# --seeds 1,2,3 runs the whole benchmark once per training seed (labels LABEL-s1, LABEL-s2, ...; each
# adds `--seed N` to TRAIN_ARGS), prints each run's table, then one summary (quality-report.py): per
# collection and split, the GNN's figure (layout Kendall, tile top-5 slowdown) and its lead over the
# baseline as mean, min and max over the seeds, and on how many seeds each target of issue 14 is met.
# One seed's figure is one draw: single runs of the same settings differ by a few thousandths.
set -euo pipefail
minutes=10
build=build
work=/tmp/tpg-quality
collections=layout:xla:random,layout:xla:default,layout:nlp:random,layout:nlp:default,tile:xla
jobs=1
label=default
programs=80,240
threads=
eval_only=0
seeds=
passed=()  # the options a run per seed passes on (all but --label and --seeds)
while [ $# -gt 0 ]; do
    case $1 in
        --minutes) minutes=$2; passed+=("$1" "$2"); shift 2 ;;
        --build) build=$2; passed+=("$1" "$2"); shift 2 ;;
        --work) work=$2; passed+=("$1" "$2"); shift 2 ;;
        --collections) collections=$2; passed+=("$1" "$2"); shift 2 ;;
        --jobs) jobs=$2; passed+=("$1" "$2"); shift 2 ;;
        --label) label=$2; shift 2 ;;
        --threads) threads=$2; passed+=("$1" "$2"); shift 2 ;;
        --programs) programs=$2; passed+=("$1" "$2"); shift 2 ;;
        --eval-only) eval_only=1; passed+=("$1"); shift ;;
        --seeds) seeds=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "quality.sh: unknown argument '$1' (see the comment at the top)" >&2; exit 2 ;;
    esac
done
train_args=("$@")
report=$(dirname "$0")/quality-report.py
# Scored as eval scores by default: configs of one program share a score (`eval --program-ties`),
# the baselines too; figures cached before that rule (in baselines/) are not reused. Held-out
# configurations go with their duplicates since 2026-11-26 (nn::heldOutConfigs): the seen-graph
# figures are *.heldout.txt, those of the rule before (*.seen.txt) are not reused.
base=$work/baselines-program-ties
run_of() { echo "$work/runs/$1"; }  # a run's folder, from its label
if [ -n "$seeds" ]; then
    fail() { echo "quality.sh: $1" >&2; exit 2; }
    [[ $seeds =~ ^[0-9]+(,[0-9]+)*$ ]] || fail "--seeds wants numbers separated by commas, not '$seeds'"
    for a in "${train_args[@]}"; do
        [ "$a" != --seed ] || fail "--seeds sets each run's --seed; leave it out of TRAIN_ARGS"
    done
    IFS=, read -r -a seed_list <<< "$seeds"
    seed_runs=()
    for n in "${seed_list[@]}"; do
        bash "$0" "${passed[@]}" --label "$label-s$n" -- "${train_args[@]}" --seed "$n"
        seed_runs+=("$(run_of "$label-s$n")")
        echo
    done
    exec /usr/bin/python3 "$report" summary "$base" "$label" "$seeds" "$collections" "${seed_runs[@]}"
fi
tpg=$(cd "$build" && pwd)/app/tpugraphs
[ -x "$tpg" ] || { echo "quality.sh: $tpg not built" >&2; exit 1; }
[ -n "$threads" ] || threads=$(( $(nproc) / jobs )); [ "$threads" -ge 1 ] || threads=1
mkdir -p "$work"
data=$work/data fresh=$work/fresh-seed tree=$work/fresh-tree
run=$(run_of "$label")
mkdir -p "$run"

IFS=, read -r xla_programs nlp_programs <<< "$programs"
nlp_programs=${nlp_programs:-$xla_programs}
if [ ! -d "$data/npz" ]; then
    "$(dirname "$0")/training-data.sh" "$tpg" "$data" "$xla_programs" "$nlp_programs"
fi
"$(dirname "$0")/synth-fingerprint.sh" "$tpg" --check "$data" || exit 2
# A folder's data keeps the program counts it was made with (a source's three splits together).
for source in xla nlp; do
    dir=$data/npz/layout/$source/random
    want=${xla_programs}; [ "$source" = nlp ] && want=${nlp_programs}
    held=$(find "$dir" -name '*.npz' | wc -l)
    [ "$held" = "$want" ] || {
        echo "quality.sh: $dir holds $held programs, not $want (--programs $programs): use another --work folder" >&2
        exit 2
    }
done
if [ ! -d "$fresh/npz" ]; then
    "$tpg" synth --out "$fresh" --seed 7777 --layout-graphs 20 --tile-graphs 100 --configs 1000 \
        --min-nodes 100 --max-nodes 5000 --test-runtimes --quiet
    "$(dirname "$0")/synth-fingerprint.sh" "$tpg" --stamp "$fresh"
fi
"$(dirname "$0")/synth-fingerprint.sh" "$tpg" --check "$fresh" || exit 2
if [ ! -d "$tree/npz" ]; then
    # The fresh graphs become the test split of a tree whose train split is the benchmark's, so the
    # graph-blind baseline is fitted on the same graphs as the GNN.
    for dir in "$data"/npz/*/*/train "$data"/npz/layout/*/*/train; do
        [ -d "$dir" ] || continue
        rel=${dir#"$data"/npz/}
        coll=${rel%/train}
        mkdir -p "$tree/npz/$coll/test" "$tree/npz/$coll/train"
        ln -sf "$dir"/*.npz "$tree/npz/$coll/train/"
        for f in "$fresh/npz/$coll"/*/*.npz; do
            split=$(basename "$(dirname "$f")")
            ln -sf "$f" "$tree/npz/$coll/test/${split}_$(basename "$f")"
        done
    done
fi

slug() { echo "${1//:/_}"; }
# Runs "$@" with at most $jobs at a time.
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done; "$@" & }

IFS=, read -r -a colls <<< "$collections"
if [ "$eval_only" = 0 ]; then
    echo "quality.sh: training ${#colls[@]} collections, $minutes min each, $jobs at a time x $threads threads (${train_args[*]:-defaults})" >&2
    start=$(date +%s)
    for c in "${colls[@]}"; do
        s=$(slug "$c")
        rm -f "$run/$s".{valid,fresh,heldout}.txt  # the new model's figures
        throttle "$tpg" train --data "$data" --collection "$c" --out "$run/$s.tpgm" --minutes "$minutes" \
            --threads "$threads" --held-out-configs 0.2 --log "$run/$s.train.jsonl" "${train_args[@]}" \
            > "$run/$s.train.txt" 2>&1
    done
    wait
    echo "quality.sh: trained in $(( $(date +%s) - start )) s" >&2
fi

# eval OUT ARGS...: the mean line of one evaluation (cached: baselines do not depend on the run).
evaluate() {
    local out=$1; shift
    [ -s "$out" ] && return 0
    local tmp
    tmp=$(mktemp "$out.XXXXXX")  # concurrent runs may compute the same baseline
    "$tpg" eval --threads "$threads" "$@" > "$tmp" 2>&1 || { cat "$tmp" >&2; rm -f "$tmp"; return 1; }
    mv "$tmp" "$out"
}
mkdir -p "$base"
for c in "${colls[@]}"; do
    s=$(slug "$c")
    m=$run/$s.tpgm
    throttle evaluate "$run/$s.valid.txt" --model "$m" --data "$data" --collection "$c" --split valid
    throttle evaluate "$run/$s.fresh.txt" --model "$m" --data "$tree" --collection "$c" --split test
    throttle evaluate "$run/$s.heldout.txt" --model "$m" --data "$data" --collection "$c" --split train \
        --held-out-configs 0.2
    throttle evaluate "$base/$s.valid.txt" --baseline graph-blind --data "$data" --collection "$c" --split valid
    throttle evaluate "$base/$s.fresh.txt" --baseline graph-blind --data "$tree" --collection "$c" --split test
    throttle evaluate "$base/$s.heldout.txt" --baseline per-graph-linear --data "$data" --collection "$c" \
        --split train --held-out-configs 0.2
    throttle evaluate "$base/$s.valid.ceiling.txt" --baseline synthetic-tpu --data "$data" --collection "$c" --split valid
    throttle evaluate "$base/$s.fresh.ceiling.txt" --baseline synthetic-tpu --data "$tree" --collection "$c" --split test
    throttle evaluate "$base/$s.heldout.ceiling.txt" --baseline synthetic-tpu --data "$data" --collection "$c" \
        --split train --held-out-configs 0.2
done
wait

/usr/bin/python3 "$report" table "$run" "$base" "$minutes" "$label" "${train_args[*]:-}" \
    "$programs" "${colls[@]}"
