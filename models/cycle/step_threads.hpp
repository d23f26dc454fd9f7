#pragma once
// Stepping the nodes that step every cycle on several host threads (docs/timing-model.md,
// "Fast-forward"). The nodes are cut into partitions of consecutive indices; in each cycle
// each partition's nodes step in node order on one thread (whichever claims it), while
// SystemC's kernel waits for all of them. A node's cycle touches its own state and its ends of its links only:
// what crosses to another node (a word sent, a credit returned) is staged in the link and
// moved in the update phase, and what would reach the kernel or the run's shared records
// (arming the wake calendar, a node finishing) is collected per partition and replayed by the
// clock's process afterwards, partitions in order, each in the order it was collected: the
// order one thread stepping the nodes in index order makes the same calls in. The links a
// partition staged are updated in one update-phase call (LinkUpdatePhase), each as part of its
// receiver's partition; the wake-ups those updates ask for are collected the same way and made
// in partition order.

#include <atomic>
#include <cstdint>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

namespace torus {

class LinkChannel;
class Node;
class WakeCalendar;

// What one partition's nodes asked of the kernel and the run during a parallel step, in order.
// While `collecting` is false (the nodes run one at a time: in their own processes, or on one
// thread), callers act at once instead.
// A cache line or more each: the threads write their own partition's lists as their nodes step.
struct alignas(64) DeferredCalls {
  bool collecting = false;
  std::uint32_t part = 0;  // the partition's index
  // A node finishing at `cycle`, or arming the wake calendar (WakeCalendar::arm).
  struct NodeCall {
    Node* node = nullptr;
    std::uint64_t cycle = 0;  // finishing: its cycle; arming: the timeout
    bool finish = false;
    bool listening = false;
  };
  // A wake-up a link's update asks of the calendar (WakeCalendar::notify).
  struct Wake {
    WakeCalendar* calendar = nullptr;
    std::uint32_t node = 0;
    std::uint64_t at = 0;
  };
  // Links that need their update phase, by the partition of their receiver (which updates
  // them): updates_to[q] for partition q, one list per partition.
  std::vector<std::vector<LinkChannel*>> updates_to;
  std::vector<NodeCall> nodes;
  std::vector<Wake> wakes;  // made while this partition updates its links, in order
  // Drops what was collected (after an exception: the run ends there, and links left
  // un-updated keep their staged words), keeping the partition's index and lists' count.
  void clear() {
    collecting = false;
    for (std::vector<LinkChannel*>& links : updates_to) links.clear();
    nodes.clear();
    wakes.clear();
  }
};

// A job run on `count` partitions at once, on the calling thread and on threads kept for the
// object's lifetime. Each thread claims partitions until none is left, the calling thread too:
// a thread the host has not scheduled yet (other processes share the cores) leaves its
// partition to the others instead of holding them up. Which thread runs a partition changes
// nothing a partition computes. A waiting thread spins briefly (the next cycle usually comes
// within microseconds), then sleeps until the next job.
class StepThreads {
 public:
  explicit StepThreads(std::size_t count);
  ~StepThreads();
  StepThreads(const StepThreads&) = delete;
  StepThreads& operator=(const StepThreads&) = delete;

  std::size_t count() const { return errors_.size(); }
  // Calls job(p) once for each p = 0 .. count() - 1 and returns once every call has returned.
  // If calls threw, rethrows the exception of the lowest partition (the node a single thread
  // stepping in index order would have stopped at).
  void run(const std::function<void(std::size_t)>& job);

 private:
  void work();
  void stop();
  // Claims and runs partitions of job `generation` until none is left or a later job began.
  void claim(std::uint64_t generation);
  void call(std::size_t partition);

  const std::function<void(std::size_t)>* job_ = nullptr;
  std::vector<std::exception_ptr> errors_;
  // The job's generation in the high 32 bits, the next partition to claim in the low 32: a
  // thread that wakes late cannot claim a partition of a later job as one of its own.
  std::atomic<std::uint64_t> state_{0};
  std::atomic<std::size_t> pending_{0};  // partitions of the current job not yet done
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

// Partition p of `count` items cut into `parts`: [first, last).
inline std::pair<std::size_t, std::size_t> partition_range(std::size_t count, std::size_t parts, std::size_t p) {
  return {count * p / parts, count * (p + 1) / parts};
}
// The partition item i of `count` falls in (the inverse of partition_range).
inline std::size_t partition_of(std::size_t i, std::size_t count, std::size_t parts) {
  return ((i + 1) * parts - 1) / count;
}

}  // namespace torus
