#pragma once
// Whole-compute timing for the event engine: when every operand and coefficient word is usable
// by the compute's first cycle, the cycle of each fma depends only on the micro-program, the
// unit (latency, fma per cycle) and when each accumulator target becomes usable. In a stage
// the accumulator is the previous compute's, so that is "the previous schedule, shifted": the
// engine keeps each distinct schedule once and finds the next one by (previous, shift).

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "models/cycle_type.hpp"
#include "sim/micro_schedule.hpp"

namespace torus::event {

struct FmaSchedule {
  std::vector<Cycle> issue;         // per instruction, cycles after the first one's
  std::vector<Cycle> target_ready;  // per dependency target: its last result usable, same origin
  Cycle busy = 0;                   // distinct issue cycles, but cycle 0 when the unit issued in it before
  unsigned in_last_cycle = 0;       // fma issued in the last issue cycle
  Cycle last() const { return issue.back(); }
};

class FmaSchedules {
 public:
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  FmaSchedules(Cycle latency, unsigned per_cycle) : latency_(latency), per_cycle_(per_cycle) {}
  // The schedule of `micro` (kernel `kernel`) started `shift` cycles after schedule `previous`
  // on the same accumulator (none: every target usable at the start), in a cycle in which the
  // unit already issued `offset` fma.
  std::uint32_t find(std::uint32_t kernel, const MicroProgram& micro, std::uint32_t previous, Cycle shift, unsigned offset = 0);
  const FmaSchedule& operator[](std::uint32_t id) const { return schedules_[id]; }
  // The schedule of `micro` with target t first usable `target_ready[t]` cycles after the start (not kept for reuse).
  std::uint32_t from(const MicroProgram& micro, std::vector<Cycle> target_ready);

 private:
  FmaSchedule compute(const MicroProgram& micro, const std::vector<Cycle>& target_ready, unsigned offset) const;
  Cycle latency_;
  unsigned per_cycle_;
  std::vector<FmaSchedule> schedules_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, Cycle, unsigned>, std::uint32_t> index_;
};

}  // namespace torus::event
