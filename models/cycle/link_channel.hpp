#pragma once
// One direction of one torus link, as a SystemC channel. Latency, bandwidth and the receive
// buffer belong to the link, not to the nodes.
//
// Timing contract (all in whole cycles; the caller passes the current cycle):
// - Bandwidth w = num/den words per cycle: the link serialises words, each occupying den/num
//   cycles; word j of a back-to-back burst that starts at cycle c leaves at c + floor(j den/num).
// - A word that leaves at cycle c arrives at c + latency and can be read from that cycle on.
// - The receive buffer holds `buffer_words`; the sender holds one credit per free place. A
//   word that leaves takes a credit; a word the receiver pops returns its credit to the sender
//   `latency` cycles later. With no credit the sender stalls. Words are never lost, duplicated
//   or reordered.
// - Evaluate/update: a word sent in one delta cycle becomes visible to the receiver only in the
//   channel's update phase, so the order in which SystemC runs the two ends can never matter.

#include <memory>
#include <string>
#include <vector>

#include "models/cycle/cycle_runs.hpp"
#include "models/cycle/link_queue.hpp"
#include "models/cycle/link_word.hpp"
#include "models/cycle/ring_queue.hpp"
#include "models/cycle/systemc.hpp"
#include "sim/rational.hpp"

namespace torus {

class WakeCalendar;
struct DeferredCalls;

// Whom a link wakes: the node's flag that it sleeps (any sleep, for words arriving; for want of
// credit, for credits returning), its calendar and its index. One per node and kind, shared by
// its ports.
struct WakeTarget {
  const bool* sleeping = nullptr;
  WakeCalendar* calendar = nullptr;
  std::uint32_t node = 0;
};

// A receiver that may take words when they are committed instead of when they arrive: `take`
// stores the longest prefix of the first `count` words of `run` (one message's, evenly spaced)
// it can, each as if popped at its arrival cycle, and returns how many; the others wait in the
// buffer as usual. Only asked while nothing earlier waits in the buffer; a batch of committed
// words comes as consecutive calls, front first, until one takes less than offered.
class LinkTaker {
 public:
  virtual ~LinkTaker() = default;
  virtual std::size_t take(const CommittedRun& run, std::size_t count) = 0;
  // Hints (models/prefetch.hpp): the taker's own state; then, once it is in, what taking the
  // words of `message` will touch.
  virtual void prefetch_taker() const {}
  virtual void prefetch_take(std::uint32_t /*message*/) const {}
};

class LinkChannel;
// The links that asked for an update in this delta cycle, as a list through each link's
// `update_next_`: SystemC updates its channels in the reverse order of their requests, so the
// link that asked before this one is the next to be updated, and this one can ask for its
// state ahead (models/prefetch.hpp). Owned by the set of links; a hint only.
struct UpdateChain {
  LinkChannel* last = nullptr;
};

// The sending end.
class LinkSendIf : public virtual sc_core::sc_interface {
 public:
  // Sends scheduled ahead: the credits held at `cycle` (returns due by then collected), and a
  // run of words that each leave at the first cycle the link is free, from `from` on, each
  // taking a credit held by `from` (returns due later are not collected early); `leave[k]` gets
  // the cycle word k leaves. `from` may lie ahead of the current cycle when nothing else uses
  // the link before it (the sender's stall accounting does not ask about those cycles). The
  // run: `count` words of `message` on its first hop, indices first_index, first_index + 1, ...,
  // values `values`. Precondition: credits_at(from) >= count.
  virtual std::uint64_t credits_at(Cycle cycle) = 0;
  // The credits a link stepping cycle by cycle would hold after `cycle`'s send phase: those
  // held, and those of words sent ahead that leave only after `cycle` (for stall accounting).
  virtual std::uint64_t credits_unspent(Cycle cycle) = 0;
  virtual void send_ahead(Cycle from, std::uint32_t message, std::uint32_t first_index, const std::complex<double>* values,
                          std::size_t count, Cycle* leave) = 0;
  // True when a word may leave in `cycle`: the link is free and a credit is held.
  virtual bool can_send(Cycle cycle) = 0;
  // Precondition: can_send(cycle), asked last in this cycle. Returns false when the link can take
  // no other word in `cycle` (it serialises this one: can_send would say so and change nothing);
  // true when it may, which can_send tells.
  virtual bool send(Cycle cycle, const LinkWord& word) = 0;
  // True when the last can_send failed for want of credit (for stall accounting).
  virtual bool starved_of_credit() const = 0;
  // The earliest cycle a credit on its way back returns (never: none is on its way); one that
  // starts back later is announced through the hint.
  virtual Cycle next_credit_return() const = 0;
  // A credit that starts back while *target.sleeping has the sender woken at its return.
  virtual void attach_credit_hint(const WakeTarget* target) = 0;
};

// The receiving end.
class LinkReceiveIf : public virtual sc_core::sc_interface {
 public:
  // The oldest word that has arrived by `cycle`, or nullptr. Cycles passed must not decrease.
  virtual const LinkWord* front(Cycle cycle) = 0;
  // Removes the front word, freeing its buffer place. Precondition: front(cycle) != nullptr,
  // called in the same cycle (front() is where the link counts the words arrived, for its peak
  // occupancy; pop() does not count them again).
  virtual void pop(Cycle cycle) = 0;
  // The cycle the front word arrives (or `never` when empty).
  virtual Cycle next_arrival() const = 0;
  // The link lowers *next to the arrival cycle of each word it sends, so the receiver need not
  // poll it while *next is in the future; while *target.sleeping, it has the receiver woken then.
  // The cycles of one node's ports lie side by side, read together every cycle.
  virtual void attach_arrival_hint(Cycle* next, const WakeTarget* target) = 0;
  virtual void attach_taker(LinkTaker* taker) = 0;
  // Offers the taker the committed words that arrive after `now`, front first, until it
  // declines one; each taken word counts as popped on arrival.
  virtual void offer_committed(Cycle now) = 0;
};

// A fault the channel injects into the first word it sends at or after `from`.
struct LinkFault {
  bool drop = false;  // lose the word; otherwise flip `bit` of its real part (as a 64-bit double)
  int bit = 52;
  Cycle from = 0;
  std::string label;  // which link, for the record: "(0,0,0) +Q"
};

// What the injected fault did to which word, for the run's record (formatted by the top,
// which knows the Program).
struct LinkFaultRecord {
  bool fired = false;
  LinkWord word;  // as sent, before the fault
  Cycle cycle = 0;
  double became = 0;  // the real part after a bit flip
};

struct LinkStats {
  std::uint64_t words_sent = 0;
  std::uint64_t active_cycles = 0;        // cycles in which at least one word left
  std::uint64_t credit_stall_checks = 0;  // can_send refusals for want of credit
  std::uint64_t peak_occupancy = 0;       // most words held in the receive buffer at once
};

class LinkChannel : public sc_core::sc_prim_channel, public LinkSendIf, public LinkReceiveIf {
 public:
  // `value_parts`: doubles each word's value needs (0: values off, 1 real, 2 complex).
  LinkChannel(const char* name, Cycle latency, Rational words_per_cycle, std::uint64_t buffer_words,
              std::size_t value_parts = 2);

