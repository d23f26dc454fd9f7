// A stationary (Mathur and Johnsson's matrix-vector type algorithm): A stays, B is spread down
// the columns of the array and the sums of C are reduced round its rows, by nearest-neighbour
// pipelines (sim/algorithms/stationary_matmul.hpp).

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/stationary_matmul.hpp"

namespace torus {

std::unique_ptr<MatmulAlgorithm> make_a_stationary() { return std::make_unique<StationaryMatmul>("a_stationary", matmul_a); }

}  // namespace torus
