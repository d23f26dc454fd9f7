// Replays every file of the given folders through a fuzz target, so inputs that once failed
// (tests/fuzz/regressions, tests/fuzz/npy-regressions) and the seed corpora stay tested with the
// ordinary compiler.
//
//   torus_fuzz_replay scenario|npy FOLDER...
//
// Prints the plain closing line "N passed, 0 failed"; a failure crashes or throws.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string_view>
#include <vector>

#include "tests/fuzz/npy_target.hpp"
#include "tests/fuzz/scenario_target.hpp"

int main(int argc, char** argv) {
  using Target = void (*)(const std::uint8_t*, std::size_t);
  const std::string_view name = argc > 1 ? argv[1] : "";
  const Target target = name == "scenario" ? torus::fuzz_scenario_input : name == "npy" ? torus::fuzz_npy_input : nullptr;
  if (target == nullptr) {
    std::cerr << "usage: torus_fuzz_replay scenario|npy FOLDER...\n";
    return 2;
  }
  std::size_t passed = 0;
  for (int i = 2; i < argc; ++i)
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      target(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++passed;
    }
  std::cout << "fuzz replay (" << name << "): " << passed << " passed, 0 failed\n";
  return passed > 0 ? 0 : 1;
}
