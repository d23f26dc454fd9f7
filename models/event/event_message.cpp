// The event engine's messages (docs/timing-model.md, "Links"): word k of a message leaves at
// the first cycle at which it is released by the send policy, the link is free (serialisation
// at num/den words per cycle, whole messages in the order the link is given to them: a node's
// own in the order they were posted, event_router.cpp when messages pass through) and a credit
// is held (the one freed when word k - B of the link was taken at its far end, returned
// `latency` later); it arrives `latency` later and is stored at the first cycle from its
// arrival on at which its receive is posted (from the cycle after the pointer passed it), its
// place owes nothing to an earlier send (from the cycle after that send took the old word)
// and the words before it on the link are taken. Hops after the first: event_router.cpp.

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

bool EventEngine::advance_message(std::uint32_t m) {
  bool progress = false;
  for (;;) {
    bool moved = leave_next(m);
    for (std::uint32_t h = 1; h < hop_count(m); ++h) moved = forward_next(messages_[m].through + h - 1) || moved;
    const bool stored = store_next(m);
    if (!moved && !stored) return progress;
    progress = true;
  }
}

// When the send policy lets `word` leave, if that is known yet.
bool EventEngine::release_of(const MessageState& s, std::size_t source, std::uint32_t word, Cycle& release) const {
  const NodeState& node = nodes_[source];
  const BufferTimes& buffer = node.buffers[s.buffer];
  if (buffer.generation_at(word) != s.generation) return false;  // still arriving
  switch (s.release) {
    case SendRelease::ComputeDone:
      if (s.compute != no_task && node.compute_done[s.compute] == never) return false;
      release = s.compute == no_task ? buffer.ready_at(word) : std::max(buffer.ready_at(word), node.compute_done[s.compute]);
      return true;
    case SendRelease::WordPresent: release = buffer.ready_at(word); return true;
    case SendRelease::WordFinal:
      if (buffer.writes_left_at(word) != 0) return false;
      release = buffer.ready_at(word);
      return true;
  }
  return false;
}

// Moves as many words of the message onto the link of its first hop as have known leaving
// cycles (once it holds the link: it is the first of the link's queue not yet gone).
bool EventEngine::leave_next(std::uint32_t m) {
  MessageState& s = messages_[m];
  if (!s.posted || s.sent == s.words) return false;
  LinkState& link = links_[first_link(m)];
  if (link.head == link.queue.size() || link.queue[link.head] != m) return false;  // it does not hold the link
  const std::size_t source = program_.messages[m].source;
  NodeState& node = nodes_[source];
  BufferTimes& buffer = node.buffers[s.buffer];
  bool wait = false;
  if (s.sent == 0 && leave_whole(m, wait)) return true;
  if (wait) return false;
  const Cycle granted = s.granted_at == never ? 0 : s.granted_at;
  const bool one_hop = hop_count(m) == 1;
  StepRecord& step = node.steps[s.step];
  const std::uint32_t first = s.sent;
  while (s.sent < s.words) {
    const std::uint32_t k = s.sent, word = word_at(s, k);
    Cycle release = 0;
    if (!release_of(s, source, word, release)) break;
    if (k == 0 && buffer.tag != program_.messages[m].tag)  // the block it leaves with must be the one it carries
      fail(source, "message " + std::to_string(m) + " should carry " + program_.describe(program_.messages[m].tag) + " but " +
                       program_.describe(buffer.tag) + " is sent");
    if (k == 0) release = started(s, release);
    Cycle at = 0;
    if (!link.slot(s.link_base + k, std::max({release, s.posted_at, granted}), params_, at)) break;
    if (k == 0) {  // per word from here on
      link.stats.wait_cycles += at - release;  // from asking for the link (started) to leaving on it
      s.release_at.assign(s.words, never);
      s.leave.assign(s.words, never);
      if (node.datapath->holds_values()) s.payload.assign(s.words, {});
      buffer.expand();
    }
    link.leave(at, params_);
    s.release_at[k] = release;
    s.leave[k] = at;
    if (!s.payload.empty()) s.payload[k] = node.datapath->read(s.buffer, word);
    buffer.left[word] = buffer.left[word] == never ? at : std::max(buffer.left[word], at);
    step.first_send = std::min(step.first_send, at);  // the step's sends may leave on several links, in any order
    if (!node.trace.empty()) node.trace[s.send_task].note(at);
    ++s.sent;
  }
  const std::uint32_t moved = s.sent - first;
  if (moved == 0) return false;
  if (first == 0 && !one_hop) start_asking(m, 1);
  note_left(m, moved, s.leave[s.sent - 1]);
  return true;
}

// `moved` more words of message m left its source, the last of them at `last`.
void EventEngine::note_left(std::uint32_t m, std::uint32_t moved, Cycle last) {
  MessageState& s = messages_[m];
  const std::size_t source = program_.messages[m].source;
  NodeState& node = nodes_[source];
  BufferTimes& buffer = node.buffers[s.buffer];
  LinkState& link = links_[first_link(m)];
  StepRecord& step = node.steps[s.step];
  buffer.busy_until = buffer.busy_until == never ? last : std::max(buffer.busy_until, last);
  step.last_send = step.last_send == never ? last : std::max(step.last_send, last);
  step.words_sent += moved;
  node.last_leave = std::max(node.last_leave, last);
  if (s.sent == s.words) {
    s.last_leave = last;
    std::erase(buffer.active_sends, m);
    ++link.head;
    forget_active(source, m);
    release_history(s, link);
  }
}

