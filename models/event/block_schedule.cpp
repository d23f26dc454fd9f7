#include "models/event/block_schedule.hpp"

#include <algorithm>

namespace torus::event {

// The compute with every target usable at its start (docs/timing-model.md, "Closed forms of a
// whole compute"). One update per target is the same stream under both micro-schedules.
BlockTiming BlockSchedules::undelayed(const BlockShape& shape) const {
  const std::uint64_t T = shape.targets, U = shape.updates, f = per_cycle_;
  const Cycle L = latency_;
  BlockTiming b;
  b.ready.targets = T;
  if (!shape.chained || U == 1) {
    if (T >= L * f) {  // never waits: instruction i issues at floor(i / f)
      b.last = (U * T - 1) / f;
      b.busy = b.last + 1;
      b.in_last_cycle = static_cast<unsigned>(U * T - f * b.last);
      b.ready = {T, L, 0, (U - 1) * T, true};
    } else {  // round r waits for round r - 1's first result: its fma issue at r L + floor(e / f)
      const Cycle per_round = (T - 1) / f;
      b.last = (U - 1) * L + per_round;
      b.busy = U * (per_round + 1);
      b.in_last_cycle = static_cast<unsigned>(T - f * per_round);
      b.ready = {T, U * L, 0, 0, true};
    }
    return b;
  }
  // Chained: update r of target t issues at t ((U - 1) L + 1) + r L with one fma per cycle; with
  // more, a chain's first update shares the cycle of the previous chain's last: t (U - 1) L + r L.
  const Cycle chain = f == 1 ? (U - 1) * L + 1 : (U - 1) * L;
  b.last = f == 1 ? T * chain - 1 : T * chain;
  b.busy = f == 1 ? T * U : T * (U - 1) + 1;
  b.in_last_cycle = 1;
  b.ready = {T, U * L, chain, 0, false};
  return b;
}

// A compute that follows a closed-form compute on its accumulator sees target t usable at
// previous(t) - shift. When the earliest-constrained target is the first one issued, the
// whole schedule is the undelayed one shifted by that wait D (every issue keeps the constraint
// that set it); the differences between previous(t) and the undelayed first issue of t are
// monotone in t (both are base + a t + floor(t / f) forms), so their two ends decide it.
// Interleaved with T >= L f never waits on the previous compute, whose last issue came before
// the shift: a round G issues after the same target's update even across the two computes.
std::optional<BlockTiming> BlockSchedules::time(const BlockShape& shape, const ReadyPattern* previous, Cycle shift) const {
  BlockTiming b = undelayed(shape);
  if (previous == nullptr) return b;
  const std::uint64_t T = shape.targets, f = per_cycle_;
  if (previous->targets != T) return std::nullopt;
  if (previous->at(T - 1, per_cycle_) <= shift) return b;  // everything usable by the start
  const bool interleaved = !shape.chained || shape.updates == 1;
  if (previous->phase != 0) {
    if (interleaved && T >= latency_ * f) return b;
    return std::nullopt;
  }
  const auto first_issue = [&](std::uint64_t t) -> std::int64_t {
    return static_cast<std::int64_t>(interleaved ? t / f : t * b.ready.slope);
  };
  const auto wait = [&](std::uint64_t t) {
    return static_cast<std::int64_t>(previous->at(t, per_cycle_)) - static_cast<std::int64_t>(shift) - first_issue(t);
  };
  const std::int64_t head = wait(0), tail = wait(T - 1);
  if (std::max(head, tail) <= 0) return b;
  if (tail > head) return std::nullopt;
  const auto delay = static_cast<Cycle>(head);
  b.first += delay;
  b.last += delay;
  b.ready.base += delay;
  return b;
}

Cycle BlockSchedules::issue_of(const BlockShape& shape, const BlockTiming& timing, std::uint64_t i) const {
  const std::uint64_t T = shape.targets, U = shape.updates, f = per_cycle_;
  if (!shape.chained || U == 1) {  // round i / T, target i % T
    if (T >= latency_ * f) return timing.first + i / f;
    return timing.first + (i / T) * latency_ + (i % T) / f;
  }
  return timing.first + (i / U) * timing.ready.slope + (i % U) * latency_;  // target i / U, update i % U
}

FmaPlace BlockSchedules::place_of(const BlockShape& shape, std::uint64_t i) const {
  if (!shape.split) {
    const std::uint64_t G = shape.targets, R = shape.updates;
    return shape.chained ? FmaPlace{i / R, i % R} : FmaPlace{i % G, i / G};
  }
  // Split: interleaved sub-rounds of 2G (two parts per word, reduction index per two
  // sub-rounds); chained: per word, 4R (two parts per reduction index, twice).
  const std::uint64_t G = shape.targets / 2, R = shape.updates / 2;
  if (shape.chained) return {i / (4 * R), (i % (2 * R)) / 2};
  return {(i % (2 * G)) / 2, i / (4 * G)};
}

}  // namespace torus::event
