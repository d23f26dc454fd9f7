#pragma once
// The words a link holds (in flight and in its receive buffer), compactly. A message's words
// leave one after another, so on a link they come as runs: word indices and arrival cycles each
// evenly spaced (i, i+1, ... at a, a+s, ...). The queue keeps one 20-byte entry per such run
// instead of one per word, and only the values apart, word by word, in as many doubles as the
// word type needs (0 with values off, 1 real, 2 complex). Any sequence is held exactly: a word
// that does not continue the last run (another message or hop, an uneven gap as at a fractional
// bandwidth or after a stall) opens a new one. Arrivals never decrease along the queue (the
// link sends in order), which the arrived count relies on.

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/cycle/link_word.hpp"
#include "models/cycle/ring_queue.hpp"
#include "models/prefetch.hpp"
#include "models/narrow_cycle.hpp"
#include "models/word_run.hpp"

namespace torus {

// Leading words of a link queue, all of one run: one message on one hop, indices and arrivals
// evenly spaced, values stored contiguously.
struct CommittedRun {
  std::uint32_t message = 0;
  std::uint16_t hop = 0;
  std::uint32_t first_index = 0;
  std::int32_t index_step = 0;
  Cycle first_arrival = 0;
  Cycle spacing = 0;
  const double* values = nullptr;  // `parts` per word
  std::size_t parts = 0;

  std::uint32_t index(std::size_t k) const { return run_word(first_index, index_step, k); }
  Cycle arrival(std::size_t k) const { return first_arrival + spacing * k; }
  std::complex<double> value(std::size_t k) const { return run_value(values, parts, k); }
};

class LinkQueue {
 public:
  // `parts`: doubles kept per word's value (0, 1 or 2).
  explicit LinkQueue(std::size_t parts) : parts_(parts) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  Cycle front_arrival() const { return runs_.front().first_arrival; }
  // The front word, value included.
  LinkWord front_word() const {
    const Run& run = runs_.front();
    return {front_run_view(run).value(0), run.message, run.first_index, run.hop};
  }
  // The arrival of the i-th word: found from the back, so asking for a word pushed lately costs
  // only the runs pushed since.
  Cycle arrival_at(std::size_t i) const {
    std::size_t end = size_;
    for (std::size_t r = runs_.size(); r-- > 0;) {
      const Run& run = runs_[r];
      const std::size_t begin = end - run.count;
      if (i >= begin) return run.arrival(i - begin);
      end = begin;
    }
    return never;
  }

