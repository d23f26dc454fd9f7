#pragma once
// A node's six link ports and its router. Receive phase: words that end their route here are
// stored by their posted receive (or wait in the link buffer, keeping their credit). Send
// phase: each output link serves whole messages, one at a time, in the order they asked for
// it: this node's own sends (a message asks when its first word may leave under the send
// policy) and messages passing through (one asks when its first word has arrived). A word
// passing through may leave in the cycle it arrives (cut-through). docs/timing-model.md,
// "Routers", is the rule; this is its implementation.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/cycle/node_context.hpp"
#include "models/cycle/ring_queue.hpp"

namespace torus {

// The link directions a node uses, held in place (read every cycle: no separate allocation).
class DirectionList {
 public:
  void push_back(std::size_t d) { items_[size_++] = static_cast<std::uint8_t>(d); }
  const std::uint8_t* begin() const { return items_.data(); }
  const std::uint8_t* end() const { return items_.data() + size_; }

 private:
  std::array<std::uint8_t, direction_count> items_{};
  std::uint8_t size_ = 0;
};

class alignas(64) LinkPorts : public LinkTaker {
 public:
  explicit LinkPorts(NodeContext& context);

  // Batching, exact because it decides only what cannot change any more: a released message
  // with a credit now for each word is scheduled word by word at the cycles the link would send
  // it (send-ahead), and a word committed to a link is stored at once, as of its arrival cycle,
  // when its receive is already posted and its place is free by then (take-ahead; stepping
  // would store it on arrival, and nothing the node does meanwhile can change that).
  void enable_batching() { batching_ = true; }
  // Takes ahead the words already committed that arrive after `now` (for a node going to sleep).
  void take_committed(Cycle now);
  std::size_t take(const CommittedRun& words, std::size_t count) override;
  void prefetch_taker() const override;
  void prefetch_take(std::uint32_t message) const override;

  // Directions this node's traffic (own and passing through) uses: bit d of each mask; and
  // whether any message passes through it (else the router never looks at input ports).
  void plan_directions(std::uint8_t out_mask, std::uint8_t in_mask, bool passes_traffic);
  // A send task the sequencer reached; `compute` indexes NodeContext::computes (the last
  // compute before it) or is no_task.
  void post(std::uint32_t task, std::uint32_t compute, Cycle cycle);
  void receive(Cycle cycle, std::uint32_t posted_before);
  void send(Cycle cycle);

