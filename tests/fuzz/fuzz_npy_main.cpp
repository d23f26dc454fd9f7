// libFuzzer entry point over the .npy reader (built with clang and -fsanitize=fuzzer by
// tools/fuzz.sh --target npy).

#include <cstddef>
#include <cstdint>

#include "tests/fuzz/npy_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  torus::fuzz_npy_input(data, size);
  return 0;
}
