#include "models/simulation.hpp"

#include <chrono>
#include <stdexcept>
#include <sys/resource.h>

#include "models/chrome_trace.hpp"
#include "models/torus_top.hpp"
#include "models/vcd_trace.hpp"
#include "sim/analytic_model.hpp"
#include "sim/memory_estimate.hpp"
#include "sim/run_inputs.hpp"
#include "sim/verifier.hpp"

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

std::vector<Schedule> schedules_for(const RunConfig& run, std::vector<TransformOutcome>& outcomes) {
  std::vector<Schedule> schedules;
  for (const TransformDirection direction : {TransformDirection::Forward, TransformDirection::Inverse}) {
    if ((direction == TransformDirection::Forward && !run.runs_forward()) ||
        (direction == TransformDirection::Inverse && !run.runs_inverse()))
      continue;
    Schedule schedule = generate_schedule(TorusShape::cube(static_cast<int>(run.p)), run.block_size(),
                                          run.scheduling_vector(), direction);
    TransformOutcome outcome;
    outcome.direction = direction;
    outcome.expected = count(schedule);
    const VerificationReport verification = verify_schedule(schedule, 1);
    outcome.schedule_violations = verification.violation_count;
    if (!verification.ok())
      throw std::logic_error("generated schedule is illegal: " + to_string(verification.violations.front()));
    outcomes.push_back(outcome);
    schedules.push_back(std::move(schedule));
  }
  return schedules;
}

TimingReport collect_timing(const TorusTop& top, const RunConfig& run, const MachineConfig& machine, std::size_t cost) {
  TimingReport t;
  const std::size_t n = static_cast<std::size_t>(run.n), b = run.block_size();
  const std::size_t transforms = top.sequencer.schedules().size();
  t.total_cycles = top.completion_cycle();
  t.clock_hz = machine.clock_frequency();
  t.nodes = top.nodes.size();
  t.fma_per_cycle = static_cast<std::uint64_t>(machine.fma_per_cycle);
  t.fma_expected = 3 * n * n * n * n * cost * transforms;
  for (const Node& node : top.nodes) {
    const NodeStats& s = node.stats();
    t.fma_issued += node.pipeline().stats().issued;
    t.fast_forwarded_fma += s.fast_forwarded_fma;
    t.cycles.busy += s.busy_cycles;
    t.cycles.dependency += s.dependency_stalls;
    t.cycles.operand += s.operand_stalls;
    t.cycles.backpressure += s.backpressure_stalls;
  }
  t.cycles.idle = t.total_cycles * t.nodes - t.cycles.busy - t.cycles.dependency - t.cycles.operand - t.cycles.backpressure;
  const std::size_t steps = top.sequencer.step_count();
  for (std::size_t s = 0; s < steps; ++s) {
    StepTiming st;
    st.global_step = s;
    const auto [stage, step] = top.sequencer.stage_and_step(s);
    st.stage = static_cast<int>(stage);
    st.step = step;
    st.min_cycles = never;
    for (const Node& node : top.nodes) {
      const Cycle start = node.step_start_cycles()[s];
      const Cycle next = s + 1 < steps ? node.step_start_cycles()[s + 1] : node.stats().finish_cycle;
      st.min_cycles = std::min<std::uint64_t>(st.min_cycles, next - start);
      st.max_cycles = std::max<std::uint64_t>(st.max_cycles, next - start);
    }
    t.steps.push_back(st);
  }
  const std::size_t p = static_cast<std::size_t>(run.p);
  for (std::size_t first = 0; first < steps; first += p) {
    StageTiming stage;
    stage.transform = top.sequencer.plan(first).transform;
    stage.direction = to_string(top.sequencer.schedules()[stage.transform].direction);
    stage.stage = top.sequencer.plan(first).stage;
    stage.start = never;
    for (const Node& node : top.nodes) {
      stage.start = std::min<std::uint64_t>(stage.start, node.step_start_cycles()[first]);
      stage.end = std::max<std::uint64_t>(stage.end, first + p < steps ? node.step_start_cycles()[first + p] : t.total_cycles);
    }
    t.stages.push_back(stage);
  }
  for (Direction d : all_directions) {
    LinkTraffic& traffic = t.links[static_cast<std::size_t>(d)];
    traffic.direction = to_string(d);
    for (std::size_t i = 0; i < top.nodes.size(); ++i) {
      const LinkStats& ls = top.link(i, d).stats();
      traffic.words += ls.words_sent;
      traffic.active_cycles += ls.active_cycles;
      traffic.peak_occupancy = std::max(traffic.peak_occupancy, ls.peak_occupancy);
    }
  }
  if (top.nodes.size() <= 16 * 16 * 16)
    for (std::size_t i = 0; i < top.nodes.size(); ++i)
      for (Direction d : all_directions) t.link_active_cycles.push_back(top.link(i, d).stats().active_cycles);
  t.words_paper = 4 * b * b * b + 3 * b * b;
  t.words_second_buffers = top.nodes[0].second_buffer_words();
  t.words_link_buffers = direction_count * static_cast<std::uint64_t>(machine.link_buffer(b));
  return t;
}

