#pragma once
// The generic Program verifier: proves, for any algorithm's Program, that it is well formed
// and means what it says, before an engine spends time on it. It checks
//   structure  node count, buffer / kernel / message / host-array indices, buffer sizes;
//   messages   exactly one send (at the source) and one receive (at the destination) each;
//   routes     a chain of neighbouring links from source to destination;
//   data flow  a symbolic run in task order: nothing read before written, every compute sees
//              the blocks it names, every send carries the block its message declares;
//   deadlock   the run always progresses (one violation naming the cycle of waits);
//   outputs    every promised (buffer, tag) holds at the end.
//
// The meaning of the order it checks against: each node runs its tasks in order; a send never
// blocks. A receive takes effect at its place in the list (from there on its buffer holds the
// message's block) but is posted, not awaited: the node waits for the message only when a
// later task touches that buffer (reads it, writes it, sends it, receives into it again) or
// when its list ends. This is what lets a generator post the next step's receives before the
// current step computes (sim/algorithms/orbital.cpp); a node that touches the buffer before
// the sender gets to its send deadlocks.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "sim/program.hpp"

namespace torus {

// `node` and `task` are SIZE_MAX when the fact concerns no single node / task.
struct ProgramViolation {
  std::size_t node = 0;
  std::size_t task = 0;  // index in the node's task list
  std::string message;
};
inline constexpr std::size_t whole_program = std::numeric_limits<std::size_t>::max();

// "node (0,1,0), task 12 (compute, transform 0 stage 2 step 1): ..."
std::string to_string(const Program& program, const ProgramViolation& violation);

struct ProgramVerification {
  std::vector<ProgramViolation> violations;  // the first `max_reported`
  std::size_t violation_count = 0;
  std::size_t tasks_checked = 0;     // every task of a well-formed Program, even after a deadlock
  std::size_t messages_checked = 0;  // routes followed
  bool ok() const { return violation_count == 0; }
};

// Never throws on a malformed Program: every problem becomes a violation. Linear in tasks
// plus route hops; diagnostics are only formatted for the violations kept.
ProgramVerification verify_program(const Program& program, std::size_t max_reported = 20);

}  // namespace torus
