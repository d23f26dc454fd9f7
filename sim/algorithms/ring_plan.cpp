// The plan of the ring algorithms (sim/algorithms/ring_matmul.hpp): the Hamiltonian ring of the
// array, K, the mapping, and what the problem must satisfy.

#include <stdexcept>

#include <fmt/format.h>

#include "sim/algorithms/ring_matmul.hpp"

namespace torus {

std::vector<NodeCoord> hamiltonian_ring(int rows, int columns) {
  std::vector<NodeCoord> ring;
  if (rows == 1 || columns == 1) {
    for (int i = 0; i < rows * columns; ++i) ring.push_back(rows == 1 ? NodeCoord{0, i, 0} : NodeCoord{i, 0, 0});
    return ring;
  }
  if (rows % 2 != 0 && columns % 2 != 0)
    throw std::invalid_argument(fmt::format("array: '{}x{}' is not allowed with the ring mapping; allowed: Nr or Nc even, or "
                                            "either 1 (the positions follow a Hamiltonian ring of the array)", rows, columns));
  const bool transpose = rows % 2 != 0;  // snake over the even axis
  const int outer = transpose ? columns : rows, inner = transpose ? rows : columns;
  const auto at = [transpose](int o, int i) { return transpose ? NodeCoord{i, o, 0} : NodeCoord{o, i, 0}; };
  ring.push_back(at(0, 0));
  for (int o = 0; o < outer; ++o)
    for (int i = 1; i < inner; ++i) ring.push_back(at(o, o % 2 == 0 ? i : inner - i));
  for (int o = outer - 1; o >= 1; --o) ring.push_back(at(o, 0));
  return ring;
}

std::size_t default_stride(std::size_t p) {
  std::size_t best = 1;
  for (std::size_t k = 1; k * k <= p; ++k)
    if (p % k == 0) best = k;
  return best;
}

namespace {

std::string divisors_text(std::size_t p) {
  std::string out;
  for (std::size_t k = 1; k <= p; ++k)
    if (p % k == 0) out += (out.empty() ? "" : ", ") + std::to_string(k);
  return out;
}

void require_sizes(const MatmulProblem& q, const std::string& algorithm) {
  const std::size_t p = q.shape.node_count();
  if (q.n < p)
    throw std::invalid_argument(fmt::format("n: {} is not allowed with array {}x{} and algorithm {}; allowed: at least p = {} (a "
                                            "column of B and C per position)", q.n, q.rows(), q.columns(), algorithm, p));
  if (q.k < p)
    throw std::invalid_argument(fmt::format("k: {} is not allowed with array {}x{} and algorithm {}; allowed: at least p = {} (an "
                                            "inner index per position)", q.k, q.rows(), q.columns(), algorithm, p));
  if (!q.shape.wraps(Axis::Q) || !q.shape.wraps(Axis::R))
    throw std::invalid_argument("boundary: '" + boundary_text(q.shape) + "' is not allowed with algorithm " + algorithm +
                                "; allowed: torus on Q and R (the shifts run on rings)");
}

}  // namespace

RingPlan plan_ring_matmul(const MatmulProblem& q, const std::string& algorithm) {
  require_sizes(q, algorithm);
  const std::size_t p = q.shape.node_count();
  RingPlan plan;
  plan.plane = algorithm == "hypersystolic" && q.mapping == "plane";
  if (algorithm != "hypersystolic") {
    hamiltonian_ring(q.rows(), q.columns());
    return plan;
  }
  if (plan.plane) {
    const auto rows = static_cast<std::size_t>(q.rows());
    if (q.stride != 0 && q.stride != rows)
      throw std::invalid_argument(fmt::format("hypersystolic_k: {} is not allowed with hypersystolic_mapping: plane and array {}x{}; "
                                              "allowed: 0 or Nr = {} (the plane is K x K~ = Nr x Nc)", q.stride, q.rows(),
                                              q.columns(), rows));
    plan.stride = rows;
    return plan;
  }
  hamiltonian_ring(q.rows(), q.columns());
  if (q.stride != 0 && p % q.stride != 0)
    throw std::invalid_argument(fmt::format("hypersystolic_k: {} is not allowed with array {}x{} (p = {}); allowed: 0 (the "
                                            "divisor nearest sqrt(p) from below) or a divisor of p: {}", q.stride, q.rows(),
                                            q.columns(), p, divisors_text(p)));
  plan.stride = q.stride == 0 ? default_stride(p) : q.stride;
  return plan;
}

}  // namespace torus
