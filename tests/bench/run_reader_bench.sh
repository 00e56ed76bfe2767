#!/usr/bin/env bash
# Reader benchmark, on the executable a user runs. Needs ~7 GB of disk and ~6 GB of RAM.
# Targets: `tpugraphs inspect` of the 2 GB stored file <= 0.05 s and <= 30 MB resident (the CLI
# links no LibTorch); decoding a deflated or Fortran-ordered config tensor within 2x of inflate,
# resident well under the raw tensor.
# Usage: tests/bench/run_reader_bench.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?build dir}"
work="${2:-/tmp/tpg-reader-bench}"
py=/usr/bin/python3
[[ -f "$work/layout_2gb_fortran_stored.npz" ]] || "$py" "$here/make_reader_bench_files.py" "$work"
ls -l "$work"
echo "== start-up"
echo "  tpugraphs --help"; /usr/bin/time -f "    -> %e s wall, %M KiB peak RSS" "$build/app/tpugraphs" --help > /dev/null
measure() {  # wall seconds and peak RSS of a command
    /usr/bin/time -f "    -> %e s wall, %M KiB peak RSS" "$@" > /dev/null
}
for f in layout_2gb_stored layout_2gb_compressed layout_2gb_fortran_stored; do
    echo "== $f.npz"
    echo "  tpugraphs inspect"; measure "$build/app/tpugraphs" inspect "$work/$f.npz"
    echo "  tpugraphs inspect --distinct"; measure "$build/app/tpugraphs" inspect --distinct "$work/$f.npz"
    "$build/tests/bench/bench_reader" "$work/$f.npz" --distinct
    "$py" "$here/numpy_load_bench.py" "$work/$f.npz"
done
echo "== raw inflate speed (python zlib over the compressed config entry)"
"$py" - "$work/layout_2gb_compressed.npz" <<'PY'
import sys, time, zipfile, zlib
z = zipfile.ZipFile(sys.argv[1]); t = time.time(); n = 0
with z.open("node_config_feat.npy") as f:
    while True:
        b = f.read(1 << 22)
        if not b: break
        n += len(b)
print("inflate only: %.2f s for %.0f MiB (%.0f MiB/s)" % (time.time() - t, n / 2**20, n / 2**20 / (time.time() - t)))
PY