  void push_back(const LinkWord& word, Cycle arrival) {
    if (!extends_last_run(word.message, word.index, word.hop, arrival))
      runs_.push_back({arrival, word.message, word.index, 1, word.hop, 0, 0});
    if (parts_ > 0) {
      if (size_ == value_capacity()) grow_values(size_ + 1);
      double* value = values_.data() + ((value_head_ + size_) & value_mask_) * parts_;
      value[0] = word.value.real();
      if (parts_ > 1) value[1] = word.value.imag();
    }
    ++size_;
  }
  // As `count` push_back calls for words of one message and hop with indices first_index,
  // first_index + 1, ..., values `values` and arrivals leaves[k] + latency; the room for the
  // values is made once and the run's words extend it in place.
  void push_run(std::uint32_t message, std::uint16_t hop, std::uint32_t first_index, const std::complex<double>* values,
                const Cycle* leaves, Cycle latency, std::size_t count) {
    push_values(values, count);
    for (std::size_t k = 0; k < count; ++k) {
      const auto index = static_cast<std::uint32_t>(first_index + k);
      if (!extends_last_run(message, index, hop, leaves[k] + latency)) runs_.push_back({leaves[k] + latency, message, index, 1, hop, 0, 0});
    }
    size_ += count;
  }
  // As push_run for words leaving evenly spaced: arrivals first_arrival, first_arrival +
  // spacing, ...; once the last run continues with this spacing, the rest extend it at once.
  void push_spaced(std::uint32_t message, std::uint16_t hop, std::uint32_t first_index, const std::complex<double>* values,
                   Cycle first_arrival, Cycle spacing, std::size_t count) {
    push_values(values, count);
    for (std::size_t k = 0; k < count;) {
      if (k > 0) {  // runs_ holds word k - 1 of this message and hop last
        Run& run = runs_.back();
        if (run.count >= 2 && Cycle{run.spacing} == spacing && run.index_step == 1) {
          const std::size_t n = std::min<std::size_t>(count - k, max_count - run.count);
          run.count = static_cast<std::uint16_t>(run.count + n);
          k += n;
          if (n > 0) continue;
        }
      }
      const auto index = static_cast<std::uint32_t>(first_index + k);
      const Cycle arrival = first_arrival + spacing * k;
      if (!extends_last_run(message, index, hop, arrival)) runs_.push_back({arrival, message, index, 1, hop, 0, 0});
      ++k;
    }
    size_ += count;
  }
  // Asks for the last run and the place of the next word's value, which push_back writes.
  void prefetch_back() const {
    prefetch_span<true>(runs_.back_address(), 1);
    if (parts_ > 0 && !values_.empty()) prefetch_span<true>(values_.data() + ((value_head_ + size_) & value_mask_) * parts_, parts_);
  }
  // Asks for the front run and the front words' values (models/prefetch.hpp).
  void prefetch_front() const {
    prefetch_span(runs_.front_address(), 1);
    if (parts_ > 0 && !values_.empty()) prefetch_bytes(values_.data() + value_head_ * parts_, std::min(size_, value_capacity() - value_head_) * parts_ * sizeof(double));
  }
  // The leading words of the front run whose values are stored contiguously (`count` of them).
  CommittedRun front_run(std::size_t& count) const {
    const Run& run = runs_.front();
    count = parts_ == 0 ? run.count : std::min<std::size_t>(run.count, value_capacity() - value_head_);
    return front_run_view(run);
  }
  // Removes the first `n` words, all of the front run (n <= its count).
  void pop_front(std::size_t n = 1) {
    Run& run = runs_.front();
    const std::size_t counted = std::min(arrived_, n);  // the arrived words are the leading ones
    arrived_ -= counted;
    if (arrived_cursor_.run == 0) arrived_cursor_.offset -= static_cast<std::uint32_t>(counted);
    if (parts_ > 0) value_head_ = (value_head_ + n) & value_mask_;
    size_ -= n;
    run.count = static_cast<std::uint16_t>(run.count - n);
    if (run.count > 0) {
      run.first_arrival = run.arrival(n);
      run.first_index += static_cast<std::uint32_t>(run.index_step * static_cast<std::int64_t>(n));
      return;
    }
    runs_.pop_front();
    if (arrived_cursor_.run > 0) --arrived_cursor_.run;  // else it stays on the new front run's first word
  }

  // How many leading words have arrived by `cycle`, counting on from the last call up to
  // `limit` words (cycles passed must not decrease; popped words are no longer counted).
  std::size_t count_arrived(Cycle cycle, std::size_t limit) {
    while (arrived_ < limit) {
      const Run& run = runs_[arrived_cursor_.run];
      if (arrived_cursor_.offset == run.count) {  // a run wholly arrived: on to the next, which exists
        ++arrived_cursor_.run;
        arrived_cursor_.offset = 0;
        continue;
      }
      const Cycle next = run.arrival(arrived_cursor_.offset);
      if (next > cycle) break;
      const std::size_t left = run.count - arrived_cursor_.offset;
      std::size_t n = run.spacing == 0 ? left : std::min<std::size_t>(left, (cycle - next) / run.spacing + 1);
      n = std::min(n, limit - arrived_);
      arrived_cursor_.offset += static_cast<std::uint32_t>(n);
      arrived_ += n;
      if (arrived_cursor_.offset < run.count) break;
    }
    return arrived_;
  }
  // The count the last count_arrived() left, as words were popped since.
  const std::size_t& arrived() const { return arrived_; }

