#include "models/send_order.hpp"

#include <stdexcept>
#include <string>

namespace torus {
namespace {

const TaskDetail& detail_of(const NodeComputes& computes, const ComputeReads& reads) {
  return computes.node->detail(computes.node->tasks[reads.task]);
}

// The order in which compute `c` first reads generation `generation` of `buffer`, or null when
// it reads another generation there or none.
const std::vector<std::uint32_t>* first_reads(const NodeComputes& computes, std::uint32_t c, std::uint32_t buffer,
                                              std::uint32_t generation) {
  const ComputeReads reads = computes.reads(c);
  const TaskDetail& d = detail_of(computes, reads);
  if (d.operand == buffer && reads.operand_generation == generation) return &computes.micro(d.kernel).operand_first_use;
  if (d.coefficient == buffer && reads.coefficient_generation == generation)
    return &computes.micro(d.kernel).coefficient_first_use;
  return nullptr;
}

// Whether compute `c` reads `buffer` in a generation after `generation`: no later compute can
// read the one sent then.
bool reads_newer(const NodeComputes& computes, std::uint32_t c, std::uint32_t buffer, std::uint32_t generation) {
  const ComputeReads reads = computes.reads(c);
  const TaskDetail& d = detail_of(computes, reads);
  return (d.operand == buffer && reads.operand_generation > generation) ||
         (d.coefficient == buffer && reads.coefficient_generation > generation);
}

// The block's words in the order the node's compute that reads it first reads them: the compute
// before the send, for a roll of the block it read; the next compute that reads it, for a block
// sent ahead of its step (the compute before read the buffer's previous block, which with
// uneven blocks has another shape); null (word 0 first) when no compute of the node reads it.
const std::vector<std::uint32_t>* reader_order(const NodeComputes& computes, std::uint32_t compute, std::uint32_t buffer,
                                               std::uint32_t generation) {
  for (std::uint32_t c = compute; c < computes.count; ++c) {
    if (const auto* order = first_reads(computes, c, buffer, generation)) return order;
    if (reads_newer(computes, c, buffer, generation)) break;
  }
  return nullptr;
}

}  // namespace

SendOrder send_order(const NodeComputes& computes, const RollPolicy& policy, std::uint32_t send, std::uint32_t generation,
                     std::uint32_t words, std::uint32_t compute) {
  SendOrder out;
  if (compute == no_task) {
    out.release = policy.release(BlockRole::Operand);
    return out;
  }
  const Task& t = computes.node->tasks[send];
  const ComputeReads before = computes.reads(compute);
  const TaskDetail& c = detail_of(computes, before);
  BlockRole role = BlockRole::Operand;
  if (t.buffer == computes.node->tasks[before.task].buffer) role = BlockRole::Accumulator;
  else if (t.buffer == c.coefficient) role = BlockRole::Coefficient;
  out.release = policy.release(role);
  // Words leave in the order the compute finishes them, or the order a neighbour running the
  // same kernel as the block's reader here will first read them.
  if (out.release == SendRelease::WordFinal) out.order = &computes.micro(c.kernel).accumulator_final_order;
  else if (out.release == SendRelease::WordPresent && (t.buffer == c.operand || t.buffer == c.coefficient))
    out.order = reader_order(computes, compute, t.buffer, generation);
  if (out.order && out.order->size() != words)
    throw std::logic_error("send task " + std::to_string(send) + " of " + std::to_string(words) + " words would leave in an order of " +
                           std::to_string(out.order->size()) + " words");
  return out;
}

}  // namespace torus
