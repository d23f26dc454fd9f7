#include "models/event/block_schedule.hpp"

#include <algorithm>

namespace torus::event {

// The compute with every target usable at its start (docs/timing-model.md, "Closed forms of a
// whole compute"), in a cycle in which the unit already issued `offset` fma. One update per
// target is the same stream under both micro-schedules.
std::optional<BlockTiming> BlockSchedules::undelayed(const BlockShape& shape, unsigned offset) const {
  const std::uint64_t T = shape.targets, U = shape.updates, f = per_cycle_, o = offset;
  const Cycle L = latency_;
  const Cycle shared = o > 0 ? 1 : 0;  // the start cycle, busy already: the first fma issues in it
  BlockTiming b;
  b.offset = offset;
  b.ready.targets = T;
  if (!shape.chained || U == 1) {
    if (T >= L * f || U == 1) {  // never waits: instruction i issues at floor((i + o) / f)
      b.last = (U * T - 1 + o) / f;
      b.busy = b.last + 1 - shared;
      b.in_last_cycle = static_cast<unsigned>(U * T + o - f * b.last);
      b.ready = {T, L, 0, (U - 1) * T + o, true};
      return b;
    }
    // Round r waits for round r - 1's first result: its fma issue at r L + floor((e + o) / f),
    // as long as a round's last issue comes before the next round's first (T - 1 + o < L f).
    if (T - 1 + o >= L * f) return std::nullopt;
    const Cycle per_round = (T - 1 + o) / f;
    b.last = (U - 1) * L + per_round;
    b.busy = U * (per_round + 1) - shared;
    // The last round (not the first: U >= 2) has no slots taken: o counts only past its first cycle.
    b.in_last_cycle = static_cast<unsigned>(per_round == 0 ? T : T + o - f * per_round);
    b.ready = {T, U * L, 0, o, true};
    return b;
  }
  // Chained: update r of target t issues at t ((U - 1) L + 1) + r L with one fma per cycle; with
  // more, a chain's first update shares the cycle of the previous chain's last: t (U - 1) L + r L.
  // At most two fma share a cycle, so a start cycle with a free slot changes nothing.
  const Cycle chain = f == 1 ? (U - 1) * L + 1 : (U - 1) * L;
  b.last = f == 1 ? T * chain - 1 : T * chain;
  b.busy = (f == 1 ? T * U : T * (U - 1) + 1) - shared;
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
// the shift: a target's next update is T issues, so at least floor(T / f) >= L cycles, on even
// across the two computes and whatever the offset. With an offset, the first issues are
// floor((t + o) / f), whose difference with a floor(t / f) form is not monotone: not covered.
std::optional<BlockTiming> BlockSchedules::time(const BlockShape& shape, const ReadyPattern* previous, Cycle shift,
                                                unsigned offset) const {
  std::optional<BlockTiming> b = undelayed(shape, offset);
  if (!b || previous == nullptr) return b;
  const std::uint64_t T = shape.targets, f = per_cycle_;
  if (previous->targets != T) return std::nullopt;
  if (previous->at(T - 1, per_cycle_) <= shift) return b;  // everything usable by the start
  const bool interleaved = !shape.chained || shape.updates == 1;
  if (interleaved && T >= latency_ * f) return b;
  if (previous->phase != 0 || (interleaved && offset != 0)) return std::nullopt;
  const auto first_issue = [&](std::uint64_t t) -> std::int64_t {
    return static_cast<std::int64_t>(interleaved ? t / f : t * b->ready.slope);
  };
  const auto wait = [&](std::uint64_t t) {
    return static_cast<std::int64_t>(previous->at(t, per_cycle_)) - static_cast<std::int64_t>(shift) - first_issue(t);
  };
  const std::int64_t head = wait(0), tail = wait(T - 1);
  if (std::max(head, tail) <= 0) return b;
  if (tail > head) return std::nullopt;
  const auto delay = static_cast<Cycle>(head);
  if (offset != 0) ++b->busy;  // the first fma no longer issues in the shared start cycle
  b->first += delay;
  b->last += delay;
  b->ready.base += delay;
  return b;
}

Cycle BlockSchedules::issue_of(const BlockShape& shape, const BlockTiming& timing, std::uint64_t i) const {
  const std::uint64_t T = shape.targets, U = shape.updates, f = per_cycle_;
  if (!shape.chained || U == 1) {  // round i / T, target i % T
    if (T >= latency_ * f || U == 1) return timing.first + (i + timing.offset) / f;
    return timing.first + (i / T) * latency_ + (i % T + timing.offset) / f;
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
