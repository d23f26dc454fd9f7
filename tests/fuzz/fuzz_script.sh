#!/usr/bin/env bash
# tools/fuzz.sh without clang: a copy of it runs beside a stub of the build it sources
# (tools/sanitizer_build.sh), so that every branch after the build is reached in a second.
# - A bad argument is refused before anything is built: exit code 2 and a message naming the
#   argument, its value and what is allowed. A list it wrongly accepted reaches the refusing
#   stub and fails at once (exit 97) instead of starting a clang build.
# - A failed build, a build that made no fuzzer, a fuzzer that finds a failing input, one that
#   stops without saving one, and a clean run each give their exit code and message.
set -uo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/tools" "$scratch/build/tests"
cp "$1/tools/fuzz.sh" "$scratch/tools/fuzz.sh"
fuzz="$scratch/tools/fuzz.sh"
fuzzer="$scratch/build/tests/torus_fuzz_scenario"
# The stub of the build: `refuse` (nothing may be built), `fail`, or `ok` (the fuzzer in
# $scratch/build is whatever the case put there).
stub_build() {
  case "$1" in
    refuse) echo 'sanitizer_build() { echo "fuzz.sh went on to build" >&2; exit 97; }' ;;
    fail) echo "sanitizer_build_dir='$scratch/build'; sanitizer_build() { echo 'clang: no such target'; return 1; }" ;;
    ok) echo "sanitizer_build_dir='$scratch/build'; sanitizer_build() { return 0; }" ;;
  esac >"$scratch/tools/sanitizer_build.sh"
}
# A stand-in for libFuzzer's binary: prints $1 and exits with $2.
stub_fuzzer() {
  printf '#!/usr/bin/env bash\necho "%s"\nexit %s\n' "$1" "$2" >"$fuzzer"
  chmod +x "$fuzzer"
}
failures=0
expect() {
  local status_wanted="$1" expected="$2"
  shift 2
  local output status
  output=$(bash "$fuzz" "$@" 2>&1)
  status=$?
  if [ "$status" -ne "$status_wanted" ] || [[ "$output" != *"$expected"* ]]; then
    echo "FAIL: fuzz.sh $* exited $status with: $output (expected exit $status_wanted and: $expected)"
    failures=$((failures + 1))
  fi
}
stub_build refuse
expect 2 "--target must be scenario or npy, not 'bogus'" --target bogus
expect 2 "--target must be scenario or npy, not ''" --target
expect 2 "--runs must be a whole number from 1 to 999999999, not '0'" --runs 0
expect 2 "--runs must be a whole number from 1 to 999999999, not '12abc'" --target npy --runs 12abc
expect 2 "--runs must be a whole number from 1 to 999999999, not ''" --runs
expect 2 "SECONDS must be a whole number from 1 to 999999999, not '-5'" -5
expect 2 "SECONDS must be a whole number from 1 to 999999999, not '1e3'" 1e3
expect 2 "unexpected argument 'more'" 30 more
expect 2 "unexpected argument 'more'" --runs 5 more
stub_build fail
expect 2 "fuzz: building torus_fuzz_scenario in $scratch/build failed (above)" --runs 5
stub_build ok
expect 2 "fuzz: the build made no $fuzzer (tools/sanitizer_build.sh needs clang" --runs 5
stub_fuzzer "Done 5 runs in 0 second(s)" 0
expect 0 "fuzz (scenario): 5 executions (seed 1), no crash, hang or sanitizer report" --runs 5
stub_fuzzer "Test unit written to $scratch/build/crashes/crash-1234" 1
expect 1 "fuzz: a failing input was found. Test unit written to $scratch/build/crashes/crash-1234" --runs 5
stub_fuzzer "==1==ERROR: libFuzzer: out-of-memory" 71
expect 1 "fuzz: the fuzzer stopped with exit code 71 and saved no input" 3
[ "$failures" -eq 0 ] && echo "fuzz.sh: 9 bad argument lists refused, and the 5 outcomes after the build reported as documented"
exit $((failures > 0))
