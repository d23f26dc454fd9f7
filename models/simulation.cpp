#include "models/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <sys/resource.h>
#include <thread>

#include "models/chrome_trace.hpp"
#include "models/engine.hpp"
#include "sim/algorithm.hpp"
#include "sim/analytic_model.hpp"
#include "sim/fft_task.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/program_executor.hpp"
#include "sim/program_verifier.hpp"
#include "sim/quotient_executor.hpp"
#include "sim/progress_meter.hpp"
#include "sim/matmul_run.hpp"
#include "sim/run_inputs.hpp"

namespace torus {
namespace {

// What a run executes: the Program an engine times, and, when that is a translation quotient
// and values are on, the whole Program whose untimed execution computes the values.
// Values come from the whole Program, or, when the algorithm says what each node of the
// quotient loads and outputs, from the quotient run on every node (`layout`: the quotient with
// its outputs on every node, for gathering).
struct RunPrograms {
  Program timed;
  std::optional<Program> whole;
  std::optional<Program> layout;
  std::vector<QuotientNodeBlocks> node_blocks;
  const Program& values() const { return whole ? *whole : layout ? *layout : timed; }
  bool values_apart() const { return whole || layout; }  // not the timed engine's own datapaths
};

// A Program built (phase program) and proved legal (phase verify).
Program verified(PhaseTimes& phases, const std::function<Program()>& build) {
  Program program = timed(phases, Phase::Program, build);
  const ProgramVerification verification = timed(phases, Phase::Verify, [&] { return verify_program(program, 1); });
  if (!verification.ok())
    throw std::logic_error("generated program is illegal: " + to_string(program, verification.violations.front()));
  return program;
}

// Builds the Programs and proves them before any engine runs them (the algorithm's own checks
// need the whole Program), then reads off the counts per transform.
RunPrograms build_programs(const RunConfig& run, const MachineConfig& machine, std::vector<TransformOutcome>& outcomes,
                           PhaseTimes& phases) {
  const TransformProblem problem = problem_of(run);
  const auto algorithm = make_algorithm(run.algorithm);
  const bool quotient = times_translation_quotient(run, machine), values = run.computes_values();
  const bool from_quotient = quotient && values && algorithm->quotient_values(problem);
  const bool whole = (!quotient || values) && !from_quotient;
  // The algorithm's own proofs need the whole schedule; a run on the quotient is proved on
  // node (0,0,0)'s list (and, values on, by the golden check of every value).
  const AlgorithmCheck check = whole ? timed(phases, Phase::Verify, [&] { return algorithm->check(problem); }) : AlgorithmCheck{};
  if (!check.ok()) throw std::logic_error("the algorithm's own checks fail: " + check.violations.front());
  const auto build_whole = [&] { return algorithm->build(problem); };
  const auto build_quotient = [&] { return algorithm->build_quotient(problem); };
  RunPrograms programs{quotient ? verified(phases, build_quotient) : verified(phases, build_whole), {}, {}, {}};
  if (quotient && whole) programs.whole = verified(phases, build_whole);
  const PhaseTimer counting(phases, Phase::Program);
  if (from_quotient) {
    for (std::size_t n = 0; n < problem.shape.node_count(); ++n) programs.node_blocks.push_back(algorithm->node_blocks(problem, n));
    programs.layout = programs.timed;
    programs.layout->outputs = quotient_outputs(programs.timed, programs.node_blocks);
  }
  const Program& counted = programs.values();
  for (std::size_t t = 0; t < problem.directions.size(); ++t) {
    TransformOutcome outcome;
    outcome.direction = problem.directions[t];
    outcome.schedule_violations = check.violation_count;
    outcome.verified = whole || !quotient ? "program" : "quotient";
    const ProgramCounts counts = count(counted, static_cast<std::uint32_t>(t));
    outcome.expected.steps = counts.steps;
    outcome.expected.block_multiply_adds = counts.compute_tasks;
    outcome.expected.scalar_multiply_adds = counts.scalar_multiply_adds;
    outcome.expected.words_held_per_node = counts.words_held_per_node;
    outcome.expected.messages = counts.messages;
    outcome.expected.hops = counts.hops;
    outcome.expected.max_hops = counts.max_hops;
    outcome.expected.fft_butterflies = counts.fft_butterflies;
    for (std::size_t s = 0; s < 3; ++s) outcome.expected.stage[s].words_moved_per_node_step = counts.words_sent_per_node_step[s];
    outcomes.push_back(outcome);
  }
  return programs;
}

// The program's peak resident set so far: VmHWM, which starts afresh at exec. (getrusage's
// ru_maxrss does not: a process started from a larger one, such as a Python script, reports
// the parent's size at fork when it is the larger.)
std::uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  std::uint64_t kib = 0;
  while (status >> key)
    if (key == "VmHWM:" && status >> kib) return kib * 1024;
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<std::uint64_t>(usage.ru_maxrss) * 1024 : 0;
}

// Where a node's buffer words are at the end of the run.
template <class T>
using BufferWords = std::function<const T*(std::size_t node, std::uint32_t buffer)>;

// A named output of the run as a tensor, with where each block was (layout may be null).
template <class T>
using GatherOutput = std::function<Tensor3<T>(const std::string& name, std::vector<OutputBlock>* layout)>;

// Every output of `program` read off the node buffers at once, so that they can be freed before
// the golden check (which holds several tensors of its own); the outputs shared among `threads`
// threads (`words` only reads).
template <class T>
GatherOutput<T> gather_all(const Program& program, const BufferWords<T>& words, unsigned threads) {
  auto outputs = std::make_shared<std::map<std::string, std::pair<Tensor3<T>, std::vector<OutputBlock>>>>();
  std::vector<std::pair<Tensor3<T>, std::vector<OutputBlock>>*> slots;
  for (const ProgramOutput& out : program.outputs) slots.push_back(&(*outputs)[out.name]);
  const auto gather_from = [&](std::size_t first) {
    for (std::size_t i = first; i < slots.size(); i += std::max(1u, threads))
      slots[i]->first = gather_output<T>(program, program.outputs[i], words, &slots[i]->second);
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < threads && t < slots.size(); ++t) workers.emplace_back(gather_from, t);
    gather_from(0);
  }
  return [outputs](const std::string& name, std::vector<OutputBlock>* layout) {
    const auto& [tensor, where] = outputs->at(name);
    if (layout) *layout = where;
    return tensor;
  };
}

