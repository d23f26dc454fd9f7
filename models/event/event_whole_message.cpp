// Whole messages in closed form (docs/timing-model.md, "Closed forms of a whole message"). A
// single-hop message on a link no message passes through, whose words all leave a compact
// buffer, released in one cycle, and whose credits were all returned before its first word
// could leave, leaves word k at floor((tau0 + k den) / num): one link slot after another from
// the link's next slot tau0. Its words arrive `latency` later and are stored at max(C,
// floor((Sigma + k den) / num)) when its buffer is compact: C from the receive, the link and the
// old words' leaving, Sigma from the arrivals and the old words' slots. Where those conditions
// do not hold the engine moves the words one by one (event_message.cpp); both give the same
// cycles, which tests/scenario/test_closed_forms.cpp checks.

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

// The one cycle every word of the message is released in, when that is known and one cycle.
bool EventEngine::release_whole(const MessageState& s, std::size_t source, Cycle& release) const {
  const NodeState& node = nodes_[source];
  const BufferTimes& buffer = node.buffers[s.buffer];
  if (buffer.compact_generation != s.generation) return false;
  const Cycle latest = buffer.ready_form.latest(s.words);
  const bool uniform = buffer.ready_form.kind == TimeForm::Kind::Uniform;
  switch (s.release) {
    case SendRelease::ComputeDone:
      if (s.compute == no_task) break;
      if (node.compute_done[s.compute] == never || latest > node.compute_done[s.compute]) return false;
      release = node.compute_done[s.compute];
      return true;
    case SendRelease::WordPresent: break;
    case SendRelease::WordFinal:
      if (buffer.compact_writes_left != 0) return false;
      break;
  }
  if (!uniform) return false;
  release = latest;
  return true;
}

bool EventEngine::leave_whole(std::uint32_t m) {
  MessageState& s = messages_[m];
  const std::size_t source = program_.messages[m].source;
  NodeState& node = nodes_[source];
  BufferTimes& buffer = node.buffers[s.buffer];
  LinkState& link = links_[first_link(m)];
  const std::uint64_t B = params_.buffer_words, W = s.words;
  if (!closed_forms_ || hop_count(m) != 1 || s.order || !node.trace.empty() || W == 0 || W >= B || !buffer.compact ||
      buffer.size != W || link.arbiter != no_arbiter || link.starved_from != never || node.datapath->holds_values())
    return false;
  Cycle release = 0;
  if (!release_whole(s, source, release)) return false;
  if (buffer.tag != program_.messages[m].tag) return false;  // the per-word rule says what is wrong
  const Cycle started = this->started(s, release);
  Cycle first = 0;
  if (!link.slot(s.link_base, std::max({started, s.posted_at, s.granted_at == never ? 0 : s.granted_at}), params_, first))
    return false;
  // Every credit its words need came back by its first word's cycle (the one after its last
  // word's send phase, whether the link holds none then, is known once it is stored: note_credits).
  const Cycle d = params_.link_latency;
  if (s.link_base + W > B) {
    const std::uint64_t j = s.link_base + W - 1 - B;
    if (link.pops.count() <= j || link.pops[j] + d > first) return false;
  }
  const std::uint64_t num = params_.rate.num, den = params_.rate.den;
  const std::uint64_t tau0 = std::max<std::uint64_t>(static_cast<std::uint64_t>(link.next_free_tick), first * num);
  const Stair leave{0, tau0, num, den};
  const Cycle last = leave.at(W - 1);
  if (buffer.left_form.kind != TimeForm::Kind::Never && buffer.left_form.latest(W) > first) return false;
  // The link, as word by word: its slots, its busy cycles (one per word at up to one word a
  // cycle, else every cycle from the first word's to the last's), its history.
  link.next_free_tick = static_cast<std::int64_t>(tau0 + W * den);
  Cycle active = den >= num ? W : last - first + 1;
  if (link.last_active == first) --active;
  link.stats.active_cycles += active;
  link.stats.words += W;
  link.last_active = last;
  link.last_leave = last;
  link.leaves.push_form(W, leave);
  s.whole = true;
  s.leave_form = leave;
  s.whole_release = release;
  s.whole_started = started;
  s.sent = static_cast<std::uint32_t>(W);
  buffer.left_form.kind = TimeForm::Kind::Stair;
  buffer.left_form.stair = leave;
  StepRecord& step = node.steps[s.step];
  step.first_send = std::min(step.first_send, first);
  note_left(m, static_cast<std::uint32_t>(W), last);
  ++sent_whole_;
  return true;
}

bool EventEngine::store_whole(std::uint32_t m) {
  MessageState& s = messages_[m];
  const std::size_t destination = program_.messages[m].destination;
  NodeState& node = nodes_[destination];
  BufferTimes* buffer = s.into == no_buffer ? nullptr : &node.buffers[s.into];
  LinkState& link = links_[first_link(m)];
  const std::uint64_t W = s.words, num = params_.rate.num, den = params_.rate.den;
  if (!node.trace.empty() || (buffer && (!buffer->compact || buffer->size != W || owes_any(*buffer, s.into_generation)))) return false;
  const Cycle d = params_.link_latency;
  // Word k is stored at max(C, floor((Sigma + k den) / num)); only where that is its arrival
  // for every word (nothing holds it in the link's buffer) is the peak occupancy the most
  // words arriving in one cycle.
  Cycle floor_at = std::max(link.last_pop + (link.last_pop_forwarded ? 1 : 0), s.receive_posted_at + 1);
  std::uint64_t sigma = s.leave_form.sigma + d * num;
  const Stair arrival{0, sigma, num, den};
  if (buffer && buffer->left_form.kind == TimeForm::Kind::Uniform) floor_at = std::max(floor_at, buffer->left_form.start + 1);
  if (buffer && buffer->left_form.kind == TimeForm::Kind::Stair) {
    const Stair& left = buffer->left_form.stair;
    floor_at = std::max(floor_at, left.floor_at + 1);
    sigma = std::max(sigma, left.sigma + num);
  }
  if (buffer && buffer->left_form.kind == TimeForm::Kind::Compute) return false;
  const Stair store{floor_at, sigma, num, den};
  if (floor_at > arrival.at(0) || sigma != arrival.sigma) return false;
  if (link.pops.count() > 0 && link.last_pop >= arrival.at(0)) return false;
  std::uint64_t peak = 0;
  for (std::uint64_t k = 0, run = 0; k < std::min<std::uint64_t>(W, 2 * num + 2); ++k) {
    run = k > 0 && arrival.at(k) == arrival.at(k - 1) ? run + 1 : 1;
    peak = std::max(peak, run);
  }
  link.stats.peak_occupancy = std::max<std::uint64_t>(link.stats.peak_occupancy, peak);
  link.occupancy_front = std::max(link.occupancy_front, s.link_base);
  link.pops.push_form(W, store);
  const Cycle last = store.at(W - 1);
  link.last_pop = last;
  link.last_pop_forwarded = false;
  if (buffer) {
    buffer->tag = program_.messages[m].tag;
    buffer->forget_schedule();
    buffer->compact_generation = s.into_generation;
    buffer->ready_form.kind = buffer->since_form.kind = TimeForm::Kind::Stair;
    buffer->ready_form.stair = buffer->since_form.stair = store;
  }
  s.taken = static_cast<std::uint32_t>(W);
  s.last_store = last;
  node.last_pop = std::max(node.last_pop, last);
  forget_active(destination, m);
  note_credits(s, link);
  release_history(s, link);
  trim_history(s, link);
  ++stored_whole_;
  return true;
}

}  // namespace torus::event
