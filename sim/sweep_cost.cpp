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
  const double n = static_cast<double>(run.n), p = static_cast<double>(run.p);
  const double values = run.computes_values() ? 3 * n * n * n * n * static_cast<double>(transforms * (split ? 4 : 1)) : 0;
  if (machine.engine == "functional") return values;
  const AnalyticPrediction predicted =
      predict_cycles(machine, {static_cast<std::size_t>(run.p), run.block_size(), transforms, run.runs_inverse(), split});
  const double timed_nodes = times_translation_quotient(run, machine) ? 1 : p * p * p;
  return static_cast<double>(predicted.cycles) * timed_nodes + values;
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
