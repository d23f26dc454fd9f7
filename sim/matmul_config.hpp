#pragma once
// The parameters of task: matmul (C = A B), each declared once with unit, range and meaning.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/scalar.hpp"
#include "sim/parameters.hpp"

namespace torus {

struct RunConfig;
struct MatmulProblem;

struct MatmulConfig {
  std::int64_t m = 8, k = 8, n = 8;
  std::string array = "2x2";  // Nr x Nc
  std::string input_a, input_b;
  std::int64_t hypersystolic_k = 0;            // 0: the divisor of p nearest sqrt(p) from below
  std::string hypersystolic_mapping = "ring";  // "ring" or "plane"

  // Declares every field above on `set`; `set` must not outlive this config.
  void declare(ParameterSet& set);
  std::array<int, 2> array_extents() const;  // Nr, Nc
};

// "4x8", "4 x 8" or "4×8": Nr and Nc, each 1 to 4096; throws std::invalid_argument naming `array`.
std::array<int, 2> parse_array(std::string_view text);

// The problem a matmul run asks for: C = A B on the Nr x Nc array as torus Nr x Nc x 1.
MatmulProblem matmul_problem_of(const RunConfig& run);

// Checks a matmul run (algorithm, sizes against the array, input files, domain, outputs) and
// returns its element type; throws std::invalid_argument naming the parameter, the value and
// what is allowed.
ScalarType validate_matmul(const RunConfig& run);

}  // namespace torus