  std::size_t runs() const { return runs_.size(); }
  std::size_t bytes() const { return runs_.capacity() * sizeof(Run) + values_.capacity() * sizeof(double); }

 private:
  // 20 bytes: spacings, steps and counts past 16 bits only split runs.
  struct Run {
    NarrowCycle first_arrival;
    std::uint32_t message;
    std::uint32_t first_index;
    std::uint16_t count;
    std::uint16_t hop;
    std::uint16_t spacing;   // cycles between arrivals (set by a run's second word)
    std::int16_t index_step;  // between indices (likewise)
    Cycle arrival(std::size_t k) const { return Cycle{first_arrival} + Cycle{spacing} * k; }
  };
  static constexpr std::uint16_t max_count = 0xFFFF;

  bool extends_last_run(std::uint32_t message, std::uint32_t index, std::uint16_t hop, Cycle arrival) {
    if (runs_.empty()) return false;
    Run& run = runs_.back();
    if (run.message != message || run.hop != hop || run.count == max_count) return false;
    const Cycle last = run.arrival(run.count - 1u);
    const std::int64_t step = std::int64_t{index} - (run.first_index + std::int64_t{run.index_step} * (run.count - 1));
    if (arrival < last || arrival - last > 0xFFFF || step < INT16_MIN || step > INT16_MAX) return false;
    if (run.count == 1) {  // a second word sets the run's spacings
      run.spacing = static_cast<std::uint16_t>(arrival - last);
      run.index_step = static_cast<std::int16_t>(step);
    }
    if (arrival - last != run.spacing || step != run.index_step) return false;
    ++run.count;
    return true;
  }
  // The values of `count` words about to be pushed, after those held.
  void push_values(const std::complex<double>* values, std::size_t count) {
    if (parts_ == 0) return;
    if (size_ + count > value_capacity()) grow_values(size_ + count);
    for (std::size_t k = 0; k < count; ++k) {
      double* value = values_.data() + ((value_head_ + size_ + k) & value_mask_) * parts_;
      value[0] = values[k].real();
      if (parts_ > 1) value[1] = values[k].imag();
    }
  }
  CommittedRun front_run_view(const Run& run) const {
    return {run.message, run.hop, run.first_index, run.index_step, run.first_arrival, run.spacing,
            values_.data() + value_head_ * parts_, parts_};
  }
  std::size_t value_capacity() const { return parts_ == 0 ? 0 : values_.size() / parts_; }
  // To the smallest power of two (4 at least) that holds `needed` words: the capacities words
  // pushed one by one would reach.
  void grow_values(std::size_t needed) {
    std::size_t capacity = std::max<std::size_t>(4, value_capacity());
    while (capacity < needed) capacity *= 2;
    std::vector<double> values(capacity * parts_);
    for (std::size_t i = 0; i < size_; ++i) {
      const std::size_t from = ((value_head_ + i) & value_mask_) * parts_;
      std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(from), parts_, values.begin() + static_cast<std::ptrdiff_t>(i * parts_));
    }
    values_ = std::move(values);
    value_head_ = 0;
    value_mask_ = capacity - 1;
  }

  // Where count_arrived() stopped: word `offset` of the run `run` places from the front (at a
  // run's end rather than the next one's start, so a word extending that run is not skipped).
  struct Cursor {
    std::size_t run = 0;
    std::uint32_t offset = 0;
  };

  RingQueue<Run, 2> runs_;  // a link mostly holds one message or two, each one run
  std::vector<double> values_;  // a ring of words, wrapping at value_mask_
  std::size_t parts_;
  std::size_t value_head_ = 0;
  std::size_t value_mask_ = 0;
  std::size_t size_ = 0;
  std::size_t arrived_ = 0;
  Cursor arrived_cursor_;
};

}  // namespace torus
