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
  if (!buffer.holds(s.generation, s.words)) return false;
  const Cycle latest = buffer.latest(s.words);
  Cycle at_once = 0;
  const bool uniform = buffer.ready_at_once(s.words, at_once);
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

// Whether the credits W words from the link's word `base` on need (of the words B before them)
// are all back by cycle `by`: the last one's is the latest.
bool EventEngine::credits_back(const LinkState& link, std::uint64_t base, std::uint64_t W, Cycle by) const {
  const std::uint64_t B = params_.buffer_words;
  if (base + W <= B) return true;
  const std::uint64_t j = base + W - 1 - B;
  return link.pops.count() > j && link.pops[j] + params_.link_latency <= by;
}

// The link carries W words leaving at `leave`, as word by word: its slots (next from
// `next_tick`), its busy cycles (one per word at up to one word a cycle, else every cycle from
// the first word's to the last's, less one shared with the word before), its history.
void EventEngine::put_whole(LinkState& link, const Stair& leave, std::uint64_t W, std::int64_t next_tick) const {
  const Cycle first = leave.at(0), last = leave.at(W - 1);
  link.next_free_tick = next_tick;
  Cycle active = params_.rate.den >= params_.rate.num ? W : last - first + 1;
  if (link.last_active == first) --active;
  link.stats.active_cycles += active;
  link.stats.words += W;
  link.last_active = last;
  link.last_leave = last;
  link.leaves.push_form(W, leave);
}

bool EventEngine::leave_whole(std::uint32_t m) {
  MessageState& s = messages_[m];
  const std::size_t source = program_.messages[m].source;
  NodeState& node = nodes_[source];
  BufferTimes& buffer = node.buffers[s.buffer];
  LinkState& link = links_[first_link(m)];
  const std::uint64_t B = params_.buffer_words, W = s.words;
  if (!closed_forms_ || s.order || !node.trace.empty() || W == 0 || W >= B || !buffer.compact || link.arbiter != no_arbiter ||
      node.datapath->holds_values())
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
  if (!credits_back(link, s.link_base, W, first)) return false;
  const std::uint64_t num = params_.rate.num, den = params_.rate.den;
  const std::uint64_t tau0 = std::max<std::uint64_t>(static_cast<std::uint64_t>(link.next_free_tick), first * num);
  const Stair leave{0, tau0, num, den};
  const Cycle last = leave.at(W - 1);
  if (buffer.latest_left(W) > first) return false;
  put_whole(link, leave, W, static_cast<std::int64_t>(tau0 + W * den));
  s.whole = true;
  s.leave_form = leave;
  s.whole_release = release;
  s.whole_started = started;
  s.sent = static_cast<std::uint32_t>(W);
  if (hop_count(m) > 1) start_asking(m, 1);
  buffer.set(W, [&](Segment& run) {
    run.left.kind = TimeForm::Kind::Stair;
    run.left.stair = leave;
  });
  StepRecord& step = node.steps[s.step];
  step.first_send = std::min(step.first_send, first);
  note_left(m, static_cast<std::uint32_t>(W), last);
  ++sent_whole_;
  return true;
}

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

