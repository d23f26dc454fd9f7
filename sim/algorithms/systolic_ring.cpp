// The systolic ring (Lippert et al., "Hyper-systolic matrix multiplication", Algorithm 1): p
// positions along a Hamiltonian ring of the array, each keeping its column block of B and C;
// A moves one position back after each of the p block products but the last, p - 1 shifts
// of stride 1. It is the hyper-systolic schedule with K = 1 (sim/algorithms/ring_matmul.hpp).

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/ring_matmul.hpp"

namespace torus {

std::unique_ptr<MatmulAlgorithm> make_systolic_ring() { return std::make_unique<RingMatmul>("systolic_ring"); }

}  // namespace torus
