#!/usr/bin/env bash
# Fuzzes each harness for SECONDS (default 60) with libFuzzer under AddressSanitizer (leaks
# included) + UndefinedBehaviorSanitizer: the reader, seeded with the numpy fixtures, then a model
# file's weights (both formats), seeded with small archives of each, then what-if session files,
# seeded with a few sessions of the harness's program. Exits non-zero on any crash,
# leak, sanitizer report or timeout; the input that caused it is left in $out/findings/.
# Usage: tests/fuzz/run-fuzz.sh [SECONDS] [JOBS]
set -euo pipefail
seconds="${1:-60}"
jobs="${2:-1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bash "$root/packaging/install-deps.sh" --fuzz
out="${TPUGRAPHS_FUZZ_DIR:-$root/build-fuzz}"

CC=clang CXX=clang++ cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTPUGRAPHS_CORE_ONLY=ON -DTPUGRAPHS_BUILD_TESTS=OFF -DTPUGRAPHS_SANITIZE=ON -DTPUGRAPHS_FUZZ=ON >/dev/null
cmake --build "$out" --target fuzz_reader fuzz_weights fuzz_session -j "$(nproc)"

# Reader seeds: every numpy fixture small enough to mutate usefully (good files and bad ones).
fixtures="$out/fixtures"
[ -d "$fixtures/good" ] || /usr/bin/python3 "$root/tests/fixtures/make_fixtures.py" "$fixtures" >/dev/null
rm -rf "$out/seeds"
mkdir -p "$out/seeds/reader" "$out/seeds/weights" "$out/seeds/session" "$out/findings"
find "$fixtures/good" "$fixtures/bad" -name '*.npz' -size -64k -exec cp {} "$out/seeds/reader/" \;
# Weights seeds: a TensorArchive's fields (the harness adds magic and checksum), a zip laid out as
# LibTorch writes one, and its data.pkl alone.
/usr/bin/python3 - "$out/seeds/weights" <<'PY'
import io, struct, sys, zipfile
def tensor(name, shape):
    count = 1
    for d in shape: count *= d
    return (struct.pack('<I', len(name)) + name.encode() + struct.pack('<I', len(shape)) +
            b''.join(struct.pack('<q', d) for d in shape) + struct.pack('<%df' % count, *range(count)))
with open(sys.argv[1] + '/tensors', 'wb') as f:
    f.write(struct.pack('<Q', 4) + tensor('layers.0.weight', [3, 4]) + tensor('bias', [4]) + tensor('s', []) +
            tensor('empty', [0, 2]))
# data.pkl as LibTorch 1.13 pickles a module: a 2 x 3 float tensor viewing storage 0, and a
# submodule holding a whole number and a long tensor of storage 1.
def text(s): return b'X' + struct.pack('<I', len(s)) + s.encode()
def ints(v): return b'(' + b''.join(b'J' + struct.pack('<i', x) for x in v) + b't'
def torch_tensor(key, kind, count, sizes, strides):
    return (b'ctorch._utils\n_rebuild_tensor_v2\nq\x01((' + text('storage') + b'ctorch\n' + kind + b'\n' +
            text(key) + text('cpu') + b'J' + struct.pack('<i', count) + b'tQK\x00' + ints(sizes) + ints(strides) +
            b'\x89ccollections\nOrderedDict\n)RtR')
def module(attributes): return b'c__torch__\nModule\n)\x81}(' + attributes + b'ub'
pickle = b'\x80\x02' + module(text('weight') + torch_tensor('0', b'FloatStorage', 6, [2, 3], [3, 1]) + text('sub') +
                             module(text('step') + b'K\x07' + text('b') + torch_tensor('1', b'LongStorage', 2, [2], [1]))) + b'.'
z = io.BytesIO()
with zipfile.ZipFile(z, 'w', zipfile.ZIP_STORED) as a:
    a.writestr('archive/data.pkl', pickle)
    a.writestr('archive/data/0', struct.pack('<6f', *range(6)))
    a.writestr('archive/data/1', struct.pack('<2q', 3, 4))
    a.writestr('archive/version', b'3\n')
open(sys.argv[1] + '/torch.zip', 'wb').write(z.getvalue())
# The same pickle alone (the harness reads it beside storages of 24 and 16 bytes).
open(sys.argv[1] + '/data.pkl', 'wb').write(pickle)
PY
# Session seeds: what the explorer saves for the harness's program (one configurable node, rows
# of 18 values), with labels, pins and the file it was saved for, and a tune file's fields.
/usr/bin/python3 - "$out/seeds/session" <<'PY'
import json, sys
row = [-1] * 18
edited = [1, 0, 2, 3] + [-1] * 14
docs = {
    "explorer": {"format": "tpugraphs-whatif", "version": 1, "file": "small.npz", "collection": "layout:xla:random",
                 "model": "built-in", "configurations": [{"label": "start", "config": row},
                                                         {"label": "#1 output {1,0,2,3}", "config": edited, "pinned": True}]},
    "tune": {"format": "tpugraphs-whatif", "version": 1, "tune": {"best_measured_in_file_ns": 10.5},
             "configurations": [{"label": "tuned #1", "config": edited, "synthetic_tpu_ns": 9.25, "measured": True}]},
}
for name, doc in docs.items():
    open(sys.argv[1] + "/" + name + ".json", "w").write(json.dumps(doc))
PY

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$out/findings"
failed=0
fuzz() {  # NAME: runs $out/tests/fuzz/fuzz_NAME on its corpus and seeds
    local name="$1" log="$out/fuzz-$1.log" status=0 parallel=()
    mkdir -p "$out/corpus/$name"
    # with -jobs, libFuzzer runs workers that log to fuzz-N.log here
    [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
    rm -f fuzz-*.log
    "$out/tests/fuzz/fuzz_$name" "$out/corpus/$name" "$out/seeds/$name" -max_total_time="$seconds" \
        -max_len=65536 -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=2048 -error_exitcode=1 \
        -timeout_exitcode=1 -print_final_stats=1 "${parallel[@]}" >"$log" 2>&1 || status=$?
    cat fuzz-*.log >>"$log" 2>/dev/null || true
    local runs
    runs=$(grep -h '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}' || true)
    echo "fuzz_$name: $runs executions in ${seconds}s, exit status $status (log: $log)"
    if [ "$status" -ne 0 ]; then
        grep -h -m5 -E 'ERROR|SUMMARY|Test unit written' "$log" || true
        failed=1
    fi
}
fuzz reader
fuzz weights
fuzz session
exit "$failed"
