#include "sim/run.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/algorithm.hpp"
#include "sim/host_data.hpp"
#include "sim/matmul_run.hpp"
#include "sim/host_heap.hpp"
#include "sim/memory_estimate.hpp"
#include "sim/program_executor.hpp"
#include "sim/program_verifier.hpp"
#include "sim/report.hpp"
#include "sim/run_inputs.hpp"

namespace torus {

bool RunReport::passed() const {
  if (matmul && (matmul->violations != 0 || !matmul->error.within_tolerance())) return false;
  for (const auto& t : transforms)
    if (t.schedule_violations != 0 || !t.error.within_tolerance()) return false;
  if (timing && timing->fma_issued != timing->fma_expected) return false;
  return !round_trip || round_trip->within_tolerance();
}

RunReport describe_run(const RunConfig& config, ScalarType scalar) {
  RunReport report;
  const BlockGrid grid = config.block_grid();
  const TorusShape shape = config.torus_shape();
  report.algorithm = config.algorithm;
  report.n = grid.tensor_extents();
  report.p = {shape.p1, shape.p2, shape.p3};
  report.boundary = boundary_text(shape);
  report.b = grid.describe_blocks();
  report.uniform_cube = grid.uniform_cube() && shape.is_cube();
  report.largest_block = {grid.axis[0].largest(), grid.axis[1].largest(), grid.axis[2].largest()};
  report.coefficients_local = make_algorithm(config.algorithm)->coefficients_local();
  if (report.coefficients_local) report.tables = coefficient_tables(config, grid, scalar.domain == Domain::Complex);
  report.transform = parse_axis_transforms(config.transform, config.transform_options()).describe();
  report.alpha = config.scheduling_vector().to_string();
  report.normalisation = config.normalisation;
  report.scalar = scalar;
  report.seed = config.seed;
  report.input = config.input.empty() ? "random (seed " + std::to_string(config.seed) + ")" : config.input;
  report.fma_per_multiply_add = scalar.domain == Domain::Complex ? 4 : 1;
  return report;
}

template <class T>
void write_run_outputs(const RunConfig& config, RunReport& report, const Tensor3<T>& result,
                       std::chrono::steady_clock::time_point start) {
  if (!config.output.empty()) {
    const PhaseTimer timer(report.phases, Phase::Output);
    if (config.is_matmul()) write_npy_matrix(config.output, result);  // C, m x n
    else write_npy(config.output, result);
  }
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!config.report_json.empty()) write_file_atomically(config.report_json, to_json(report).dump(2) + "\n");
}

bool node_memory_is_cheap(const RunConfig& config) {
  constexpr std::size_t most_nodes_built = std::size_t{1} << 20;
  return make_algorithm(config.algorithm)->translation_invariant(problem_of(config)) || config.node_count() <= most_nodes_built;
}

NodeMemoryFit fit_in_node_memory(const RunConfig& config, const MachineConfig& machine, const RunReport& report) {
  TransformProblem problem = problem_of(config);
  problem.max_program_bytes = program_budget(config.max_memory);  // built before the host's memory is checked
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(config.algorithm);
  // Every node of a translation-invariant Program holds the same buffers: one node tells.
  const Program program = algorithm->translation_invariant(problem) ? algorithm->build_quotient(problem) : algorithm->build(problem);
  const std::uint64_t words = count(program, 0).words_held_per_node;
  return node_memory_fit(words, report.scalar, report.coefficients_local ? &report.tables : nullptr, machine.node_memory_bytes);
}

void write_unfit_report(const RunConfig& config, const RunReport& report) {
  if (!config.report_json.empty()) write_file_atomically(config.report_json, to_json(report).dump(2) + "\n");
}

namespace {

// `bytes`: the run's estimated memory, as the memory check found it.
void prepare_heap(const RunConfig& config, const MachineConfig& machine, double bytes) {
  // auto: where it was measured (README, "Speed"), the cycle engine's every-node state; a page
  // that comes huge holds 2 MiB from its first touch, which sparser state would pay in memory.
  const bool automatic = config.huge_pages == "auto" && machine.engine == "systemc" && bytes >= huge_heap_auto_bytes;
  if (config.huge_pages == "on" || automatic) prepare_huge_heap(static_cast<std::size_t>(bytes));
}

}  // namespace

bool admit_run(const RunConfig& config, const MachineConfig& machine, RunReport& report, bool complex_data,
               std::chrono::steady_clock::time_point start) {
  if (config.is_matmul()) return true;  // its memory is checked when its Program is built
  // Decided before the host's memory where that is cheap: a run the simulated machine could not
  // hold is an answer about that machine, whatever this host could do.
  MemoryEstimate estimate;
  {
    const PhaseTimer timer(report.phases, Phase::MemoryCheck);
    const bool cheap = node_memory_is_cheap(config);
    if (!cheap) estimate = check_memory(config, machine, complex_data);
    report.node_memory = fit_in_node_memory(config, machine, report);
    if (cheap && report.fits()) estimate = check_memory(config, machine, complex_data);
  }
  if (report.fits()) {  // checked on both paths when it fits
    report.memory_estimate = estimate.total();
    prepare_heap(config, machine, report.memory_estimate);
  }
  if (!report.fits()) {
    report.values = config.computes_values();
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_unfit_report(config, report);
    return false;
  }
  return true;
}

