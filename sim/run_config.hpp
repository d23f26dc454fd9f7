#pragma once
// What one run of the functional transform needs, with every field declared as a parameter.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "sim/block_grid.hpp"
#include "sim/geometry.hpp"
#include "sim/matmul_config.hpp"
#include "sim/parameters.hpp"
#include "sim/scheduling_vector.hpp"

namespace torus {

struct RunConfig {
  std::string task = "transform";              // or matmul (matmul's own keys below)
  MatmulConfig matmul;
  std::array<std::int64_t, 3> n{16, 16, 16};  // N1, N2, N3
  std::array<std::int64_t, 3> p{4, 4, 4};     // P1, P2, P3 (process_grid: explicit)
  std::string boundary = "torus";              // per axis: torus or mesh
  std::string process_grid = "explicit";
  std::int64_t nodes = 0;                      // process_grid: balanced derives P1xP2xP3 from it
  std::string transform = "dct";
  std::string normalisation = "none";
  std::string user_matrix;
  static constexpr const char* default_algorithm = "orbital";
  std::string algorithm = default_algorithm;
  std::string local_kernel = "auto";
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
  std::string huge_pages = "auto";
  std::string values = "on";
  // Not a parameter: the scenario documents the run was configured from (the file and its
  // includes), which no output may replace. Set by whoever loads them.
  std::vector<std::string> scenario_files;

  // Declares every field above on `set`; `set` must not outlive this config.
  void declare(ParameterSet& set);

  // Derived, after validate():
  Extents3 tensor_extents() const;
  // P1, P2, P3: as given, or from `nodes` with process_grid: balanced (balanced_grid).
  std::array<std::int64_t, 3> torus_extents() const;
  TorusShape torus_shape() const;
  std::size_t node_count() const;
  // The canonical blocks: N_a elements along axis a over P_a nodes, the first N_a mod P_a one
  // element larger. Throws std::invalid_argument naming P when an axis has fewer elements than nodes.
  BlockGrid block_grid() const;
  bool runs_forward() const { return direction != "inverse"; }
  bool runs_inverse() const { return direction != "forward"; }
  bool computes_values() const { return values == "on"; }
  bool is_matmul() const { return task == "matmul"; }
  SchedulingVector scheduling_vector() const { return SchedulingVector::parse(alpha); }
  TransformOptions transform_options() const;
};

// The extents MPI_Dims_create gives `nodes` in three dimensions: non-increasing, as equal as
// possible (the smallest largest extent, then the smallest middle one): 1024 -> 16x8x8,
// 128 -> 8x4x4, 12 -> 3x2x2, a prime p -> p x 1 x 1.
std::array<std::int64_t, 3> balanced_grid(std::int64_t nodes);

// Checks the combination (at least one element per node along each axis, transform sizes,
// domain against transform and input file) and returns the element type the run uses. Throws std::invalid_argument naming
// the parameter, the value and what is allowed.
ScalarType validate(const RunConfig& config);
// Refuses, with values off, the input files given in `inputs` (key, path) and an output; and
// any output path that cannot be written.
void check_files(const RunConfig& config, const std::vector<std::pair<const char*, std::string>>& inputs);

}  // namespace torus
