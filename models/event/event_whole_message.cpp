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

// The first word k (from `from` on) of W leaving at `leave` whose credit, of the link's word
// first + k - B, is not back by then (W: none). Over a run of the link's history whose words
// were taken by one stair, credit and leaving differ by a part that only falls with k (the
// stair's floor) and by the difference of two stairs of one slope, which repeats every num
// words: a late credit there shows within its first num words. Runs of single times are
// looked at word by word.
std::uint64_t EventEngine::first_late_credit(const LinkState& link, std::uint64_t first, const Stair& leave, std::uint64_t from,
                                             std::uint64_t W) const {
  const std::uint64_t B = params_.buffer_words;
  std::uint64_t k = std::max<std::uint64_t>(from, first >= B ? 0 : B - first);
  while (k < W) {
    const History::Run& run = link.pops.run_of(first + k - B);
    const std::uint64_t end = std::min<std::uint64_t>(W, run.end() + B - first);  // the words whose credits it holds
    for (const std::uint64_t look = run.formed ? std::min(end, k + leave.num) : end; k < look; ++k)
      if (link.pops[first + k - B] + params_.link_latency > leave.at(k)) return k;
    k = end;
  }
  return W;
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

bool EventEngine::leave_whole(std::uint32_t m, bool& wait) {
  MessageState& s = messages_[m];
  const std::size_t source = program_.messages[m].source;
  NodeState& node = nodes_[source];
  BufferTimes& buffer = node.buffers[s.buffer];
  LinkState& link = links_[first_link(m)];
  const std::uint64_t B = params_.buffer_words, W = s.words;
  if (!closed_forms_ || s.order || !node.trace.empty() || W == 0 || W >= B || !buffer.compact || node.datapath->holds_values())
    return false;
  Cycle release = 0;
  if (!release_whole(s, source, release)) return false;
  if (buffer.tag != program_.messages[m].tag) return false;  // the per-word rule says what is wrong
  const Cycle started = this->started(s, release);
  Cycle first = 0;
  if (!link.slot(s.link_base, std::max({started, s.posted_at, s.granted_at == never ? 0 : s.granted_at}), params_, first))
    return false;
  // Every credit its words need came back by its first word's cycle, or else each by its own
  // word's slot (tight: then the link may hold no credit after any of its send phases, which
  // is known once it is stored: note_credits).
  const bool tight = !credits_back(link, s.link_base, W, first);
  // A credit not known yet is one of a word ahead of it on the link (W < B). Waiting for it hides
  // no ask from a router: a routed message may take the link of its next hop only once every
  // word ahead of it on this link is taken, and by then the credit is known.
  if (tight && link.pops.count() <= s.link_base + W - 1 - B) {
    wait = credits_may_wait_;
    return false;
  }
  const std::uint64_t num = params_.rate.num, den = params_.rate.den;
  const std::uint64_t tau0 = std::max<std::uint64_t>(static_cast<std::uint64_t>(link.next_free_tick), first * num);
  const Stair leave{0, tau0, num, den};
  if (tight && first_late_credit(link, s.link_base, leave, 0, W) < W) return false;
  const Cycle last = leave.at(W - 1);
  if (buffer.latest_left(W) > first) return false;
  put_whole(link, leave, W, static_cast<std::int64_t>(tau0 + W * den));
  link.stats.wait_cycles += first - started;  // from asking for the link to the first word leaving
  s.whole = true;
  s.credits_tight = tight;
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

// A hop after the first of a message routed through other nodes, as a whole (docs/timing-model.md,
// "Closed forms of a whole message"): when the hop before went whole, so that word k arrives at
// floor((S + k den) / num) with S its form's tick + latency num, and every credit the message
// needs is back by its first word's cycle c0 (the first from its arrival at which the link
// holds the message and the word before has left). With tau the largest of S, the link's next
// slot and c0 num, word k leaves at floor((tau + k den) / num). If tau = S (the link was given
// to it by its arrival, with its slot free), each word leaves in the cycle it arrives: the
// slot after word k's is at most S + (k + 1) den. Otherwise word 0 leaves at floor(tau / num),
// the link's slot after it is tau + den, and by induction word k's slot tau + k den is its
// cycle's: its arrival, floor((S + k den) / num), is no later. Each word leaves its place in
// the input buffer as it leaves, so the input link's pops follow the same form.
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
  const std::uint64_t S = before->sigma + params_.link_latency * num;
  const Stair arrival{0, S, num, den};
  std::uint64_t front = 0;
  if (in.pops.count() != base || !first_held(in, base, arrival.at(0), front)) return false;
  const Cycle c0 = std::max({arrival.at(0), hop.granted_at, link.last_leave});
  const auto tau = std::max({S, static_cast<std::uint64_t>(link.next_free_tick), c0 * num});
  const Stair leave{0, tau, num, den};
  if (!credits_back(link, hop.link_base, W, leave.at(0))) return false;
  // The link's next slot after the last word. With tau = S: the later of its slot chain and one
  // slot after the word that left latest in its tick (S + k den less the part of a cycle it
  // waited for); otherwise one slot after the last word's, tau + W den.
  auto next_tick = static_cast<std::int64_t>(tau + W * den);
  if (tau == S) {
    std::uint64_t lag = num;
    for (std::uint64_t k = 0; k < std::min<std::uint64_t>(W, num); ++k) lag = std::min(lag, (S + k * den) % num);
    next_tick = std::max(link.next_free_tick + static_cast<std::int64_t>(W * den), static_cast<std::int64_t>(S + W * den - lag));
  }
  put_whole(link, leave, W, next_tick);
  link.stats.wait_cycles += leave.at(0) - arrival.at(0);  // it asked when its first word arrived
  const Cycle last = leave.at(W - 1);
  in.stats.peak_occupancy = std::max<std::uint64_t>(
      in.stats.peak_occupancy, std::max(held_behind(in, base, front, arrival, W), most_held(arrival, leave, W)));
  in.occupancy_front = std::max(in.occupancy_front, front);  // no further: the earlier words may still be there
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
  // leaving (+1), one such form per run of the places the message fills (store_pieces).
  const Stair arrival{0, left_last.sigma + d * num, num, den};
  const Cycle posted = std::max(link.last_pop + (link.last_pop_forwarded ? 1 : 0), s.receive_posted_at + 1);
  std::vector<StorePiece> pieces;
  if (!store_pieces(buffer, W, arrival, posted, pieces)) return false;
  std::uint64_t front = 0;
  if (!first_held(link, last_base(m), arrival.at(0), front)) return false;
  const std::uint64_t held = pieces.size() == 1 ? std::max(held_behind(link, last_base(m), front, arrival, W),
                                                           most_held(arrival, pieces.front().form, W))
                                                : held_by_walk(link, last_base(m), front, arrival, pieces);
  link.stats.peak_occupancy = std::max<std::uint64_t>(link.stats.peak_occupancy, held);
  link.occupancy_front = std::max(link.occupancy_front, front);  // no further: the earlier words may still be there
  std::uint64_t start = 0;
  for (const StorePiece& piece : pieces) {  // the history counts each piece's words from its first
    Stair from = piece.form;
    from.sigma += start * den;
    link.pops.push_form(piece.end - start, from);
    start = piece.end;
  }
  const Cycle last = pieces.back().form.at(W - 1);
  link.last_pop = last;
  link.last_pop_forwarded = false;
  if (buffer) {
    buffer->tag = program_.messages[m].tag;
    buffer->forget_schedule();
    std::size_t piece = 0;
    buffer->set(W, [&](Segment& run) {
      while (pieces[piece].end < run.end) ++piece;
      run.generation = s.into_generation;
      run.ready.kind = run.since.kind = TimeForm::Kind::Stair;
      run.ready.stair = run.since.stair = pieces[piece].form;
    });
  }
  s.taken = static_cast<std::uint32_t>(W);
  s.last_store = last;
  node.last_pop = std::max(node.last_pop, last);
  receive_done(destination, m);
  note_credits(s, link);
  release_history(s, link);
  trim_history(s, link);
  ++stored_whole_;
  return true;
}

// The stores of a message's words, piece by piece of the places it fills (docs/timing-model.md,
// "Closed forms of a whole message"): word k is stored at the latest of the word before it,
// its arrival, the receive's posting (`posted`) and its place's old word's leaving (+1). Over a
// run of places whose old words left by one form that is max(C, floor((Sigma + k den) / num)),
// C the store of the run's first word's predecessor, the receive and the run's leaving floor,
// Sigma the arrivals' and the leaving's ticks (+ num): a Stair per run, with the store of the
// run's last word as the next run's floor. Pieces of equal forms are merged.
bool EventEngine::store_pieces(const BufferTimes* buffer, std::uint64_t W, const Stair& arrival, Cycle posted,
                               std::vector<StorePiece>& pieces) const {
  const std::uint64_t num = arrival.num, den = arrival.den;
  if (buffer == nullptr) {
    pieces.push_back({W, Stair{posted, arrival.sigma, num, den}});
    return true;
  }
  Cycle before = posted, floor_at = posted;
  const Cycle low = std::max(posted, arrival.at(0));
  bool dominated = true;
  for (const Segment& run : buffer->segments) {
    const std::uint64_t end = std::min<std::uint64_t>(run.end, W);
    Stair form{before, arrival.sigma, num, den};
    if (run.left.kind == TimeForm::Kind::Compute) return false;
    if (run.left.kind != TimeForm::Kind::Never) {
      const bool stair = run.left.kind == TimeForm::Kind::Stair;
      const Cycle after = (stair ? run.left.stair.floor_at : run.left.start) + 1;
      form.floor_at = std::max(form.floor_at, after);
      if (stair) form.sigma = std::max(form.sigma, run.left.stair.sigma + num);
      floor_at = std::max(floor_at, after);
      dominated = dominated && after <= low && (!stair || run.left.stair.sigma + num <= arrival.sigma);
    }
    const bool same = !pieces.empty() && pieces.back().form.floor_at == form.floor_at && pieces.back().form.sigma == form.sigma;
    if (same) pieces.back().end = end;
    else pieces.push_back({end, form});
    before = form.at(end - 1);
    if (end == W) break;
  }
  // Where no run's leaving reaches above the receive and the first arrival (`low`) nor above
  // the arrivals' stair, every word is stored at max(C, arrival) with C the largest floor: one
  // piece, whose occupancy has a closed form (most_held) instead of a walk over the words.
  if (pieces.size() > 1 && dominated) pieces = {StorePiece{W, Stair{floor_at, arrival.sigma, num, den}}};
  return true;
}

// Whether every send is released by a compute that read the block it sends (the last compute
// before it in the list reads that buffer's generation): then, when computes start only on
// complete blocks (after_compute), nothing depends on a message's words before its last one is
// stored, so a message may wait for the credits of its last word without holding up any time
// that a router's grant could need earlier (event_router.cpp).
bool EventEngine::every_send_after_its_read() const {
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const std::vector<Task>& tasks = program_.nodes[n].tasks;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].kind != TaskKind::Send) continue;
      const std::uint32_t c = nodes_[n].flow[i].preceding_compute;
      if (c == no_task || tasks[c].kind != TaskKind::Compute) return false;  // an FFT's sends: not covered
      const Task& compute = tasks[c];
      const TaskDetail& d = program_.nodes[n].detail(compute);
      const TaskDataflow& read = nodes_[n].flow[c];
      const std::uint32_t g = nodes_[n].flow[i].generation, b = tasks[i].buffer;
      if (!((b == compute.buffer && g == read.generation) || (b == d.operand && g == read.operand_generation) ||
            (b == d.coefficient && g == read.coefficient_generation)))
        return false;
    }
  }
  return true;
}

}  // namespace torus::event
