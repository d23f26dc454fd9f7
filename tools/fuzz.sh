#!/usr/bin/env bash
# Fuzzes scenario parsing and validation with libFuzzer for a bounded time.
#
#   bash tools/fuzz.sh [SECONDS]      (default 60)
#   bash tools/fuzz.sh --runs N       a fixed seed and N executions: the same run every time (CI)
#
# Builds build-fuzz/ with clang, AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer
# coverage, then runs from the seed corpus tests/fuzz/corpus. A crash, hang or sanitizer report
# stops it with a non-zero exit; the input is saved under build-fuzz/crashes/. Copy it into
# tests/fuzz/regressions/ with the fix, and ctest replays it on every build from then on.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = "--runs" ]; then
  limit=(-seed=1 -runs="$2")
  what="seed 1"
else
  limit=(-max_total_time="${1:-60}")
  what="${1:-60} s"
fi
build="$repo_root/build-fuzz"

cmake -S "$repo_root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTORUS_FUZZ=ON \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" >/dev/null
cmake --build "$build" --target torus_fuzz_scenario >/dev/null
mkdir -p "$build/corpus" "$build/crashes"
log="$build/fuzz.log"
"$build/tests/torus_fuzz_scenario" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$build/crashes/" "$build/corpus" "$repo_root/tests/fuzz/corpus" >"$log" 2>&1 || {
  tail -40 "$log"
  echo "fuzz: a failing input was found; see $build/crashes/"
  exit 1
}
runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo 0)
echo "fuzz: $runs executions ($what), no crash, hang or sanitizer report"
