// The SystemC engine behind the run driver: elaborates the torus for the Program, simulates it
// cycle by cycle and hands back what its nodes and links counted.

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "models/cycle/isolated_run.hpp"
#include "models/cycle/torus_top.hpp"
#include "models/cycle/vcd_trace.hpp"
#include "models/engine.hpp"
#include "models/narrow_cycle.hpp"

namespace torus {
namespace {

// The threads asked for; by default (0) every core, but no fewer than 100 nodes a thread: with
// fewer, waiting for the threads each cycle costs about what they save (measured, forward and
// inverse DCT, b = 4, fast-forward off, 2 threads against 1: 0.2 at 8 nodes, 0.5 at 27, 0.6 to
// 1.0 at 64, 1.0 to 1.4 at 125, 1.3 to 1.6 at 216, 1.8 to 2.4 at 512).
std::size_t stepping_threads(const MachineConfig& machine, std::size_t nodes) {
  constexpr std::size_t nodes_per_thread = 100;
  if (machine.threads > 0) return static_cast<std::size_t>(machine.threads);
  return std::clamp<std::size_t>(nodes / nodes_per_thread, 1, machine.host_threads());
}

TopConfig top_config(const EngineInputs& in) {
  const MachineConfig& machine = in.machine;
  const FaultConfig& fault = in.fault;
  const TorusShape& shape = in.program.shape;
  TopConfig config;
  config.fma_latency = static_cast<Cycle>(machine.fma_latency);
  config.fma_per_cycle = static_cast<unsigned>(machine.fma_per_cycle);
  config.link_latency = static_cast<Cycle>(machine.link_latency);
  config.link_rate = machine.link_rate();
  config.link_buffer_words = static_cast<std::uint64_t>(machine.link_buffer(in.program.largest_block_words()));
  // A waveform samples every node every cycle, so nothing may be skipped while tracing.
  config.fast_forward = machine.fast_forward == "on" && in.run.vcd_trace.empty();
  config.stepping_nodes = machine.stepping_nodes(shape.node_count());
  config.threads = stepping_threads(machine, shape.node_count());
  config.fault = fault.kind();
  if (config.fault != FaultKind::None) {
    config.fault_node = shape.index_of(fault.node());
    config.fault_link = fault.link();
    config.fault_cycle = static_cast<Cycle>(fault.fault_cycle);
    config.fault_bit = static_cast<int>(fault.fault_bit);
  }
  const Rational rate = machine.link_rate();
  config.message_startup = static_cast<Cycle>(machine.message_startup_cycles);
  config.fma_per_butterfly = static_cast<std::uint64_t>(machine.fma_per_butterfly);
  // A message's start-up is a wait with no word moving: the watchdog allows for it like a link's latency.
  config.watchdog_cycles = fault.watchdog(machine.fma_latency, machine.link_latency + machine.message_startup_cycles,
                                          (rate.den + rate.num - 1) / rate.num);
  config.step_spans = in.step_spans;
  config.on_progress = in.on_progress;
  return config;
}

class CycleRun final : public EngineRun {
 public:
  explicit CycleRun(const EngineInputs& in)
      : config_(top_config(in)),
        micro_(make_micro_schedule(in.machine.micro_schedule)),
        policy_(make_roll_policy(in.machine.roll_policy)),
        top_("torus", config_, in.program, *micro_, *policy_, in.split_complex, in.make_datapath) {
    if (!in.run.vcd_trace.empty()) waveform_ = std::make_unique<VcdTrace>(in.run.vcd_trace, top_);
  }

  // Runs the elaborated torus to its end; `phases` hears the time of sc_start.
  void simulate(const FaultConfig& fault, PhaseTimes& phases) {
    // The kernel's "simulation stopped by user" note is expected: the torus stops itself.
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    PhaseTimer timer(phases, Phase::Simulate);
    try {
      sc_core::sc_start();
    } catch (const sc_core::sc_report& report) {
      // SystemC turns an exception thrown in a process into a report of its message: the
      // cycle limit is a refusal of the input, so it leaves as one.
      const std::string message = report.get_msg();
      if (message.rfind(CycleLimitError::opening, 0) == 0) throw CycleLimitError(message);
      throw;
    }
    seconds_ = std::chrono::duration<double>(timer.stop()).count();
    if (waveform_) waveform_->finish();  // a stalled run keeps its waveform: it shows the stall
    check_stall(fault);
  }

  const NodeDatapath& datapath(std::size_t node) const override { return top_.nodes[node].datapath(); }
  std::string fault_record() const override { return top_.fault_record(); }
  double seconds() const override { return seconds_; }

