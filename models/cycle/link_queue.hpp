#pragma once
// The words a link holds (in flight and in its receive buffer), compactly: per word its routing
// and arrival in 16 bytes, and its value apart, in as many doubles as the run's word type needs
// (0 with values off, 1 real, 2 complex) instead of a std::complex<double> for every word.
// A FIFO on two growable circular arrays that wrap together, like RingQueue.

#include <algorithm>
#include <complex>
#include <cstddef>
#include <vector>

#include "models/cycle/link_word.hpp"
#include "models/narrow_cycle.hpp"

namespace torus {

// A word on its way without its value: it can be read from `arrival` on.
struct QueuedWord {
  std::uint32_t message;
  std::uint32_t index;
  NarrowCycle arrival;
  std::uint16_t hop;
};

// Leading words of a link queue, stored contiguously: routing and values side by side.
struct CommittedRun {
  const QueuedWord* words = nullptr;
  const double* values = nullptr;  // `parts` per word
  std::size_t parts = 0;
  std::complex<double> value(std::size_t k) const {
    if (parts == 0) return {};
    return parts == 1 ? std::complex<double>(values[k]) : std::complex<double>(values[2 * k], values[2 * k + 1]);
  }
  CommittedRun from(std::size_t k) const { return {words + k, values + k * parts, parts}; }
};

class LinkQueue {
 public:
  // `parts`: doubles kept per word's value (0, 1 or 2).
  explicit LinkQueue(std::size_t parts) : parts_(parts) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const QueuedWord& front() const { return words_[head_]; }
  const QueuedWord& operator[](std::size_t i) const { return words_[(head_ + i) & mask_]; }
  std::complex<double> front_value() const { return run_at(head_).value(0); }

  void push_back(const LinkWord& word, Cycle arrival) {
    if (size_ == words_.size()) grow();
    const std::size_t at = (head_ + size_) & mask_;
    words_[at] = {word.message, word.index, arrival, word.hop};
    if (parts_ > 0) values_[at * parts_] = word.value.real();
    if (parts_ > 1) values_[at * parts_ + 1] = word.value.imag();
    ++size_;
  }
  // The leading words stored contiguously (all of them unless the ring wraps).
  CommittedRun front_run(std::size_t& count) const {
    count = std::min(size_, words_.size() - head_);
    return run_at(head_);
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  std::size_t bytes() const { return words_.capacity() * sizeof(QueuedWord) + values_.capacity() * sizeof(double); }

 private:
  CommittedRun run_at(std::size_t at) const { return {words_.data() + at, values_.data() + at * parts_, parts_}; }
  void grow() {
    const std::size_t capacity = words_.empty() ? 4 : words_.size() * 2;
    std::vector<QueuedWord> words(capacity);
    std::vector<double> values(capacity * parts_);
    for (std::size_t i = 0; i < size_; ++i) {
      const std::size_t from = (head_ + i) & mask_;
      words[i] = words_[from];
      std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(from * parts_), parts_, values.begin() + static_cast<std::ptrdiff_t>(i * parts_));
    }
    words_ = std::move(words);
    values_ = std::move(values);
    head_ = 0;
    mask_ = capacity - 1;
  }

  std::vector<QueuedWord> words_;
  std::vector<double> values_;
  std::size_t parts_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace torus
