// Hyper-systolic matrix multiplication (Lippert et al., "Hyper-systolic matrix
// multiplication", Algorithm 2 with the regular bases, K K~ = p): a pre-shift of B, K~ rounds
// of K block products with K partial sums of C, A shifted by stride K between rounds, and the
// back-shift that adds the partial sums up: K + K~ - 1 shifts against the systolic ring's
// p - 1. The schedule, the reading of the paper it follows, and the two mappings (hypersystolic_mapping):
// sim/algorithms/ring_matmul.hpp.

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/ring_matmul.hpp"

namespace torus {

std::unique_ptr<MatmulAlgorithm> make_hypersystolic() { return std::make_unique<RingMatmul>("hypersystolic"); }

}  // namespace torus
