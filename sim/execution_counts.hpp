#pragma once
// What an execution of a Program did, counted while it ran (not read off the Program), and how
// the counts of nodes that ran apart are put together.

#include <array>
#include <cstddef>

namespace torus {

// What one execution did, counted while it ran (not read off the Program), so that a wrong
// generator or a wrong engine shows as a difference from ProgramCounts.
struct ProgramExecutionCounts {
  std::size_t steps = 0;                 // distinct step labels executed
  std::size_t compute_tasks = 0;         // block multiply-adds
  std::size_t scalar_multiply_adds = 0;  // b^4 per compute task
  std::array<std::size_t, 3> words_sent_per_node_step{};      // per stage, max over nodes and steps
  std::array<std::size_t, 3> words_sent_per_node_step_min{};  // per stage, min over nodes and steps (0 if none)
  std::size_t words_held_per_node = 0;   // buffer words a node allocates, max over nodes
  std::size_t messages = 0;              // sends executed
  std::size_t fft_tasks = 0;             // FFT tasks executed
  std::size_t fft_butterflies = 0;       // their butterflies
};

// Counts with nothing in them yet (the per-stage minima start above any count).
ProgramExecutionCounts fresh_execution_counts();
// Adds one node's counts (or a transform's) into `into`: sums, and maxima and minima per stage.
void add_counts(ProgramExecutionCounts& into, const ProgramExecutionCounts& part);
// Once every node is in: minima never set become 0, and the words a node holds are set.
void settle_counts(ProgramExecutionCounts& counts, std::size_t words_held_per_node);

}  // namespace torus
