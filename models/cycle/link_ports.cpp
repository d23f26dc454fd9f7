#include "models/cycle/link_ports.hpp"

#include <algorithm>

#include "models/prefetch.hpp"
#include "models/send_order.hpp"

namespace torus {

LinkPorts::LinkPorts(NodeContext& context) : context_(context) {
  owner_.fill(free_link);
  arrival_at_.fill(never);
  forwarded_at_.fill(never);
}

void LinkPorts::plan_directions(std::uint8_t out_mask, std::uint8_t in_mask, bool passes_traffic) {
  routes_traffic_ = passes_traffic;
  for (std::size_t d = 0; d < direction_count; ++d) {
    if (out_mask & (1u << d)) out_dirs_.push_back(d);
    if (in_mask & (1u << d)) in_dirs_.push_back(d);
  }
}

void LinkPorts::post(std::uint32_t task, std::uint32_t compute, Cycle cycle) {
  const Task& t = context_.task(task);
  const Message& m = context_.program().messages[t.message];
  if (m.hops == 0) context_.fail("message " + std::to_string(t.message) + " has no route (a node sending to itself)");
  const std::uint32_t generation = context_.info[task];
  const NodeComputes computes{context_.node, context_.computes.size(),
                              [this](std::uint32_t c) {
                                const ComputeFlow& f = context_.computes[c];
                                return ComputeReads{f.task, f.operand_generation, f.coefficient_generation};
                              },
                              [this](std::uint32_t kernel) -> const MicroProgram& { return context_.run->micro[kernel]; }};
  const SendOrder order = send_order(computes, *context_.run->policy, task, generation, m.words, compute);
  prefetch_span<true>(context_.memory.buffer(t.buffer).words.data(), m.words);
  context_.memory.owe(t.buffer, generation, m.words);
  const auto d = static_cast<std::size_t>(context_.program().route(m).front());
  outgoing_[d].push_back({task, t.message, t.buffer, generation, m.words, compute, order.release, order.order,
                          t.label.global_step, cycle});
  queued_ = static_cast<std::uint8_t>(queued_ | (1u << d));
  retry_at_[d] = 0;
}

bool LinkPorts::passes_through(const LinkWord& word) const {
  return std::size_t{word.hop} + 1 < context_.program().messages[word.message].hops;
}

std::size_t LinkPorts::next_direction(const LinkWord& word) const {
  const Program& program = context_.program();
  return static_cast<std::size_t>(program.routes[program.messages[word.message].route_begin + word.hop + 1u]);
}

void LinkPorts::receive(Cycle cycle, std::uint32_t posted_before) {
  if (context_.incoming_left == 0) return;  // words passing through are the router's, in the send phase
  for (const std::size_t p : in_dirs_) {
    if (arrival_at_[p] > cycle) continue;  // nothing due on this link yet
    LinkReceiveIf& link = *context_.in[p];
    while (const LinkWord* word = link.front(cycle)) {
      // A node no message passes through needs no look into the Program to know a word is its own.
      if ((routes_traffic_ && passes_through(*word)) || !store(*word, cycle, posted_before, p)) break;
      link.pop(cycle);
    }
    arrival_at_[p] = link.next_arrival();
  }
}

// A word for one of this node's receives lands if the receive has been posted and its place
// owes nothing to an earlier send; otherwise it waits in the link buffer.
bool LinkPorts::store(const LinkWord& word, Cycle cycle, std::uint32_t posted_before, std::size_t port) {
  Incoming& in = incoming_[port];
  if (in.message != word.message) {  // the first word of a message on this port: look it up once
    const std::uint32_t task = context_.run->receive_of[word.message];
    if (task >= posted_before) return false;
    in = {word.message, task, context_.task(task).buffer, context_.info[task]};
  }
  if (in.buffer != no_buffer) {
    BufferState& buffer = context_.memory.buffer(in.buffer);
    // Its place still owes a word to a link, or will when an older block lands there.
    if (!context_.memory.word_replaceable(in.buffer, word.index, cycle) || context_.memory.awaits_older(in.buffer, word.index, in.generation)) return false;
    if (context_.words_done(in.task) == 0) buffer.tag = context_.program().messages[word.message].tag;
    check_not_replaced(in.buffer, word.index, in.generation, cycle);
    context_.datapath->write(in.buffer, word.index, word.value);
    context_.memory.store(in.buffer, word.index, in.generation, cycle);
  }
  context_.note(in.task, cycle);
  --context_.incoming_left;
  ++context_.stats.words_received;
  context_.send_state_changed = true;
  return true;
}

// A word of an earlier receive landing after a later task replaced its buffer (a load or a
// zeroing compute) would overwrite the newer content: a race in the Program, refused as the
// event engine refuses it (docs/timing-model.md, "Programs").
void LinkPorts::check_not_replaced(std::uint32_t buffer, std::uint32_t word, std::uint32_t generation, Cycle cycle) const {
  const std::uint32_t held = context_.memory.buffer(buffer).words[word].generation;
  if (held > generation)
    context_.fail("a word of an earlier receive lands at cycle " + std::to_string(cycle) + " in buffer " +
                  std::to_string(buffer) + ", which a later task has already replaced (generation " +
                  std::to_string(held) + " over " + std::to_string(generation) + ")");
}

bool LinkPorts::released(const Outgoing& o, Cycle cycle) const {
  if (o.position == 0 && context_.run->message_startup > 0) return leaves_from(o) <= cycle;
  const WordState& w = context_.memory.buffer(o.buffer).words[word_at(o)];
  switch (o.release) {
    case SendRelease::ComputeDone:
      return (o.compute == no_task || context_.compute_done[o.compute] <= cycle) && NodeMemory::present(w, o.generation, cycle);
    case SendRelease::WordPresent: return NodeMemory::present(w, o.generation, cycle);
    case SendRelease::WordFinal:
      return context_.memory.writes_left(o.buffer, word_at(o)) == 0 && NodeMemory::present(w, o.generation, cycle);
  }
  return false;
}

Cycle LinkPorts::release_cycle(const Outgoing& o) const {
  const WordState& w = context_.memory.buffer(o.buffer).words[word_at(o)];
  if (w.generation != o.generation) return never;
  const Cycle ready = w.ready;
  switch (o.release) {
    case SendRelease::ComputeDone:
      return o.compute == no_task ? ready : std::max<Cycle>(ready, context_.compute_done[o.compute]);
    case SendRelease::WordPresent: return ready;
    case SendRelease::WordFinal: return context_.memory.writes_left(o.buffer, word_at(o)) == 0 ? ready : never;
  }
  return never;
}

Cycle LinkPorts::leaves_from(const Outgoing& o) const {
  const Cycle release = release_cycle(o);
  if (o.position > 0 || release == never) return release;
  return std::max(release, o.posted) + context_.run->message_startup;
}

void LinkPorts::send(Cycle cycle) {
  if (context_.send_state_changed) {
    retry_at_.fill(0);
    context_.send_state_changed = false;
  }
  for (const std::size_t d : out_dirs_) {
    if (owner_[d] == free_link && !routes_traffic_ && !asks_now(d, cycle)) continue;  // nothing could ask for it
    for (;;) {
      if (owner_[d] == free_link) grant(d, cycle);
      const int owner = owner_[d];
      if (owner == free_link && !commit_ahead(d, cycle)) break;
      if (owner == free_link) continue;  // the head was committed: the next one may ask
      if (owner == local_owner) send_local(d, cycle);
      else forward(d, cycle);
      if (owner_[d] != free_link) break;  // the message holds the link, blocked for now
    }
  }
}

// Whole messages in the order they asked for the link; ties: this node's own first, then the
// input ports in direction order. Only the head of a queue can ask: this node's first message
// on the link not yet sent (it asked when its first word could first leave: released, posted
// and started up), and at each input port the message whose first word is at the front (it asked
// when that word arrived), unless a word ahead of it left from that port in this very cycle:
// the router sees the heads of its input buffers once per cycle, so which link it serves first
// cannot matter.
void LinkPorts::grant(std::size_t d, Cycle cycle) {
  Cycle best = never;
  std::int8_t winner = free_link;
  if (!outgoing_[d].empty() && retry_at_[d] <= cycle) {
    const Outgoing& head = outgoing_[d].front();
    if (released(head, cycle)) {
      best = leaves_from(head);
      winner = local_owner;
    } else {
      retry_at_[d] = leaves_from(head);
    }
  }
  for (const std::size_t p : in_dirs_) {
    if (!routes_traffic_) break;
    if (arrival_at_[p] > cycle || forwarded_at_[p] == cycle) continue;
    const LinkWord* word = context_.in[p]->front(cycle);
    if (!word || !passes_through(*word) || next_direction(*word) != d) continue;
    const Cycle asked = context_.in[p]->next_arrival();
    if (asked < best) {
      best = asked;
      winner = static_cast<std::int8_t>(p);
    }
  }
  owner_[d] = winner;
  forwarded_[d] = 0;
}

void LinkPorts::send_local(std::size_t d, Cycle cycle) {
  if (retry_at_[d] > cycle) return;  // its next word is not released before then (nor sent ahead)
  auto& queue = outgoing_[d];
  Outgoing& o = queue.front();
  LinkSendIf& link = *context_.out[d];
  const bool done = batching_ && o.release == SendRelease::ComputeDone && send_ahead(d, o, cycle);
  // Each word's release is tested once: a word found released stays so (its place is owed to
  // this send, so nothing replaces or updates it), and the word behind one just sent is tested
  // in the same cycle, when the link is usually still busy.
  bool free_now = !done && o.position < o.released_until;
  if (!done && !free_now && released(o, cycle)) {
    free_now = true;
    o.released_until = o.position + 1;  // even if the link cannot take it this cycle
  }
  bool link_free = free_now && link.can_send(cycle);
  while (link_free) {
    const std::uint32_t w = word_at(o);
    if (o.position == 0) check_block(o);
    const bool more = link.send(cycle, {context_.datapath->read(o.buffer, w), o.message, w, 0});
    if (o.position == 0) context_.stats.link_wait[d] += cycle - leaves_from(o);
    sent(o, w, cycle);
    if (++o.position == o.words) break;
    free_now = released(o, cycle);
    if (free_now) o.released_until = o.position + 1;
    link_free = free_now && more && link.can_send(cycle);
  }
  if (o.position == o.words) {
    context_.memory.release_pending(o.buffer, o.generation, o.words);
    pop_outgoing(d);
    owner_[d] = free_link;
    return;
  }
  if (!free_now) retry_at_[d] = leaves_from(o);
}

// A head message that its compute's last result releases at a known later cycle, when no
// message passes through the node: no other message can ask for the link before then, so the
// message is committed now from that cycle on (send-ahead), as stepping would send it then.
bool LinkPorts::commit_ahead(std::size_t d, Cycle cycle) {
  if (!batching_ || routes_traffic_ || outgoing_[d].empty()) return false;
  Outgoing& o = outgoing_[d].front();
  const Cycle from = retry_at_[d];  // leaves_from(o), found by grant() since the last state change
  if (o.release != SendRelease::ComputeDone || from <= cycle || from == never || !send_ahead(d, o, from)) return false;
  context_.memory.release_pending(o.buffer, o.generation, o.words);
  pop_outgoing(d);
  retry_at_[d] = 0;
  return true;
}

// Every remaining word released by `from` and a credit for each held by then: the words leave
// one by one at the cycles the link frees up from `from` on, exactly as stepping cycle by cycle
// would send them.
bool LinkPorts::send_ahead(std::size_t d, Outgoing& o, Cycle from) {
  const std::uint32_t remaining = o.words - o.position;
  // A message released when its compute is done has no word order: it leaves in index order.
  if (o.order || (o.compute != no_task && context_.compute_done[o.compute] > from)) return false;
  const BufferState& buffer = context_.memory.buffer(o.buffer);
  prefetch_words(o.buffer, o.position, remaining);
  for (std::uint32_t w = o.position; w < o.words; ++w)
    if (!NodeMemory::present(buffer.words[w], o.generation, from)) return false;
  LinkSendIf& link = *context_.out[d];
  if (link.credits_at(from) < remaining) return false;
  if (o.position == 0) check_block(o);
  LinkScratch& scratch = *context_.run->scratch;
  if (scratch.values.size() < remaining) {  // grown only: messages of different sizes alternate
    scratch.values.resize(remaining);
    scratch.leave.resize(remaining);
  }
  context_.datapath->read_run(o.buffer, o.position, remaining, scratch.values.data());
  link.send_ahead(from, o.message, o.position, scratch.values.data(), remaining, scratch.leave.data());
  if (o.position == 0) context_.stats.link_wait[d] += scratch.leave.front() - leaves_from(o);
  context_.memory.settle_run(o.buffer, o.position, remaining, scratch.leave.data());
  const Cycle first = scratch.leave.front(), last = scratch.leave[remaining - 1];
  context_.note_run(o.task, remaining, first, last);
  context_.sent_ahead_until = std::max(context_.sent_ahead_until, last);
  committed_until_[d] = last;
  record_sent(o, remaining, first, last);
  o.position = o.words;
  return true;
}

// The block a message's first word leaves with must be the one the Program says it carries.
void LinkPorts::check_block(const Outgoing& o) const {
  const DataTag& expected = context_.program().messages[o.message].tag;
  const DataTag& held = context_.memory.buffer(o.buffer).tag;
  if (held != expected)
    context_.fail("message " + std::to_string(o.message) + " should carry " + context_.program().describe(expected) + " but " +
                  context_.program().describe(held) + " is sent");
}

void LinkPorts::sent(const Outgoing& o, std::uint32_t word, Cycle cycle) {
  context_.memory.settle(o.buffer, word, cycle);
  context_.note(o.task, cycle);
  record_sent(o, 1, cycle, cycle);
}

// For reports: `words` of the message left, the first at `first`, the last at `last`.
void LinkPorts::record_sent(const Outgoing& o, std::uint32_t words, Cycle first, Cycle last) {
  context_.steps.sent(o.step, words, first, last);
  context_.stats.words_sent += words;
  context_.last_progress = std::max(context_.last_progress, last);
}

void LinkPorts::forward(std::size_t d, Cycle cycle) {
  const auto p = static_cast<std::size_t>(owner_[d]);
  LinkReceiveIf& in = *context_.in[p];
  LinkSendIf& out = *context_.out[d];
  while (const LinkWord* front = in.front(cycle)) {
    if (!out.can_send(cycle)) break;
    LinkWord word = *front;
    if (forwarded_[d] == 0) context_.stats.link_wait[d] += cycle - in.next_arrival();
    ++word.hop;
    out.send(cycle, word);
    in.pop(cycle);
    forwarded_at_[p] = cycle;
    ++context_.stats.words_forwarded;
    context_.last_progress = std::max(context_.last_progress, cycle);
    if (++forwarded_[d] == context_.program().messages[word.message].words) {
      owner_[d] = free_link;
      break;
    }
  }
  arrival_at_[p] = in.next_arrival();
}

void LinkPorts::refresh_retries(Cycle cycle) {
  for (const std::size_t d : out_dirs_)
    if (!outgoing_[d].empty() && retry_at_[d] == 0 && owner_[d] == free_link && !released(outgoing_[d].front(), cycle))
      retry_at_[d] = leaves_from(outgoing_[d].front());
}

bool LinkPorts::idle() const {
  for (std::size_t d = 0; d < direction_count; ++d)
    if (!outgoing_[d].empty() || owner_[d] != free_link) return false;
  return true;
}

// A word of its own that may leave now but has no credit: a function of the state at `cycle`
// alone, so stepping and sleeping nodes classify the same cycles alike.
bool LinkPorts::any_starved_with_work(Cycle cycle) const {
  for (const std::size_t d : out_dirs_)
    if (starved_with_work(d, cycle)) return true;
  return false;
}

bool LinkPorts::starved_with_work(std::size_t d, Cycle cycle) const {
  // While words sent ahead (each with its credit) still leave after `cycle`, their message holds
  // the link, as it would when stepping: the message queued behind it is not free to leave yet.
  // A head found not released until a later cycle is not released now, while no state change
  // since said otherwise.
  // A head word the send phase found released stays so (send_local): no need to ask again.
  const bool retry_known = !context_.send_state_changed;
  if (outgoing_[d].empty() || committed_until_[d] > cycle || (retry_known && retry_at_[d] > cycle)) return false;
  const Outgoing& head = outgoing_[d].front();
  return (head.position < head.released_until || released(head, cycle)) && context_.out[d]->credits_unspent(cycle) == 0;
}

Cycle LinkPorts::next_arrival() const {
  Cycle next = never;
  for (const std::size_t p : in_dirs_) next = std::min(next, arrival_at_[p]);
  return next;
}

Cycle LinkPorts::next_storable_arrival(Cycle cycle) const {
  Cycle next = never;
  for (const std::size_t p : in_dirs_) {
    if (arrival_at_[p] <= cycle) {
      const LinkWord* word = context_.in[p]->front(cycle);
      if (word && !(routes_traffic_ && passes_through(*word)) &&
          context_.run->receive_of[word->message] >= *context_.posted_before)
        continue;
    }
    next = std::min(next, arrival_at_[p]);
  }
  return next;
}

Cycle LinkPorts::earliest_send(Cycle cycle, bool credit_wakes) const {
  Cycle next = never;
  for (const std::size_t d : out_dirs_) {
    if (owner_[d] >= 0) return cycle + 1;  // forwarding: paced by the links
    if (outgoing_[d].empty()) continue;
    const Cycle from = credit_wakes && starved_with_work(d, cycle) ? context_.out[d]->next_credit_return() : retry_at_[d];
    next = std::min(next, std::max(from, cycle + 1));
  }
  return next;
}

bool LinkPorts::has_queued() const {
  for (const std::size_t d : out_dirs_)
    if (!outgoing_[d].empty()) return true;
  return false;
}

std::string LinkPorts::describe_queues(Cycle cycle) const {
  std::string text;
  for (std::size_t d = 0; d < direction_count; ++d) {
    if (outgoing_[d].empty()) continue;
    std::size_t words = 0;
    for (std::size_t i = 0; i < outgoing_[d].size(); ++i) words += outgoing_[d][i].words - outgoing_[d][i].position;
    text += "; " + std::to_string(words) + " words queued on " + to_string(static_cast<Direction>(d)) +
            (context_.out[d]->credits_unspent(cycle) == 0 ? " (no credit)" : "") +
            (released(outgoing_[d].front(), cycle) ? "" : " (head not yet releasable)");
  }
  return text;
}

}  // namespace torus
