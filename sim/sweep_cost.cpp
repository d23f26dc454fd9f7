#include "sim/sweep_cost.hpp"

#include <exception>

#include "sim/algorithm.hpp"
#include "sim/analytic_model.hpp"
#include "sim/parameter_bundle.hpp"

namespace torus {
namespace {

double cost_of(const RunConfig& run, const MachineConfig& machine) {
  const ScalarType scalar = validate(run);
  const bool split = scalar.domain == Domain::Complex && machine.complex_cost() == 4;
  const std::size_t transforms = run.runs_forward() && run.runs_inverse() ? 2 : 1;
  const Extents3 n = run.tensor_extents();
  const double elements = static_cast<double>(n[0]) * static_cast<double>(n[1]) * static_cast<double>(n[2]);
  // One whole transform: every element takes N_a multiply-adds along each axis a.
  const double multiply_adds =
      elements * static_cast<double>(n[0] + n[1] + n[2]) * static_cast<double>(transforms * (split ? 4 : 1));
  const double values = run.computes_values() ? multiply_adds : 0;
  if (machine.engine == "functional") return values;
  const double nodes = static_cast<double>(run.node_count());
  const BlockGrid grid = run.block_grid();
  // The closed forms hold for the orbital schedule with b x b x b blocks on a P x P x P torus;
  // for any other run, the fma work of one node stands for its cycles (an ordering key only).
  const bool closed_form = run.algorithm == "orbital" && run.torus_shape().is_cube() && grid.uniform_cube();
  const double cycles =
      closed_form ? static_cast<double>(predict_cycles(machine, {static_cast<std::size_t>(run.torus_shape().p1),
                                                                 grid.axis[0].largest(), transforms, run.runs_inverse(), split, {}, {}})
                                            .cycles)
                  : multiply_adds / nodes;
  const double timed_nodes = times_translation_quotient(run, machine) ? 1 : nodes;
  return cycles * timed_nodes + values;
}

}  // namespace

double expected_point_cost(const Settings& parameters) {
  try {
    ParameterBundle bundle;
    for (const auto& [key, value] : parameters) bundle.set.set(key, value);
    return cost_of(bundle.run, bundle.machine);
  } catch (const std::exception&) {
    return 0;  // refused when it runs, at once
  }
}

}  // namespace torus
