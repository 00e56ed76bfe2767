#!/usr/bin/env bash
# Fresh Debian 12 -> every test run: install, configure, build, CTest; then the reader tests again
# under AddressSanitizer + UndefinedBehaviorSanitizer, and a minute each of fuzzing the reader and
# a model file's weights.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/packaging/install-deps.sh" --tests
jobs="$(nproc)"

build="${TPUGRAPHS_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
(cd "$build" && ctest --output-on-failure -j "$jobs" --timeout 600)

# The reader faces hostile files: run its tests again with the sanitizers (core only: fast).
asan="${build}-asan"
cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTPUGRAPHS_CORE_ONLY=ON -DTPUGRAPHS_SANITIZE=ON
cmake --build "$asan" -j "$jobs"
(cd "$asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs" -L reader)

# And a minute each of coverage-guided fuzzing of the reader, the weights and what-if sessions
# (libFuzzer, ASan + UBSan; longer runs: tests/fuzz/run-fuzz.sh SECONDS).
TPUGRAPHS_FUZZ_DIR="${build}-fuzz" bash "$root/tests/fuzz/run-fuzz.sh" 60
