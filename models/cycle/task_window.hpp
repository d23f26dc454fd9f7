#pragma once
// Per-task counts of a node kept only for the tasks that may still change or be asked about:
// a window from the oldest task not yet retired. A node walks its list in order and posts
// receives and sends only a little ahead of the pointer, while the tasks far behind it are
// finished, so a few dozen slots stand for a list of hundreds of tasks.
//
// Tasks before oldest() are retired: the window forgot their counts, and whoever retired them
// knows what those were (finished: all their words). Tasks past the slots count 0. The slots
// form a ring indexed by task & mask; a slot is zeroed when its task retires, so the ring's free
// slots always read 0 for the tasks that move into them. Retiring is lazy: only when a task
// past the window is counted, the finished tasks at its front go (the caller says which are),
// and the ring doubles when that frees too little.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace torus {

class TaskWindow {
 public:
  std::uint32_t oldest() const { return oldest_; }
  bool retired(std::uint32_t task) const { return task < oldest_; }
  // Precondition: !retired(task).
  std::uint32_t count(std::uint32_t task) const {
    return task - oldest_ < slots_.size() ? slots_[task & mask_] : 0;
  }
  // Adds `n` to the count of `task` (not retired). `finished(t)`: whether task t, earlier
  // than `task`, will never be counted or asked about by its count any more.
  template <class Finished>
  void add(std::uint32_t task, std::uint32_t n, Finished&& finished) {
    if (task - oldest_ >= slots_.size()) make_room(task, finished);
    slots_[task & mask_] += n;
  }
  std::size_t capacity() const { return slots_.capacity(); }
  std::size_t bytes() const { return slots_.capacity() * sizeof(std::uint32_t); }

 private:
  template <class Finished>
  void make_room(std::uint32_t task, Finished& finished) {
    if (task < oldest_)
      throw std::logic_error("task " + std::to_string(task) + " counted after it was retired (the window starts at " +
                             std::to_string(oldest_) + ")");
    for (; oldest_ < task && finished(oldest_); ++oldest_)
      if (!slots_.empty()) slots_[oldest_ & mask_] = 0;
    if (task - oldest_ < slots_.size()) return;
    std::size_t size = slots_.empty() ? initial : slots_.size();
    while (size <= task - oldest_) size *= 2;
    std::vector<std::uint32_t> bigger(size, 0);
    for (std::uint32_t t = oldest_; t - oldest_ < slots_.size(); ++t) bigger[t & (size - 1)] = slots_[t & mask_];
    slots_ = std::move(bigger);
    mask_ = static_cast<std::uint32_t>(size - 1);
  }

  static constexpr std::size_t initial = 8;
  std::vector<std::uint32_t> slots_;
  std::uint32_t oldest_ = 0;
  std::uint32_t mask_ = 0;
};

}  // namespace torus
