#include "models/simulation.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <sys/resource.h>

#include "models/cycle/chrome_trace.hpp"
#include "models/cycle/isolated_run.hpp"
#include "models/cycle/timing_collector.hpp"
#include "models/cycle/torus_top.hpp"
#include "models/cycle/vcd_trace.hpp"
#include "sim/algorithm.hpp"
#include "sim/analytic_model.hpp"
#include "sim/memory_estimate.hpp"
#include "sim/program_verifier.hpp"
#include "sim/progress_meter.hpp"
#include "sim/run_inputs.hpp"

namespace torus {
namespace {

std::vector<std::pair<std::string, std::string>> machine_echo(const MachineConfig& machine) {
  MachineConfig copy = machine;
  ParameterSet set;
  copy.declare(set);
  std::vector<std::pair<std::string, std::string>> echo;
  for (const auto& spec : set.specs()) echo.emplace_back(spec.key, spec.default_value);
  return echo;
}

TransformProblem problem_of(const RunConfig& run) {
  TransformProblem problem{TorusShape::cube(static_cast<int>(run.p)), run.block_size(), run.scheduling_vector(), {}};
  if (run.runs_forward()) problem.directions.push_back(TransformDirection::Forward);
  if (run.runs_inverse()) problem.directions.push_back(TransformDirection::Inverse);
  return problem;
}

// Builds the Program and proves it before any engine runs it: the algorithm's own checks,
// then what is read off the Program per transform.
Program build_program(const RunConfig& run, std::vector<TransformOutcome>& outcomes) {
  const TransformProblem problem = problem_of(run);
  const auto algorithm = make_algorithm(run.algorithm);
  const AlgorithmCheck check = algorithm->check(problem);
  if (!check.ok()) throw std::logic_error("the algorithm's own checks fail: " + check.violations.front());
  Program program = algorithm->build(problem);
  const ProgramVerification verification = verify_program(program, 1);
  if (!verification.ok())
    throw std::logic_error("generated program is illegal: " + to_string(program, verification.violations.front()));
  for (std::size_t t = 0; t < problem.directions.size(); ++t) {
    TransformOutcome outcome;
    outcome.direction = problem.directions[t];
    outcome.schedule_violations = check.violation_count + verification.violation_count;
    const ProgramCounts counts = count(program, static_cast<std::uint32_t>(t));
    outcome.expected.steps = counts.steps;
    outcome.expected.block_multiply_adds = counts.compute_tasks;
    outcome.expected.scalar_multiply_adds = counts.scalar_multiply_adds;
    outcome.expected.words_held_per_node = counts.words_held_per_node;
    for (std::size_t s = 0; s < 3; ++s) outcome.expected.stage[s].words_moved_per_node_step = counts.words_sent_per_node_step[s];
    outcomes.push_back(outcome);
  }
  return program;
}

TopConfig top_config(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault) {
  TopConfig config;
  config.fma_latency = static_cast<Cycle>(machine.fma_latency);
  config.fma_per_cycle = static_cast<unsigned>(machine.fma_per_cycle);
  config.link_latency = static_cast<Cycle>(machine.link_latency);
  config.link_rate = machine.link_rate();
  config.link_buffer_words = static_cast<std::uint64_t>(machine.link_buffer(run.block_size()));
  // A waveform samples every node every cycle, so nothing may be skipped while tracing.
  config.fast_forward = machine.fast_forward == "on" && run.vcd_trace.empty();
  config.stepping_nodes = machine.stepping_nodes(TorusShape::cube(static_cast<int>(run.p)).node_count());
  config.fault = fault.kind();
  if (config.fault != FaultKind::None) {
    config.fault_node = TorusShape::cube(static_cast<int>(run.p)).index_of(fault.node());
    config.fault_link = fault.link();
    config.fault_cycle = static_cast<Cycle>(fault.fault_cycle);
    config.fault_bit = static_cast<int>(fault.fault_bit);
  }
  const Rational rate = machine.link_rate();
  config.watchdog_cycles = fault.watchdog(machine.fma_latency, machine.link_latency, (rate.den + rate.num - 1) / rate.num);
  return config;
}

template <class T>
Tensor3<T> gather(const TorusTop& top, const std::string& name, std::size_t n, std::vector<OutputBlock>* layout) {
  const Program& program = top.program();
  const ProgramOutput& output = *program.output(name);
  std::vector<std::vector<T>> values(top.nodes.size());
  return gather_output<T>(
      program, output, n,
      [&](std::size_t node, std::uint32_t buffer) {
        values[node] = buffer_values<T>(top.nodes[node].datapath(), buffer, program.nodes[node].buffers[buffer].words);
        return values[node].data();
      },
      layout);
}

// The stages' results survive only for the run's last transform (an inverse after a forward
// re-creates the forward's intermediate blocks).
template <class T>
std::string locate_wrong_stage(const TorusTop& top, std::size_t transform, std::size_t n, const Tensor3<T>& input,
                               const Tensor3<T>& result, const std::array<Matrix<T>, 3>& matrices) {
  const Program& program = top.program();
  if (transform + 1 != program.transforms.size())
    return "stage not known: the next transform reused the intermediate blocks (run this direction alone to find it)";
  static const std::array<const char*, 4> roman = {"none", "I", "II", "III"};
  const std::string name = program.transforms[transform];
  std::array<Tensor3<T>, 3> partials{gather<T>(top, name + " stage I", n, nullptr), gather<T>(top, name + " stage II", n, nullptr),
                                     result};
  std::array<int, 3> modes{};
  for (std::size_t s = 0; s < 3; ++s) modes[s] = program.stages[3 * transform + s].mode;
  const int stage = first_wrong_stage(input, partials, matrices, modes);
  return std::string("first wrong stage: ") + roman[static_cast<std::size_t>(stage)] +
         (stage > 0 ? " (" + program.stages[3 * transform + static_cast<std::size_t>(stage - 1)].summary + ")" : "");
}

void check_stall(const TorusTop& top, const TopConfig& config, RunReport& report) {
  if (top.completed()) return;
  std::string message = "no fma issued and no word moved for " + std::to_string(config.watchdog_cycles) +
                        " cycles while work remains; " + std::to_string(top.stall_report().size()) +
                        " nodes wait (the first 8):";
  for (std::size_t i = 0; i < top.stall_report().size() && i < 8; ++i) message += "\n  " + top.stall_report()[i];
  if (!top.wait_chain().empty()) message += "\n" + top.wait_chain();
  if (!report.fault.empty()) message += "\ninjected fault: " + report.fault;
  throw StallError(message);
}

template <class T>
Tensor3<T> simulate_typed(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault, RunReport& report,
                          const ProgressDisplay& progress) {
  const CoefficientSet<T> c = make_coefficients<T>(run);
  report.inverse_defects = c.defects;
  const Program program = build_program(run, report.transforms);
  const bool split = is_complex_v<T> && machine.complex_cost() == 4;
  HostData<T> host{make_input<T>(run), {}, run.block_size()};
  for (const TransformOutcome& o : report.transforms)
    host.coefficients.push_back(o.direction == TransformDirection::Forward ? c.forward : c.inverse);
  const bool inverse_last = report.transforms.back().direction == TransformDirection::Inverse;
  const AnalyticPrediction predicted = predict_cycles(
      machine, {static_cast<std::size_t>(run.p), run.block_size(), program.transforms.size(), inverse_last, split});
  TopConfig config = top_config(run, machine, fault);
  std::optional<ProgressMeter> meter;
  if (progress) {
    meter.emplace(predicted.cycles, progress);
    config.on_progress = [&meter](Cycle cycle) { meter->update(cycle); };
  }
  const auto micro = make_micro_schedule(machine.micro_schedule);
  const auto policy = make_roll_policy(machine.roll_policy);
  TorusTop top("torus", config, program, *micro, *policy, split,
               [&](std::size_t node) { return make_datapath(program, node, host); });

  std::unique_ptr<VcdTrace> waveform;
  if (!run.vcd_trace.empty()) waveform = std::make_unique<VcdTrace>(run.vcd_trace, top);
  const auto start = std::chrono::steady_clock::now();
  // The kernel's "simulation stopped by user" note is expected: the torus stops itself.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_start();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (meter && meter->shown()) progress("");
  if (waveform) waveform->finish();  // a stalled run keeps its waveform: it shows the stall
  report.fault = top.fault_record();
  if (fault.kind() != FaultKind::None && report.fault.empty())
    report.fault = "fault " + fault.fault + " was set but never fired (nothing passed its place after cycle " +
                   std::to_string(fault.fault_cycle) + ")";
  check_stall(top, config, report);

  const StepRecords steps = step_records(top);
  if (!run.chrome_trace.empty()) write_chrome_trace(run.chrome_trace, top, steps, machine.clock_frequency());
  const std::size_t n = static_cast<std::size_t>(run.n), cost = is_complex_v<T> ? machine.complex_cost() : 1;
  TimingReport timing = collect_timing(top, steps, 3 * n * n * n * n * cost * program.transforms.size());
  timing.clock_hz = machine.clock_frequency();
  timing.words_link_buffers = direction_count * static_cast<std::uint64_t>(machine.link_buffer(run.block_size()));
  timing.simulation_seconds = seconds;
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) timing.peak_memory_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  timing.analytic = predicted;
  report.timing = timing;

