// Replays every file of the given folders through the fuzz target, so inputs that once failed
// (tests/fuzz/regressions) and the seed corpus stay tested with the ordinary compiler.
// Prints the plain closing line "N passed, 0 failed"; a failure crashes or throws.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "tests/fuzz/scenario_target.hpp"

int main(int argc, char** argv) {
  std::size_t passed = 0;
  for (int i = 1; i < argc; ++i)
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      torus::fuzz_scenario_input(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++passed;
    }
  std::cout << "fuzz replay: " << passed << " passed, 0 failed\n";
  return passed > 0 ? 0 : 1;
}