  bool can_send(Cycle cycle) override;
  bool send(Cycle cycle, const LinkWord& word) override;
  bool starved_of_credit() const override { return starved_; }
  Cycle next_credit_return() const override { return returning_credits_.empty() ? never : returning_credits_.front(); }
  void attach_credit_hint(const WakeTarget* target) override {
    credit_wake_ = target;
    credit_sleeping_ = target->sleeping;
  }
  const LinkWord* front(Cycle cycle) override;
  void pop(Cycle cycle) override;
  Cycle next_arrival() const override { return visible_ == 0 ? never : queue_.front_arrival(); }
  void attach_arrival_hint(Cycle* next, const WakeTarget* target) override {
    arrival_hint_ = next;
    arrival_wake_ = target;
    arrival_sleeping_ = target->sleeping;
  }
  // A staged link is updated beside others on other threads, which a taker's update chain
  // would share (refused: nodes that take words ahead never step on several threads).
  void attach_taker(LinkTaker* taker) override;
  void offer_committed(Cycle now) override;
  std::uint64_t credits_at(Cycle cycle) override {
    collect_credits(cycle);
    return credits_;
  }
  void send_ahead(Cycle from, std::uint32_t message, std::uint32_t first_index, const std::complex<double>* values,
                  std::size_t count, Cycle* leave) override;
  std::uint64_t credits_unspent(Cycle cycle) override;

  const LinkStats& stats() const { return stats_; }
  // For waveforms: words that have arrived and wait to be taken.
  const std::size_t& occupancy() const { return queue_.arrived(); }
  bool idle() const { return queue_.empty(); }
  void inject(LinkFault fault) { fault_ = std::make_unique<FaultState>(FaultState{std::move(fault), {}}); }
  const LinkFault* fault() const { return fault_ ? &fault_->fault : nullptr; }
  // What the injected fault did, once it has fired (nothing fired without a fault).
  const LinkFaultRecord& fault_record() const;
  Cycle latency() const { return latency_; }
  // Links made by one set share one chain; a link on no chain asks for nothing ahead.
  void join_update_chain(UpdateChain* chain) { chain_ = chain; }
  // For nodes stepped on several threads (models/cycle/step_threads.hpp): the sender's and the
  // receiver's partitions' calls. From then on a word sent and a credit freed are staged and
  // moved in the update phase, so that the two ends, stepping at once, share nothing; an
  // update request made while a partition collects is deferred to it. Not with words sent
  // ahead (send_ahead refuses): nodes that fast-forward never step on several threads.
  void stage_for_threads(DeferredCalls* sender, DeferredCalls* receiver);
  // The update phase of a link staged for threads, run by LinkUpdatePhase as part of its
  // receiver's partition (`receiver`): as update(), but the wake-ups it asks of the calendar
  // are collected in `receiver` instead of made. Doing it twice in one update phase does
  // nothing more.
  void update_staged(DeferredCalls& receiver) { commit(&receiver); }
  // Hints for LinkUpdatePhase (models/prefetch.hpp): the link's fields; then, once they are
  // in, what update_staged reads and writes through them.
  void prefetch_fields() const { prefetch_object(); }
  void prefetch_staged() const;
  // Bytes the channel allocates (for the memory report): itself, its queues, and the kernel's
  // copy of its name (a string held apart once longer than its inline 15 characters).
  std::size_t bytes() const {
    return sizeof(*this) + queue_.bytes() + returning_credits_.bytes() + ahead_.bytes() +
           staged_words_.capacity() * sizeof(Staged) + staged_credits_.capacity() * sizeof(Cycle) +
           (fault_ ? sizeof(FaultState) : 0) + name_bytes(name());
  }
  static std::size_t name_bytes(const char* name);

