#pragma once
// Closed forms of a whole compute for the event engine (docs/timing-model.md, "Closed forms of
// a whole compute", derived there from the issue rule): when every operand and coefficient word
// is usable by the compute's start, the issue times of the micro-program, its busy and
// dependency cycles and when each dependency target's last result is usable follow from the
// micro-schedule, the kernel's targets T and updates per target U, the fma latency L and the
// fma per cycle f alone, in O(1) and without the micro-program's instructions. FmaSchedules
// (fma_schedule.hpp) is the per-instruction evaluation of the same rule, and the fallback.

#include <cstdint>
#include <optional>

#include "models/cycle_type.hpp"

namespace torus::event {

// When each target's last result is usable, `base + slope t + stair floor((t + phase) / f)`
// cycles after the compute's start: non-decreasing in t.
struct ReadyPattern {
  std::uint64_t targets = 0;
  Cycle base = 0, slope = 0, phase = 0;
  bool stair = false;
  Cycle at(std::uint64_t t, unsigned per_cycle) const {
    return base + slope * t + (stair ? (t + phase) / per_cycle : 0);
  }
};

struct BlockTiming {
  Cycle first = 0, last = 0;   // first and last issue, cycles after the start
  Cycle busy = 0;              // distinct issue cycles, but the start cycle when the unit issued in it before
  unsigned offset = 0;         // fma the unit had already issued in the start cycle (interleaved: the stream's shift)
  unsigned in_last_cycle = 0;  // fma issued in the last issue cycle
  ReadyPattern ready;          // per target
};

struct BlockShape {
  std::uint64_t targets = 1;  // T: G accumulator words, 2 G when split complex
  std::uint64_t updates = 1;  // U: the reduction length R, 2 R when split complex
  bool chained = false;       // micro_schedule chained, else interleaved
  bool split = false;         // complex data on a real unit: four fma per multiply-add
};

// An instruction's accumulator word and reduction index, in the orders of sim/micro_schedules/.
struct FmaPlace {
  std::uint64_t word = 0, reduction = 0;
};

class BlockSchedules {
 public:
  BlockSchedules(Cycle latency, unsigned per_cycle) : latency_(latency), per_cycle_(per_cycle) {}
  // The compute of `shape` started `shift` cycles after a closed-form compute on the same
  // accumulator whose targets become usable as `previous` says (none: every target usable at
  // the start), in a cycle in which the unit already issued `offset` < f fma (of the compute
  // before, which ended mid-cycle). Nothing when the closed form does not cover it (the
  // per-instruction rule must then be evaluated).
  std::optional<BlockTiming> time(const BlockShape& shape, const ReadyPattern* previous, Cycle shift, unsigned offset = 0) const;
  // Instruction i's issue cycle after the start, in the compute `timing` gives.
  Cycle issue_of(const BlockShape& shape, const BlockTiming& timing, std::uint64_t i) const;
  FmaPlace place_of(const BlockShape& shape, std::uint64_t i) const;
  Cycle latency() const { return latency_; }
  unsigned per_cycle() const { return per_cycle_; }

 private:
  std::optional<BlockTiming> undelayed(const BlockShape& shape, unsigned offset) const;
  Cycle latency_;
  unsigned per_cycle_;
};

}  // namespace torus::event