// What the nodes of one transform did, counted by the nodes themselves.
ExecutionCounts measured_counts(const TorusTop& top, std::size_t transform, std::size_t fma_per_multiply_add) {
  ExecutionCounts c;
  c.words_moved_per_node_step_min.fill(~std::size_t{0});
  const std::size_t b = top.sequencer.block_size();
  std::uint64_t fma = 0;
  for (std::size_t s = 0; s < top.sequencer.step_count(); ++s) {
    const StepPlan& plan = top.sequencer.plan(s);
    if (plan.transform != transform) continue;
    ++c.steps;
    const auto stage = static_cast<std::size_t>(plan.stage - 1);
    for (const Node& node : top.nodes) {
      fma += node.fma_per_step()[s];
      c.block_multiply_adds += node.fma_per_step()[s] == plan.program->instructions.size() ? 1 : 0;
      const std::size_t words = node.words_sent_per_step()[s];
      c.words_moved_per_node_step[stage] = std::max(c.words_moved_per_node_step[stage], words);
      c.words_moved_per_node_step_min[stage] = std::min(c.words_moved_per_node_step_min[stage], words);
    }
  }
  c.scalar_multiply_adds = fma / fma_per_multiply_add;
  c.words_held_per_node = 4 * b * b * b + 3 * b * b;
  return c;
}

template <class T>
Tensor3<T> gather(const TorusTop& top, std::size_t transform, std::size_t n, std::vector<Placement>& layout,
                  BlockKind kind) {
  const Slot slot{kind, top.sequencer.final_buffer(kind)};
  Tensor3<T> out(n, n, n);
  const TorusShape& shape = top.sequencer.schedules()[transform].shape;
  layout.clear();
  for (const Node& node : top.nodes) {
    const BlockId& block = node.held_block(slot);
    gather_block(node.datapath(), slot, block, top.sequencer.block_size(), out);
    layout.push_back({shape.coord_of(node.index()), block});
  }
  return out;
}

// The stages' accumulators survive only for the run's last transform (an inverse after a
// forward re-creates the forward's intermediate blocks).
template <class T>
std::string locate_wrong_stage(const TorusTop& top, std::size_t transform, std::size_t n, const Tensor3<T>& input,
                               const Tensor3<T>& result, const std::array<Matrix<T>, 3>& matrices) {
  const Schedule& schedule = top.sequencer.schedules()[transform];
  if (transform + 1 != top.sequencer.schedules().size())
    return "stage not known: the next transform reused the intermediate blocks (run this direction alone to find it)";
  std::array<Tensor3<T>, 3> partials;
  std::array<int, 3> modes{};
  std::vector<Placement> layout;
  for (std::size_t s = 0; s < 3; ++s) {
    modes[s] = schedule.stages[s].mode;
    const BlockKind kind = schedule.stages[s].created.front().block.kind;
    partials[s] = s == 2 ? result : gather<T>(top, transform, n, layout, kind);
  }
  static const std::array<const char*, 4> roman = {"none", "I", "II", "III"};
  const int stage = first_wrong_stage(input, partials, matrices, modes);
  return std::string("first wrong stage: ") + roman[static_cast<std::size_t>(stage)] +
         (stage > 0 ? " (" + schedule.stages[static_cast<std::size_t>(stage - 1)].summary + ")" : "");
}

