#pragma once
// The fma issue cycles of one compute whose inputs are all usable when its first fma issues,
// on a unit of `per_cycle` fma a cycle: each fma in the cycle of the one before if that cycle
// has a slot left and the result it adds to is usable by then, else at the first later cycle
// at which it is. The same for every such compute of a kernel, so fast-forward can place a
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
  // The cycles in which the fma between the first and the last issue, and whether the last
  // shares the cycle of the one before (then the whole run cannot be placed from this schedule:
  // a run ends before the last's cycle, and fast-forward times the compute fma by fma).
  std::size_t run_cycles = 0;
  bool last_shares_cycle = false;
};

// Empty when the kernel's words have more than one dependency target (split complex) or it has
// fewer than three fma (fast-forward issues none of them then).
ComputeSchedule schedule_compute(const MicroProgram& micro, Cycle latency, unsigned per_cycle);

}  // namespace torus
