// What the event engine hands to the report: the node-cycle classes (cycles spent waiting for
// words are back-pressure when a word of the node's own, free to leave, has no credit on its
// link, otherwise operand stalls: docs/timing-model.md, "Where the cycles go"), finish cycles,
// step records and link statistics.

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

// No credit on the link after the send phase of `cycle`.
bool EventEngine::starved(const LinkState& link, Cycle cycle) const {
  const auto sent = static_cast<std::uint64_t>(std::upper_bound(link.leaves.begin(), link.leaves.end(), cycle) - link.leaves.begin());
  if (sent < params_.buffer_words) return false;
  const Cycle d = params_.link_latency;
  // Credits return in storing order, `latency` after each word was stored.
  const auto returned = static_cast<std::uint64_t>(
      std::upper_bound(link.pops.begin(), link.pops.end(), cycle, [d](Cycle c, Cycle pop) { return c < pop + d; }) -
      link.pops.begin());
  return params_.buffer_words + returned == sent;
}

// The first word of the message still to leave after `cycle`'s send phase, or words when none.
Cycle EventEngine::first_word_after(const MessageState& s, Cycle cycle) const {
  return static_cast<Cycle>(std::upper_bound(s.leave.begin(), s.leave.end(), cycle) - s.leave.begin());
}

void EventEngine::classify_waits(std::size_t n) {
  NodeState& node = nodes_[n];
  std::vector<std::size_t> tight;  // directions whose link ever runs out of credit
  for (std::size_t d = 0; d < direction_count; ++d) {
    const LinkState& link = links_[n * direction_count + d];
    for (std::size_t i = 0; i < link.leaves.size(); ++i)
      if (i + 1 >= params_.buffer_words && starved(link, link.leaves[i])) {
        tight.push_back(d);
        break;
      }
  }
  for (const auto& [from, to] : node.waits) {
    if (tight.empty()) {
      node.record.operand += to - from;
      continue;
    }
    for (Cycle c = from; c < to; ++c) {
      bool pressed = false;
      for (const std::size_t d : tight) {
        const auto& sends = node.sends_by_direction[d];
        // The head of the port's queue after the send phase: the first message not fully gone.
        const auto head = std::find_if(sends.begin(), sends.end(), [&](std::uint32_t m) { return messages_[m].leave.back() > c; });
        if (head == sends.end() || messages_[*head].posted_at > c) continue;
        const MessageState& s = messages_[*head];
        if (s.release_at[first_word_after(s, c)] <= c && starved(links_[n * direction_count + d], c)) {
          pressed = true;
          break;
        }
      }
      ++(pressed ? node.record.backpressure : node.record.operand);
    }
  }
  node.waits = {};
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
    std::size_t bytes = sizeof(NodeState) + record.allocated_words * node.datapath->word_bytes();
    for (const BufferTimes& b : node.buffers)
      bytes += b.ready.capacity() * 3 * sizeof(Cycle) + b.component_ready.capacity() * sizeof(Cycle) +
               b.generation.capacity() * sizeof(std::uint32_t) + b.writes_left.capacity() * sizeof(std::uint16_t);
    record.engine_bytes = bytes;
    r.steps.set(n, node.steps);
    r.nodes.push_back(std::move(record));
  }
  for (const LinkState& link : links_) r.links.push_back(link.stats);
  r.fma_per_cycle = params_.per_cycle;
  r.fast_forward_note = "engine event times whole tasks and messages: nothing is stepped cycle by cycle";
  return r;
}

}  // namespace torus::event