template void write_run_outputs(const RunConfig&, RunReport&, const Tensor3<float>&, std::chrono::steady_clock::time_point);
template void write_run_outputs(const RunConfig&, RunReport&, const Tensor3<double>&, std::chrono::steady_clock::time_point);
template void write_run_outputs(const RunConfig&, RunReport&, const Tensor3<std::complex<float>>&, std::chrono::steady_clock::time_point);
template void write_run_outputs(const RunConfig&, RunReport&, const Tensor3<std::complex<double>>&, std::chrono::steady_clock::time_point);

namespace {

// The report's schedule figures, read off the Program for one transform.
ScheduleCounts expected_counts(const Program& program, std::uint32_t transform) {
  const ProgramCounts p = count(program, transform);
  ScheduleCounts c{p.steps, p.compute_tasks, p.scalar_multiply_adds, p.words_held_per_node, {}, p.messages, p.hops, p.max_hops,
                   p.fft_butterflies};
  for (std::size_t s = 0; s < 3; ++s) c.stage[s].words_moved_per_node_step = p.words_sent_per_node_step[s];
  return c;
}

// What the functional executor counted for one transform, in the report's terms.
ExecutionCounts measured_counts(const ProgramExecutionCounts& p) {
  return {p.steps, p.compute_tasks, p.scalar_multiply_adds, p.words_sent_per_node_step, p.words_sent_per_node_step_min,
          p.words_held_per_node, p.fft_butterflies};
}

// The algorithm's own proofs for one direction plus the generic verifier's verdict on the
// whole Program (a broken Program puts every transform in doubt).
void record_checks(TransformOutcome& outcome, const Algorithm& algorithm, TransformProblem problem,
                   const Program& program, const ProgramVerification& verification, PhaseTimes& phases) {
  problem.directions = {outcome.direction};
  const AlgorithmCheck check = timed(phases, Phase::Verify, [&] { return algorithm.check(problem); });
  outcome.schedule_violations = check.violation_count + verification.violation_count;
  if (!check.violations.empty()) outcome.first_violation = check.violations.front();
  else if (!verification.violations.empty()) outcome.first_violation = to_string(program, verification.violations.front());
}

// One Program runs every requested direction in order (the inverse of a round trip reads the
// forward result where the torus left it); each direction's output is golden-checked against
// the transform of what actually went in.
template <class T>
Tensor3<T> run_typed(const RunConfig& config, RunReport& report) {
  // Declared first, so destroyed last: started at the end, it times the destruction of the rest.
  std::optional<PhaseTimer> teardown;
  PhaseTimes& phases = report.phases;
  const CoefficientSet<T> c = timed(phases, Phase::Input, [&] { return make_coefficients<T>(config); });
  report.inverse_defects = c.defects;
  const TransformProblem problem = problem_of(config);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(config.algorithm);
  const Program program = timed(phases, Phase::Program, [&] { return algorithm->build(problem); });
  const ProgramVerification verification = timed(phases, Phase::Verify, [&] { return verify_program(program, 1); });
  HostData<T> host = timed(phases, Phase::Input, [&] {
    HostData<T> made{make_input<T>(config), {}, {}};
    for (const TransformDirection d : problem.directions)
      made.coefficients.push_back(d == TransformDirection::Forward ? c.forward : c.inverse);
    return made;
  });
  const ProgramResult<T> result = timed(phases, Phase::Simulate, [&] { return execute_program(program, host); });
  Tensor3<T> current = host.input, y_hat;
  for (std::uint32_t t = 0; t < problem.directions.size(); ++t) {
    TransformOutcome outcome;
    outcome.direction = problem.directions[t];
    outcome.expected = timed(phases, Phase::Program, [&] { return expected_counts(program, t); });
    record_checks(outcome, *algorithm, problem, program, verification, phases);
    outcome.measured = measured_counts(result.per_transform.at(t));
    std::vector<OutputBlock> layout;
    Tensor3<T> output =
        timed(phases, Phase::Gather, [&] { return result.gather(program, to_string(outcome.direction), &layout); });
    timed(phases, Phase::Check,
          [&] { check_against_golden(outcome, current, output, program, layout, host.coefficients[t]); });
    report.transforms.push_back(outcome);
    if (outcome.direction == TransformDirection::Forward) y_hat = output;
    current = std::move(output);
  }
  if (config.runs_forward() && config.runs_inverse())
    report.round_trip = timed(phases, Phase::Check, [&] { return round_trip_error(current, host.input, y_hat, c); });
  teardown.emplace(phases, Phase::Teardown);
  return current;
}

}  // namespace

RunReport run_functional(const RunConfig& config, const MachineConfig& machine) {
  if (!config.computes_values())
    throw std::invalid_argument("values: 'off' is not allowed with engine functional, which only computes values; allowed: "
                                "values on, or engine systemc or event to time the run");
  const auto start = std::chrono::steady_clock::now();
  const ScalarType scalar = validate(config);
  if (!config.chrome_trace.empty() || !config.vcd_trace.empty())
    throw std::invalid_argument("chrome_trace and vcd_trace need engine: systemc (the functional engine keeps no time)");
  MachineConfig functional;  // the memory estimate of an untimed run; only the node's capacity is the user's
  functional.engine = "functional";
  functional.node_memory_bytes = machine.node_memory_bytes;
  RunReport report = config.is_matmul() ? describe_matmul_run(config, scalar) : describe_run(config, scalar);
  if (!admit_run(config, functional, report, scalar.domain == Domain::Complex, start)) return report;
  dispatch_scalar(scalar, [&]<class T>() {
    const Tensor3<T> result = config.is_matmul() ? matmul_functional<T>(config, report) : run_typed<T>(config, report);
    write_run_outputs(config, report, result, start);
  });
  return report;
}

}  // namespace torus
