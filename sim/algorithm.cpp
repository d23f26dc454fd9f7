#include "sim/algorithm.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

#include "kernels/transform.hpp"
#include "sim/algorithms/factories.hpp"
#include "sim/registry.hpp"

namespace torus {
namespace {

const Registry<Algorithm>& transform_algorithms() {
  static const Registry<Algorithm> table("algorithm", {{"orbital", make_orbital},
                                                      {"orbital_local_coefficients", make_orbital_local_coefficients},
                                                      {"slab_fft", make_slab_fft},
                                                      {"pencil_fft", make_pencil_fft},
                                                      {"ring_transpose_fft", make_ring_transpose_fft},
                                                      {"ring_block_fft", make_ring_block_fft}});
  return table;
}

}  // namespace

TransformProblem problem_of(const RunConfig& run) {
  TransformProblem problem{run.torus_shape(), run.block_grid(), run.scheduling_vector(), {}, run.local_kernel, {}};
  if (run.runs_forward()) problem.directions.push_back(TransformDirection::Forward);
  if (run.runs_inverse()) problem.directions.push_back(TransformDirection::Inverse);
  const std::array<std::string, 3> names = axis_transform_names(run.transform);
  const Extents3 n = run.tensor_extents();
  for (std::size_t a = 0; a < 3; ++a) {
    const double length = static_cast<double>(n[a]);
    const bool ortho = run.normalisation == "ortho";
    problem.axes[a] = {names[a] == "dft" && std::has_single_bit(n[a]), ortho ? 1 / std::sqrt(length) : 1.0,
                       ortho ? 1 / std::sqrt(length) : 1 / length};
  }
  return problem;
}

bool Algorithm::translation_invariant(const TransformProblem&) const { return false; }

Program Algorithm::build_quotient(const TransformProblem&) const {
  throw std::logic_error("algorithm " + name() + " has no translation quotient: its nodes do not all run the same task list");
}

bool Algorithm::quotient_values(const TransformProblem&) const { return false; }

QuotientNodeBlocks Algorithm::node_blocks(const TransformProblem&, std::size_t) const {
  throw std::logic_error("algorithm " + name() + " cannot compute values from its translation quotient");
}

bool times_translation_quotient(const RunConfig& run, const MachineConfig& machine) {
  return machine.engine == "event" && machine.symmetry == "auto" && run.chrome_trace.empty() &&
         make_algorithm(run.algorithm)->translation_invariant(problem_of(run));
}

std::vector<std::string> algorithm_names() { return transform_algorithms().names(); }

std::unique_ptr<Algorithm> make_algorithm(const std::string& name) { return transform_algorithms().make(name); }

}  // namespace torus
