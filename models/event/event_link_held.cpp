// How full a link's receive buffer gets while a message's words arrive (each link's
// peak_occupancy in the report): in closed form where the words arrive and are taken as
// stairs (event_whole_message.cpp), otherwise by a walk over the words still there.

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

// The most of a message's W words a link's buffer holds at once, the words arriving at
// `arrival` (floor_at 0) and taken at `taken` (no earlier), none of the link's words before them
// left behind: the words that find it the fullest are arrivals. Every word before k*, the first
// to arrive after both C and floor(Sigma / num), waits for them: word k* - 1 finds k* words.
// From k* on, word k finds k + 1 less the ceil((A_k num - Sigma) / den) taken before its arrival
// A_k, which repeats every num words (both grow by num when k does): one period decides.
std::uint64_t EventEngine::most_held(const Stair& arrival, const Stair& taken, std::uint64_t W) {
  const std::uint64_t S = arrival.sigma, sigma = taken.sigma, num = arrival.num, den = arrival.den;
  const auto first_from = [&](std::uint64_t tick) -> std::uint64_t { return tick <= S ? 0 : (tick - S + den - 1) / den; };
  const std::uint64_t k_star = std::max(first_from((taken.floor_at + 1) * num), first_from((sigma / num + 1) * num));
  if (k_star >= W) return W;
  std::uint64_t peak = k_star;
  for (std::uint64_t k = k_star; k < std::min(W, k_star + num + 1); ++k) {
    const std::uint64_t gone = (arrival.at(k) * num - sigma + den - 1) / den;
    peak = std::max(peak, k + 1 - std::min(k + 1, gone));
  }
  return peak;
}

// The first of the link's words before `base` not yet taken when a word arriving at `arrival`
// comes (`base` when all were): the words before it were all taken before. False when the
// times of the words still there are no longer kept.
bool EventEngine::first_held(const LinkState& link, std::uint64_t base, Cycle arrival, std::uint64_t& front) const {
  front = base;
  if (base == 0 || link.pops[base - 1] < arrival) return true;
  std::uint64_t lo = link.pops.base;
  if (lo >= base || (lo > 0 && link.pops[lo] >= arrival)) return false;
  if (link.pops[lo] >= arrival) {
    front = lo;
    return true;
  }
  while (front - lo > 1) {
    const std::uint64_t mid = lo + (front - lo) / 2;
    (link.pops[mid] >= arrival ? front : lo) = mid;
  }
  return true;
}

// The most words a link's buffer holds when one of a message's W words (arriving at `arrival`,
// from the link's word `base` on) arrives while the words from `front` to it are still there.
// Word k then finds base + k + 1 less the P(A_k) earlier words taken before its arrival A_k,
// and none of its own (they are taken after the last earlier one). For each earlier word j
// still there, the last word k_j to arrive by j's taking (A_k <= taken(j)) finds at least
// base + k_j + 1 - j, and every word k is such a k_j or finds no more than one: the largest
// over those j is the peak among the words that arrive before the earlier ones are all taken
// (the later ones are most_held's). An earlier word taken once the last word has arrived has
// k_j = W - 1, so of those only the first counts (the others find fewer): one step per earlier
// word taken while the message arrives, and a search for the first taken after, so that a long
// queue ahead of a short message costs no more than the words taken meanwhile.
std::uint64_t EventEngine::held_behind(const LinkState& link, std::uint64_t base, std::uint64_t front, const Stair& arrival,
                                       std::uint64_t W) const {
  const std::uint64_t num = arrival.num, den = arrival.den, S = arrival.sigma;
  const Cycle last_arrival = arrival.at(W - 1);
  std::uint64_t lo = front, hi = base;  // the first word from `front` on taken at or after the last arrival (base: none)
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (link.pops[mid] >= last_arrival ? hi : lo) = mid + (link.pops[mid] >= last_arrival ? 0 : 1);
  }
  std::uint64_t held = 0;
  for (std::uint64_t j = front; j < std::min(base, lo + 1); ++j) {
    const std::uint64_t end = (link.pops[j] + 1) * num;  // words arriving before this tick: A_k <= taken(j)
    if (end <= S) continue;
    const std::uint64_t k = std::min<std::uint64_t>(W, (end - S + den - 1) / den) - 1;
    held = std::max(held, base + k + 1 - j);
  }
  return held;
}

// The most words a link's buffer holds while a message's words arrive, stored in pieces: word
// by word as LinkState::pop counts them (the words before it not yet taken by its arrival),
// from `front` (first_held), one step per word and per earlier word still there, and no state kept.
std::uint64_t EventEngine::held_by_walk(const LinkState& link, std::uint64_t base, std::uint64_t front, const Stair& arrival,
                                        const std::vector<StorePiece>& pieces) const {
  std::uint64_t held = 0;
  std::size_t piece = 0;
  const auto taken = [&](std::uint64_t j) {
    if (j < base) return link.pops[j];
    while (pieces[piece].end <= j - base) ++piece;
    return pieces[piece].form.at(j - base);
  };
  const std::uint64_t W = pieces.back().end;
  for (std::uint64_t k = 0; k < W; ++k) {
    const Cycle a = arrival.at(k);
    while (front < base + k && taken(front) < a) ++front;
    held = std::max(held, base + k + 1 - front);
  }
  return held;
}

}  // namespace torus::event
