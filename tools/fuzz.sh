#!/usr/bin/env bash
# Fuzzes scenario parsing and validation, or the .npy reader, with libFuzzer for a bounded time.
#
#   bash tools/fuzz.sh [--target scenario|npy] [SECONDS]   (default: scenario, 60 s)
#   bash tools/fuzz.sh [--target scenario|npy] --runs N    a fixed seed and N executions: the same run every time (CI)
#
# Builds the fuzz target in build-sanitize/ (tools/sanitizer_build.sh: clang, AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer coverage, shared with tools/sanitize.sh), then runs
# from the target's seed corpus (tests/fuzz/corpus for scenarios, tests/fuzz/npy-corpus for .npy
# files). A crash, hang or sanitizer report stops it with a non-zero exit; the input is saved
# under build-sanitize/crashes/. Copy it into the target's regressions folder
# (tests/fuzz/regressions or tests/fuzz/npy-regressions) with the fix, and ctest replays it on
# every build from then on.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=scenario
if [ "${1:-}" = "--target" ]; then
  target="${2:-}"
  shift $(($# < 2 ? $# : 2))
fi
case "$target" in
  scenario) seeds="$repo_root/tests/fuzz/corpus" ;;
  npy) seeds="$repo_root/tests/fuzz/npy-corpus" ;;
  *) echo "fuzz: --target must be scenario or npy, not '$target'" >&2; exit 2 ;;
esac
whole_number() { [[ "$2" =~ ^[1-9][0-9]{0,8}$ ]] || { echo "fuzz: $1 must be a whole number from 1 to 999999999, not '$2'" >&2; exit 2; }; }
if [ "${1:-}" = "--runs" ]; then
  whole_number --runs "${2:-}"
  limit=(-seed=1 -runs="$2")
  what="seed 1"
  shift 2
else
  whole_number SECONDS "${1:-60}"
  limit=(-max_total_time="${1:-60}")
  what="${1:-60} s"
  shift $(($# < 1 ? $# : 1))
fi
if [ $# -gt 0 ]; then
  echo "fuzz: unexpected argument '$1'; usage: bash tools/fuzz.sh [--target scenario|npy] [SECONDS | --runs N]" >&2
  exit 2
fi
source "$repo_root/tools/sanitizer_build.sh"
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
sanitizer_build "torus_fuzz_$target" >"$build_log" 2>&1 || {
  tail -40 "$build_log"
  echo "fuzz: building torus_fuzz_$target in $sanitizer_build_dir failed (above)" >&2
  exit 2
}
build="$sanitizer_build_dir"
fuzzer="$build/tests/torus_fuzz_$target"
if [ ! -x "$fuzzer" ]; then
  echo "fuzz: the build made no $fuzzer (tools/sanitizer_build.sh needs clang and libclang-rt-14-dev: bash tools/setup.sh)" >&2
  exit 2
fi
mkdir -p "$build/corpus-$target" "$build/crashes"
log="$build/fuzz-$target.log"
"$fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$build/crashes/" "$build/corpus-$target" "$seeds" >"$log" 2>&1 || {
  status=$?
  tail -40 "$log"
  # libFuzzer names a saved input by its hash: the same failure found again overwrites its file.
  if saved=$(grep -o 'Test unit written to .*' "$log"); then
    echo "fuzz: a failing input was found. ${saved}"
  else
    echo "fuzz: the fuzzer stopped with exit code $status and saved no input; see $log"
  fi
  exit 1
}
runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo 0)
echo "fuzz ($target): $runs executions ($what), no crash, hang or sanitizer report"
