#!/usr/bin/env bash
# Reproduces the default cost models embedded in the binaries (resources/models/*.tpgm):
# trained on the embedded sample (regenerated here with the same seed and arguments as
# resources/CMakeLists.txt), with fixed seeds and thread count. Re-run cmake afterwards (the
# build embeds the files at configure time).
#   packaging/train-default-models.sh [BUILD_DIR]     (default: build)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
TPG=$BUILD/app/tpugraphs
[ -x "$TPG" ] || { echo "train-default-models: $TPG not built (cmake --build $BUILD --target tpugraphs)" >&2; exit 1; }
SAMPLE=$(mktemp -d)
trap 'rm -rf "$SAMPLE"' EXIT
# shellcheck disable=SC2046 # the sample's arguments, word-split on purpose
ARGS=$(sed -n 's/^set(TPG_SAMPLE_ARGS \(.*\))$/\1/p' "$SRC/resources/CMakeLists.txt")
[ -n "$ARGS" ] || { echo "train-default-models: TPG_SAMPLE_ARGS not found in resources/CMakeLists.txt" >&2; exit 1; }
"$TPG" synth --out "$SAMPLE" $ARGS --quiet
OUT=$SRC/resources/models
mkdir -p "$OUT"
# Small networks (hidden 32) keep each file well under 1 MB; every layout collection trains one model.
"$TPG" train --data "$SAMPLE" --collection layout --out "$OUT/layout_default.tpgm" \
    --hidden 32 --epochs 80 --patience 80 --seed 1 --threads 2
"$TPG" train --data "$SAMPLE" --collection tile:xla --out "$OUT/tile_default.tpgm" \
    --hidden 32 --epochs 150 --patience 150 --graphs-per-step 2 --seed 1 --threads 2
rm -f "$OUT"/*.state
ls -l "$OUT"
echo "now re-run cmake so the build embeds the new models"