// A complete message on a link that never ran out of credit up to its last word can never be
// the head of a queue waiting for a credit (classify_waits); its per-word times go.
void EventEngine::release_history(MessageState& s, const LinkState& link) const {
  if (!s.complete() || link.starved_from != never) return;
  std::vector<Cycle>().swap(s.release_at);
  std::vector<Cycle>().swap(s.leave);
}

// Once a message is stored in full, every credit returned by its last word's leaving cycle is
// known (the words behind it on the link are stored later than it arrives), so whether the link
// ran out of credit after any of its words' send phases is known exactly; the first such
// cycle is kept.
void EventEngine::note_credits(const MessageState& s, LinkState& link) const {
  if (link.starved_from != never) return;
  const Cycle d = params_.link_latency;
  if (s.whole) {  // with every credit back by its first word only its last send phase may find none
    const std::uint64_t k = first_late_credit(link, s.link_base + 1, s.leave_form, s.credits_tight ? 0 : s.words - 1, s.words);
    if (k < s.words) link.starved_from = s.leave_form.at(k);
    return;
  }
  for (std::uint32_t k = 0; k < s.words; ++k) {
    const std::uint64_t index = s.link_base + k;
    if (index + 1 < params_.buffer_words) continue;
    while (link.returned < link.pops.count() && link.pops[link.returned] + d <= s.leave[k]) ++link.returned;
    if (params_.buffer_words + link.returned <= index + 1) {
      link.starved_from = s.leave[k];
      return;
    }
  }
}

// While the link has never run out of credit, the times of its words up to a message stored in
// full are needed only for the credits of the next B words and the occupancy count: older
// ones are dropped (all of them left, and returned their credit, by the message's last word's
// leaving cycle, since each such credit let a word of the message or before it leave).
void EventEngine::trim_history(const MessageState& s, LinkState& link) const {
  if (link.starved_from != never || link.leaves.kept() < 2 * (params_.buffer_words + s.words) + 64) return;
  const std::uint64_t end = s.link_base + s.words;
  const std::uint64_t credits = params_.buffer_words;
  link.leaves.drop_before(end);
  link.pops.drop_before(std::min({end > credits ? end - credits : 0, link.occupancy_front, link.returned}));
  link.history_from = s.last_leave;
}

// Stores as many arrived words of the message as have known storing cycles. A word behind one
// that left in a send phase (passing through) is taken in the next cycle's receive phase.
bool EventEngine::store_next(std::uint32_t m) {
  MessageState& s = messages_[m];
  const std::uint32_t arrived = last_sent(m);
  if (!s.receive_posted || s.taken >= arrived) return false;
  LinkState& link = links_[last_link(m)];
  if (link.pops.count() != last_base(m) + s.taken) return false;  // a word ahead of it on the link is still there
  if (s.taken == 0 && whole_form(m, hop_count(m) - 1) && store_whole(m)) return true;
  const std::size_t destination = program_.messages[m].destination;
  NodeState& node = nodes_[destination];
  BufferTimes* buffer = s.into == no_buffer ? nullptr : &node.buffers[s.into];
  const std::uint32_t first = s.taken;
  const bool owing = buffer && !buffer->active_sends.empty();
  Cycle at = link.last_pop + (link.last_pop_forwarded ? 1 : 0);
  while (s.taken < arrived) {
    const std::uint32_t word = word_at(s, s.taken);
    if (owing && owes(*buffer, word, s.into_generation)) break;  // its place still owes a word to a send
    const Cycle arrival = left_on(m, hop_count(m) - 1, s.taken) + params_.link_latency;
    at = std::max({at, arrival, s.receive_posted_at + 1});
    if (buffer) {
      buffer->expand();
      if (s.taken == 0) buffer->tag = program_.messages[m].tag;
      buffer->forget_schedule();
      if (buffer->left[word] != never) at = std::max(at, buffer->left[word] + 1);
      if (!s.payload.empty()) node.datapath->write(s.into, word, s.payload[s.taken]);
      buffer->generation[word] = s.into_generation;
      buffer->ready[word] = at;
      buffer->since[word] = at;
      if (params_.split) buffer->component_ready[2 * word] = buffer->component_ready[2 * word + 1] = at;
    }
    link.pop(arrival, at, false);
    if (!node.trace.empty()) node.trace[s.receive_task].note(at);
    ++s.taken;
  }
  node.last_pop = std::max(node.last_pop, at);
  if (s.taken == s.words) {
    s.last_store = at;
    std::vector<std::complex<double>>().swap(s.payload);
    receive_done(destination, m);
    note_credits(s, link);
    release_history(s, link);
    trim_history(s, link);
  }
  return s.taken > first;
}

}  // namespace torus::event
