#pragma once
// The cycle-count part of a run report: what the cycle-accurate engine measured, next to what
// the analytic model predicts. Plain data, filled by models/ and rendered by sim/report.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torus {

// Cycles of all nodes, summed: every node-cycle falls in exactly one class.
struct CycleBreakdown {
  std::uint64_t busy = 0;          // at least one fma issued
  std::uint64_t dependency = 0;    // next fma waits for an earlier result (pipeline latency)
  std::uint64_t operand = 0;       // next fma waits for words on their way
  std::uint64_t backpressure = 0;  // waits for words while an outgoing link has no credit
  std::uint64_t idle = 0;          // nothing left to issue
};

struct StageTiming {
  std::size_t transform = 0;
  std::string direction;
  int stage = 1;
  // A node's step begins at its first fma, or, without one (or after a later step's first fma),
  // where the next step begins: steps are ordered per node (models/engine_records.cpp).
  std::uint64_t start = 0;  // the earliest node's start of the stage
  std::uint64_t end = 0;    // the latest node's start of the next stage, or the run's end
};

struct StepTiming {
  std::size_t global_step = 0;
  int stage = 1;
  std::size_t step = 0;
  std::uint64_t min_cycles = 0;  // over nodes: cycles from this step's start to the next's
  std::uint64_t max_cycles = 0;
};

struct LinkTraffic {
  std::string direction;
  std::uint64_t words = 0;          // over all links of this direction
  std::uint64_t active_cycles = 0;  // cycles in which a word left, summed over those links
  std::uint64_t peak_occupancy = 0; // most words waiting in one receive buffer
  std::uint64_t wait_cycles = 0;    // messages' cycles from asking for one of them to their first word leaving
};

struct AnalyticPrediction {
  std::uint64_t cycles = 0;
  bool exact = false;
  std::string regime;  // which closed form, or why none is exact here
};

struct TimingReport {
  std::uint64_t total_cycles = 0;
  double clock_hz = 1e9;
  std::uint64_t nodes = 0;
  // Nodes the engine timed one by one: all, or 1 when a translation quotient stood for the
  // torus (Program::translation_quotient; every node sees the same cycles).
  std::uint64_t nodes_timed = 0;
  std::uint64_t fma_per_cycle = 1;
  std::uint64_t fma_issued = 0;
  std::uint64_t fma_expected = 0;  // 3 N^4 x complex cost x transforms
  std::uint64_t fast_forwarded_fma = 0;  // of fma_issued, those fast-forward issued ahead
  std::string fast_forward_note;         // why fast-forward could not engage, or empty
  // Cycle engine: host threads that stepped the nodes (more than one only when every node steps
  // every cycle; docs/timing-model.md, "Fast-forward"); 0 from the other engines.
  std::uint64_t stepping_threads = 0;
  // Cycle engine: cycles at which SystemC ran a node, summed over the nodes (every node-cycle
  // with fast-forward off; 0 from the event engine).
  std::uint64_t node_activations = 0;
  CycleBreakdown cycles;
  std::vector<StageTiming> stages;
  std::vector<StepTiming> steps;
  std::array<LinkTraffic, 6> links{};
  // Per link (node * 6 + direction, node index q + P (r + P s)): cycles in which a word left.
  // Kept for tori of at most 16^3 nodes, for heat maps.
  std::vector<std::uint64_t> link_active_cycles;
  std::uint64_t words_paper = 0;          // 4 b^3 + 3 b^2
  std::uint64_t words_allocated = 0;      // buffer words a node really allocates (max over nodes)
  std::uint64_t words_second_buffers = 0; // allocated beyond the paper's count: the second buffers
  std::uint64_t words_link_buffers = 0;   // six link receive buffers of link_buffer_words
  std::optional<AnalyticPrediction> analytic;
  // Host memory the engine's state takes: per node (node module, scoreboard, task records,
  // buffer values, its six outgoing links; the largest node), and the Program it runs.
  std::uint64_t engine_bytes_per_node = 0;
  std::uint64_t program_bytes = 0;
  std::uint64_t memory_estimate_bytes = 0;  // what the run was expected to need before it started
  double simulation_seconds = 0;          // wall time of the SystemC run itself
  std::uint64_t peak_memory_bytes = 0;    // the process's peak resident set, after the run

  double seconds() const { return static_cast<double>(total_cycles) / clock_hz; }
  double utilisation() const {
    const double capacity = static_cast<double>(total_cycles) * static_cast<double>(nodes * fma_per_cycle);
    return capacity > 0 ? static_cast<double>(fma_issued) / capacity : 0.0;
  }
  double node_cycles_per_second() const {
    return simulation_seconds > 0 ? static_cast<double>(total_cycles * nodes) / simulation_seconds : 0.0;
  }
};

}  // namespace torus
