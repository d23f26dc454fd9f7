# Sourced by tools/sanitize.sh and tools/fuzz.sh: the one sanitizer build both use, in
# build-sanitize/. clang with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage
# on every file, -O1, and the libFuzzer targets (TORUS_FUZZ). One build instead of a gcc one for
# the tests and a clang one for the fuzzers. In unity batches (CMakeLists.txt) a clean one takes
# 21 minutes of processor time (10.4 on two cores) where file by file took about 38.
#
#   sanitizer_build TARGET...    configures build-sanitize/ if needed and builds the targets (all: none given)
sanitizer_build_dir="$repo_root/build-sanitize"

sanitizer_build() {
  cmake -S "$repo_root" -B "$sanitizer_build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTORUS_FUZZ=ON \
    -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1" \
    >/dev/null
  local targets=() name  # local: the caller has a $target of its own (fuzz.sh)
  for name in "$@"; do targets+=(--target "$name"); done
  cmake --build "$sanitizer_build_dir" --parallel "$(nproc)" "${targets[@]}"
}
