#pragma once
// Writing a matmul Program's tasks, shared by the matmul generators on the array (systolic,
// a_stationary, b_stationary): buffers sized to the largest block they ever hold, host loads
// of A and B, one-message transfers and the block product C += A x3 B.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "sim/matmul.hpp"

namespace torus::matmul_tasks {

inline std::uint32_t add_buffer(Program& p, std::size_t node, std::uint16_t kind) {
  auto& buffers = p.nodes[node].buffers;
  buffers.push_back({0, kind});
  return static_cast<std::uint32_t>(buffers.size() - 1);
}

// The buffer grows to hold `t` (blocks of uneven cuts differ in size).
inline void hold(Program& p, std::size_t node, std::uint32_t buffer, const DataTag& t) {
  BufferSpec& spec = p.nodes[node].buffers[buffer];
  spec.words = std::max<std::uint32_t>(spec.words, static_cast<std::uint32_t>(p.words_of(t)));
}

// `t` (a block of A or B) from the host into `buffer`.
inline void load(Program& p, std::size_t node, std::uint32_t buffer, const DataTag& t, const TaskLabel& label) {
  Task task = make_task(TaskKind::Load, label);
  task.buffer = buffer;
  TaskDetail d;
  d.tag = t;
  d.source = {static_cast<std::uint16_t>(t.kind == matmul_a ? 0 : 1), t.index};
  hold(p, node, buffer, t);
  p.nodes[node].add(task, d);
}

inline std::uint32_t message(Program& p, std::size_t from, std::size_t to, const std::vector<Direction>& route, const DataTag& t) {
  return p.add_message(from, to, route, p.words_of(t), t);
}

// A send or a receive of message `id` from / into `buffer`.
inline void transfer(Program& p, TaskKind kind, std::size_t node, std::uint32_t buffer, std::uint32_t id,
                     const TaskLabel& label) {
  Task task = make_task(kind, label);
  task.buffer = buffer;
  task.message = id;
  if (kind == TaskKind::Receive) hold(p, node, buffer, p.messages[id].tag);
  p.nodes[node].tasks.push_back(task);
}

// acc (holding a sum of block c of C) += A block `a` x3 B block `b`; `zero` starts the sum.
inline void product(Program& p, std::size_t node, const TaskLabel& label, std::uint32_t acc, const DataTag& c,
                    std::uint32_t a_buffer, const DataTag& a, std::uint32_t b_buffer, const DataTag& b, bool zero) {
  Task task = make_task(TaskKind::Compute, label);
  task.buffer = acc;
  task.zero_accumulator = zero;
  TaskDetail d;
  d.operand = a_buffer;
  d.coefficient = b_buffer;
  d.kernel = p.kernel_for(3, p.extents_of(c), p.extents_of(a));
  d.tag = c;
  d.operand_tag = a;
  d.coefficient_tag = b;
  hold(p, node, acc, c);
  p.nodes[node].add(task, d);
}

}  // namespace torus::matmul_tasks
