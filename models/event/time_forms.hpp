#pragma once
// Per-word times in closed form, so that a buffer or a link whose words all follow one simple
// pattern keeps O(1) state instead of a time per word (docs/timing-model.md, "Closed forms of a
// whole message"). Words of a message that leave one per link slot from tick tau0 (in units of
// 1/num cycle) leave at floor((tau0 + k den) / num); they arrive and are stored in the same
// pattern shifted, and never before some cycle: a Stair.

#include <algorithm>
#include <cstdint>

#include "models/cycle_type.hpp"
#include "models/event/block_schedule.hpp"

namespace torus::event {

// max(floor_at, floor((sigma + k den) / num)) for word k: non-decreasing in k.
struct Stair {
  Cycle floor_at = 0;
  std::uint64_t sigma = 0, num = 1, den = 1;
  Cycle at(std::uint64_t k) const { return std::max(floor_at, static_cast<Cycle>((sigma + k * den) / num)); }
};

// A time per word w of a buffer: none (never), one for all, a Stair, or the targets of a
// closed-form compute started at `start` (split complex: a word is usable once both parts are).
struct TimeForm {
  enum class Kind : std::uint8_t { Never, Uniform, Stair, Compute };
  Kind kind = Kind::Never;
  Cycle start = 0;  // Uniform: the time; Compute: the compute's start
  Stair stair;
  ReadyPattern pattern;
  bool split = false;
  unsigned per_cycle = 1;

  static TimeForm uniform(Cycle at) {
    TimeForm f;
    f.kind = Kind::Uniform;
    f.start = at;
    return f;
  }
  // Dependency target t (word t / 2's real or imaginary part when split).
  Cycle target(std::uint64_t t) const {
    if (kind == Kind::Compute) return start + pattern.at(t, per_cycle);
    return at(split ? t / 2 : t);
  }
  Cycle at(std::uint64_t w) const {
    switch (kind) {
      case Kind::Never: return never;
      case Kind::Uniform: return start;
      case Kind::Stair: return stair.at(w);
      case Kind::Compute: return start + pattern.at(split ? 2 * w + 1 : w, per_cycle);
    }
    return never;
  }
  // The latest over words 0 .. words - 1 (every form is non-decreasing in w); never for none.
  Cycle latest(std::uint64_t words) const { return words == 0 ? 0 : at(words - 1); }
};

}  // namespace torus::event
