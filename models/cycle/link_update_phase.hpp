#pragma once
// The update phase of the links staged for threads (models/cycle/step_threads.hpp), as one
// channel: the links the partitions asked to update during a parallel step are updated in its
// update(), each as part of the partition that steps the link's receiver (which reads the
// words next; mostly on the thread that stepped it). Nothing one link's update writes is read or written by another's but the
// wake calendar, whose wake-ups are collected per partition and made afterwards, partitions in
// order (the calendar keeps the earliest per node and wakes nodes in node order, so the order
// of the wake-ups does not matter; it is fixed all the same).

#include <vector>

#include "models/cycle/step_threads.hpp"
#include "models/cycle/systemc.hpp"

namespace torus {

class LinkUpdatePhase : public sc_core::sc_prim_channel {
 public:
  // `parts` and `threads`: one partition each, both outliving the channel.
  LinkUpdatePhase(const char* name, std::vector<DeferredCalls>& parts, StepThreads& threads);
  // Asks for the update phase if some partition asked to update a link.
  void request_if_asked();

 private:
  void update() override;
  void update_links_of(std::size_t receiver);

  std::vector<DeferredCalls>& parts_;
  StepThreads& threads_;
};

}  // namespace torus
