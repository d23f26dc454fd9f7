// The transpose of "FFT for the APE Parallel Computer" (Lippert et al.): the p nodes form a
// ring numbered as the paper's Eq. 1 does (l = l2 + l1 p2 + l0 p2 p1: here Q fastest, so the
// ring position is the node's index), node l holding column block l (N1 x N2/p x N3). After
// the local transform of axis 1, the rows are shifted systolically: at step l = 1..p-1 every
// node sends the block its pre-skew put in row l to the node l places on, a translation of the
// whole torus by the coordinates of l, l0 + l1 + l2 links in the + direction of each axis (the
// SIMD machine's hardware shifts, the cost of the paper's Eq. 2). Pre-skew and re-skew are
// local addressing (free on a MIMD node). Then axis 2 is local (row blocks N1/p x N2 x N3),
// and axis 3 was local throughout. A 2D FFT (Algorithm 4) is N3 = 1.

#include <stdexcept>

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/transpose_fft.hpp"

namespace torus {
namespace {

NodeCoord shifted(const TorusShape& shape, const NodeCoord& a, const NodeCoord& by, int sign) {
  const auto wrap = [](int v, int p) { return ((v % p) + p) % p; };
  return {wrap(a.q + sign * by.q, shape.p1), wrap(a.r + sign * by.r, shape.p2), wrap(a.s + sign * by.s, shape.p3)};
}

TransposePlan ring_plan(const TransformProblem& problem) {
  if (!problem.shape.torus())
    throw std::invalid_argument("boundary: '" + boundary_text(problem.shape) +
                                "' is not allowed with algorithm ring_transpose_fft; allowed: torus (its shifts wrap round every axis)");
  TransposePlan plan;
  plan.algorithm = "ring_transpose_fft";
  plan.description = "ring transpose (p-node ring in Eq. 1 order, systolic shifts as torus translations)";
  const TorusShape shape = problem.shape;
  plan.pr = shape.node_count();
  plan.pc = 1;
  plan.axis_r = 2;
  plan.axis_c = 3;
  for (std::size_t i = 0; i < plan.pr; ++i) plan.node_of.push_back(i);
  plan.partner = [shape](const TransposePlan&, std::size_t p, int, std::size_t j, int toward) {
    return shape.index_of(shifted(shape, shape.coord_of(p), shape.coord_of(j), toward));
  };
  plan.route = [shape](std::size_t from, std::size_t to) {
    return forward_route(shape, shifted(shape, shape.coord_of(to), shape.coord_of(from), -1));
  };
  return plan;
}

}  // namespace

std::unique_ptr<Algorithm> make_ring_transpose_fft() { return make_transpose_algorithm("ring_transpose_fft", ring_plan); }

}  // namespace torus
