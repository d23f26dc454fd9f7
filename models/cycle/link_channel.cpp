#include "models/cycle/link_channel.hpp"

#include "models/cycle/step_threads.hpp"
#include "models/cycle/wake_calendar.hpp"
#include "models/prefetch.hpp"
#include "sim/fault_config.hpp"

#include <algorithm>
#include <utility>
#include <stdexcept>

namespace torus {

LinkChannel::LinkChannel(const char* name, Cycle latency, Rational words_per_cycle, std::uint64_t buffer_words,
                         std::size_t value_parts)
    : sc_core::sc_prim_channel(name), latency_(latency), rate_(words_per_cycle), credits_(buffer_words), queue_(value_parts) {
  if (latency < 1) throw std::invalid_argument("link_latency must be at least 1 cycle");
  if (buffer_words < 1) throw std::invalid_argument("link_buffer_words must be at least 1");
}

const LinkFaultRecord& LinkChannel::fault_record() const {
  static const LinkFaultRecord none;
  return fault_ ? fault_->record : none;
}

std::size_t LinkChannel::name_bytes(const char* name) {
  const std::size_t length = std::char_traits<char>::length(name);
  return length > 15 ? length + 1 : 0;
}

void LinkChannel::collect_credits(Cycle cycle) { credits_ += returning_credits_.pop_through(cycle); }

bool LinkChannel::can_send(Cycle cycle) {
  collect_credits(cycle);
  if (!free_in(cycle)) {
    starved_ = false;
    return false;  // the link is still serialising earlier words
  }
  starved_ = credits_ == 0;
  if (starved_) ++stats_.credit_stall_checks;
  return !starved_;
}

// can_send(cycle) has just collected the credits due by `cycle`, so the precondition mostly
// holds without collecting them again; and the answer after the word needs no collection when
// the link is busy for the rest of the cycle (always, at a word a cycle or less).
bool LinkChannel::send(Cycle cycle, const LinkWord& sent) {
  if ((!free_in(cycle) || credits_ == 0) && !can_send(cycle))
    throw std::logic_error(std::string(name()) + ": send without a free link and a credit");
  transmit(cycle, sent);
  if (free_in(cycle)) return true;
  starved_ = false;  // as can_send(cycle) would now set it
  return false;
}

void LinkChannel::send_ahead(Cycle from, std::uint32_t message, std::uint32_t first_index, const std::complex<double>* values,
                             std::size_t count, Cycle* leave) {
  if (sender_calls_) throw std::logic_error(std::string(name()) + ": words sent ahead on a link staged for threads");
  if (credits_ < count) throw std::logic_error(std::string(name()) + ": send ahead without a credit for each word");
  Cycle at = from;
  if (from > 0) ahead_.pop_through(from - 1);
  const auto num = static_cast<Cycle>(rate_.num);
  const bool faultless = this->faultless();
  if (faultless && num == 1 && count > 0) return send_spaced(std::max<Cycle>(from, static_cast<Cycle>(next_free_tick_)), message, first_index, values, count, leave);
  for (std::size_t k = 0; k < count; ++k) {
    const auto free_tick = static_cast<Cycle>(next_free_tick_);
    at = std::max<Cycle>(at, num == 1 ? free_tick : free_tick / num);  // the link is free (no division at one word a cycle)
    leave[k] = at;
    ahead_.push_back(at);
    if (!faultless) {
      transmit(at, {values[k], message, static_cast<std::uint32_t>(first_index + k), 0});
      continue;
    }
    // transmit() without its fault check, its queueing and its update request: once for the run
    next_free_tick_ = std::max(next_free_tick_, static_cast<std::int64_t>(at) * rate_.num) + rate_.den;
    if (last_active_cycle_ != at) {
      ++stats_.active_cycles;
      last_active_cycle_ = at;
    }
  }
  if (!faultless || count == 0) return;
  queue_.push_run(message, 0, first_index, values, leave, latency_, count);
  credits_ -= count;
  stats_.words_sent += count;
  request_update_in_order();
}

std::uint64_t LinkChannel::credits_unspent(Cycle cycle) {
  collect_credits(cycle);
  ahead_.pop_through(cycle);
  return credits_ + ahead_.size();
}

// At one word every den cycles, a run sent ahead leaves evenly spaced from the first cycle the
// link is free: the loop above in closed form, its bookkeeping once for the run.
void LinkChannel::send_spaced(Cycle first, std::uint32_t message, std::uint32_t first_index, const std::complex<double>* values,
                              std::size_t count, Cycle* leave) {
  const auto spacing = static_cast<Cycle>(rate_.den);
  for (std::size_t k = 0; k < count; ++k) leave[k] = first + spacing * k;
  const Cycle last = leave[count - 1];
  ahead_.push_run(first, spacing, count);
  next_free_tick_ = static_cast<std::int64_t>(last + spacing);
  stats_.active_cycles += count - (last_active_cycle_ == first ? 1 : 0);  // each word in a cycle of its own
  last_active_cycle_ = last;
  queue_.push_spaced(message, 0, first_index, values, first + latency_, spacing, count);
  credits_ -= count;
  stats_.words_sent += count;
  request_update_in_order();
}

void LinkChannel::transmit(Cycle cycle, const LinkWord& sent) {
  const std::int64_t start = std::max(next_free_tick_, static_cast<std::int64_t>(cycle) * rate_.num);
  next_free_tick_ = start + rate_.den;
  --credits_;
  ++stats_.words_sent;
  if (last_active_cycle_ != cycle) {
    ++stats_.active_cycles;
    last_active_cycle_ = cycle;
  }
  if (!faultless() && cycle >= fault_->fault.from) return transmit_faulty(cycle, sent);
  enqueue(sent, cycle + latency_);  // not visible to the receiver before the update phase
}

void LinkChannel::transmit_faulty(Cycle cycle, const LinkWord& sent) {
  LinkFaultRecord& record = fault_->record;
  record = {true, sent, cycle, 0};
  if (fault_->fault.drop) return;  // it left; it never arrives, and its credit never returns
  LinkWord word = sent;
  word.value = {with_bit_flipped(word.value.real(), fault_->fault.bit), word.value.imag()};
  record.became = word.value.real();
  enqueue(word, cycle + latency_);
}

void LinkChannel::enqueue(const LinkWord& word, Cycle arrival) {
  if (!sender_calls_) {
    queue_.push_back(word, arrival);
    return request_update_in_order();
  }
  staged_words_.push_back({word, arrival});
  request_update_from(sender_calls_, sender_asked_);
}

void LinkChannel::attach_taker(LinkTaker* taker) {
  if (sender_calls_ && taker) throw std::logic_error(std::string(name()) + ": a link staged for threads cannot hand words to a taker");
  taker_ = taker;
}

void LinkChannel::stage_for_threads(DeferredCalls* sender, DeferredCalls* receiver) {
  if (taker_) throw std::logic_error(std::string(name()) + ": a link whose receiver takes words ahead cannot be staged for threads");
  sender_calls_ = sender;
  receiver_calls_ = receiver;
  receiver_part_ = receiver->part;
}

void LinkChannel::request_update_from(DeferredCalls* calls, bool& asked) {
  if (!calls->collecting) return request_update_in_order();
  if (asked) return;
  asked = true;
  calls->updates_to[receiver_part_].push_back(this);
}

// The words and credits the two ends staged while stepping on separate threads, in the order
// they were staged: as if sent and freed at once.
void LinkChannel::take_staged(DeferredCalls* wakes) {
  sender_asked_ = receiver_asked_ = false;
  for (const Staged& s : staged_words_) queue_.push_back(s.word, s.arrival);
  staged_words_.clear();
  for (const Cycle c : staged_credits_) return_credits(c, 1, 1, wakes);
  staged_credits_.clear();
}

void LinkChannel::wake(WakeCalendar* calendar, std::uint32_t node, Cycle at, DeferredCalls* wakes) {
  if (wakes) wakes->wakes.push_back({calendar, node, at});
  else calendar->notify(node, at);
}

void LinkChannel::request_update_in_order() {
  // Only a link whose receiver takes words ahead has state worth asking for ahead: following
  // the chain through the others cost a stepping torus a miss per link and cycle.
  if (chain_ && taker_ && !chained_) {
    chained_ = true;
    update_next_ = chain_->last;
    chain_->last = this;
  }
  request_update();
}

void LinkChannel::prefetch_object() const { prefetch_bytes(this, sizeof(*this)); }

void LinkChannel::prefetch_staged() const {
  if (arrival_hint_) {
    __builtin_prefetch(arrival_hint_, 1);
    __builtin_prefetch(arrival_sleeping_);
  }
  prefetch_span(staged_words_.data(), staged_words_.size());
  prefetch_span(staged_credits_.data(), staged_credits_.size());
  if (!staged_words_.empty()) queue_.prefetch_back();
}

void LinkChannel::prefetch_taker() const {
  if (!taker_ || queue_.empty()) return;
  taker_->prefetch_taker();
  queue_.prefetch_front();
}

void LinkChannel::prefetch_take() const {
  if (!taker_ || queue_.empty()) return;
  std::size_t count = 0;
  taker_->prefetch_take(queue_.front_run(count).message);
}

// The update phase: words sent in the evaluate phase that just ended become visible to the
// receiver, and a sleeping receiver is woken for the earliest arrival. (Credits need no such
// step: one freed at cycle c returns at c + latency > c, so no end sees another's change in
// the cycle it is made.)
void LinkChannel::commit(DeferredCalls* wakes) {
  // Updated first, the link that asked last ends this delta's chain: the next delta's starts
  // afresh.
  // Only a chained link can be the chain's last: one that is not leaves the shared chain
  // alone (links staged for threads are updated on several threads at once).
  if (std::exchange(chained_, false) && chain_->last == this) chain_->last = nullptr;
  if (sender_calls_) take_staged(wakes);
  if (const LinkChannel* next = std::exchange(update_next_, nullptr)) {
    next->prefetch_take();
    if (const LinkChannel* second = next->update_next_) {
      second->prefetch_taker();
      if (const LinkChannel* third = second->update_next_) third->prefetch_object();
    }
  }
  // A receiver frozen while it waits may take the words now, each as if popped on arrival (at
  // most one word a cycle arrives when the rate is at most 1, so the buffer never holds more).
  if (taker_ && rate_.num <= rate_.den && visible_ == 0) offer_to_taker(queue_.size(), [](const CommittedRun&, std::size_t n) { return n; });
  if (visible_ < queue_.size() && arrival_hint_) {
    const Cycle arrival = queue_.arrival_at(visible_);
    if (arrival < *arrival_hint_) {
      *arrival_hint_ = arrival;
      if (*arrival_sleeping_) wake(arrival_wake_->calendar, arrival_wake_->node, arrival, wakes);
    }
  }
  visible_ = queue_.size();
}

void LinkChannel::offer_committed(Cycle now) {
  if (!taker_ || rate_.num > rate_.den) return;
  // Arrivals never decrease along the queue: a run's first word decides for all of it.
  offer_to_taker(visible_, [now](const CommittedRun& run, std::size_t n) { return run.first_arrival > now ? n : 0; });
}

// Taken words count as popped on arrival: each returns its credit `latency` later.
template <class Offer>
void LinkChannel::offer_to_taker(std::size_t limit, Offer offer) {
  while (limit > 0) {
    std::size_t available = 0;
    const CommittedRun run = queue_.front_run(available);
    available = std::min(available, limit);
    const std::size_t offered = offer(run, available);
    const std::size_t taken = offered == 0 ? 0 : taker_->take(run, offered);
    return_credits(run.first_arrival + latency_, run.spacing, taken);
    if (taken > 0) queue_.pop_front(taken);
    if (taken > 0) stats_.peak_occupancy = std::max<std::uint64_t>(stats_.peak_occupancy, 1);
    visible_ -= std::min(visible_, taken);
    limit -= taken;
    if (taken < available) return;
  }
}

void LinkChannel::observe(Cycle cycle) {
  stats_.peak_occupancy = std::max<std::uint64_t>(stats_.peak_occupancy, queue_.count_arrived(cycle, visible_));
}

const LinkWord* LinkChannel::front(Cycle cycle) {
  // Polled every cycle: answer "nothing yet" without touching the occupancy count.
  if (visible_ == 0 || queue_.front_arrival() > cycle) return nullptr;
  observe(cycle);
  front_ = queue_.front_word();
  return &front_;
}

void LinkChannel::pop(Cycle cycle) {
  // The caller has just seen the word through front(), which counted it as arrived.
  if (visible_ == 0 || queue_.front_arrival() > cycle) throw std::logic_error(std::string(name()) + ": pop with no arrived word");
  queue_.pop_front();  // an arrived word: the queue's arrived count drops with it
  --visible_;
  if (!receiver_calls_) return return_credits(cycle + latency_, 1, 1);
  staged_credits_.push_back(cycle + latency_);  // the sender's end may be stepping now
  request_update_from(receiver_calls_, receiver_asked_);
}

void LinkChannel::return_credits(Cycle first, Cycle spacing, std::size_t count, DeferredCalls* wakes) {
  if (count == 0) return;
  returning_credits_.push_run(first, spacing, count);
  if (credit_sleeping_ && *credit_sleeping_) wake(credit_wake_->calendar, credit_wake_->node, first, wakes);
}

}  // namespace torus
