#pragma once
// The built-in algorithms, one per file; sim/algorithm.cpp maps names to these.

#include <memory>

#include "sim/algorithm.hpp"

namespace torus {

std::unique_ptr<Algorithm> make_orbital();
std::unique_ptr<Algorithm> make_orbital_local_coefficients();
// Transpose-based FFTs (sim/algorithms/transpose_fft.hpp).
std::unique_ptr<Algorithm> make_slab_fft();
std::unique_ptr<Algorithm> make_pencil_fft();
std::unique_ptr<Algorithm> make_ring_transpose_fft();
std::unique_ptr<Algorithm> make_ring_block_fft();  // sim/algorithms/ring_block_fft.cpp
// Matrix multiplication (sim/matmul.hpp).
class MatmulAlgorithm;
std::unique_ptr<MatmulAlgorithm> make_systolic();
std::unique_ptr<MatmulAlgorithm> make_systolic_ring();
std::unique_ptr<MatmulAlgorithm> make_hypersystolic();
std::unique_ptr<MatmulAlgorithm> make_a_stationary();
std::unique_ptr<MatmulAlgorithm> make_b_stationary();
std::unique_ptr<MatmulAlgorithm> make_auto_matmul();
// The local-coefficient algorithm's own proofs on a Program (what its check() runs on the
// Program it builds), for tests that break a Program on purpose.
AlgorithmCheck prove_local_coefficients(const Program& program);

}  // namespace torus
