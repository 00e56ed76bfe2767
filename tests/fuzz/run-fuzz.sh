#!/usr/bin/env bash
# Fuzzes the reader for SECONDS (default 60) with libFuzzer under AddressSanitizer (leaks
# included) + UndefinedBehaviorSanitizer, seeded with the numpy fixtures. Exits non-zero on any
# crash, leak, sanitizer report or timeout; the input that caused it is left in $out/findings/.
# Usage: tests/fuzz/run-fuzz.sh [SECONDS] [JOBS]
set -euo pipefail
seconds="${1:-60}"
jobs="${2:-1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bash "$root/packaging/install-deps.sh" --fuzz
out="${TPUGRAPHS_FUZZ_DIR:-$root/build-fuzz}"

CC=clang CXX=clang++ cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTPUGRAPHS_CORE_ONLY=ON -DTPUGRAPHS_BUILD_TESTS=OFF -DTPUGRAPHS_SANITIZE=ON -DTPUGRAPHS_FUZZ=ON >/dev/null
cmake --build "$out" --target fuzz_reader -j "$(nproc)"

# Seeds: every numpy fixture small enough to mutate usefully (good files and bad ones).
fixtures="$out/fixtures"
[ -d "$fixtures/good" ] || /usr/bin/python3 "$root/tests/fixtures/make_fixtures.py" "$fixtures" >/dev/null
seeds="$out/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$out/corpus" "$out/findings"
find "$fixtures/good" "$fixtures/bad" -name '*.npz' -size -64k -exec cp {} "$seeds/" \;

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$out/findings"
log="$out/fuzz.log"
status=0
parallel=()  # with -jobs, libFuzzer runs workers that log to fuzz-N.log here
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
rm -f fuzz-*.log
"$out/tests/fuzz/fuzz_reader" "$out/corpus" "$seeds" -max_total_time="$seconds" -max_len=65536 \
    -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
    -print_final_stats=1 "${parallel[@]}" >"$log" 2>&1 || status=$?
cat fuzz-*.log >>"$log" 2>/dev/null || true
runs=$(grep -h '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
echo "fuzz_reader: $runs executions in ${seconds}s, exit status $status (log: $log)"
if [ "$status" -ne 0 ]; then
    grep -h -m5 -E 'ERROR|SUMMARY|Test unit written' "$log" || true
    exit 1
fi
