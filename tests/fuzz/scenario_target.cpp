#include "tests/fuzz/scenario_target.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "sim/memory_estimate.hpp"
#include "sim/parameter_bundle.hpp"
#include "sim/scenario.hpp"

namespace torus {

void fuzz_scenario_input(const std::uint8_t* data, std::size_t size) {
  // The loader reads files (includes are relative to them), so the input becomes one.
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("torus-fuzz-" + std::to_string(::getpid()) + ".yaml")).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  ParameterBundle bundle;
  try {
    const Scenario scenario = load_scenario(path, bundle.set);
    sweep_points(scenario);
    const ScalarType scalar = validate(bundle.run);
    validate(bundle.fault, bundle.run.torus_shape());
    check_engine(bundle.fault, bundle.machine.engine);
    check_values(bundle.fault, bundle.run.values);
    bundle.machine.link_rate();
    bundle.machine.clock_frequency();
    estimate_memory(bundle.run, bundle.machine, scalar.domain == Domain::Complex);
  } catch (const std::invalid_argument&) {
    // A refusal with a message is the right answer to a bad scenario.
  }
}

}  // namespace torus
