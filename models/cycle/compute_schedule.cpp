#include "models/cycle/compute_schedule.hpp"

#include <algorithm>

namespace torus {

ComputeSchedule schedule_compute(const MicroProgram& micro, Cycle latency, unsigned per_cycle) {
  ComputeSchedule s;
  const std::size_t count = micro.instructions.size();
  if (micro.components != 1 || count < 3) return s;
  std::uint32_t words = 0;
  for (const FmaInstruction& i : micro.instructions) words = std::max(words, i.accumulator + 1);
  std::vector<Cycle> usable(words, 0);
  s.issue.resize(count);
  s.ready_before_last.assign(words, never);
  s.left_before_last.assign(words, static_cast<std::uint16_t>(micro.updates_per_word));
  Cycle t = 0;          // the cycle of the fma before
  unsigned in_cycle = 0;  // fma issued in it
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t word = micro.instructions[k].accumulator;
    Cycle earliest = std::max(t, usable[word]);
    if (k > 0 && earliest == t && in_cycle == per_cycle) earliest = t + 1;
    in_cycle = k > 0 && earliest == t ? in_cycle + 1 : 1;
    t = earliest;
    s.issue[k] = t;
    usable[word] = t + latency;
    if (k + 1 == count) break;
    s.ready_before_last[word] = usable[word];
    if (--s.left_before_last[word] == 0) s.some_final_before_last = true;
  }
  for (std::size_t k = 1; k + 1 < count; ++k) s.run_cycles += k == 1 || s.issue[k] != s.issue[k - 1] ? 1 : 0;
  s.last_shares_cycle = s.issue[count - 1] == s.issue[count - 2];
  return s;
}

}  // namespace torus