  Tensor3<T> input = host.input, result, y_hat;
  for (std::size_t t = 0; t < program.transforms.size(); ++t) {
    std::vector<OutputBlock> layout;
    result = gather<T>(top, program.transforms[t], n, &layout);
    TransformOutcome& outcome = report.transforms[t];
    const auto& matrices = outcome.direction == TransformDirection::Forward ? c.forward : c.inverse;
    check_against_golden(outcome, input, result, program, layout, matrices, run.block_size());
    if (!outcome.mismatch.empty()) outcome.mismatch += "; " + locate_wrong_stage(top, t, n, input, result, matrices);
    outcome.measured = measured_counts(top, steps, static_cast<std::uint32_t>(t), report.fma_per_multiply_add);
    if (outcome.direction == TransformDirection::Forward) y_hat = result;
    input = result;
  }
  if (run.runs_forward() && run.runs_inverse()) report.round_trip = round_trip_error(result, host.input, y_hat, c);
  return result;
}

}  // namespace

RunReport simulate(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault,
                   const ProgressDisplay& progress) {
  const auto start = std::chrono::steady_clock::now();
  require_fresh_systemc_kernel();
  const ScalarType scalar = validate(run);
  validate(fault, static_cast<int>(run.p));
  check_memory(run, machine, scalar.domain == Domain::Complex);
  machine.link_rate();
  machine.clock_frequency();
  RunReport report = describe_run(run, scalar);
  report.engine = "systemc";
  if (scalar.domain == Domain::Complex) report.fma_per_multiply_add = machine.complex_cost();
  report.machine = machine_echo(machine);
  dispatch_scalar(scalar, [&]<class T>() {
    const Tensor3<T> result = simulate_typed<T>(run, machine, fault, report, progress);
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_run_outputs(run, report, result);
  });
  return report;
}

}  // namespace torus
