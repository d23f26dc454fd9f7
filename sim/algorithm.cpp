#include "sim/algorithm.hpp"

#include <stdexcept>

#include "sim/algorithms/factories.hpp"
#include "sim/registry.hpp"

namespace torus {
namespace {

const Registry<Algorithm>& registry() {
  static const Registry<Algorithm> table("algorithm", {{"orbital", make_orbital}});
  return table;
}

}  // namespace

Program Algorithm::build_quotient(const TransformProblem&) const {
  throw std::logic_error("algorithm " + name() + " has no translation quotient: its nodes do not all run the same task list");
}

bool times_translation_quotient(const RunConfig& run, const MachineConfig& machine) {
  return machine.engine == "event" && machine.symmetry == "auto" && run.chrome_trace.empty() &&
         make_algorithm(run.algorithm)->translation_invariant();
}

std::vector<std::string> algorithm_names() { return registry().names(); }

std::unique_ptr<Algorithm> make_algorithm(const std::string& name) { return registry().make(name); }

}  // namespace torus