template <class T>
Tensor3<T> simulate_typed(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault, RunReport& report) {
  const CoefficientSet<T> c = make_coefficients<T>(run);
  report.inverse_defects = c.defects;
  const Tensor3<T> x = make_input<T>(run);
  std::vector<Schedule> schedules = schedules_for(run, report.transforms);
  const bool split = is_complex_v<T> && machine.complex_cost() == 4;
  HostData<T> host{x, {}, run.block_size()};
  for (const Schedule& s : schedules) host.coefficients.push_back(s.direction == TransformDirection::Forward ? c.forward : c.inverse);
  const bool inverse_last = schedules.back().direction == TransformDirection::Inverse;
  const std::size_t transforms = schedules.size();

  TopConfig config;
  config.shape = TorusShape::cube(static_cast<int>(run.p));
  config.fma_latency = static_cast<Cycle>(machine.fma_latency);
  config.fma_per_cycle = static_cast<unsigned>(machine.fma_per_cycle);
  config.link_latency = static_cast<Cycle>(machine.link_latency);
  config.link_rate = machine.link_rate();
  config.link_buffer_words = static_cast<std::uint64_t>(machine.link_buffer(run.block_size()));
  // A waveform samples every node every cycle, so nothing may be skipped while tracing.
  config.fast_forward = machine.fast_forward == "on" && run.vcd_trace.empty();
  config.fault = fault.kind();
  if (config.fault != FaultKind::None) {
    config.fault_node = config.shape.index_of(fault.node());
    config.fault_link = fault.link();
    config.fault_cycle = static_cast<Cycle>(fault.fault_cycle);
    config.fault_bit = static_cast<int>(fault.fault_bit);
  }
  const Rational rate = machine.link_rate();
  config.watchdog_cycles = fault.watchdog(machine.fma_latency, machine.link_latency, (rate.den + rate.num - 1) / rate.num);
  const auto micro = make_micro_schedule(machine.micro_schedule);
  const auto policy = make_roll_policy(machine.roll_policy);
  TorusTop top("torus", config, std::move(schedules), *micro, *policy, split, [&host] { return make_datapath(host); });

  std::unique_ptr<VcdTrace> waveform;
  if (!run.vcd_trace.empty()) waveform = std::make_unique<VcdTrace>(run.vcd_trace, top);
  const auto start = std::chrono::steady_clock::now();
  // The kernel's "simulation stopped by user" note is expected: the torus stops itself.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_start();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.fault = top.fault_record();
  if (fault.kind() != FaultKind::None && report.fault.empty())
    report.fault = "fault " + fault.fault + " was set but never fired (nothing passed its place after cycle " +
                   std::to_string(fault.fault_cycle) + ")";
  if (!top.completed()) {
    std::string message = "no fma issued and no word moved for " + std::to_string(config.watchdog_cycles) +
                          " cycles while work remains; " + std::to_string(top.stall_report().size()) +
                          " nodes wait (the first 8):";
    for (std::size_t i = 0; i < top.stall_report().size() && i < 8; ++i) message += "\n  " + top.stall_report()[i];
    if (!report.fault.empty()) message += "\ninjected fault: " + report.fault;
    throw StallError(message);
  }

  waveform.reset();  // closes the file
  if (!run.chrome_trace.empty()) write_chrome_trace(run.chrome_trace, top, machine.clock_frequency());
  TimingReport timing = collect_timing(top, run, machine, is_complex_v<T> ? machine.complex_cost() : 1);
  timing.simulation_seconds = seconds;
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) timing.peak_memory_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  timing.analytic = predict_cycles(machine, {static_cast<std::size_t>(run.p), run.block_size(), transforms, inverse_last, split});
  report.timing = timing;

  const std::size_t n = static_cast<std::size_t>(run.n);
  Tensor3<T> input = x, result, y_hat;
  for (std::size_t t = 0; t < transforms; ++t) {
    std::vector<Placement> layout;
    result = gather<T>(top, t, n, layout, top.sequencer.schedules()[t].output_kind);
    TransformOutcome& outcome = report.transforms[t];
    const auto& matrices = outcome.direction == TransformDirection::Forward ? c.forward : c.inverse;
    check_against_golden(outcome, input, result, layout, matrices, run.block_size());
    if (!outcome.mismatch.empty()) outcome.mismatch += "; " + locate_wrong_stage(top, t, n, input, result, matrices);
    outcome.measured = measured_counts(top, t, report.fma_per_multiply_add);
    if (outcome.direction == TransformDirection::Forward) y_hat = result;
    input = result;
  }
  if (run.runs_forward() && run.runs_inverse()) report.round_trip = round_trip_error(result, x, y_hat, c);
  return result;
}

}  // namespace

RunReport simulate(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault) {
  const auto start = std::chrono::steady_clock::now();
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
    const Tensor3<T> result = simulate_typed<T>(run, machine, fault, report);
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_run_outputs(run, report, result);
  });
  return report;
}

}  // namespace torus
