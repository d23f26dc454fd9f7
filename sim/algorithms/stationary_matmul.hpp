#pragma once
// The non-systolic algorithms of Mathur and Johnsson ("Multiplication of matrices of arbitrary
// shape on a data parallel computer", section 4.1), A or B stationary, as nearest-neighbour
// pipelines on the Nr x Nc array: the stationary operand never moves, the moving one is spread
// along one axis of the array and the partial products are reduced along the other.
//
// A stationary (matrix-vector type): k is cut into Nc blocks and n into Nc blocks. Node (l, c)
// keeps A(l, c). At step t = 0..Nc-1 it works on column block f = (c - 1 - t) mod Nc of C:
// it adds A(l, c) B(c, f) to the running sum of C(l, f), which it started (t = 0) or received
// from (l, c - 1), and passes the sum on to (l, c + 1) unless t = Nc - 1, when f = c and the sum
// is complete: C(l, c) ends at its home with no move of its own. The sum of C(l, f) so goes
// once round row l, Nc - 1 single hops along +R (the reduction, an all-to-all reduction in Nc - 1
// cyclic shifts as the paper does it). Every node of column c works on the same f at step t,
// so B(c, f) is spread down column c by a pipeline: loaded at its home (f mod Nr, c), it goes
// Nr - 1 single hops along +Q, each node using it and passing it on (the all-to-all broadcast,
// Nr - 1 hops per block). The paper's transposition and alignment of B is the host's load of
// B(c, f) at its home. B stationary (vector-matrix type) is the same with the axes exchanged:
// k and m cut into Nr blocks, node (r, c) keeps B(r, c), A(f, r) spreads along row r from
// (r, f mod Nc) along +R, and the sums of C(f, c) go round column c along +Q.
//
// Words per node (even cuts): the reduction m n (Nc - 1) / N of C (B stationary: m n (Nr - 1)
// / N), the paper's; the spread k n (Nr - 1) / N of B when Nr divides Nc (else a node sends
// the blocks whose home is not its successor: Nc - floor(Nc / Nr) at most, a block of B each)
// and m k (Nc - 1) / N of A for B stationary when Nc divides Nr.

#include <cstdint>
#include <string>

#include "sim/matmul.hpp"

namespace torus {

// Which operand stays: matmul_a or matmul_b.
Program build_stationary_matmul(const MatmulProblem& problem, std::uint16_t stationary, const std::string& algorithm);

// a_stationary (stationary = matmul_a) or b_stationary: check() runs prove_partial_sums.
class StationaryMatmul final : public MatmulAlgorithm {
 public:
  StationaryMatmul(std::string name, std::uint16_t stationary) : name_(std::move(name)), stationary_(stationary) {}
  std::string name() const override { return name_; }
  void require(const MatmulProblem& problem) const override;
  Program build(const MatmulProblem& problem) const override {
    require(problem);
    return build_stationary_matmul(problem, stationary_, name_);
  }
  AlgorithmCheck check(const MatmulProblem& problem) const override { return prove_partial_sums(build(problem)); }

 private:
  std::string name_;
  std::uint16_t stationary_;
};

}  // namespace torus
