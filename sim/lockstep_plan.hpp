#pragma once
// How sim/quotient_executor.hpp runs a translation quotient's one task list on every node: read
// off the list alone, so it holds for every node alike.
//
// - Groups: consecutive tasks a node runs in one go; a group ends before a task that needs a
//   message sent within it.
// - Mailbox slots: each node has `slots` places for the copies sent to it; a message's copy
//   occupies its slot from the group of its send to the group where its receiver takes it, and
//   two messages share a slot only when one is taken in an earlier group than the other is sent.
// - Phases: runs of groups with barriers between them only. Within a multi-group phase the nodes
//   fall apart into components (cosets of the displacements of the messages sent and taken within
//   it), and each component runs all the phase's groups in turn on one thread, so its blocks stay
//   in cache from one step to the next instead of every step streaming every node's blocks. A
//   single-group phase splits the nodes into one contiguous range per thread.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/geometry.hpp"
#include "sim/program.hpp"

namespace torus {

inline constexpr std::uint32_t no_message = std::numeric_limits<std::uint32_t>::max();

struct LockstepPhase {
  std::size_t first_group = 0, end_group = 0;
  std::vector<std::uint32_t> order;       // multi-group: the nodes, component after component
  std::vector<std::size_t> unit_start;    // multi-group: where each component starts in `order`, then its size
  std::size_t units() const { return unit_start.empty() ? 0 : unit_start.size() - 1; }
};

struct LockstepPlan {
  std::vector<std::size_t> group_start;              // the first task of each group, then the list's end
  std::vector<std::uint32_t> start_of;               // per task: the first task of its group
  std::vector<std::vector<std::uint32_t>> touched;   // per group: the buffers its tasks read or write
  std::vector<std::uint32_t> sent_at;                // per message: the place of its send, or no_message
  std::vector<bool> dropped;                         // per message: its receive keeps no words
  std::vector<NodeCoord> reach;                      // per message: where node (0,0,0)'s copy arrives
  std::vector<std::uint32_t> slot;                   // per message: its mailbox slot at the receiver
  std::uint32_t slots = 0;
  std::vector<LockstepPhase> phases;
};

// `quotient`: a translation quotient (one node's list); `threads` decides how many components a
// phase needs (enough to share among them evenly).
LockstepPlan plan_lockstep(const Program& quotient, unsigned threads);

}  // namespace torus
