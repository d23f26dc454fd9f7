#pragma once
// The fma issue cycles of one compute whose inputs are all usable when its first fma issues,
// one fma per cycle: each fma at the first cycle after the previous one at which the result it
// adds to is usable. The same for every such compute of a kernel, so fast-forward can place a
// whole compute at once instead of timing it fma by fma (docs/timing-model.md, "Fast-forward").

#include <cstdint>
#include <vector>

#include "models/cycle/systemc.hpp"
#include "sim/micro_schedule.hpp"

namespace torus {

struct ComputeSchedule {
  std::vector<Cycle> issue;  // per instruction, counted from the first fma's issue cycle
  // Per accumulator word, after every fma but the last: when it is usable (never: not
  // updated by them) and how many updates it still waits for.
  std::vector<Cycle> ready_before_last;
  std::vector<std::uint16_t> left_before_last;
  bool some_final_before_last = false;  // a word has all its updates before the last fma
};

// Empty when the kernel's words have more than one dependency target (split complex) or it has
// fewer than three fma (fast-forward issues none of them then).
ComputeSchedule schedule_compute(const MicroProgram& micro, Cycle latency);

}  // namespace torus