// The stages' results survive only for the run's last transform (an inverse after a forward
// re-creates the forward's intermediate blocks).
template <class T>
std::string locate_wrong_stage(const Program& program, const GatherOutput<T>& gather, std::size_t transform,
                               const Tensor3<T>& input, const Tensor3<T>& result, const std::array<Matrix<T>, 3>& matrices) {
  if (transform + 1 != program.transforms.size())
    return "stage not known: the next transform reused the intermediate blocks (run this direction alone to find it)";
  static const std::array<const char*, 4> roman = {"none", "I", "II", "III"};
  const std::string name = program.transforms[transform];
  if (!program.output(name + " stage I") || !program.output(name + " stage II"))
    return "stage not known: algorithm " + program.algorithm + " keeps no whole stage results";
  std::array<Tensor3<T>, 3> partials{gather(name + " stage I", nullptr), gather(name + " stage II", nullptr),
                                     result};
  std::array<int, 3> modes{};
  for (std::size_t s = 0; s < 3; ++s) modes[s] = program.stages[3 * transform + s].mode;
  const int stage = first_wrong_stage(input, partials, matrices, modes);
  return std::string("first wrong stage: ") + roman[static_cast<std::size_t>(stage)] +
         (stage > 0 ? " (" + program.stages[3 * transform + static_cast<std::size_t>(stage - 1)].summary + ")" : "");
}

// The values of the whole Program, untimed, in parallel over nodes: each compute in the
// machine's fma order, so they are the bits a timing engine computes.
template <class T>
ProgramResult<T> compute_values(const Program& program, const HostData<T>& host, const MachineConfig& machine) {
  return execute_program(program, host, ExecutorOptions{machine.host_threads(), true});
}

// A stall of a faultless run with routed messages and link buffers below the default: most
// likely the wormhole deadlock docs/timing-model.md describes ("Routers"), which the user can
// avoid. (Buffers as large as every message are not enough: a node may have several in flight.)
std::string stall_hint(const EngineInputs& inputs) {
  if (inputs.fault.kind() != FaultKind::None) return {};
  const bool routed = std::any_of(inputs.program.messages.begin(), inputs.program.messages.end(),
                                  [](const Message& m) { return m.hops > 1; });
  const std::size_t block = inputs.program.largest_block_words();
  const auto buffer = static_cast<std::uint64_t>(inputs.machine.link_buffer(block));
  if (!routed || buffer >= 2 * block) return {};
  return "\nlink_buffer_words: " + std::to_string(buffer) + (buffer == 1 ? " word" : " words") +
         " is less than the default (auto: " + std::to_string(2 * block) +
         ", two of the largest block): messages passing through routers hold links while they wait for credits, and "
         "can wait on each other in a cycle (a wormhole deadlock, docs/timing-model.md \"Routers\"); with auto buffers "
         "no tested run of the shipped algorithms has stalled";
}

}  // namespace

