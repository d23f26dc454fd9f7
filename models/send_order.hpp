#pragma once
// When a posted send's words may leave and in which order (docs/timing-model.md, "Node memory
// and the send policies"): the one rule both engines apply, so that they cannot differ in it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/dataflow.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus {

// What one compute of the node reads, as an engine keeps it.
struct ComputeReads {
  std::uint32_t task = 0;  // its index in the node's list
  std::uint32_t operand_generation = 0, coefficient_generation = 0;
};

// The node's computes, in list order, seen through the engine's own tables.
struct NodeComputes {
  const NodeProgram* node = nullptr;
  std::size_t count = 0;
  std::function<ComputeReads(std::uint32_t)> reads;          // of compute c
  std::function<const MicroProgram&(std::uint32_t)> micro;  // of a kernel
};

struct SendOrder {
  SendRelease release = SendRelease::ComputeDone;
  const std::vector<std::uint32_t>* order = nullptr;  // word k leaves k-th; null: word k itself
};

// Send task `send` of the node, of generation `generation` of its buffer, posted after compute
// `compute` (the last before it in the list, or no_task). Throws std::logic_error when the order
// found does not have the message's `words` words.
SendOrder send_order(const NodeComputes& computes, const RollPolicy& policy, std::uint32_t send, std::uint32_t generation,
                     std::uint32_t words, std::uint32_t compute);

}  // namespace torus
