#!/usr/bin/env bash
# Reproduces the cost models embedded in the binaries (resources/models/*.tpgm) with the settings
# tests/bench/quality.sh measured best (the README's model quality table):
#   data:   the quality benchmark's training set (tests/bench/training-data.sh: `tpugraphs synth
#           --seed 2024`, 80 xla and 240 nlp programs, 300 tile kernels, 1,000 configurations
#           each; train and valid splits only: its test split and the benchmark's fresh-seed set
#           are never used). Every configuration is trained on (the benchmark holds 20% out).
#   layout: one model per collection with training's layout defaults (48 wide, 2 layers, slot
#           features, the node-cost readout alone, the pairwise logistic loss at temperature
#           0.01), as many optimiser steps as the benchmark's
#           10-minute runs took (its epochs held 80% of the configurations, these all of them):
#           xla:random 10 epochs, xla:default 54, nlp:random 4, nlp:default 18 (76 minutes in
#           all on a 2-core machine);
#           and one model over all four (for a layout file outside the dataset tree, whose
#           collection is unknown): with the pooled head, two epochs (for two epochs better than
#           without it, README).
#   tile:   the tile:xla model with bounds, spill and traffic features, 64 wide and 3 layers deep
#           and the pairwise hinge (tile's defaults), six epochs.
# Epochs, not minutes, so the result does not depend on the machine's speed; settings pinned, so
# the recipe outlives a change of training's defaults; fixed seeds, one thread per training (two
# trainings at a time) and float products (bfloat16 ones would make the result depend on whether
# the CPU has bfloat16 units). Re-run cmake afterwards (the build embeds the files at configure time).
#   packaging/train-default-models.sh [BUILD_DIR [DATA_DIR [MODEL...]]]
# BUILD_DIR defaults to build; DATA_DIR, when given, holds (or receives) the training data, e.g. a
# quality.sh work folder's data/ (refused when another synth made it: synth-fingerprint.sh); MODELs
# (e.g. tile_xla.tpgm) retrain those alone, the rest kept.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
TPG=$BUILD/app/tpugraphs
[ -x "$TPG" ] || { echo "train-default-models: $TPG not built (cmake --build $BUILD --target tpugraphs)" >&2; exit 1; }
only=("${@:3}")
for m in "${only[@]}"; do
    [[ $m == *.tpgm && $m != */* && -f $SRC/resources/models/$m ]] ||
        { echo "train-default-models: no built-in model '$m' (see resources/models/)" >&2; exit 2; }
done
if [ -n "${2:-}" ]; then
    DATA=$2
else
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    DATA=$TMP/data
fi
[ -d "$DATA/npz" ] || "$SRC/tests/bench/training-data.sh" "$TPG" "$DATA" 80 240
"$SRC/tests/bench/synth-fingerprint.sh" "$TPG" --check "$DATA" || exit 2
OUT=$SRC/resources/models
mkdir -p "$OUT"
common=(--minutes 0 --seed 1 --threads 1 --products float --slot-features on)
layout=(--hidden 48 --layers 2 --node-cost-readout on --pooled-head off --loss logistic --temperature 0.01
        "${common[@]}")
train() {  # file, collection, epochs, settings...
    local file=$1 collection=$2 epochs=$3
    shift 3
    [ ${#only[@]} = 0 ] || [[ " ${only[*]} " == *" $file "* ]] || return 0
    "$TPG" train --data "$DATA" --collection "$collection" --out "$OUT/$file" --epochs "$epochs" \
        --patience "$epochs" "$@" > "$OUT/$file.log" 2>&1 || { cat "$OUT/$file.log" >&2; return 1; }
    echo "$file: $(tr '\r' '\n' < "$OUT/$file.log" | tail -n 1)"
}
# Two lanes of about equal length, one thread each.
(
    train layout_nlp_default.tpgm layout:nlp:default 18 "${layout[@]}"
    train layout_xla_random.tpgm layout:xla:random 10 "${layout[@]}"
    train layout_all.tpgm layout 2 --hidden 48 --layers 2 --node-cost-readout on --pooled-head on --loss logistic \
        --temperature 0.01 "${common[@]}"
) &
lane=$!
train layout_nlp_random.tpgm layout:nlp:random 4 "${layout[@]}"
train layout_xla_default.tpgm layout:xla:default 54 "${layout[@]}"
train tile_xla.tpgm tile:xla 6 --hidden 64 --layers 3 --bounds-features on --spill-features on \
    --traffic-features on --loss hinge --minutes 0 --seed 1 --threads 1 --products float
wait "$lane"
rm -f "$OUT"/*.state "$OUT"/*.log
ls -l "$OUT"
echo "now re-run cmake so the build embeds the new models"