TimedProgram time_program(EngineInputs inputs, bool inverse_last, std::uint64_t fma_expected, const ProgressDisplay& progress,
                          RunReport& report) {
  const MachineConfig& machine = inputs.machine;
  const Program& program = inputs.program;
  const AnalyticPrediction predicted = predict_cycles(machine, analytic_inputs(program, inverse_last, inputs.split_complex));
  std::optional<ProgressMeter> meter;
  if (progress) meter.emplace(predicted.cycles, progress);
  if (meter) inputs.on_progress = [&meter](Cycle cycle) { meter->update(cycle); };
  if (!inputs.run.chrome_trace.empty()) inputs.step_spans = true;
  inputs.phases = &report.phases;
  TimedProgram out;
  try {
    out.engine = machine.engine == "event" ? run_event_engine(inputs) : run_cycle_engine(inputs);
  } catch (const StallError& stall) {
    throw StallError(stall.what() + stall_hint(inputs));
  }
  if (meter && meter->shown()) progress("");
  report.fault = out.engine->fault_record();
  if (inputs.fault.kind() != FaultKind::None && report.fault.empty()) report.fault = never_fired(inputs.fault);
  out.records = timed(report.phases, Phase::Records, [&] { return out.engine->records(); });
  if (!inputs.run.chrome_trace.empty())
    timed(report.phases, Phase::Output,
          [&] { write_chrome_trace(inputs.run.chrome_trace, program, out.records.steps, machine.clock_frequency()); });
  TimingReport timing = timed(report.phases, Phase::Records, [&] { return assemble_timing(program, out.records, fma_expected); });
  timing.clock_hz = machine.clock_frequency();
  timing.words_link_buffers = direction_count * static_cast<std::uint64_t>(machine.link_buffer(program.largest_block_words()));
  timing.simulation_seconds = out.engine->seconds();
  timing.peak_memory_bytes = peak_resident_bytes();
  timing.analytic = predicted;
  report.timing = timing;
  return out;
}

std::vector<std::pair<std::string, std::string>> machine_echo(const MachineConfig& machine) {
  MachineConfig copy = machine;
  ParameterSet set;
  copy.declare(set);
  std::vector<std::pair<std::string, std::string>> echo;
  for (const auto& spec : set.specs()) echo.emplace_back(spec.key, spec.default_value);
  return echo;
}

