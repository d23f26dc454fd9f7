// The event engine's routers (docs/timing-model.md, "Routers"). A message of more than one hop
// leaves each node on its route on the link of its next hop. Its words pass through as they
// arrive (cut-through: word k leaves hop h at the first cycle from its arrival on at which the
// link holds the message, is free and holds a credit), each keeping its place in the input
// buffer, and so the credit of its input link, until it leaves.
//
// Which message a link serves next is decided as SystemC's router decides it: in the first
// cycle, from the cycle the last message's last word left on, at which some message may take
// it, the one that asked first (the node's own one on a tie, then the input ports in direction
// order). A message may take the link once it is at the head of its queue: the node's own in
// the order posted, from the cycle its first word is released and posted (when it also asks);
// one passing through when its first word is at the front of its input buffer, having arrived
// (when it asks) and the words ahead of it gone (from the cycle they are stored, or from the
// cycle after they left on a link).
//
// Why the engine may decide a grant when the work list runs dry, for every link whose next
// grant falls in the earliest cycle g at which a link may be given to a message known to ask
// for it: every quantity then unknown waits (through the maxima that define it) on one that
// is unknown too, and these chains end in a grant not yet decided, since every other quantity
// is evaluated once its inputs are known. Follow them from the earliest unknown quantity: they
// stay in its cycle only through dependencies of zero delay, and no chain from a grant to the
// cycle from which a message may take a link has zero delay (words arrive `latency` >= 1 later,
// a credit returns `latency` later, a word passing through makes room for the next message in
// the next cycle, an old word that left makes room for a load or a store in the next cycle). So
// the earliest unknown quantity is a grant whose candidates are all known, falling in cycle g,
// and every message not yet known to ask may take a link only after g: the grants at g are the
// ones SystemC makes. A Program that cannot finish leaves no grant to decide: a stall.

#include <algorithm>
#include <stdexcept>

#include "models/event/event_engine.hpp"

