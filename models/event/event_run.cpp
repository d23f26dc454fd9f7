// The event engine behind the run driver (models/engine.hpp).

#include <chrono>
#include <stdexcept>

#include "models/engine.hpp"
#include "models/event/event_engine.hpp"

namespace torus {
namespace {

void refuse_unsupported(const EngineInputs& in) {
  check_engine(in.fault, "event");
  if (!in.run.vcd_trace.empty())
    throw std::invalid_argument("vcd_trace samples every node every cycle, which engine event does not step through: use engine systemc");
}

class EventRun final : public EngineRun {
 public:
  EventRun(const EngineInputs& in, const event::Params& params)
      : micro_(make_micro_schedule(in.machine.micro_schedule)),
        policy_(make_roll_policy(in.machine.roll_policy)),
        engine_(in.program, params, *micro_, *policy_, in.make_datapath) {}
  // Runs the engine to its end; `phases` hears the time it took.
  void simulate(PhaseTimes& phases) {
    PhaseTimer timer(phases, Phase::Simulate);
    engine_.run();
    seconds_ = std::chrono::duration<double>(timer.stop()).count();
  }
  const NodeDatapath& datapath(std::size_t node) const override { return engine_.datapath(node); }
  EngineRecords records() const override { return engine_.records(); }
  std::string fault_record() const override { return ""; }
  double seconds() const override { return seconds_; }

 private:
  std::unique_ptr<MicroSchedule> micro_;
  std::unique_ptr<RollPolicy> policy_;
  event::EventEngine engine_;
  double seconds_ = 0;
};

}  // namespace

std::unique_ptr<EngineRun> run_event_engine(const EngineInputs& in) {
  refuse_unsupported(in);
  const MachineConfig& machine = in.machine;
  event::Params params;
  params.fma_latency = static_cast<Cycle>(machine.fma_latency);
  params.per_cycle = static_cast<unsigned>(machine.fma_per_cycle);
  params.link_latency = static_cast<Cycle>(machine.link_latency);
  params.rate = machine.link_rate();
  params.message_startup = static_cast<Cycle>(machine.message_startup_cycles);
  params.fma_per_butterfly = static_cast<std::uint64_t>(machine.fma_per_butterfly);
  params.buffer_words = static_cast<std::uint64_t>(machine.link_buffer(in.program.largest_block_words()));
  params.whole_blocks = make_roll_policy(machine.roll_policy)->waits_for_whole_blocks();
  params.split = in.split_complex;
  params.per_word = machine.event_closed_forms == "off";
  if (params.fma_latency < 1 || params.link_latency < 1 || params.buffer_words < 1 || params.per_cycle < 1)
    throw std::invalid_argument("fma_latency, link_latency, link_buffer_words and fma_per_cycle must be at least 1");
  PhaseTimes unkept;  // for callers that keep no phases (tests of the engine alone)
  PhaseTimes& phases = in.phases ? *in.phases : unkept;
  auto run = timed(phases, Phase::Elaborate, [&] { return std::make_unique<EventRun>(in, params); });
  run->simulate(phases);
  return run;
}

}  // namespace torus