 private:
  void update() override { commit(nullptr); }
  // The update phase; wake-ups go to `wakes` when given, else straight to the calendar.
  void commit(DeferredCalls* wakes);
  void wake(WakeCalendar* calendar, std::uint32_t node, Cycle at, DeferredCalls* wakes);
  void transmit(Cycle cycle, const LinkWord& word);  // takes the credit and the link time
  void send_spaced(Cycle first, std::uint32_t message, std::uint32_t first_index, const std::complex<double>* values,
                   std::size_t count, Cycle* leave);
  void transmit_faulty(Cycle cycle, const LinkWord& word);  // the word the injected fault hits
  void collect_credits(Cycle cycle);
  // Whether the link has finished serialising earlier words before `cycle` ends.
  bool free_in(Cycle cycle) const { return next_free_tick_ < static_cast<std::int64_t>(cycle + 1) * rate_.num; }
  void return_credits(Cycle first, Cycle spacing, std::size_t count, DeferredCalls* wakes = nullptr);
  // Counts the words that have arrived by `cycle` (arrivals are in queue order).
  void observe(Cycle cycle);
  // Offers the taker the first `limit` words, from the front, run by run: `offer(run, n)` says
  // how many of the run's `n` leading words may be offered.
  template <class Offer>
  void offer_to_taker(std::size_t limit, Offer offer);
  bool faultless() const { return !fault_ || fault_->record.fired; }
  void request_update_in_order();
  // The request of the end whose partition is `calls` (`asked`: that end's flag, so that it
  // asks once a cycle): at once, or deferred to the partition.
  void request_update_from(DeferredCalls* calls, bool& asked);
  // A word on its way: into the queue, or staged for the update phase.
  void enqueue(const LinkWord& word, Cycle arrival);
  void take_staged(DeferredCalls* wakes);
  // Hints for the links updated next (UpdateChain): three levels, each reading what the one
  // before asked for.
  void prefetch_object() const;
  void prefetch_taker() const;
  void prefetch_take() const;

  // An injected fault and its record, held apart: only one link of a run may have one.
  struct FaultState {
    LinkFault fault;
    LinkFaultRecord record;
  };

  Cycle latency_;
  Rational rate_;
  std::uint64_t credits_;
  std::int64_t next_free_tick_ = 0;  // in units of 1/num cycle
  Cycle last_active_cycle_ = never;
  bool starved_ = false;
  bool chained_ = false;  // in the update chain of this delta cycle
  UpdateChain* chain_ = nullptr;
  LinkChannel* update_next_ = nullptr;  // the link that asked for an update before this one
  Cycle* arrival_hint_ = nullptr;
  const WakeTarget* arrival_wake_ = nullptr;
  const WakeTarget* credit_wake_ = nullptr;
  // Their sleep flags, held here too: each word and credit asks, a wake-up is rare.
  const bool* arrival_sleeping_ = nullptr;
  const bool* credit_sleeping_ = nullptr;
  LinkTaker* taker_ = nullptr;
  // Beside the fields every send and pop reads (stage_for_threads; nullptr: one thread).
  DeferredCalls* sender_calls_ = nullptr;
  DeferredCalls* receiver_calls_ = nullptr;
  // Each written by its own end while stepping, cleared by the update phase.
  bool sender_asked_ = false;
  bool receiver_asked_ = false;
  // receiver_calls_'s index, held here: its partition writes beside it on every word.
  std::uint32_t receiver_part_ = 0;
  std::unique_ptr<FaultState> fault_;
  LinkQueue queue_;                     // sent, not popped, in order; counts those arrived
  LinkWord front_;                      // the front word, as front() hands it out
  std::size_t visible_ = 0;             // leading words of queue_ committed by an update phase
  CycleRuns returning_credits_;  // cycle at which each returns to the sender
  CycleRuns ahead_;              // leaving cycles of words sent ahead, not yet known to have left
  LinkStats stats_;
  // Staged for the update phase when the ends step on several threads (stage_for_threads):
  // each list is written by one end only.
  struct Staged {
    LinkWord word;
    Cycle arrival;
  };
  std::vector<Staged> staged_words_;       // the sender's
  std::vector<Cycle> staged_credits_;      // the receiver's: the cycle each returns
};

}  // namespace torus
