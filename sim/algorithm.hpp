#pragma once
// The algorithm extension point: one Program generator per algorithm, registered by name in
// sim/algorithm.cpp and selected with the `algorithm` parameter.

#include <memory>
#include <string>
#include <vector>

#include "sim/machine_config.hpp"
#include "sim/program.hpp"
#include "sim/run_config.hpp"
#include "sim/schedule.hpp"
#include "sim/scheduling_vector.hpp"

namespace torus {

// A 3D separable transform on a torus: the directions run in order (forward then inverse for
// a round trip), each one the whole transform.
// Per axis, what a node's local transform along it may be (`local_kernel`, read by the
// transpose algorithms): FFT tasks when the axis is a DFT of power-of-two length, scaled by the
// transform's normalisation, else dense products with the coefficient matrix.
struct LocalAxis {
  bool fft = false;
  double forward_scale = 1, inverse_scale = 1;
};

struct TransformProblem {
  TorusShape shape;
  BlockGrid grid;  // the tensor's blocks: N_a elements along axis a in P_a blocks
  SchedulingVector alpha;
  std::vector<TransformDirection> directions;
  std::string local_kernel = "dense";  // auto, fft or dense
  std::array<LocalAxis, 3> axes{};
  std::size_t max_program_bytes = 0;  // the built Program's byte_budget (0: no limit)
};

// The problem a run configuration asks for (shape, blocks, scheduling vector, directions).
TransformProblem problem_of(const RunConfig& run);

// What an algorithm's own checks found, beyond the generic verifier's.
struct AlgorithmCheck {
  std::size_t violation_count = 0;
  std::vector<std::string> violations;  // the first few, readable
  bool ok() const { return violation_count == 0; }
  // Counts a violation, keeping the first four readable.
  void add(const std::string& what) {
    if (violations.size() < 4) violations.push_back(what);
    ++violation_count;
  }
};

// Contract: build() returns a Program that the generic verifier accepts and whose outputs
// named after each direction ("forward", "inverse") hold the transform's result blocks;
// it throws std::invalid_argument naming the parameter when the problem does not suit the
// algorithm. check() runs the algorithm's own proofs (for the orbital schedule: 3P steps,
// every block multiply-add exactly once, blocks home after each stage).
class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  virtual Program build(const TransformProblem& problem) const = 0;
  virtual AlgorithmCheck check(const TransformProblem& problem) const = 0;
  // Whether every node of build()'s Program runs the same task list (only block indices
  // differ: blocks of one size, every axis a torus); then build_quotient() makes its
  // translation quotient (Program::translation_quotient) without building the whole Program.
  // The default has none and throws std::logic_error.
  virtual bool translation_invariant(const TransformProblem& problem) const;
  virtual Program build_quotient(const TransformProblem& problem) const;
  // Whether node_blocks() says, for every node of build_quotient()'s Program, which blocks it
  // loads and outputs; then values come from the quotient (sim/quotient_executor.hpp) and the
  // whole Program is never built. The default has no such table and node_blocks() throws.
  virtual bool quotient_values(const TransformProblem& problem) const;
  virtual QuotientNodeBlocks node_blocks(const TransformProblem& problem, std::size_t node) const;
  // Whether nodes generate their coefficient blocks from local tables (Program::coefficients_local).
  virtual bool coefficients_local() const { return false; }
  // Whether the problem's grid cuts the tensor into the torus's P1 x P2 x P3 blocks (at least one
  // element per node along every axis); otherwise the algorithm cuts it its own way and the
  // problem's grid is the whole tensor.
  virtual bool blocks_per_node() const { return true; }
  // Whether the memory a run needs is estimated from the built Program (its buffers, messages
  // and kernels: sim/memory_estimate.cpp), rather than from the orbital schedule's counts per
  // node and step. Those fit an algorithm of a compute, two sends and two receives per step.
  virtual bool memory_from_program() const { return !blocks_per_node(); }
};

std::unique_ptr<Algorithm> make_algorithm(const std::string& name);

// Whether a run is timed on its Program's translation quotient: engine event, symmetry auto,
// no Chrome trace (it would show one node) and an algorithm whose nodes all run the same task
// list. With values on, the whole Program is built too and computes the values, untimed.
bool times_translation_quotient(const RunConfig& run, const MachineConfig& machine);
std::vector<std::string> algorithm_names();

}  // namespace torus
