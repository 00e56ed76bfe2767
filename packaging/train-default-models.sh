#!/usr/bin/env bash
# Reproduces the default cost models embedded in the binaries (resources/models/*.tpgm) with the
# settings tests/bench/quality.sh measured best (see the README's model quality table):
#   data:   the quality benchmark's training set with 80 programs per source (`quality.sh --programs
#           80`; its default has 240 nlp programs since), `tpugraphs synth --seed 2024 --layout-graphs 80
#           --tile-graphs 300 --configs 1000 --min-nodes 100 --max-nodes 5000` (train and valid
#           splits; its test split and the benchmark's fresh-seed set are never used);
#   layout: one model over all four layout collections (slot features, node-cost readout with
#           the pooled head: for these two epochs better than without, README), 48 wide and 2
#           layers deep (training's layout default, measured best), two epochs: a fixed number of
#           epochs, not minutes, so the result does not depend on the machine's speed (12
#           minutes on a slow 2-core machine beside the test suite: distinct rows make the
#           default collections cheap);
#   tile:   the tile:xla model with bounds, spill and traffic features, 64 wide and 3 layers deep
#           (tile's default), six epochs (219 s with one thread on 2026-11-26).
# Settings pinned, so the recipe outlives a change of training's defaults. Fixed seeds and thread
# count, and float products (bfloat16 ones would make the result depend on whether the CPU has
# bfloat16 units). Re-run cmake afterwards (the build embeds the files at configure time).
#   packaging/train-default-models.sh [BUILD_DIR]     (default: build)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
TPG=$BUILD/app/tpugraphs
[ -x "$TPG" ] || { echo "train-default-models: $TPG not built (cmake --build $BUILD --target tpugraphs)" >&2; exit 1; }
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
"$TPG" synth --out "$DATA" --seed 2024 --layout-graphs 80 --tile-graphs 300 --configs 1000 \
    --min-nodes 100 --max-nodes 5000 --quiet
OUT=$SRC/resources/models
mkdir -p "$OUT"
"$TPG" train --data "$DATA" --collection layout --out "$OUT/layout_default.tpgm" \
    --hidden 48 --layers 2 --slot-features on --node-cost-readout on --pooled-head on --minutes 0 --epochs 2 --patience 2 --seed 1 --threads 1 --products float
"$TPG" train --data "$DATA" --collection tile:xla --out "$OUT/tile_default.tpgm" \
    --hidden 64 --layers 3 --bounds-features on --spill-features on --traffic-features on --minutes 0 --epochs 6 --patience 6 --seed 1 --threads 1 --products float
rm -f "$OUT"/*.state
ls -l "$OUT"
echo "now re-run cmake so the build embeds the new models"