  EngineRecords records() const override {
    EngineRecords r;
    const Program& program = top_.program();
    const std::size_t count = top_.nodes.size();
    // Per-node step records only where the nodes kept them (spans asked for): asked of the run,
    // since a node with no tasks keeps none.
    const bool spans = top_.keeps_step_spans();
    if (spans) r.steps.resize(count, program.global_steps());
    r.step_totals = top_.step_totals();
    r.nodes.resize(count);
    const std::size_t shared = top_.shared_bytes() / count;  // the tables all nodes share, evenly
    for (std::size_t n = 0; n < count; ++n) {
      const Node& node = top_.nodes[n];
      const NodeStats& s = node.stats();
      NodeRecord& out = r.nodes[n];
      out.busy = s.busy_cycles;
      out.dependency = s.dependency_stalls;
      out.operand = s.operand_stalls;
      out.backpressure = s.backpressure_stalls;
      out.fma_issued = node.pipeline().stats().issued;
      out.fast_forwarded_fma = s.fast_forwarded_fma;
      out.activations = s.activations;
      out.finish_cycle = s.finish_cycle;
      out.computes_done.assign(program.transforms.size(), 0);
      out.fft_fma.assign(program.transforms.size(), 0);
      out.fft_butterflies.assign(program.transforms.size(), 0);
      for (std::size_t t = 0; t < s.fft_fma.size() && t < out.fft_fma.size(); ++t) {
        out.fft_fma[t] = s.fft_fma[t];
        out.fft_butterflies[t] = s.fft_butterflies[t];
      }
      for (std::size_t c = 0; c < node.computes().size(); ++c)
        if (node.compute_done()[c] != never) ++out.computes_done[program.nodes[n].tasks[node.computes()[c].task].label.transform];
      out.allocated_words = node.datapath().allocated_words();
      // Its state, values, the links it sends on and its share of what is shared. Not counted:
      // SystemC's own records of the node, its process and its links (names, registries) and
      // the allocator's headers, about 4 KiB a node by the heap's growth (README, "Speed").
      out.engine_bytes = node.state_bytes() + out.allocated_words * node.datapath().word_bytes() + shared;
      for (Direction d : all_directions)
        if (top_.link_used(n, d)) out.engine_bytes += top_.link(n, d).bytes();
      r.step_totals.note_words(node.step_log().words_sent());
      if (spans) r.steps.set(n, node.step_log().records());
      for (Direction d : all_directions) {
        const LinkStats& ls = top_.link(n, d).stats();
        r.links.push_back({ls.words_sent, ls.active_cycles, ls.peak_occupancy, s.link_wait[static_cast<std::size_t>(d)]});
      }
    }
    r.fma_per_cycle = top_.nodes[0].pipeline().per_cycle();
    r.fast_forward_note = top_.nodes[0].fast_forward_refusal();
    r.stepping_threads = top_.stepping_threads();
    std::uint64_t ahead = 0;
    for (const NodeRecord& node : r.nodes) ahead += node.fast_forwarded_fma;
    if (r.fast_forward_note.empty() && ahead == 0)
      r.fast_forward_note = program.grid.largest_words() == 1 ? "with b = 1 every compute is a single fma: nothing to issue ahead"
                                                    : "no compute had its inputs early enough to issue ahead";
    return r;
  }

 private:
  void check_stall(const FaultConfig& fault) const {
    if (top_.completed()) return;
    std::string message = "no fma issued and no word moved for " + std::to_string(config_.watchdog_cycles) +
                          " cycles while work remains; " + std::to_string(top_.stall_report().size()) +
                          " nodes wait (the first 8):";
    for (std::size_t i = 0; i < top_.stall_report().size() && i < 8; ++i) message += "\n  " + top_.stall_report()[i];
    if (!top_.wait_chain().empty()) message += "\n" + top_.wait_chain();
    std::string record = top_.fault_record();
    if (fault.kind() != FaultKind::None && record.empty()) record = never_fired(fault);
    if (!record.empty()) message += "\ninjected fault: " + record;
    throw StallError(message);
  }

  TopConfig config_;
  std::unique_ptr<MicroSchedule> micro_;
  std::unique_ptr<RollPolicy> policy_;
  TorusTop top_;
  std::unique_ptr<VcdTrace> waveform_;
  double seconds_ = 0;
};

}  // namespace

std::string never_fired(const FaultConfig& fault) {
  return "fault " + fault.fault + " was set but never fired (nothing passed its place after cycle " +
         std::to_string(fault.fault_cycle) + ")";
}

std::unique_ptr<EngineRun> run_cycle_engine(const EngineInputs& inputs) {
  if (inputs.program.translation_quotient)
    throw std::invalid_argument("engine systemc simulates every node: give it the whole Program, not a translation quotient");
  require_fresh_systemc_kernel();
  PhaseTimes unkept;  // for callers that keep no phases (tests of the engine alone)
  PhaseTimes& phases = inputs.phases ? *inputs.phases : unkept;
  auto run = timed(phases, Phase::Elaborate, [&] { return std::make_unique<CycleRun>(inputs); });
  run->simulate(inputs.fault, phases);
  return run;
}

}  // namespace torus
