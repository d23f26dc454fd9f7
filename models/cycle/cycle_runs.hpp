#pragma once
// A FIFO of cycles kept as evenly spaced runs (first, step, count). The cycles a link's words
// leave at and its credits return at come one a cycle or evenly spaced while a message streams,
// so a whole message takes one entry (12 bytes) instead of one per word. Any sequence is held
// exactly: a cycle that does not continue the last run starts a new one.

#include <cstdint>

#include "models/cycle/ring_queue.hpp"
#include "models/narrow_cycle.hpp"

namespace torus {

class CycleRuns {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }  // cycles held
  Cycle front() const { return runs_.front().first; }
  void push_back(Cycle cycle) {
    ++size_;
    if (!runs_.empty()) {
      Run& run = runs_.back();
      const Cycle last = run.first + Cycle{run.step} * (run.count - 1);
      if (cycle >= last && cycle - last <= max_step) {
        const auto gap = static_cast<std::uint32_t>(cycle - last);
        if (run.count == 1) run.step = gap;  // a second cycle sets the run's spacing
        if (gap == run.step) {
          ++run.count;
          return;
        }
      }
    }
    runs_.push_back({cycle, 0, 1});
  }
  void pop_front() {
    --size_;
    Run& run = runs_.front();
    if (--run.count == 0) return runs_.pop_front();
    run.first = Cycle{run.first} + run.step;
  }
  std::size_t bytes() const { return runs_.capacity() * sizeof(Run); }

 private:
  static constexpr Cycle max_step = 0xFFFFFFFFu;
  struct Run {
    NarrowCycle first;
    std::uint32_t step;
    std::uint32_t count;
  };
  RingQueue<Run, 2> runs_;  // mostly one message streaming, or two
  std::size_t size_ = 0;
};

}  // namespace torus
