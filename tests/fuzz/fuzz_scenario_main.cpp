// libFuzzer entry point over scenarios (built with clang and -fsanitize=fuzzer by tools/fuzz.sh).

#include <cstddef>
#include <cstdint>

#include "tests/fuzz/scenario_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  torus::fuzz_scenario_input(data, size);
  return 0;
}
