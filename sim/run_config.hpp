#pragma once
// What one run of the functional transform needs, with every field declared as a parameter.

#include <cstdint>
#include <string>

#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "sim/parameters.hpp"
#include "sim/scheduling_vector.hpp"

namespace torus {

struct RunConfig {
  std::int64_t n = 16;
  std::int64_t p = 4;
  std::string transform = "dct";
  std::string normalisation = "none";
  std::string user_matrix;
  std::string algorithm = "orbital";
  std::string alpha = "+++";
  std::string direction = "both";
  std::string precision = "double";
  std::string domain = "auto";
  std::uint64_t seed = 1;
  std::string input;
  std::string output;
  std::string report_json;
  std::string chrome_trace;
  std::string vcd_trace;
  std::int64_t max_memory = 0;
  std::string values = "on";

  // Declares every field above on `set`; `set` must not outlive this config.
  void declare(ParameterSet& set);

  // Derived, after validate():
  std::size_t block_size() const { return static_cast<std::size_t>(n / p); }
  bool runs_forward() const { return direction != "inverse"; }
  bool runs_inverse() const { return direction != "forward"; }
  bool computes_values() const { return values == "on"; }
  SchedulingVector scheduling_vector() const { return SchedulingVector::parse(alpha); }
  TransformOptions transform_options() const;
};

// Checks the combination (N divisible by P, transform sizes, domain against transform and
// input file) and returns the element type the run uses. Throws std::invalid_argument naming
// the parameter, the value and what is allowed.
ScalarType validate(const RunConfig& config);

}  // namespace torus
