#!/usr/bin/env bash
# tools/fuzz.sh refuses a bad argument before it builds anything: exit code 2 and a message
# naming the argument, its value and what is allowed. Each case must fail that way; a case that
# went on to build (or exited otherwise) fails this test.
set -uo pipefail
# A copy of fuzz.sh beside a stub of the build it sources: a list it wrongly accepted reaches the
# stub and fails at once (exit 97) instead of starting a clang build.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/tools"
cp "$1/tools/fuzz.sh" "$scratch/tools/fuzz.sh"
echo 'sanitizer_build() { echo "fuzz.sh went on to build" >&2; exit 97; }' >"$scratch/tools/sanitizer_build.sh"
fuzz="$scratch/tools/fuzz.sh"
failures=0
refuses() {
  local expected="$1"
  shift
  local output status
  output=$(bash "$fuzz" "$@" 2>&1)
  status=$?
  if [ "$status" -ne 2 ] || [[ "$output" != *"$expected"* ]]; then
    echo "FAIL: fuzz.sh $* exited $status with: $output (expected exit 2 and: $expected)"
    failures=$((failures + 1))
  fi
}
refuses "--target must be scenario or npy, not 'bogus'" --target bogus
refuses "--target must be scenario or npy, not ''" --target
refuses "--runs must be a whole number from 1 to 999999999, not '0'" --runs 0
refuses "--runs must be a whole number from 1 to 999999999, not '12abc'" --target npy --runs 12abc
refuses "--runs must be a whole number from 1 to 999999999, not ''" --runs
refuses "SECONDS must be a whole number from 1 to 999999999, not '-5'" -5
refuses "SECONDS must be a whole number from 1 to 999999999, not '1e3'" 1e3
refuses "unexpected argument 'more'" 30 more
refuses "unexpected argument 'more'" --runs 5 more
[ "$failures" -eq 0 ] && echo "fuzz.sh refused all 9 bad argument lists"
exit $((failures > 0))
