#pragma once
// Turns what the nodes and links of a finished cycle-accurate run counted into the report:
// cycles per stage and step (read through the Program's labels), the node-cycle classes,
// words per link direction, and the memory the nodes really allocated.

#include "models/cycle/torus_top.hpp"
#include "sim/executor.hpp"
#include "sim/timing_report.hpp"

namespace torus {

// Per node and global step: the first fma's cycle, the cycle its last result is usable, fma
// issued and words sent (never / 0 when the node did nothing in that step).
struct StepRecords {
  std::vector<std::vector<Cycle>> start, done, first_send, last_send;
  std::vector<std::vector<std::uint32_t>> fma, words_sent;
};
StepRecords step_records(const TorusTop& top);

// `fma_expected`: what the problem needs (3 N^4 x cost x transforms for the orbital transform).
TimingReport collect_timing(const TorusTop& top, const StepRecords& steps, std::uint64_t fma_expected);

// What the nodes did during one transform, counted by the nodes themselves.
ExecutionCounts measured_counts(const TorusTop& top, const StepRecords& steps, std::uint32_t transform,
                                std::size_t fma_per_multiply_add);

}  // namespace torus
