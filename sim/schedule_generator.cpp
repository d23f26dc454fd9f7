// The orbital schedule (Sedukhin, "Co-design of Extremely Scalable Algorithms/Architecture for
// 3-Dimensional Linear Transforms", Sec. 4) generated from its index algebra.
// Each stage is described once as data (which block is the accumulator, operand and
// coefficient as functions of the node and the orbit label k = T - t, and which kinds roll
// along which axis); a single loop turns a form into P steps for every node.

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/schedule.hpp"

namespace torus {
namespace {

// The index symbols a block name is built from: node coordinates and the orbit label k.
enum class Symbol : std::uint8_t { Q, R, S, K };

struct BlockTemplate {
  BlockKind kind;
  std::array<Symbol, 3> index;  // coefficient blocks use the first two
};

struct AxisRoll {
  BlockKind kind;
  Axis axis;  // the roll goes along this axis with the scheduling vector's sign for it
};

struct StageForm {
  int mode;
  const char* summary;
  BlockTemplate accumulator;
  BlockTemplate operand;
  BlockTemplate coefficient;
  std::array<AxisRoll, 2> rolls;
};

using S = Symbol;
using K = BlockKind;

// Forward: X(Q,R,S) canonical -> Y(S,Q,T) skewed.
constexpr std::array<StageForm, 3> forward_forms = {{
    {3, "n3 -> k3: X'(Q,R,k) += X(Q,R,S) x3 C3(S,k)", {K::Xdot, {S::Q, S::R, S::K}},
     {K::X, {S::Q, S::R, S::S}}, {K::Coef3, {S::S, S::K, S::K}}, {{{K::Xdot, Axis::S}, {K::Coef3, Axis::Q}}}},
    {1, "n1 -> k1: X''(S,R,k) += X'(Q,R,k) x1 C1(Q,S)", {K::Xddot, {S::S, S::R, S::K}},
     {K::Xdot, {S::Q, S::R, S::K}}, {K::Coef1, {S::Q, S::S, S::K}}, {{{K::Xddot, Axis::Q}, {K::Xdot, Axis::S}}}},
    {2, "n2 -> k2: Y(S,Q,k) += X''(S,R,k) x2 C2(R,Q)", {K::Y, {S::S, S::Q, S::K}},
     {K::Xddot, {S::S, S::R, S::K}}, {K::Coef2, {S::R, S::Q, S::K}}, {{{K::Y, Axis::R}, {K::Xddot, Axis::Q}}}},
}};

// Inverse: the forward rolled back, Y(S,Q,T) skewed -> X(Q,R,S) canonical.
constexpr std::array<StageForm, 3> inverse_forms = {{
    {2, "k2 -> n2: X''(S,R,k) += Y(S,Q,k) x2 D2(Q,R)", {K::Xddot, {S::S, S::R, S::K}},
     {K::Y, {S::S, S::Q, S::K}}, {K::Coef2, {S::Q, S::R, S::K}}, {{{K::Xddot, Axis::Q}, {K::Y, Axis::R}}}},
    {1, "k1 -> n1: X'(Q,R,k) += X''(S,R,k) x1 D1(S,Q)", {K::Xdot, {S::Q, S::R, S::K}},
     {K::Xddot, {S::S, S::R, S::K}}, {K::Coef1, {S::S, S::Q, S::K}}, {{{K::Xdot, Axis::S}, {K::Xddot, Axis::Q}}}},
    {3, "k3 -> n3: X(Q,R,S) += X'(Q,R,k) x3 D3(k,S)", {K::X, {S::Q, S::R, S::S}},
     {K::Xdot, {S::Q, S::R, S::K}}, {K::Coef3, {S::K, S::S, S::K}}, {{{K::Xdot, Axis::S}, {K::Coef3, Axis::Q}}}},
}};

int evaluate(Symbol symbol, const NodeCoord& node, int k) {
  switch (symbol) {
    case Symbol::Q: return node.q;
    case Symbol::R: return node.r;
    case Symbol::S: return node.s;
    case Symbol::K: return k;
  }
  return 0;
}

BlockId instantiate(const BlockTemplate& t, const NodeCoord& node, int k) {
  BlockId id{t.kind, {evaluate(t.index[0], node, k), evaluate(t.index[1], node, k), 0}};
  if (!is_coefficient(t.kind)) id.index[2] = evaluate(t.index[2], node, k);
  return id;
}

std::size_t nodes_listed(const TorusShape& shape, ScheduleNodes nodes) {
  return nodes == ScheduleNodes::All ? shape.node_count() : 1;
}

std::vector<Placement> place(const BlockTemplate& t, const TorusShape& shape, const SchedulingVector& alpha, ScheduleNodes nodes) {
  std::vector<Placement> out;
  for (std::size_t i = 0; i < nodes_listed(shape, nodes); ++i) {
    const NodeCoord node = shape.coord_of(i);
    out.push_back({node, instantiate(t, node, alpha.time_of(node, shape.p1))});
  }
  return out;
}

ScheduleStage make_stage(int number, const StageForm& form, const TorusShape& shape, const SchedulingVector& alpha,
                         ScheduleNodes nodes) {
  const int p = shape.p1;
  ScheduleStage stage;
  stage.number = number;
  stage.mode = form.mode;
  stage.summary = form.summary;
  stage.created = place(form.accumulator, shape, alpha, nodes);
  std::vector<Roll> rolls;
  for (const AxisRoll& roll : form.rolls) rolls.push_back({roll.kind, direction_along(roll.axis, alpha.along(roll.axis))});
  for (int t = 0; t < p; ++t) {
    ScheduleStep step;
    step.rolls = rolls;
    step.ops.reserve(nodes_listed(shape, nodes));
    for (std::size_t i = 0; i < nodes_listed(shape, nodes); ++i) {
      const NodeCoord node = shape.coord_of(i);
      const int k = ((alpha.time_of(node, p) - t) % p + p) % p;
      step.ops.push_back({node, instantiate(form.accumulator, node, k), instantiate(form.operand, node, k),
                          instantiate(form.coefficient, node, k), form.mode});
    }
    stage.steps.push_back(std::move(step));
  }
  return stage;
}

}  // namespace

Schedule generate_schedule(const TorusShape& shape, const BlockGrid& grid, const SchedulingVector& alpha,
                           TransformDirection direction, ScheduleNodes nodes) {
  validate(shape);
  if (!shape.is_cube())
    throw std::invalid_argument(
        "P: " + std::to_string(shape.p1) + "x" + std::to_string(shape.p2) + "x" + std::to_string(shape.p3) +
        " is not allowed with algorithm orbital: its schedule labels steps T = (aQ Q + aR R + aS S) mod P and moves "
        "blocks across axes (node coordinate S indexes output axis 1 from stage II on, Q indexes axis 2 in stage III: "
        "output block Y(S,Q,T)), so it needs a cubic torus (P1 = P2 = P3); allowed: a cube such as 4 or 4x4x4, or algorithm "
        "orbital_local_coefficients, which runs on any P1xP2xP3");
  for (std::size_t a = 0; a < 3; ++a)
    if (grid.axis[a].parts != static_cast<std::size_t>(shape.p1) || grid.axis[a].n < grid.axis[a].parts)
      throw std::invalid_argument("N: axis " + std::to_string(a + 1) + " has " + std::to_string(grid.axis[a].n) +
                                  " elements in " + std::to_string(grid.axis[a].parts) + " blocks; the orbital schedule on " +
                                  std::to_string(shape.p1) + "^3 nodes needs " + std::to_string(shape.p1) +
                                  " blocks of at least one element along every axis");
  const auto& forms = direction == TransformDirection::Forward ? forward_forms : inverse_forms;
  Schedule schedule;
  schedule.shape = shape;
  schedule.grid = grid;
  schedule.alpha = alpha;
  schedule.direction = direction;
  schedule.input_kind = forms[0].operand.kind;
  schedule.output_kind = forms[2].accumulator.kind;
  schedule.initial = place(forms[0].operand, shape, alpha, nodes);
  for (const StageForm& form : forms) {
    const std::vector<Placement> coefficients = place(form.coefficient, shape, alpha, nodes);
    schedule.initial.insert(schedule.initial.end(), coefficients.begin(), coefficients.end());
  }
  for (int s = 0; s < 3; ++s)
    schedule.stages.push_back(make_stage(s + 1, forms[static_cast<std::size_t>(s)], shape, alpha, nodes));
  return schedule;
}

NodePlacements node_placements(const TorusShape& shape, const SchedulingVector& alpha, TransformDirection direction,
                               std::size_t node) {
  const auto& forms = direction == TransformDirection::Forward ? forward_forms : inverse_forms;
  const NodeCoord at = shape.coord_of(node);
  const int k = alpha.time_of(at, shape.p1);
  NodePlacements out;
  out.input_kind = forms[0].operand.kind;
  out.initial.push_back(instantiate(forms[0].operand, at, k));
  for (const StageForm& form : forms) out.initial.push_back(instantiate(form.coefficient, at, k));
  for (std::size_t s = 0; s < 3; ++s) out.created[s] = instantiate(forms[s].accumulator, at, k);
  return out;
}

Schedule generate_schedule(const TorusShape& shape, std::size_t block_size, const SchedulingVector& alpha,
                           TransformDirection direction, ScheduleNodes nodes) {
  if (block_size < 1) throw std::invalid_argument("b: block size 0 is not allowed; b = N/P must be at least 1");
  return generate_schedule(shape, BlockGrid::cube(block_size, static_cast<std::size_t>(std::max(shape.p1, 1))), alpha,
                           direction, nodes);
}

}  // namespace torus
