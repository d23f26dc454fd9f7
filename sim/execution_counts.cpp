#include "sim/execution_counts.hpp"

#include <algorithm>
#include <limits>

namespace torus {
namespace {

constexpr std::size_t unset_min = std::numeric_limits<std::size_t>::max();

}  // namespace

ProgramExecutionCounts fresh_execution_counts() {
  ProgramExecutionCounts c;
  c.words_sent_per_node_step_min.fill(unset_min);
  return c;
}

void add_counts(ProgramExecutionCounts& into, const ProgramExecutionCounts& part) {
  into.compute_tasks += part.compute_tasks;
  into.scalar_multiply_adds += part.scalar_multiply_adds;
  into.fft_tasks += part.fft_tasks;
  into.fft_butterflies += part.fft_butterflies;
  into.messages += part.messages;
  for (std::size_t s = 0; s < 3; ++s) {
    into.words_sent_per_node_step[s] = std::max(into.words_sent_per_node_step[s], part.words_sent_per_node_step[s]);
    into.words_sent_per_node_step_min[s] = std::min(into.words_sent_per_node_step_min[s], part.words_sent_per_node_step_min[s]);
  }
}

void settle_counts(ProgramExecutionCounts& counts, std::size_t words_held_per_node) {
  counts.words_held_per_node = words_held_per_node;
  for (std::size_t& w : counts.words_sent_per_node_step_min) w = w == unset_min ? 0 : w;
}

}  // namespace torus
