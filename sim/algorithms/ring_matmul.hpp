#pragma once
// Matrix multiplication on a ring of p processors (Lippert, Petkov, Palazzari and Schilling,
// "Hyper-systolic matrix multiplication"), shared by the algorithms systolic_ring (the paper's
// Algorithm 1) and hypersystolic (its Algorithm 2): the first is the second with K = 1.
//
// Position x = 0..p-1 holds column block x of C and of B (B(v,x) for every v) and inner block x
// of A (A(0,0,x), all m rows: the paper's 1-D layout, whose skew is only local addressing at
// block level). With K K~ = p every offset d between positions is d = l + K r, 0 <= l < K,
// 0 <= r < K~, exactly one way. The algorithm, read off Algorithm 2 itself:
//   pre-shift  B(v,j) goes from j to j + l, where v - j = l + K r (l hops along +1);
//   round r    (r = 0..K~-1) node x holds A(0,0,x + K r) and, for l = 0..K-1, adds
//              A(0,0,x + K r) x B(x + K r, x - l) into its partial sum C^l (of column x - l);
//              then A moves one stride-K shift back, from x + K to x (K~ - 1 shifts);
//   back-shift C^{K-1} moves one position back, is added to C^{K-2}, and so on: K - 1 shifts
//              of stride 1, after which C^0 at x is the whole column block x.
// So A is the operand shifted by stride K, as Algorithm 2's CSHIFT(A, DIM = 2, SHIFT = K) and
// its base (15) say, and B the one pre-shifted (by up to K - 1 positions); Definition 3 gives
// the stride-1 base to A and the stride-K base to B, the labels the other way round. Fortran's
// CSHIFT(X, SHIFT = s) puts X(i + s) at i: A and the sums of C move to lower positions (x + K
// to x, x + 1 to x) and B, shifted by MOD(1 - j, K) <= 0, to higher ones (j to j + l). The
// golden check passes with this reading on every shape, K and mapping the tests run.
// Shifts: 1 (pre-shift) + (K~ - 1) + (K - 1) = K + K~ - 1; K = 1 gives p - 1.
//
// Mappings: "ring" lays the positions along a Hamiltonian ring of the Nr x Nc array (one hop
// per position, so a stride-K shift is a message of K hops through the routers); "plane"
// takes the array as K x K~ with x = a + K b at node (a, b) and reads the offsets in Z_K x Z_K~
// (+1 is one hop along Q, wrapping within the column of K nodes; +K one hop along R), so every
// shift is one hop and the pre-shift's offset l is l hops along +Q.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/matmul.hpp"

namespace torus {

// systolic_ring or hypersystolic: C cut into p column blocks, K and the mapping in the report.
inline bool is_ring_algorithm(const std::string& name) { return name == "systolic_ring" || name == "hypersystolic"; }

struct RingPlan {
  std::size_t stride = 1;  // K
  bool plane = false;
};

// The positions of a Hamiltonian ring of an Nr x Nc array, in order (consecutive ones, and the
// last and first, are neighbours): a row or column of its own on a 1 x N or N x 1 array; else
// a snake over columns 1..Nc-1 back along column 0 (Nr even) or the same transposed (Nc even).
// Throws std::invalid_argument naming `array` when both are odd and above 1.
std::vector<NodeCoord> hamiltonian_ring(int rows, int columns);

// The paper's choice of K: the largest divisor of p not above sqrt(p).
std::size_t default_stride(std::size_t p);

// The plan `algorithm` runs `problem` with (systolic_ring: K = 1 on the ring mapping;
// hypersystolic: problem.stride and problem.mapping), checked against the problem: throws
// std::invalid_argument naming the parameter, the value and what is allowed.
RingPlan plan_ring_matmul(const MatmulProblem& problem, const std::string& algorithm);

Program build_ring_matmul(const MatmulProblem& problem, const RingPlan& plan, const std::string& algorithm);

// Both ring algorithms, by name: the plan decides the rest; check() runs prove_partial_sums.
class RingMatmul final : public MatmulAlgorithm {
 public:
  explicit RingMatmul(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void require(const MatmulProblem& problem) const override { plan_ring_matmul(problem, name_); }
  Program build(const MatmulProblem& problem) const override {
    return build_ring_matmul(problem, plan_ring_matmul(problem, name_), name_);
  }
  AlgorithmCheck check(const MatmulProblem& problem) const override { return prove_partial_sums(build(problem)); }

 private:
  std::string name_;
};

}  // namespace torus
