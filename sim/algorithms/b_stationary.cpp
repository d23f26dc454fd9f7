// B stationary (Mathur and Johnsson's vector-matrix type algorithm): B stays, A is spread along
// the rows of the array and the sums of C are reduced round its columns, by nearest-neighbour
// pipelines (sim/algorithms/stationary_matmul.hpp).

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/stationary_matmul.hpp"

namespace torus {

std::unique_ptr<MatmulAlgorithm> make_b_stationary() { return std::make_unique<StationaryMatmul>("b_stationary", matmul_b); }

}  // namespace torus
