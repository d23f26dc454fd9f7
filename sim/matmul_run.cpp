#include "sim/matmul_run.hpp"

#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/algorithms/ring_matmul.hpp"
#include "sim/memory_estimate.hpp"
#include "sim/program_executor.hpp"
#include "sim/report.hpp"

namespace torus {

MatmulOutcome prepare_matmul(const RunConfig& run, Program& program, PhaseTimes& phases) {
  MatmulOutcome outcome;
  outcome.problem = matmul_problem_of(run);
  const auto algorithm = make_matmul_algorithm(run.algorithm);
  program = timed(phases, Phase::Program, [&] { return algorithm->build(outcome.problem); });
  const ProgramVerification verification = timed(phases, Phase::Verify, [&] { return verify_program(program, 1); });
  if (!verification.ok())
    throw std::logic_error("generated program is illegal: " + to_string(program, verification.violations.front()));
  const AlgorithmCheck check = timed(phases, Phase::Verify, [&] { return algorithm->check(outcome.problem); });
  outcome.violations = check.violation_count;
  if (!check.violations.empty()) outcome.first_violation = check.violations.front();
  outcome.counts = timed(phases, Phase::Program, [&] { return count_matmul(program); });
  outcome.chosen = run.algorithm == "auto" ? chosen_matmul_algorithm(outcome.problem) : run.algorithm;
  if (is_ring_algorithm(run.algorithm)) {
    const RingPlan plan = plan_ring_matmul(outcome.problem, run.algorithm);
    outcome.stride = plan.stride;
    outcome.mapping = plan.plane ? "plane" : "ring";
  }
  return outcome;
}

namespace {

// Operands, product, golden product and bound (tensors_bytes); node buffers, at most three
// windows' worth of each operand (nodes_bytes; the ring algorithms: K partial sums and K - 1
// received sums of C, B twice (held and pre-shifted), and on the ring mapping K~ blocks of A per
// node and the relays' copies); every node's messages and tasks, two per step and operand
// (schedule_bytes; the ring algorithms take p steps and the back-shift's K - 1).
void check_matmul_memory(const RunConfig& run, const MatmulProblem& q, std::size_t element_bytes) {
  MemoryEstimate e;
  const auto m = static_cast<double>(q.m), k = static_cast<double>(q.k), n = static_cast<double>(q.n);
  const auto nodes = static_cast<double>(q.shape.node_count());
  double steps = static_cast<double>(std::lcm(q.rows(), q.columns()));
  double words = m * n + 3 * (m * k + k * n);
  if (is_ring_algorithm(run.algorithm)) {
    const RingPlan plan = plan_ring_matmul(q, run.algorithm);
    const auto stride = static_cast<double>(plan.stride), rounds = nodes / stride;
    words = 2 * stride * m * n + 2 * k * n + (plan.plane ? 3 : rounds + 2) * m * k;
    steps = nodes + stride;
  }
  e.tensors_bytes = static_cast<double>(element_bytes) * (m * k + k * n + 3 * m * n) + 8 * m * n;
  e.nodes_bytes = static_cast<double>(element_bytes) * words + nodes * 65536;
  e.schedule_bytes = nodes * (steps * 6 + 8) * 256;
  check_memory(e, run.max_memory, "smaller m, k, n or a smaller array");
}

std::size_t element_bytes(ScalarType scalar) {
  return (scalar.precision == Precision::Single ? 4 : 8) * (scalar.domain == Domain::Complex ? 2 : 1);
}

}  // namespace

RunReport describe_matmul_run(const RunConfig& run, ScalarType scalar) {
  const MatmulProblem q = matmul_problem_of(run);
  check_matmul_memory(run, q, element_bytes(scalar));
  RunReport report;
  report.task = "matmul";
  report.algorithm = run.algorithm;
  report.n = {q.m, q.k, q.n};
  report.p = {q.rows(), q.columns(), 1};
  report.boundary = boundary_text(q.shape);
  // The ring algorithms cut C into p column blocks, the others into Nr x Nc blocks.
  const BlockGrid c = BlockGrid::make({q.m, 1, q.n}, is_ring_algorithm(run.algorithm) ? std::array<std::size_t, 3>{1, 1, q.shape.node_count()}
                                                          : std::array<std::size_t, 3>{static_cast<std::size_t>(q.rows()), 1,
                                                                                       static_cast<std::size_t>(q.columns())});
  report.b = c.describe_blocks();
  report.uniform_cube = false;
  report.largest_block = {c.axis[0].largest(), 1, c.axis[2].largest()};
  report.transform = "matmul";
  report.scalar = scalar;
  report.seed = run.seed;
  const std::string random = "random (seed " + std::to_string(run.seed) + ")";
  report.input = "A " + (run.matmul.input_a.empty() ? random : run.matmul.input_a) + ", B " +
                 (run.matmul.input_b.empty() ? random : run.matmul.input_b);
  report.fma_per_multiply_add = scalar.domain == Domain::Complex ? 4 : 1;
  return report;
}

template <class T>
Tensor3<T> matmul_functional(const RunConfig& run, RunReport& report) {
  std::optional<PhaseTimer> teardown;  // first made, last destroyed: it times the others' destruction
  PhaseTimes& phases = report.phases;
  Program program;
  MatmulOutcome outcome = prepare_matmul(run, program, phases);
  const HostData<T> host = timed(phases, Phase::Input, [&] { return HostData<T>{Tensor3<T>(), {}, make_operands<T>(run)}; });
  std::optional<ProgramResult<T>> result = timed(phases, Phase::Simulate, [&] { return execute_program(program, host); });
  Tensor3<T> c = timed(phases, Phase::Gather, [&] {
    Tensor3<T> gathered = result->gather(program, matmul_output);
    result.reset();  // the node buffers go before the golden product comes
    return gathered;
  });
  timed(phases, Phase::Check, [&] { check_product(outcome, c, host.operands, program); });
  report.matmul = outcome;
  teardown.emplace(phases, Phase::Teardown);
  return c;
}

template Tensor3<float> matmul_functional(const RunConfig&, RunReport&);
template Tensor3<double> matmul_functional(const RunConfig&, RunReport&);
template Tensor3<std::complex<float>> matmul_functional(const RunConfig&, RunReport&);
template Tensor3<std::complex<double>> matmul_functional(const RunConfig&, RunReport&);

}  // namespace torus
