#pragma once
// What every engine shares for a matmul run: the operands A and B (random from the run's seed
// or .npy files), the Program with its proofs, and the golden check of C against Eigen's
// product (docs/numerics.md, "Matrix products").

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernels/npy.hpp"
#include "sim/host_data.hpp"
#include "sim/matmul.hpp"
#include "sim/program_verifier.hpp"
#include "sim/run.hpp"
#include "sim/run_inputs.hpp"

namespace torus {

// A as the m x 1 x k tensor and B as the k x n x 1 tensor (first index fastest, so a block of
// either is column-major, as the mode-3 kernel reads it). Random: A then B from one stream.
// Third, the 1 x 1 x 1 scalar 1 (host array "one", for Programs that add blocks).
template <class T>
std::vector<Tensor3<T>> make_operands(const RunConfig& run) {
  const MatmulConfig& c = run.matmul;
  const auto m = static_cast<std::size_t>(c.m), k = static_cast<std::size_t>(c.k), n = static_cast<std::size_t>(c.n);
  std::vector<Tensor3<T>> out{Tensor3<T>(m, 1, k), Tensor3<T>(k, n, 1)};
  std::mt19937_64 rng(run.seed);
  const std::string paths[2] = {c.input_a, c.input_b};
  for (std::size_t i = 0; i < 2; ++i) {
    if (!paths[i].empty()) {  // r x c x 1 as read has the storage of A's m x 1 x k
      const Tensor3<T> read = with_parameter(i == 0 ? "input_a" : "input_b", [&] { return read_npy_matrix<T>(paths[i]); });
      out[i].values() = read.values();
      continue;
    }
    for (T& v : out[i].values()) {
      const double re = uniform_pm1(rng);
      if constexpr (is_complex_v<T>) v = T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(uniform_pm1(rng)));
      else v = static_cast<T>(re);
    }
  }
  out.emplace_back(1, 1, 1);
  out.back().values()[0] = T(1);
  return out;
}

// The product of the operands in T by Eigen, and |A| |B| in double (the bound's magnitude).
template <class T>
std::pair<Tensor3<T>, Tensor3<double>> golden_product(const std::vector<Tensor3<T>>& operands) {
  const Extents3 a = operands[0].extents(), b = operands[1].extents();
  const auto m = static_cast<Eigen::Index>(a[0]), k = static_cast<Eigen::Index>(a[2]), n = static_cast<Eigen::Index>(b[1]);
  const Eigen::Map<const Matrix<T>> ma(operands[0].data(), m, k), mb(operands[1].data(), k, n);
  Tensor3<T> c(a[0], 1, b[1]);
  Tensor3<double> magnitude(a[0], 1, b[1]);
  Eigen::Map<Matrix<T>>(c.data(), m, n).noalias() = ma * mb;
  Eigen::Map<Matrix<double>>(magnitude.data(), m, n).noalias() =
      ma.cwiseAbs().template cast<double>() * mb.cwiseAbs().template cast<double>();
  return {std::move(c), std::move(magnitude)};
}

// C against the golden product; names the first block beyond its bound and its node.
template <class T>
void check_product(MatmulOutcome& outcome, const Tensor3<T>& c, const std::vector<Tensor3<T>>& operands, const Program& program) {
  const auto [golden, magnitude] = golden_product(operands);
  // The product in the working precision (float may overflow where the double bound does not).
  require_finite_golden(golden, "product", "operands whose product");
  require_finite_bound(magnitude, "|A| |B|");
  outcome.error = compare_product_to_golden(c, golden, magnitude, outcome.problem.k);
  if (outcome.error.within_tolerance()) return;
  const Extents3& e = outcome.error.first_failure;
  const auto i = static_cast<std::int32_t>(program.grid.axis[0].block_of(e[0]));
  const auto j = static_cast<std::int32_t>(program.grid.axis[2].block_of(e[2]));
  const ProgramOutput& out = *program.output(matmul_output);
  const auto owner = std::find(out.tag.begin(), out.tag.end(), DataTag{matmul_c, {i, 0, j}});
  outcome.mismatch = "first mismatching block C(" + std::to_string(i) + "," + std::to_string(j) + ") at node " +
                     (owner == out.tag.end() ? "none" : program.describe_node(static_cast<std::size_t>(owner - out.tag.begin()))) +
                     ", element (" + std::to_string(e[0]) + "," + std::to_string(e[2]) + ")";
}

// Builds the Program, runs the algorithm's proofs and the generic verifier, and reads off the
// counts (phases program and verify). A Program the verifier rejects is a bug in its generator:
// std::logic_error.
MatmulOutcome prepare_matmul(const RunConfig& run, Program& program, PhaseTimes& phases);

// The functional engine's matmul run (run_functional calls it for task: matmul): C, with the
// outcome (counts, proofs, golden check) in report.matmul.
template <class T>
Tensor3<T> matmul_functional(const RunConfig& run, RunReport& report);
// The report fields every engine fills the same way for a matmul run, before running (and
// the memory check: std::invalid_argument when the run would not fit).
RunReport describe_matmul_run(const RunConfig& run, ScalarType scalar);

}  // namespace torus
