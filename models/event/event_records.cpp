// What the event engine hands to the report: the node-cycle classes (cycles spent waiting for
// words are back-pressure when a word of the node's own, free to leave, has no credit on its
// link, otherwise operand stalls: docs/timing-model.md, "Where the cycles go"), finish cycles,
// step records and link statistics.

#include <algorithm>
#include <stdexcept>

#include "models/event/event_engine.hpp"

namespace torus::event {

// The cycles after whose send phase the link holds no credit, as intervals [from, to): credits
// return `latency` after each word is stored and are collected before the send phase. After
// word i leaves, the link holds none until the credit of word i + 1 - B returns (word i + 1
// cannot leave before it does), so they are the union over i of [leaves[i], pops[i + 1 - B] + d).
// Where both sequences follow whole-message forms, that difference, a floor(...) + d -
// floor(...) of two stairs of one slope (periodic, every num words) or a constant less a
// growing stair, is checked on one period and the stretch skipped when it is never positive.
std::vector<std::pair<Cycle, Cycle>> EventEngine::starved_cycles(const LinkState& link) const {
  std::vector<std::pair<Cycle, Cycle>> out;
  const Cycle d = params_.link_latency;
  const std::uint64_t B = params_.buffer_words;
  const auto gap = [&](std::uint64_t i) -> std::int64_t {
    return static_cast<std::int64_t>(link.pops[i + 1 - B] + d) - static_cast<std::int64_t>(link.leaves[i]);
  };
  std::uint64_t i = std::max(link.leaves.base, B - 1);
  while (i < link.leaves.count()) {
    const std::uint64_t j = i + 1 - B;
    if (j < link.pops.base) {  // returned by history_from, before which nothing is counted
      i = link.pops.base + B - 1;
      continue;
    }
    if (j >= link.pops.count()) {  // its credit never came back
      out.push_back({std::max(link.leaves[i], link.history_from), never});
      break;
    }
    const std::uint64_t end = stretch_end(link, i, j);
    if (end > i + 1 && !starves_in(link, i, end)) {
      i = end;
      continue;
    }
    for (; i < end; ++i) {
      if (gap(i) <= 0) continue;
      const Cycle from = std::max(link.leaves[i], link.history_from), until = link.pops[i + 1 - B] + d;
      if (from >= until) continue;
      if (!out.empty() && out.back().second >= from) out.back().second = std::max(out.back().second, until);
      else out.push_back({from, until});
    }
  }
  return out;
}

// The end of the words from i on whose leaving and whose credits' word (from j on) both follow
// one whole-message form each; i + 1 when either is a run of single times.
std::uint64_t EventEngine::stretch_end(const LinkState& link, std::uint64_t i, std::uint64_t j) const {
  const History::Run& left = link.leaves.run_of(i);
  const History::Run& taken = link.pops.run_of(j);
  if (!left.formed || !taken.formed || left.form.floor_at != 0) return i + 1;
  return std::min(left.end(), i + (taken.end() - j));
}

// Whether some word of [i, end), all in one stretch, leaves the link without credit.
bool EventEngine::starves_in(const LinkState& link, std::uint64_t i, std::uint64_t end) const {
  const std::uint64_t B = params_.buffer_words;
  const History::Run& left = link.leaves.run_of(i);
  const History::Run& taken = link.pops.run_of(i + 1 - B);
  const Stair& l = left.form;
  const Stair& p = taken.form;
  const auto d = static_cast<std::int64_t>(params_.link_latency);
  const auto stair = [](const Stair& s, std::uint64_t k) { return static_cast<std::int64_t>((s.sigma + k * s.den) / s.num); };
  // max(floor_at, stair) + d - leave: the floor part is largest at the first word, the stair part periodic.
  const std::uint64_t li = i - left.first, pj = i + 1 - B - taken.first;
  if (static_cast<std::int64_t>(p.floor_at) + d > static_cast<std::int64_t>(l.at(li))) return true;
  for (std::uint64_t k = 0; k < std::min<std::uint64_t>(end - i, l.num + 1); ++k)
    if (stair(p, pj + k) + d > static_cast<std::int64_t>(l.at(li + k))) return true;
  return false;
}

// The first word of the message still to leave after `cycle`'s send phase, or words when none.
Cycle EventEngine::first_word_after(const MessageState& s, Cycle cycle) const {
  if (!s.whole) return static_cast<Cycle>(std::upper_bound(s.leave.begin(), s.leave.end(), cycle) - s.leave.begin());
  Cycle low = 0, high = s.words;  // the leaving cycles of a whole message grow with k
  while (low < high) {
    const Cycle mid = (low + high) / 2;
    if (s.leave_form.at(mid) <= cycle) low = mid + 1;
    else high = mid;
  }
  return low;
}

// Whether the head of the port's queue after `cycle`'s send phase is released then.
bool EventEngine::head_released(const std::vector<std::uint32_t>& sends, Cycle cycle) const {
  const auto head = std::find_if(sends.begin(), sends.end(), [&](std::uint32_t m) { return messages_[m].last_leave > cycle; });
  if (head == sends.end() || messages_[*head].posted_at > cycle) return false;
  const MessageState& s = messages_[*head];
  if (s.whole) return (first_word_after(s, cycle) == 0 ? s.whole_started : s.whole_release) <= cycle;
  if (s.leave.empty()) throw std::logic_error("engine event: the word times of a message waiting for a credit were released");
  return s.release_at[first_word_after(s, cycle)] <= cycle;
}

void EventEngine::classify_waits(std::size_t n) {
  NodeState& node = nodes_[n];
  // Per direction whose link may run out of credit: the cycles it has none.
  std::vector<std::pair<std::size_t, std::vector<std::pair<Cycle, Cycle>>>> starved;
  for (std::size_t d = 0; d < direction_count; ++d) {
    const LinkState& link = links_[n * direction_count + d];
    if (link.starved_from == never) continue;
    auto cycles = starved_cycles(link);
    if (!cycles.empty()) starved.emplace_back(d, std::move(cycles));
  }
  const auto starved_at = [](const std::vector<std::pair<Cycle, Cycle>>& cycles, Cycle c) {
    const auto it = std::upper_bound(cycles.begin(), cycles.end(), c, [](Cycle v, const auto& r) { return v < r.first; });
    return it != cycles.begin() && c < std::prev(it)->second;
  };
  for (const auto& [from, to] : node.waits) {
    std::vector<std::pair<Cycle, Cycle>> candidates;  // where some link has no credit
    for (const auto& entry : starved)
      for (const auto& [s_from, s_to] : entry.second)
        if (s_from < to && s_to > from) candidates.push_back({std::max(from, s_from), std::min(to, s_to)});
    std::sort(candidates.begin(), candidates.end());
    std::uint64_t pressed = 0;
    Cycle next = from;  // cycles before it are done
    for (const auto& [c_from, c_to] : candidates)
      for (Cycle c = std::max(next, c_from); c < c_to; ++c, next = c)
        for (const auto& [d, cycles] : starved)
          if (starved_at(cycles, c) && head_released(node.sends_by_direction[d], c)) {
            ++pressed;
            break;
          }
    node.record.backpressure += pressed;
    node.record.operand += to - from - pressed;
  }
  std::vector<std::pair<Cycle, Cycle>>().swap(node.waits);
}

EngineRecords EventEngine::records() const {
  EngineRecords r;
  r.steps.resize(nodes_.size(), program_.global_steps());
  r.nodes.reserve(nodes_.size());
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const NodeState& node = nodes_[n];
    NodeRecord record = node.record;
    record.finish_cycle = std::max({node.walk.passed_all, node.walk.last_result, node.last_leave, node.last_pop});
    record.allocated_words = node.datapath->allocated_words();
    // A datapath without values (values off) allocates none of the words it declares.
    std::size_t bytes = sizeof(NodeState) + (node.datapath->holds_values() ? record.allocated_words * node.datapath->word_bytes() : 0);
    for (const BufferTimes& b : node.buffers)
      bytes += b.ready.capacity() * 3 * sizeof(Cycle) + b.component_ready.capacity() * sizeof(Cycle) +
               b.generation.capacity() * sizeof(std::uint32_t) + b.writes_left.capacity() * sizeof(std::uint16_t);
    record.engine_bytes = bytes;
    r.steps.set(n, node.steps);
    r.nodes.push_back(std::move(record));
  }
  r.step_totals = total_steps(r.steps, r.nodes, program_.global_steps());
  for (const LinkState& link : links_) r.links.push_back(link.stats);
  r.fma_per_cycle = params_.per_cycle;
  r.copies = program_.nodes_represented() / nodes_.size();
  std::uint64_t messages = 0;
  std::uint64_t hops = 0;
  for (const Message& m : program_.messages) {
    messages += m.words > 0 ? 1 : 0;
    hops += m.words > 0 ? m.hops - 1 : 0;
  }
  r.fast_forward_note = "engine event times whole tasks and messages: nothing is stepped cycle by cycle; closed forms: ";
  if (closed_computes_ == computes_ && sent_whole_ == messages && stored_whole_ == messages && forwarded_whole_ == hops)
    r.fast_forward_note += "every compute and message";
  else
    r.fast_forward_note += std::to_string(closed_computes_) + " of " + std::to_string(computes_) + " computes, " +
                           std::to_string(sent_whole_) + " of " + std::to_string(messages) + " messages sent and " +
                           std::to_string(stored_whole_) + " stored whole" +
                           (hops > 0 ? ", " + std::to_string(forwarded_whole_) + " of " + std::to_string(hops) + " router hops forwarded whole" : "");
  return r;
}

}  // namespace torus::event