namespace torus::event {

// The hops after the first of every message routed through other nodes, and an arbiter for
// every link they take. In a translation quotient every hop leaves node 0: the copy of the
// message that passes node 0 on its h-th hop is the one sent by the node h hops back, which by
// translation leaves at the same cycles as node 0's own message leaves the node it reaches.
void EventEngine::plan_routes() {
  for (std::uint32_t m = 0; m < program_.messages.size(); ++m) {
    const Message& msg = program_.messages[m];
    const std::span<const Direction> route = program_.route(msg);
    if (route.size() < 2) continue;
    messages_[m].through = static_cast<std::uint32_t>(hops_.size());
    links_[first_link(m)].starved_from = 0;
    NodeCoord at = program_.shape.coord_of(msg.source);
    for (std::size_t h = 1; h < route.size(); ++h) {
      std::size_t node = 0;
      if (!program_.translation_quotient) {
        const auto next = program_.shape.neighbour(at, route[h - 1]);
        if (!next) throw std::invalid_argument("message " + std::to_string(m) + " leaves the mesh at hop " + std::to_string(h - 1));
        at = *next;
        node = program_.shape.index_of(at);
      }
      HopState hop;
      hop.message = m;
      hop.hop = static_cast<std::uint16_t>(h);
      hop.port = static_cast<std::uint8_t>(opposite(route[h - 1]));
      hop.link = static_cast<std::uint32_t>(node * direction_count + static_cast<std::size_t>(route[h]));
      LinkState& link = links_[hop.link];
      link.starved_from = 0;  // its word times are kept whole: the node-cycle classes read them at the end
      if (link.arbiter == no_arbiter) {
        link.arbiter = static_cast<std::uint32_t>(arbiters_.size());
        arbiters_.push_back(Arbiter{hop.link, {}, 0, {}, never, false});
      }
      hops_.push_back(std::move(hop));
    }
  }
}

// Moves as many words of a granted hop on as have known leaving cycles; each leaves its place
// in the input buffer as it leaves.
bool EventEngine::forward_next(std::uint32_t index) {
  HopState& hop = hops_[index];
  const std::uint32_t m = hop.message;
  MessageState& s = messages_[m];
  if (hop.granted_at == never || hop.sent == s.words) return false;
  if (hop.sent == 0 && forward_whole(index)) return true;
  const HopState* before = hop.hop == 1 ? nullptr : &hops_[index - 1];
  const std::uint32_t arrived = before ? before->sent : s.sent;
  const std::uint64_t base = before ? before->link_base : s.link_base;
  LinkState& in = links_[before ? before->link : first_link(m)];
  LinkState& link = links_[hop.link];
  const bool last = hop.hop + 1u == hop_count(m);
  const Cycle d = params_.link_latency;
  const std::uint32_t first = hop.sent;
  if (first < arrived && hop.leave.empty()) hop.leave.assign(s.words, never);  // per word from here on
  while (hop.sent < arrived) {
    const std::uint32_t k = hop.sent;
    if (in.pops.count() != base + k) throw std::logic_error("engine event: a word passing through overtook one ahead of it");
    const Cycle arrival = left_on(m, hop.hop - 1u, k) + d;
    Cycle at = 0;
    if (!link.slot(hop.link_base + k, std::max(arrival, hop.granted_at), params_, at)) break;
    link.leave(at, params_);
    in.pop(arrival, at, true);
    if (k == 0) link.stats.wait_cycles += at - arrival;  // it asked when its first word arrived
    hop.leave[k] = at;
    ++hop.sent;
  }
  if (hop.sent == first) return false;
  if (first == 0 && !last) start_asking(m, static_cast<std::uint16_t>(hop.hop + 1));
  if (hop.sent == s.words) ++link.head;
  return true;
}

// The first word of message m has left for the node where hop `next_hop` starts: from now on
// that hop asks for its link, and may take it once at the front of its input buffer.
void EventEngine::start_asking(std::uint32_t m, std::uint16_t next_hop) {
  const std::uint32_t index = messages_[m].through + next_hop - 1;
  hops_[index].asks = true;
  list_if_front(index);
}

// Puts hop `index` among its arbiter's candidates once it asks and the words ahead of it in its
// input buffer are all taken (then its ask is known for good: ask_of). A link's words are
// taken in order, so only the first message not yet taken on each input link can be listed:
// touch_link offers it whenever that link's words move.
void EventEngine::list_if_front(std::uint32_t index) {
  HopState& hop = hops_[index];
  if (!hop.asks || hop.listed) return;
  const HopState* before = hop.hop == 1 ? nullptr : &hops_[index - 1];
  const LinkState& in = links_[before ? before->link : first_link(hop.message)];
  if (in.pops.count() != (before ? before->link_base : messages_[hop.message].link_base)) return;
  hop.listed = true;
  const std::uint32_t a = links_[hop.link].arbiter;
  arbiters_[a].asking.push_back(index);
  if (!arbiters_[a].dirty) {
    arbiters_[a].dirty = true;
    dirty_.push_back(a);
  }
}

// When candidate `ref` (a message on its first hop, or message count + a hop) asks for its
// link and from when it may take it; false while either is not known.
bool EventEngine::ask_of(std::uint32_t ref, Ask& ask) const {
  if (ref < messages_.size()) {
    const MessageState& s = messages_[ref];
    Cycle release = 0;
    if (!s.posted || !release_of(s, program_.messages[ref].source, word_at(s, 0), release)) return false;
    ask.asked = ask.present = started(s, release);
    ask.rank = 0;
    return true;
  }
  const std::uint32_t index = ref - static_cast<std::uint32_t>(messages_.size());
  const HopState& hop = hops_[index];
  const MessageState& s = messages_[hop.message];
  const HopState* before = hop.hop == 1 ? nullptr : &hops_[index - 1];
  const LinkState& in = links_[before ? before->link : first_link(hop.message)];
  const std::uint64_t base = before ? before->link_base : s.link_base;
  if (in.pops.count() != base) return false;  // words ahead of it in the input buffer are still there
  ask.asked = left_on(hop.message, hop.hop - 1u, 0) + params_.link_latency;
  const Cycle front = base == 0 ? 0 : in.last_pop + (in.last_pop_forwarded ? 1 : 0);
  ask.present = std::max(ask.asked, front);
  ask.rank = 1u + hop.port;
  return true;
}

// Keys the arbiter by the earliest cycle its link may be given to a candidate known to ask.
void EventEngine::refresh(std::uint32_t a) {
  Arbiter& arbiter = arbiters_[a];
  arbiter.dirty = false;
  if (arbiter.key != never) decisions_.erase({arbiter.key, a});
  arbiter.key = never;
  const LinkState& link = links_[arbiter.link];
  if (link.head < link.queue.size()) return;  // a message holds the link
  Cycle first = never;
  Ask ask;
  if (arbiter.own_next < arbiter.own.size() && ask_of(arbiter.own[arbiter.own_next], ask)) first = ask.present;
  for (const std::uint32_t hop : arbiter.asking)
    if (ask_of(static_cast<std::uint32_t>(messages_.size()) + hop, ask)) first = std::min(first, ask.present);
  if (first == never) return;
  arbiter.key = std::max(first, link.last_leave);
  decisions_.insert({arbiter.key, a});
}

// With the work list dry: gives every link whose next grant falls in the earliest such cycle.
// False when there is none (the run is over, or stalled).
bool EventEngine::decide_grants() {
  for (const std::uint32_t a : dirty_) refresh(a);
  dirty_.clear();
  if (decisions_.empty()) return false;
  const Cycle at = decisions_.begin()->first;
  // The grants fall in ever later cycles (the argument above); an earlier one would mean a
  // message that could have moved on was not woken, and the grants before it were wrong.
  if (at < last_grant_)
    throw std::logic_error("engine event: a link to be given at cycle " + std::to_string(at) + " after one was given at cycle " +
                           std::to_string(last_grant_));
  last_grant_ = at;
  while (!decisions_.empty() && decisions_.begin()->first == at) {
    const std::uint32_t a = decisions_.begin()->second;
    decisions_.erase(decisions_.begin());
    arbiters_[a].key = never;
    grant(a, at);
  }
  return true;
}

// Gives the link, at cycle `at`, to the candidate that asked first among those that may take it then.
void EventEngine::grant(std::uint32_t a, Cycle at) {
  Arbiter& arbiter = arbiters_[a];
  LinkState& link = links_[arbiter.link];
  const auto count = static_cast<std::uint32_t>(messages_.size());
  std::uint32_t winner = no_task;
  Ask best;
  const auto consider = [&](std::uint32_t ref) {
    Ask ask;
    if (!ask_of(ref, ask) || ask.present > at) return;
    if (winner == no_task || ask.asked < best.asked || (ask.asked == best.asked && ask.rank < best.rank)) {
      winner = ref;
      best = ask;
    }
  };
  if (arbiter.own_next < arbiter.own.size()) consider(arbiter.own[arbiter.own_next]);
  for (const std::uint32_t hop : arbiter.asking) consider(count + hop);
  if (winner == no_task) throw std::logic_error("engine event: a link was to be given with nobody asking for it");
  const std::uint32_t m = message_of(winner);
  if (winner < count) {
    messages_[m].granted_at = at;
    messages_[m].link_base = link.words_posted;
    ++arbiter.own_next;
  } else {
    HopState& hop = hops_[winner - count];
    hop.granted_at = at;
    hop.link_base = link.words_posted;
    std::erase(arbiter.asking, winner - count);
  }
  link.words_posted += messages_[m].words;
  link.queue.push_back(winner);
  arbiter.dirty = true;  // held now: refreshed, it keys nothing until the link is free again
  dirty_.push_back(a);
  touch_link(link);
}

void EventEngine::mark_arbiters(std::size_t node) {
  if (arbiters_.empty()) return;
  for (std::size_t d = 0; d < direction_count; ++d) {
    const std::uint32_t a = links_[node * direction_count + d].arbiter;
    if (a == no_arbiter || arbiters_[a].dirty) continue;
    arbiters_[a].dirty = true;
    dirty_.push_back(a);
  }
}

// Every node on message m's route may now know more about who asks for its links.
void EventEngine::mark_route(std::uint32_t m) {
  if (arbiters_.empty()) return;
  mark_arbiters(program_.messages[m].source);
  mark_arbiters(program_.messages[m].destination);
  for (std::uint32_t h = 1; h < hop_count(m); ++h) mark_arbiters(hops_[messages_[m].through + h - 1].link / direction_count);
}

}  // namespace torus::event
