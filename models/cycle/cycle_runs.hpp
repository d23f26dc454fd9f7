#pragma once
// A FIFO of cycles kept as evenly spaced runs (first, step, count). The cycles a link's words
// leave at and its credits return at come one a cycle or evenly spaced while a message streams,
// so a whole message takes one entry (12 bytes) instead of one per word. Any sequence is held
// exactly: a cycle that does not continue the last run starts a new one.

#include <algorithm>
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
  // As `count` push_back calls for first, first + step, ...
  void push_run(Cycle first, Cycle step, std::size_t count) {
    if (count == 0) return;
    push_back(first);
    if (count == 1) return;
    if (step > max_step) {
      for (std::size_t k = 1; k < count; ++k) push_back(first + step * k);
      return;
    }
    Run* run = &runs_.back();
    if (run->count > 1 && run->step != step) {  // `first` ended a run of another spacing
      push_back(first + step);
      run = &runs_.back();
      --count;
    }
    if (run->count == 1) run->step = static_cast<std::uint32_t>(step);
    run->count += static_cast<std::uint32_t>(count - 1);
    size_ += count - 1;
  }
  // Pops the cycles up to `cycle` (those at the front, all of them <= `cycle`); returns how many.
  std::size_t pop_through(Cycle cycle) {
    std::size_t popped = 0;
    while (!runs_.empty()) {
      Run& run = runs_.front();
      const Cycle first = run.first;
      if (first > cycle) break;
      const std::size_t n = run.step == 0 ? run.count : std::min<std::size_t>(run.count, (cycle - first) / run.step + 1);
      popped += n;
      size_ -= n;
      if (n == run.count) {
        runs_.pop_front();
        continue;
      }
      run.count -= static_cast<std::uint32_t>(n);
      run.first = first + Cycle{run.step} * n;
      break;
    }
    return popped;
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
