#pragma once
// Wakes nodes at the cycles they ask for, in node order: those that sleep (fast-forward,
// waiting, finished) and those that fast-forward but step the next cycle (a node with
// fast-forward off steps on the clock instead). Each node, as it starts, asks for the state
// of the nodes that run after it.
//
// Why: at thousands of nodes a node's state has left the cache by the time it wakes, and its
// activation reaches that state through pointers, one miss after another. Woken by SystemC's
// own timed events, the nodes of one cycle run in an order no node can know. Woken here, in
// index order, a node knows which run next, and asks for their state while it works: their
// misses overlap with its work instead of following one another (docs/timing-model.md,
// "Fast-forward"). Nothing a node computes depends on the order (models/cycle/node.hpp).
//
// The rule is SystemC's, kept per node, so that a node sees the same activations as with
// next_trigger(timeout, event) and a timed notify of that event:
// - arm(node, timeout, listening): the node waits until `timeout` (never: no timeout) and, if
//   `listening`, for a notification; replaced by the next arm, dropped once the node is woken.
// - notify(node, at): a timed notification of the node's wake event; one is pending at a time
//   (an earlier one replaces a later one, a later one is ignored); when it comes due, it wakes
//   the node only if the node is listening then.
// The calendar's own event fires at the start of the cycle, so the nodes it wakes run in the
// same evaluation phase as those SystemC's timed events would have woken.

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "models/cycle/systemc.hpp"
#include "models/cycle_type.hpp"
#include "models/narrow_cycle.hpp"

namespace torus {

// What the calendar wakes: a process waiting (dynamically) on `wake_event()`, with hints that
// ask for its state before it runs (models/prefetch.hpp): what its object points to, once the
// object is in (the calendar asks for the object itself by address: no call into a cold one);
// then, mostly, what those point to.
class Wakeable {
 public:
  virtual sc_core::sc_event& wake_event() = 0;
  virtual void prefetch_links() const {}
  virtual void prefetch_words() const {}

 protected:
  ~Wakeable() = default;
};

class WakeCalendar : public sc_core::sc_module {
 public:
  WakeCalendar(const sc_core::sc_module_name& name, Cycle period_ticks);

  // The nodes, indexed as the Program numbers them (each node's index is its place here), and
  // how many bytes of each node's object, from its Wakeable part on, to ask for ahead.
  void attach(std::vector<Wakeable*> nodes, std::size_t object_bytes);
  void arm(std::uint32_t node, Cycle timeout, bool listening);
  void notify(std::uint32_t node, Cycle at);
  // Called by each node as its activation starts; a node the calendar woke then asks for the
  // state of the next ones woken with it.
  void running(std::uint32_t node);
  // Bytes the calendar allocates (for the memory report).
  std::size_t bytes() const;

 private:
  // Per node, 12 bytes: its armed timeout, its pending notification, and whether it listens.
  struct Entry {
    NarrowCycle timeout = never;
    NarrowCycle notified = never;
    bool listening = false;
  };
  void fire();
  // Lists the node for cycle `at` (never before the current cycle: a logic error, since the
  // calendar's event could then never come due) and moves the calendar's event earlier if need be.
  void schedule(std::uint32_t node, Cycle at);
  void notify_event_at(Cycle at, Cycle now_ticks);
  void prefetch_object(std::uint32_t node) const;
  // Asks for the state of the nodes after woken_[position]: their objects three places ahead,
  // what the objects point to two, and the words those point to one.
  void prefetch_after(std::size_t position) const;

  Cycle period_ticks_;
  // Per node, its event held apart too: notifying it needs no look into the node's object.
  struct Target {
    Wakeable* node;
    sc_core::sc_event* event;
  };
  std::vector<Target> targets_;
  std::size_t object_bytes_ = 0;
  std::vector<Entry> entries_;
  // Nodes to look at, per cycle (a node may be listed for a cycle that no longer concerns it:
  // the entry decides).
  std::map<Cycle, std::vector<std::uint32_t>> due_;
  std::vector<std::vector<std::uint32_t>> spare_;  // emptied lists, kept for reuse
  std::vector<std::uint32_t> woken_;               // woken at the current cycle, in order
  std::size_t cursor_ = 0;                         // woken_[cursor_] runs next
  sc_core::sc_event event_;
  Cycle event_at_ = never;  // the cycle event_ is notified for
};

}  // namespace torus
