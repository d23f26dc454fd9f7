// What the event engine hands to the report: the node-cycle classes (cycles spent waiting for
// words are back-pressure when a word of the node's own, free to leave, has no credit on its
// link, otherwise operand stalls: docs/timing-model.md, "Where the cycles go"), finish cycles,
// step records and link statistics.

#include <algorithm>
#include <stdexcept>

#include "models/event/event_engine.hpp"

namespace torus::event {

// The cycles after whose send phase the link holds no credit, as intervals [from, to): credits
// return `latency` after each word is stored and are collected before the send phase.
std::vector<std::pair<Cycle, Cycle>> EventEngine::starved_cycles(const LinkState& link) const {
  std::vector<std::pair<Cycle, Cycle>> out;
  const Cycle d = params_.link_latency;
  // The dropped words all left and returned by history_from: from there on the count is exact.
  std::uint64_t left = link.leaves.base, back = link.pops.base;
  std::int64_t credits = static_cast<std::int64_t>(params_.buffer_words) - static_cast<std::int64_t>(left) +
                         static_cast<std::int64_t>(back);
  while (left < link.leaves.count()) {
    const Cycle c = std::min(link.leaves[left], back < link.pops.count() ? link.pops[back] + d : never);
    while (back < link.pops.count() && link.pops[back] + d <= c) ++back, ++credits;
    while (left < link.leaves.count() && link.leaves[left] == c) ++left, --credits;
    if (credits > 0) continue;
    const Cycle until = back < link.pops.count() ? link.pops[back] + d : never;
    const Cycle from = std::max(c, link.history_from);
    if (from >= until) continue;
    if (!out.empty() && out.back().second >= from) out.back().second = std::max(out.back().second, until);
    else out.push_back({from, until});
  }
  return out;
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
  for (const LinkState& link : links_) r.links.push_back(link.stats);
  r.fma_per_cycle = params_.per_cycle;
  r.copies = program_.nodes_represented() / nodes_.size();
  std::uint64_t messages = 0;
  for (const Message& m : program_.messages) messages += m.words > 0 ? 1 : 0;
  r.fast_forward_note = "engine event times whole tasks and messages: nothing is stepped cycle by cycle; closed forms: ";
  if (closed_computes_ == computes_ && sent_whole_ == messages && stored_whole_ == messages)
    r.fast_forward_note += "every compute and message";
  else
    r.fast_forward_note += std::to_string(closed_computes_) + " of " + std::to_string(computes_) + " computes, " +
                           std::to_string(sent_whole_) + " of " + std::to_string(messages) + " messages sent and " +
                           std::to_string(stored_whole_) + " stored whole";
  return r;
}

}  // namespace torus::event
