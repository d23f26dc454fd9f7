#pragma once
// The fuzzed operation: read a scenario from bytes and validate everything a run would check
// before building anything. It may refuse the input (std::invalid_argument, with a message);
// anything else (a crash, a hang, another exception, a sanitizer report) is a bug.

#include <cstddef>
#include <cstdint>

namespace torus {

void fuzz_scenario_input(const std::uint8_t* data, std::size_t size);

}  // namespace torus
