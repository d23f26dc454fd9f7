#include "sim/algorithms/ring_block_plan.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace torus {
namespace {

using Split = std::array<std::size_t, 3>;

// The two axes (0-based) other than a.
std::array<std::size_t, 2> others(std::size_t a) { return {a == 0 ? 1u : 0u, a == 2 ? 1u : 2u}; }

// Every way the ring along axis a can share its b_x x b_y lines among its P_a nodes.
std::vector<Split> shares_of(const RingBlockPlan& plan, std::size_t a) {
  const auto [x, y] = others(a);
  std::vector<Split> out;
  for (std::size_t cx = 1; cx <= plan.p[a]; ++cx) {
    if (plan.p[a] % cx != 0) continue;
    const std::size_t cy = plan.p[a] / cx;
    if (plan.b[x] % cx != 0 || plan.b[y] % cy != 0) continue;
    Split s{1, 1, 1};
    s[x] = cx;
    s[y] = cy;
    out.push_back(s);
  }
  return out;
}

bool obeys_chain_rule(const RingBlockPlan& plan) {
  for (std::size_t k = 0; k < 2; ++k) {
    const auto a = static_cast<std::size_t>(plan.order[k] - 1), next = static_cast<std::size_t>(plan.order[k + 1] - 1);
    const std::size_t z = 3 - a - next;
    if (plan.split[a][z] != plan.split[next][z]) return false;
  }
  return true;
}

void refuse_shape(const TransformProblem& problem) {
  if (!problem.shape.torus())
    throw std::invalid_argument("boundary: '" + boundary_text(problem.shape) +
                                "' is not allowed with algorithm ring_block_fft; allowed: torus (each axis's rings wrap round: "
                                "the all-to-all within a ring sends j places on, the short way round)");
  if (problem.directions.empty()) throw std::invalid_argument("direction: at least one transform is needed");
  if (!problem.grid.even())
    throw std::invalid_argument(fmt::format("N: '{}' is not allowed with algorithm ring_block_fft on {}x{}x{} nodes (blocks {}); "
                                            "allowed: N_a a multiple of P_a along every axis (every node's block of one size)",
                                            extents_text(problem.grid.tensor_extents()), problem.shape.p1, problem.shape.p2,
                                            problem.shape.p3, problem.grid.describe_blocks()));
}

}  // namespace

BlockGrid RingBlockPlan::pieces(const std::array<int, 3>& axes, std::size_t k, const Extents3& n) const {
  std::array<std::size_t, 3> parts{};
  for (std::size_t x = 0; x < 3; ++x) {
    std::size_t cut = 1;
    for (std::size_t phase : {k - 1, k}) {  // the phases beside the pieces (k - 1 wraps past 0: none)
      if (phase > 2) continue;
      const auto a = static_cast<std::size_t>(axes[phase] - 1);
      if (a != x) cut = std::max(cut, split[a][x]);
    }
    parts[x] = p[x] * cut;
  }
  return BlockGrid::make(n, parts);
}

std::size_t RingBlockPlan::messages_per_node() const {
  const Extents3 n{p[0] * b[0], p[1] * b[1], p[2] * b[2]};
  std::size_t total = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    const auto a = static_cast<std::size_t>(order[k] - 1);
    const std::size_t in = pieces(order, k, n).axis[a].parts / p[a], out = pieces(order, k + 1, n).axis[a].parts / p[a];
    total += (p[a] - 1) * (in + out);
  }
  return total;
}

RingBlockPlan plan_ring_block(const TransformProblem& problem) {
  refuse_shape(problem);
  RingBlockPlan plan;
  const TorusShape& shape = problem.shape;
  plan.p = {static_cast<std::size_t>(shape.p1), static_cast<std::size_t>(shape.p2), static_cast<std::size_t>(shape.p3)};
  for (std::size_t a = 0; a < 3; ++a) plan.b[a] = problem.grid.axis[a].largest();
  std::array<std::vector<Split>, 3> options;
  for (std::size_t a = 0; a < 3; ++a) {
    options[a] = shares_of(plan, a);
    if (!options[a].empty()) continue;
    const auto [x, y] = others(a);
    throw std::invalid_argument(fmt::format(
        "P: '{}x{}x{}' is not allowed with algorithm ring_block_fft and N={} (blocks {}x{}x{}): the ring along axis {} has "
        "{} nodes but each node's block has only b{} x b{} = {} x {} lines along it, which no split pa x pb = {} "
        "(pa dividing {}, pb dividing {}) shares out{}; allowed: P_a at most b_x b_y for every axis a (on P x P x P: b^2 >= P) "
        "with P_a = pa pb, pa | b_x, pb | b_y, e.g. fewer nodes or a larger N",
        shape.p1, shape.p2, shape.p3, extents_text(problem.grid.tensor_extents()), plan.b[0], plan.b[1], plan.b[2], a + 1,
        plan.p[a], x + 1, y + 1, plan.b[x], plan.b[y], plan.p[a], plan.b[x], plan.b[y],
        plan.b[x] * plan.b[y] < plan.p[a] ? ": with fewer lines than nodes some node would have no line to transform" : ""));
  }
  std::size_t best = std::numeric_limits<std::size_t>::max();
  RingBlockPlan trial = plan;
  for (const Split& s0 : options[0])
    for (const Split& s1 : options[1])
      for (const Split& s2 : options[2]) {
        trial.split = {s0, s1, s2};
        if (!obeys_chain_rule(trial)) continue;
        const std::size_t cost = trial.messages_per_node();
        if (cost < best) {
          best = cost;
          plan.split = trial.split;
        }
      }
  if (best == std::numeric_limits<std::size_t>::max())
    throw std::invalid_argument(fmt::format(
        "P: '{}x{}x{}' is not allowed with algorithm ring_block_fft and N={} (blocks {}x{}x{}): every ring can share its "
        "lines, but no choice lets consecutive rings (axes {}, {}, {}) cut the third axis alike, so some piece would be "
        "split between two nodes of the next ring; allowed: block extents with more common divisors of the P_a, e.g. a "
        "larger N",
        shape.p1, shape.p2, shape.p3, extents_text(problem.grid.tensor_extents()), plan.b[0], plan.b[1], plan.b[2],
        plan.order[0], plan.order[1], plan.order[2]));
  return plan;
}

}  // namespace torus
