// The take-ahead side of a node's link ports (docs/timing-model.md, "Fast-forward"): words
// committed to a link are stored at once, each as of its arrival, when stepping would have
// stored them on arrival; the node is woken only where it has something to do.

#include "models/cycle/link_ports.hpp"

#include <algorithm>

#include "models/cycle/wake_calendar.hpp"
#include "models/prefetch.hpp"

namespace torus {

// A port whose hint is `never` has no word visible on its link (every word that becomes visible
// lowers it): nothing to offer there.
void LinkPorts::take_committed(Cycle now) {
  for (const std::size_t p : in_dirs_) {
    if (arrival_at_[p] == never) continue;
    context_.in[p]->offer_committed(now);
    arrival_at_[p] = context_.in[p]->next_arrival();
  }
}

// Committed words: each stored now with its arrival as its ready cycle, if stepping would have
// stored it on arrival (its receive posted already, its place free by then). A committed block
// comes as runs of its message's words: looked up once, each run stored in one loop.
std::size_t LinkPorts::take(const CommittedRun& words, std::size_t count) {
  if (!batching_) return 0;
  if (taking_.message != words.message) {
    const std::uint32_t task = context_.run->receive_of[words.message];
    taking_ = task == no_task ? Taking{words.message}  // never taken: no receive posts it
                              : Taking{words.message, task, context_.task(task).buffer, context_.info[task], context_.words_of(task)};
  }
  if (taking_.task >= *context_.posted_before) return 0;
  const std::size_t taken = store_run(words, count);
  if (taken == 0) return 0;
  const Cycle first = words.arrival(0), last = words.arrival(taken - 1);
  context_.note_run(taking_.task, taken, first, last);
  // The node must look again when the receive is complete (a compute may start) or when a
  // queued send is waiting for this very content; the first such word is enough, since a
  // later notification could not move the pending one (a batch's later runs only notify later,
  // and the event keeps the earliest). A receive the waiting compute's gate needs matters only
  // when the gate opens: when the last of its receives is complete.
  Cycle wake = never;
  if (taking_.buffer != no_buffer && head_sends(taking_.buffer, taking_.generation)) wake = first;
  if (context_.words_done(taking_.task) == taking_.words) {
    context_.add_completion(taking_.task, last);
    if (context_.in_gate(taking_.task)) wake = std::min(wake, context_.gate_opens_at());
    else if (wake == never) wake = last;
  }
  context_.incoming_left -= taken;
  context_.stats.words_received += taken;
  context_.last_progress = std::max<Cycle>(context_.last_progress, last);
  context_.send_state_changed = true;
  if (wake != never) wake_at(wake);
  return taken;
}

// The leading words of one message's run that may land in their places as of their arrivals.
std::size_t LinkPorts::store_run(const CommittedRun& words, std::size_t count) {
  const std::uint32_t into = taking_.buffer;
  if (into == no_buffer) return count;  // dropped: nothing to store
  BufferState& buffer = context_.memory.buffer(into);
  const std::uint32_t first = std::min(words.index(0), words.index(count - 1));
  prefetch_words(into, first, std::max(words.index(0), words.index(count - 1)) - first + 1);
  prefetch_span(buffer.pending_sends.data(), buffer.pending_sends.size());
  // Which words may land is decided first: storing one word changes nothing another's check
  // reads (a run never holds one word twice).
  const std::size_t k = context_.memory.landable_prefix(into, words.first_index, words.index_step, count, taking_.generation,
                                                        words.first_arrival, words.spacing);
  for (std::size_t j = 0; j < k; ++j)
    check_not_replaced(into, run_word(words.first_index, words.index_step, j), taking_.generation, words.arrival(j));
  context_.datapath->write_run(into, words.first_index, words.index_step, words.values, words.parts, k);
  context_.memory.store_run(into, words.first_index, words.index_step, k, taking_.generation, words.first_arrival, words.spacing);
  if (k > 0 && context_.words_done(taking_.task) == 0) buffer.tag = context_.program().messages[taking_.message].tag;
  return k;
}

void LinkPorts::prefetch_words(std::uint32_t buffer, std::uint32_t first, std::size_t n) const {
  const BufferState& b = context_.memory.buffer(buffer);
  n = std::min<std::size_t>(n, b.words.size() - std::min<std::size_t>(first, b.words.size()));
  prefetch_span<true>(b.words.data() + first, n);
  if (b.left_at && !b.wide_left_at) prefetch_span<true>(b.left_at + first, n);
  context_.datapath->prefetch(buffer, first, n, true);
}

void LinkPorts::prefetch_links() const {
  // The channel's fields follow its interfaces (LinkChannel): the pointers lead to them.
  for (const std::size_t d : out_dirs_) {
    prefetch_bytes(context_.out[d], 4 * cache_line_bytes);
    prefetch_span(outgoing_[d].front_address(), 1);
  }
  for (const std::size_t p : in_dirs_) prefetch_bytes(context_.in[p], 4 * cache_line_bytes);
}

void LinkPorts::prefetch_taker() const {
  prefetch_bytes(this, sizeof(*this));
  prefetch_bytes(&context_, sizeof(context_));
}

void LinkPorts::prefetch_take(std::uint32_t message) const {
  if (!batching_) return;
  const std::uint32_t task = context_.run->receive_of[message];
  if (task == no_task || context_.task(task).buffer == no_buffer) return;
  prefetch_words(context_.task(task).buffer, 0, context_.words_of(task));
}

void LinkPorts::prefetch_heads() const {
  for (const std::size_t d : out_dirs_) {
    if (outgoing_[d].empty()) continue;
    const Outgoing& o = outgoing_[d].front();
    prefetch_words(o.buffer, o.position, o.words - o.position);
  }
}

bool LinkPorts::head_sends(std::uint32_t buffer, std::uint32_t generation) const {
  for (const std::size_t d : out_dirs_) {
    if (outgoing_[d].empty()) continue;
    const Outgoing& head = outgoing_[d].front();
    if (head.buffer != buffer || head.generation != generation) continue;
    if (head.release == SendRelease::ComputeDone && head.compute != no_task && context_.compute_done[head.compute] == never) continue;
    return true;
  }
  return false;
}

void LinkPorts::wake_at(Cycle cycle) const {
  arrival_wake_.calendar->notify(arrival_wake_.node, cycle);
}

}  // namespace torus
