#pragma once
// What a node keeps to generate its coefficient blocks itself, for algorithms that move no
// coefficient block (Algorithm::coefficients_local): per distinct transform and length along
// the axes, the transform's table (4N values for the DCT, two tables of N for the DFT, ...), or
// for a matrix without such structure the blocks of it the node uses (a block column or row:
// N_a x b_a per axis and direction).

#include <cstddef>
#include <string>

#include "sim/block_grid.hpp"
#include "sim/run_config.hpp"

namespace torus {

struct CoefficientTables {
  std::size_t values = 0;   // real numbers (a complex block entry counts two)
  std::string description;  // "dct 4N = 40 (N = 10)", one part per distinct table
};

CoefficientTables coefficient_tables(const RunConfig& run, const BlockGrid& grid, bool complex_data);

}  // namespace torus
