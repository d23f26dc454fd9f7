// The event engine's messages (docs/timing-model.md, "Links"): word k of a message leaves at
// the first cycle at which it is released by the send policy, the link is free (serialisation
// at num/den words per cycle, whole messages in the order they were posted) and a credit is
// held (the one freed when word k - B of the link was stored, returned `latency` later); it
// arrives `latency` later and is stored at the first cycle from its arrival on at which its
// receive is posted (from the cycle after the pointer passed it), its place owes nothing to an
// earlier send (from the cycle after that send took the old word) and the words before it on
// the link are stored.

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

bool EventEngine::advance_message(std::uint32_t m) {
  bool progress = false;
  for (;;) {
    const bool moved = leave_next(m);
    const bool stored = store_next(m);
    if (!moved && !stored) return progress;
    progress = true;
  }
}

// When the send policy lets `word` leave, if that is known yet.
bool EventEngine::release_of(const MessageState& s, std::size_t source, std::uint32_t word, Cycle& release) const {
  const NodeState& node = nodes_[source];
  const BufferTimes& buffer = node.buffers[s.buffer];
  if (buffer.generation[word] != s.generation) return false;  // still arriving
  switch (s.release) {
    case SendRelease::ComputeDone:
      if (s.compute != no_task && node.compute_done[s.compute] == never) return false;
      release = s.compute == no_task ? buffer.ready[word] : std::max(buffer.ready[word], node.compute_done[s.compute]);
      return true;
    case SendRelease::WordPresent: release = buffer.ready[word]; return true;
    case SendRelease::WordFinal:
      if (buffer.writes_left[word] != 0) return false;
      release = buffer.ready[word];
      return true;
  }
  return false;
}

bool EventEngine::leave_next(std::uint32_t m) {
  MessageState& s = messages_[m];
  if (!s.posted || s.sent == s.words) return false;
  LinkState& link = link_of(m);
  if (link.queue[link.head] != m) return false;  // an earlier message still holds the link
  const std::size_t source = program_.messages[m].source;
  const std::uint32_t k = s.sent, word = word_at(s, k);
  Cycle release = 0;
  if (!release_of(s, source, word, release)) return false;
  const std::uint64_t index = s.link_base + k;
  Cycle credit = 0;
  if (index >= params_.buffer_words) {
    const std::uint64_t freed_by = index - params_.buffer_words;
    if (link.pops.size() <= freed_by) return false;
    credit = link.pops[freed_by] + params_.link_latency;
  }
  const auto num = static_cast<std::int64_t>(params_.rate.num), den = static_cast<std::int64_t>(params_.rate.den);
  Cycle at = std::max({release, s.posted_at, link.last_leave, credit});
  at = std::max<Cycle>(at, static_cast<Cycle>(link.next_free_tick / num));
  link.next_free_tick = std::max(link.next_free_tick, static_cast<std::int64_t>(at) * num) + den;
  NodeState& node = nodes_[source];
  BufferTimes& buffer = node.buffers[s.buffer];
  if (k == 0 && buffer.tag != program_.messages[m].tag)
    fail(source, "message " + std::to_string(m) + " should carry " + program_.describe(program_.messages[m].tag) + " but " +
                     program_.describe(buffer.tag) + " is sent");
  s.release_at[k] = release;
  s.leave[k] = at;
  s.arrival[k] = at + params_.link_latency;
  s.payload[k] = node.datapath->read(s.buffer, word);
  link.leaves.push_back(at);
  link.last_leave = at;
  note_credits(link, index, at);
  ++link.stats.words;
  if (link.last_active != at) {
    ++link.stats.active_cycles;
    link.last_active = at;
  }
  buffer.left[word] = buffer.left[word] == never ? at : std::max(buffer.left[word], at);
  buffer.busy_until = buffer.busy_until == never ? at : std::max(buffer.busy_until, at);
  StepRecord& step = node.steps[s.step];
  if (step.first_send == never) step.first_send = at;
  step.last_send = at;
  ++step.words_sent;
  node.last_leave = std::max(node.last_leave, at);
  if (!node.trace.empty()) node.trace[s.send_task].note(at);
  if (++s.sent == s.words) {
    std::erase(buffer.active_sends, m);
    ++link.head;
    forget_active(source, m);
  }
  return true;
}

// Marks the first cycle the link may be left without a credit after a send phase (a later
// look, classify_waits, tells exactly; before that cycle it never is). Credits not yet known
// to be back count as missing, so the mark is never late.
void EventEngine::note_credits(LinkState& link, std::uint64_t index, Cycle at) const {
  if (index + 1 < params_.buffer_words || link.starved_from != never) return;
  while (link.returned < link.pops.size() && link.pops[link.returned] + params_.link_latency <= at) ++link.returned;
  if (params_.buffer_words + link.returned <= index + 1) link.starved_from = at;
}

bool EventEngine::store_next(std::uint32_t m) {
  MessageState& s = messages_[m];
  if (!s.receive_posted || s.taken >= s.sent) return false;
  LinkState& link = link_of(m);
  const std::uint64_t index = s.link_base + s.taken;
  if (link.pops.size() != index) return false;  // a word ahead of it on the link is not stored yet
  const std::size_t destination = program_.messages[m].destination;
  NodeState& node = nodes_[destination];
  const std::uint32_t word = word_at(s, s.taken);
  Cycle at = std::max(s.arrival[s.taken], s.receive_posted_at + 1);
  if (!link.pops.empty()) at = std::max(at, link.pops.back());
  if (s.into != no_buffer) {
    BufferTimes& buffer = node.buffers[s.into];
    if (sends_pending(buffer, s.into_generation)) return false;
    if (buffer.left[word] != never) at = std::max(at, buffer.left[word] + 1);
    if (s.taken == 0) buffer.tag = program_.messages[m].tag;
    buffer.schedule = FmaSchedules::none;
    node.datapath->write(s.into, word, s.payload[s.taken]);
    buffer.generation[word] = s.into_generation;
    buffer.ready[word] = at;
    buffer.since[word] = at;
    if (params_.split) buffer.component_ready[2 * word] = buffer.component_ready[2 * word + 1] = at;
  }
  const Cycle arrival = s.arrival[s.taken];
  link.pops.push_back(at);
  while (link.occupancy_front < index && link.pops[link.occupancy_front] < arrival) ++link.occupancy_front;
  link.stats.peak_occupancy = std::max<std::uint64_t>(link.stats.peak_occupancy, index + 1 - link.occupancy_front);
  node.last_pop = std::max(node.last_pop, at);
  if (!node.trace.empty()) node.trace[s.receive_task].note(at);
  if (++s.taken == s.words) {
    s.last_store = at;
    s.payload = {};
    forget_active(destination, m);
  }
  return true;
}

}  // namespace torus::event