namespace {

template <class T>
Tensor3<T> simulate_typed(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault, RunReport& report,
                          const ProgressDisplay& progress) {
  // Declared first, so destroyed last: started at the end, it times the destruction of the rest
  // (the engine's modules, the Programs, the tensors).
  std::optional<PhaseTimer> teardown;
  PhaseTimes& phases = report.phases;
  const bool values = run.computes_values();
  // Timed only: no coefficient is read, so none is made (nor its inverse proved, an N^3 product).
  const CoefficientSet<T> c = values ? timed(phases, Phase::Input, [&] { return make_coefficients<T>(run); }) : CoefficientSet<T>{};
  report.inverse_defects = c.defects;
  const RunPrograms programs = build_programs(run, machine, report.transforms, phases);
  const Program& program = programs.timed;
  // The DFT an FFT task computes is complex: refused in a real run even with values off.
  if (!program.ffts.empty() && !fft_type_problem<T>().empty())
    throw std::invalid_argument("algorithm '" + run.algorithm + "': " + fft_type_problem<T>());
  const bool split = is_complex_v<T> && machine.complex_cost() == 4;
  HostData<T> host{values ? timed(phases, Phase::Input, [&] { return make_input<T>(run); }) : Tensor3<T>(), {}, {}};
  for (const TransformOutcome& o : report.transforms)
    host.coefficients.push_back(o.direction == TransformDirection::Forward ? c.forward : c.inverse);
  const bool inverse_last = report.transforms.back().direction == TransformDirection::Inverse;
  const Extents3 n = run.tensor_extents();
  const std::size_t cost = is_complex_v<T> ? machine.complex_cost() : 1;
  const std::size_t multiply_adds = n[0] * n[1] * n[2] * (n[0] + n[1] + n[2]);  // 3N^4 for a cube
  std::uint64_t fma_expected = multiply_adds * cost * program.transforms.size();
  if (!program.ffts.empty()) {  // FFT tasks: the Program's own mode products and butterflies
    const PhaseTimer counting(phases, Phase::Program);
    fma_expected = 0;
    for (std::uint32_t t = 0; t < program.transforms.size(); ++t) {
      const ProgramCounts counts = count(program, t);
      fma_expected += counts.scalar_multiply_adds * cost + counts.fft_butterflies * static_cast<std::uint64_t>(machine.fma_per_butterfly);
    }
  }
  const TimedProgram timed_run = time_program(
      {run, machine, fault, program, split,
       [&](std::size_t node) {
         return values && !programs.values_apart() ? make_datapath(program, node, host) : make_null_datapath(program, node, sizeof(T));
       },
       {},
       false},
      inverse_last, fma_expected, progress, report);
  const std::unique_ptr<EngineRun>& engine = timed_run.engine;
  const EngineRecords& records = timed_run.records;
  report.timing->memory_estimate_bytes = static_cast<std::uint64_t>(report.memory_estimate);

  std::optional<NodeBuffers<T>> computed;
  if (values && programs.whole)
    computed = timed(phases, Phase::Values, [&] { return compute_values(*programs.whole, host, machine).buffers; });
  if (values && programs.layout)
    computed = timed(phases, Phase::Values,
                     [&] { return execute_quotient(program, programs.node_blocks, host, machine.host_threads()); });
  std::vector<std::vector<T>> read_back(program.node_count());
  const BufferWords<T> words = [&](std::size_t node, std::uint32_t buffer) -> const T* {
    if (computed) return (*computed)[node][buffer].data();
    read_back[node] = buffer_values<T>(engine->datapath(node), buffer, program.nodes[node].buffers[buffer].words);
    return read_back[node].data();
  };
  const Program& holder = programs.values();
  GatherOutput<T> gather = [&](const std::string& name, std::vector<OutputBlock>* layout) {
    return gather_output<T>(holder, *holder.output(name), words, layout);
  };
  if (computed) {
    const PhaseTimer gathering(phases, Phase::Gather);
    gather = gather_all<T>(holder, words, machine.host_threads());
    computed.reset();
  }
  Tensor3<T> input = host.input, result, y_hat;
  std::vector<Tensor3<double>> magnitudes(program.transforms.size());  // |M| |input| of each transform
  report.values = values;
  for (std::size_t t = 0; t < program.transforms.size(); ++t) {
    if (!values) {  // timed only: the counts the engine made, no result to check
      report.transforms[t].measured =
          measured_counts(program, records, static_cast<std::uint32_t>(t), report.fma_per_multiply_add);
      continue;
    }
    std::vector<OutputBlock> layout;
    result = timed(phases, Phase::Gather, [&] { return gather(holder.transforms[t], &layout); });
    TransformOutcome& outcome = report.transforms[t];
    const auto& matrices = outcome.direction == TransformDirection::Forward ? c.forward : c.inverse;
    timed(phases, Phase::Check, [&] {
      check_against_golden(outcome, input, result, holder, layout, matrices, machine.host_threads(), &magnitudes[t]);
      if (!outcome.mismatch.empty()) outcome.mismatch += "; " + locate_wrong_stage(holder, gather, t, input, result, matrices);
    });
    outcome.measured = measured_counts(program, records, static_cast<std::uint32_t>(t), report.fma_per_multiply_add);
    if (outcome.direction == TransformDirection::Forward) y_hat = result;
    input = result;
  }
  // Forward then inverse: the golden checks' magnitudes are |C| |x| and |D| |y_hat|.
  if (values && run.runs_forward() && run.runs_inverse())
    report.round_trip = timed(phases, Phase::Check, [&] {
      return round_trip_error(result, host.input, magnitudes[0], magnitudes[1], c, machine.host_threads());
    });
  report.timing->peak_memory_bytes = peak_resident_bytes();  // values and their check included
  teardown.emplace(phases, Phase::Teardown);
  return result;
}

}  // namespace

RunReport simulate(const RunConfig& run, const MachineConfig& given, const FaultConfig& fault,
                   const ProgressDisplay& progress) {
  const auto start = std::chrono::steady_clock::now();
  const ScalarType scalar = validate(run);
  const std::size_t word_bytes = (scalar.precision == Precision::Single ? 4 : 8) * (scalar.domain == Domain::Complex ? 2 : 1);
  const MachineConfig machine = given.for_word_bytes(word_bytes);
  validate(fault, run.is_matmul() ? matmul_problem_of(run).shape : run.torus_shape());
  check_values(fault, run.values);
  machine.link_rate();
  machine.clock_frequency();
  RunReport report = run.is_matmul() ? describe_matmul_run(run, scalar) : describe_run(run, scalar);
  report.engine = machine.engine;
  if (scalar.domain == Domain::Complex) report.fma_per_multiply_add = machine.complex_cost();
  report.machine = machine_echo(machine);
  if (!admit_run(run, machine, report, scalar.domain == Domain::Complex, start)) return report;
  dispatch_scalar(scalar, [&]<class T>() {
    const Tensor3<T> result = run.is_matmul() ? simulate_matmul<T>(run, machine, fault, report, progress)
                                              : simulate_typed<T>(run, machine, fault, report, progress);
    write_run_outputs(run, report, result, start);
  });
  return report;
}

}  // namespace torus
