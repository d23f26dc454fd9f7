#pragma once
// What the functional executor (sim/program_executor.cpp) keeps of each node besides its
// buffers: where it is in its task list, the message it waits for, and what it counted; with
// the counting of its steps, the merge of every node's counts once all are done, and the
// report of the waiting nodes when none can progress. None of it depends on the element type,
// so it lives here, compiled once, rather than in each of the executor's four Machine<T>s,
// which keep the buffers, the messages and the tasks.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/execution_counts.hpp"
#include "sim/program.hpp"

namespace torus::executor {

inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

struct NodeState {
  std::size_t pc = 0;
  std::uint32_t waiting = none;  // the message it blocked on last
  bool done = false;
  bool in_step = false;          // the step counters below describe an open step
  TaskLabel step;                // the open step
  std::size_t sent = 0;          // words sent in the open step
  std::vector<std::uint32_t> dropped;  // posted receives without a buffer, message not sent yet
  // Counted by this node alone (nodes run in parallel) and merged at the end: per transform,
  // and the global steps it opened with their transform.
  std::vector<ProgramExecutionCounts> counts;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> steps_opened;
  std::string error;             // what stopped it (the lowest node's is reported)
};

// The node's counts of one transform, grown when a label names a transform beyond the list.
ProgramExecutionCounts& counts_of(NodeState& node, std::uint32_t transform);
// A task of another global step than the open one closes it and opens its own.
void open_step(NodeState& node, const TaskLabel& label);
// The words the node sent in the open step count toward its stage's maximum and minimum.
void close_step(NodeState& node);

struct MergedCounts {
  ProgramExecutionCounts total;
  std::vector<ProgramExecutionCounts> per_transform;  // at least `transforms` of merge_counts
};
// The whole run's counts and each transform's, from every node's; a global step counts once,
// however many nodes opened it.
MergedCounts merge_counts(const std::vector<NodeState>& nodes, std::size_t transforms, std::size_t words_held);

// Why the Program cannot progress: how many nodes wait, and what the first 8 wait for.
std::string deadlock(const Program& program, const std::vector<NodeState>& nodes);

}  // namespace torus::executor
