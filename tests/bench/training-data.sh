#!/usr/bin/env bash
# The quality benchmark's training data (also the built-in models', packaging/train-default-models.sh):
#   tests/bench/training-data.sh TPUGRAPHS OUT XLA_PROGRAMS NLP_PROGRAMS
# `tpugraphs synth --seed 2024`, 100-5,000 nodes, 1,000 configurations each: 300 tile kernels and
# the given program counts per layout source, each split into train / valid / test as 8 : 1 : 1.
# Writes OUT.part first and renames it, so a stopped generation leaves no half folder at OUT.
set -euo pipefail
[ $# = 4 ] || { echo "usage: training-data.sh TPUGRAPHS OUT XLA_PROGRAMS NLP_PROGRAMS" >&2; exit 2; }
tpg=$1 out=$2 xla=$3 nlp=$4
synth() {  # out, programs, collections
    "$tpg" synth --out "$1" --seed 2024 --layout-graphs "$2" --tile-graphs 300 --configs 1000 \
        --min-nodes 100 --max-nodes 5000 --collections "$3" --quiet
}
rm -rf "$out.part"
# A program is generated from the seed, its source and its index alone, so the xla programs are
# the same whatever count the nlp source has.
synth "$out.part" "$xla" tile:xla,layout:xla:random,layout:xla:default
synth "$out.part/nlp" "$nlp" layout:nlp:random,layout:nlp:default
for part in npz ground_truth; do mv "$out.part/nlp/$part/layout/nlp" "$out.part/$part/layout/"; done
rm -rf "$out.part/nlp"
"$(dirname "$0")/synth-fingerprint.sh" "$tpg" --stamp "$out.part"
mv "$out.part" "$out"