  // After sends were posted ahead of `cycle`'s send phase: each link whose queue they reset
  // looks at its head again as that phase would, so that earliest_send() holds for `cycle`.
  void refresh_retries(Cycle cycle);
  bool idle() const;        // nothing queued to leave and no link held by a message
  bool has_queued() const;  // some own message still to leave
  bool any_starved_with_work(Cycle cycle) const;
  // Link d's released head word waits for a credit (the state at `cycle`, whatever the node
  // last tried: a sleeping node tries less often than a stepping one).
  bool starved_with_work(std::size_t d, Cycle cycle) const;
  // The earliest cycles something may happen on the ports while the node's own state stays
  // as it is: the next arrival, and the next cycle a queued word could leave (never: only
  // when the node's state changes).
  Cycle next_arrival() const;
  // For a node about to sleep: the next arrival, leaving out a port whose arrived front word
  // is for a receive the node has not posted yet. Only the node's own progress posts it, and
  // stepping would only find it unstorable cycle after cycle.
  Cycle next_storable_arrival(Cycle cycle) const;
  // With `credit_wakes` (a node about to sleep while out of credit), a link whose released head
  // waits for a credit can send when the next credit on its way back returns; with none on its
  // way, only after one starts back (announced through the credit wake target; never here).
  Cycle earliest_send(Cycle cycle, bool credit_wakes = false) const;
  // Whom the links wake while the node sleeps, for words arriving and for credits returning;
  // and where each input link keeps the arrival cycle of its next word (LinkReceiveIf).
  void set_wake_targets(const WakeTarget& on_arrival, const WakeTarget& on_credit) {
    arrival_wake_ = on_arrival;
    credit_wake_ = on_credit;
  }
  const WakeTarget* arrival_wake() const { return &arrival_wake_; }
  const WakeTarget* credit_wake() const { return &credit_wake_; }
  Cycle* arrival_hint(std::size_t p) { return &arrival_at_[p]; }
  const DirectionList& receive_directions() const { return in_dirs_; }
  const DirectionList& send_directions() const { return out_dirs_; }
  std::string describe_queues(Cycle cycle) const;
  // Hints for the wake calendar (models/prefetch.hpp): the link channels and the head of each
  // queue of messages waiting for a link; then, once those are in, the words of those messages.
  void prefetch_links() const;
  void prefetch_heads() const;
  // The ports' own fields a stepped cycle reads.
  void prefetch_state() const {
    __builtin_prefetch(this, 1);
    __builtin_prefetch(&retry_at_, 1);
  }
  // Bytes the ports allocate besides themselves: the queues of messages waiting for a link.
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& queue : outgoing_) total += queue.capacity() * sizeof(Outgoing);
    return total;
  }

 private:
  struct Outgoing {
    std::uint32_t task;
    std::uint32_t message;
    std::uint32_t buffer;
    std::uint32_t generation;
    std::uint32_t words;
    std::uint32_t compute;                      // index in NodeContext::computes, or no_task
    SendRelease release;
    const std::vector<std::uint32_t>* order;    // word order, nullptr: 0, 1, 2, ...
    std::uint32_t step;                         // the global step label of the send
    Cycle posted;                               // the cycle the sequencer posted it
    std::uint32_t position = 0;
    std::uint32_t released_until = 0;           // words before this one are known released
  };
  // The message whose words are landing on an input port, looked up on its first word.
  struct Incoming {
    std::uint32_t message = no_task;
    std::uint32_t task = no_task;
    std::uint32_t buffer = no_buffer;
    std::uint32_t generation = 0;
  };
  // Who holds an output link: nobody, this node's head message, or the message at input port p.
  static constexpr std::int8_t free_link = -2;
  static constexpr std::int8_t local_owner = -1;

  bool store(const LinkWord& word, Cycle cycle, std::uint32_t posted_before, std::size_t port);
  bool passes_through(const LinkWord& word) const;
  std::size_t next_direction(const LinkWord& word) const;
  std::uint32_t word_at(const Outgoing& o) const { return o.order ? (*o.order)[o.position] : o.position; }
  bool released(const Outgoing& o, Cycle cycle) const;
  void check_not_replaced(std::uint32_t buffer, std::uint32_t word, std::uint32_t generation, Cycle cycle) const;
  Cycle release_cycle(const Outgoing& o) const;  // never when it waits on a future event
  // When the head word of `o` may leave: released, and for a message's first word also posted
  // and past the message's start-up; never when it waits on a future event.
  Cycle leaves_from(const Outgoing& o) const;
  void grant(std::size_t d, Cycle cycle);
  // Whether this node's own head message on free link `d` could ask for it (grant) or be
  // committed ahead (commit_ahead) in this cycle: both do nothing otherwise, and a compute
  // posts its sends long before they can leave, so asking every cycle cost a twentieth of a
  // stepping node-cycle's instructions. For nodes no message passes through.
  bool asks_now(std::size_t d, Cycle cycle) const {
    return ((queued_ >> d) & 1u) != 0 && (retry_at_[d] <= cycle || (batching_ && retry_at_[d] != never));
  }
  void send_local(std::size_t d, Cycle cycle);
  void pop_outgoing(std::size_t d) {
    outgoing_[d].pop_front();
    if (outgoing_[d].empty()) queued_ = static_cast<std::uint8_t>(queued_ & ~(1u << d));
  }
  bool send_ahead(std::size_t d, Outgoing& o, Cycle from);
  bool commit_ahead(std::size_t d, Cycle cycle);
  bool head_sends(std::uint32_t buffer, std::uint32_t generation) const;
  void wake_at(Cycle cycle) const;
  void check_block(const Outgoing& o) const;
  void sent(const Outgoing& o, std::uint32_t word, Cycle cycle);
  void record_sent(const Outgoing& o, std::uint32_t words, Cycle first, Cycle last);
  std::size_t store_run(const CommittedRun& words, std::size_t count);
  // Asks for the scoreboard, left cycles and values of words [first, first + n) of `buffer`
  // at once, before a loop over them (models/prefetch.hpp).
  void prefetch_words(std::uint32_t buffer, std::uint32_t first, std::size_t n) const;
  void forward(std::size_t d, Cycle cycle);

  // From here to retry_at_[4], read by every stepped cycle's receive and send phases, so kept
  // together, in the object's first two cache lines (the class is aligned to them;
  // prefetch_state): a node's traffic uses about half of the directions, and with a field per
  // direction in a record of its own each phase would touch a line per direction.
  NodeContext& context_;
  DirectionList in_dirs_;
  DirectionList out_dirs_;
  bool batching_ = false;
  bool routes_traffic_ = true;
  std::uint8_t queued_ = 0;  // bit d: outgoing_[d] holds a message
  std::array<std::int8_t, direction_count> owner_{};  // free_link, local_owner or an input port
  std::array<Cycle, direction_count> arrival_at_{};  // per input port: its next word's arrival (the link's hint)
  std::array<Cycle, direction_count> retry_at_{};
  std::array<RingQueue<Outgoing>, direction_count> outgoing_;
  std::array<Cycle, direction_count> committed_until_{};  // the last own word sent ahead on it leaves then
  std::array<std::uint32_t, direction_count> forwarded_{};  // words of the message passing through
  // Per input port, the last cycle a word passing through left from it: the message behind
  // may ask for a link only from the next cycle (docs/timing-model.md, "Routers").
  std::array<Cycle, direction_count> forwarded_at_{};
  WakeTarget arrival_wake_, credit_wake_;
  std::array<Incoming, direction_count> incoming_{};
  struct Taking {
    std::uint32_t message = no_task, task = no_task, buffer = no_buffer, generation = 0, words = 0;
  } taking_;  // the message take() last looked up
};

}  // namespace torus
