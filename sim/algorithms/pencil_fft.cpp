// The pencil decomposition: N1 x (N2/Pr) x (N3/Pc) pencils on a Pr x Pc process grid, Pr = P1
// (the Q axis) and Pc = P2 P3 (the R x S layers, in boustrophedon order, so a P1 x P2 x 1
// torus is the plane itself). Each node transforms its pencils' lines locally; an all-to-all
// within each column of the grid (Pr nodes) makes axis 2 local, one within each row (Pc
// nodes) axis 3. At most N^2 nodes (Pr <= N1, N2 and Pc <= N2, N3).

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/transpose_fft.hpp"

namespace torus {
namespace {

TransposePlan pencil_plan(const TransformProblem& problem) {
  TransposePlan plan;
  plan.algorithm = "pencil_fft";
  const TorusShape& shape = problem.shape;
  plan.pr = static_cast<std::size_t>(shape.p1);
  plan.pc = static_cast<std::size_t>(shape.p2) * static_cast<std::size_t>(shape.p3);
  plan.description = "pencil decomposition (" + std::to_string(plan.pr) + " x " + std::to_string(plan.pc) +
                     " process grid: Q by the R x S layers, two all-to-alls)";
  plan.axis_r = 2;
  plan.axis_c = 3;
  const TorusShape layers{shape.p2, shape.p3, 1, {shape.boundary[1], shape.boundary[2], Topology::Torus}};
  const std::vector<NodeCoord> columns = snake_order(layers);
  plan.node_of.resize(plan.pr * plan.pc);
  for (std::size_t i = 0; i < plan.pr; ++i)
    for (std::size_t j = 0; j < plan.pc; ++j)
      plan.node_of[i * plan.pc + j] = shape.index_of({static_cast<int>(i), columns[j].q, columns[j].r});
  plan.partner = ring_partner;
  plan.route = [shape](std::size_t from, std::size_t to) { return shortest_route(shape, shape.coord_of(from), shape.coord_of(to)); };
  return plan;
}

}  // namespace

std::unique_ptr<Algorithm> make_pencil_fft() { return make_transpose_algorithm("pencil_fft", pencil_plan); }

}  // namespace torus
