#!/usr/bin/env bash
# Race check of the nodes stepped on several host threads (threads > 1 with fast_forward off,
# models/cycle/step_threads.hpp): builds torus-sim with clang's ThreadSanitizer into
# build-tsan/ and runs configurations whose partitions exchange words, credits and routed
# messages every cycle. Any report of a data race fails the script.
#   bash tools/tsan.sh
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo_root/build-tsan"
cmake -S "$repo_root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer -O1" >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target torus-sim
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
configurations=(
  "--N 16 --P 4 --fma_latency 4 --direction both"
  "--N 8 --P 4 --link_buffer_words 1 --link_latency 3"
  "--N 8 --P 4 --boundary mesh"
  "--N 8 --P 4 --link_words_per_cycle 3/2 --link_buffer_words 2 --roll_policy overlapped"
  "--algorithm pencil_fft --transform dft --N 16 --P 4"
  "--algorithm ring_transpose_fft --transform dft --N 16 --P 2 --link_buffer_words 2"
  "--task matmul --algorithm hypersystolic --m 8 --k 16 --n 16 --array 4x4 --link_buffer_words 1"
  "--N 8 --P 4 --link_buffer_words 2 --fault drop_word --fault_node 1,1,1 --fault_link +R --fault_cycle 30 --watchdog_cycles 400"
)
for configuration in "${configurations[@]}"; do
  for threads in 2 3; do
    status=0
    # shellcheck disable=SC2086  # each configuration is a list of arguments
    "$build/tools/torus-sim" run $configuration --fast_forward off --threads "$threads" >/dev/null 2>"$build/tsan.log" || status=$?
    if [ "$status" -eq 66 ] || grep -q "ThreadSanitizer" "$build/tsan.log"; then
      cat "$build/tsan.log"
      echo "tsan: a race with threads $threads: $configuration" >&2
      exit 1
    fi
    echo "tsan: clean (exit $status), threads $threads: $configuration"
  done
done
