// The slab decomposition: N1 x N2 x (N3/P) slabs on the P nodes of the torus, placed along a
// Hamiltonian path (sim/geometry.hpp snake_order). Each node transforms axes 1 and 2 of its
// slab locally; one all-to-all transpose, routed through the torus in dimension order, makes
// axis 3 local for N1 x (N2/P) x N3 slabs; the result stays there (the inverse starts from it
// and ends in the input's slabs). At most N3 (and N2) nodes.

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/transpose_fft.hpp"

namespace torus {
namespace {

TransposePlan slab_plan(const TransformProblem& problem) {
  TransposePlan plan;
  plan.algorithm = "slab_fft";
  plan.description = "slab decomposition (1 x P process grid along a Hamiltonian path, one all-to-all)";
  const TorusShape& shape = problem.shape;
  plan.pr = 1;
  plan.pc = shape.node_count();
  plan.axis_r = 2;
  plan.axis_c = 3;
  for (const NodeCoord& c : snake_order(shape)) plan.node_of.push_back(shape.index_of(c));
  plan.partner = ring_partner;
  plan.route = [shape](std::size_t from, std::size_t to) { return shortest_route(shape, shape.coord_of(from), shape.coord_of(to)); };
  return plan;
}

}  // namespace

std::unique_ptr<Algorithm> make_slab_fft() { return make_transpose_algorithm("slab_fft", slab_plan); }

}  // namespace torus
