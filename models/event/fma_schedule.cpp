#include "models/event/fma_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace torus::event {

std::uint32_t FmaSchedules::find(std::uint32_t kernel, const MicroProgram& micro, std::uint32_t previous, Cycle shift,
                                 unsigned offset) {
  if (previous != none) {
    const std::vector<Cycle>& before = schedules_[previous].target_ready;
    if (shift >= *std::max_element(before.begin(), before.end())) previous = none;  // everything usable by now
  }
  if (previous == none) shift = 0;
  const auto key = std::make_tuple(kernel, previous, shift, offset);
  if (const auto it = index_.find(key); it != index_.end()) return it->second;
  std::vector<Cycle> ready(micro.instructions.empty() ? 0 : 1, 0);
  std::uint32_t targets = 0;
  for (const FmaInstruction& i : micro.instructions) targets = std::max(targets, micro.target(i) + 1);
  ready.assign(targets, 0);
  // The same accumulator block (one generation) under every kernel that updates it: its targets agree.
  if (previous != none && schedules_[previous].target_ready.size() != targets)
    throw std::logic_error("fma schedule: a compute continues an accumulator of another size");
  if (previous != none)
    for (std::uint32_t t = 0; t < targets; ++t) {
      const Cycle r = schedules_[previous].target_ready[t];
      ready[t] = r > shift ? r - shift : 0;
    }
  schedules_.push_back(compute(micro, ready, offset));
  const auto id = static_cast<std::uint32_t>(schedules_.size() - 1);
  index_.emplace(key, id);
  return id;
}

std::uint32_t FmaSchedules::from(const MicroProgram& micro, std::vector<Cycle> target_ready) {
  schedules_.push_back(compute(micro, target_ready, 0));
  return static_cast<std::uint32_t>(schedules_.size() - 1);
}

// The issue rule of docs/timing-model.md with every operand usable from cycle 0: each fma at
// the first cycle, from the previous issue on and within the unit's slots, at which its target
// is usable; `offset` of cycle 0's slots are taken already (and that cycle counted busy).
FmaSchedule FmaSchedules::compute(const MicroProgram& micro, const std::vector<Cycle>& target_ready, unsigned offset) const {
  FmaSchedule s;
  s.target_ready = target_ready;
  s.issue.reserve(micro.instructions.size());
  Cycle last = offset > 0 ? 0 : never;
  unsigned in_cycle = offset;
  for (const FmaInstruction& i : micro.instructions) {
    Cycle t = last == never ? 0 : last;
    if (t == last && in_cycle >= per_cycle_) ++t;
    Cycle& target = s.target_ready[micro.target(i)];
    t = std::max(t, target);
    if (t == last) ++in_cycle;
    else {
      last = t;
      in_cycle = 1;
      ++s.busy;
    }
    target = t + latency_;
    s.issue.push_back(t);
  }
  s.in_last_cycle = in_cycle;
  return s;
}

}  // namespace torus::event