// A hop after the first of a message routed through other nodes, as a whole (docs/timing-model.md,
// "Closed forms of a whole message"): when the hop before went whole, so that word k arrives at
// floor((S + k den) / num) with S its form's tick + latency num, and the link, given to the
// message no later than its first word arrives, has its next slot no later than S and every
// credit the message needs back by then, each word leaves in the cycle it arrives: the link's
// slots never hold it up (the slot after word k's is at most S + (k + 1) den), nor do credits.
// Each word leaves its place in the input buffer as it leaves, so the input link's pops follow
// the same form.
bool EventEngine::forward_whole(std::uint32_t index) {
  HopState& hop = hops_[index];
  const std::uint32_t m = hop.message;
  const MessageState& s = messages_[m];
  const Stair* before = whole_form(m, hop.hop - 1u);
  const std::uint64_t W = s.words, num = params_.rate.num, den = params_.rate.den;
  if (!closed_forms_ || before == nullptr || before->floor_at != 0 || W == 0) return false;
  const HopState* previous = hop.hop == 1 ? nullptr : &hops_[index - 1];
  LinkState& in = links_[previous ? previous->link : first_link(m)];
  const std::uint64_t base = previous ? previous->link_base : s.link_base;
  LinkState& link = links_[hop.link];
  const Cycle d = params_.link_latency;
  const std::uint64_t S = before->sigma + d * num;
  const Stair leave{0, S, num, den};
  const Cycle first = leave.at(0);
  if (in.pops.count() != base || (in.pops.count() > 0 && in.last_pop >= first)) return false;
  if (hop.granted_at > first || link.last_leave > first || link.next_free_tick > static_cast<std::int64_t>(S)) return false;
  if (!credits_back(link, hop.link_base, W, first)) return false;
  // The link's next slot after the last word: the later of its slot chain and one slot after
  // the word that left latest in its tick (S + k den less the part of a cycle it waited for).
  std::uint64_t lag = num;
  for (std::uint64_t k = 0; k < std::min<std::uint64_t>(W, num); ++k) lag = std::min(lag, (S + k * den) % num);
  put_whole(link, leave, W, std::max(link.next_free_tick + static_cast<std::int64_t>(W * den), static_cast<std::int64_t>(S + W * den - lag)));
  const Cycle last = leave.at(W - 1);
  in.stats.peak_occupancy = std::max<std::uint64_t>(in.stats.peak_occupancy, most_held(leave, leave, W));
  in.occupancy_front = std::max(in.occupancy_front, base);
  in.pops.push_form(W, leave);
  in.last_pop = last;
  in.last_pop_forwarded = true;
  hop.whole = true;
  hop.leave_form = leave;
  hop.sent = static_cast<std::uint32_t>(W);
  if (hop.hop + 1u < hop_count(m)) start_asking(m, static_cast<std::uint16_t>(hop.hop + 1));
  ++link.head;
  ++forwarded_whole_;
  return true;
}

bool EventEngine::store_whole(std::uint32_t m) {
  MessageState& s = messages_[m];
  const std::size_t destination = program_.messages[m].destination;
  NodeState& node = nodes_[destination];
  BufferTimes* buffer = s.into == no_buffer ? nullptr : &node.buffers[s.into];
  LinkState& link = links_[last_link(m)];
  const Stair& left_last = *whole_form(m, hop_count(m) - 1);
  const std::uint64_t W = s.words, num = params_.rate.num, den = params_.rate.den;
  if (!node.trace.empty() || !s.payload.empty() || (buffer && (!buffer->compact || owes_any(*buffer, s.into_generation))))
    return false;
  const Cycle d = params_.link_latency;
  // Word k is stored at max(C, floor((Sigma + k den) / num)): C from the receive's posting and
  // the words before it on the link, Sigma from its arrival, and both from the old words'
  // leaving (+1), run by run of the places the message fills. With one run that is exact; with
  // several, only where every run's bound is below the arrivals and C for every word.
  const Stair arrival{0, left_last.sigma + d * num, num, den};
  const Cycle posted = std::max(link.last_pop + (link.last_pop_forwarded ? 1 : 0), s.receive_posted_at + 1);
  const Cycle low = std::max(posted, arrival.at(0));
  Cycle floor_at = posted;
  std::uint64_t sigma = arrival.sigma;
  std::size_t start = 0, runs = 0;
  bool dominated = true;
  for (const Segment& run : buffer ? buffer->segments : std::vector<Segment>{}) {
    if (start >= W) break;
    start = run.end;
    ++runs;
    if (run.left.kind == TimeForm::Kind::Compute) return false;
    if (run.left.kind == TimeForm::Kind::Never) continue;
    const bool stair = run.left.kind == TimeForm::Kind::Stair;
    const Cycle after = (stair ? run.left.stair.floor_at : run.left.start) + 1;
    floor_at = std::max(floor_at, after);
    if (stair) sigma = std::max(sigma, run.left.stair.sigma + num);
    dominated = dominated && after <= low && (!stair || run.left.stair.sigma + num <= arrival.sigma);
  }
  if (runs > 1 && !dominated) return false;
  const Stair store{floor_at, sigma, num, den};
  if (link.pops.count() > 0 && link.last_pop >= arrival.at(0)) return false;
  link.stats.peak_occupancy = std::max<std::uint64_t>(link.stats.peak_occupancy, most_held(arrival, store, W));
  link.occupancy_front = std::max(link.occupancy_front, last_base(m));
  link.pops.push_form(W, store);
  const Cycle last = store.at(W - 1);
  link.last_pop = last;
  link.last_pop_forwarded = false;
  if (buffer) {
    buffer->tag = program_.messages[m].tag;
    buffer->forget_schedule();
    buffer->set(W, [&](Segment& run) {
      run.generation = s.into_generation;
      run.ready.kind = run.since.kind = TimeForm::Kind::Stair;
      run.ready.stair = run.since.stair = store;
    });
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
