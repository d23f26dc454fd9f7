#pragma once
// A FIFO on one growable circular array: no allocation once it has reached its working size,
// unlike std::deque, whose chunks are allocated and freed as words stream through a link.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace torus {

// `first_capacity` (a power of two): the capacity of the first allocation, small where most
// queues stay short.
template <class T, std::size_t first_capacity = 4>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return items_.capacity(); }
  T& front() { return items_[head_]; }
  T& back() { return items_[(head_ + size_ - 1) & mask_]; }
  const T& front() const { return items_[head_]; }
  // Where the front element is kept (for a prefetch hint), or nullptr when never allocated.
  const T* front_address() const { return items_.empty() ? nullptr : items_.data() + head_; }
  // Where back() is (nullptr when nothing is held).
  const T* back_address() const { return size_ == 0 ? nullptr : items_.data() + ((head_ + size_ - 1) & mask_); }
  // The i-th element from the front.
  const T& operator[](std::size_t i) const { return items_[(head_ + i) & mask_]; }
  T& operator[](std::size_t i) { return items_[(head_ + i) & mask_]; }

  void push_back(T item) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) & mask_] = std::move(item);
    ++size_;
  }
  // The leading elements stored contiguously (all of them unless the ring wraps).
  const T* front_run(std::size_t& count) const {
    count = std::min(size_, items_.size() - head_);
    return items_.data() + head_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(items_.empty() ? first_capacity : items_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(items_[(head_ + i) & mask_]);
    items_ = std::move(bigger);
    head_ = 0;
    mask_ = items_.size() - 1;
  }

  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace torus
