#include "models/cycle/compute_schedule.hpp"

#include <algorithm>

namespace torus {

ComputeSchedule schedule_compute(const MicroProgram& micro, Cycle latency) {
  ComputeSchedule s;
  const std::size_t count = micro.instructions.size();
  if (micro.components != 1 || count < 3) return s;
  std::uint32_t words = 0;
  for (const FmaInstruction& i : micro.instructions) words = std::max(words, i.accumulator + 1);
  std::vector<Cycle> usable(words, 0);
  s.issue.resize(count);
  s.ready_before_last.assign(words, never);
  s.left_before_last.assign(words, static_cast<std::uint16_t>(micro.updates_per_word));
  Cycle t = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t word = micro.instructions[k].accumulator;
    t = std::max(k == 0 ? Cycle{0} : t + 1, usable[word]);
    s.issue[k] = t;
    usable[word] = t + latency;
    if (k + 1 == count) break;
    s.ready_before_last[word] = usable[word];
    if (--s.left_before_last[word] == 0) s.some_final_before_last = true;
  }
  return s;
}

}  // namespace torus
