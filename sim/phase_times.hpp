#pragma once
// Where a run's wall time goes: the phases a run passes through, each timed where it runs by a
// scoped PhaseTimer that adds into the run report's PhaseTimes. Phases never overlap (a timer
// refuses to start while another runs), so together they are at most the run's wall_seconds;
// the report calls the rest "other" (validating and describing the run, the analytic model).
//
// The phases, in the order a run meets them (a run reports those it went through):
//   memory_check  whether the simulated nodes and this host can hold the run
//   input         the coefficient matrices (their inverses proved) and the input tensor or operands
//   program       the algorithm builds its Program(s); the counts read off them
//   verify        the algorithm's own proofs and the generic verifier
//   elaborate     a timing engine builds its state (SystemC: the modules of every node and link)
//   simulate      the engine runs: timing.simulation_seconds exactly (SystemC's sc_start, which
//                 also completes the elaboration: port binding, process initialisation); the
//                 functional engine's untimed execution
//   records       the engine's counts gathered into the timing report
//   values        the untimed execution that computes the values beside a timing engine
//                 that holds none (event engine with a translation quotient)
//   gather        the outputs read off the node buffers into tensors
//   check         the golden check of every output and of the round trip
//   teardown      destroying the engine, the Programs and the tensors
//   output        writing --output and --chrome_trace (the JSON report comes after: it holds
//                 wall_seconds)

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace torus {

enum class Phase : std::size_t {
  MemoryCheck, Input, Program, Verify, Elaborate, Simulate, Records, Values, Gather, Check, Teardown, Output
};
inline constexpr std::size_t phase_count = static_cast<std::size_t>(Phase::Output) + 1;
inline constexpr std::array<std::string_view, phase_count> phase_names = {
    "memory_check", "input",  "program", "verify",   "elaborate", "simulate",
    "records",      "values", "gather",  "check",    "teardown",  "output"};
std::string_view name_of(Phase phase);

class PhaseTimes {
 public:
  using Clock = std::chrono::steady_clock;

  // Adds `time` to `phase` (a phase may run in several pieces) and marks it as run.
  void add(Phase phase, Clock::duration time);
  bool ran(Phase phase) const { return spent_[index(phase)].has_value(); }
  double seconds(Phase phase) const;  // 0 for a phase that did not run
  double total_seconds() const;
  // Each phase that ran, with its seconds, in the order of Phase.
  std::vector<std::pair<std::string_view, double>> ran_phases() const;

 private:
  friend class PhaseTimer;
  static std::size_t index(Phase phase) { return static_cast<std::size_t>(phase); }
  // Kept in clock ticks: disjoint pieces of the wall time sum to at most the whole, exactly.
  std::array<std::optional<Clock::duration>, phase_count> spent_{};
  std::optional<Phase> running_;  // the phase a PhaseTimer is timing now: no other may start
};

// Times one phase from construction to stop() or destruction. Throws std::logic_error when
// another phase of the same PhaseTimes is being timed: overlapping phases would count twice.
class PhaseTimer {
 public:
  PhaseTimer(PhaseTimes& times, Phase phase);
  ~PhaseTimer() { stop(); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  // Adds the time since the start to the phase and returns it; later calls add nothing.
  PhaseTimes::Clock::duration stop();

 private:
  PhaseTimes* times_;
  Phase phase_;
  PhaseTimes::Clock::time_point start_;
};

// What `work()` returns, its time added to `phase`.
template <class Work>
decltype(auto) timed(PhaseTimes& times, Phase phase, Work&& work) {
  const PhaseTimer timer(times, phase);
  return std::forward<Work>(work)();
}

}  // namespace torus
